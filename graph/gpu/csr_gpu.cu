// to_csr_on_gpu: the directed arcs, multisplit by source range, each range
// sorted, offsets from a histogram of sources.
#include <thrust/execution_policy.h>
#include <thrust/transform_reduce.h>

#include <algorithm>
#include <limits>

#include "graph/gpu/detail/memory.hpp"
#include "graph/gpu/detail/sort.hpp"
#include "graph/gpu/pipeline.hpp"
#include "primitives/common/error.hpp"
#include "primitives/multisplit/multisplit.cuh"

namespace graphkit {
namespace {

constexpr std::uint64_t kNoArc = std::numeric_limits<std::uint64_t>::max();
/// Source ranges; the last multisplit bucket takes the unused arc slots.
constexpr std::uint32_t kRanges = kMultisplitBlockMaxBuckets - 1;

unsigned blocks_for(std::size_t n) { return static_cast<unsigned>((n + 255) / 256); }

/// Arc slots 2i (edge i as given) and 2i + 1 (its reverse, for undirected
/// non-loop edges; unused otherwise). This order is to_csr()'s placement
/// order, so the stable sorts below keep duplicate arcs as it does.
__global__ void expand_arcs_kernel(const vertex_t* src, const vertex_t* dst, const weight_t* weights, std::size_t m,
                                   bool both_ways, std::uint64_t* keys, std::int32_t* arc_weights,
                                   unsigned long long* degree) {
  const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (i >= m) return;
  const vertex_t u = src[i], v = dst[i];
  const std::int32_t w = weights ? weights[i] : 0;
  keys[2 * i] = (std::uint64_t{u} << 32) | v;
  arc_weights[2 * i] = w;
  atomicAdd(&degree[u], 1ull);
  if (both_ways && u != v) {
    keys[2 * i + 1] = (std::uint64_t{v} << 32) | u;
    atomicAdd(&degree[v], 1ull);
  } else {
    keys[2 * i + 1] = kNoArc;
  }
  arc_weights[2 * i + 1] = w;
}

struct source_range_of {
  std::uint64_t range;
  __device__ std::uint32_t operator()(std::uint64_t key) const {
    return key == kNoArc ? kRanges : static_cast<std::uint32_t>((key >> 32) / range);
  }
};

__global__ void split_arcs_kernel(const std::uint64_t* keys, std::size_t n, vertex_t* targets) {
  const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (i < n) targets[i] = static_cast<vertex_t>(keys[i]);
}

}  // namespace

device_csr to_csr_on_gpu(const coo_graph& g) {
  detail::require_device_memory("to_csr_on_gpu", g.num_edges(), 84 * g.num_edges() + 8 * (std::size_t{g.num_vertices} + 1));
  return to_csr_device(to_device(g));
}

device_csr to_csr_device(const device_edges& g) {
  const vertex_t n = g.num_vertices;
  const std::size_t m = g.num_edges();
  const bool weighted = g.weighted();
  device_csr out;
  out.num_vertices = n;
  out.directed = g.directed;
  out.offsets = device_buffer<edge_t>(std::size_t{n} + 1);
  out.offsets.fill_bytes(0);
  if (m == 0) return out;

  const std::size_t slots = 2 * m;
  // Peak per edge: two arc slots of 12 B, their multisplit copy, and the sort's copy.
  detail::require_device_memory("to_csr_on_gpu", m, 72 * m + 8 * (std::size_t{n} + 1));
  device_buffer<std::uint64_t> keys(slots);
  device_buffer<std::int32_t> arc_weights(slots);
  expand_arcs_kernel<<<blocks_for(m), 256>>>(g.src.data(), g.dst.data(), weighted ? g.weights.data() : nullptr, m,
                                             !g.directed, keys.data(), arc_weights.data(),
                                             reinterpret_cast<unsigned long long*>(out.offsets.data()));
  GRAPHKIT_CHECK_LAUNCH();
  detail::exclusive_scan(out.offsets.data(), std::size_t{n} + 1);

  // Multisplit by source range (stable), then sort each range on the bits it needs.
  const std::uint64_t range = std::max<std::uint64_t>(1, (std::uint64_t{n} + kRanges - 1) / kRanges);
  device_buffer<std::uint64_t> split_keys(slots);
  device_buffer<std::int32_t> split_weights(slots);
  device_buffer<std::uint32_t> offsets(kRanges + 2);
  multisplit_workspace workspace;
  multisplit_pairs_async(keys.data(), arc_weights.data(), split_keys.data(), split_weights.data(), slots,
                         kRanges + 1, source_range_of{range}, offsets.data(), workspace);
  workspace.throw_if_out_of_range(kRanges + 1);
  keys = {};
  arc_weights = {};
  std::uint32_t arcs = 0;  // everything before the unused-slot bucket
  GRAPHKIT_CUDA_TRY(cudaMemcpy(&arcs, offsets.data() + kRanges, sizeof arcs, cudaMemcpyDeviceToHost));
  detail::sort_segments(split_keys, split_weights, arcs, offsets.data(), kRanges,
                        std::min(64, 32 + detail::bits_for(n)));

  out.targets = device_buffer<vertex_t>(arcs);
  split_arcs_kernel<<<blocks_for(arcs), 256>>>(split_keys.data(), arcs, out.targets.data());
  GRAPHKIT_CHECK_LAUNCH();
  if (weighted) {
    out.weights = device_buffer<weight_t>(arcs);
    if (arcs > 0)
      GRAPHKIT_CUDA_TRY(
          cudaMemcpy(out.weights.data(), split_weights.data(), arcs * sizeof(weight_t), cudaMemcpyDeviceToDevice));
  }
  return out;
}

namespace {

struct weight_triple {
  double sum;
  weight_t min, max;
};
struct as_triple {
  __device__ weight_triple operator()(weight_t w) const { return {static_cast<double>(w), w, w}; }
};
struct combine_triples {
  __device__ weight_triple operator()(const weight_triple& a, const weight_triple& b) const {
    return {a.sum + b.sum, a.min < b.min ? a.min : b.min, a.max > b.max ? a.max : b.max};
  }
};

}  // namespace

weight_summary summarize_weights(const device_csr& g) {
  const edge_t m = g.num_edges();
  if (g.weights.empty() || m == 0) return {static_cast<double>(m), 1, 1};
  const weight_triple t = thrust::transform_reduce(
      thrust::device, g.weights.data(), g.weights.data() + m, as_triple{},
      weight_triple{0.0, std::numeric_limits<weight_t>::max(), std::numeric_limits<weight_t>::min()},
      combine_triples{});
  GRAPHKIT_CHECK_LAUNCH();
  return {t.sum, t.min, t.max};
}

}  // namespace graphkit
