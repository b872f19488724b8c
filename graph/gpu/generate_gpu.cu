// generate_on_gpu: the R-MAT and uniform generators as kernels, one thread per
// edge, computing the host generators' edges (graph/generate/edge_rules.hpp).
// R-MAT's label permutation is a serial Fisher-Yates on the host (n values,
// ~10 ns each), uploaded and applied on the device.
#include "graph/generate/edge_rules.hpp"
#include "graph/generate/generators.hpp"
#include "graph/gpu/detail/memory.hpp"
#include "graph/gpu/generate_gpu.hpp"
#include "graph/host_transfer.hpp"
#include "primitives/common/error.hpp"
#include "primitives/common/launch.hpp"
#include "primitives/common/nvtx.hpp"

namespace graphkit {
namespace {

__global__ void rmat_kernel(std::uint64_t stream, std::size_t m, unsigned scale, detail::rmat_thresholds t,
                            const vertex_t* perm, vertex_t* src, vertex_t* dst) {
  const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (i >= m) return;
  const detail::vertex_pair e = detail::rmat_edge(stream, i, scale, t);
  src[i] = perm[e.u];
  dst[i] = perm[e.v];
}

__global__ void uniform_kernel(std::uint64_t stream, std::size_t m, std::uint64_t n, vertex_t* src, vertex_t* dst) {
  const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (i >= m) return;
  const detail::vertex_pair e = detail::uniform_edge(stream, i, n);
  src[i] = e.u;
  dst[i] = e.v;
}

}  // namespace

std::optional<device_edges> generate_on_gpu(const std::string& spec, std::uint64_t seed) {
  nvtx_range range("graphkit::generate_on_gpu");
  const generator_spec g = parse_generator_spec(spec);
  // grid and road stay on the host, and the caller uploads their edges: a grid
  // is cheap there, and road's nearest-point searches and connectivity joins
  // are no per-edge rule.
  if (g.kind == generator_spec::grid || g.kind == generator_spec::road) return std::nullopt;
  const std::uint64_t n = std::uint64_t{1} << g.scale;
  const std::size_t m = std::size_t{g.edge_factor} << g.scale;
  detail::require_device_memory("generate_on_gpu", m, 8 * m + 4 * n);
  device_edges out;
  out.num_vertices = static_cast<vertex_t>(n);
  out.directed = false;
  out.src = device_buffer<vertex_t>(m);
  out.dst = device_buffer<vertex_t>(m);
  if (g.kind == generator_spec::rmat) {
    const rmat_params p;
    const std::vector<vertex_t> perm = rmat_permutation(g.scale, seed);
    const device_buffer<vertex_t> d_perm = upload(std::span<const vertex_t>(perm));
    rmat_kernel<<<blocks_for(m), 256>>>(detail::rmat_stream(seed), m, g.scale,
                                        detail::rmat_thresholds_of(p.a, p.b, p.c), d_perm.data(), out.src.data(),
                                        out.dst.data());
  } else {
    uniform_kernel<<<blocks_for(m), 256>>>(detail::uniform_stream(seed), m, n, out.src.data(), out.dst.data());
  }
  GRAPHKIT_CHECK_LAUNCH();
  GRAPHKIT_CUDA_TRY(cudaDeviceSynchronize());
  return out;
}

}  // namespace graphkit
