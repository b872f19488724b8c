// block_wide_spread's choice between its two post-scans, made on the
// device from how concentrated the bucket ids are: the peer masks' cost
// grows with the distinct buckets a warp's 32 items meet, the digit rank's
// (two splits past 64 buckets) does not. The measure is the effective
// bucket count, n^2 over the sum of the squared bucket counts: m for
// uniform ids over m buckets, 3 for the bench's skewed ids (bucket b with
// probability 2^-(b+1)), about 23 for Zipf ids (1 / (b + 1)) at m = 256.
// It is global: ids sorted into long runs count as spread though every
// warp meets one bucket.
#pragma once

#include <cub/block/block_reduce.cuh>

#include <cstdint>

#include "primitives/common/chained_launch.cuh"
#include "primitives/multisplit/detail/choice_gate.cuh"
#include "primitives/multisplit/detail/block_rank.cuh"

namespace graphkit::multisplit_detail {

/// Threads of the choosing kernels: one bucket a thread.
inline constexpr int kChoiceThreads = kMultisplitTileMaxBuckets;

/// kPeerMasksChosen when the ids have fewer than `peers_below` effective
/// buckets, else kDigitRankChosen, in thread 0. `count`: the items of this
/// thread's bucket (0 past m), `total` their sum. All kChoiceThreads
/// threads call.
__device__ __forceinline__ std::uint32_t spread_choice(double count, double total, double peers_below) {
  using reduce = cub::BlockReduce<double, kChoiceThreads>;
  __shared__ typename reduce::TempStorage temp;
  const double squares = reduce(temp).Sum(count * count);
  return total * total < peers_below * squares ? kPeerMasksChosen : kDigitRankChosen;
}

/// The choice from the offsets of a split already counted (bucket b holds
/// offsets[b + 1] - offsets[b] items), for two post-scans that share its
/// matrix. One block of kChoiceThreads.
__global__ void __launch_bounds__(kChoiceThreads)
    choose_by_spread(const std::uint32_t* offsets, std::uint32_t m, double peers_below, std::uint32_t* choice) {
  open_chained_grid();
  const double count = threadIdx.x < m ? offsets[threadIdx.x + 1] - offsets[threadIdx.x] : 0;
  const std::uint32_t chosen = spread_choice(count, offsets[m], peers_below);
  if (threadIdx.x == 0) *choice = chosen;
}

}  // namespace graphkit::multisplit_detail
