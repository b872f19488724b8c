// The multisplit kernels: pre-scan (histograms) and post-scan (rank, reorder
// in shared memory, coalesced scatter) for the warp and block methods, and
// the pieces of the radix-sort fallback.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "primitives/common/chained_launch.cuh"
#include "primitives/multisplit/detail/block_rank.cuh"
#include "primitives/multisplit/detail/warp_rank.cuh"

namespace graphkit {
struct bucket_ids_of;
}

namespace graphkit::multisplit_detail {

/// Stands in for the value type of keys-only calls.
struct no_value {};

template <class Value>
inline constexpr bool kHasValues = !std::is_same_v<Value, no_value>;

/// Storage for tile values: real for pairs, one dummy element for keys only.
template <class Value, int N>
using value_tile = Value[kHasValues<Value> ? N : 1];

/// Pairs of 4-byte keys and values, which a staged tile may hold side by
/// side (packed_pair): one 8-byte shared-memory access a pair where two
/// arrays take two 4-byte ones.
template <class Key, class Value>
inline constexpr bool kPackedPairs = kHasValues<Value> && sizeof(Key) == 4 && sizeof(Value) == 4;
template <class Key, class Value>
struct alignas(8) packed_pair {
  Key key;
  Value value;
};

/// A staged tile that holds its pairs packed (its kPacked).
template <class Staged>
concept packed_staging = requires {
  requires Staged::kPacked;
};

/// Whether a bucket functor reads a table that a block copies into its
/// shared memory first (compact_ids.cuh's compacted_ids): `in_block(table)`
/// copies it into `table` (kBlockTableBytes) and returns the functor that
/// reads the copy; a barrier must come before that functor's first call.
template <class BucketOf>
concept has_block_table = requires(const BucketOf& f, std::uint8_t* table) {
  f.in_block(table);
};
inline constexpr int kBlockTableBytes = 256;

/// The functor a block's threads apply: `bucket_of` itself, or its
/// block-local copy (has_block_table).
template <class BucketOf>
__device__ __forceinline__ auto in_block(const BucketOf& bucket_of, std::uint8_t* table) {
  if constexpr (has_block_table<BucketOf>) return bucket_of.in_block(table);
  else return bucket_of;
}

/// The bucket of item i, whose key is already in a register.
template <class BucketOf, class Key>
__device__ __forceinline__ std::uint32_t bucket_of_item(const BucketOf& bucket_of, const Key& key, std::size_t i) {
  if constexpr (std::is_same_v<BucketOf, bucket_ids_of>) return bucket_of.ids[i];
  else return static_cast<std::uint32_t>(bucket_of(key));
}

// Loads a warp's Items items (item r of this lane is first + 32 r) and
// classifies them. All loads are issued before any bucket is computed, so a
// warp has Items loads in flight rather than one per vote round. Out-of-range
// ids make their item invalid and are counted in `bad`.
template <int Items, class Key, class BucketOf>
__device__ __forceinline__ void load_items(const Key* keys, std::size_t n, std::size_t first, std::uint32_t m,
                                           const BucketOf& bucket_of, Key (&key)[Items], std::uint32_t (&bucket)[Items],
                                           bool (&valid)[Items], std::uint32_t& bad) {
#pragma unroll
  for (int r = 0; r < Items; ++r) {
    valid[r] = first + r * 32 < n;
    if (valid[r]) key[r] = keys[first + r * 32];
  }
#pragma unroll
  for (int r = 0; r < Items; ++r) {
    bucket[r] = 0;
    if (valid[r]) {
      bucket[r] = bucket_of_item(bucket_of, key[r], first + r * 32);
      if (bucket[r] >= m) {
        valid[r] = false;
        ++bad;
      }
    }
  }
}

// Loads the values of a warp's items early too, so their latency overlaps
// the keys' rather than the scatter's.
template <int Items, class Value>
__device__ __forceinline__ void load_values(const Value* values, std::size_t n, std::size_t first,
                                            value_tile<Value, Items>& value) {
  if constexpr (kHasValues<Value>) {
#pragma unroll
    for (int r = 0; r < Items; ++r)
      if (first + r * 32 < n) value[r] = values[first + r * 32];
  }
}

// ---- warp method (m <= 32): units are warps --------------------------------

// One tile per unit (a warp's or a block's): walking several tiles per unit
// shrinks the histogram matrix but measured up to 1.5x slower at m = 32..256
// (bench/multisplit_bench, H100), since a unit's tiles then run in series.

template <int Warps, int Items, class Key, class BucketOf>
__global__ void __launch_bounds__(Warps * 32)
    warp_prescan(const Key* keys, std::size_t n, std::uint32_t m, int bits, BucketOf bucket_of,
                 std::uint32_t* histogram, std::size_t units, std::uint32_t* out_of_range) {
  const std::size_t unit = std::size_t{blockIdx.x} * Warps + threadIdx.x / 32;
  if (unit >= units) return;  // whole warps leave together
  const std::size_t first = unit * 32 * Items + lane_id();
  Key key[Items];
  std::uint32_t bucket[Items];
  bool valid[Items];
  std::uint32_t bad = 0;
  load_items(keys, n, first, m, bucket_of, key, bucket, valid, bad);
  ballot_ranker ranker;
#pragma unroll
  for (int r = 0; r < Items; ++r) ranker.count(bucket[r], valid[r], bits);
  if (lane_id() < m) histogram[lane_id() * units + unit] = ranker.running;
  report_out_of_range(bad, out_of_range);
}

template <int Warps, int Items, class Key, class Value, class BucketOf>
__global__ void __launch_bounds__(Warps * 32)
    warp_postscan(const Key* keys_in, const Value* values_in, Key* keys_out, Value* values_out, std::size_t n,
                  std::uint32_t m, int bits, BucketOf bucket_of, const std::uint32_t* scanned, std::size_t units) {
  constexpr int kTile = 32 * Items;
  __shared__ Key tile_keys[Warps][kTile];
  __shared__ value_tile<Value, Warps * kTile> tile_values;
  __shared__ std::uint8_t tile_buckets[Warps][kTile];
  const unsigned warp = threadIdx.x / 32, lane = lane_id();
  const std::size_t unit = std::size_t{blockIdx.x} * Warps + warp;
  if (unit >= units) return;
  const std::size_t first = unit * kTile + lane;

  Key key[Items];
  value_tile<Value, Items> value;
  std::uint32_t bucket[Items], rank[Items];
  bool valid[Items];
  std::uint32_t bad = 0;  // counted by the pre-scan already
  load_items(keys_in, n, first, m, bucket_of, key, bucket, valid, bad);
  load_values<Items>(values_in, n, first, value);
  ballot_ranker ranker;
#pragma unroll
  for (int r = 0; r < Items; ++r) rank[r] = ranker.rank(bucket[r], valid[r], bits);
  // Lane b: the warp's count, local start and global base of bucket b.
  const std::uint32_t count = lane < m ? ranker.running : 0;
  std::uint32_t start = count;
#pragma unroll
  for (int d = 1; d < 32; d <<= 1) {
    const std::uint32_t below = __shfl_up_sync(kFullMask, start, d);
    if (lane >= static_cast<unsigned>(d)) start += below;
  }
  const std::uint32_t total = __shfl_sync(kFullMask, start, 31);
  start -= count;
  const std::uint32_t base = lane < m ? scanned[lane * units + unit] : 0;

#pragma unroll
  for (int r = 0; r < Items; ++r) {
    const std::uint32_t at = __shfl_sync(kFullMask, start, bucket[r] & 31u) + rank[r];
    if (valid[r]) {
      tile_keys[warp][at] = key[r];
      tile_buckets[warp][at] = static_cast<std::uint8_t>(bucket[r]);
      if constexpr (kHasValues<Value>) tile_values[warp * kTile + at] = value[r];
    }
  }
  __syncwarp();
  // Consecutive lanes now hold consecutive items of one bucket (mostly), so
  // the writes below coalesce into runs.
  for (std::uint32_t j = 0; j < total; j += 32) {
    const std::uint32_t i = j + lane;
    const std::uint32_t b = i < total ? tile_buckets[warp][i] : 0;
    const std::uint32_t dst = __shfl_sync(kFullMask, base, b) + i - __shfl_sync(kFullMask, start, b);
    if (i < total) {
      keys_out[dst] = tile_keys[warp][i];
      if constexpr (kHasValues<Value>) values_out[dst] = tile_values[warp * kTile + i];
    }
  }
}

// ---- block method (m <= 256): units are blocks ----------------------------

/// Counts one tile of Warps * 32 * Items keys (the tile starting at
/// tile_first) into this warp's shared row of m counters, one shared-memory
/// atomic per item: counting needs no order, and votes (m <= 32) or
/// shared_rank's (m > 32) made the pass issue-bound (ncu, H100, m = 256:
/// 1.27 ms at 28% of DRAM peak); atomics ran every m from 2 to 256 faster,
/// by up to 1.25x at m = 32 (bench/NOTES.md multisplit step 13). Counters
/// are not reset, so a block can walk several tiles. Out-of-range ids are
/// counted in `bad`. The histogram pass of the block method and of the
/// one-sweep method both count with it.
template <int Warps, int Items, class Key, class BucketOf>
__device__ __forceinline__ void count_tile(const Key* keys, std::size_t n, std::size_t tile_first, std::uint32_t m,
                                           const BucketOf& bucket_of, bool vectorized, std::uint32_t* warp_counts,
                                           std::uint32_t& bad) {
  const unsigned warp = threadIdx.x / 32;
  const std::size_t first = tile_first + warp * 32 * Items + lane_id();
  Key key[Items];
  std::uint32_t bucket[Items];
  bool valid[Items];
  // Counting needs no particular order, so full tiles of aligned keys load
  // 16 bytes per thread at a time: a quarter of the load instructions.
  constexpr int kPerVector = 16 / sizeof(Key);
  constexpr int kTile = Warps * 32 * Items;
  if constexpr (16 % sizeof(Key) == 0 && Items % kPerVector == 0) {
    if (vectorized && tile_first + kTile <= n) {
      const auto* vectors = reinterpret_cast<const uint4*>(keys + tile_first);
#pragma unroll
      for (int v = 0; v < Items / kPerVector; ++v) {
        const uint4 loaded = vectors[v * Warps * 32 + threadIdx.x];
        const Key* unpacked = reinterpret_cast<const Key*>(&loaded);
#pragma unroll
        for (int k = 0; k < kPerVector; ++k) {
          const int r = v * kPerVector + k;
          const std::size_t i = tile_first + (static_cast<std::size_t>(v) * Warps * 32 + threadIdx.x) * kPerVector + k;
          key[r] = unpacked[k];
          bucket[r] = bucket_of_item(bucket_of, key[r], i);
          valid[r] = bucket[r] < m;
          bad += !valid[r];
        }
      }
    } else {
      load_items(keys, n, first, m, bucket_of, key, bucket, valid, bad);
    }
  } else {
    load_items(keys, n, first, m, bucket_of, key, bucket, valid, bad);
  }
#pragma unroll
  for (int r = 0; r < Items; ++r)
    if (valid[r]) atomicAdd(&warp_counts[bucket[r]], 1u);
}

/// Zeroes this warp's row of counters for count_tile.
template <int Warps>
__device__ __forceinline__ void zero_warp_counts(std::uint32_t (&warp_counts)[Warps][kMultisplitTileMaxBuckets],
                                                 std::uint32_t m) {
  for (unsigned b = lane_id(); b < m; b += 32) warp_counts[threadIdx.x / 32][b] = 0;
  __syncwarp();
}

/// After count_tile: the warps' rows are summed over the block, and
/// emit(b, sum) gets the block's count of each bucket b < m. All threads of
/// the block must call it.
template <int Warps, class Emit>
__device__ __forceinline__ void block_counts(std::uint32_t (&warp_counts)[Warps][kMultisplitTileMaxBuckets],
                                             std::uint32_t m, Emit emit) {
  __syncthreads();
  for (unsigned b = threadIdx.x; b < m; b += Warps * 32) {
    std::uint32_t sum = 0;
    for (int w = 0; w < Warps; ++w) sum += warp_counts[w][b];
    emit(b, sum);
  }
}

/// The block method's matrix of counts: bucket b's count in unit u at
/// cells[b * units + u], scanned flat afterwards (scan_matrix). The wide
/// methods count into tile-major rows instead (column_scan.cuh's tile_rows).
struct bucket_major_cells {
  std::uint32_t* cells;
  std::size_t units;
  __device__ void store_count(std::uint32_t b, std::size_t u, std::uint32_t count) const {
    cells[b * units + u] = count;
  }
};

/// The pre-scan: block u counts tile u into `matrix` (bucket_major_cells or
/// tile_rows: store_count(b, u, count)).
template <int Warps, int Items, class Key, class BucketOf, class Matrix>
__global__ void __launch_bounds__(Warps * 32)
    block_prescan(const Key* keys, std::size_t n, std::uint32_t m, BucketOf bucket_of, Matrix matrix, bool vectorized,
                  std::uint32_t* out_of_range) {
  __shared__ std::uint32_t warp_counts[Warps][kMultisplitTileMaxBuckets];
  // The matrix scan, where chained, launches once this grid's last wave runs
  // (it still waits for every count): level with launching at the end (NOTES step 38).
  let_next_grid_start();
  zero_warp_counts(warp_counts, m);
  std::uint32_t bad = 0;
  count_tile<Warps, Items>(keys, n, std::size_t{blockIdx.x} * Warps * 32 * Items, m, bucket_of, vectorized,
                           warp_counts[threadIdx.x / 32], bad);
  report_out_of_range(bad, out_of_range);
  block_counts(warp_counts, m, [&](unsigned b, std::uint32_t sum) { matrix.store_count(b, blockIdx.x, sum); });
}

/// Where a ranked tile is laid out in bucket order before it is written:
/// shared-memory arrays of one tile's size.
template <class Key, class Value>
struct tile_staging {
  Key* keys;
  Value* values;  ///< unused for keys only
  std::uint8_t* buckets;
};

/// The staged tile's shared memory, laid over the rank's peer masks: rank()
/// is done with the masks before its first block barrier, and the staging
/// is written only after rank() returns. For 8 warps of 8 items of 4-byte
/// keys the staging (10 KB) already covers the masks (8 KB): no extra
/// shared memory.
template <int Warps, int Items, class Key, class Value>
union staging_over_peers {
  static constexpr int kTile = Warps * 32 * Items;
  struct arrays {
    Key keys[kTile];
    value_tile<Value, kTile> values;
    std::uint8_t buckets[kTile];
  };
  arrays staged;
  typename block_multisplit_tile<Warps, Items>::peer_scratch peers;

  __device__ tile_staging<Key, Value> staging() { return {staged.keys, staged.values, staged.buckets}; }
};

/// Shared memory of the block post-scan: the rank's counters, the buckets'
/// output bases and the staged tile (over the rank's peer masks).
template <int Warps, int Items, class Key, class Value>
struct split_tile_storage {
  typename block_multisplit_tile<Warps, Items>::storage rank;
  std::uint32_t base[kMultisplitTileMaxBuckets];  ///< output index of a bucket's tile place 0
  staging_over_peers<Warps, Items, Key, Value> tile;
};

/// Writes a tile staged in bucket order to global memory: consecutive
/// threads take consecutive places, which lie in one bucket's run, so the
/// writes coalesce. place(i, b) is the output index of the tile's i-th item
/// in bucket order, whose bucket is b. After a barrier that ends the staging.
template <int Threads, class Key, class Value, class Place>
__device__ __forceinline__ void scatter_staged(tile_staging<Key, Value> staged, std::uint32_t total, Key* keys_out,
                                               Value* values_out, Place place) {
  for (std::uint32_t i = threadIdx.x; i < total; i += Threads) {
    const std::uint32_t dst = place(i, staged.buckets[i]);
    keys_out[dst] = staged.keys[i];
    if constexpr (kHasValues<Value>) values_out[dst] = staged.values[i];
  }
}

/// Stages a ranked tile held in registers (item r of this thread goes to
/// tile place position[r]) and writes it out (scatter_staged). `total` is
/// the tile's number of valid items. All threads of the block must call it,
/// after rank().
template <int Warps, int Items, class Key, class Value, class Place>
__device__ __forceinline__ void stage_and_scatter(tile_staging<Key, Value> staged, std::uint32_t total,
                                                  const Key (&key)[Items], const value_tile<Value, Items>& value,
                                                  const std::uint32_t (&bucket)[Items], const bool (&valid)[Items],
                                                  const std::uint32_t (&position)[Items], Key* keys_out,
                                                  Value* values_out, Place place) {
#pragma unroll
  for (int r = 0; r < Items; ++r) {
    if (valid[r]) {
      staged.keys[position[r]] = key[r];
      staged.buckets[position[r]] = static_cast<std::uint8_t>(bucket[r]);
      if constexpr (kHasValues<Value>) staged.values[position[r]] = value[r];
    }
  }
  __syncthreads();
  scatter_staged<Warps * 32>(staged, total, keys_out, values_out, place);
}

/// The block method's post-scan; `how` picks the warp rank. With
/// `single_tile` set (n fits one tile, one block) it is the whole
/// multisplit in one launch: the tile's bucket starts are the global
/// offsets, written to single_tile->offsets with the out-of-range count,
/// and `scanned` is not read. Small inputs, such as an
/// SSSP round's improved vertices on a road network, are then one launch
/// instead of six.
struct single_tile_outputs {
  std::uint32_t* offsets;
  std::uint32_t* out_of_range;
};

template <int Warps, int Items, class Key, class Value, class BucketOf>
__global__ void __launch_bounds__(Warps * 32)
    block_postscan(const Key* keys_in, const Value* values_in, Key* keys_out, Value* values_out, std::size_t n,
                   std::uint32_t m, BucketOf bucket_of, const std::uint32_t* scanned, std::size_t units, tile_rank how,
                   single_tile_outputs single_tile = {nullptr, nullptr}) {
  __shared__ split_tile_storage<Warps, Items, Key, Value> s;
  const unsigned warp = threadIdx.x / 32;
  const std::size_t first = (std::size_t{blockIdx.x} * Warps + warp) * 32 * Items + lane_id();
  Key key[Items];
  value_tile<Value, Items> value;
  std::uint32_t bucket[Items], position[Items];
  bool valid[Items];
  std::uint32_t bad = 0;  // counted by the pre-scan already, unless single_tile
  load_items(keys_in, n, first, m, bucket_of, key, bucket, valid, bad);
  load_values<Items>(values_in, n, first, value);
  if (!single_tile.offsets)
    for (unsigned b = threadIdx.x; b < m; b += Warps * 32) s.base[b] = scanned[b * units + blockIdx.x];
  if (single_tile.offsets) {
    if (threadIdx.x == 0) *single_tile.out_of_range = 0;
    __syncthreads();
    report_out_of_range(bad, single_tile.out_of_range);
  }
  block_multisplit_tile<Warps, Items>::rank(s.rank, s.tile.peers, how, bucket, valid, m, position);
  if (single_tile.offsets)
    for (unsigned b = threadIdx.x; b <= m; b += Warps * 32) single_tile.offsets[b] = s.rank.bucket_start[b];
  // One tile: its order is the output order.
  stage_and_scatter<Warps, Items>(s.tile.staging(), s.rank.bucket_start[m], key, value, bucket, valid, position,
                                  keys_out, values_out, [&](std::uint32_t i, std::uint32_t b) {
                                    return single_tile.offsets ? i : s.base[b] + i - s.rank.bucket_start[b];
                                  });
}

/// offsets[b] = base of bucket b in unit 0; offsets[m] = the total.
static __global__ void gather_offsets(const std::uint32_t* scanned, std::size_t units, std::uint32_t m,
                                      std::uint32_t* offsets) {
  const std::uint32_t b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b <= m) offsets[b] = scanned[b * units];
}

// ---- radix-sort fallback (any m) -----------------------------------------

/// ids[i] = bucket of item i (m for out-of-range ones, which then sort last
/// and are dropped), order[i] = i.
template <class Key, class BucketOf>
__global__ void classify(const Key* keys, std::size_t n, std::uint32_t m, BucketOf bucket_of, std::uint32_t* ids,
                         std::uint32_t* order, std::uint32_t* out_of_range) {
  const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  std::uint32_t bad = 0;
  if (i < n) {
    std::uint32_t b = bucket_of_item(bucket_of, keys[i], i);
    if (b >= m) b = m, bad = 1;
    ids[i] = b;
    order[i] = static_cast<std::uint32_t>(i);
  }
  report_out_of_range(bad, out_of_range);
}

/// Offsets from sorted ids: item i starts every bucket in (ids[i-1], ids[i]].
static __global__ void offsets_from_sorted(const std::uint32_t* sorted_ids, std::size_t n, std::uint32_t m,
                                           std::uint32_t* offsets) {
  const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const std::uint32_t current = min(sorted_ids[i], m);
  const std::uint32_t previous = i == 0 ? 0 : min(sorted_ids[i - 1], m) + 1;
  for (std::uint32_t b = previous; b <= current; ++b) offsets[b] = static_cast<std::uint32_t>(i);
  if (i == n - 1)
    for (std::uint32_t b = current + 1; b <= m; ++b) offsets[b] = static_cast<std::uint32_t>(n);
}

template <class Key, class Value>
__global__ void gather_sorted(const Key* keys_in, const Value* values_in, const std::uint32_t* order,
                              const std::uint32_t* offsets, std::uint32_t m, Key* keys_out, Value* values_out) {
  const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (i >= offsets[m]) return;  // out-of-range items sorted last: dropped
  keys_out[i] = keys_in[order[i]];
  if constexpr (kHasValues<Value>) values_out[i] = values_in[order[i]];
}

}  // namespace graphkit::multisplit_detail
