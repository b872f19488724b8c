// Edge relaxation for GPU delta-stepping: the frontier's out-edges, balanced
// by edges rather than vertices, inside the persistent kernel.
//
// Warps take the frontier up to 32 vertices at a time; a vertex's edges go
// to one of two workers, by degree:
//   degree < kHeavyDegree
//                        the warp gathers every such vertex's edges into one
//                        list (a warp prefix sum of degrees) and walks it 32
//                        edges at a time, each lane finding its vertex by a
//                        5-step search over the lanes' offsets, so every
//                        step but the last uses all 32 lanes (a warp per
//                        vertex of degree 33 would leave 31 idle in its
//                        second step);
//   degree >= kHeavyDegree
//                        the list is cut into kChunkEdges-edge chunks queued
//                        for the next phase, where warps take chunks in turn,
//                        so hubs of power-law graphs spread over the whole GPU.
// The thresholds are low because a round lasts as long as its slowest warp:
// with 4096 (one warp walking up to 128 steps of dependent loads) R-MAT
// rounds had tails of hundreds of microseconds.
// Every step walks 32 edges with the warp converged, so that the vertices
// whose distance fell are sent to their lists by one warp multisplit
// (primitives/multisplit/warp_append.cuh) per step.
#pragma once

#include <cstdint>
#include <type_traits>

#include "apps/sssp/gpu/control.cuh"
#include "graph/device_csr.hpp"
#include "primitives/bitmap/bit_span.cuh"
#include "primitives/multisplit/warp_append.cuh"

namespace graphkit::sssp::detail {

inline constexpr std::uint32_t kHeavyDegree = 128;
inline constexpr std::uint32_t kChunkEdges = 256;
inline constexpr int kBlock = 256;
inline constexpr unsigned kAllLanes = 0xffffffffu;

struct heavy_chunk {
  vertex_t vertex;
  std::uint32_t count;
  edge_t begin;
};

/// Chunks one round can queue: each vertex is in the frontier at most once
/// and its chunks cover its edges, so m / kChunkEdges + m / kHeavyDegree + 1 do.
inline std::size_t chunk_capacity(edge_t num_edges) { return num_edges / kChunkEdges + num_edges / kHeavyDegree + 1; }

/// What the persistent kernel takes, by value. Dist is the width of the
/// distance array: 32 bits where every finite distance fits (max weight x
/// (n - 1) < 2^32 - 1; half the bytes per gather and atomic), else 64. Its
/// largest value means unreached; loads widen it to gpu_distance.
template <class Dist>
struct solver_view {
  device_csr_view graph;
  Dist* dist;
  bit_span_ref masks[2];      ///< next-frontier membership, by round parity
  bit_span_ref resplit_mask;  ///< resplit's deduplication
  heavy_chunk* chunks;        ///< room for every chunk of one round
  std::uint32_t chunk_room;   ///< chunk_capacity(m)
  control* ctl;               ///< the initial control block; the final one after the solve
  phase_counters* counters;   ///< three rotating slots

  /// Bucket lists and the frontier hold n entries, far lists 2n (a spill
  /// may add every live vertex to a far list that already names it).
  [[nodiscard]] __device__ std::uint32_t capacity(std::uint32_t group) const {
    return group == kFarGroup ? 2 * graph.num_vertices : graph.num_vertices;
  }
  [[nodiscard]] __device__ gpu_distance distance(vertex_t v) const { return widen(dist[v]); }
  [[nodiscard]] __device__ static gpu_distance widen(Dist d) {
    return d == static_cast<Dist>(~Dist{0}) ? kGpuUnreachable : gpu_distance{d};
  }
};

/// The global index of the calling warp, and the number of warps.
__device__ inline std::uint32_t warp_index() { return (blockIdx.x * blockDim.x + threadIdx.x) / 32; }
__device__ inline std::uint32_t warp_count() { return gridDim.x * blockDim.x / 32; }
__device__ inline std::uint32_t lane() { return threadIdx.x & 31u; }

/// Appends each valid lane's v to list `group` (warp-converged): after the
/// c.sizes[group] entries the list had when the phase began.
template <class View>
__device__ inline void append(const View& s, const control& c, phase_counters& out, bool valid, std::uint32_t group,
                              vertex_t v) {
  const std::uint32_t at = c.sizes[group] + warp_multisplit_reserve(group, valid, kGroups, out.sizes);
  if (!valid) return;
  if (at < s.capacity(group)) c.lists[group][at] = v;
  else atomicOr(&out.overflow, 1u);
}

/// Room per warp, in shared memory, for vertices the warp relaxes again
/// itself later in the same round (see local_queue).
inline constexpr std::uint32_t kLocalRoom = 128;

/// A warp's own worklist for the current bucket. A target whose distance
/// fell into the current bucket would wait for the next round (a grid
/// barrier and a re-read of the frontier, ~7 us on an H100); on meshes and
/// roads, whose rounds hold a few thousand vertices, that wait is the whole
/// cost, and rounds follow the hop depth of the shortest-path tree. Relaxing
/// such a target's edges at once, up to control::relax_depth hops past the
/// frontier, covers several hops per round. It stays correct because every
/// fall of dist[t] still leads to one relaxation of t's edges from a distance
/// read afterwards (here, or in the next frontier when the queue is full or
/// the depth used up). Every lane holds the same `size`.
struct local_queue {
  vertex_t* items;
  std::uint8_t* depths;  ///< hops past the frontier of each item
  std::uint32_t size;

  /// The calling warp's queue (shared memory; kBlock / 32 warps per block).
  __device__ static local_queue of_this_warp() {
    __shared__ vertex_t items[kBlock / 32][kLocalRoom];
    __shared__ std::uint8_t depths[kBlock / 32][kLocalRoom];
    const unsigned w = threadIdx.x / 32;
    return {items[w], depths[w], 0};
  }
};

/// Relaxes edge e (if `valid`) from a vertex at distance du, `depth` hops
/// past the frontier, and sends its target on if its distance fell: to the
/// warp's queue or the next frontier if it stays in the current bucket, to
/// another list if it moved to another bucket (see control.cuh).
/// Warp-converged.
template <class View>
__device__ inline void relax_step(const View& s, const control& c, phase_counters& out, bit_span_ref next_mask,
                                  bool valid, edge_t e, gpu_distance du, std::uint32_t depth, local_queue& q) {
  vertex_t t = 0;
  std::uint32_t group = 0;
  bool moved = false, here = false;  // here: fell into the current bucket
  if (valid) {
    t = s.graph.targets[e];
    const gpu_distance nd = du + (s.graph.weights ? static_cast<gpu_distance>(s.graph.weights[e]) : 1ull);
    // A plain read first: distances only fall, so a stale value can cost an
    // extra atomic but never skips a needed one. Past the frontier the warp
    // is on a chain of dependent loads, one per hop: the atomic alone is a
    // step shorter.
    if (depth > 0 || nd < s.distance(t)) {
      // nd is below the old distance, so it fits the array's width.
      using dist_type = std::remove_reference_t<decltype(*s.dist)>;
      const gpu_distance old = s.widen(atomicMin(&s.dist[t], static_cast<dist_type>(nd)));
      if (nd < old) {
        group = group_of(nd, c.base, c.delta);
        if (group == c.bucket) here = true;
        else moved = old == kGpuUnreachable || group_of(old, c.base, c.delta) != group;
      }
    }
  }
  // Into the warp's queue while it has room; the rest to the next frontier,
  // once per round (its mask).
  bool keep = here && depth < c.relax_depth;
  const unsigned keepers = __ballot_sync(kAllLanes, keep);
  if (keepers != 0) {
    const std::uint32_t at = q.size + __popc(keepers & ((1u << lane()) - 1u));
    keep = keep && at < kLocalRoom;
    if (keep) {
      q.items[at] = t;
      q.depths[at] = static_cast<std::uint8_t>(depth + 1);
    }
    q.size = min(kLocalRoom, q.size + __popc(keepers));
  }
  if (here && !keep) moved = next_mask.set(t);
  append(s, c, out, moved, group, t);
}

/// Relaxes the out-edges of the lanes' vertices (degree 0 for none; degrees
/// below kHeavyDegree) as one gathered list: walked 32 edges at a time, each
/// lane finding its vertex by a 5-step search over the lanes' offsets, so
/// every step but the last uses all 32 lanes. Warp-converged.
template <class View>
__device__ inline void relax_gathered(const View& s, const control& c, phase_counters& out, bit_span_ref next_mask,
                                      gpu_distance du, edge_t begin, std::uint32_t degree, std::uint32_t depth,
                                      local_queue& q) {
  std::uint32_t inclusive = degree;
  for (int o = 1; o < 32; o *= 2) {
    const std::uint32_t y = __shfl_up_sync(kAllLanes, inclusive, o);
    if (lane() >= static_cast<unsigned>(o)) inclusive += y;
  }
  const std::uint32_t total = __shfl_sync(kAllLanes, inclusive, 31);
  const std::uint32_t exclusive = inclusive - degree;
  for (std::uint32_t base = 0; base < total; base += 32) {
    const std::uint32_t k = base + lane();
    int owner = 0;  // the last lane whose list starts at or before k
    for (int step = 16; step > 0; step /= 2)
      if (__shfl_sync(kAllLanes, exclusive, owner + step) <= k) owner += step;
    const edge_t b = __shfl_sync(kAllLanes, begin, owner);
    const std::uint32_t start = __shfl_sync(kAllLanes, exclusive, owner);
    const gpu_distance dl = __shfl_sync(kAllLanes, du, owner);
    const std::uint32_t hops = __shfl_sync(kAllLanes, depth, owner);
    relax_step(s, c, out, next_mask, k < total, b + (k - start), dl, hops, q);
  }
}

/// Empties the warp's queue: up to 32 vertices at a time, relaxed from their
/// current distance, which may refill it (up to relax_depth hops). A vertex
/// already in the next frontier is left to it; a hub goes to the next
/// frontier too, as only the frontier phase queues hub chunks.
/// Warp-converged; adds the edges it walks to `examined`.
template <class View>
__device__ inline void relax_queued(const View& s, const control& c, phase_counters& out, bit_span_ref next_mask,
                                    local_queue& q, unsigned long long& examined) {
  while (q.size > 0) {
    __syncwarp();  // the lanes' queue writes are visible to the whole warp
    const std::uint32_t take = min(32u, q.size);
    const std::uint32_t first = q.size - take;
    vertex_t v = 0;
    std::uint32_t depth = 0;
    gpu_distance du = 0;
    edge_t begin = 0, degree = 0;
    if (lane() < take) {
      v = q.items[first + lane()];
      depth = q.depths[first + lane()];
      // All four loads at once (the test does not gate the others): each hop
      // of the chain waits for them.
      const bool pending = next_mask.test(v);
      du = s.distance(v);
      begin = s.graph.offsets[v];
      const edge_t end = s.graph.offsets[v + 1];
      degree = pending ? 0 : end - begin;
    }
    __syncwarp();  // read before the walk below pushes over these slots
    q.size = first;
    const bool hub = degree >= kHeavyDegree;
    append(s, c, out, hub && next_mask.set(v), c.bucket, v);
    if (hub) degree = 0;
    examined += degree;
    relax_gathered(s, c, out, next_mask, du, begin, static_cast<std::uint32_t>(degree), depth, q);
  }
}

/// Phase kRelaxFrontier.
template <class View>
__device__ inline void relax_frontier(const View& s, const control& c, phase_counters& out) {
  const bit_span_ref next_mask = s.masks[c.round & 1];
  const bit_span_ref this_mask = s.masks[(c.round + 1) & 1];  // built this frontier; cleared for round + 1
  local_queue q = local_queue::of_this_warp();
  unsigned long long examined = 0;
  // A warp takes up to 32 vertices; fewer when the frontier is too small to
  // give every warp 32, since a warp walks its vertices' edges one step
  // after another (a round lasts as long as its longest walk).
  const std::uint32_t warps = warp_count();
  const std::uint32_t width = min(32u, max(1u, (c.frontier_size + warps - 1) / warps));
  for (std::uint32_t tile = warp_index() * width; tile < c.frontier_size; tile += warps * width) {
    const std::uint32_t i = tile + lane();
    vertex_t v = 0;
    gpu_distance du = 0;
    edge_t begin = 0, degree = 0;
    if (lane() < width && i < c.frontier_size) {
      v = c.frontier[i];
      this_mask.clear_word_of(v);
      // A vertex that fell again this round is already in the next frontier
      // and will be relaxed from its lower distance then.
      if (!next_mask.test(v)) {
        du = s.distance(v);
        begin = s.graph.offsets[v];
        degree = s.graph.offsets[v + 1] - begin;
      }
    }
    examined += degree;

    // Hubs: cut into chunks for the next phase.
    if (degree >= kHeavyDegree) {
      const auto chunks = static_cast<std::uint32_t>((degree + kChunkEdges - 1) / kChunkEdges);
      const std::uint32_t first = atomicAdd(&out.chunks, chunks);
      if (first + chunks > s.chunk_room) atomicOr(&out.overflow, 1u);
      for (std::uint32_t k = 0; k < chunks && first + k < s.chunk_room; ++k) {
        const edge_t offset = edge_t{k} * kChunkEdges;
        s.chunks[first + k] = {v, static_cast<std::uint32_t>(min(edge_t{kChunkEdges}, degree - offset)),
                               begin + offset};
      }
      degree = 0;
    }
    relax_gathered(s, c, out, next_mask, du, begin, static_cast<std::uint32_t>(degree), 0, q);
    relax_queued(s, c, out, next_mask, q, examined);
  }
  for (int o = 16; o > 0; o /= 2) examined += __shfl_down_sync(kAllLanes, examined, o);
  if (lane() == 0 && examined > 0) atomicAdd(&out.examined, examined);
}

/// Phase kRelaxChunks: warps take the queued hub chunks in turn.
template <class View>
__device__ inline void relax_chunks(const View& s, const control& c, phase_counters& out) {
  const bit_span_ref next_mask = s.masks[c.round & 1];
  local_queue q = local_queue::of_this_warp();
  unsigned long long examined = 0;
  for (std::uint32_t k = warp_index(); k < c.chunks; k += warp_count()) {
    const heavy_chunk chunk = s.chunks[k];
    const gpu_distance du = s.distance(chunk.vertex);
    for (std::uint32_t e = 0; e < chunk.count; e += 32)
      relax_step(s, c, out, next_mask, e + lane() < chunk.count, chunk.begin + e + lane(), du, 0, q);
    relax_queued(s, c, out, next_mask, q, examined);
  }
  for (int o = 16; o > 0; o /= 2) examined += __shfl_down_sync(kAllLanes, examined, o);
  if (lane() == 0 && examined > 0) atomicAdd(&out.examined, examined);
}

}  // namespace graphkit::sssp::detail
