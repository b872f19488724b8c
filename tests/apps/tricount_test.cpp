// Triangle-count oracles on graphs with known answers, against each other on
// random graphs, and on every shipped dataset against its published count;
// --walk auto's sums and rule (the GPU's choice, computed on the host).
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

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

TEST(TricountWalk, SumsOnSmallGraphs) {
  // K_3, ties by id: 0 -> 1, 0 -> 2, 1 -> 2; d+ = 2, 1, 0. out-lists walks
  // 1's list from 0 (1 path); sum of d+^2 = 5.
  walk_statistics s = walk_statistics_of(complete(3));
  EXPECT_EQ(s.out_lists_paths, 1u);
  EXPECT_EQ(s.out_degree_squares, 5u);
  EXPECT_EQ(s.oriented_edges, 3u);
  // A star: every leaf -> the centre, whose list is empty.
  coo_graph star;
  star.num_vertices = 11;
  for (vertex_t v = 1; v < 11; ++v) star.src.push_back(0), star.dst.push_back(v);
  s = walk_statistics_of(simple_undirected(star));
  EXPECT_EQ(s.out_lists_paths, 0u);
  EXPECT_EQ(s.out_degree_squares, 10u);
  EXPECT_EQ(s.oriented_edges, 10u);
  EXPECT_EQ(auto_walk(walk_statistics_of(complete(0))), walk::out_lists);
}

TEST(TricountWalk, AutoRuleAsksEightPathsSavedPerEdge) {
  EXPECT_EQ(auto_walk({100 + 8 * 10, 100, 10}), walk::out_lists);
  EXPECT_EQ(auto_walk({100 + 8 * 10 + 1, 100, 10}), walk::shorter_side);
  EXPECT_EQ(auto_walk({50, 100, 10}), walk::out_lists);  // the floor below 0
  EXPECT_EQ(auto_walk({}), walk::out_lists);
}

TEST(TricountWalk, AutoTakesShorterSideOnRmatAndOutListsOnRegularGraphs) {
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  for (const char* spec : {"rmat:16", "uniform:14", "uniform:12:8", "grid:64x64"}) {
    SCOPED_TRACE(spec);
    const csr_graph g = simple_undirected(generate(spec, seed));
    const walk_statistics s = walk_statistics_of(g);
    // The sums' meaning, edge by edge: out-lists walks d+(v) for each u -> v,
    // shorter-side at most min(d+(u), d+(v)), which sum d+(u)^2 bounds.
    auto points_to = [&](vertex_t a, vertex_t b) { return tricount::ranks_below(g.degree(a), a, g.degree(b), b); };
    std::vector<std::uint64_t> out(g.num_vertices);
    for (vertex_t u = 0; u < g.num_vertices; ++u)
      for (const vertex_t v : g.neighbors(u)) out[u] += points_to(u, v);
    std::uint64_t out_lists = 0, shorter = 0;
    for (vertex_t u = 0; u < g.num_vertices; ++u)
      for (const vertex_t v : g.neighbors(u))
        if (points_to(u, v)) out_lists += out[v], shorter += std::min(out[u], out[v]);
    EXPECT_EQ(s.out_lists_paths, out_lists);
    EXPECT_LE(shorter, s.out_degree_squares);
    EXPECT_EQ(auto_walk(s), spec[0] == 'r' ? walk::shorter_side : walk::out_lists);
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
