// block_wide_spread's third post-scan, for ids wider than 6 bits that
// occupy at most 64 buckets: the bench's skewed ids (bucket b with
// probability 2^-(b+1)) fill 28-33 buckets of any m, and SSSP's buckets or
// a partition by a sparse key leave most buckets empty too. Each bucket
// that holds items gets a compact id, in bucket order, and each tile is
// ranked by block_wide_digits_one's single 6-bit counter split on the
// compact ids, as at m <= 64: no register split and its third bit, no
// peer masks. An empty bucket has no output, so compact bucket c's run is
// the run of its bucket b_c, and the compacted matrix (cell (c, t): the
// output index of b_c's first item in tile t) gives the same output as
// the wide split. The choice is made on the device from the counted
// offsets, beside block_wide_spread's other two (choice_gate), so the
// host never waits for the counts.
#pragma once

#include <cub/block/block_scan.cuh>

#include <cstddef>
#include <cstdint>

#include "primitives/common/chained_launch.cuh"
#include "primitives/multisplit/detail/choice_gate.cuh"
#include "primitives/multisplit/detail/column_scan.cuh"
#include "primitives/multisplit/detail/kernels.cuh"
#include "primitives/multisplit/detail/spread_choice.cuh"

namespace graphkit::multisplit_detail {

/// The compact ids' width, and the buckets that the compacted split has.
inline constexpr int kCompactIdBits = 6;
inline constexpr std::uint32_t kCompactBuckets = 1u << kCompactIdBits;

/// What choose_spread_or_compact writes for the compacted split: each
/// bucket's compact id (one byte a bucket, kMultisplitTileMaxBuckets), and
/// each compact id's bucket (kCompactBuckets words; m past the occupied).
struct compact_tables {
  std::uint8_t* compact_of;
  std::uint32_t* bucket_of;
  /// Both tables in `words` 32-bit words of one allocation.
  static constexpr std::size_t kWords = kMultisplitTileMaxBuckets / 4 + kCompactBuckets;
  static compact_tables in(std::uint32_t* words) {
    return {reinterpret_cast<std::uint8_t*>(words), words + kMultisplitTileMaxBuckets / 4};
  }
};

/// The bucket functor of the compacted split: the caller's bucket, as its
/// compact id; ids out of [0, m) stay out of range (kCompactBuckets).
/// `compact_of` is the global table until a block copies it into its
/// shared memory (in_block, kernels.cuh), as the post-scan does: it reads
/// the table twice an item, and read through the L1 (`__ldg`) the table
/// cost skewed ids 4-7% (H100, session 27, same run, ms: keys m = 129 /
/// 256 1.391 / 1.397 -> 1.341 / 1.352, pairs 1.097 / 1.102 -> 1.030 /
/// 1.044; ncu: the keys' post-scan 965 -> 920 us).
template <class BucketOf>
struct compacted_ids {
  BucketOf inner;
  const std::uint8_t* compact_of;
  std::uint32_t m;
  template <class Key>
  __device__ std::uint32_t operator()(const Key& key) const {
    const auto b = static_cast<std::uint32_t>(inner(key));
    return b < m ? compact_of[b] : kCompactBuckets;
  }
  /// The same functor on a copy of the table in `table` (shared memory,
  /// kBlockTableBytes), which threads 0 .. m - 1 fill.
  __device__ compacted_ids in_block(std::uint8_t* table) const {
    static_assert(kBlockTableBytes >= kMultisplitTileMaxBuckets, "a byte a bucket");
    if (threadIdx.x < m) table[threadIdx.x] = compact_of[threadIdx.x];
    return {inner, table, m};
  }
};

/// block_wide_spread's choice with the compacted split beside it: the
/// compacted split where at most kCompactBuckets buckets hold items, else
/// spread_choice's. Writes the tables either way (read only when chosen).
/// One block of kChoiceThreads.
__global__ void __launch_bounds__(kChoiceThreads)
    choose_spread_or_compact(const std::uint32_t* offsets, std::uint32_t m, double peers_below, std::uint32_t* choice,
                             compact_tables tables) {
  open_chained_grid();
  using block_scan = cub::BlockScan<std::uint32_t, kChoiceThreads>;
  __shared__ typename block_scan::TempStorage scan;
  const unsigned b = threadIdx.x;
  const std::uint32_t count = b < m ? offsets[b + 1] - offsets[b] : 0u;
  std::uint32_t compact = 0, occupied = 0;
  block_scan(scan).ExclusiveSum(count != 0 ? 1u : 0u, compact, occupied);
  if (b < m) tables.compact_of[b] = static_cast<std::uint8_t>(compact < kCompactBuckets ? compact : kCompactBuckets);
  if (count != 0 && compact < kCompactBuckets) tables.bucket_of[compact] = b;
  if (b >= occupied && b < kCompactBuckets) tables.bucket_of[b] = m;
  const std::uint32_t spread = spread_choice(count, offsets[m], peers_below);
  if (b == 0) *choice = occupied <= kCompactBuckets ? kCompactIdsChosen : spread;
}

/// Tiles a block of compact_matrix takes, and its threads.
inline constexpr int kCompactMatrixTiles = 32;
inline constexpr int kCompactMatrixThreads = 256;

/// The compacted split's matrix from the wide split's scanned one
/// (TileMajor: column_scan.cuh's, with the offsets' starts; otherwise
/// bucket-major, already output indices): bucket-major and scanned flat,
/// as block_wide_digits_one reads it at kCompactIdBits (tile_cell): cell
/// (c, t) at c * tiles + t, the columns past the occupied buckets and the
/// last cell holding the total. Each block turns kCompactMatrixTiles tiles
/// through shared memory, so that a tile-major matrix's reads (along a
/// tile's row) coalesce as well as the writes (along a column).
template <bool TileMajor>
__global__ void __launch_bounds__(kCompactMatrixThreads)
    compact_matrix(const std::uint32_t* scanned, std::size_t tiles, std::uint32_t m, const std::uint32_t* offsets,
                   const std::uint32_t* bucket_of, choice_gate gate, std::uint32_t* cells) {
  open_chained_grid();
  if (gate.closed()) return;
  __shared__ std::uint32_t cell[kCompactBuckets][kCompactMatrixTiles + 1];
  const std::size_t first = std::size_t{blockIdx.x} * kCompactMatrixTiles;
  const std::uint32_t total = offsets[m];
  const unsigned column = threadIdx.x % kCompactBuckets;
  const std::uint32_t b = bucket_of[column];
  const std::uint32_t start = b < m ? offsets[b] : total;  // TileMajor's
  for (unsigned r = threadIdx.x / kCompactBuckets; r < kCompactMatrixTiles;
       r += kCompactMatrixThreads / kCompactBuckets) {
    const std::size_t t = first + r;
    std::uint32_t at = total;
    if (b < m && t < tiles) {
      if constexpr (TileMajor) at = start + tile_major_before(scanned, tiles, m, b, t);
      else at = scanned[b * tiles + t];
    }
    cell[column][r] = at;
  }
  __syncthreads();
  const unsigned r = threadIdx.x % kCompactMatrixTiles;
  if (first + r < tiles)
    for (unsigned c = threadIdx.x / kCompactMatrixTiles; c < kCompactBuckets;
         c += kCompactMatrixThreads / kCompactMatrixTiles)
      cells[c * tiles + first + r] = cell[c][r];
  if (blockIdx.x == 0 && threadIdx.x == 0) cells[kCompactBuckets * tiles] = total;
}

}  // namespace graphkit::multisplit_detail
