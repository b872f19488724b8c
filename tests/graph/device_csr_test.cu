// graph/device_csr.hpp: a host CSR to the device and back, and a kernel
// reading it through device_csr_view, against the host graph.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "graph/build.hpp"
#include "graph/device_csr.hpp"
#include "graph/generate/generators.hpp"
#include "primitives/common/device_buffer.hpp"
#include "primitives/common/error.hpp"
#include "primitives/common/launch.hpp"
#include "tests/common/gpu_support.hpp"
#include "tests/common/test_support.hpp"

namespace graphkit {
namespace {

__global__ void degree_kernel(device_csr_view g, edge_t* degrees) {
  const auto v = static_cast<vertex_t>(blockIdx.x * blockDim.x + threadIdx.x);
  if (v < g.num_vertices) degrees[v] = g.offsets[v + 1] - g.offsets[v];
}

/// Degrees from a kernel reading the device CSR, and the CSR back on the host,
/// both against the host graph.
void expect_same_on_device(const csr_graph& g) {
  const device_csr d = to_device(g);
  if (g.num_vertices > 0) {
    device_buffer<edge_t> degrees(g.num_vertices);
    degrees.fill_bytes(0xff);  // poison: every entry must be written
    degree_kernel<<<blocks_for(g.num_vertices), 256>>>(d.view(), degrees.data());
    GRAPHKIT_CHECK_LAUNCH();
    const std::vector<edge_t> got = degrees.to_host();
    for (vertex_t v = 0; v < g.num_vertices; ++v) ASSERT_EQ(got[v], g.degree(v)) << "vertex " << v;
  }
  const csr_graph back = to_host(d);
  EXPECT_EQ(back.num_vertices, g.num_vertices);
  EXPECT_EQ(back.offsets, g.offsets);
  EXPECT_EQ(back.targets, g.targets);
  EXPECT_EQ(back.weights, g.weights);
}

TEST(DeviceCsr, KernelReadsDegreesAndTheCsrRoundTrips) {
  GRAPHKIT_REQUIRE_GPU();
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  for (const char* spec : {"rmat:12", "uniform:10", "grid:7x3"}) {
    SCOPED_TRACE(spec);
    coo_graph coo = generate(spec, seed);
    assign_random_weights(coo, seed);
    expect_same_on_device(to_csr(std::move(coo)));
  }
}

TEST(DeviceCsr, OneVertexAndNoVertices) {
  GRAPHKIT_REQUIRE_GPU();
  for (const vertex_t n : {vertex_t{0}, vertex_t{1}}) {
    coo_graph coo;
    coo.num_vertices = n;
    expect_same_on_device(to_csr(std::move(coo)));
  }
}

}  // namespace
}  // namespace graphkit
