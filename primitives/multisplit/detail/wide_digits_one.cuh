// The wide post-scan ranked by ONE digit split as wide as the bucket id
// (method `block_wide_digits_one`, m <= 64; block_wide_digits' two 4-bit
// splits above): Bits = 4, 5 or 6 for m <= 16, 32, 64, with the per-thread
// counters of detail/digit_rank.cuh (2^Bits 16-bit counters a thread, a
// column in the thread's own bank: no atomics, no ballots, the same cost for
// any id distribution). Why (bench/NOTES.md multisplit step 21): one 4-bit
// split ran 1.79-1.91x CUB for uniform and skewed ids at m <= 16, two ran
// 1.29-1.39x at m = 32-64; a wider digit keeps one split and pays only a
// longer counter scan (4 x 2^(Bits-1) counter words a thread a tile: zero,
// rake, lift), 3.2 / 6.4 shared-memory wavefronts per 32 keys at 5 / 6 bits
// against a split's ~8.5.
//
// A tile's path: thread t classifies and counts its chunk (as block_wide_digits'
// first split); one block scan turns the rakes of all stripes and the
// tile's bucket counts into places and output shifts; each thread then has
// its chunk's keys (and values) in registers, and after a barrier (every
// chunk read) stores each item at its place in the same buffer, which then
// holds the tile in bucket order: two tile buffers, not three, so that the
// wider counters still leave 3 blocks on an SM (below). Keys are loaded
// again after the block scan, not held across it (held there, 20 keys
// spilled in block_wide_digits); pairs, with 128 registers, hold theirs.
//
// Shared memory a block, 32-bit keys (20 items, 5,120-key tiles): two
// tiles 40 KB + counters 8 / 16 / 32 KB + shifts 2^Bits words: 49.4 /
// 57.7 / 74.3 KB, 3 blocks an SM (228 KB, 1 KB reserved a block; 4 bits
// would fit 4, but at 64 registers it spilled: dispatch caps it at 3).
// Pairs of 32-bit words: 5,120 / 5,120 / 4,096-pair tiles, 2 blocks an SM.
#pragma once

#include <cub/block/block_scan.cuh>

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "primitives/multisplit/detail/digit_rank.cuh"
#include "primitives/multisplit/detail/kernels.cuh"
#include "primitives/multisplit/detail/wide_digits.cuh"
#include "primitives/multisplit/detail/wide_tile.cuh"

namespace graphkit::multisplit_detail {

/// The digit width of block_wide_digits_one at m: the bucket id's bits, at
/// least 4 (a warp rakes whole rows); 0 past 64 (two 4-bit splits instead).
constexpr int one_digit_bits(std::uint32_t m) { return m <= 16 ? 4 : m <= 32 ? 5 : m <= 64 ? 6 : 0; }

/// Shared memory of wide_digits_one_postscan: the cp.async double buffer
/// (each tile ordered in place, see the header), the counters, and per
/// bucket (at most 2^Bits) the output shift.
template <int Warps, int Items, int Bits, class Key, class Value, bool StageBuckets>
struct wide_digits_one_storage {
  using tile = typename wide_digits_storage<Warps, Items, Key, Value, StageBuckets>::tile;
  static constexpr int kStripes = digit_counters<Bits>::kStripes;
  tile in[2];
  digit_counters<Bits> counters;
  /// Output index of bucket b's tile place 0 (mod 2^32: base - tile start).
  std::uint32_t shift[1 << Bits];
  std::uint32_t total;  ///< the tile's valid items
  /// Warp scans: the default raking scan keeps a word set a thread (5 KB at
  /// 6 bits' 5-word sums), which cost the third block an SM.
  typename cub::BlockScan<stripe_sums<kStripes>, Warps * 32, cub::BLOCK_SCAN_WARP_SCANS>::TempStorage scan;
};

/// Blocks an SM that wide_digits_one_postscan is sized for: 3 for keys, 2
/// for pairs. Measured (H100, session 15, bench/NOTES.md multisplit step 22):
/// pairs gain more from longer tiles than from a third block (uniform m = 8
/// / 16 / 32 / 64, 3 blocks of 4,096 / 3,072 / 3,072 / 2,048 pairs -> 2
/// blocks of 5,120 / 5,120 / 5,120 / 4,096: 1.032 / 1.081 / 1.246 / 1.893 ->
/// 0.989 / 1.021 / 1.078 / 1.165 ms); keys at 20 items fit 3 blocks at
/// every width (24 items were no faster).
template <class Value>
constexpr int wide_digits_one_blocks() {
  return kHasValues<Value> ? 2 : 3;
}

/// Items per thread: the most of 20, 16, 12 and 8 whose storage (two tiles,
/// the counters, the shifts, 1 KB for the rest) leaves
/// wide_digits_one_blocks() blocks an SM (228 KB, 1 KB reserved a block):
/// 20 for 32-bit keys at every width; pairs of 32-bit words 20 / 20 / 16 at
/// 4 / 5 / 6 bits.
template <class Key, class Value, int Bits>
constexpr int wide_digits_one_items() {
  constexpr std::size_t bytes = sizeof(Key) + (kHasValues<Value> ? sizeof(Value) : 0);
  constexpr std::size_t budget = 228 * 1024 / wide_digits_one_blocks<Value>() - 1024;
  for (const int items : {20, 16, 12, 8})
    if (2 * std::size_t{256} * items * bytes + sizeof(digit_counters<Bits>) + 4 * (std::size_t{1} << Bits) + 1024 <=
        budget)
      return items;
  return 4;
}

/// Items per thread of block_wide_digits_one at m (its tile is 256 times
/// that): one split's for m <= 64, block_wide_digits' above.
template <class Key, class Value>
constexpr int digits_one_items(std::uint32_t m) {
  switch (one_digit_bits(m)) {
    case 4: return wide_digits_one_items<Key, Value, 4>();
    case 5: return wide_digits_one_items<Key, Value, 5>();
    case 6: return wide_digits_one_items<Key, Value, 6>();
    default: return wide_digits_items<Key, Value>();
  }
}

/// The stripes' rake sums of this thread, and its bucket's count in the
/// tile (thread b < m stands for bucket b).
template <int Bits>
__device__ __forceinline__ stripe_sums<digit_counters<Bits>::kStripes> rake_stripes(
    const digit_counters<Bits>& counters, std::uint32_t bucket_count) {
  stripe_sums<digit_counters<Bits>::kStripes> sums;
#pragma unroll
  for (int k = 0; k < digit_counters<Bits>::kStripes; ++k) sums.stripe[k] = counters.rake(k);
  sums.bucket = bucket_count;
  return sums;
}

/// Stores each valid item of this thread's chunk (key, value) at its place
/// in `to`: the first place of its digit in the thread's column plus its
/// rank. After the barrier that ends the scan and every chunk's read.
template <int Items, int Bits, class Tile, class Key, class Values, bool StageBuckets>
__device__ __forceinline__ void store_at_places(digit_counters<Bits>& counters, Tile& to,
                                                const std::uint32_t (&item)[Items], const Key (&key)[Items],
                                                const Values& value, std::bool_constant<StageBuckets> /*stage*/) {
  using Value = std::remove_cv_t<std::remove_extent_t<decltype(to.values)>>;
#pragma unroll
  for (int r = 0; r < Items; ++r) {
    const std::uint32_t b = item[r] & (2 * kNoBucket - 1);
    if (b != kNoBucket) {
      // b < m <= 2^Bits: the bucket is the digit.
      const std::uint32_t place = counters.first_place(b, threadIdx.x) + (item[r] >> kRankShift);
      to.keys[place] = key[r];
      if constexpr (kHasValues<Value>) to.values[place] = value[r];
      if constexpr (StageBuckets) to.buckets[place] = static_cast<std::uint8_t>(b);
    }
  }
}

/// Orders tile t, already in `in` (and visible to every thread), in place
/// by one Bits-wide digit split; m <= 2^Bits. `cell`: for thread b < m,
/// bucket b's output index for this tile and its count in it. All threads
/// call; the caller's barrier ends the stores.
template <int Warps, int Items, int Bits, class Storage, class Tile, class BucketOf>
__device__ __forceinline__ void order_one_digit_tile(Storage& s, Tile& in, std::size_t t, std::size_t n,
                                                     std::uint32_t m, const BucketOf& bucket_of, uint2 cell) {
  constexpr int kThreads = Warps * 32, kTile = Warps * 32 * Items;
  constexpr int kStripes = digit_counters<Bits>::kStripes;
  using Key = std::remove_extent_t<decltype(in.keys)>;
  using Value = std::remove_cv_t<std::remove_extent_t<decltype(in.values)>>;
  static_assert(kThreads == digit_counters<Bits>::kThreads, "the raking scan gives one warp to each row of a stripe");
  static_assert(kTile < (1 << 16), "tile places fit the 16-bit counters");
  static_assert(Items < (1 << (32 - kRankShift)), "ranks fit the item word");
  const unsigned first = digit_chunk(threadIdx.x) * Items;  // this thread's chunk
  // Pairs hold their chunk (keys and values) in registers from the count to
  // the stores: their 2 blocks an SM leave 128 registers a thread (uniform
  // m = 32 / 64 1.118 / 1.167 -> 1.094 / 1.110 ms, session 15). Keys, at
  // 80 registers, read theirs again after the block scan (held, 20 keys
  // spilled in block_wide_digits).
  constexpr bool kHold = kHasValues<Value>;
  std::uint32_t item[Items];
  Key key[Items];
  value_tile<Value, Items> value;
  if constexpr (kHold) {
    load_chunk<Items>(in.keys + first, key);
    load_chunk<Items>(in.values + first, value);
    classify_keys(key, t * kTile + first, n, m, bucket_of, item);
  } else {
    classify_chunk(in, first, t * kTile + first, n, m, bucket_of, item);
  }
  count_digits<0>(s.counters, item);
  __syncthreads();  // every count is in
  {
    // One block scan: every stripe's rakes and the buckets' counts.
    const stripe_sums<kStripes> mine = rake_stripes(s.counters, threadIdx.x < m ? cell.y : 0u);
    stripe_sums<kStripes> prefix, all, zero{};
    cub::BlockScan<stripe_sums<kStripes>, kThreads, cub::BLOCK_SCAN_WARP_SCANS>(s.scan).ExclusiveScan(
        mine, prefix, zero, add_stripe_sums{}, all);
    lift_stripes(s.counters, prefix, all);
    if (threadIdx.x < m) s.shift[threadIdx.x] = cell.x - prefix.bucket;
    if (threadIdx.x == 0) s.total = all.bucket;
  }
  // Keys: the chunk into registers now, after the block scan (not live
  // across it); the stores below overwrite other threads' chunks.
  if constexpr (!kHold) load_chunk<Items>(in.keys + first, key);
  __syncthreads();  // places, shifts and total are in; every chunk is read
  store_at_places(s.counters, in, item, key, value, std::bool_constant<std::is_same_v<BucketOf, bucket_ids_of>>{});
}

/// The wide post-scan with one wide digit split: wide_digits_loop with each
/// tile ordered in its own buffer by order_one_digit_tile. Dynamic shared
/// memory: sizeof(wide_digits_one_storage).
template <int Warps, int Items, int Bits, int MinBlocks, class Key, class Value, class BucketOf>
__global__ void __launch_bounds__(Warps * 32, MinBlocks)
    wide_digits_one_postscan(const Key* keys_in, const Value* values_in, Key* keys_out, Value* values_out,
                             std::size_t n, std::uint32_t m, BucketOf bucket_of, const std::uint32_t* scanned,
                             std::size_t tiles) {
  static_assert(Warps * 32 >= (1 << Bits), "one bucket a thread for the shifts");
  using storage = wide_digits_one_storage<Warps, Items, Bits, Key, Value, std::is_same_v<BucketOf, bucket_ids_of>>;
  extern __shared__ uint4 wide_digits_one_shared[];
  storage& s = *reinterpret_cast<storage*>(wide_digits_one_shared);
  wide_digits_loop<Warps * 32, Items>(
      s, keys_in, values_in, keys_out, values_out, n, m, bucket_of, scanned,
      tiles, [&](auto& in, std::size_t t, uint2 cell) -> const auto& {
        order_one_digit_tile<Warps, Items, Bits>(s, in, t, n, m, bucket_of, cell);
        return in;
      });
}

}  // namespace graphkit::multisplit_detail
