// SSSP oracles: Boost's Dijkstra on hand-made graphs with known distances, and
// against the textbook Dijkstra on random and real graphs.
#include <gtest/gtest.h>

#include "apps/sssp/sssp.hpp"
#include "graph/build.hpp"
#include "graph/generate/generators.hpp"
#include "graph/io/load.hpp"
#include "primitives/common/error.hpp"
#include "tests/common/test_support.hpp"

namespace graphkit::sssp {
namespace {

csr_graph make(vertex_t n, std::vector<std::tuple<vertex_t, vertex_t, weight_t>> edges, bool directed = true) {
  coo_graph g;
  g.num_vertices = n;
  g.directed = directed;
  for (auto [u, v, w] : edges) g.src.push_back(u), g.dst.push_back(v), g.weights.push_back(w);
  return to_csr(std::move(g));
}

TEST(SsspReference, HandMadeGraph) {
  // 0 -> 1 (4), 0 -> 2 (1), 2 -> 1 (2), 1 -> 3 (5); 4 unreachable; 3 -> 0 back edge.
  const csr_graph g = make(5, {{0, 1, 4}, {0, 2, 1}, {2, 1, 2}, {1, 3, 5}, {3, 0, 1}});
  const result r = run_reference(g, 0);
  EXPECT_EQ(r.distances, (std::vector<distance_t>{0, 3, 1, 8, kUnreachable}));
  EXPECT_EQ(run_reference(g, 4).distances,
            (std::vector<distance_t>{kUnreachable, kUnreachable, kUnreachable, kUnreachable, 0}));
  EXPECT_EQ(reach_of(g, r), (reach_summary{4, 5}));
}

TEST(SsspReference, LongPathsNeed64BitDistances) {
  const weight_t big = 2'000'000'000;
  const csr_graph g = make(4, {{0, 1, big}, {1, 2, big}, {2, 3, big}});
  EXPECT_EQ(run_reference(g, 0).distances[3], 3 * distance_t{big});
}

TEST(SsspReference, SingleVertexAndUnweightedGraph) {
  EXPECT_EQ(run_reference(make(1, {}), 0).distances, std::vector<distance_t>{0});
  coo_graph path;
  path.num_vertices = 4;
  path.directed = false;
  path.src = {0, 1, 2};
  path.dst = {1, 2, 3};
  const csr_graph g = to_csr(std::move(path));
  EXPECT_EQ(run_reference(g, 3).distances, (std::vector<distance_t>{3, 2, 1, 0}));
}

TEST(SsspReference, AgreesWithTextbookDijkstraOnGeneratedGraphs) {
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  for (const char* spec : {"rmat:11", "uniform:11:4", "grid:40x50"}) {
    SCOPED_TRACE(spec);
    coo_graph coo = generate(spec, seed);
    clean_options rules;
    rules.random_weights = std::string(spec).starts_with("grid") == false;
    rules.seed = seed;
    (void)clean(coo, rules);
    const csr_graph g = to_csr(std::move(coo));
    const vertex_t source = static_cast<vertex_t>(seed % g.num_vertices);
    const apps::verification v = verify(g, run_textbook_dijkstra(g, source), run_reference(g, source));
    EXPECT_TRUE(v.passed()) << (v.first.empty() ? "" : v.first[0]);
  }
}

TEST(SsspReference, Rome99AgreesWithTextbookDijkstra) {
  const csr_graph g = to_csr(load_graph(test::dataset("rome99.gr")).graph);
  ASSERT_EQ(g.num_vertices, 3353u);
  ASSERT_EQ(g.num_edges(), 8870u);
  for (const vertex_t source : {0u, 1000u, 3352u}) {
    const result r = run_reference(g, source);
    EXPECT_TRUE(verify(g, run_textbook_dijkstra(g, source), r).passed());
  }
}

TEST(SsspVerify, ReportsTheFirstMismatchesByOriginalId) {
  csr_graph g = make(3, {{0, 1, 1}});
  g.original_ids = {10, 20, 30};
  result a{{0, 1, kUnreachable}}, b{{0, 2, 5}};
  const apps::verification v = verify(g, a, b);
  EXPECT_EQ(v.mismatches, 2u);
  EXPECT_EQ(v.first[0], "vertex 20: expected 1, got 2");
  EXPECT_EQ(v.first[1], "vertex 30: expected unreachable, got 5");
}

TEST(SsspVerify, CertificateAcceptsTrueDistancesAndCatchesEachKindOfError) {
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  coo_graph coo = generate("uniform:10:6", seed);
  clean_options rules;
  rules.random_weights = true;
  rules.seed = seed;
  (void)clean(coo, rules);
  const csr_graph g = to_csr(std::move(coo));
  const result truth = run_reference(g, 0);
  EXPECT_TRUE(verify_certificate(g, 0, truth).passed());
  // Each kind of wrong answer: too long (an edge still relaxes), too short
  // (no tight in-edge), a source not at 0, a wrong length.
  const vertex_t some = g.targets[g.offsets[0]];  // a neighbour of the source
  for (const distance_t delta : {+1, -1}) {
    result wrong = truth;
    wrong.distances[some] += delta;
    EXPECT_FALSE(verify_certificate(g, 0, wrong).passed()) << "delta " << delta;
  }
  result unreached = truth;
  unreached.distances[some] = kUnreachable;
  EXPECT_FALSE(verify_certificate(g, 0, unreached).passed());
  result shifted = truth;
  for (auto& d : shifted.distances)
    if (d != kUnreachable) d += 1;
  EXPECT_FALSE(verify_certificate(g, 0, shifted).passed());
  EXPECT_FALSE(verify_certificate(g, 0, result{{0}}).passed());
}

TEST(SsspDelta, ParsesAutoAndPositiveIntegersOnly) {
  EXPECT_EQ(delta_choice::parse("auto").how, delta_choice::mode::adaptive);
  const delta_choice fixed = delta_choice::parse("300");
  EXPECT_EQ(fixed.how, delta_choice::mode::fixed);
  EXPECT_EQ(fixed.value, 300u);
  for (const char* bad : {"0", "-3", "1.5", "", "fast", "12x"})
    EXPECT_THROW(delta_choice::parse(bad), input_error) << bad;
}

TEST(SsspDelta, HeuristicNarrowsWithDegreeAndSkew) {
  // A 4-cycle both ways, weight 10: every degree 2, so delta = 256 * 10 / 2^2,
  // times 4 for a sparse, even graph.
  const csr_graph g =
      make(4, {{0, 1, 10}, {1, 0, 10}, {1, 2, 10}, {2, 1, 10}, {2, 3, 10}, {3, 2, 10}, {3, 0, 10}, {0, 3, 10}});
  EXPECT_EQ(heuristic_delta(g), 2560u);
  // A star of 3 leaves both ways: degrees 3, 1, 1, 1, mean 1.5, RMS sqrt(3)
  // (sparse and even too): 4 * 256 * 10 / 1.5^2 * sqrt(1.5 / sqrt(3)) = 4235.3.
  const csr_graph star = make(4, {{0, 1, 10}, {1, 0, 10}, {0, 2, 10}, {2, 0, 10}, {0, 3, 10}, {3, 0, 10}});
  EXPECT_EQ(heuristic_delta(star), 4235u);
  // Skewed: mean 9.5 > 8, no factor: 256 * 4 / 9.5^2 * sqrt(9.5 / RMS).
  graph_profile skewed{.edges = 1000, .mean_weight = 4, .mean_degree = 9.5, .rms_degree = 19};
  EXPECT_EQ(heuristic_delta(skewed), 8u);  // 11.35 * 0.7071 = 8.02
  EXPECT_EQ(heuristic_delta(make(2, {})), 1u);
}

TEST(SsspDelta, HeuristicNarrowsPast2To26Edges) {
  // Mean degree 16, no skew, mean weight 128: 256 * 128 / 256 = 128 up to 2^26 edges.
  graph_profile p{.edges = kDeltaFullEdges, .mean_weight = 128, .mean_degree = 16, .rms_degree = 16};
  EXPECT_EQ(heuristic_delta(p), 128u);
  p.edges = 4 * kDeltaFullEdges;
  EXPECT_EQ(heuristic_delta(p), 64u);
  p.edges = 64 * kDeltaFullEdges;
  EXPECT_EQ(heuristic_delta(p), 16u);
  p.edges = 1e15;  // never below 1
  EXPECT_EQ(heuristic_delta(p), 1u);
}

TEST(SsspTuning, RelaxesAheadOnSparseEvenGraphsOnly) {
  // A mesh (degree 4), a road network (~2.6), a 2-regular ring: ahead, 8
  // hops with edge rows, else 6 with the in-phase pool and 4 without.
  for (const bool rows : {true, false}) {
    for (const bool pool : {true, false}) {
      const std::uint32_t ahead = rows ? 8 : pool ? 6 : 4;
      auto depth = [&](const graph_profile& p) { return auto_relax_depth(p, rows, pool); };
      EXPECT_EQ(depth({.edges = 1 << 24, .mean_weight = 128, .mean_degree = 4, .rms_degree = 4}), ahead);
      EXPECT_EQ(depth({.edges = 8870, .mean_weight = 500, .mean_degree = 2.6, .rms_degree = 2.9}), ahead);
      EXPECT_EQ(depth({.edges = 8, .mean_weight = 1, .mean_degree = 2, .rms_degree = 2}), ahead);
      // Dense (uniform, degree 32) or skewed (R-MAT, RMS far above the mean): one hop per round.
      EXPECT_EQ(depth({.edges = 1 << 26, .mean_weight = 128, .mean_degree = 32, .rms_degree = 32}), 0u);
      EXPECT_EQ(depth({.edges = 1 << 26, .mean_weight = 128, .mean_degree = 6, .rms_degree = 40}), 0u);
      // Past the degree bound, even when even.
      EXPECT_EQ(depth({.edges = 1 << 20, .mean_weight = 1, .mean_degree = 8.5, .rms_degree = 8.5}), 0u);
    }
  }
}

}  // namespace
}  // namespace graphkit::sssp
