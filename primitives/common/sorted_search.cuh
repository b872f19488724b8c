// Binary search in a sorted array, for host and device code: the membership
// test that sorted-list intersections (primitives/bitmap/batch_intersection,
// the triangle counter's merge sets) are built on, written once.
#pragma once

#include <cuda_runtime.h>

namespace graphkit {

/// The first index in [lo, hi) of sorted `list` whose value is not below `x`;
/// hi when every value is below it. Index is the caller's size type: 32-bit
/// indices keep a device loop's registers and arithmetic narrow.
template <class T, class Index>
__host__ __device__ inline Index sorted_lower_bound(const T* list, Index lo, Index hi, T x) {
  while (lo < hi) {
    const Index mid = lo + (hi - lo) / 2;
    if (list[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/// Whether sorted list[lo, hi) holds `x`.
template <class T, class Index>
__host__ __device__ inline bool sorted_contains(const T* list, Index lo, Index hi, T x) {
  const Index at = sorted_lower_bound(list, lo, hi, x);
  return at < hi && list[at] == x;
}

}  // namespace graphkit
