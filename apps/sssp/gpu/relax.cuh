// Edge relaxation for GPU delta-stepping: the frontier's out-edges, balanced
// by edges rather than vertices.
//
// A frontier vertex's edges go to one of three workers, by degree:
//   degree < 32          the warp gathers every such vertex's edges into one
//                        list (a warp prefix sum of degrees) and walks it 32
//                        edges at a time, each lane finding its vertex by a
//                        5-step search over the lanes' offsets;
//   32 <= degree < kHeavyDegree
//                        the whole warp walks that vertex's list, one vertex
//                        after another;
//   degree >= kHeavyDegree
//                        the list is cut into kChunkEdges-edge chunks queued
//                        for relax_heavy_chunks_kernel, where a block takes a
//                        chunk, so hubs of power-law graphs spread over the
//                        whole GPU instead of stalling one warp.
// A relaxation that lowers dist[t] pushes t onto the "updated" list once per
// round: the frontier mask keeps the list free of duplicates.
#pragma once

#include <cooperative_groups.h>

#include <cstdint>

#include "graph/device_csr.hpp"
#include "graph/frontier.cuh"

namespace graphkit::sssp::detail {

/// Device distances: unsigned, so that "unreachable" is the largest value and
/// atomicMin needs no special case. Sums of 32-bit weights fit in 64 bits.
using gpu_distance = unsigned long long;
inline constexpr gpu_distance kGpuUnreachable = ~0ull;

inline constexpr std::uint32_t kHeavyDegree = 4096;
inline constexpr std::uint32_t kChunkEdges = 2048;
inline constexpr int kRelaxBlock = 256;

struct heavy_chunk {
  vertex_t vertex;
  std::uint32_t count;
  edge_t begin;
};

/// Counters a round produces; copied to the host once per round.
struct round_counters {
  std::uint32_t updated;       ///< vertices on the updated list
  std::uint32_t chunks;        ///< heavy chunks queued
  unsigned long long examined;  ///< edges looked at (relaxations attempted)
  std::uint32_t kept;          ///< filter_bucket_kernel's output size
  std::uint32_t pad;
  gpu_distance far_min;        ///< min_live_distance_kernel's result
};

struct relax_state {
  device_csr_view graph;
  gpu_distance* dist;
  frontier_mask_ref mask;
  vertex_t* updated;
  heavy_chunk* chunks;  ///< room for every chunk of one round (see chunk_capacity)
  round_counters* counters;
};

/// Chunks one round can queue: each vertex is in the frontier at most once
/// and its chunks cover its edges, so m / kChunkEdges + m / kHeavyDegree + 1 do.
inline std::size_t chunk_capacity(edge_t num_edges) { return num_edges / kChunkEdges + num_edges / kHeavyDegree + 1; }

/// Appends v to `list` with one atomic per group of threads that push together.
__device__ inline void push_vertex(vertex_t* list, std::uint32_t* count, vertex_t v) {
  namespace cg = cooperative_groups;
  const cg::coalesced_group group = cg::coalesced_threads();
  std::uint32_t base = 0;
  if (group.thread_rank() == 0) base = atomicAdd(count, group.size());
  base = group.shfl(base, 0);
  list[base + group.thread_rank()] = v;
}

__device__ inline void relax_edge(const relax_state& s, edge_t e, gpu_distance du) {
  const vertex_t t = s.graph.targets[e];
  const gpu_distance nd = du + (s.graph.weights ? static_cast<gpu_distance>(s.graph.weights[e]) : 1ull);
  // A plain read first: distances only fall, so a stale value can cost an
  // extra atomic but never skips a needed one.
  if (nd < s.dist[t] && nd < atomicMin(&s.dist[t], nd) && s.mask.set(t))
    push_vertex(s.updated, &s.counters->updated, t);
}

static __global__ void __launch_bounds__(kRelaxBlock) relax_frontier_kernel(relax_state s, const vertex_t* frontier,
                                                                    std::uint32_t size) {
  constexpr unsigned kAll = 0xffffffffu;
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  const int lane = threadIdx.x & 31;
  vertex_t v = 0;
  gpu_distance du = 0;
  edge_t begin = 0;
  edge_t degree = 0;
  if (i < size) {
    v = frontier[i];
    du = s.dist[v];
    begin = s.graph.offsets[v];
    degree = s.graph.offsets[v + 1] - begin;
  }
  unsigned long long examined = degree;
  for (int o = 16; o > 0; o /= 2) examined += __shfl_down_sync(kAll, examined, o);
  if (lane == 0 && examined > 0) atomicAdd(&s.counters->examined, examined);

  if (degree >= kHeavyDegree) {
    const auto chunks = static_cast<std::uint32_t>((degree + kChunkEdges - 1) / kChunkEdges);
    const std::uint32_t first = atomicAdd(&s.counters->chunks, chunks);
    for (std::uint32_t c = 0; c < chunks; ++c) {
      const edge_t offset = edge_t{c} * kChunkEdges;
      s.chunks[first + c] = {v, static_cast<std::uint32_t>(min(edge_t{kChunkEdges}, degree - offset)), begin + offset};
    }
    degree = 0;
  }

  // Medium degrees: the warp takes one vertex at a time.
  for (unsigned medium = __ballot_sync(kAll, degree >= 32); medium != 0; medium &= medium - 1) {
    const int leader = __ffs(medium) - 1;
    const edge_t b = __shfl_sync(kAll, begin, leader);
    const auto d = static_cast<std::uint32_t>(__shfl_sync(kAll, degree, leader));
    const gpu_distance dl = __shfl_sync(kAll, du, leader);
    for (std::uint32_t k = lane; k < d; k += 32) relax_edge(s, b + k, dl);
  }
  if (degree >= 32) degree = 0;

  // Small degrees: one gathered list of edges for the whole warp.
  const auto small = static_cast<std::uint32_t>(degree);
  std::uint32_t inclusive = small;
  for (int o = 1; o < 32; o *= 2) {
    const std::uint32_t y = __shfl_up_sync(kAll, inclusive, o);
    if (lane >= o) inclusive += y;
  }
  const std::uint32_t total = __shfl_sync(kAll, inclusive, 31);
  const std::uint32_t exclusive = inclusive - small;
  for (std::uint32_t base = 0; base < total; base += 32) {
    const std::uint32_t k = base + lane;
    int owner = 0;  // the last lane whose list starts at or before k
    for (int step = 16; step > 0; step /= 2)
      if (__shfl_sync(kAll, exclusive, owner + step) <= k) owner += step;
    const edge_t b = __shfl_sync(kAll, begin, owner);
    const std::uint32_t start = __shfl_sync(kAll, exclusive, owner);
    const gpu_distance dl = __shfl_sync(kAll, du, owner);
    if (k < total) relax_edge(s, b + (k - start), dl);
  }
}

/// Blocks take the queued heavy chunks in turn; the grid size is fixed so the
/// host need not read the chunk count first.
static __global__ void __launch_bounds__(kRelaxBlock) relax_heavy_chunks_kernel(relax_state s) {
  const std::uint32_t count = s.counters->chunks;
  for (std::uint32_t c = blockIdx.x; c < count; c += gridDim.x) {
    const heavy_chunk chunk = s.chunks[c];
    const gpu_distance du = s.dist[chunk.vertex];
    for (std::uint32_t k = threadIdx.x; k < chunk.count; k += blockDim.x) relax_edge(s, chunk.begin + k, du);
  }
}

}  // namespace graphkit::sssp::detail
