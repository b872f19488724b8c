// to_csr_on_gpu (the build without cleaning), and the device CSR's weight
// and degree summaries.
#include <thrust/iterator/counting_iterator.h>
#include <thrust/system/cuda/execution_policy.h>
#include <thrust/transform_reduce.h>

#include <limits>

#include "graph/gpu/pipeline.hpp"
#include "primitives/common/error.hpp"

namespace graphkit {

device_csr to_csr_on_gpu(const coo_graph& g, cudaStream_t stream) {
  clean_stats unused;
  return build_csr_device(to_device(g, stream), clean_options{}, unused, 0, stream);
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

namespace {
struct squared_degree {
  const edge_t* offsets;
  __device__ std::uint64_t operator()(vertex_t v) const {
    const std::uint64_t d = offsets[v + 1] - offsets[v];
    return d * d;
  }
};
}  // namespace

std::uint64_t sum_squared_degrees(const device_csr& g, cudaStream_t stream) {
  if (g.num_vertices == 0) return 0;
  const std::uint64_t sum =
      thrust::transform_reduce(thrust::cuda::par.on(stream), thrust::counting_iterator<vertex_t>(0),
                               thrust::counting_iterator<vertex_t>(g.num_vertices), squared_degree{g.offsets.data()},
                               std::uint64_t{0}, cuda::std::plus<std::uint64_t>{});
  GRAPHKIT_CHECK_LAUNCH();
  return sum;
}

weight_summary summarize_weights(const device_csr& g, cudaStream_t stream) {
  const edge_t m = g.num_edges();
  if (g.weights.empty() || m == 0) return {static_cast<double>(m), 1, 1};
  const weight_triple t = thrust::transform_reduce(
      thrust::cuda::par.on(stream), g.weights.data(), g.weights.data() + m, as_triple{},
      weight_triple{0.0, std::numeric_limits<weight_t>::max(), std::numeric_limits<weight_t>::min()},
      combine_triples{});
  GRAPHKIT_CHECK_LAUNCH();
  return {t.sum, t.min, t.max};
}

}  // namespace graphkit
