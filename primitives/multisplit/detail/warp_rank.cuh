// Warp-level ranking by bucket: each lane learns how many earlier items of
// its warp (in input order) share its bucket, without shared-memory atomics.
#pragma once

#include <cstdint>

namespace graphkit::multisplit_detail {

inline constexpr unsigned kFullMask = 0xffffffffu;

__device__ __forceinline__ unsigned lane_id() { return threadIdx.x & 31u; }
__device__ __forceinline__ unsigned lanes_below() { return (1u << lane_id()) - 1u; }

/// Ranks for m <= 32 from votes (the paper's warp-level scheme): one ballot
/// per bucket-id bit; ANDing the votes (or their complements) gives the lanes
/// that share a bucket. Lane l also keeps the running count of bucket l, so
/// after the last round lane l holds the warp's histogram entry for bucket l.
struct ballot_ranker {
  std::uint32_t running = 0;

  /// `bits` = ceil(log2 m), warp-uniform. Every lane must call; invalid lanes
  /// (tail, out-of-range id) are left out of every count.
  __device__ __forceinline__ std::uint32_t rank(std::uint32_t bucket, bool valid, int bits) {
    const unsigned active = __ballot_sync(kFullMask, valid);
    unsigned same = active, own = active;
#pragma unroll
    for (int i = 0; i < 5; ++i) {
      if (i < bits) {
        const unsigned vote = __ballot_sync(kFullMask, (bucket >> i) & 1u);
        same &= ((bucket >> i) & 1u) ? vote : ~vote;
        own &= ((lane_id() >> i) & 1u) ? vote : ~vote;
      }
    }
    const std::uint32_t before = __shfl_sync(kFullMask, running, bucket & 31u);
    running += __popc(own);  // meaningful in lanes l < m only
    return before + __popc(same & lanes_below());
  }
};

/// Ranks for m <= 256 in a warp-private row of shared-memory counters:
/// __match_any_sync groups the lanes of one bucket, the group's lowest lane
/// adds the group size. Each counter has one writer per round: no atomics.
__device__ __forceinline__ std::uint32_t shared_rank(std::uint32_t* warp_counts, std::uint32_t bucket, bool valid) {
  // Invalid lanes vote a value no bucket has, so they form their own group.
  const unsigned peers = __match_any_sync(kFullMask, valid ? bucket : 0xffffffffu);
  const std::uint32_t before = valid ? warp_counts[bucket] : 0;
  __syncwarp();
  if (valid && lane_id() == static_cast<unsigned>(__ffs(peers) - 1)) warp_counts[bucket] = before + __popc(peers);
  __syncwarp();
  return before + __popc(peers & lanes_below());
}

/// Adds this warp's count of out-of-range bucket ids to the global counter.
__device__ __forceinline__ void report_out_of_range(std::uint32_t bad, std::uint32_t* counter) {
#pragma unroll
  for (int d = 16; d > 0; d >>= 1) bad += __shfl_xor_sync(kFullMask, bad, d);
  if (bad != 0 && lane_id() == 0) atomicAdd(counter, bad);
}

}  // namespace graphkit::multisplit_detail
