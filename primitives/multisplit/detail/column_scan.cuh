// The wide methods' matrix for 8-bit keys (tile_major_matrix in
// wide_digits_one.cuh says why only there), tile-major, and its scan. The
// pre-scan writes row t with tile t's m bucket counts, 16-bit;
// scan_columns turns every column into its exclusive scan down the tiles
// (bucket b's items in tiles before t), but writes it only at every
// kPrefixStride-th tile, into 32-bit prefix rows, then the column totals
// and the buckets' global starts (and the offsets). A post-scan thread b
// then takes tile t's base from the prefix row at or below t plus the
// counts between (tile_major_before), its count from row t, and the start
// from its copy (tile_cell). Why 16-bit counts and a prefix row every 4
// tiles (session 25, H100, same runs, ms, uniform / skewed keys): the
// matrix at m = 256 is 53.7 MB of 32-bit cells, more than the 50 MB L2,
// written, read and written again; 16-bit counts with prefix rows every
// 1 / 2 / 4 / 8 tiles (scan chunks of 64 rows) took m = 256 1.753 / 1.739 /
// 1.723 / 1.733 against 1.755, skewed 1.598 / 1.587 / 1.578 / 1.597
// against 1.586; chunks of 32 rows at stride 4 1.738 / 1.596.
//
// Why tile-major, when the block method's matrix is bucket-major and
// scanned flat by CUB: the pre-scan's m stores a tile then fill one row (a
// few coalesced requests) instead of m sectors, one 4-byte store each. At
// m = 256 those 13.4 M single-sector stores of 2^28 keys cost the pre-scan
// a tenth of its bandwidth (H100, ncu: 426 against 377 us tile-major, the
// DRAM bytes level); the post-scan's cell reads coalesce the same way.
#pragma once

#include <cub/block/block_scan.cuh>

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "primitives/common/chained_launch.cuh"
#include "primitives/multisplit/detail/look_back.cuh"

namespace graphkit::multisplit_detail {

/// Tiles a prefix row of the scanned matrix stands for: scan_columns writes
/// column b's exclusive scan only at tiles t that are multiples of it, and
/// tile_cell adds the counts of the tiles between.
inline constexpr int kPrefixStride = 4;

/// The tile-major matrix in one allocation of 32-bit words: the prefix rows
/// (row q: each bucket's items in the tiles before q kPrefixStride), the
/// column totals, the buckets' global starts, then the tiles' counts,
/// 16-bit (a tile has fewer than 2^16 items), row t at counts + t * m.
struct tile_major_layout {
  __host__ __device__ static constexpr std::size_t prefix_rows(std::size_t tiles) {
    return (tiles + kPrefixStride - 1) / kPrefixStride;
  }
  __host__ __device__ static constexpr std::size_t words(std::size_t tiles, std::uint32_t m) {
    return (prefix_rows(tiles) + 2) * m + (tiles * m + 1) / 2;
  }
  template <class Word>
  __host__ __device__ static auto counts(Word* scanned, std::size_t tiles, std::uint32_t m) {
    using Count = std::conditional_t<std::is_const_v<Word>, const std::uint16_t, std::uint16_t>;
    return reinterpret_cast<Count*>(scanned + (prefix_rows(tiles) + 2) * m);
  }
};

/// The pre-scan's view of the tile-major matrix: tile t's counts, 16-bit.
struct tile_rows {
  std::uint16_t* counts;
  std::uint32_t m;
  __device__ void store_count(std::uint32_t b, std::size_t t, std::uint32_t count) const {
    counts[t * m + b] = static_cast<std::uint16_t>(count);
  }
};

/// Rows a block of scan_columns scans (one chunk), and its threads: one
/// column a thread (m <= 256), 64 loads of it in flight.
inline constexpr int kColumnScanRows = 64;
inline constexpr int kColumnScanThreads = 256;
/// Chunks a lane's look-back reads a step: at m = 256 a column has one
/// lane, which would otherwise walk back a chunk per L2 round trip.
inline constexpr int kColumnScanWindow = 8;

/// Chunks of scan_columns over `tiles` rows; it needs that many times m
/// look-back words, zeroed, and a zeroed ticket after them.
inline std::size_t column_scan_chunks(std::size_t tiles) { return (tiles + kColumnScanRows - 1) / kColumnScanRows; }

/// Scans the columns of the tile-major `cells` (tiles >= 1 rows of m
/// counts) in place, as the header says. Chunks of kColumnScanRows rows are
/// taken in launch order from `ticket`, so a chunk waits in its look-back
/// only on chunks whose blocks already run. The chunk holding the last row
/// also writes the totals, the starts and the m + 1 `offsets`.
__global__ void __launch_bounds__(kColumnScanThreads)
    scan_columns(std::uint32_t* cells, std::size_t tiles, std::uint32_t m, std::uint64_t* words, std::uint32_t* ticket,
                 std::uint32_t* offsets) {
  using flags = look_back_word<std::uint64_t>;
  using block_scan = cub::BlockScan<std::uint32_t, kColumnScanThreads>;
  __shared__ typename block_scan::TempStorage scan;
  __shared__ std::uint32_t chunk_of_block;
  __shared__ std::uint32_t sum_of[kColumnScanThreads], before_of[kColumnScanThreads];
  open_chained_grid();
  if (threadIdx.x == 0) chunk_of_block = atomicAdd(ticket, 1u);
  __syncthreads();
  const std::size_t chunk = chunk_of_block, first = chunk * kColumnScanRows;
  const unsigned b = threadIdx.x;  // this thread's column
  const std::uint16_t* counts = tile_major_layout::counts(cells, tiles, m);
  std::uint32_t count[kColumnScanRows], sum = 0;
  if (b < m) {
#pragma unroll
    for (int r = 0; r < kColumnScanRows; ++r) {
      count[r] = first + r < tiles ? counts[(first + r) * m + b] : 0u;
      sum += count[r];
    }
    publish(&words[chunk * m + b], chunk == 0 ? flags::kInclusive : flags::kAggregate, sum);
    sum_of[b] = sum;
  }
  __syncthreads();
  // Groups of lanes look back for a column each; their first lane publishes the inclusive count.
  const unsigned group = look_back_group<kColumnScanThreads>(m), column = threadIdx.x / group;
  if ((threadIdx.x & ~31u) / group < m) {  // warps with a column, whole
    const std::uint32_t before =
        chunk == 0 ? 0u : look_back<kColumnScanWindow>(words, chunk, m, column, group, column < m);
    if (column < m && threadIdx.x % group == 0) {
      if (chunk != 0) publish(&words[chunk * m + column], flags::kInclusive, before + sum_of[column]);
      before_of[column] = before;
    }
  }
  __syncthreads();
  std::uint32_t before = b < m ? before_of[b] : 0u;
  if (b < m) {
#pragma unroll
    for (int r = 0; r < kColumnScanRows; ++r) {
      static_assert(kColumnScanRows % kPrefixStride == 0, "a chunk's first row is a prefix row");
      if (r % kPrefixStride == 0 && first + r < tiles) cells[(first + r) / kPrefixStride * m + b] = before;
      before += count[r];
    }
  }
  if (first + kColumnScanRows < tiles) return;  // the same for the whole block
  // The last chunk: `before` is now column b's total.
  std::uint32_t start = 0, all = 0;
  block_scan(scan).ExclusiveSum(before, start, all);
  if (b < m) {
    const std::size_t totals = tile_major_layout::prefix_rows(tiles);
    cells[totals * m + b] = before;
    cells[(totals + 1) * m + b] = start;
    offsets[b] = start;
  }
  if (b == 0) offsets[m] = all;
}

/// Bucket b's items in the tiles before t, from the scanned tile-major
/// matrix: its prefix row at or below t plus the counts of the tiles
/// between (fewer than kPrefixStride, 16-bit, read in parallel).
__device__ __forceinline__ std::uint32_t tile_major_before(const std::uint32_t* scanned, std::size_t tiles,
                                                           std::uint32_t m, std::uint32_t b, std::size_t t) {
  const std::uint16_t* count = tile_major_layout::counts(scanned, tiles, m) + t * m + b;
  std::uint32_t before = scanned[t / kPrefixStride * m + b];
#pragma unroll
  for (int k = 1; k < kPrefixStride; ++k)
    if (k <= static_cast<int>(t % kPrefixStride)) before += count[-static_cast<std::ptrdiff_t>(k * m)];
  return before;
}

/// The post-scans' copy of the buckets' global starts (row tiles + 1 of the
/// scanned tile-major matrix) in a block's shared memory (`start`, a word a
/// bucket), taken before the first tile_cell: thread b stores and reads
/// only start[b], so no barrier is needed. Why not read the row with each
/// cell: a third load a tile, summed at once, is one more that a thread
/// may wait for before the next barrier, and the block with it (pairs at m
/// = 256 ran as slowly as with no copy, bench/NOTES.md multisplit step 31).
__device__ __forceinline__ void copy_bucket_starts(const std::uint32_t* scanned, std::size_t tiles, std::uint32_t m,
                                                   std::uint32_t* start) {
  if (threadIdx.x < m) start[threadIdx.x] = scanned[(tile_major_layout::prefix_rows(tiles) + 1) * m + threadIdx.x];
}

/// For thread b < m, bucket b's output index for tile t and its count there;
/// zeros for the other threads. TileMajor: from the matrix above and the
/// starts (copy_bucket_starts). Otherwise from the block method's
/// bucket-major matrix scanned flat (scan_matrix, `tiles` columns): cell (b,
/// t + 1) - cell (b, t), the cell after bucket b's last tile being bucket b
/// + 1's first, and the last cell the total; `start` is not read.
template <bool TileMajor>
__device__ __forceinline__ uint2 tile_cell(const std::uint32_t* scanned, std::size_t tiles, std::uint32_t m,
                                           const std::uint32_t* start, std::size_t t) {
  if (threadIdx.x >= m) return make_uint2(0u, 0u);
  if constexpr (TileMajor) {
    return make_uint2(start[threadIdx.x] + tile_major_before(scanned, tiles, m, threadIdx.x, t),
                      tile_major_layout::counts(scanned, tiles, m)[t * m + threadIdx.x]);
  } else {
    const std::uint32_t* at = scanned + threadIdx.x * tiles + t;
    const std::uint32_t base = at[0];
    return make_uint2(base, at[1] - base);
  }
}

}  // namespace graphkit::multisplit_detail
