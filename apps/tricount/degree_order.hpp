// The (degree, id) order triangle counting orients edges by: u -> v when u
// ranks below v. One definition for the GPU kernels (apps/tricount/gpu),
// the host's walk statistics, the bench and the tests.
#pragma once

#include <cstdint>

#include "graph/types.hpp"

#if defined(__CUDACC__)
#define GRAPHKIT_TRICOUNT_HOST_DEVICE __host__ __device__
#else
#define GRAPHKIT_TRICOUNT_HOST_DEVICE
#endif

namespace graphkit::tricount {

/// (degree_a, a) < (degree_b, b): the orientation's order on full degrees,
/// the shorter-side walk's on out-degrees.
GRAPHKIT_TRICOUNT_HOST_DEVICE inline bool ranks_below(edge_t degree_a, vertex_t a, edge_t degree_b, vertex_t b) {
  return degree_a < degree_b || (degree_a == degree_b && a < b);
}

}  // namespace graphkit::tricount
