// The block-level multisplit of one tile, as a device building block: the
// block method's post-scan uses it, and so can any kernel that buckets its
// own tile (a persistent SSSP kernel splitting its frontier, say).
#pragma once

#include <cub/block/block_scan.cuh>

#include <cstdint>

#include "primitives/multisplit/detail/warp_rank.cuh"

namespace graphkit {

inline constexpr std::uint32_t kMultisplitTileMaxBuckets = 256;

/// A block of Warps warps holds a tile of Warps * 32 * Items items in
/// registers, warp-contiguous: item r of lane l of warp w is tile element
/// (w * Items + r) * 32 + l. rank() gives each valid item its position in the
/// tile reordered stably by bucket, and leaves bucket b's range of that order
/// in [bucket_start[b], bucket_start[b + 1]); bucket_start[m] is the number
/// of valid items. m <= 256. All threads of the block must call it.
template <int Warps, int Items>
struct block_multisplit_tile {
  static constexpr int kThreads = Warps * 32;
  static constexpr int kScanItems = (kMultisplitTileMaxBuckets + kThreads - 1) / kThreads;
  using block_scan = cub::BlockScan<std::uint32_t, kThreads>;

  struct storage {
    std::uint32_t warp_counts[Warps][kMultisplitTileMaxBuckets];
    std::uint32_t bucket_start[kMultisplitTileMaxBuckets + 1];
    typename block_scan::TempStorage scan;
  };

  __device__ static void rank(storage& s, const std::uint32_t (&bucket)[Items], const bool (&valid)[Items],
                              std::uint32_t num_buckets, std::uint32_t (&position)[Items]) {
    using namespace multisplit_detail;
    const unsigned warp = threadIdx.x / 32;
    const int bits = num_buckets <= 1 ? 0 : 32 - __clz(num_buckets - 1);
    std::uint32_t warp_rank[Items];
    if (num_buckets <= 32) {
      // Counts live in registers (lane l: bucket l) until the warp is done.
      ballot_ranker ranker;
#pragma unroll
      for (int r = 0; r < Items; ++r) warp_rank[r] = ranker.rank(bucket[r], valid[r], bits);
      if (lane_id() < num_buckets) s.warp_counts[warp][lane_id()] = ranker.running;
    } else {
      for (unsigned b = lane_id(); b < num_buckets; b += 32) s.warp_counts[warp][b] = 0;
      __syncwarp();
#pragma unroll
      for (int r = 0; r < Items; ++r) warp_rank[r] = shared_rank(s.warp_counts[warp], bucket[r], valid[r], bits);
    }
    __syncthreads();

    // Per bucket: exclusive offsets of the warps, and the tile's total.
    std::uint32_t totals[kScanItems];
#pragma unroll
    for (int k = 0; k < kScanItems; ++k) {
      const unsigned b = threadIdx.x * kScanItems + k;
      std::uint32_t running = 0;
      if (b < num_buckets) {
        for (int w = 0; w < Warps; ++w) {
          const std::uint32_t c = s.warp_counts[w][b];
          s.warp_counts[w][b] = running;
          running += c;
        }
      }
      totals[k] = running;
    }
    std::uint32_t all = 0;
    block_scan(s.scan).ExclusiveSum(totals, totals, all);
#pragma unroll
    for (int k = 0; k < kScanItems; ++k) {
      const unsigned b = threadIdx.x * kScanItems + k;
      if (b < num_buckets) s.bucket_start[b] = totals[k];
    }
    if (threadIdx.x == 0) s.bucket_start[num_buckets] = all;
    __syncthreads();
#pragma unroll
    for (int r = 0; r < Items; ++r)
      position[r] = valid[r] ? s.bucket_start[bucket[r]] + s.warp_counts[warp][bucket[r]] + warp_rank[r] : 0;
  }
};

}  // namespace graphkit
