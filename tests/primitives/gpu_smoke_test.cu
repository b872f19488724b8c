// The GPU test mechanism itself: allocate, launch, check, copy back, and skip
// with a reason where there is no CUDA device (CI).
#include <gtest/gtest.h>

#include <numeric>

#include "graph/build.hpp"
#include "graph/device_csr.hpp"
#include "graph/generate/generators.hpp"
#include "primitives/common/device.hpp"
#include "primitives/common/device_buffer.hpp"
#include "primitives/common/error.hpp"
#include "tests/common/gpu_support.hpp"

namespace graphkit {
namespace {

__global__ void degree_kernel(device_csr_view g, edge_t* degrees) {
  const auto v = static_cast<vertex_t>(blockIdx.x * blockDim.x + threadIdx.x);
  if (v < g.num_vertices) degrees[v] = g.offsets[v + 1] - g.offsets[v];
}

TEST(GpuSmoke, KernelComputesDegreesOfADeviceCsr) {
  GRAPHKIT_REQUIRE_GPU();
  coo_graph coo = generate("rmat:12", 7);
  const csr_graph g = to_csr(std::move(coo));
  const device_csr d = to_device(g);
  device_buffer<edge_t> degrees(g.num_vertices);
  degrees.fill_bytes(0xff);  // poison: every entry must be written
  const unsigned blocks = (g.num_vertices + 255) / 256;
  degree_kernel<<<blocks, 256>>>(d.view(), degrees.data());
  GRAPHKIT_CHECK_LAUNCH();
  const std::vector<edge_t> got = degrees.to_host();
  for (vertex_t v = 0; v < g.num_vertices; ++v) ASSERT_EQ(got[v], g.degree(v)) << "vertex " << v;
  const csr_graph back = to_host(d);
  EXPECT_EQ(back.offsets, g.offsets);
  EXPECT_EQ(back.targets, g.targets);
}

TEST(GpuSmoke, ImpossibleAllocationIsAClearError) {
  GRAPHKIT_REQUIRE_GPU();
  try {
    device_buffer<char> huge(std::size_t{1} << 50);  // a petabyte
    FAIL() << "allocation of 2^50 bytes succeeded";
  } catch (const device_memory_error& e) {
    EXPECT_NE(std::string(e.what()).find("out of GPU memory: asked for 1125899906842624 bytes"), std::string::npos)
        << e.what();
  }
  // The failure must not poison later work.
  device_buffer<int> fine(16);
  fine.fill_bytes(0);
  GRAPHKIT_CUDA_TRY(cudaDeviceSynchronize());
}

TEST(GpuSmoke, FailedCallNamesItself) {
  GRAPHKIT_REQUIRE_GPU();
  try {
    GRAPHKIT_CUDA_TRY(cudaSetDevice(1 << 20));
    FAIL() << "cudaSetDevice(2^20) succeeded";
  } catch (const cuda_error& e) {
    EXPECT_NE(std::string(e.what()).find("cudaSetDevice"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("cudaErrorInvalidDevice"), std::string::npos) << e.what();
  }
}

TEST(GpuSmoke, ReportsWhyItSkips) {
  // Always runs: on a machine without a device the reason must be non-empty.
  if (cuda_device_count() == 0) EXPECT_FALSE(cuda_unavailable_reason().empty());
  else EXPECT_TRUE(cuda_unavailable_reason().empty());
}

}  // namespace
}  // namespace graphkit
