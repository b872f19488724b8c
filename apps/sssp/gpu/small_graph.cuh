// SSSP on a graph small enough to live in one block's shared memory.
//
// On a road network of a few thousand vertices (rome99: 3,353 vertices,
// 8,870 arcs) the persistent kernel spends its time on hops, not edges:
// ~120 dependent rounds whose every step is a global-memory load (0.3-0.5 ms
// in all). Here one block copies the whole CSR and the distances into shared
// memory, where a load takes tens of cycles instead of hundreds and a round
// ends at __syncthreads instead of a grid barrier, and runs frontier
// Bellman-Ford rounds: every vertex whose distance fell in a round relaxes
// its edges in the next (once per round, through a bitmap). Without buckets
// some vertices relax more than once, which shared memory makes cheap.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cooperative_groups.h>

#include "apps/sssp/gpu/control.cuh"
#include "graph/device_csr.hpp"

namespace graphkit::sssp::detail {

inline constexpr int kSmallBlock = 1024;
/// Lanes per frontier vertex at most (bench/NOTES.md SSSP step 41: 4 and 8
/// alike on rome99, whose vertices have at most 5 out-edges; 2 half the gain).
inline constexpr std::uint32_t kSmallGroupMax = 4;

/// Where each array sits in the block's dynamic shared memory: the
/// distances first (they may be 8-byte words), then 32-bit words.
template <class Dist>
struct small_graph_layout {
  std::size_t n, m;
  bool weighted;

  [[nodiscard]] __host__ __device__ std::size_t mask_words() const { return (n + 31) / 32; }
  /// Offsets of the 32-bit arrays, in words after the distances.
  [[nodiscard]] __host__ __device__ std::size_t offsets_at() const { return 0; }
  [[nodiscard]] __host__ __device__ std::size_t targets_at() const { return offsets_at() + n + 1; }
  [[nodiscard]] __host__ __device__ std::size_t weights_at() const { return targets_at() + m; }
  [[nodiscard]] __host__ __device__ std::size_t lists_at() const { return weights_at() + (weighted ? m : 0); }
  [[nodiscard]] __host__ __device__ std::size_t masks_at() const { return lists_at() + 2 * n; }
  [[nodiscard]] __host__ __device__ std::size_t words() const { return masks_at() + 2 * mask_words(); }
  [[nodiscard]] __host__ __device__ std::size_t distance_bytes() const { return (n * sizeof(Dist) + 7) / 8 * 8; }
  [[nodiscard]] __host__ __device__ std::size_t bytes() const { return distance_bytes() + 4 * words(); }
};

/// What the host reads back after a solve.
struct small_graph_stats {
  unsigned long long rounds;
  unsigned long long examined;
};

/// log2 of the lanes per frontier vertex in a round of `size` vertices: the
/// widest group, up to kSmallGroupMax lanes, that leaves every vertex a group.
/// Unrolled into compares: every warp computes it every round.
__device__ inline std::uint32_t group_shift(std::uint32_t size) {
  std::uint32_t shift = 0;
#pragma unroll
  for (std::uint32_t s = 1; (1u << s) <= kSmallGroupMax; ++s)
    shift += size << s <= static_cast<std::uint32_t>(kSmallBlock) ? 1u : 0u;
  return shift;
}

/// dst[i] = src[i] for i < count, by the whole block, Batch loads in flight
/// per thread: the graph comes from the L2 on every solve, and one load at a
/// time took ~5,000 cycles, ~2.5% of a rome99 solve (step 43).
template <std::uint32_t Batch, class To, class From>
__device__ void copy_to_shared(To* dst, const From* src, std::uint32_t count) {
  for (std::uint32_t base = threadIdx.x; base < count; base += Batch * blockDim.x) {
    From got[Batch];
#pragma unroll
    for (std::uint32_t k = 0; k < Batch; ++k)
      if (base + k * blockDim.x < count) got[k] = src[base + k * blockDim.x];
#pragma unroll
    for (std::uint32_t k = 0; k < Batch; ++k)
      if (base + k * blockDim.x < count) dst[base + k * blockDim.x] = static_cast<To>(got[k]);
  }
}

/// A slot in a list whose size is `*size`, for each calling thread: one
/// atomic per group of converged threads instead of one each.
__device__ inline std::uint32_t append_slot(std::uint32_t* size) {
  namespace cg = cooperative_groups;
  const cg::coalesced_group group = cg::coalesced_threads();
  std::uint32_t base = 0;
  if (group.thread_rank() == 0) base = atomicAdd(size, group.size());
  return group.shfl(base, 0) + group.thread_rank();
}

/// One block, kSmallBlock threads, layout.bytes() of dynamic shared memory.
/// Writes every distance of the graph to `dist_out` (the largest Dist for
/// unreached).
template <class Dist>
__global__ void __launch_bounds__(kSmallBlock)
    small_graph_kernel(device_csr_view g, small_graph_layout<Dist> layout, vertex_t source, Dist* dist_out,
                       small_graph_stats* stats) {
  extern __shared__ unsigned long long shared_words[];  // 8-aligned
  auto* dist = reinterpret_cast<Dist*>(shared_words);
  auto* words = reinterpret_cast<std::uint32_t*>(reinterpret_cast<char*>(shared_words) + layout.distance_bytes());
  std::uint32_t* const offsets = words + layout.offsets_at();
  std::uint32_t* const targets = words + layout.targets_at();
  std::uint32_t* const weights = words + layout.weights_at();
  // The two frontiers and their bitmaps, by round parity.
  std::uint32_t* const lists = words + layout.lists_at();
  std::uint32_t* const masks = words + layout.masks_at();
  const std::size_t mask_words = layout.mask_words();
  // Frontier sizes in three slots: round r reads slot r % 3, appends to
  // (r + 1) % 3 and clears (r + 2) % 3, which nobody reads after the last
  // barrier, so one barrier per round suffices.
  __shared__ std::uint32_t sizes[3];
  __shared__ unsigned long long examined;

  const auto n = static_cast<std::uint32_t>(layout.n);
  const auto m = static_cast<std::uint32_t>(layout.m);
  const Dist unreached = static_cast<Dist>(~Dist{0});
  copy_to_shared<4>(offsets, g.offsets, n + 1);  // m < 2^32: the host checked
  for (std::uint32_t i = threadIdx.x; i < n; i += blockDim.x) dist[i] = i == source ? Dist{0} : unreached;
  copy_to_shared<16>(targets, g.targets, m);
  if (layout.weighted) copy_to_shared<16>(weights, g.weights, m);
  for (std::uint32_t w = threadIdx.x; w < 2 * mask_words; w += blockDim.x) masks[w] = 0;
  if (threadIdx.x == 0) {
    lists[0] = source;
    sizes[0] = 1;
    sizes[1] = 0;
    sizes[2] = 0;
    examined = 0;
  }
  __syncthreads();

  std::uint32_t round = 0;
  // This thread's edges, added up once at the end. 32 bits suffice: a vertex
  // relaxes at most once a round and a path has under n hops, so all threads
  // together walk under n * m edges, below 2^32 for any graph that fits.
  std::uint32_t walked = 0;
  for (; sizes[round % 3] > 0; ++round) {
    const std::uint32_t size = sizes[round % 3];
    if (threadIdx.x == 0) sizes[(round + 2) % 3] = 0;
    // A group of g lanes per frontier vertex, its edges split among them, g as
    // wide as the frontier leaves room for (up to kSmallGroupMax): a round
    // waits for its slowest lane, and a lane walking a vertex's edges one
    // after another pays each edge's chain of shared-memory waits in turn.
    // Shifts, not divisions: every warp, idle or not, computes its start each
    // round, and a division by a run-time g cost ~20 instructions (step 42).
    const std::uint32_t shift = group_shift(size);
    const std::uint32_t* const frontier = lists + (round & 1) * layout.n;
    std::uint32_t* const next = lists + ((round + 1) & 1) * layout.n;
    std::uint32_t* const next_mask = masks + ((round + 1) & 1) * mask_words;
    std::uint32_t* const this_mask = masks + (round & 1) * mask_words;  // marked this frontier; cleared for round + 1
    std::uint32_t* const next_size = &sizes[(round + 1) % 3];
    const std::uint32_t g = 1u << shift;
    const std::uint32_t lane_in_group = threadIdx.x & (g - 1);
    for (std::uint32_t i = threadIdx.x >> shift; i < size; i += static_cast<std::uint32_t>(kSmallBlock) >> shift) {
      const std::uint32_t v = frontier[i];
      if (lane_in_group == 0) this_mask[v >> 5] = 0;
      // Fallen again this round: it relaxes from its lower distance next round.
      if ((next_mask[v >> 5] >> (v & 31)) & 1u) continue;
      const Dist du = dist[v];
      const std::uint32_t first = offsets[v], last = offsets[v + 1];
      if (lane_in_group == 0) walked += last - first;
      for (std::uint32_t e = first + lane_in_group; e < last; e += g) {
        const std::uint32_t t = targets[e];
        const Dist nd = du + static_cast<Dist>(layout.weighted ? weights[e] : 1u);
        if (nd < dist[t] && nd < atomicMin(&dist[t], nd)) {
          const std::uint32_t bit = 1u << (t & 31);
          if ((atomicOr(&next_mask[t >> 5], bit) & bit) == 0) next[append_slot(next_size)] = t;
        }
      }
    }
    __syncthreads();  // the next frontier is complete
  }

  // One atomic per warp: a thread each onto one shared word serializes.
  unsigned long long warp_walked = walked;
  for (int o = 16; o > 0; o /= 2) warp_walked += __shfl_down_sync(0xffffffffu, warp_walked, o);
  if ((threadIdx.x & 31u) == 0 && warp_walked > 0) atomicAdd(&examined, warp_walked);
  __syncthreads();
  for (std::uint32_t i = threadIdx.x; i < n; i += blockDim.x) dist_out[i] = dist[i];
  if (threadIdx.x == 0) *stats = {round, examined};
}

}  // namespace graphkit::sssp::detail
