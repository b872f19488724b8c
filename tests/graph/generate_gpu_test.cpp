// --gen on the GPU against the host generators, edge for edge: R-MAT and
// uniform at small and odd sizes (scale 0, edge factor 1) with fresh seeds.
#include <gtest/gtest.h>

#include "graph/generate/generators.hpp"
#include "graph/gpu/generate_gpu.hpp"
#include "primitives/common/error.hpp"
#include "tests/common/gpu_support.hpp"
#include "tests/common/test_support.hpp"

namespace graphkit {
namespace {

TEST(GenerateGpu, RmatAndUniformEqualTheHostGenerators) {
  GRAPHKIT_REQUIRE_GPU();
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  for (const char* kind : {"rmat", "uniform"}) {
    for (const char* size : {"0:1", "1:3", "7:1", "12", "15:4"}) {
      const std::string spec = std::string(kind) + ":" + size;
      SCOPED_TRACE(spec);
      const coo_graph want = generate(spec, seed);
      std::optional<device_edges> got = generate_on_gpu(spec, seed);
      ASSERT_TRUE(got.has_value());
      coo_graph g;
      to_host(std::move(*got), g);
      EXPECT_EQ(want.num_vertices, g.num_vertices);
      EXPECT_EQ(want.directed, g.directed);
      EXPECT_TRUE(want.src == g.src) << "src differs";
      EXPECT_TRUE(want.dst == g.dst) << "dst differs";
      EXPECT_TRUE(g.weights.empty());
    }
  }
}

TEST(GenerateGpu, GridsStayOnTheHostAndBadSpecsAreInputErrors) {
  GRAPHKIT_REQUIRE_GPU();
  EXPECT_FALSE(generate_on_gpu("grid:4x4", 1).has_value());
  EXPECT_FALSE(generate_on_gpu("road:6", 1).has_value());
  EXPECT_THROW(generate_on_gpu("rmat:x", 1), input_error);
  EXPECT_THROW(generate_on_gpu("rmat:40", 1), input_error);
  EXPECT_THROW(generate_on_gpu("ring:3", 1), input_error);
}

}  // namespace
}  // namespace graphkit
