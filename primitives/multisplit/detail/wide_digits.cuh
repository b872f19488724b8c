// The wide post-scan with the digit rank (method `block_wide_digits`,
// m <= 256): wide_postscan's persistent loop and cp.async double buffer
// (detail/wide_tile.cuh), but each tile is ordered by two stable 16-way
// splits in shared memory, low 4 bits of the bucket id first, then high 4
// bits (LSD order keeps the first split's order within each high digit), each
// ranked by per-thread counters (detail/digit_rank.cuh); for m <= 16 the
// first split is the whole order. Why, with the counts per 32 items, in
// bench/NOTES.md multisplit step 19.
//
// A tile's path: thread t counts the low digit of each item of its chunk
// (Items consecutive items, chunk digit_chunk(t), read from the input
// buffer) in its column of counters; a raking scan makes the counts places
// (and the same block scan turns the tile's bucket counts, read from the
// pre-scan's matrix, into the buckets' output shifts); each item goes to
// its place in `by_digit`, its key (and value) read again from the chunk.
// Then the same from `by_digit` with the high digit, into the input buffer
// (read by then), which then holds the tile in bucket order; coalesced
// writes as in wide_postscan. The next tile's cp.async into the other
// buffer starts after the first barrier of each tile, when the writes of
// the tile before have read it.
//
// Bucket counts per tile come from the scanned matrix: cell (b, t + 1) -
// cell (b, t) (the cell after bucket b's last tile is bucket b + 1's first,
// and the matrix carries its total in a last cell), so the bucket starts and
// the tile's item count are known before any item is ranked.
#pragma once

#include <cub/block/block_scan.cuh>

#include <cuda_pipeline_primitives.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "primitives/multisplit/detail/block_rank.cuh"
#include "primitives/multisplit/detail/digit_rank.cuh"
#include "primitives/multisplit/detail/kernels.cuh"
#include "primitives/multisplit/detail/tile_load.cuh"
#include "primitives/multisplit/detail/wide_tile.cuh"

namespace graphkit::multisplit_detail {

/// Two 32-bit sums scanned at once (a thread's packed digit counts, and the
/// count of the bucket that the thread stands for).
struct count_pair {
  std::uint32_t digits, bucket;
};
struct add_count_pairs {
  __device__ __forceinline__ count_pair operator()(const count_pair& a, const count_pair& b) const {
    return {a.digits + b.digits, a.bucket + b.bucket};
  }
};

/// Shared memory of wide_digits_postscan: two tiles that take the input by
/// cp.async in turn, and the tile in low-digit order; the digit counters,
/// and per bucket the output shift. The tile in bucket order is written by
/// the second split over the input tile it came from (read by then), or by
/// the only split (m <= 16) into `by_digit`. StageBuckets: bucket ids travel
/// with the items (bucket_ids_of reads them by input position).
template <int Warps, int Items, class Key, class Value, bool StageBuckets>
struct wide_digits_storage {
  static constexpr int kTile = Warps * 32 * Items;
  struct tile {
    alignas(16) Key keys[kTile];
    alignas(16) value_tile<Value, kTile> values;
    alignas(16) std::uint8_t buckets[StageBuckets ? kTile : 1];
  };
  tile in[2];
  tile by_digit;
  digit_counters<> counters;
  /// Output index of bucket b's tile place 0 (mod 2^32: base - tile start).
  std::uint32_t shift[kMultisplitTileMaxBuckets];
  std::uint32_t total;  ///< the tile's valid items
  union {
    typename cub::BlockScan<count_pair, Warps * 32>::TempStorage first;
    typename cub::BlockScan<std::uint32_t, Warps * 32>::TempStorage second;
  } scan;
};

/// Items per thread for block_wide_digits: the most of 20, 16, 12, 8 and 4
/// whose storage (three tiles, 8 KB of counters, the shifts) leaves 3
/// blocks on an SM (228 KB, 1 KB reserved a block): 20 for 32-bit keys
/// (5,120-key tiles, as block_wide), 8 for pairs of 32-bit words (2,048
/// pairs: 12 would leave 2 blocks).
template <class Key, class Value>
constexpr int wide_digits_items() {
  constexpr std::size_t bytes = sizeof(Key) + (kHasValues<Value> ? sizeof(Value) : 0);
  for (const int items : {20, 16, 12, 8})
    if (3 * std::size_t{256} * items * bytes + 8192 + 2048 <= 75 * 1024) return items;
  return 4;
}

/// The bucket of an item in a register: its id when bucket_ids_of stages
/// ids (`staged`), else the functor's.
template <class BucketOf, class Key>
__device__ __forceinline__ std::uint32_t staged_bucket(const BucketOf& bucket_of, const Key& key,
                                                       std::uint32_t staged) {
  if constexpr (std::is_same_v<BucketOf, bucket_ids_of>) return staged;
  else return static_cast<std::uint32_t>(bucket_of(key));
}

/// An item's word between its count and its place: its bucket (kNoBucket:
/// not in the tile's output) and, from bit 9, its rank among its chunk's
/// items of its digit.
inline constexpr std::uint32_t kNoBucket = 1u << 8;
inline constexpr int kRankShift = 9;

/// The buckets of this thread's chunk, its keys in registers (`chunk_first`:
/// the chunk's input index), into `item`. Items past n and out-of-range ids
/// are left out (kNoBucket: the pre-scan counted the latter); the matrix
/// counts only the rest, so the tile places are 0 .. total - 1.
template <int Items, class Key, class BucketOf>
__device__ __forceinline__ void classify_keys(const Key (&key)[Items], std::size_t chunk_first, std::size_t n,
                                              std::uint32_t m, const BucketOf& bucket_of,
                                              std::uint32_t (&item)[Items]) {
  // The chunk's items below n: one 64-bit compare a chunk, not one an item.
  const unsigned in_range = n <= chunk_first ? 0u : n - chunk_first < Items ? unsigned(n - chunk_first) : Items;
#pragma unroll
  for (int r = 0; r < Items; ++r) {
    item[r] = kNoBucket;
    if (r < in_range) {
      const std::uint32_t b = bucket_of_item(bucket_of, key[r], chunk_first + r);
      if (b < m) item[r] = b;
    }
  }
}

/// classify_keys on this thread's chunk of a tile as loaded (`first`: the
/// chunk's first tile index), read from shared memory here.
template <int Items, class Tile, class BucketOf>
__device__ __forceinline__ void classify_chunk(const Tile& in, unsigned first, std::size_t chunk_first, std::size_t n,
                                               std::uint32_t m, const BucketOf& bucket_of,
                                               std::uint32_t (&item)[Items]) {
  using Key = std::remove_cv_t<std::remove_extent_t<decltype(in.keys)>>;
  Key key[Items];
  load_chunk<Items>(in.keys + first, key);
  classify_keys(key, chunk_first, n, m, bucket_of, item);
}

/// The buckets of this thread's chunk of a tile that an earlier split has
/// ordered (`first`: the chunk's first tile index; `key`: its keys in
/// registers): the valid items are places 0 .. total - 1, and their buckets
/// come from the functor again or, for bucket_ids_of, from the staged bytes.
template <int Items, class Tile, class Key, class BucketOf>
__device__ __forceinline__ void classify_placed(const Tile& from, unsigned first, std::uint32_t total,
                                                const BucketOf& bucket_of, const Key (&key)[Items],
                                                std::uint32_t (&item)[Items]) {
#pragma unroll
  for (int r = 0; r < Items; ++r) {
    item[r] = kNoBucket;
    if (first + r < total) {
      std::uint32_t staged = 0;
      if constexpr (std::is_same_v<BucketOf, bucket_ids_of>) staged = from.buckets[first + r];
      item[r] = staged_bucket(bucket_of, key[r], staged);
    }
  }
}

/// Counts a chunk's items by digit `(bucket >> Shift) & (2^Bits - 1)` into
/// this thread's column (zeroed first) and records each valid item's rank.
template <int Shift, int Items, int Bits>
__device__ __forceinline__ void count_digits(digit_counters<Bits>& counters, std::uint32_t (&item)[Items]) {
  constexpr unsigned kMask = (1u << Bits) - 1;
  counters.zero_column(threadIdx.x);
#pragma unroll
  for (int r = 0; r < Items; ++r)
    if (item[r] != kNoBucket) item[r] |= counters.bump((item[r] >> Shift) & kMask, threadIdx.x) << kRankShift;
}

/// After the scan: each valid item of the chunk to its place in `to`. The
/// keys (and values) are read again from the chunk in `from` (first: the
/// chunk's first index), so that they are not held in registers across the
/// scan (with them, 20 items spilled 12-44 bytes at 80 registers).
template <int Shift, int Items, class BucketOf, class Tile>
__device__ __forceinline__ void place_digits(digit_counters<>& counters, const Tile& from, unsigned first, Tile& to,
                                             const std::uint32_t (&item)[Items]) {
  constexpr bool kStageBuckets = std::is_same_v<BucketOf, bucket_ids_of>;
  using Key = std::remove_cv_t<std::remove_extent_t<decltype(from.keys)>>;
  using Value = std::remove_cv_t<std::remove_extent_t<decltype(from.values)>>;
  Key key[Items];
  load_chunk<Items>(from.keys + first, key);
  value_tile<Value, Items> value;
  if constexpr (kHasValues<Value>) load_chunk<Items>(from.values + first, value);
#pragma unroll
  for (int r = 0; r < Items; ++r) {
    const std::uint32_t b = item[r] & (2 * kNoBucket - 1);
    if (b != kNoBucket) {
      const std::uint32_t place = counters.first_place((b >> Shift) & 15u, threadIdx.x) + (item[r] >> kRankShift);
      to.keys[place] = key[r];
      if constexpr (kHasValues<Value>) to.values[place] = value[r];
      if constexpr (kStageBuckets) to.buckets[place] = static_cast<std::uint8_t>(b);
    }
  }
}

/// Rakes the counters and block-scans the rakes' sums: places in the
/// counters. All threads call, between barriers.
template <int Threads>
__device__ __forceinline__ void scan_digits(digit_counters<>& counters,
                                            typename cub::BlockScan<std::uint32_t, Threads>::TempStorage& temp) {
  std::uint32_t prefix = 0, all = 0;
  cub::BlockScan<std::uint32_t, Threads>(temp).ExclusiveSum(counters.rake(), prefix, all);
  counters.lift(prefix, all);
}

/// Splits tile t, already in `in` (and visible to every thread); returns
/// the tile in bucket order (`in` itself when m > 16: its items are read by
/// then, and its next load waits for the next tile's first barrier).
/// `cell`: for thread b < m, bucket b's output index for this tile and its
/// count in it (from the matrix). All threads call.
template <int Warps, int Items, class Storage, class Tile, class BucketOf>
__device__ __forceinline__ const Tile& order_digits_tile(Storage& s, Tile& in, std::size_t t, std::size_t n,
                                                         std::uint32_t m, const BucketOf& bucket_of, uint2 cell) {
  constexpr int kThreads = Warps * 32, kTile = Warps * 32 * Items;
  using Key = std::remove_extent_t<decltype(in.keys)>;
  static_assert(kThreads == digit_counters<>::kThreads, "the raking scan gives one warp to each row of counters");
  static_assert(kTile < (1 << 16), "tile places fit the 16-bit counters");
  static_assert(Items < (1 << (32 - kRankShift)), "ranks fit the item word");
  const unsigned first = digit_chunk(threadIdx.x) * Items;  // this thread's chunk
  const std::size_t tile_first = t * kTile;
  std::uint32_t item[Items];

  // Split 1, low digit: the chunk as read.
  classify_chunk(in, first, tile_first + first, n, m, bucket_of, item);
  count_digits<0>(s.counters, item);
  __syncthreads();  // every count is in
  {
    // One block scan: the rakes' sums and the buckets' counts (thread b: bucket b).
    const count_pair mine{s.counters.rake(), threadIdx.x < m ? cell.y : 0u};
    count_pair prefix, all;
    cub::BlockScan<count_pair, kThreads>(s.scan.first)
        .ExclusiveScan(mine, prefix, count_pair{0u, 0u}, add_count_pairs{}, all);
    s.counters.lift(prefix.digits, all.digits);
    if (threadIdx.x < m) s.shift[threadIdx.x] = cell.x - prefix.bucket;
    if (threadIdx.x == 0) s.total = all.bucket;
  }
  __syncthreads();  // places, shifts and total are in
  place_digits<0, Items, BucketOf>(s.counters, in, first, s.by_digit, item);
  if (m <= 16) return s.by_digit;  // one digit: the tile is in bucket order already
  __syncthreads();                 // the low-digit order is complete
  // Split 2, high digit: the chunk of the low-digit order, into `in`.
  {
    Key key[Items];
    load_chunk<Items>(s.by_digit.keys + first, key);
    classify_placed(s.by_digit, first, s.total, bucket_of, key, item);
  }
  count_digits<4>(s.counters, item);
  __syncthreads();  // every count is in
  scan_digits<kThreads>(s.counters, s.scan.second);
  __syncthreads();  // places are in
  place_digits<4, Items, BucketOf>(s.counters, s.by_digit, first, in, item);
  return in;
}

/// The persistent loop of the digit-ranked wide post-scans (wide_postscan's
/// loop): each block takes tiles blockIdx.x, + gridDim.x, ...; the next
/// tile arrives by cp.async into the other buffer while `order_tile(in, t,
/// cell)` puts tile t (in `in`, visible to every thread) in bucket order and
/// returns that order, which is then written out; the next tile's matrix
/// cells are read a tile ahead. `order_tile` may leave the order in `in`
/// itself: the buffer is reloaded only after the next tile's first barrier.
template <int Threads, int Items, class Storage, class Key, class Value, class BucketOf, class OrderTile>
__device__ __forceinline__ void wide_digits_loop(Storage& s, const Key* keys_in, const Value* values_in, Key* keys_out,
                                                 Value* values_out, std::size_t n, std::uint32_t m,
                                                 const BucketOf& bucket_of, const std::uint32_t* scanned,
                                                 std::size_t tiles, OrderTile order_tile) {
  // Thread b < m: bucket b's output index for tile t, and its count there.
  const auto cell_of = [&](std::size_t t) {
    if (threadIdx.x >= m) return make_uint2(0u, 0u);
    const std::uint32_t* at = scanned + threadIdx.x * tiles + t;
    const std::uint32_t base = at[0];
    return make_uint2(base, at[1] - base);
  };

  std::size_t t = blockIdx.x;
  load_wide_tile<Threads>(s.in[0], keys_in, values_in, n, t);
  __pipeline_commit();
  uint2 cell = cell_of(t);
  for (int k = 0; t < tiles; t += gridDim.x, k ^= 1) {
    const std::size_t next = t + gridDim.x;
    const uint2 next_cell = next < tiles ? cell_of(next) : make_uint2(0u, 0u);
    __pipeline_wait_prior(0);
    __syncthreads();  // tile t is in for every thread; the previous tile's writes have read its bucket order
    // Buffer k ^ 1 held the previous tile (in bucket order, or the input of its last split): loaded only now.
    if (next < tiles) load_wide_tile<Threads>(s.in[k ^ 1], keys_in, values_in, n, next);
    __pipeline_commit();
    const auto& ordered = order_tile(s.in[k], t, cell);
    __syncthreads();  // the tile is in bucket order
    write_in_bucket_order<Threads, Items>(ordered, s.shift, s.total, bucket_of, keys_out, values_out);
    cell = next_cell;
  }
}

/// The wide post-scan with the digit rank: wide_digits_loop with each tile
/// ordered by order_digits_tile. Dynamic shared memory: sizeof(wide_digits_storage).
template <int Warps, int Items, int MinBlocks, class Key, class Value, class BucketOf>
__global__ void __launch_bounds__(Warps * 32, MinBlocks)
    wide_digits_postscan(const Key* keys_in, const Value* values_in, Key* keys_out, Value* values_out, std::size_t n,
                         std::uint32_t m, BucketOf bucket_of, const std::uint32_t* scanned, std::size_t tiles) {
  static_assert(Warps * 32 >= kMultisplitTileMaxBuckets, "one bucket a thread for the shifts");
  using storage = wide_digits_storage<Warps, Items, Key, Value, std::is_same_v<BucketOf, bucket_ids_of>>;
  extern __shared__ uint4 wide_digits_shared[];
  storage& s = *reinterpret_cast<storage*>(wide_digits_shared);
  wide_digits_loop<Warps * 32, Items>(
      s, keys_in, values_in, keys_out, values_out, n, m, bucket_of, scanned,
      tiles, [&](auto& in, std::size_t t, uint2 cell) -> const auto& {
        return order_digits_tile<Warps, Items>(s, in, t, n, m, bucket_of, cell);
      });
}

}  // namespace graphkit::multisplit_detail
