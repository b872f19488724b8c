// Generators: determinism by seed, sizes, and the skew Graph500 R-MAT must show.
#include <gtest/gtest.h>

#include <algorithm>

#include "graph/build.hpp"
#include "graph/generate/generators.hpp"
#include "primitives/common/error.hpp"
#include "tests/common/test_support.hpp"

namespace graphkit {
namespace {

TEST(Generators, SameSeedSameGraphOtherSeedOtherGraph) {
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  for (const char* spec : {"rmat:12:8", "uniform:12:8", "grid:30x40"}) {
    SCOPED_TRACE(spec);
    const coo_graph a = generate(spec, seed), b = generate(spec, seed), c = generate(spec, seed + 1);
    EXPECT_EQ(a.src, b.src);
    EXPECT_EQ(a.dst, b.dst);
    EXPECT_EQ(a.weights, b.weights);
    if (std::string(spec).starts_with("grid")) EXPECT_NE(a.weights, c.weights);
    else EXPECT_NE(a.src, c.src);
  }
}

TEST(Generators, Sizes) {
  const coo_graph r = generate("rmat:10", 1);
  EXPECT_EQ(r.num_vertices, 1024u);
  EXPECT_EQ(r.num_edges(), 16u * 1024);
  EXPECT_FALSE(r.directed);
  const coo_graph u = generate("uniform:9:3", 1);
  EXPECT_EQ(u.num_vertices, 512u);
  EXPECT_EQ(u.num_edges(), 3u * 512);
  const coo_graph g = generate("grid:3x4", 1);
  EXPECT_EQ(g.num_vertices, 12u);
  EXPECT_EQ(g.num_edges(), 3u * 3 + 2u * 4);
  for (const weight_t w : g.weights) EXPECT_TRUE(w >= 1 && w <= 255);
  EXPECT_EQ(generate("grid:10", 1).num_vertices, 1024u);
  for (std::size_t i = 0; i < u.num_edges(); ++i) ASSERT_TRUE(u.src[i] < 512 && u.dst[i] < 512);
}

TEST(Generators, RmatIsSkewedUniformIsNot) {
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  clean_options rules;
  rules.drop_self_loops = rules.drop_duplicates = true;
  auto max_over_mean = [&](const char* spec) {
    coo_graph g = generate(spec, seed);
    (void)clean(g, rules);
    const csr_graph csr = to_csr(std::move(g));
    edge_t max_degree = 0;
    for (vertex_t v = 0; v < csr.num_vertices; ++v) max_degree = std::max(max_degree, csr.degree(v));
    return static_cast<double>(max_degree) / (static_cast<double>(csr.num_edges()) / csr.num_vertices);
  };
  // Graph500 R-MAT at scale 14: the hub has hundreds of times the mean degree.
  EXPECT_GT(max_over_mean("rmat:14"), 50.0);
  EXPECT_LT(max_over_mean("uniform:14"), 4.0);
}

TEST(Generators, BadSpecsAreInputErrors) {
  for (const char* spec : {"rmat", "rmat:x", "rmat:10:", "rmat:40", "uniform:10:0", "grid:0x4", "grid:3y4", "kron:3"}) {
    SCOPED_TRACE(spec);
    EXPECT_THROW((void)generate(spec, 1), input_error);
  }
}

}  // namespace
}  // namespace graphkit
