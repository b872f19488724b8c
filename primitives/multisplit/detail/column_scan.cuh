// The wide methods' matrix for 8-bit keys (tile_major_matrix in
// wide_digits_one.cuh says why only there), tile-major, and its scan. The
// pre-scan writes row t with tile t's m bucket counts; scan_columns turns every column into
// its exclusive scan down the tiles (bucket b's items in tiles before t),
// writes the column totals into row `tiles` and the buckets' global starts
// into row tiles + 1 (and the offsets). A post-scan thread b then reads
// tile t's base and count from rows t and t + 1 and its copy of row tiles +
// 1 (tile_cell).
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

#include "primitives/multisplit/detail/look_back.cuh"

namespace graphkit::multisplit_detail {

/// The pre-scan's view of the tile-major matrix: row t at cells + t * m.
struct tile_rows {
  std::uint32_t* cells;
  std::uint32_t m;
  __device__ void store_count(std::uint32_t b, std::size_t t, std::uint32_t count) const { cells[t * m + b] = count; }
  /// Rows the scanned matrix has: the tiles', the totals and the starts.
  static std::size_t rows_for(std::size_t tiles) { return tiles + 2; }
};

/// Rows a block of scan_columns scans (one chunk), and its threads: one
/// column a thread (m <= 256), 32 loads of it in flight.
inline constexpr int kColumnScanRows = 32;
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
  if (threadIdx.x == 0) chunk_of_block = atomicAdd(ticket, 1u);
  __syncthreads();
  const std::size_t chunk = chunk_of_block, first = chunk * kColumnScanRows;
  const unsigned b = threadIdx.x;  // this thread's column
  std::uint32_t count[kColumnScanRows], sum = 0;
  if (b < m) {
#pragma unroll
    for (int r = 0; r < kColumnScanRows; ++r) {
      count[r] = first + r < tiles ? cells[(first + r) * m + b] : 0u;
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
      if (first + r < tiles) cells[(first + r) * m + b] = before;
      before += count[r];
    }
  }
  if (first + kColumnScanRows < tiles) return;  // the same for the whole block
  // The last chunk: `before` is now column b's total.
  std::uint32_t start = 0, all = 0;
  block_scan(scan).ExclusiveSum(before, start, all);
  if (b < m) {
    cells[tiles * m + b] = before;
    cells[(tiles + 1) * m + b] = start;
    offsets[b] = start;
  }
  if (b == 0) offsets[m] = all;
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
  if (threadIdx.x < m) start[threadIdx.x] = scanned[(tiles + 1) * m + threadIdx.x];
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
    const std::uint32_t* at = scanned + t * m + threadIdx.x;
    const std::uint32_t before = at[0];
    return make_uint2(start[threadIdx.x] + before, at[m] - before);
  } else {
    const std::uint32_t* at = scanned + threadIdx.x * tiles + t;
    const std::uint32_t base = at[0];
    return make_uint2(base, at[1] - base);
  }
}

}  // namespace graphkit::multisplit_detail
