// The dedup CPU path against its std::sort + unique oracle.
#include <gtest/gtest.h>

#include <random>

#include "apps/dedup/dedup.hpp"
#include "graph/io/load.hpp"
#include "tests/common/test_support.hpp"

namespace graphkit::dedup {
namespace {

TEST(Dedup, MatchesTheOracleOnDirtyRandomEdgeLists) {
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  std::mt19937_64 rng(seed);
  for (const double duplicate_rate : {0.0, 0.5, 0.99}) {
    for (const bool weighted : {false, true}) {
      coo_graph g;
      g.num_vertices = 300;
      for (std::size_t i = 0; i < 3000; ++i) {
        if (i > 0 && std::uniform_real_distribution<>(0, 1)(rng) < duplicate_rate) {
          const std::size_t j = rng() % i;  // repeat an earlier edge, maybe reversed
          const bool flip = rng() % 2;
          g.src.push_back(flip ? g.dst[j] : g.src[j]);
          g.dst.push_back(flip ? g.src[j] : g.dst[j]);
        } else {
          g.src.push_back(static_cast<vertex_t>(rng() % 300));
          g.dst.push_back(static_cast<vertex_t>(rng() % 300));
        }
        if (weighted) g.weights.push_back(static_cast<weight_t>(rng() % 1000));
      }
      for (const bool symmetrize : {false, true}) {
        for (const bool keep_loops : {false, true}) {
          for (const auto keep : {duplicate_weight::min, duplicate_weight::first, duplicate_weight::sum}) {
            const params p{symmetrize, keep_loops, keep};
            coo_graph actual = g;
            (void)run_cpu(actual, p);
            const apps::verification v = verify(run_reference(g, p), actual);
            ASSERT_TRUE(v.passed()) << "rate " << duplicate_rate << " weighted " << weighted << " sym " << symmetrize
                                    << " loops " << keep_loops << ": " << v.first[0];
          }
        }
      }
    }
  }
}

TEST(Dedup, ReportsMismatchesWithOriginalIds) {
  coo_graph a, b;
  a.num_vertices = b.num_vertices = 2;
  a.original_ids = b.original_ids = {100, 200};
  a.src = {0};
  a.dst = {1};
  b.src = {1};
  b.dst = {0};
  const apps::verification v = verify(a, b);
  ASSERT_EQ(v.mismatches, 1u);
  EXPECT_EQ(v.first[0], "edge 0: expected (100, 200), got (200, 100)");
}

TEST(Dedup, CaGrQcHasEachUndirectedEdgeTwice) {
  coo_graph g = load_graph(test::dataset("CA-GrQc.txt")).graph;
  const params p{true, false, duplicate_weight::min};
  const clean_stats stats = run_cpu(g, p);
  EXPECT_EQ(g.num_edges(), 14484u);      // the published undirected edge count
  EXPECT_EQ(stats.input_edges, 28979u);  // both directions plus 11 self-loops
  EXPECT_EQ(stats.self_loops_removed, 11u);
}

}  // namespace
}  // namespace graphkit::dedup
