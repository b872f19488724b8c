// The wide post-scan ranked by per-thread digit counters (method
// `block_wide_digits_one`, m <= 256): up to m = 64 ONE counter split on a
// digit as wide as the bucket id, Bits = 4, 5 or 6 for m <= 16, 32, 64,
// with the counters of detail/digit_rank.cuh (2^Bits 16-bit counters a
// thread, a column in the thread's own bank: no atomics, no ballots, the
// same cost for any id distribution). Why (bench/NOTES.md multisplit step
// 21): one 4-bit split ran 1.79-1.91x CUB for uniform and skewed ids at m
// <= 16, two ran 1.29-1.39x at m = 32-64; a wider digit keeps one split and
// pays only a longer counter scan (4 x 2^(Bits-1) counter words a thread a
// tile: zero, rake, lift), 3.2 / 6.4 shared-memory wavefronts per 32 keys
// at 5 / 6 bits against a split's ~8.5.
//
// Past 64 buckets (7- and 8-bit ids) the counters do not widen: at 7 / 8
// bits they filled 64 / 128 KB (2 / 1 blocks an SM) and their zero, rake
// and lift doubled with each bit (keys m = 128 / 256 1.89 / 3.47 ms against
// two 4-bit splits' 1.77 / 2.04, step 22 (a)). So a split on the low 2 or
// 3 bits goes first, counted in registers: a chunk's 4 or 8 values fit the
// 8-bit fields of one or two registers (a chunk has fewer than 128 items),
// so its count touches no shared memory, and one block scan of two or four
// words (16-bit halves) gives every place; it costs one more read of the
// tile (16-byte loads, conflict-free at 20 items a chunk) and one store of
// each item at its place. A 5-bit counter split on the bits above then
// finishes the order (LSD: it keeps the first split's order within each of
// its digits), in place in the same buffer. The register split's chunks
// are in thread order, not digit_chunk's (digit_rank.cuh): its block scan
// runs in thread order, and stability needs chunks in scan order.
// Measured: a register split on 1 or 2 bits under 6-bit counters (step 23)
// was as fast for keys as session 14's two 4-bit counter splits in three
// buffers (block_wide_digits, removed), whose second split cost its
// per-item work rather than its counters, and far faster for pairs (m =
// 128 uniform 2.65 -> 1.43 ms); one more bit in registers and 5-bit
// counters (half the counter scan) beat it at 7 bits and at m = 256 (step
// 25: counter_bits has the figures).
//
// A tile's path (each split): thread t classifies and counts its chunk;
// one block scan turns the counts into places (the counter split's also
// turns the tile's bucket counts into output shifts); each thread then has
// its chunk's keys (and values) in registers, and after a barrier (every
// chunk read) stores each item at its place in the same buffer, which then
// holds the tile in that split's order: two tile buffers, not three, so
// that the wider counters still leave 3 blocks on an SM (below). Keys are
// loaded again after the block scan, not held across it (held there, 20
// keys spilled in session 14's two-split kernel); pairs, with 128
// registers, hold theirs.
//
// Shared memory a block, 32-bit keys (20 items, 5,120-key tiles): two
// tiles 40 KB + counters 8 / 16 / 32 KB + shifts 2^IdBits words: 49.4 /
// 57.7 / 74.3 KB at 4 / 5 / 6 bits, 58.1 / 59.6 at 7 / 8 (5-bit counters;
// 8 bits also keep the buckets' starts, tile_major_matrix),
// 3 blocks an SM (228 KB, 1 KB reserved a block; 4 bits would fit 4, but
// at 64 registers it spilled: dispatch caps it at 3). Pairs of 32-bit
// words: one block of 512 threads an SM, 10,240-pair tiles: two tiles 160
// KB + counters 32 / 64 KB (5 bits, 4-bit ids included, / 6 bits, a column
// a thread) + shifts, up to 229.9 KB (wide_digits_one_blocks and
// wide_digits_one_warps say why).
#pragma once

#include <cub/block/block_scan.cuh>

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "primitives/common/chained_launch.cuh"
#include "primitives/multisplit/detail/digit_rank.cuh"
#include "primitives/multisplit/detail/kernels.cuh"
#include "primitives/multisplit/detail/wide_digits.cuh"
#include "primitives/multisplit/detail/wide_tile.cuh"

namespace graphkit::multisplit_detail {

/// The bucket-id bits that block_wide_digits_one orders a tile by at m
/// (m <= 256): ceil(log2 m), at least 4 (a warp rakes whole rows). Up to 6
/// in one counter split; 7 and 8 as a register split of the low 2 or 3 bits
/// then a 5-bit counter split (see the header).
constexpr int digits_one_bits(std::uint32_t m) { return m <= 16 ? 4 : m <= 32 ? 5 : m <= 64 ? 6 : m <= 128 ? 7 : 8; }

/// Of IdBits, those that the counters split by (the rest, the low bits,
/// are the register split's): all up to 6, 5 past 6. Measured (H100,
/// session 18, same run, ms, uniform / skewed; 5-bit counters under 2 / 3
/// register bits against 6-bit under 1 / 2): keys m = 65 1.802 / 1.778 ->
/// 1.705 / 1.698, m = 128 1.738 / 1.801 -> 1.630 / 1.718, m = 192 1.986 /
/// 1.950 -> 1.981 / 1.936, m = 256 2.069 / 2.048 -> 1.963 / 1.984, but m =
/// 129 1.863 / 1.849 -> 1.913 / 1.892; pairs m = 65 / 128 1.231 / 1.255 ->
/// 1.176 / 1.207 uniform, m = 129-256 level. 4-bit counters under 3 / 4
/// register bits: keys 3-14% slower than 5-bit, pairs level with it. On
/// 16 warps at least 5, so that the raking gives each warp a row of the
/// 2^(Bits-1): 4-bit ids count as 5-bit digits there, the top bit 0.
constexpr int counter_bits(int id_bits, int warps) {
  return id_bits > 6 ? 5 : warps == 16 && id_bits < 5 ? 5 : id_bits;
}

/// A thread's count of each low value v < 2^LowBits of its chunk, as the
/// block scan takes them: value v in the 16-bit half v % 2 of word v / 2.
/// The halves never carry into each other: a tile has fewer than 2^16 items.
template <int LowBits>
using low_counts = word_sums<LowBits <= 1 ? 1 : (1 << LowBits) / 2>;

/// Blocks a cluster of wide_digits_one_postscan where the GPU has clusters
/// (sm_90): 2 for 8-bit keys, whose tiles write ~20 keys a bucket at m =
/// 256 (wide_digits_pair_loop), else 1. Measured (H100, same run, ms,
/// unpaired -> in pairs, uniform / skewed ids; bench/NOTES.md multisplit
/// step 29): keys m = 129 1.632 / 1.570 -> 1.623 / 1.566, m = 192 1.801 /
/// 1.615 -> 1.714 / 1.618, m = 224 1.932 / 1.643 -> 1.777 / 1.646, m = 256
/// 2.022 / 1.673 -> 1.825 / 1.682. Not kept: 7-bit keys in pairs (m = 128
/// uniform 1.531 -> 1.474-1.527, but skewed 1.425 -> 1.452-1.475 and m = 65
/// skewed 1.401 -> 1.424-1.433), and pairs of words, 0-3% slower at every
/// width (their 10,240-pair tiles write ~40 a bucket at m = 256).
template <class Value, int IdBits>
constexpr int wide_digits_one_cluster() {
  return !kHasValues<Value> && IdBits == 8 ? 2 : 1;
}

/// Whether block_wide_digits_one's matrix is tile-major (column_scan.cuh)
/// rather than bucket-major: for 8-bit keys, where the pre-scan's stores of
/// a tile's m counts, one sector each, held it to 426 us at m = 256
/// against 377 tile-major (2^28 keys, H100, ncu). Measured, same runs, ms,
/// uniform / skewed ids: keys m = 192 1.714-1.726 / 1.614-1.625 ->
/// 1.685-1.704 / 1.573-1.599, m = 256 1.818-1.828 / 1.676-1.679 ->
/// 1.757-1.762 / 1.587-1.614; m = 129 level. Not for 7-bit keys (m = 128
/// uniform 1.531 -> 1.58: the post-scan 1,235 -> 1,277 us, the pre-scan
/// gaining 12) nor for pairs (m = 256 uniform 1.243 -> 1.37, the post-scan
/// +90 us at the same instructions, its shared-memory waits up a third;
/// m = 128-192 gained 1-2%), nor below m = 128, where the pre-scan runs at
/// the copy ceiling already and the column scan's look-back costs more
/// than CUB's flat scan (m = 16: 42 against 12 us).
template <class Value, int IdBits>
constexpr bool tile_major_matrix() {
  return !kHasValues<Value> && IdBits == 8;
}

/// Shared memory of wide_digits_one_postscan: the cp.async double buffer
/// (each tile ordered in place, see the header), the counters, and per
/// bucket (at most 2^IdBits) the output shift and, from a tile-major
/// matrix, the global start; BlockTable: the bucket functor's table
/// (has_block_table).
template <int Warps, int Items, int IdBits, class Key, class Value, bool StageBuckets, bool BlockTable = false>
struct wide_digits_one_storage {
  using tile = digit_tile<Warps, Items, Key, Value, StageBuckets>;
  static constexpr int kBits = counter_bits(IdBits, Warps);
  static constexpr int kLowBits = IdBits > kBits ? IdBits - kBits : 0;  ///< the register split's (0: none)
  using counters_type = digit_counters<kBits, Warps * 32>;
  static constexpr int kStripes = counters_type::kStripes;
  static constexpr bool kTileMajor = tile_major_matrix<Value, IdBits>();
  tile in[2];
  counters_type counters;
  /// Output index of bucket b's tile place 0 (mod 2^32: base - tile start).
  std::uint32_t shift[1 << IdBits];
  std::uint32_t start[kTileMajor ? 1 << IdBits : 1];             ///< the buckets' global starts (copy_bucket_starts)
  std::uint8_t bucket_table[BlockTable ? kBlockTableBytes : 1];  ///< see in_block
  std::uint32_t total;                                           ///< the tile's valid items
  std::uint32_t next_tile;                                       ///< this block's next tile (wide_digits_loop)
  /// Blocks in clusters: the tiles that rank 0 hands out, tagged with their
  /// iteration (wide_digits_pair_loop).
  unsigned long long group_tiles[wide_digits_one_cluster<Value, IdBits>() > 1 ? 4 : 1];
  /// Warp scans: the default raking scan keeps a word set a thread (5 KB at
  /// 6 bits' 5-word sums), which cost the third block an SM. The register
  /// split's scan (7 and 8 bits) ends before the counter split's begins.
  union {
    typename cub::BlockScan<stripe_sums<kStripes>, Warps * 32, cub::BLOCK_SCAN_WARP_SCANS>::TempStorage digits;
    typename cub::BlockScan<low_counts<kLowBits>, Warps * 32, cub::BLOCK_SCAN_WARP_SCANS>::TempStorage low;
  } scan;
};

/// Blocks an SM that wide_digits_one_postscan is sized for: 3 for keys, 1
/// (of 16 warps, wide_digits_one_warps) for pairs. Measured (H100,
/// bench/NOTES.md multisplit steps 22-26): pairs gain more from longer
/// tiles than from a third block (session 15, uniform m = 8 / 16 / 32 / 64,
/// 3 blocks of 4,096 / 3,072 / 3,072 / 2,048 pairs -> 2 blocks of 5,120 /
/// 5,120 / 5,120 / 4,096: 1.032 / 1.081 / 1.246 / 1.893 -> 0.989 / 1.021 /
/// 1.078 / 1.165 ms), and more still from one block of 16 warps on
/// 10,240-pair tiles (step 25 from 5 bits, step 26 at 4); keys at 20 items
/// fit 3 blocks at every width (24 items were no faster).
template <class Value, int IdBits>
constexpr int wide_digits_one_blocks() {
  return kHasValues<Value> ? 1 : 3;
}

/// Warps a block of wide_digits_one_postscan: 16 for pairs (one block an
/// SM, 10,240-pair tiles), 8 for keys. Why (session 18,
/// H100): ncu on uniform pairs at m = 256 (then 8 warps an SM on
/// 11,264-pair tiles) found the post-scan issuing 0.35 instructions a cycle
/// a scheduler, 0.41 of its 2 warps eligible, most waiting on fixed-latency
/// dependences, at 44% of DRAM bandwidth; at m = 128 (2 blocks of 8 warps
/// on 4,096-pair tiles, whose 64-byte chunks meet 4-way bank conflicts in
/// the 16-byte chunk loads) the shared-memory pipe was 79% busy. Same run,
/// ms, uniform / skewed: m = 64 1.117 / 1.132 -> 1.049 / 1.068, m = 128
/// 1.406 / 1.349 -> 1.252 / 1.255, m = 256 1.493 / 1.575 -> 1.366 / 1.304.
/// 5-bit pairs (m = 17-32) on 16 warps, two runs: uniform m = 17 / 32
/// 1.028 / 1.088 -> 0.997 / 1.005 and 1.061 / 1.111 -> 1.025 / 1.042, but
/// skewed 0.969 / 0.979 -> 1.015 / 1.026 and 0.993 / 0.986 -> 1.010 / 1.023:
/// taken for the worse of the two (m = 32 1.36x -> 1.43x CUB). 4-bit pairs
/// (m <= 16) on 16 warps with 5-bit counters (session 19, after the
/// per-item tests left classify; two reps, uniform / skewed): m = 8 0.988,
/// 0.994 / 1.000, 0.995 -> 0.967, 0.965 / 0.958, 0.960; m = 16 1.020, 1.014
/// / 0.996, 0.999 -> 0.975, 0.979 / 0.970, 0.960. One layout for every pair.
template <class Value, int IdBits>
constexpr int wide_digits_one_warps() {
  return kHasValues<Value> ? 16 : 8;
}

/// Items per thread: the most, in steps of 4 from 20 down to 8, whose
/// storage (two tiles, the counters, the shifts and starts, 1 KB for the rest) leaves
/// wide_digits_one_blocks() blocks an SM (228 KB, 1 KB reserved a block)
/// and, with bucket bytes staged (StageBuckets), still fits one block's 227
/// KB: 20 for 32-bit keys at every width and for pairs of 32-bit words (16
/// from 6 bits with staged bytes). 28 for keys (7,168-key tiles, 3 blocks,
/// where 5-bit counters leave room) ran 2-12% slower (session 18). Session 16's 256-thread blocks of
/// 11,264 pairs (44 items) at 8 bits lost to 512 threads of 20 (step 25).
/// 20 items also keep the chunk loads conflict-free (digit_rank.cuh: 16 met
/// 4-way conflicts); at 2 and 3 blocks, 24 were no faster (session 15).
template <class Key, class Value, int IdBits, bool StageBuckets = false>
constexpr int wide_digits_one_items() {
  constexpr std::size_t bytes = sizeof(Key) + (kHasValues<Value> ? sizeof(Value) : 0);
  constexpr int kBlocks = wide_digits_one_blocks<Value, IdBits>();
  constexpr int kThreads = 32 * wide_digits_one_warps<Value, IdBits>();
  constexpr std::size_t budget = 228 * 1024 / kBlocks - 1024;
  const auto storage = [&](int items, std::size_t item_bytes) {
    return 2 * std::size_t{kThreads} * items * item_bytes +
           sizeof(digit_counters<counter_bits(IdBits, kThreads / 32), kThreads>) +
           (tile_major_matrix<Value, IdBits>() ? 8 : 4) * (std::size_t{1} << IdBits) + 1024;
  };
  for (int items = 20; items >= 8; items -= 4)
    if (storage(items, bytes) <= budget && storage(items, bytes + (StageBuckets ? 1 : 0)) <= 227 * 1024) return items;
  return 4;
}

/// block_wide_digits_one's tile on IdBits-bit ids, in items: its threads
/// times their items.
template <class Key, class Value, int IdBits, bool StageBuckets = false>
constexpr int wide_digits_one_tile() {
  return 32 * wide_digits_one_warps<Value, IdBits>() * wide_digits_one_items<Key, Value, IdBits, StageBuckets>();
}

/// block_wide_digits_one's tile at m, in items, by its width at m.
template <class Key, class Value>
constexpr int digits_one_tile(std::uint32_t m) {
  switch (digits_one_bits(m)) {
    case 4: return wide_digits_one_tile<Key, Value, 4>();
    case 5: return wide_digits_one_tile<Key, Value, 5>();
    case 6: return wide_digits_one_tile<Key, Value, 6>();
    case 7: return wide_digits_one_tile<Key, Value, 7>();
    default: return wide_digits_one_tile<Key, Value, 8>();
  }
}

/// The stripes' rake sums of this thread, and its bucket's count in the
/// tile (thread b < m stands for bucket b).
template <class Counters>
__device__ __forceinline__ stripe_sums<Counters::kStripes> rake_stripes(const Counters& counters,
                                                                        std::uint32_t bucket_count) {
  stripe_sums<Counters::kStripes> sums;
#pragma unroll
  for (int k = 0; k < Counters::kStripes; ++k) sums.word[k] = counters.rake(k, threadIdx.x);
  sums.word[Counters::kStripes] = bucket_count;
  return sums;
}

/// Whether a thread holds its chunk's keys and values in registers from
/// the count to the stores: pairs do, their 2 blocks an SM leaving 128
/// registers a thread (1 block at 8 bits: 255) (uniform m = 32 / 64 1.118 /
/// 1.167 -> 1.094 / 1.110 ms, session 15). Keys, at 80 registers, read theirs again after the
/// block scan (held, 20 keys spilled in session 14's two-split kernel).
template <class Value>
inline constexpr bool kHoldChunk = kHasValues<Value>;

/// This thread's chunk (`first`: its first tile index) into registers: the
/// keys, and the values where they are held (kHoldChunk).
template <int Items, class Tile, class Key, class Values>
__device__ __forceinline__ void load_items(const Tile& in, unsigned first, Key (&key)[Items], Values& value) {
  using Value = std::remove_cv_t<std::remove_extent_t<decltype(in.values)>>;
  load_chunk<Items>(in.keys + first, key);
  if constexpr (kHoldChunk<Value>) load_chunk<Items>(in.values + first, value);
}

/// classify_keys on this thread's chunk of tile t as loaded (`first`: its
/// first tile index); pairs take the chunk into registers (kHoldChunk),
/// keys read theirs here only to classify them.
template <int Items, class Tile, class Key, class Values, class BucketOf>
__device__ __forceinline__ void classify_loaded(const Tile& in, unsigned first, std::size_t t, std::size_t n,
                                                std::uint32_t m, const BucketOf& bucket_of,
                                                std::uint32_t (&item)[Items], Key (&key)[Items], Values& value) {
  using Value = std::remove_cv_t<std::remove_extent_t<decltype(in.values)>>;
  constexpr std::size_t kTile = sizeof(in.keys) / sizeof(Key);
  if constexpr (kHoldChunk<Value>) {
    load_items(in, first, key, value);
    classify_keys(key, t * kTile + first, n, m, bucket_of, item);
  } else {
    classify_chunk(in, first, t * kTile + first, n, m, bucket_of, item);
  }
}

/// Stores each valid item of this thread's chunk (key, value; its bucket
/// byte where the tile stages them) at its place in `to`, place_of(word)
/// from its item word; Packed: a pair as one packed_pair over both arrays
/// (the last split of a tile whose kPacked says so: the write-out reads it
/// so). After the barrier that ends the scan and every chunk's read.
///
/// Why packed (H100, same run, three rounds, ms; bench/NOTES.md multisplit
/// step 42): the last split's random stores are a third of the pairs'
/// shared-memory store wavefronts, one 8-byte store a pair meets fewer bank
/// conflicts than two 4-byte ones, and the write-out reads a pair at once.
/// Uniform pairs m = 129 / 192 / 256 1.181-1.187 / 1.212-1.220 /
/// 1.232-1.248 -> 1.165-1.171 / 1.196-1.202 / 1.220-1.226, skewed 0.5-1%
/// faster, m <= 64 level. The register split's stores stay in two arrays:
/// the counter split reads its chunks back, and packed chunks of 20 pairs
/// (160 bytes) meet 2-way conflicts in those 16-byte loads.
template <bool Packed, int Items, class Tile, class Key, class Values, class PlaceOf, bool StageBuckets>
__device__ __forceinline__ void store_at_places(Tile& to, const std::uint32_t (&item)[Items], const Key (&key)[Items],
                                                const Values& value, PlaceOf place_of,
                                                std::bool_constant<StageBuckets> /*stage*/) {
  using Value = std::remove_cv_t<std::remove_extent_t<decltype(to.values)>>;
#pragma unroll
  for (int r = 0; r < Items; ++r) {
    const std::uint32_t b = item[r] & kItemBucketMask;
    if (b != kNoBucket) {
      const std::uint32_t place = place_of(item[r]);
      if constexpr (Packed) {
        to.packed()[place] = {key[r], value[r]};
      } else {
        to.keys[place] = key[r];
        if constexpr (kHasValues<Value>) to.values[place] = value[r];
      }
      if constexpr (StageBuckets) to.buckets[place] = static_cast<std::uint8_t>(b);
    }
  }
}

/// The counter split: orders the tile in `in` in place by one stable split
/// on the digit `bucket >> Shift` (below 2^Bits: m <= 2^(Bits + Shift)),
/// each thread's chunk (at `first`, digit_chunk order) classified by the
/// caller into `item`, with its keys (and values) in registers where held
/// (kHoldChunk). Its block scan also turns `cell` (for thread b < m, bucket
/// b's output index for this tile and its count in it) into the output
/// shifts and the tile's total. All threads call; the caller's barrier ends
/// the stores.
template <int Warps, int Items, int Shift, class Storage, class Tile, class Key, class Values, bool StageBuckets>
__device__ __forceinline__ void split_by_counters(Storage& s, Tile& in, unsigned first, std::uint32_t m, uint2 cell,
                                                  std::uint32_t (&item)[Items], Key (&key)[Items], const Values& value,
                                                  std::bool_constant<StageBuckets> stage) {
  constexpr int kThreads = Warps * 32, kTile = Warps * 32 * Items;
  constexpr int kStripes = Storage::kStripes;
  using Value = std::remove_cv_t<std::remove_extent_t<decltype(in.values)>>;
  static_assert(kThreads == decltype(s.counters)::kThreads, "the raking scan gives one warp to each row of a stripe");
  static_assert(kTile < (1 << 16), "tile places fit the 16-bit counters");
  static_assert(Items < (1 << (32 - kRankShift)), "ranks fit the item word");
  count_digits<Shift>(s.counters, threadIdx.x, item);
  __syncthreads();  // every count is in
  {
    // One block scan: every stripe's rakes and the buckets' counts.
    const stripe_sums<kStripes> mine = rake_stripes(s.counters, threadIdx.x < m ? cell.y : 0u);
    stripe_sums<kStripes> prefix, all, zero{};
    cub::BlockScan<stripe_sums<kStripes>, kThreads, cub::BLOCK_SCAN_WARP_SCANS>(s.scan.digits)
        .ExclusiveScan(mine, prefix, zero, add_word_sums{}, all);
    lift_stripes(s.counters, prefix, all, threadIdx.x);
    if (threadIdx.x < m) s.shift[threadIdx.x] = cell.x - prefix.word[kStripes];  // word kStripes: the bucket counts
    if (threadIdx.x == 0) s.total = all.word[kStripes];
  }
  // Keys: the chunk into registers now, after the block scan (not live
  // across it); the stores below overwrite other threads' chunks.
  if constexpr (!kHoldChunk<Value>) load_chunk<Items>(in.keys + first, key);
  __syncthreads();  // places, shifts and total are in; every chunk is read
  const std::uint16_t* column = s.counters.column(threadIdx.x);
  store_at_places<Tile::kPacked>(
      in, item, key, value, [&](std::uint32_t word) { return counted_place(column, word); }, stage);
}

/// Byte v (v < 8) of the pair (lo, hi), lo's bytes first, as a number,
/// where every byte of the pair is below 128 (a chunk's counts: Items <
/// 128): one PRMT, whose upper three selector nibbles (8: the sign of byte
/// 0) give zeros.
__device__ __forceinline__ std::uint32_t byte_of_pair(std::uint32_t lo, std::uint32_t hi, std::uint32_t v) {
  std::uint32_t byte;
  asm("prmt.b32 %0, %1, %2, %3;" : "=r"(byte) : "r"(lo), "r"(hi), "r"(0x8880u | v));
  return byte;
}

/// 16-bit half h (h < 4) of the pair (lo, hi), lo's halves first, as a
/// number, where every half is below 2^15 (tile places: the tile is
/// smaller): one PRMT, whose upper two selector nibbles (9: the sign of
/// byte 1) give zeros.
__device__ __forceinline__ std::uint32_t half_of_pair(std::uint32_t lo, std::uint32_t hi, std::uint32_t h) {
  std::uint32_t half;
  asm("prmt.b32 %0, %1, %2, %3;" : "=r"(half) : "r"(lo), "r"(hi), "r"(0x9910u + h * 0x22u));
  return half;
}

/// 1 << amount, 0 for an amount of 32 or more (PTX's shl clamps it).
__device__ __forceinline__ std::uint32_t one_shifted(std::uint32_t amount) {
  std::uint32_t one;
  asm("shl.b32 %0, %1, %2;" : "=r"(one) : "r"(1u), "r"(amount));
  return one;
}

/// The register split (7- and 8-bit ids): orders the tile in `in` in place
/// by one stable split on the bucket's low LowBits bits; returns the tile's
/// valid items. Thread t's chunk is items t * Items .. (t + 1) * Items - 1,
/// not digit_chunk(t): the block scan runs in thread order, and stability
/// needs chunks in scan order. Classified by the caller into `item`, keys
/// (and values) in registers where held, as split_by_counters. All threads
/// call; the caller's barrier ends the stores.
///
/// Why PRMT (session 19): ncu on keys at m = 256 counted 120 instructions
/// a 32-key row in the post-scan, ~65 of them this split's, where the count
/// and the place picked value v's byte or half out of two or four
/// registers by selects and variable shifts. Here one PRMT reads a count,
/// one shift and one or two adds bump it, and one PRMT (after a select of
/// a register pair past 4 values) reads a place.
template <int Warps, int Items, int LowBits, class Storage, class Tile, class Key, class Values, bool StageBuckets>
__device__ __forceinline__ std::uint32_t split_low_bits(Storage& s, Tile& in, std::uint32_t (&item)[Items],
                                                        Key (&key)[Items], const Values& value,
                                                        std::bool_constant<StageBuckets> stage) {
  constexpr int kThreads = Warps * 32, kWords = low_counts<LowBits>::kWords;
  constexpr unsigned kMask = (1u << LowBits) - 1;
  using Value = std::remove_cv_t<std::remove_extent_t<decltype(in.values)>>;
  static_assert(LowBits >= 1 && LowBits <= 3 && Items < 128, "bytes of two registers count a chunk's values");
  static_assert(Warps * 32 * Items < (1 << 15), "tile places fit the halves that half_of_pair reads");
  // Value v's count in byte v of (lo, hi); an item's rank is that byte
  // before its add. The add is 1 shifted by 8 v, once into lo and once,
  // 32 less, into hi: shifts of 32 or more give 0, so no selects, and an
  // item left out (kNoBucket, the bit above the bucket) shifts by 2^11.
  static_assert(kNoBucket == 256, "kNoBucket << 3 is a shift of 2^11");
  constexpr std::uint32_t kAmount = 8 * kMask | kNoBucket << 3;  // bits of item << 3: 8 v, and kNoBucket's
  std::uint32_t lo = 0, hi = 0;
#pragma unroll
  for (int r = 0; r < Items; ++r) {
    const std::uint32_t amount = (item[r] << 3) & kAmount;
    item[r] |= byte_of_pair(lo, hi, item[r] & kMask) << kRankShift;  // kNoBucket: rank never read
    lo += one_shifted(amount);
    if constexpr (LowBits == 3) hi += one_shifted(amount - 32);  // below 32 wraps to 2^32 - ..., clamped
  }
  // Bytes 0, 1 (and 2, 3) of each register to the halves of one (two) words: one block scan for all values.
  const std::uint32_t counts[2] = {lo, hi};
  low_counts<LowBits> mine, prefix, all, zero{};
#pragma unroll
  for (int k = 0; k < kWords; ++k) mine.word[k] = __byte_perm(counts[k / 2], 0, k % 2 == 0 ? 0x4140 : 0x4342);
  cub::BlockScan<low_counts<LowBits>, kThreads, cub::BLOCK_SCAN_WARP_SCANS>(s.scan.low)
      .ExclusiveScan(mine, prefix, zero, add_word_sums{}, all);
  // Value v's first place in this chunk, half v of start[0..3]: the tile's
  // items of smaller values (those of earlier words, `before`, and for a
  // high half the low half's total, all << 16), then v's in earlier chunks.
  std::uint32_t start[4] = {}, before = 0;
#pragma unroll
  for (int k = 0; k < kWords; ++k) {
    start[k] = prefix.word[k] + (all.word[k] << 16) + before * 0x10001u;
    before += (all.word[k] & 0xffffu) + (all.word[k] >> 16);
  }
  // Keys: into registers after the block scan, as split_by_counters.
  if constexpr (!kHoldChunk<Value>) load_chunk<Items>(in.keys + threadIdx.x * Items, key);
  __syncthreads();  // every chunk is read
  store_at_places<false>(
      in, item, key, value,
      [&](std::uint32_t word) {
        const std::uint32_t v = word & kMask, rank = word >> kRankShift;
        if constexpr (LowBits <= 2) return half_of_pair(start[0], start[1], v) + rank;
        const bool upper = (v & 4u) != 0;
        return half_of_pair(upper ? start[2] : start[0], upper ? start[3] : start[1], v & 3u) + rank;
      },
      stage);
  return before;
}

/// Orders tile t, already in `in` (and visible to every thread), in place
/// by one counter split on the whole bucket id (m <= 64). `cell`: for
/// thread b < m, bucket b's output index for this tile and its count in
/// it. All threads call; the caller's barrier ends the stores.
template <int Warps, int Items, class Storage, class Tile, class BucketOf>
__device__ __forceinline__ void order_one_digit_tile(Storage& s, Tile& in, std::size_t t, std::size_t n,
                                                     std::uint32_t m, const BucketOf& bucket_of, uint2 cell) {
  using Key = std::remove_extent_t<decltype(in.keys)>;
  using Value = std::remove_cv_t<std::remove_extent_t<decltype(in.values)>>;
  const unsigned first = digit_chunk(threadIdx.x) * Items;  // this thread's chunk
  std::uint32_t item[Items];
  Key key[Items];
  value_tile<Value, Items> value;
  classify_loaded(in, first, t, n, m, bucket_of, item, key, value);
  split_by_counters<Warps, Items, 0>(s, in, first, m, cell, item, key, value,
                                     std::bool_constant<std::is_same_v<BucketOf, bucket_ids_of>>{});
}

/// order_one_digit_tile for 7- and 8-bit ids (m <= 2^(5 + LowBits)): the
/// register split on the low LowBits bits, then the counter split on the
/// 5 bits above them (LSD: the second split keeps the first's order within
/// each of its digits), which classifies the items again as the first left
/// them (the valid ones at places 0 .. total - 1).
template <int Warps, int Items, int LowBits, class Storage, class Tile, class BucketOf>
__device__ __forceinline__ void order_low_then_digit_tile(Storage& s, Tile& in, std::size_t t, std::size_t n,
                                                          std::uint32_t m, const BucketOf& bucket_of, uint2 cell) {
  using Key = std::remove_extent_t<decltype(in.keys)>;
  using Value = std::remove_cv_t<std::remove_extent_t<decltype(in.values)>>;
  constexpr std::bool_constant<std::is_same_v<BucketOf, bucket_ids_of>> kStage{};
  std::uint32_t item[Items];
  Key key[Items];
  value_tile<Value, Items> value;
  classify_loaded(in, threadIdx.x * Items, t, n, m, bucket_of, item, key, value);
  const std::uint32_t total = split_low_bits<Warps, Items, LowBits>(s, in, item, key, value, kStage);
  __syncthreads();  // the low bits' order is complete
  const unsigned first = digit_chunk(threadIdx.x) * Items;
  load_items(in, first, key, value);
  classify_placed(in, first, total, bucket_of, key, item);
  split_by_counters<Warps, Items, LowBits>(s, in, first, m, cell, item, key, value, kStage);
}

/// The wide post-scan with one wide digit split: wide_digits_loop (in
/// clusters of Cluster blocks, wide_digits_pair_loop) with each tile
/// ordered in its own buffer by order_one_digit_tile, or by
/// order_low_then_digit_tile past 6 bits. Dynamic shared memory:
/// sizeof(wide_digits_one_storage).
template <int Warps, int Items, int IdBits, int MinBlocks, int Cluster, class Key, class Value, class BucketOf>
__global__ void __launch_bounds__(Warps * 32, MinBlocks)
    wide_digits_one_postscan(const Key* keys_in, const Value* values_in, Key* keys_out, Value* values_out,
                             std::size_t n, std::uint32_t m, BucketOf outer_bucket_of, const std::uint32_t* scanned,
                             std::size_t tiles, std::uint32_t* claims, choice_gate gate) {
  static_assert(Warps * 32 >= (1 << IdBits), "one bucket a thread for the shifts");
  wait_for_prior_grid();      // not let_next_grid_start: see chained_launch.cuh
  if (gate.closed()) return;  // every block alike: before any barrier
  using storage = wide_digits_one_storage<Warps, Items, IdBits, Key, Value, std::is_same_v<BucketOf, bucket_ids_of>,
                                          has_block_table<BucketOf>>;
  extern __shared__ uint4 wide_digits_one_shared[];
  storage& s = *reinterpret_cast<storage*>(wide_digits_one_shared);
  // Read only after the loop's first barrier.
  const auto bucket_of = in_block(outer_bucket_of, s.bucket_table);
  const auto order_tile = [&](auto& in, std::size_t t, uint2 cell) -> const auto& {
    if constexpr (IdBits <= 6) order_one_digit_tile<Warps, Items>(s, in, t, n, m, bucket_of, cell);
    else order_low_then_digit_tile<Warps, Items, storage::kLowBits>(s, in, t, n, m, bucket_of, cell);
    return in;
  };
  if constexpr (Cluster > 1)
    wide_digits_pair_loop<Warps * 32, Items, Cluster>(s, keys_in, values_in, keys_out, values_out, n, m, bucket_of,
                                                      scanned, tiles, claims, order_tile);
  else
    wide_digits_loop<Warps * 32, Items>(s, keys_in, values_in, keys_out, values_out, n, m, bucket_of, scanned, tiles,
                                        claims, order_tile);
}

}  // namespace graphkit::multisplit_detail
