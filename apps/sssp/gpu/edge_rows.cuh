// Edge rows: each vertex's first 4 edges, {target, weight} pairs, in a
// 32-byte row at v x 4, for meshes: sparse, even graphs whose vertices
// nearly all have 4 edges or fewer.
//
// There a round is a chain of hops, each waiting on the last (relax.cuh,
// local_queue), and with the CSR a hop waits twice before its atomics: for
// the vertex's offsets, then for the targets and weights they point at, with
// a warp prefix sum and an owner search between them. A row is found from
// the vertex id alone, so the row, the offsets and the distance arrive
// together, and each of the 4 lanes a vertex gets holds one edge directly.
// Edges past the row are walked from the CSR as before. Measured (H100,
// grid:22): 9.07 -> 8.34 ms; on road:22, where 18% of vertices have 5-9
// edges, rows were slower (13.1 ms, or 10.6 at width 8, against 9.7).
#pragma once

#include <thrust/count.h>
#include <thrust/execution_policy.h>
#include <thrust/iterator/counting_iterator.h>

#include <cstdint>

#include "graph/device_csr.hpp"
#include "primitives/common/device_buffer.hpp"
#include "primitives/common/error.hpp"
#include "primitives/common/launch.hpp"

namespace graphkit::sssp::detail {

/// Edges per row, and lanes per vertex: one lane per edge.
inline constexpr std::uint32_t kRowWidth = 4;

/// What the solver kernel reads.
struct edge_rows_view {
  const uint2* rows = nullptr;  ///< vertex v's row: rows[4v, 4v + 4), {target, weight} each

  /// Slot k of v's row.
  [[nodiscard]] __device__ uint2 slot(vertex_t v, std::uint32_t k) const {
    return rows[std::size_t{v} * kRowWidth + k];
  }
};

__global__ void build_edge_rows_kernel(device_csr_view g, uint2* rows) {
  const std::size_t v = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (v >= g.num_vertices) return;
  const edge_t begin = g.offsets[v];
  const edge_t degree = g.offsets[v + 1] - begin;
  for (std::uint32_t k = 0; k < kRowWidth; ++k) {
    uint2 slot{0, 0};  // never read: a lane reads slots below the degree only
    if (k < degree)
      slot = {g.targets[begin + k], g.weights != nullptr ? static_cast<std::uint32_t>(g.weights[begin + k]) : 1u};
    rows[v * kRowWidth + k] = slot;
  }
}

struct degree_above {
  const edge_t* offsets;
  edge_t limit;
  __device__ bool operator()(vertex_t v) const { return offsets[v + 1] - offsets[v] > limit; }
};

/// Whether rows pay: at most 1% of the vertices have edges past the row
/// (their tails cost a CSR walk after the row).
inline bool edge_rows_pay(const device_csr& g, cudaStream_t stream) {
  if (g.num_vertices == 0) return false;
  const auto above = static_cast<std::size_t>(
      thrust::count_if(thrust::cuda::par.on(stream), thrust::counting_iterator<vertex_t>(0),
                       thrust::counting_iterator<vertex_t>(g.num_vertices), degree_above{g.offsets.data(), kRowWidth}));
  GRAPHKIT_CHECK_LAUNCH();
  return above * 100 <= g.num_vertices;
}

/// The rows (n x 32 bytes).
inline device_buffer<uint2> build_edge_rows(const device_csr& g, cudaStream_t stream) {
  device_buffer<uint2> rows(std::size_t{g.num_vertices} * kRowWidth);
  if (g.num_vertices > 0) {
    build_edge_rows_kernel<<<blocks_for(g.num_vertices, 256), 256, 0, stream>>>(g.view(), rows.data());
    GRAPHKIT_CHECK_LAUNCH();
  }
  return rows;
}

}  // namespace graphkit::sssp::detail
