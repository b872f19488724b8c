// The one-sweep method's kernels: a histogram pass, then one pass that ranks
// each tile, gets the tile's per-bucket output offsets by decoupled look-back
// (Merrill and Garland's single-pass scan, one look-back per bucket as in
// Adinets and Merrill's Onesweep radix sort) and scatters the tile staged in
// shared memory, sorted by bucket, so the writes coalesce.
//
// Why two passes and not one: an item's output place is the global start of
// its bucket (the totals of all smaller buckets over the WHOLE input) plus
// the items of its bucket in earlier tiles. Look-back gives the second term
// while the tiles stream; the first needs every tile counted before any
// tile writes, and the input does not fit on the chip. So the keys are read
// by a histogram pass (4 B/key, m counters per block, no per-tile matrix)
// and once more by the one-sweep pass (read 4 + write 4): 12 B/key, 20 B
// per pair of 32-bit key and value (the histogram reads keys only). The
// previous method moves the same bytes, but ranks twice and writes, scans
// and reads back an m x tiles matrix; here the per-tile state is the
// look-back words: m x 4 B per tile, zeroed by the histogram pass,
// published by the tile (aggregate, then inclusive, one L2 line each) and
// read by the next tiles mostly from L2.
//
// A tile's path, and what each step is for (bench/NOTES.md multisplit
// steps 9-11): its items arrive by cp.async into shared memory (all loads in
// flight, no registers); a histogram of shared-memory atomics gives its
// counts, published at once, so later tiles wait on its loads and not on its
// rank; the stable rank (block_multisplit_tile); the look-back, by groups of
// lanes that read up to 32 earlier tiles a step; the scatter from shared
// memory in bucket order. A block holds one tile: persistent blocks that
// claimed their next tile early serialized every tile behind the one-tile
// delay (10x slower), since a claimed tile's counts come late.
#pragma once

#include <cub/block/block_scan.cuh>

#include <cstddef>
#include <cstdint>

#include "primitives/multisplit/detail/kernels.cuh"
#include "primitives/multisplit/detail/look_back.cuh"
#include "primitives/multisplit/detail/tile_load.cuh"

namespace graphkit::multisplit_detail {

/// The one-sweep method's look-back words are 32-bit (look_back.cuh): it
/// takes fewer than 2^30 items per call (dispatch.cuh checks).
inline constexpr std::size_t kOnesweepMaxItems = std::size_t{look_back_word<std::uint32_t>::kCountMask};
/// Resident blocks the one-sweep pass is compiled for: 4 (at most 64
/// registers) ran 16 items a thread 1.2x faster than the 87 registers (2
/// blocks) the compiler takes unbounded, on an H100 at m = 2..32.
inline constexpr int kOnesweepMinBlocks = 4;

/// Small counters the two passes share, zeroed by one memset per call.
struct onesweep_counters {
  std::uint32_t totals[kMultisplitTileMaxBuckets];  ///< items per bucket
  std::uint32_t blocks_done;                        ///< histogram blocks finished
  std::uint32_t next_tile;                          ///< tiles taken by the one-sweep pass
};

/// Histogram pass: every block counts tiles tile_stride apart into per-warp
/// counters, adds its block's counts to counters->totals, and zeroes its
/// share of the look-back words. The last block to finish writes the m + 1
/// offsets (exclusive scan of the totals), which the one-sweep pass reads as
/// the buckets' global starts. m <= 256 <= Warps * 32 (one bucket a thread
/// in the scan).
template <int Warps, int Items, class Key, class BucketOf>
__global__ void __launch_bounds__(Warps * 32)
    onesweep_histogram(const Key* keys, std::size_t n, std::uint32_t m, BucketOf bucket_of, bool vectorized,
                       onesweep_counters* counters, std::uint32_t* lookback, std::size_t lookback_words,
                       std::uint32_t* offsets, std::uint32_t* out_of_range) {
  static_assert(Warps * 32 >= kMultisplitTileMaxBuckets, "the scan takes one bucket per thread");
  using block_scan = cub::BlockScan<std::uint32_t, Warps * 32>;
  __shared__ std::uint32_t warp_counts[Warps][kMultisplitTileMaxBuckets];
  __shared__ typename block_scan::TempStorage scan;
  __shared__ bool last_block;
  constexpr std::size_t kTile = std::size_t{Warps} * 32 * Items;

  for (std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x; i < lookback_words;
       i += std::size_t{gridDim.x} * blockDim.x)
    lookback[i] = 0;

  zero_warp_counts(warp_counts, m);
  std::uint32_t bad = 0;
  for (std::size_t tile_first = blockIdx.x * kTile; tile_first < n; tile_first += gridDim.x * kTile)
    count_tile<Warps, Items>(keys, n, tile_first, m, bucket_of, vectorized, warp_counts[threadIdx.x / 32], bad);
  report_out_of_range(bad, out_of_range);
  block_counts(warp_counts, m, [&](unsigned b, std::uint32_t sum) {
    if (sum != 0) atomicAdd(&counters->totals[b], sum);
  });
  // The last block sees every block's totals (classic threadfence reduction).
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) last_block = atomicAdd(&counters->blocks_done, 1u) == gridDim.x - 1;
  __syncthreads();
  if (!last_block) return;
  __threadfence();
  const std::uint32_t total = threadIdx.x < m ? __ldcg(&counters->totals[threadIdx.x]) : 0;
  std::uint32_t start = 0, all = 0;
  block_scan(scan).ExclusiveSum(total, start, all);
  if (threadIdx.x < m) offsets[threadIdx.x] = start;
  if (threadIdx.x == 0) offsets[m] = all;
}

/// Shared memory of the one-sweep pass: the tile as read (`in_*`, by
/// cp.async) and in bucket order (`out`, for the coalesced writes, over the
/// rank's peer masks), the rank's counters and the buckets' counts and bases.
template <int Warps, int Items, class Key, class Value>
struct onesweep_storage {
  static constexpr int kTile = Warps * 32 * Items;
  typename block_multisplit_tile<Warps, Items>::storage rank;
  /// Per bucket the tile's count, then the output index of its tile place 0.
  std::uint32_t base[kMultisplitTileMaxBuckets];
  std::uint32_t tile;
  alignas(16) Key in_keys[kTile];
  alignas(16) value_tile<Value, kTile> in_values;
  staging_over_peers<Warps, Items, Key, Value> out;
};

/// The one-sweep pass: one block per tile, tiles taken in launch order from
/// counters->next_tile (a tile only waits on tiles whose blocks run
/// already, so look-back cannot deadlock). A tile publishes its counts
/// before its stable rank, from a histogram of shared-memory atomics, so
/// that the tiles after it wait on its loads only, not on its rank.
/// `offsets` holds the buckets' global starts from the histogram pass;
/// lookback has m words per tile, zeroed. `how` picks the warp rank.
template <int Warps, int Items, class Key, class Value, class BucketOf>
__global__ void __launch_bounds__(Warps * 32, kOnesweepMinBlocks)
    onesweep_scatter(const Key* keys_in, const Value* values_in, Key* keys_out, Value* values_out, std::size_t n,
                     std::uint32_t m, BucketOf bucket_of, const std::uint32_t* offsets, onesweep_counters* counters,
                     std::uint32_t* lookback, tile_rank how) {
  using storage = onesweep_storage<Warps, Items, Key, Value>;
  static_assert(sizeof(storage) <= 48 * 1024, "static shared memory: choose fewer items (tuning::onesweep_items)");
  constexpr int kThreads = Warps * 32, kTile = storage::kTile;
  __shared__ storage s;
  if (threadIdx.x == 0) s.tile = atomicAdd(&counters->next_tile, 1u);
  for (unsigned b = threadIdx.x; b < m; b += kThreads) s.base[b] = 0;
  __syncthreads();
  const std::size_t t = s.tile;
  load_tile_async<kThreads, kTile>(keys_in, n, t * kTile, s.in_keys);
  if constexpr (kHasValues<Value>) load_tile_async<kThreads, kTile>(values_in, n, t * kTile, s.in_values);
  __pipeline_commit();
  __pipeline_wait_prior(0);
  __syncthreads();

  const unsigned warp = threadIdx.x / 32;
  std::uint32_t bucket[Items], position[Items];
  bool valid[Items];
#pragma unroll
  for (int r = 0; r < Items; ++r) {
    const unsigned place = (warp * Items + r) * 32 + lane_id();  // block_multisplit_tile's order
    const std::size_t i = t * kTile + place;
    valid[r] = i < n;
    bucket[r] = 0;
    if (valid[r]) {
      bucket[r] = bucket_of_item(bucket_of, s.in_keys[place], i);
      valid[r] = bucket[r] < m;  // out-of-range ids: counted by the histogram pass
      if (valid[r]) atomicAdd(&s.base[bucket[r]], 1u);
    }
  }
  __syncthreads();
  // Thread b publishes bucket b's count now; the look-back waits for the rank.
  for (unsigned b = threadIdx.x; b < m; b += kThreads)
    publish(&lookback[t * m + b],
            t == 0 ? look_back_word<std::uint32_t>::kInclusive : look_back_word<std::uint32_t>::kAggregate, s.base[b]);
  block_multisplit_tile<Warps, Items>::rank(s.rank, s.out.peers, how, bucket, valid, m, position);
  // Groups of lanes look back for a bucket each; their first lane publishes.
  const unsigned group = look_back_group<kThreads>(m);
  const std::uint32_t b = threadIdx.x / group;
  if ((threadIdx.x & ~31u) / group < m) {  // warps with a bucket, whole
    const std::uint32_t before = t == 0 ? 0 : look_back<1>(lookback, t, m, b, group, b < m);
    if (b < m && threadIdx.x % group == 0) {
      const std::uint32_t count = s.rank.bucket_start[b + 1] - s.rank.bucket_start[b];
      if (t != 0) publish(&lookback[t * m + b], look_back_word<std::uint32_t>::kInclusive, before + count);
      s.base[b] = __ldg(&offsets[b]) + before - s.rank.bucket_start[b];
    }
  }

  // To bucket order in shared memory, then out.
  const tile_staging<Key, Value> out = s.out.staging();
#pragma unroll
  for (int r = 0; r < Items; ++r) {
    if (valid[r]) {
      const unsigned place = (warp * Items + r) * 32 + lane_id();
      out.keys[position[r]] = s.in_keys[place];
      if constexpr (kHasValues<Value>) out.values[position[r]] = s.in_values[place];
      out.buckets[position[r]] = static_cast<std::uint8_t>(bucket[r]);
    }
  }
  __syncthreads();
  scatter_staged<kThreads>(out, s.rank.bucket_start[m], keys_out, values_out,
                           [&](std::uint32_t i, std::uint32_t b) { return s.base[b] + i; });
}

}  // namespace graphkit::multisplit_detail
