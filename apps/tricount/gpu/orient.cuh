// Preprocessing for GPU triangle counting: orient the undirected graph and
// sort its vertices into work classes.
//
// Every edge {u, v} is kept once, from the lower to the higher (degree, id)
// vertex. Each triangle then has exactly one vertex whose two out-edges
// close it, and out-degrees stay at most sqrt(2m): hubs keep few out-edges.
// Adjacency lists stay sorted by id because the symmetric input's are.
#pragma once

#include <cstdint>

#include "graph/device_csr.hpp"

namespace graphkit::tricount::detail {

/// The oriented graph, as kernels see it.
struct oriented_view {
  vertex_t num_vertices;
  const edge_t* offsets;
  const vertex_t* targets;
};

__device__ inline bool ranks_below(edge_t degree_a, vertex_t a, edge_t degree_b, vertex_t b) {
  return degree_a < degree_b || (degree_a == degree_b && a < b);
}

/// out_degree[u] = number of u's neighbours that rank above u. A warp per
/// vertex, so hubs with many neighbours do not stall a thread.
static __global__ void count_out_edges_kernel(device_csr_view g, edge_t* out_degree) {
  const std::size_t warp = (std::size_t{blockIdx.x} * blockDim.x + threadIdx.x) / 32;
  const unsigned lane = threadIdx.x & 31;
  if (warp >= g.num_vertices) return;
  const auto u = static_cast<vertex_t>(warp);
  const edge_t begin = g.offsets[u], end = g.offsets[u + 1];
  edge_t count = 0;
  for (edge_t e = begin + lane; e < end; e += 32) {
    const vertex_t v = g.targets[e];
    count += ranks_below(end - begin, u, g.offsets[v + 1] - g.offsets[v], v);
  }
  for (int o = 16; o > 0; o /= 2) count += __shfl_down_sync(0xffffffffu, count, o);
  if (lane == 0) out_degree[u] = count;
}

/// Writes each vertex's upward neighbours, in the input's (sorted) order.
static __global__ void fill_out_edges_kernel(device_csr_view g, const edge_t* out_offsets, vertex_t* out_targets) {
  const std::size_t warp = (std::size_t{blockIdx.x} * blockDim.x + threadIdx.x) / 32;
  const unsigned lane = threadIdx.x & 31;
  if (warp >= g.num_vertices) return;
  const auto u = static_cast<vertex_t>(warp);
  const edge_t begin = g.offsets[u], end = g.offsets[u + 1];
  edge_t next = out_offsets[u];
  for (edge_t base = begin; base < end; base += 32) {
    const edge_t e = base + lane;
    bool keep = false;
    vertex_t v = 0;
    if (e < end) {
      v = g.targets[e];
      keep = ranks_below(end - begin, u, g.offsets[v + 1] - g.offsets[v], v);
    }
    const unsigned kept = __ballot_sync(0xffffffffu, keep);
    if (keep) out_targets[next + __popc(kept & ((1u << lane) - 1))] = v;
    next += __popc(kept);
  }
}

/// Work classes: a vertex with fewer than two out-neighbours closes no
/// triangle; a light one is counted by a warp; a heavy one (many
/// out-neighbours, or many two-hop paths) by a block.
enum work_class : std::uint32_t { kNoWork = 0, kLight = 1, kHeavy = 2, kWorkClasses = 3 };

/// Largest out-degree a warp takes: its hash set (2 slots per element) fits
/// the warp's shared-memory slice. Larger ones are heavy.
inline constexpr std::uint32_t kWarpMaxOutDegree = 256;
/// Two-hop paths above which a vertex is heavy even with a small out-degree.
inline constexpr std::uint64_t kWarpMaxWedges = 1u << 14;

/// class_of[u] for each vertex, from its out-degree and its two-hop paths
/// (the sum of its out-neighbours' out-degrees). A warp per vertex.
static __global__ void classify_work_kernel(oriented_view g, std::uint32_t* class_of) {
  const std::size_t warp = (std::size_t{blockIdx.x} * blockDim.x + threadIdx.x) / 32;
  const unsigned lane = threadIdx.x & 31;
  if (warp >= g.num_vertices) return;
  const auto u = static_cast<vertex_t>(warp);
  const edge_t begin = g.offsets[u], end = g.offsets[u + 1];
  std::uint64_t wedges = 0;
  for (edge_t e = begin + lane; e < end; e += 32) {
    const vertex_t v = g.targets[e];
    wedges += g.offsets[v + 1] - g.offsets[v];
  }
  for (int o = 16; o > 0; o /= 2) wedges += __shfl_down_sync(0xffffffffu, wedges, o);
  if (lane == 0) {
    const edge_t degree = end - begin;
    class_of[u] = degree < 2 || wedges == 0                               ? kNoWork
                  : degree > kWarpMaxOutDegree || wedges > kWarpMaxWedges ? kHeavy
                                                                          : kLight;
  }
}

static __global__ void iota_kernel(vertex_t* out, vertex_t n) {
  const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (i < n) out[i] = static_cast<vertex_t>(i);
}

}  // namespace graphkit::tricount::detail
