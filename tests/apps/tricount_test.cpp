// Triangle-count oracles on graphs with known answers, against each other on
// random graphs, and on every shipped dataset against its published count.
#include <gtest/gtest.h>

#include "apps/tricount/tricount.hpp"
#include "graph/build.hpp"
#include "graph/generate/generators.hpp"
#include "graph/io/load.hpp"
#include "tests/common/test_support.hpp"

namespace graphkit::tricount {
namespace {

csr_graph complete(vertex_t n) {
  coo_graph g;
  g.num_vertices = n;
  for (vertex_t u = 0; u < n; ++u)
    for (vertex_t v = u + 1; v < n; ++v) g.src.push_back(u), g.dst.push_back(v);
  return simple_undirected(std::move(g));
}

TEST(TricountOracles, KnownAnswers) {
  for (const vertex_t n : {0u, 1u, 2u, 3u, 4u, 10u, 30u}) {
    const csr_graph g = complete(n);
    const std::uint64_t expected = n < 3 ? 0 : std::uint64_t{n} * (n - 1) * (n - 2) / 6;
    EXPECT_EQ(run_reference(g, false).triangles, expected) << "K_" << n;
    EXPECT_EQ(count_by_merge(g, false).triangles, expected) << "K_" << n;
    if (n >= 3) {
      EXPECT_DOUBLE_EQ(global_clustering(g, expected), 1.0);
    }
  }
  coo_graph star, path;
  star.num_vertices = path.num_vertices = 50;
  for (vertex_t v = 1; v < 50; ++v) star.src.push_back(0), star.dst.push_back(v);
  for (vertex_t v = 1; v < 50; ++v) path.src.push_back(v - 1), path.dst.push_back(v);
  EXPECT_EQ(run_reference(simple_undirected(star), false).triangles, 0u);
  EXPECT_EQ(count_by_merge(simple_undirected(path), false).triangles, 0u);
}

TEST(TricountOracles, PerVertexCountsOnKn) {
  const csr_graph g = complete(7);
  for (const result& r : {run_reference(g, true), count_by_merge(g, true)}) {
    ASSERT_EQ(r.per_vertex.size(), 7u);
    for (const auto t : r.per_vertex) EXPECT_EQ(t, 15u);  // C(6, 2)
  }
}

TEST(TricountOracles, AgreeOnRandomGraphsIncludingPerVertex) {
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  for (const char* spec : {"rmat:10", "uniform:10:8", "grid:20x20"}) {
    SCOPED_TRACE(spec);
    const csr_graph g = simple_undirected(generate(spec, seed));
    const apps::verification v = verify(g, run_reference(g, true), count_by_merge(g, true));
    EXPECT_TRUE(v.passed()) << (v.first.empty() ? "" : v.first[0]);
  }
}

struct published {
  const char* file;
  vertex_t vertices;  // after loading (SNAP ids compacted)
  std::uint64_t triangles;
};

class Datasets : public ::testing::TestWithParam<published> {};

TEST_P(Datasets, MatchThePublishedTriangleCount) {
  const published& p = GetParam();
  const csr_graph g = simple_undirected(load_graph(test::dataset(p.file)).graph);
  EXPECT_EQ(g.num_vertices, p.vertices);
  EXPECT_EQ(count_by_merge(g, false).triangles, p.triangles);
  EXPECT_EQ(run_reference(g, false).triangles, p.triangles);
}

INSTANTIATE_TEST_SUITE_P(Shipped, Datasets,
                         ::testing::Values(published{"karate.mtx", 34, 45}, published{"jagmesh7.mtx", 1138, 2016},
                                           published{"bcsstk13.mtx", 2003, 342300},
                                           published{"CA-GrQc.txt", 5241, 48260},
                                           published{"p2p-Gnutella04.txt", 10876, 934},
                                           published{"facebook_combined.txt", 4039, 1612010}),
                         [](const auto& info) {
                           std::string name = info.param.file;
                           for (char& c : name)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return name;
                         });

}  // namespace
}  // namespace graphkit::tricount
