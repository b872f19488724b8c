// The warp-level multisplit as a device building block for kernels that
// append items to m <= 32 growing lists (one per bucket) as they find them:
// a persistent SSSP kernel sending improved vertices to their buckets, a
// filter appending survivors to one list. The warp ranks its items by bucket
// from votes (multisplit's ballot_ranker), then adds each bucket's count to
// that bucket's size with one atomicAdd, so a warp that appends to b buckets
// pays b atomics instead of one per item, and items of a bucket land in lane
// order (stable within the warp).
#pragma once

#include <cstdint>

#include "primitives/multisplit/detail/warp_rank.cuh"

namespace graphkit {

/// Every lane of the warp must call it, converged, with the same m
/// (1 <= m <= 32). A lane with `valid` set gets the index its item takes in
/// bucket `bucket`'s list (bucket < m); sizes[b] grows by the number of the
/// warp's valid items in bucket b. Invalid lanes get 0 and change nothing.
__device__ inline std::uint32_t warp_multisplit_reserve(std::uint32_t bucket, bool valid, std::uint32_t m,
                                                        std::uint32_t* sizes) {
  using namespace multisplit_detail;
  if (__ballot_sync(kFullMask, valid) == 0) return 0;
  const int bits = m <= 1 ? 0 : 32 - __clz(m - 1);
  ballot_ranker ranker;
  const std::uint32_t rank = ranker.rank(bucket, valid, bits);
  std::uint32_t base = 0;
  // Lane l holds the warp's count of bucket l (meaningful for l < m only).
  if (lane_id() < m && ranker.running != 0) base = atomicAdd(&sizes[lane_id()], ranker.running);
  return __shfl_sync(kFullMask, base, bucket & 31u) + rank;
}

}  // namespace graphkit
