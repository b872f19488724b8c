// Host side of multisplit: tuning per architecture, method choice, the
// global scan, the radix-sort fallback, and the public entry points.
#pragma once

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <limits>
#include <string>
#include <type_traits>

#include "primitives/common/chained_launch.cuh"
#include "primitives/common/error.hpp"
#include "primitives/common/launch.hpp"
#include "primitives/multisplit/detail/column_scan.cuh"
#include "primitives/multisplit/detail/compact_ids.cuh"
#include "primitives/multisplit/detail/kernels.cuh"
#include "primitives/multisplit/detail/onesweep.cuh"
#include "primitives/multisplit/detail/spread_choice.cuh"
#include "primitives/multisplit/detail/wide_digits.cuh"
#include "primitives/multisplit/detail/wide_digits_one.cuh"
#include "primitives/multisplit/detail/wide_tile.cuh"

namespace graphkit {

namespace multisplit_detail {

/// Tuning for Hopper (sm_90), measured on an H100 (bench/multisplit_bench).
/// Items per thread are compile-time so that the per-item state stays in registers.
struct tuning_sm90 {
  static constexpr int kWarps = 8;
  static constexpr int kWarpItems = 8;
  /// `automatic` takes the warp method up to this m, the block method beyond.
  /// Measured on H100 (2^28 keys, 2^27 pairs, m = 2..32, uniform and skewed):
  /// the block method won or tied everywhere, by up to 1.2x on keys and 1.3x
  /// on pairs, because its histogram has 8x fewer columns to write, scan and
  /// read back. The warp method stays selectable.
  static constexpr std::uint32_t kWarpMethodMaxBuckets = 1;
  /// Items per thread in the block method: 8 (2,048 per tile) beat 16 by
  /// 1.1-1.2x at m = 64..256, as ~60 registers leave room for twice the
  /// resident blocks. Wide items get fewer, to stay in 48 KB of static shared memory.
  template <class Key, class Value>
  static constexpr int block_items() {
    constexpr std::size_t bytes = sizeof(Key) + (kHasValues<Value> ? sizeof(Value) : 0);
    return bytes <= 8 ? 8 : 6;
  }
  /// The one-sweep method: tiles of 8 warps x onesweep_items() items, held
  /// twice in static shared memory (as read and in bucket order): the most
  /// items per thread, of 16 and 8, whose two copies fit 32 KB, else 4
  /// (onesweep_scatter asserts that its storage fits 48 KB). Bigger tiles mean fewer look-back words (m per tile)
  /// and longer runs per bucket in the scatter.
  template <class Key, class Value>
  static constexpr int onesweep_items() {
    constexpr std::size_t bytes = sizeof(Key) + (kHasValues<Value> ? sizeof(Value) : 0);
    constexpr std::size_t two_tiles_of_16 = 2 * std::size_t{kWarps} * 32 * 16 * bytes;
    return two_tiles_of_16 <= 32768 ? 16 : two_tiles_of_16 <= 65536 ? 8 : 4;
  }
  /// `automatic` takes the one-sweep method from this m up (and below 2^30
  /// items), the block method below it: THE place to set from the H100
  /// measurements (multisplit_bench's block and onesweep rows; bench/NOTES.md
  /// multisplit steps 8-14). Session 11, 2^28 keys / 2^27 pairs, ms,
  /// onesweep vs block in the same run: uniform keys m = 2 1.67 vs 1.41,
  /// m = 32 2.07 vs 1.92, m = 256 2.84 vs 2.84; uniform pairs m = 256 2.34
  /// vs 2.52, but skewed pairs m = 256 2.07 vs 1.39. Both move the same
  /// 12 B/key; the block method has no look-back latency in a tile's path,
  /// and its m x tiles matrix weighs only at large m (2 B/key at m = 256).
  /// So block everywhere (257: never); `onesweep` stays selectable.
  static constexpr std::uint32_t kOnesweepMinBuckets = kMultisplitBlockMaxBuckets + 1;
  /// block_multisplit_tile's warp rank (block post-scan, one-sweep pass):
  /// peer masks for m in [kPeerMasksMinBuckets, kPeerMasksMaxBuckets],
  /// votes elsewhere. THE place to set from multisplit_bench's block_votes
  /// and block_peers rows (bench/NOTES.md multisplit step 16; a minimum of
  /// 257 turns the peer masks off). Measured (H100, same run, votes ->
  /// peers, ms): uniform keys m = 32 / 64 / 128 / 256 1.93 -> 1.78, 2.12 ->
  /// 1.80, 2.35 -> 2.09, 2.87 -> 2.78; skewed keys m = 8 / 16 1.64 -> 1.82,
  /// 1.76 -> 1.86 (many lanes on one mask word), m = 256 2.63 -> 2.82; pairs
  /// within 3% either way from m = 32 on. So peers for 32 <= m <= 128.
  static constexpr std::uint32_t kPeerMasksMinBuckets = 32;
  static constexpr std::uint32_t kPeerMasksMaxBuckets = 128;
  /// The wide post-scan (block_wide, detail/wide_tile.cuh): items per
  /// thread, the most of 20, 16, 12 and 8 whose three tiles (two cp.async
  /// buffers and the staging) fit 72 KB: 20 for 32-bit keys (5,120-key
  /// tiles), 12 for pairs of 32-bit words (3,072, 3 blocks per SM).
  /// Measured for keys (H100, session 13, uniform ids, ratio to CUB at m =
  /// 8 / 16 / 32 / 64 / 128 / 256): 8 items 1.71 / 1.75 / 1.62 / 1.25 / 0.86
  /// / 0.62, 12 1.76 / 1.81 / 1.58 / 1.34 / 1.03 / 0.78, 16 1.86 / 1.87 /
  /// 1.70 / 1.46 / 1.17 / 0.98, 20 1.86 / 1.91 / 1.78 / 1.67 / 1.29 / 1.04,
  /// 24 1.74 / 1.71 / 1.62 / 1.44 / 1.17 / 0.93 (skewed ids: 20 level with 16
  /// to m = 64, 1.39x / 1.30x against 1.34x / 1.14x at 128 / 256): more keys
  /// per tile to m = 64, fewer tiles' matrix columns, until 24's 72 KB
  /// leaves 3 blocks per SM. Pairs at 20 items would not fit.
  template <class Key, class Value>
  static constexpr int wide_items() {
    constexpr std::size_t bytes = sizeof(Key) + (kHasValues<Value> ? sizeof(Value) : 0);
    for (const int items : {20, 16, 12, 8})
      if (3 * std::size_t{kWarps} * 32 * items * bytes <= 72 * 1024) return items;
    return 4;
  }
  /// `automatic` takes block_wide for keys alone from this m up to 256,
  /// the block method below and for pairs. Measured (H100, session 13,
  /// 2^28 keys / 2^27 pairs, ratio to CUB, block -> block_wide_peers):
  /// uniform keys m = 4 / 8 / 16 / 32 / 64 / 128 / 256 1.53 -> 1.71, 1.44 ->
  /// 1.85, 1.41 -> 1.87, 1.33 -> 1.70, 1.32 -> 1.46, 1.16 -> 1.16, 0.93 ->
  /// 0.99; skewed keys m = 4 1.52 -> 1.48, m = 8 / 16 / 32 / 64 / 128 / 256
  /// 1.43 -> 1.47, 1.34 -> 1.47, 1.24 -> 1.44, 1.19 -> 1.43, 1.06 -> 1.35,
  /// 0.89 -> 1.15. Pairs lose from m = 16 (uniform m = 32 / 64 / 128 / 256:
  /// 1.36 -> 1.16, 1.08 -> 0.94, 0.88 -> 0.77, 0.70 -> 0.62): their tiles
  /// are 3,072 pairs at 3 blocks per SM. One-tile inputs keep block's
  /// single launch.
  static constexpr std::uint32_t kWideMinBuckets = 8;
  static constexpr bool kWidePairs = false;
  /// `automatic` takes block_wide_digits_one for keys alone at
  /// kDigitsMinBuckets <= m < kSpreadMinBuckets (one split of a 4-, 5-
  /// or 6-bit digit: counters a thread, no atomics, so skewed ids cost
  /// nothing), and block_wide_spread from kSpreadMinBuckets up (pairs:
  /// kSpreadPairsMinBuckets), where the digit rank (a register split of the low 2-3 bits,
  /// then a 5-bit split) wins on spread ids and the peer masks on
  /// concentrated ones (kSpreadPeersBelow has the figures). Session 17,
  /// block_wide_spread against session 16's choice, same run (ms): keys
  /// uniform m = 128 1.896 (peers) -> 1.743, skewed m = 256 2.091 (digits)
  /// -> 1.849, skewed m = 129 / 192 1.853 / 1.955 -> 1.674 / 1.726; pairs
  /// skewed m = 65 / 128 / 192 / 256 1.319 / 1.345 / 1.548 / 1.572 ->
  /// 1.132 / 1.152 / 1.150 / 1.185, uniform level (1.361 / 1.420 / 1.524 /
  /// 1.510 -> 1.367 / 1.421 / 1.535 / 1.513); with 16-item peer-mask
  /// tiles (kSpreadPeerItems) pairs skewed m = 33 / 64 / 65 1.126 / 1.131 /
  /// 1.134 -> 1.037 / 1.049 / 1.053, so pairs from 33; at m = 32 (one 5-bit
  /// split, 0.983) and for keys below 65 (skewed m = 64 1.483 against
  /// 1.626) the one digit split stays. Session 18: pairs from 65. With 6-bit
  /// pairs on one block of 16 warps (wide_digits_one_warps), same run, ms,
  /// uniform / skewed at m = 33 and 64: block_wide_spread as it was 1.084 /
  /// 1.035 and 1.132 / 1.041, the digit rank alone 1.029 / 1.054 and 1.049
  /// / 1.068 (the worse of the two 1.39x -> 1.39x and 1.35x -> 1.37x CUB);
  /// block_wide_spread on the new 10,240-pair tiles took 10-item peer tiles
  /// (16 do not divide them): skewed 1.098 / 1.100.
  /// Measured (H100, session 14, same runs,
  /// 2^28 keys, ratio to CUB; automatic's choice before -> digit rank):
  /// uniform m = 4 / 8 / 16 1.53 / 1.85 / 1.91 -> 1.91 / 1.91 / 1.90,
  /// skewed 1.52 / 1.45 / 1.44 -> 1.82 / 1.81 / 1.77; m = 32 / 64 (one 5- /
  /// 6-bit split, step 21)
  /// uniform 1.79 / 1.68 -> 1.81 / 1.67, skewed 1.44 / 1.43 -> 1.68 / 1.56;
  /// m = 128 two 4-bit splits uniform 1.30 -> 1.37 but skewed 1.39 -> 1.26, so
  /// peers there; m = 256 uniform 1.03 -> 1.26, skewed 1.30 -> 1.14 (the
  /// worse of the two 1.03 -> 1.14); session 15, m = 2: block 1.426 /
  /// 1.449 ms (1.61x / 1.59x) -> 1.215 / 1.272 (1.89x / 1.81x); session 16,
  /// the low-bit register split in place of the first 4-bit split, same run:
  /// m = 128 uniform / skewed 1.778 / 1.844 -> 1.774 / 1.812 ms (peers 1.864
  /// / 1.670, kept there), m = 256 2.039 / 2.053 -> 2.067 / 2.064.
  /// Session 19 (register split by PRMT, tiles claimed in order), same
  /// run, ms, uniform / skewed, block_wide_spread -> the digit rank alone:
  /// m = 65 1.431 / 1.554 -> 1.501 / 1.467, m = 96 1.669 / 1.571 -> 1.528 /
  /// 1.478, m = 128 1.558 / 1.603 -> 1.549 / 1.488 (the worse of the two
  /// 1.45-1.50x -> 1.56-1.60x CUB); at 8 bits the peer masks still win on
  /// skewed ids (m = 129 1.605 against 1.685, m = 256 1.733 against
  /// 1.796), so keys take block_wide_spread from 129.
  static constexpr std::uint32_t kDigitsMinBuckets = 2;
  static constexpr std::uint32_t kSpreadMinBuckets = 129;
  static constexpr std::uint32_t kSpreadPairsMinBuckets = 65;
  /// block_wide_spread's peer-mask tiles (8 warps) split a digit tile (of
  /// 5,120 keys, or 10,240 pairs) into tiles of the most items a
  /// thread that divide it, up to this (or block_wide's own wide_items, if
  /// more): keys 20; pairs 10. Session 17, under 4,096-pair digit
  /// tiles, pairs at 16 (2 blocks an SM) against 8 (4 blocks), same run,
  /// skewed m = 33 / 64 / 65: 1.126 / 1.131 / 1.134 -> 1.037 / 1.049 / 1.053
  /// ms, m = 128 1.156 -> 1.166; keys at 10 against 20: uniform m = 65 1.461
  /// -> 1.831. Session 18, peer tiles of 16 warps x 10 pairs under the
  /// 10,240-pair tiles: skewed m = 65 / 256 1.235 / 1.298 against 8 warps'
  /// 1.100 / 1.130.
  static constexpr int kSpreadPeerItems = 16;
  /// block_wide_spread takes the peer masks below this many effective
  /// buckets (detail/spread_choice.cuh), the digit rank from it up: THE
  /// place to set from multisplit_bench's block_wide_peers and
  /// block_wide_digits_one rows. Measured (H100, 2^28 keys, session
  /// 17, ms, peers / digits): uniform m = 65 1.445 / 1.799, 96 1.522 /
  /// 1.820, 128 1.896 / 1.744, 129 1.841 / 1.871, 192 2.229 / 1.996, 256
  /// 2.473 / 2.084; skewed (3 effective) m = 65..256 peers ahead by 8-14%.
  /// So between 96 and 128 then. Session 20, after the digit rank's faster
  /// counter-split store (bench/NOTES.md multisplit step 27; keys take
  /// block_wide_spread only from 129): skewed m = 129 / 192 / 256 digits
  /// 1.548 / 1.603 / 1.655 against the peer masks' 1.596 / 1.647 / 1.727, so
  /// at 3 effective buckets the digit rank wins; set below that, at 2
  /// (ids mostly in one bucket, where the peer masks meet one peer group a
  /// warp; the region below 3 is not measured).
  static constexpr double kSpreadPeersBelow = 2;
  /// The same for pairs (2^27, session 17, ms, block_wide_spread with
  /// each rank chosen / digits): uniform m = 65..256 level (the digit rank
  /// chosen; block_wide_peers on its own 3,072-pair tiles 1.63-2.83), skewed
  /// m = 65 / 128 / 192 / 256 1.132 / 1.320, 1.152 / 1.345, 1.150 / 1.548,
  /// 1.185 / 1.572. Set between 3 and 65, not measured in between.
  static constexpr double kSpreadPairsPeersBelow = 16;
  /// `automatic` takes block_wide_digits_one for pairs from
  /// kDigitsPairsMinBuckets to kSpreadPairsMinBuckets - 1 (one block of 16
  /// warps an SM on 10,240-pair tiles; from 65 on the same tiles it is
  /// block_wide_spread's digit rank; block below until session 19).
  /// Measured (H100, 2^27 pairs, ms; session 15, block -> digit rank): uniform m = 8 / 16 / 32 / 64 1.008 / 1.052
  /// / 1.108 / 1.426 -> 0.989 / 1.021 / 1.078 / 1.165, skewed 0.987 / 1.016 / 1.052 / 1.080 -> 0.961 / 0.987 / 0.999
  /// / 1.171 (at m = 64 the worse of the two 1.426 -> 1.171); m = 2 / 4 block 0.948 / 0.963 against 0.988 / 0.990.
  /// Session 16, with the low-bit register split past 64 (bench/NOTES.md multisplit step 23): m = 128 uniform / skewed
  /// block 1.813 / 1.165 -> 1.426 / 1.363 (the worse of the two 0.86x -> 1.09x CUB), m = 256 2.588 / 1.391 -> 1.510
  /// / 1.573 (0.68x -> 0.93x). Skewed ids alone would keep block, and so would a costly bucket functor, which the digit
  /// rank applies three times (key % m: at m = 65 block 1.392 / 1.083 against 1.720 / 1.331, at m = 129 1.746 / 1.205
  /// against 2.402 / 1.524). Session 19, 16 warps at every width, same run (two reps alike), uniform / skewed, block
  /// (votes) -> digit rank: m = 2 0.940 / 0.942 -> 0.928 / 0.934, m = 4 0.961 / 0.965 -> 0.936 / 0.940, m = 7 0.997 /
  /// 0.986 -> 0.945 / 0.943: from 2, as keys.
  static constexpr std::uint32_t kDigitsPairsMinBuckets = 2;
  /// block_wide's warp rank: votes (counts first, vote_place) from this m
  /// up, peer masks below: THE place to set from multisplit_bench's
  /// block_wide_votes and block_wide_peers rows. Predicted (step 17), so
  /// 257 (peers everywhere): per 32 keys at m = 256 the peer masks cost ~29
  /// shared-memory wavefronts (~1.0 ms of the post-scan over 2^28 keys, its
  /// limit) and the votes ~15, but the votes' nine ballots cost ~49 more
  /// instructions an item row (sm_90 code for 16 items: 2,320-2,800
  /// instructions against 1,536-2,008 with peers), ~1.1-1.2 ms of issue at
  /// every m; below m = 256 the masks' bank conflicts ease and peers lead.
  static constexpr std::uint32_t kWideVotesMinBuckets = 257;
};
using tuning = tuning_sm90;

inline int id_bits(std::uint32_t m) { return m <= 1 ? 0 : 32 - __builtin_clz(m - 1); }

inline bool is_block(multisplit_method method) {
  return method == multisplit_method::block || method == multisplit_method::block_votes ||
         method == multisplit_method::block_peers;
}

/// The block method with the wide post-scan, its warp rank chosen or forced.
inline bool is_wide(multisplit_method method) {
  return method == multisplit_method::block_wide || method == multisplit_method::block_wide_votes ||
         method == multisplit_method::block_wide_peers;
}

/// Whether `automatic` takes block_wide_spread at m (<= 256) for keys
/// alone or for pairs.
inline bool spread_for(std::uint32_t m, bool pairs) {
  return m >= (pairs ? tuning::kSpreadPairsMinBuckets : tuning::kSpreadMinBuckets);
}

/// Whether `automatic` takes block_wide_digits_one at m (<= 256) for keys
/// alone or for pairs.
inline bool digits_for(std::uint32_t m, bool pairs) {
  return m >= (pairs ? tuning::kDigitsPairsMinBuckets : tuning::kDigitsMinBuckets) && !spread_for(m, pairs);
}

/// The wide post-scan with the digit rank, alone or as block_wide_spread's choice.
inline bool is_digits(multisplit_method method) {
  return method == multisplit_method::block_wide_digits_one || method == multisplit_method::block_wide_spread;
}

/// The methods whose tiles block_multisplit_tile or the wide post-scans split: m <= 256.
inline bool splits_tiles(multisplit_method method) {
  return is_block(method) || is_wide(method) || method == multisplit_method::onesweep || is_digits(method);
}

/// The wide post-scan's warp rank: forced by block_wide_votes and
/// block_wide_peers, chosen by m (tuning::kWideVotesMinBuckets) otherwise.
inline tile_rank wide_rank_of(multisplit_method method, std::uint32_t m) {
  if (method == multisplit_method::block_wide_votes) return tile_rank::votes;
  if (method == multisplit_method::block_wide_peers) return tile_rank::peer_masks;
  return m >= tuning::kWideVotesMinBuckets ? tile_rank::votes : tile_rank::peer_masks;
}

/// `block_wide` with the rank it takes at m made explicit (multisplit_bench's "(auto)" mark).
inline multisplit_method wide_with_rank(std::uint32_t m) {
  return wide_rank_of(multisplit_method::block_wide, m) == tile_rank::votes ? multisplit_method::block_wide_votes
                                                                            : multisplit_method::block_wide_peers;
}

/// The warp rank of a block or one-sweep split: forced by block_votes and
/// block_peers, chosen by m (tuning::kPeerMasksMinBuckets and
/// kPeerMasksMaxBuckets) otherwise.
inline tile_rank rank_of(multisplit_method method, std::uint32_t m) {
  if (method == multisplit_method::block_votes) return tile_rank::votes;
  if (method == multisplit_method::block_peers) return tile_rank::peer_masks;
  return m >= tuning::kPeerMasksMinBuckets && m <= tuning::kPeerMasksMaxBuckets ? tile_rank::peer_masks
                                                                                : tile_rank::votes;
}

/// `block` with the warp rank it takes at m made explicit, so that callers
/// (multisplit_bench's "(auto)" mark) see which rank runs.
inline multisplit_method block_with_rank(std::uint32_t m) {
  return rank_of(multisplit_method::block, m) == tile_rank::peer_masks ? multisplit_method::block_peers
                                                                       : multisplit_method::block_votes;
}

/// The method that runs: `automatic` and `block` resolved (block as
/// block_votes or block_peers), the others checked against m and n.
/// `pairs`: values move with the keys.
inline multisplit_method resolve(multisplit_method method, std::uint32_t m, std::size_t n, bool pairs) {
  GRAPHKIT_EXPECTS(m != 0, "multisplit: the number of buckets must be at least 1");
  if (method == multisplit_method::automatic)
    return m <= tuning::kWarpMethodMaxBuckets                               ? multisplit_method::warp
           : m > kMultisplitBlockMaxBuckets                                 ? multisplit_method::radix_sort
           : m >= tuning::kOnesweepMinBuckets && n < kOnesweepMaxItems      ? multisplit_method::onesweep
           : digits_for(m, pairs)                                           ? multisplit_method::block_wide_digits_one
           : spread_for(m, pairs)                                           ? multisplit_method::block_wide_spread
           : m >= tuning::kWideMinBuckets && (!pairs || tuning::kWidePairs) ? wide_with_rank(m)
                                                                            : block_with_rank(m);
  if (method == multisplit_method::warp && m > kMultisplitWarpMaxBuckets)
    throw error("multisplit: the warp method takes at most 32 buckets, asked for " + std::to_string(m));
  if (splits_tiles(method) && m > kMultisplitBlockMaxBuckets)
    throw error("multisplit: the block and onesweep methods take at most 256 buckets, asked for " + std::to_string(m));
  if (method == multisplit_method::onesweep && n >= kOnesweepMaxItems)
    throw error("multisplit: the onesweep method takes fewer than 2^30 items (30-bit look-back counts), asked for " +
                std::to_string(n));
  return method == multisplit_method::block        ? block_with_rank(m)
         : method == multisplit_method::block_wide ? wide_with_rank(m)
                                                   : method;
}

using graphkit::blocks_for;

template <class Key, class Value, class BucketOf>
void radix_split(const Key* keys_in, const Value* values_in, Key* keys_out, Value* values_out, std::size_t n,
                 std::uint32_t m, BucketOf bucket_of, std::uint32_t* offsets, multisplit_workspace& ws,
                 cudaStream_t stream, bool offsets_only) {
  if (n == 0) {  // nothing to sort, and a launch of zero blocks is an error
    GRAPHKIT_CUDA_TRY(cudaMemsetAsync(offsets, 0, (std::size_t{m} + 1) * sizeof(std::uint32_t), stream));
    return;
  }
  std::uint32_t* ids = ws.scratch(ws.ids_, n);
  std::uint32_t* sorted_ids = ws.scratch(ws.sorted_ids_, n);
  std::uint32_t* order = ws.scratch(ws.order_, n);
  std::uint32_t* sorted_order = ws.scratch(ws.sorted_order_, n);
  constexpr unsigned kThreads = 256;
  classify<<<blocks_for(n, kThreads), kThreads, 0, stream>>>(keys_in, n, m, bucket_of, ids, order,
                                                             ws.out_of_range_.data());
  GRAPHKIT_CHECK_LAUNCH();
  // Sort on the bits of m itself, so that out-of-range items (id m) sort last.
  const int end_bit = std::max(1, id_bits(m + 1));
  std::size_t temp_bytes = 0;
  GRAPHKIT_CUDA_TRY(cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, ids, sorted_ids, order, sorted_order,
                                                    static_cast<int>(n), 0, end_bit, stream));
  void* temp = ws.scratch(ws.cub_temp_, temp_bytes);
  GRAPHKIT_CUDA_TRY(cub::DeviceRadixSort::SortPairs(temp, temp_bytes, ids, sorted_ids, order, sorted_order,
                                                    static_cast<int>(n), 0, end_bit, stream));
  offsets_from_sorted<<<blocks_for(n, kThreads), kThreads, 0, stream>>>(sorted_ids, n, m, offsets);
  GRAPHKIT_CHECK_LAUNCH();
  if (offsets_only) return;
  gather_sorted<<<blocks_for(n, kThreads), kThreads, 0, stream>>>(keys_in, values_in, sorted_order, offsets, m,
                                                                  keys_out, values_out);
  GRAPHKIT_CHECK_LAUNCH();
}

/// The one-sweep method (see detail/onesweep.cuh): a histogram pass that
/// also writes the offsets, then, unless offsets_only, the one-sweep pass,
/// which ranks its tiles by `rank`.
template <class Key, class Value, class BucketOf>
void onesweep_split(const Key* keys_in, const Value* values_in, Key* keys_out, Value* values_out, std::size_t n,
                    std::uint32_t m, BucketOf bucket_of, std::uint32_t* offsets, multisplit_workspace& ws,
                    cudaStream_t stream, bool offsets_only, tile_rank rank) {
  constexpr int kWarps = tuning::kWarps;
  constexpr int kItems = tuning::onesweep_items<Key, Value>();
  constexpr std::size_t kTile = std::size_t{kWarps} * 32 * kItems;
  const std::size_t tiles = (n + kTile - 1) / kTile;
  const std::size_t lookback_words = offsets_only ? 0 : tiles * m;
  auto* counters = reinterpret_cast<onesweep_counters*>(
      ws.scratch(ws.onesweep_counters_, sizeof(onesweep_counters) / sizeof(std::uint32_t)));
  std::uint32_t* lookback = ws.scratch(ws.lookback_, lookback_words);
  GRAPHKIT_CUDA_TRY(cudaMemsetAsync(counters, 0, sizeof(onesweep_counters), stream));
  GRAPHKIT_CUDA_TRY(cudaMemsetAsync(ws.out_of_range_.data(), 0, sizeof(std::uint32_t), stream));
  // The histogram pass reads keys only; its blocks walk tiles of their own
  // size grid-stride, so the grid is one resident wave (a partial second
  // wave would leave most SMs idle at the end). It also zeroes the
  // look-back words.
  constexpr int kHistogramItems = tuning::block_items<Key, no_value>();
  const auto histogram = onesweep_histogram<kWarps, kHistogramItems, Key, BucketOf>;
  static const unsigned per_sm = resident_blocks_per_sm(histogram, kWarps * 32);
  const std::size_t histogram_tiles =
      (n + std::size_t{kWarps} * 32 * kHistogramItems - 1) / (std::size_t{kWarps} * 32 * kHistogramItems);
  const unsigned histogram_grid =
      grid_stride_blocks(std::max(histogram_tiles, lookback_words / (kWarps * 32)), 1, per_sm);
  histogram<<<histogram_grid, kWarps * 32, 0, stream>>>(keys_in, n, m, bucket_of,
                                                        reinterpret_cast<std::uintptr_t>(keys_in) % 16 == 0, counters,
                                                        lookback, lookback_words, offsets, ws.out_of_range_.data());
  GRAPHKIT_CHECK_LAUNCH();
  if (offsets_only || tiles == 0) return;
  onesweep_scatter<kWarps, kItems><<<static_cast<unsigned>(tiles), kWarps * 32, 0, stream>>>(
      keys_in, values_in, keys_out, values_out, n, m, bucket_of, offsets, counters, lookback, rank);
  GRAPHKIT_CHECK_LAUNCH();
}

/// The block methods' global scan: `histogram` (m x units + 1 cells,
/// bucket-major, the last one zero) to exclusive sums in place, then the
/// m + 1 offsets (each bucket's base in unit 0, and the total).
inline void scan_matrix(std::uint32_t* histogram, std::size_t cells, std::size_t units, std::uint32_t m,
                        std::uint32_t* offsets, multisplit_workspace& ws, cudaStream_t stream) {
  std::size_t temp_bytes = 0;
  GRAPHKIT_CUDA_TRY(cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, histogram, histogram, cells, stream));
  void* temp = ws.scratch(ws.cub_temp_, temp_bytes);
  GRAPHKIT_CUDA_TRY(cub::DeviceScan::ExclusiveSum(temp, temp_bytes, histogram, histogram, cells, stream));
  gather_offsets<<<blocks_for(std::size_t{m} + 1, 256), 256, 0, stream>>>(histogram, units, m, offsets);
  GRAPHKIT_CHECK_LAUNCH();
}

/// The wide post-scans' first two steps: the block method's pre-scan on
/// `tiles` tiles of Warps x 32 x Items items and the scan of its matrix,
/// which it returns (m x tiles cells and a last one for the total,
/// bucket-major, scanned flat by scan_matrix; TileMajor: tile-major rows
/// scanned down their columns, column_scan.cuh); the offsets are written.
template <int Items, int Warps, bool TileMajor, class Key, class BucketOf>
const std::uint32_t* count_wide_tiles(const Key* keys_in, std::size_t n, std::uint32_t m, BucketOf bucket_of,
                                      std::uint32_t* offsets, multisplit_workspace& ws, cudaStream_t stream,
                                      std::size_t tiles) {
  constexpr int kWarps = Warps, kThreads = kWarps * 32;
  GRAPHKIT_CUDA_TRY(cudaMemsetAsync(ws.out_of_range_.data(), 0, sizeof(std::uint32_t), stream));
  const bool vectorized = reinterpret_cast<std::uintptr_t>(keys_in) % 16 == 0;
  if constexpr (TileMajor) {
    static_assert(Items * kThreads < (1 << 16), "a tile's counts fit the matrix's 16 bits");
    std::uint32_t* cells = ws.scratch(ws.histogram_, tile_major_layout::words(tiles, m));
    if (tiles == 0) {
      GRAPHKIT_CUDA_TRY(cudaMemsetAsync(offsets, 0, (std::size_t{m} + 1) * sizeof(std::uint32_t), stream));
      return cells;
    }
    // The look-back words (64-bit) and the ticket after them, zeroed
    // together before the pre-scan, so that the scan is chained to it.
    const std::size_t chunks = column_scan_chunks(tiles), words = chunks * m;
    auto* lookback = reinterpret_cast<std::uint64_t*>(ws.scratch(ws.lookback_, 2 * (words + 1)));
    GRAPHKIT_CUDA_TRY(cudaMemsetAsync(lookback, 0, (words + 1) * sizeof(std::uint64_t), stream));
    block_prescan<kWarps, Items><<<static_cast<unsigned>(tiles), kThreads, 0, stream>>>(
        keys_in, n, m, bucket_of, tile_rows{tile_major_layout::counts(cells, tiles, m), m}, vectorized,
        ws.out_of_range_.data());
    GRAPHKIT_CHECK_LAUNCH();
    launch_chained(scan_columns, static_cast<unsigned>(chunks), kColumnScanThreads, stream, cells, tiles, m, lookback,
                   reinterpret_cast<std::uint32_t*>(lookback + words), offsets);
    return cells;
  } else {
    const std::size_t cells = std::size_t{m} * tiles + 1;  // + 1: the scan's total lands there
    std::uint32_t* histogram = ws.scratch(ws.histogram_, cells);
    GRAPHKIT_CUDA_TRY(cudaMemsetAsync(histogram + cells - 1, 0, sizeof(std::uint32_t), stream));
    if (tiles > 0) {
      block_prescan<kWarps, Items><<<static_cast<unsigned>(tiles), kThreads, 0, stream>>>(
          keys_in, n, m, bucket_of, bucket_major_cells{histogram, tiles}, vectorized, ws.out_of_range_.data());
      GRAPHKIT_CHECK_LAUNCH();
    }
    scan_matrix(histogram, cells, tiles, m, offsets, ws, stream);
    return histogram;
  }
}

/// Blocks per SM that the H100's 228 KB of shared memory hold at `bytes` of
/// dynamic shared memory a block (1 KB of it reserved per block), at most 4:
/// the persistent post-scans' register cap follows from it.
constexpr int persistent_min_blocks(std::size_t bytes) {
  return std::clamp(static_cast<int>(228 * 1024 / (bytes + 1024)), 1, 4);
}

/// Launches a persistent post-scan (Kernel) of `threads` threads and `bytes`
/// of dynamic shared memory, more than the 48 KB a kernel gets unasked (the
/// attribute set once per kernel): as many blocks as stay resident, at most
/// one per tile; in clusters of Cluster blocks where Cluster > 1 (sm_90,
/// device_launches_clusters), as many whole clusters as stay resident, at
/// most one per Cluster tiles. Chained to the stream's previous kernel
/// (common/chained_launch.cuh): the kernel waits for it first.
template <auto Kernel, int Cluster = 1, class... Args>
void launch_persistent(int threads, std::size_t bytes, std::size_t tiles, cudaStream_t stream, Args... args) {
  cudaLaunchAttribute attributes[2] = {chained_launch_attribute(), {}};
  attributes[1].id = cudaLaunchAttributeClusterDimension;
  attributes[1].val.clusterDim.x = Cluster;
  attributes[1].val.clusterDim.y = 1;
  attributes[1].val.clusterDim.z = 1;
  cudaLaunchConfig_t config{};
  config.blockDim = dim3(static_cast<unsigned>(threads));
  config.dynamicSmemBytes = bytes;
  config.stream = stream;
  const bool chained = device_chains_launches();
  config.attrs = chained ? attributes : attributes + 1;
  config.numAttrs = (chained ? 1 : 0) + (Cluster > 1 ? 1 : 0);
  static const std::size_t resident_groups = [&] {
    GRAPHKIT_CUDA_TRY(
        cudaFuncSetAttribute(Kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)));
    if constexpr (Cluster == 1) {
      return std::size_t{resident_blocks_per_sm(Kernel, threads, bytes)} * device_sm_count();
    } else {
      config.gridDim = dim3(Cluster * device_sm_count());  // any whole number of clusters
      int clusters = 0;
      GRAPHKIT_CUDA_TRY(cudaOccupancyMaxActiveClusters(&clusters, Kernel, &config));
      return std::size_t{clusters < 1 ? 1u : static_cast<unsigned>(clusters)};
    }
  }();
  const std::size_t groups = std::min((tiles + Cluster - 1) / Cluster, resident_groups);
  config.gridDim = dim3(static_cast<unsigned>(groups * Cluster));
  GRAPHKIT_CUDA_TRY(cudaLaunchKernelEx(&config, Kernel, args...));
  GRAPHKIT_CHECK_LAUNCH();
}

/// block_wide's post-scan with the warp rank `rank`, on tiles of Items
/// items a thread, Sub of them a tile of the scanned matrix (`tiles` of
/// them, tile-major where TileMajor): a persistent grid of wide_postscan
/// (as many blocks as stay resident, at most one per matrix tile), which
/// needs more than the 48 KB of static shared memory. `gate`: see choice_gate.
template <int Items, int Sub, bool TileMajor, class Key, class Value, class BucketOf>
void wide_post(const Key* keys_in, const Value* values_in, Key* keys_out, Value* values_out, std::size_t n,
               std::uint32_t m, BucketOf bucket_of, const std::uint32_t* histogram, std::size_t tiles,
               cudaStream_t stream, tile_rank rank, choice_gate gate) {
  constexpr int kWarps = tuning::kWarps, kThreads = kWarps * 32;
  using storage = wide_storage<kWarps, Items, Key, Value, std::is_same_v<BucketOf, bucket_ids_of>, TileMajor>;
  constexpr int kMinBlocks = persistent_min_blocks(sizeof(storage));
  // One kernel per warp rank, each with its own attribute and occupancy.
  const auto launch = [&]<tile_rank How>() {
    launch_persistent<wide_postscan<kWarps, Items, Sub, kMinBlocks, How, TileMajor, Key, Value, BucketOf>>(
        kThreads, sizeof(storage), tiles, stream, keys_in, values_in, keys_out, values_out, n, m, bucket_of, histogram,
        tiles, gate);
  };
  if (rank == tile_rank::votes) launch.template operator()<tile_rank::votes>();
  else launch.template operator()<tile_rank::peer_masks>();
}

/// The block method with the wide post-scan (block_wide, detail/wide_tile.cuh):
/// the pre-scan and the matrix scan on tiles of tuning::wide_items(), then
/// a persistent grid of wide_postscan (as many blocks as stay resident,
/// at most one per tile), which needs more than the 48 KB of static shared
/// memory.
template <class Key, class Value, class BucketOf>
void wide_split(const Key* keys_in, const Value* values_in, Key* keys_out, Value* values_out, std::size_t n,
                std::uint32_t m, BucketOf bucket_of, std::uint32_t* offsets, multisplit_workspace& ws,
                cudaStream_t stream, bool offsets_only, tile_rank rank) {
  constexpr int kItems = tuning::wide_items<Key, Value>();
  const std::size_t tiles = blocks_for(n, tuning::kWarps * 32 * kItems);
  const std::uint32_t* histogram =
      count_wide_tiles<kItems, tuning::kWarps, false>(keys_in, n, m, bucket_of, offsets, ws, stream, tiles);
  if (offsets_only || tiles == 0) return;
  wide_post<kItems, 1, false>(keys_in, values_in, keys_out, values_out, n, m, bucket_of, histogram, tiles, stream, rank,
                              {});
}

/// Calls f.template operator()<IdBits>() at block_wide_digits_one's width
/// at m, digits_one_bits(m), as a compile-time constant.
template <class F>
void at_digit_width(std::uint32_t m, F&& f) {
  switch (digits_one_bits(m)) {
    case 4: return f.template operator()<4>();
    case 5: return f.template operator()<5>();
    case 6: return f.template operator()<6>();
    case 7: return f.template operator()<7>();
    default: return f.template operator()<8>();
  }
}

/// block_wide_digits_one's tile on IdBits-bit ids, in items (staged bucket
/// bytes count against pairs' 8-bit tiles).
template <int IdBits, class Key, class Value, class BucketOf>
constexpr int digits_one_tile_for() {
  return wide_digits_one_tile<Key, Value, IdBits, std::is_same_v<BucketOf, bucket_ids_of>>();
}

/// block_wide_digits_one's post-scan (detail/wide_digits_one.cuh) on
/// IdBits-bit ids, on the scanned matrix of its tiles
/// (digits_one_tile_for): a persistent grid of wide_digits_one_postscan,
/// which orders each tile by one counter split on a digit of up to 6 bits,
/// after a register split on the low bits past 6. `claims`: its tile
/// counter, zeroed by the caller. `gate`: see choice_gate.
template <int IdBits, class Key, class Value, class BucketOf>
void wide_digits_one_post(const Key* keys_in, const Value* values_in, Key* keys_out, Value* values_out, std::size_t n,
                          std::uint32_t m, BucketOf bucket_of, const std::uint32_t* histogram, std::size_t tiles,
                          std::uint32_t* claims, cudaStream_t stream, choice_gate gate) {
  constexpr int kWarps = wide_digits_one_warps<Value, IdBits>(), kThreads = kWarps * 32;
  constexpr int kItems = digits_one_tile_for<IdBits, Key, Value, BucketOf>() / kThreads;
  using storage = wide_digits_one_storage<kWarps, kItems, IdBits, Key, Value, std::is_same_v<BucketOf, bucket_ids_of>,
                                          has_block_table<BucketOf>>;
  // At most the blocks it is sized for: 4-bit keys' 48 KB would allow 4, but
  // their 64-register cap spilled 20 bytes (20 item words and 20 keys live
  // at the stores).
  constexpr int kMinBlocks = std::min(persistent_min_blocks(sizeof(storage)), wide_digits_one_blocks<Value, IdBits>());
  const auto launch = [&]<int Cluster>() {
    launch_persistent<wide_digits_one_postscan<kWarps, kItems, IdBits, kMinBlocks, Cluster, Key, Value, BucketOf>,
                      Cluster>(kThreads, sizeof(storage), tiles, stream, keys_in, values_in, keys_out, values_out, n, m,
                               bucket_of, histogram, tiles, claims, gate);
  };
  // Pairs of blocks (8-bit keys) where the GPU has clusters; the same tiles unpaired elsewhere.
  constexpr int kCluster = wide_digits_one_cluster<Value, IdBits>();
  if constexpr (kCluster > 1)
    if (device_launches_clusters()) return launch.template operator()<kCluster>();
  launch.template operator()<1>();
}

/// Whether block_wide_spread at IdBits-bit ids also launches the
/// compacted split (detail/compact_ids.cuh): past kCompactIdBits, for
/// bucket functors (precomputed ids stage their bytes on tiles of other
/// sizes), where the compacted split's tile is the wide split's.
template <int IdBits, class Key, class Value, class BucketOf>
constexpr bool compacts_ids() {
  if constexpr (IdBits <= kCompactIdBits || std::is_same_v<BucketOf, bucket_ids_of>) return false;
  else
    return digits_one_tile_for<kCompactIdBits, Key, Value, compacted_ids<BucketOf>>() ==
           digits_one_tile_for<IdBits, Key, Value, BucketOf>();
}

/// block_wide_spread's choice with the compacted split beside its other
/// two, and the compacted split behind its gate: its tables, its matrix
/// from the wide split's scanned `matrix` (TileMajor as there), and
/// block_wide_digits_one's post-scan at kCompactIdBits on the compact ids.
/// Writes the choice word that the other two post-scans' gates read.
/// `claims`: the compacted post-scan's tile counter, zeroed by the caller.
template <bool TileMajor, class Key, class Value, class BucketOf>
void compact_post(const Key* keys_in, const Value* values_in, Key* keys_out, Value* values_out, std::size_t n,
                  std::uint32_t m, BucketOf bucket_of, const std::uint32_t* offsets, const std::uint32_t* matrix,
                  std::size_t tiles, double peers_below, std::uint32_t* choice, std::uint32_t* claims,
                  multisplit_workspace& ws, cudaStream_t stream) {
  const compact_tables tables = compact_tables::in(ws.scratch(ws.compact_tables_, compact_tables::kWords));
  launch_chained(choose_spread_or_compact, 1, kChoiceThreads, stream, offsets, m, peers_below, choice, tables);
  const choice_gate gate{choice, kCompactIdsChosen};
  std::uint32_t* cells = ws.scratch(ws.compact_matrix_, kCompactBuckets * tiles + 1);
  launch_chained(compact_matrix<TileMajor>, blocks_for(tiles, kCompactMatrixTiles), kCompactMatrixThreads, stream,
                 matrix, tiles, m, offsets, tables.bucket_of, gate, cells);
  wide_digits_one_post<kCompactIdBits>(keys_in, values_in, keys_out, values_out, n, kCompactBuckets,
                                       compacted_ids<BucketOf>{bucket_of, tables.compact_of, m}, cells, tiles, claims,
                                       stream, gate);
}

/// Items a thread of block_wide_spread's peer-mask tiles under a digit
/// tile of DigitItems (tuning::kSpreadPeerItems): 20 of 20 for keys; for
/// pairs 10 of 20, 16 of 16, 11 of 44, 10 of 40.
template <int DigitItems, class Key, class Value>
constexpr int spread_peer_items() {
  int items = std::max(tuning::wide_items<Key, Value>(), tuning::kSpreadPeerItems);
  while (DigitItems % items != 0) --items;
  return items;
}

/// block_wide_digits_one at the width digits_one_bits(m) (m <= 256, as
/// resolve() checks): the pre-scan and matrix scan on its tiles, then its
/// post-scan. `spread` (block_wide_spread, detail/spread_choice.cuh): the
/// device chooses between that post-scan and block_wide's peer masks
/// (concentrated ids) from the offsets, and both are launched, each behind
/// a choice_gate, so that the host never waits for the counts (the one not
/// chosen returns at once); the peer masks split each digit tile as a few
/// tiles of their own size (spread_peer_items).
template <class Key, class Value, class BucketOf>
void digits_one_split(const Key* keys_in, const Value* values_in, Key* keys_out, Value* values_out, std::size_t n,
                      std::uint32_t m, BucketOf bucket_of, std::uint32_t* offsets, multisplit_workspace& ws,
                      cudaStream_t stream, bool offsets_only, bool spread) {
  at_digit_width(m, [&]<int IdBits>() {
    // The pre-scan runs the post-scan's warps (wide_digits_one_warps) on the
    // same tile: on 8 warps, 10,240-pair tiles (40 items a thread) were
    // counted at 70% of DRAM bandwidth, against 88% for 20 (session 18).
    // The peer masks run 8 warps on tiles of their own (spread_peer_items).
    constexpr int kTile = digits_one_tile_for<IdBits, Key, Value, BucketOf>();
    constexpr int kWarps = wide_digits_one_warps<Value, IdBits>();
    constexpr int kItems = kTile / (kWarps * 32), kColumnItems = kTile / (tuning::kWarps * 32);
    constexpr bool kTileMajor = tile_major_matrix<Value, IdBits>();
    static_assert(kColumnItems * tuning::kWarps * 32 == kTile, "the peer masks' threads share the tile evenly");
    const std::size_t tiles = blocks_for(n, kTile);
    // The post-scans' tile counters (the digit rank's, the compacted
    // split's), zeroed before the pre-scan, so that every kernel from the
    // matrix scan on is chained to the one before (common/chained_launch.cuh).
    std::uint32_t* claims = ws.scratch(ws.tile_claims_, 2);
    if (!offsets_only) GRAPHKIT_CUDA_TRY(cudaMemsetAsync(claims, 0, 2 * sizeof(std::uint32_t), stream));
    const std::uint32_t* matrix =
        count_wide_tiles<kItems, kWarps, kTileMajor>(keys_in, n, m, bucket_of, offsets, ws, stream, tiles);
    if (offsets_only || tiles == 0) return;
    choice_gate digits{};
    if (spread) {
      std::uint32_t* choice = ws.scratch(ws.spread_choice_, 1);
      const double peers_below = kHasValues<Value> ? tuning::kSpreadPairsPeersBelow : tuning::kSpreadPeersBelow;
      if constexpr (compacts_ids<IdBits, Key, Value, BucketOf>()) {
        compact_post<kTileMajor>(keys_in, values_in, keys_out, values_out, n, m, bucket_of, offsets, matrix, tiles,
                                 peers_below, choice, claims + 1, ws, stream);
      } else {
        launch_chained(choose_by_spread, 1, kChoiceThreads, stream, offsets, m, peers_below, choice);
      }
      constexpr int kPeerItems = spread_peer_items<kColumnItems, Key, Value>();
      wide_post<kPeerItems, kColumnItems / kPeerItems, kTileMajor>(
          keys_in, values_in, keys_out, values_out, n, m, bucket_of, matrix, tiles, stream, tile_rank::peer_masks,
          choice_gate{choice, kPeerMasksChosen});
      digits = choice_gate{choice, kDigitRankChosen};
    }
    wide_digits_one_post<IdBits>(keys_in, values_in, keys_out, values_out, n, m, bucket_of, matrix, tiles, claims,
                                 stream, digits);
  });
}

template <class Key, class Value, class BucketOf>
void run(const Key* keys_in, const Value* values_in, Key* keys_out, Value* values_out, std::size_t n, std::uint32_t m,
         BucketOf bucket_of, std::uint32_t* offsets, multisplit_workspace& ws, cudaStream_t stream,
         multisplit_method method, bool offsets_only) {
  if (n >= std::numeric_limits<std::uint32_t>::max())
    throw error("multisplit: " + std::to_string(n) + " items; at most 2^32 - 2 are supported (32-bit offsets)");
  const bool automatic = method == multisplit_method::automatic;
  method = resolve(method, m, n, kHasValues<Value>);
  constexpr std::size_t kBlockTile = std::size_t{tuning::kWarps} * 32 * tuning::block_items<Key, Value>();
  // Offsets alone: the one-sweep histogram pass is the whole job (no matrix).
  if (automatic && offsets_only && (is_block(method) || is_wide(method)) && n < kOnesweepMaxItems)
    method = multisplit_method::onesweep;
  // One block tile: the block method's single-launch path (block_postscan).
  if (automatic && !offsets_only && (method == multisplit_method::onesweep || is_wide(method) || is_digits(method)) &&
      n <= kBlockTile)
    method = block_with_rank(m);
  if (is_digits(method))
    return digits_one_split(keys_in, values_in, keys_out, values_out, n, m, bucket_of, offsets, ws, stream,
                            offsets_only, method == multisplit_method::block_wide_spread);
  if (is_wide(method))
    return wide_split(keys_in, values_in, keys_out, values_out, n, m, bucket_of, offsets, ws, stream, offsets_only,
                      wide_rank_of(method, m));
  const tile_rank rank = rank_of(method, m);
  if (method == multisplit_method::onesweep)
    return onesweep_split(keys_in, values_in, keys_out, values_out, n, m, bucket_of, offsets, ws, stream, offsets_only,
                          rank);
  if (method == multisplit_method::radix_sort) {
    GRAPHKIT_CUDA_TRY(cudaMemsetAsync(ws.out_of_range_.data(), 0, sizeof(std::uint32_t), stream));
    return radix_split(keys_in, values_in, keys_out, values_out, n, m, bucket_of, offsets, ws, stream, offsets_only);
  }

  constexpr int kWarps = tuning::kWarps;
  const bool warp_method = method == multisplit_method::warp;
  constexpr int kBlockItems = tuning::block_items<Key, Value>();
  const std::size_t unit_items = warp_method ? 32 * tuning::kWarpItems : kWarps * 32 * kBlockItems;
  const std::size_t units = (n + unit_items - 1) / unit_items;
  if (!warp_method && units == 1 && !offsets_only) {  // one tile: one launch, see block_postscan
    block_postscan<kWarps, kBlockItems>
        <<<1, kWarps * 32, 0, stream>>>(keys_in, values_in, keys_out, values_out, n, m, bucket_of, nullptr, 1, rank,
                                        single_tile_outputs{offsets, ws.out_of_range_.data()});
    GRAPHKIT_CHECK_LAUNCH();
    return;
  }
  GRAPHKIT_CUDA_TRY(cudaMemsetAsync(ws.out_of_range_.data(), 0, sizeof(std::uint32_t), stream));
  const std::size_t cells = std::size_t{m} * units + 1;  // + 1: the scan's total lands there
  std::uint32_t* histogram = ws.scratch(ws.histogram_, cells);
  GRAPHKIT_CUDA_TRY(cudaMemsetAsync(histogram + cells - 1, 0, sizeof(std::uint32_t), stream));
  const unsigned grid = warp_method ? blocks_for(units, kWarps) : static_cast<unsigned>(units);
  const int bits = id_bits(m);

  if (grid > 0) {
    if (warp_method)
      warp_prescan<kWarps, tuning::kWarpItems>
          <<<grid, kWarps * 32, 0, stream>>>(keys_in, n, m, bits, bucket_of, histogram, units, ws.out_of_range_.data());
    else
      block_prescan<kWarps, kBlockItems><<<grid, kWarps * 32, 0, stream>>>(
          keys_in, n, m, bucket_of, bucket_major_cells{histogram, units},
          reinterpret_cast<std::uintptr_t>(keys_in) % 16 == 0, ws.out_of_range_.data());
    GRAPHKIT_CHECK_LAUNCH();
  }
  scan_matrix(histogram, cells, units, m, offsets, ws, stream);
  if (offsets_only || grid == 0) return;
  if (warp_method)
    warp_postscan<kWarps, tuning::kWarpItems><<<grid, kWarps * 32, 0, stream>>>(
        keys_in, values_in, keys_out, values_out, n, m, bits, bucket_of, histogram, units);
  else
    block_postscan<kWarps, kBlockItems><<<grid, kWarps * 32, 0, stream>>>(keys_in, values_in, keys_out, values_out, n,
                                                                          m, bucket_of, histogram, units, rank);
  GRAPHKIT_CHECK_LAUNCH();
}

inline std::vector<std::uint32_t> finish(const std::uint32_t* d_offsets, std::uint32_t m,
                                         const multisplit_workspace& ws, cudaStream_t stream) {
  ws.throw_if_out_of_range(m, stream);
  std::vector<std::uint32_t> offsets(std::size_t{m} + 1);
  GRAPHKIT_CUDA_TRY(cudaMemcpyAsync(offsets.data(), d_offsets, offsets.size() * sizeof(std::uint32_t),
                                    cudaMemcpyDeviceToHost, stream));
  GRAPHKIT_CUDA_TRY(cudaStreamSynchronize(stream));
  return offsets;
}

}  // namespace multisplit_detail

// ---- multisplit_workspace ----------------------------------------------------

inline multisplit_workspace::multisplit_workspace() : out_of_range_(1) {}

template <class T>
T* multisplit_workspace::scratch(device_buffer<T>& buffer, std::size_t count) {
  if (buffer.size() < count) buffer = device_buffer<T>(std::max<std::size_t>(count, 1));
  return buffer.data();
}

inline std::uint32_t multisplit_workspace::out_of_range_count(cudaStream_t stream) const {
  std::uint32_t count = 0;
  GRAPHKIT_CUDA_TRY(cudaMemcpyAsync(&count, out_of_range_.data(), sizeof count, cudaMemcpyDeviceToHost, stream));
  GRAPHKIT_CUDA_TRY(cudaStreamSynchronize(stream));
  return count;
}

inline void multisplit_workspace::throw_if_out_of_range(std::uint32_t num_buckets, cudaStream_t stream) const {
  if (const std::uint32_t bad = out_of_range_count(stream); bad != 0)
    throw error("multisplit: " + std::to_string(bad) + " keys have bucket ids outside [0, " +
                std::to_string(num_buckets) + ")");
}

// ---- entry points --------------------------------------------------------------

template <class Key, class BucketOf>
void multisplit_keys_async(const Key* d_keys_in, Key* d_keys_out, std::size_t n, std::uint32_t num_buckets,
                           BucketOf bucket_of, std::uint32_t* d_offsets, multisplit_workspace& workspace,
                           cudaStream_t stream, multisplit_method method) {
  using multisplit_detail::no_value;
  multisplit_detail::run<Key, no_value>(d_keys_in, static_cast<const no_value*>(nullptr), d_keys_out,
                                        static_cast<no_value*>(nullptr), n, num_buckets, bucket_of, d_offsets,
                                        workspace, stream, method, false);
}

template <class Key, class BucketOf>
std::vector<std::uint32_t> multisplit_keys(const Key* d_keys_in, Key* d_keys_out, std::size_t n,
                                           std::uint32_t num_buckets, BucketOf bucket_of,
                                           multisplit_workspace& workspace, cudaStream_t stream,
                                           multisplit_method method) {
  device_buffer<std::uint32_t> offsets(std::size_t{num_buckets} + 1);
  multisplit_keys_async(d_keys_in, d_keys_out, n, num_buckets, bucket_of, offsets.data(), workspace, stream, method);
  return multisplit_detail::finish(offsets.data(), num_buckets, workspace, stream);
}

template <class Key, class Value, class BucketOf>
void multisplit_pairs_async(const Key* d_keys_in, const Value* d_values_in, Key* d_keys_out, Value* d_values_out,
                            std::size_t n, std::uint32_t num_buckets, BucketOf bucket_of, std::uint32_t* d_offsets,
                            multisplit_workspace& workspace, cudaStream_t stream, multisplit_method method) {
  multisplit_detail::run<Key, Value>(d_keys_in, d_values_in, d_keys_out, d_values_out, n, num_buckets, bucket_of,
                                     d_offsets, workspace, stream, method, false);
}

template <class Key, class Value, class BucketOf>
std::vector<std::uint32_t> multisplit_pairs(const Key* d_keys_in, const Value* d_values_in, Key* d_keys_out,
                                            Value* d_values_out, std::size_t n, std::uint32_t num_buckets,
                                            BucketOf bucket_of, multisplit_workspace& workspace, cudaStream_t stream,
                                            multisplit_method method) {
  device_buffer<std::uint32_t> offsets(std::size_t{num_buckets} + 1);
  multisplit_pairs_async(d_keys_in, d_values_in, d_keys_out, d_values_out, n, num_buckets, bucket_of, offsets.data(),
                         workspace, stream, method);
  return multisplit_detail::finish(offsets.data(), num_buckets, workspace, stream);
}

template <class Key, class BucketOf>
void multisplit_offsets_async(const Key* d_keys_in, std::size_t n, std::uint32_t num_buckets, BucketOf bucket_of,
                              std::uint32_t* d_offsets, multisplit_workspace& workspace, cudaStream_t stream) {
  using multisplit_detail::no_value;
  multisplit_detail::run<Key, no_value>(d_keys_in, static_cast<const no_value*>(nullptr), static_cast<Key*>(nullptr),
                                        static_cast<no_value*>(nullptr), n, num_buckets, bucket_of, d_offsets,
                                        workspace, stream, multisplit_method::automatic, true);
}

template <class Key, class BucketOf>
std::vector<std::uint32_t> multisplit_offsets(const Key* d_keys_in, std::size_t n, std::uint32_t num_buckets,
                                              BucketOf bucket_of, multisplit_workspace& workspace,
                                              cudaStream_t stream) {
  device_buffer<std::uint32_t> offsets(std::size_t{num_buckets} + 1);
  multisplit_offsets_async(d_keys_in, n, num_buckets, bucket_of, offsets.data(), workspace, stream);
  return multisplit_detail::finish(offsets.data(), num_buckets, workspace, stream);
}

}  // namespace graphkit
