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

  /// rank() without the rank: only lane l's count of bucket l advances.
  __device__ __forceinline__ void count(std::uint32_t bucket, bool valid, int bits) {
    unsigned own = __ballot_sync(kFullMask, valid);
#pragma unroll
    for (int i = 0; i < 5; ++i) {
      if (i < bits) {
        const unsigned vote = __ballot_sync(kFullMask, (bucket >> i) & 1u);
        own &= ((lane_id() >> i) & 1u) ? vote : ~vote;
      }
    }
    running += __popc(own);
  }
};

/// Lanes (among the valid ones) whose bucket equals this lane's: one vote per
/// bucket-id bit, `bits` = ceil(log2 m) <= 8, warp-uniform. Votes cost the same
/// however many distinct buckets a warp sees (unlike __match_any_sync, whose
/// cost on sm_90 grew with them: 2.5x slower on uniform ids than on skewed
/// ones at m = 64..256 in bench/multisplit_bench).
__device__ __forceinline__ unsigned same_bucket_lanes(std::uint32_t bucket, bool valid, int bits) {
  unsigned same = __ballot_sync(kFullMask, valid);
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    if (i < bits) {
      const unsigned vote = __ballot_sync(kFullMask, (bucket >> i) & 1u);
      same &= ((bucket >> i) & 1u) ? vote : ~vote;
    }
  }
  return same;
}

/// Ranks for m <= 256 in a warp-private row of shared-memory counters: the
/// lowest lane of each bucket's group adds the group size. Each counter has
/// one writer per round: no atomics.
__device__ __forceinline__ std::uint32_t shared_rank(std::uint32_t* warp_counts, std::uint32_t bucket, bool valid,
                                                     int bits) {
  const unsigned same = same_bucket_lanes(bucket, valid, bits);
  const std::uint32_t before = valid ? warp_counts[bucket] : 0;
  __syncwarp();
  if (valid && lane_id() == static_cast<unsigned>(__ffs(same) - 1)) warp_counts[bucket] = before + __popc(same);
  __syncwarp();
  return before + __popc(same & lanes_below());
}

/// Adds this warp's count of out-of-range bucket ids to the global counter.
__device__ __forceinline__ void report_out_of_range(std::uint32_t bad, std::uint32_t* counter) {
#pragma unroll
  for (int d = 16; d > 0; d >>= 1) bad += __shfl_xor_sync(kFullMask, bad, d);
  if (bad != 0 && lane_id() == 0) atomicAdd(counter, bad);
}

}  // namespace graphkit::multisplit_detail
