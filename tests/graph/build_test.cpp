// clean() and to_csr() against std containers.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>

#include "graph/build.hpp"
#include "graph/generate/generators.hpp"
#include "tests/common/test_support.hpp"

namespace graphkit {
namespace {

coo_graph random_dirty_graph(std::mt19937_64& rng, vertex_t n, std::size_t m, bool weighted) {
  coo_graph g;
  g.num_vertices = n;
  for (std::size_t i = 0; i < m; ++i) {
    g.src.push_back(static_cast<vertex_t>(rng() % n));
    g.dst.push_back(static_cast<vertex_t>(rng() % n));
    if (weighted) g.weights.push_back(static_cast<weight_t>(rng() % 100) - 10);
  }
  return g;
}

using edge_key = std::pair<vertex_t, vertex_t>;

TEST(Clean, MatchesAModelForEveryOptionMix) {
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  std::mt19937_64 rng(seed);
  for (const std::size_t m : {std::size_t{0}, std::size_t{1}, std::size_t{777}}) {
    for (const bool symmetrize : {false, true}) {
      for (const auto keep : {duplicate_weight::min, duplicate_weight::first, duplicate_weight::sum}) {
        const coo_graph input = random_dirty_graph(rng, 40, m, true);
        // Model: a map from (u, v) to the kept weight, in input order.
        std::map<edge_key, std::int64_t> model;
        std::size_t loops = 0;
        for (std::size_t i = 0; i < m; ++i) {
          vertex_t u = input.src[i], v = input.dst[i];
          if (symmetrize && u > v) std::swap(u, v);
          if (u == v) {
            ++loops;
            continue;
          }
          const auto [it, inserted] = model.emplace(edge_key{u, v}, input.weights[i]);
          if (!inserted && keep == duplicate_weight::min)
            it->second = std::min<std::int64_t>(it->second, input.weights[i]);
          if (!inserted && keep == duplicate_weight::sum) it->second += input.weights[i];
        }
        coo_graph g = input;
        clean_options options;
        options.symmetrize = symmetrize;
        options.drop_self_loops = true;
        options.drop_duplicates = true;
        options.keep = keep;
        const clean_stats stats = clean(g, options);
        EXPECT_EQ(stats.input_edges, m);
        EXPECT_EQ(stats.self_loops_removed, loops);
        EXPECT_EQ(stats.duplicates_removed, m - loops - model.size());
        ASSERT_EQ(g.num_edges(), model.size());
        std::size_t i = 0;
        for (const auto& [key, w] : model) {  // also checks the (src, dst) sort
          EXPECT_EQ(g.src[i], key.first);
          EXPECT_EQ(g.dst[i], key.second);
          EXPECT_EQ(g.weights[i], w);
          ++i;
        }
      }
    }
  }
}

TEST(ToCsr, StoresUndirectedEdgesBothWaysWithSortedNeighbours) {
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  std::mt19937_64 rng(seed);
  for (const bool directed : {true, false}) {
    coo_graph g = random_dirty_graph(rng, 60, 2000, true);
    g.directed = directed;
    std::vector<std::multiset<std::pair<vertex_t, weight_t>>> model(60);
    for (std::size_t i = 0; i < g.num_edges(); ++i) {
      model[g.src[i]].emplace(g.dst[i], g.weights[i]);
      if (!directed && g.src[i] != g.dst[i]) model[g.dst[i]].emplace(g.src[i], g.weights[i]);
    }
    const csr_graph csr = to_csr(std::move(g));
    ASSERT_EQ(csr.num_vertices, 60u);
    for (vertex_t u = 0; u < 60; ++u) {
      const auto nbrs = csr.neighbors(u);
      EXPECT_TRUE(std::is_sorted(nbrs.begin(), nbrs.end()));
      std::multiset<std::pair<vertex_t, weight_t>> got;
      for (edge_t e = csr.offsets[u]; e < csr.offsets[u + 1]; ++e) got.emplace(csr.targets[e], csr.weights[e]);
      EXPECT_EQ(got, model[u]) << "vertex " << u;
    }
  }
}

TEST(ToCsr, EmptyGraphs) {
  coo_graph none;
  const csr_graph a = to_csr(std::move(none));
  EXPECT_EQ(a.num_vertices, 0u);
  EXPECT_EQ(a.offsets, std::vector<edge_t>{0});
  coo_graph isolated;
  isolated.num_vertices = 5;
  const csr_graph b = to_csr(std::move(isolated));
  EXPECT_EQ(b.offsets, std::vector<edge_t>(6, 0));
}

TEST(RandomWeights, AreInRangeAndDependOnlyOnSeedAndIndex) {
  const std::uint64_t seed = test::fresh_seed();
  for (std::uint64_t i = 0; i < 10000; ++i) {
    const weight_t w = random_weight(seed, i, 255);
    ASSERT_GE(w, 1);
    ASSERT_LE(w, 255);
    ASSERT_EQ(w, random_weight(seed, i, 255));
  }
}

}  // namespace
}  // namespace graphkit
