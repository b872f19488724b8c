// The vertex frontier: sparse <-> dense conversion and deduplication.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "graph/frontier.cuh"
#include "primitives/common/error.hpp"
#include "tests/common/gpu_support.hpp"
#include "tests/common/test_support.hpp"

namespace graphkit {
namespace {

TEST(VertexFrontier, DeduplicatesAndSortsThroughTheBitmap) {
  GRAPHKIT_REQUIRE_GPU();
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  std::mt19937_64 rng(seed);
  for (const vertex_t n : {1u, 100u, 70000u}) {
    vertex_frontier frontier(n);
    for (const std::size_t size : {std::size_t{0}, std::size_t{1}, std::size_t{5000}}) {
      std::vector<vertex_t> vertices(size);
      for (auto& v : vertices) v = static_cast<vertex_t>(rng() % n);
      device_buffer<vertex_t> d{std::span<const vertex_t>(vertices)};
      frontier.assign(d.data(), size);
      EXPECT_FALSE(frontier.is_dense());
      EXPECT_EQ(frontier.size(), size);
      frontier.deduplicate();
      std::sort(vertices.begin(), vertices.end());
      vertices.erase(std::unique(vertices.begin(), vertices.end()), vertices.end());
      ASSERT_EQ(frontier.size(), vertices.size());
      std::vector<vertex_t> got(frontier.size());
      if (!got.empty())
        GRAPHKIT_CUDA_TRY(
            cudaMemcpy(got.data(), frontier.vertices(), got.size() * sizeof(vertex_t), cudaMemcpyDeviceToHost));
      EXPECT_EQ(got, vertices);
      frontier.to_dense();
      EXPECT_TRUE(frontier.is_dense());
      EXPECT_EQ(frontier.bitmap().count(), vertices.size());
    }
  }
}

TEST(VertexFrontier, OutOfRangeVerticesAreAnError) {
  GRAPHKIT_REQUIRE_GPU();
  vertex_frontier frontier(10);
  const std::vector<vertex_t> bad = {3, 10};
  device_buffer<vertex_t> d{std::span<const vertex_t>(bad)};
  frontier.assign(d.data(), bad.size());
  EXPECT_THROW(frontier.to_dense(), error);
}

}  // namespace
}  // namespace graphkit
