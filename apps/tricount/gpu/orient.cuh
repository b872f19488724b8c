// Preprocessing for GPU triangle counting: orient the undirected graph, say
// which two-hop paths each vertex walks, and sort its vertices into work
// classes.
//
// Every edge {u, v} is kept once, from the lower to the higher (degree, id)
// vertex. Each triangle then has exactly one vertex whose two out-edges
// close it, and out-degrees stay at most sqrt(2m): hubs keep few out-edges.
// Adjacency lists stay sorted by id because the symmetric input's are.
//
// A triangle u -> v -> w (u -> w) is found on its edge u -> v, by
// intersecting the out-lists of u and v: the counter walks one of them and
// probes the other, staged as a set. The walk decides the work:
//   out_lists     u walks v's list for each v in its own: sum of d+(v)
//                 over the oriented edges, 1.1e10 paths on rmat:21 (counted
//                 on the CPU);
//   shorter_side  the edge is walked from the shorter out-list, by the end
//                 whose list is the longer one: x walks y's list for every
//                 neighbour y (either direction) with (d+(y), y) below
//                 (d+(x), x), so sum min(d+(u), d+(v)) paths: 4.8e9, and
//                 the same as out_lists on uniform graphs.
// Under shorter_side a vertex walks part of its own out-list (those below
// it) and its pull list: in-neighbours y -> x below it, written at
// orientation time in the slots of x's in-edges. --walk auto picks one per
// graph (auto_walk, apps/tricount/method.cpp) from two sums that the first
// pass adds up beside the out-degrees, before anything of shorter_side is
// built: under out_lists no pull list is written and no heavy class split.
#pragma once

#include <cstdint>

#include "apps/tricount/degree_order.hpp"

#include "graph/device_csr.hpp"

namespace graphkit::tricount::detail {

/// The oriented graph, as kernels see it.
struct oriented_view {
  vertex_t num_vertices;
  const edge_t* offsets;
  const vertex_t* targets;
  [[nodiscard]] __device__ std::uint32_t degree(vertex_t v) const {
    return static_cast<std::uint32_t>(offsets[v + 1] - offsets[v]);
  }
};

/// Whether the shorter-side walk has x pull y -> x: y's list is the shorter
/// (y below x in (d+, id) order), and holds something besides x (a list of
/// x alone closes no triangle).
__device__ inline bool pulls(std::uint32_t x_out_degree, vertex_t x, std::uint32_t y_out_degree, vertex_t y) {
  return y_out_degree >= 2 && ranks_below(y_out_degree, y, x_out_degree, x);
}

/// The lists vertex x walks, as one sequence: its out-list, then its pull
/// list (empty under out_lists). Under shorter_side, the out-list entries
/// not below x are skipped (walks() is false): their own vertex pulls x.
struct walk_list {
  const vertex_t* out;  ///< x's out-list: also the set the walk probes
  std::uint32_t out_size;
  const vertex_t* pulled;
  std::uint32_t pulled_size;
  vertex_t owner;
  bool shorter_side;

  [[nodiscard]] __device__ std::uint32_t size() const { return out_size + pulled_size; }
  [[nodiscard]] __device__ vertex_t operator[](std::uint32_t k) const {
    return k < out_size ? out[k] : pulled[k - out_size];
  }
  /// Whether x walks y's list (y_out_degree = d+(y)); true for every pulled y.
  [[nodiscard]] __device__ bool walks(vertex_t y, std::uint32_t y_out_degree) const {
    return !shorter_side || ranks_below(y_out_degree, y, out_size, owner);
  }
};

/// The shorter-side walk's pull lists: vertex x's are kept in the slots of
/// its in-edges, from in_begin(x) (the in-edges of the vertices before it:
/// its full offset less its out offset), count[x] of them used. Without
/// targets (nullptr) the walk is out_lists.
struct pull_lists {
  const edge_t* full_offsets;  ///< the symmetric CSR's
  const edge_t* out_offsets;   ///< the oriented CSR's
  vertex_t* targets;           ///< m slots, or nullptr
  std::uint32_t* count;        ///< n

  [[nodiscard]] __device__ edge_t in_begin(vertex_t x) const { return full_offsets[x] - out_offsets[x]; }
  [[nodiscard]] __device__ walk_list walk_of(const oriented_view& g, vertex_t x) const {
    walk_list list{g.targets + g.offsets[x], g.degree(x), nullptr, 0, x, targets != nullptr};
    if (list.shorter_side) {
      list.pulled = targets + in_begin(x);
      list.pulled_size = count[x];
    }
    return list;
  }
};

/// --walk auto's two sums (walk_statistics: out-lists paths, squared
/// out-degrees) are added per block in shared memory, then by one atomic each
/// into slot pair blockIdx % kWalkStatSlots, so that no global address takes
/// more than 1/64 of the blocks' atomics; the host adds the pairs up.
inline constexpr unsigned kWalkStatSlots = 64;

/// out_degree[u] = number of u's neighbours that rank above u, and u's terms
/// of --walk auto's sums into walk_stats (2 * kWalkStatSlots, zeroed). A warp
/// per vertex, so hubs with many neighbours do not stall a thread.
static __global__ void count_out_edges_kernel(device_csr_view g, edge_t* out_degree, unsigned long long* walk_stats) {
  __shared__ unsigned long long block_sums[2];
  if (threadIdx.x < 2) block_sums[threadIdx.x] = 0;
  __syncthreads();
  const std::size_t warp = (std::size_t{blockIdx.x} * blockDim.x + threadIdx.x) / 32;
  const unsigned lane = threadIdx.x & 31;
  if (warp < g.num_vertices) {
    const auto u = static_cast<vertex_t>(warp);
    const edge_t begin = g.offsets[u], end = g.offsets[u + 1];
    edge_t count = 0;
    for (edge_t e = begin + lane; e < end; e += 32) {
      const vertex_t v = g.targets[e];
      count += ranks_below(end - begin, u, g.offsets[v + 1] - g.offsets[v], v);
    }
    for (int o = 16; o > 0; o /= 2) count += __shfl_down_sync(0xffffffffu, count, o);
    if (lane == 0) {
      out_degree[u] = count;
      // u's in-edges each walk its list under out_lists; its out-edges cost
      // shorter_side at most d+(u) each.
      atomicAdd(&block_sums[0], static_cast<unsigned long long>((end - begin - count) * count));
      atomicAdd(&block_sums[1], static_cast<unsigned long long>(count * count));
    }
  }
  __syncthreads();
  if (threadIdx.x < 2 && block_sums[threadIdx.x] != 0)
    atomicAdd(walk_stats + (blockIdx.x % kWalkStatSlots) * 2 + threadIdx.x, block_sums[threadIdx.x]);
}

/// Appends the lanes whose `keep` is set to list[next...], in lane order
/// (so sorted input stays sorted); returns how many it appended.
__device__ inline std::uint32_t warp_append(bool keep, vertex_t v, vertex_t* list, edge_t next) {
  const unsigned kept = __ballot_sync(0xffffffffu, keep);
  if (keep) list[next + __popc(kept & ((1u << (threadIdx.x & 31)) - 1))] = v;
  return static_cast<std::uint32_t>(__popc(kept));
}

/// Writes each vertex's upward neighbours, in the input's (sorted) order,
/// and, where pull.targets is set, the in-neighbours it pulls (the
/// out-degrees are known here: out_offsets is scanned).
static __global__ void fill_out_edges_kernel(device_csr_view g, pull_lists pull, vertex_t* out_targets) {
  const std::size_t warp = (std::size_t{blockIdx.x} * blockDim.x + threadIdx.x) / 32;
  const unsigned lane = threadIdx.x & 31;
  if (warp >= g.num_vertices) return;
  const auto u = static_cast<vertex_t>(warp);
  const edge_t begin = g.offsets[u], end = g.offsets[u + 1];
  const edge_t* out_offsets = pull.out_offsets;
  // Pulled lists are shorter than u's and of 2 or more: below 2, u pulls none
  // (and skips its in-neighbours' out-degrees; half of R-MAT's vertices).
  // Under out_lists nothing here reads an out-degree.
  const auto u_out_degree =
      pull.targets != nullptr ? static_cast<std::uint32_t>(out_offsets[u + 1] - out_offsets[u]) : 0u;
  const bool may_pull = u_out_degree >= 2;
  const edge_t pull_begin = pull.in_begin(u);
  edge_t next_out = out_offsets[u], next_pulled = pull_begin;
  for (edge_t base = begin; base < end; base += 32) {
    const edge_t e = base + lane;
    bool up = false, pulled = false;
    vertex_t v = 0;
    if (e < end) {
      v = g.targets[e];
      up = ranks_below(end - begin, u, g.offsets[v + 1] - g.offsets[v], v);
      pulled =
          !up && may_pull && pulls(u_out_degree, u, static_cast<std::uint32_t>(out_offsets[v + 1] - out_offsets[v]), v);
    }
    next_out += warp_append(up, v, out_targets, next_out);
    if (may_pull) next_pulled += warp_append(pulled, v, pull.targets, next_pulled);
  }
  if (pull.targets != nullptr && lane == 0) pull.count[u] = static_cast<std::uint32_t>(next_pulled - pull_begin);
}

/// Work classes: a vertex with fewer than two out-neighbours closes no
/// triangle; a light one is counted by a warp; a heavy one (many
/// out-neighbours, or many two-hop paths) by a block. Heavy vertices are
/// split further by their paths' bit length, longest first (class kHeavy),
/// so that the block kernel, which takes them in class order, starts the
/// longest and ends on short ones. Under shorter_side, rmat:21 has 28K heavy
/// vertices, the longest with 1.6M paths against ~4.3M per block in all; a
/// CPU model of the schedule put the last block 27% past the mean in id
/// order, and within 1% longest first. Under out_lists the heavy vertices
/// stay one class, in id order (kOutListsClasses): the split measured no
/// gain there (rmat:21 heavy 44.7 ms in id order, 45.3 split).
enum work_class : std::uint32_t { kNoWork = 0, kLight = 1, kHeavy = 2 };
/// Path counts of 2^31 and more share the first heavy class, those below 2^9 the last.
inline constexpr int kTopPathBits = 32, kHeavyClasses = 24;
inline constexpr std::uint32_t kWorkClasses = kHeavy + kHeavyClasses, kOutListsClasses = kHeavy + 1;

/// Largest out-degree a warp takes: its hash set (2 slots per element) fits
/// the warp's shared-memory slice. Larger ones are heavy.
inline constexpr std::uint32_t kWarpMaxOutDegree = 256;
/// Two-hop paths above which a vertex is heavy even with a small out-degree.
inline constexpr std::uint64_t kWarpMaxWedges = 1u << 14;

/// `longest_first`: split the heavy vertices by their paths' bit length.
__device__ inline std::uint32_t work_class_of(std::uint32_t out_degree, std::uint64_t paths, bool longest_first) {
  if (out_degree < 2 || paths == 0) return kNoWork;
  if (out_degree <= kWarpMaxOutDegree && paths <= kWarpMaxWedges) return kLight;
  if (!longest_first) return kHeavy;
  const int bits = 64 - __clzll(static_cast<long long>(paths));
  return kHeavy + static_cast<std::uint32_t>(min(max(kTopPathBits - bits, 0), kHeavyClasses - 1));
}

/// class_of[u] for each vertex, from its out-degree and the two-hop paths its
/// walk takes (the out-degrees of the lists it walks). A warp per vertex.
/// Heavy vertices are split longest first under shorter_side only.
static __global__ void classify_work_kernel(oriented_view g, pull_lists pull, std::uint32_t* class_of) {
  const std::size_t warp = (std::size_t{blockIdx.x} * blockDim.x + threadIdx.x) / 32;
  const unsigned lane = threadIdx.x & 31;
  if (warp >= g.num_vertices) return;
  const auto u = static_cast<vertex_t>(warp);
  const walk_list list = pull.walk_of(g, u);
  std::uint64_t paths = 0;
  for (std::uint32_t k = lane; k < list.size(); k += 32) {
    const vertex_t v = list[k];
    const std::uint32_t v_degree = g.degree(v);
    if (list.walks(v, v_degree)) paths += v_degree;
  }
  for (int o = 16; o > 0; o /= 2) paths += __shfl_down_sync(0xffffffffu, paths, o);
  if (lane == 0) class_of[u] = work_class_of(list.out_size, paths, list.shorter_side);
}

static __global__ void iota_kernel(vertex_t* out, vertex_t n) {
  const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (i < n) out[i] = static_cast<vertex_t>(i);
}

}  // namespace graphkit::tricount::detail
