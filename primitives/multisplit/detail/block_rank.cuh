// The block-level multisplit of one tile, as a device building block: the
// block method's post-scan uses it, and so can any kernel that buckets its
// own tile (a persistent SSSP kernel splitting its frontier, say).
#pragma once

#include <cub/block/block_scan.cuh>

#include <cstdint>

#include "primitives/multisplit/detail/warp_rank.cuh"

namespace graphkit {

inline constexpr std::uint32_t kMultisplitTileMaxBuckets = 256;

/// How block_multisplit_tile ranks items within a warp (bench/NOTES.md
/// multisplit steps 3 and 16). Both are stable and give the same positions.
enum class tile_rank : std::uint8_t {
  /// Votes: ballot_ranker (counts in registers) for m <= 32, shared_rank
  /// (up to 9 ballots an item, counters in shared memory) beyond. No scratch.
  votes,
  /// peer_rank at every m: one shared-memory atomicOr an item into a row of
  /// peer masks per warp, in scratch that the caller lends (peer_scratch).
  peer_masks,
};

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

  /// Shared memory that rank() with tile_rank::peer_masks uses only until
  /// its first block barrier: a row of peer masks per warp (8 KB for 8
  /// warps), so a caller can lay it over storage that it fills only after
  /// rank() returns, such as the tile staged in bucket order.
  using peer_scratch = std::uint32_t[Warps][kMultisplitTileMaxBuckets];

  /// Ranks by votes (tile_rank::votes), without scratch.
  __device__ static void rank(storage& s, const std::uint32_t (&bucket)[Items], const bool (&valid)[Items],
                              std::uint32_t num_buckets, std::uint32_t (&position)[Items]) {
    rank_by(s, nullptr, tile_rank::votes, bucket, valid, num_buckets, position);
  }

  /// Ranks by `how`, warp-uniform; `peers` is read only for tile_rank::peer_masks.
  __device__ static void rank(storage& s, peer_scratch& peers, tile_rank how, const std::uint32_t (&bucket)[Items],
                              const bool (&valid)[Items], std::uint32_t num_buckets, std::uint32_t (&position)[Items]) {
    rank_by(s, peers, how, bucket, valid, num_buckets, position);
  }

 private:
  __device__ static void rank_by(storage& s, std::uint32_t (*peers)[kMultisplitTileMaxBuckets], tile_rank how,
                                 const std::uint32_t (&bucket)[Items], const bool (&valid)[Items],
                                 std::uint32_t num_buckets, std::uint32_t (&position)[Items]) {
    std::uint32_t warp_rank[Items];
    rank_in_warp(s, peers, how, bucket, valid, num_buckets, warp_rank);
    combine_warps(s, bucket, valid, num_buckets, warp_rank, position);
  }

  /// Each item's rank among the items of its warp with its bucket, and the
  /// warp's count of every bucket in s.warp_counts[warp].
  __device__ static void rank_in_warp(storage& s, std::uint32_t (*peers)[kMultisplitTileMaxBuckets], tile_rank how,
                                      const std::uint32_t (&bucket)[Items], const bool (&valid)[Items],
                                      std::uint32_t num_buckets, std::uint32_t (&warp_rank)[Items]) {
    using namespace multisplit_detail;
    const unsigned warp = threadIdx.x / 32;
    std::uint32_t* counts = s.warp_counts[warp];
    if (how == tile_rank::peer_masks) {
      std::uint32_t* masks = peers[warp];
      for (unsigned b = lane_id(); b < num_buckets; b += 32) counts[b] = 0, masks[b] = 0;
      __syncwarp();
#pragma unroll
      for (int r = 0; r < Items; ++r) warp_rank[r] = peer_rank(counts, masks, bucket[r], valid[r]);
      return;
    }
    const int bits = num_buckets <= 1 ? 0 : 32 - __clz(num_buckets - 1);
    if (num_buckets <= 32) {
      // Counts live in registers (lane l: bucket l) until the warp is done.
      ballot_ranker ranker;
#pragma unroll
      for (int r = 0; r < Items; ++r) warp_rank[r] = ranker.rank(bucket[r], valid[r], bits);
      if (lane_id() < num_buckets) counts[lane_id()] = ranker.running;
    } else {
      for (unsigned b = lane_id(); b < num_buckets; b += 32) counts[b] = 0;
      __syncwarp();
#pragma unroll
      for (int r = 0; r < Items; ++r) warp_rank[r] = shared_rank(counts, bucket[r], valid[r], bits);
    }
  }

  /// From the warps' ranks and counts to tile positions: per bucket, the
  /// warps' exclusive offsets and the tile's bucket starts.
  __device__ static void combine_warps(storage& s, const std::uint32_t (&bucket)[Items], const bool (&valid)[Items],
                                       std::uint32_t num_buckets, const std::uint32_t (&warp_rank)[Items],
                                       std::uint32_t (&position)[Items]) {
    const unsigned warp = threadIdx.x / 32;
    __syncthreads();  // every warp's counts are in; the peer masks are no longer read

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
