// GPU delta-stepping against Boost's Dijkstra: generated graphs of several
// shapes, weight ranges and deltas, the shipped road network, and the edge
// cases (one vertex, disconnected, unit weights, unweighted, long paths).
#include <gtest/gtest.h>

#include "apps/sssp/sssp.hpp"
#include "graph/build.hpp"
#include "graph/generate/generators.hpp"
#include "graph/io/load.hpp"
#include "primitives/common/error.hpp"
#include "tests/common/gpu_support.hpp"
#include "tests/common/test_support.hpp"

namespace graphkit::sssp {
namespace {

csr_graph generated(const std::string& spec, std::uint64_t seed, weight_t max_weight) {
  coo_graph coo = generate(spec, seed);
  clean_options rules;
  rules.random_weights = max_weight > 0;
  rules.max_random_weight = max_weight;
  rules.seed = seed;
  (void)clean(coo, rules);
  return to_csr(std::move(coo));
}

csr_graph make(vertex_t n, std::vector<std::tuple<vertex_t, vertex_t, weight_t>> edges) {
  coo_graph g;
  g.num_vertices = n;
  for (auto [u, v, w] : edges) g.src.push_back(u), g.dst.push_back(v), g.weights.push_back(w);
  return to_csr(std::move(g));
}

void expect_matches_oracle(const csr_graph& g, vertex_t source, const delta_choice& delta,
                           const solver_tuning& tuning = {}) {
  gpu_solver solver(g);
  solver.tune(tuning);
  gpu_stats stats;
  const result got = solver.run(source, delta, stats);
  const apps::verification v = verify(g, run_reference(g, source), got);
  EXPECT_TRUE(v.passed()) << v.mismatches << " mismatches, first: " << (v.first.empty() ? "" : v.first[0]) << " (delta "
                          << stats.delta_first << ")";
  const reach_summary host = reach_of(g, got), device = solver.reach();
  EXPECT_EQ(device, host) << "reach counted on the device: " << device.vertices << " vertices, " << device.edges
                          << " edges; on the host " << host.vertices << ", " << host.edges;
  EXPECT_GE(stats.rounds, 1u);
}

TEST(SsspGpu, GeneratedGraphsMatchBoost) {
  GRAPHKIT_REQUIRE_GPU();
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  for (const char* spec : {"rmat:10", "rmat:14", "uniform:12:4", "uniform:15", "grid:64x100"}) {
    for (const weight_t max_weight : {255, 100000}) {
      SCOPED_TRACE(std::string(spec) + ", weights 1.." + std::to_string(max_weight));
      const csr_graph g = generated(spec, seed, max_weight);
      const auto source = static_cast<vertex_t>(seed % g.num_vertices);
      expect_matches_oracle(g, source, {});
      expect_matches_oracle(g, source, {delta_choice::mode::adaptive, 0});
    }
  }
}

TEST(SsspGpu, EveryDeltaFromOneToBeyondTheLongestPath) {
  GRAPHKIT_REQUIRE_GPU();
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  const csr_graph g = generated("rmat:12", seed, 255);
  for (const std::uint64_t delta : {1ull, 7ull, 100ull, 1000ull, 1ull << 40, ~0ull}) {
    SCOPED_TRACE("delta " + std::to_string(delta));
    expect_matches_oracle(g, 0, {delta_choice::mode::fixed, delta});
  }
}

TEST(SsspGpu, HubsLargerThanTheHeavyThreshold) {
  GRAPHKIT_REQUIRE_GPU();
  // A star of 20000 leaves (chunked relaxation) whose leaves also form a path.
  std::vector<std::tuple<vertex_t, vertex_t, weight_t>> edges;
  const vertex_t leaves = 20000;
  for (vertex_t v = 1; v <= leaves; ++v) edges.emplace_back(0, v, 1000 + v % 77);
  for (vertex_t v = 1; v < leaves; ++v) edges.emplace_back(v, v + 1, 1);
  const csr_graph g = make(leaves + 1, edges);
  expect_matches_oracle(g, 0, {});
  expect_matches_oracle(g, 0, {delta_choice::mode::fixed, 1});
}

TEST(SsspGpu, RoadNetworkRome99) {
  GRAPHKIT_REQUIRE_GPU();
  const csr_graph g = to_csr(load_graph(test::dataset("rome99.gr")).graph);
  expect_matches_oracle(g, 0, {});
  expect_matches_oracle(g, 1000, {delta_choice::mode::adaptive, 0});
}

/// A path of 3,001 vertices whose first 7 are also hubs (out-degree ~430
/// each, so their edges are cut into chunks), weights 1..6.
csr_graph path_with_hubs() {
  std::vector<std::tuple<vertex_t, vertex_t, weight_t>> edges;
  for (vertex_t v = 1; v <= 3000; ++v) edges.emplace_back(v - 1, v, 1);
  for (vertex_t v = 7; v <= 3000; ++v) edges.emplace_back(v % 7, v, 2 + v % 5);
  return make(3001, edges);
}

// Relaxing ahead within a round (local_queue) at every depth, from none to
// past the queue's room, with few and many blocks; the path with hubs makes hubs enter
// a warp's queue (they go on to the next frontier) and floods the queue.
TEST(SsspGpu, RelaxDepthsAndBlockCountsMatchBoost) {
  GRAPHKIT_REQUIRE_GPU();
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  const std::pair<const char*, csr_graph> graphs[] = {
      {"grid:40x300", generated("grid:40x300", seed, 255)},
      {"rmat:12", generated("rmat:12", seed, 255)},
      {"uniform:12:2", generated("uniform:12:2", seed, 100000)},
      {"path with hubs", path_with_hubs()},
      {"rome99", to_csr(load_graph(test::dataset("rome99.gr")).graph)},
  };
  for (const auto& [name, g] : graphs) {
    const auto source = static_cast<vertex_t>(seed % g.num_vertices);
    for (const int depth : {0, 1, 2, 8, 200, 255}) {
      for (const unsigned blocks : {1u, 3u, 0u}) {
        SCOPED_TRACE(std::string(name) + ", relax depth " + std::to_string(depth) + ", blocks " +
                     std::to_string(blocks));
        const solver_tuning tuning{depth, blocks, false};  // the persistent kernel, even where the graph is small
        expect_matches_oracle(g, source, {}, tuning);
        if (depth == 8) expect_matches_oracle(g, source, {delta_choice::mode::adaptive, 0}, tuning);
      }
    }
  }
}

// Edge rows (a lane per edge of a vertex's first 4): vertices with edges
// past the row (the uniform graph's degrees reach ~20, the road's 9, the
// path's hubs ~430, cut into chunks from the frontier or sent on from a
// warp's queue), at several relax depths and block counts; and the auto
// choice: rows on a grid, not on a road (18% of its vertices have 5+ edges)
// nor on R-MAT.
TEST(SsspGpu, EdgeRowsMatchBoost) {
  GRAPHKIT_REQUIRE_GPU();
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  const std::pair<const char*, csr_graph> graphs[] = {
      {"grid:40x300", generated("grid:40x300", seed, 255)},
      {"road:13", generated("road:13", seed, 0)},
      {"uniform:12:6", generated("uniform:12:6", seed, 100000)},
      {"rmat:12", generated("rmat:12", seed, 255)},
      {"path with hubs", path_with_hubs()},
      {"rome99", to_csr(load_graph(test::dataset("rome99.gr")).graph)},
  };
  using rows = solver_tuning::edge_rows_mode;
  for (const auto& [name, g] : graphs) {
    const auto source = static_cast<vertex_t>(seed % g.num_vertices);
    for (const int depth : {0, 1, 8, 255}) {
      for (const unsigned blocks : {1u, 3u, 0u}) {
        SCOPED_TRACE(std::string(name) + ", relax depth " + std::to_string(depth) + ", blocks " +
                     std::to_string(blocks));
        expect_matches_oracle(g, source, {}, {depth, blocks, false, rows::on});
        if (depth == 8)
          expect_matches_oracle(g, source, {delta_choice::mode::adaptive, 0}, {depth, blocks, false, rows::on});
      }
    }
  }
  for (const auto& [spec, expected] : {std::pair{"grid:40x300", true}, {"road:13", false}, {"rmat:12", false}}) {
    SCOPED_TRACE(spec);
    const csr_graph g = generated(spec, seed, 255);
    gpu_solver solver(g);
    solver.tune({solver_tuning::kAutoRelaxDepth, 0, false});
    gpu_stats stats;
    solver.solve(0, {}, stats);
    EXPECT_EQ(stats.edge_rows, expected);
    solver.tune({solver_tuning::kAutoRelaxDepth, 0, false, rows::off});
    solver.solve(0, {}, stats);
    EXPECT_FALSE(stats.edge_rows);
  }
}

// The in-phase pool (apps/sssp/gpu/pool.cuh): on and off, with rows and
// without, with one block (its warps alone publish and take), a few, and the
// whole GPU; a pool of 1, 16 or 1000 slots sends the rest to the next round
// (its overflow path), and the hubs of the path with hubs, taken from the pool, are cut
// into chunks there. stats.pool says whether it ran: only where the relax
// depth is above 0.
TEST(SsspGpu, InPhasePoolMatchesBoost) {
  GRAPHKIT_REQUIRE_GPU();
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  const std::pair<const char*, csr_graph> graphs[] = {
      {"grid:60x200", generated("grid:60x200", seed, 255)},
      {"road:14", generated("road:14", seed, 0)},
      {"rmat:12", generated("rmat:12", seed, 255)},
      {"path with hubs", path_with_hubs()},
  };
  using rows = solver_tuning::edge_rows_mode;
  for (const auto& [name, g] : graphs) {
    const auto source = static_cast<vertex_t>(seed % g.num_vertices);
    for (const rows layout : {rows::off, rows::on}) {
      for (const int depth : {1, 4, 8}) {
        for (const unsigned blocks : {1u, 3u, 0u}) {
          for (const std::uint32_t room : {0u, 1u, 16u, 1000u}) {
            SCOPED_TRACE(std::string(name) + (layout == rows::on ? ", rows" : "") + ", relax depth " +
                         std::to_string(depth) + ", blocks " + std::to_string(blocks) + ", pool room " +
                         std::to_string(room));
            expect_matches_oracle(g, source, {}, {depth, blocks, false, layout, true, room});
          }
        }
      }
    }
  }
  const csr_graph g = generated("road:14", seed, 0);
  gpu_solver solver(g);
  gpu_stats stats;
  for (const auto& [depth, pool, expected] :
       {std::tuple{4, true, true}, {0, true, false}, {4, false, false}, {solver_tuning::kAutoRelaxDepth, true, true}}) {
    SCOPED_TRACE("relax depth " + std::to_string(depth) + (pool ? ", pool" : ", no pool"));
    solver.tune({depth, 0, false, rows::automatic, pool});
    solver.solve(0, {}, stats);
    EXPECT_EQ(stats.pool, expected);
  }
}

// Graphs that fit one block's shared memory are solved there; the rest, and
// every graph when asked, by the persistent kernel; both agree with Boost.
TEST(SsspGpu, SharedMemoryKernelTakesSmallGraphsOnly) {
  GRAPHKIT_REQUIRE_GPU();
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  const csr_graph rome = to_csr(load_graph(test::dataset("rome99.gr")).graph);
  const csr_graph big = generated("grid:300x300", seed, 255);  // ~360,000 arcs: too many
  for (const bool allowed : {true, false}) {
    for (const csr_graph* g : {&rome, &big}) {
      gpu_solver solver(*g);
      solver.tune({solver_tuning::kAutoRelaxDepth, 0, allowed});
      gpu_stats stats;
      const auto source = static_cast<vertex_t>(seed % g->num_vertices);
      const result got = solver.run(source, {}, stats);
      EXPECT_EQ(stats.shared_memory_kernel, allowed && g == &rome);
      const apps::verification v = verify(*g, run_reference(*g, source), got);
      EXPECT_TRUE(v.passed()) << v.mismatches << " mismatches, first: " << (v.first.empty() ? "" : v.first[0]);
    }
  }
  // Dense and small: every vertex a hub; 64-bit distances in shared memory.
  const csr_graph dense = generated("uniform:8:40", seed, 100000);
  expect_matches_oracle(dense, 1, {});
  const weight_t big_weight = 2'000'000'000;
  std::vector<std::tuple<vertex_t, vertex_t, weight_t>> chain;
  for (vertex_t v = 0; v + 1 < 900; ++v) chain.emplace_back(v, v + 1, big_weight - static_cast<weight_t>(v));
  expect_matches_oracle(make(900, chain), 0, {});
}

TEST(SsspGpu, EdgeCases) {
  GRAPHKIT_REQUIRE_GPU();
  SCOPED_TRACE("single vertex");
  expect_matches_oracle(make(1, {}), 0, {});
  SCOPED_TRACE("disconnected: two components and an isolated vertex");
  expect_matches_oracle(make(7, {{0, 1, 3}, {1, 2, 4}, {2, 0, 1}, {4, 5, 2}, {5, 6, 2}}), 0, {});
  SCOPED_TRACE("every weight 1, and zero weights");
  expect_matches_oracle(generated("uniform:10:8", 5, 1), 3, {});
  expect_matches_oracle(make(4, {{0, 1, 0}, {1, 2, 0}, {2, 3, 5}, {0, 3, 6}}), 0, {delta_choice::mode::fixed, 2});
  SCOPED_TRACE("unweighted (weight 1)");
  expect_matches_oracle(generated("rmat:9", 9, 0), 0, {});
  SCOPED_TRACE("long paths overflow 32 bits");
  const weight_t big = 2'000'000'000;
  expect_matches_oracle(make(4, {{0, 1, big}, {1, 2, big}, {2, 3, big}}), 0, {});
}

TEST(SsspGpu, DistanceWidthFollowsTheLongestPossiblePath) {
  GRAPHKIT_REQUIRE_GPU();
  // 2 hops of 2^31 - 1: the farthest vertex sits at 2^32 - 2, one below the
  // 32-bit "unreached" value, so 32-bit distances still hold every path.
  const weight_t w = 2'147'483'647;
  const csr_graph narrow = make(3, {{0, 1, w}, {1, 2, w}});
  gpu_solver solver(narrow);
  gpu_stats stats;
  const result got = solver.run(0, {}, stats);
  EXPECT_EQ(stats.distance_bits, 32u);
  ASSERT_EQ(got.distances.size(), 3u);
  EXPECT_EQ(got.distances[2], distance_t{4'294'967'294});
  // One more vertex (unreached) allows a 3-hop path: 64-bit distances.
  const csr_graph wide = make(4, {{0, 1, w}, {1, 2, w}});
  gpu_solver wide_solver(wide);
  const result wide_got = wide_solver.run(0, {}, stats);
  EXPECT_EQ(stats.distance_bits, 64u);
  EXPECT_EQ(wide_got.distances[2], distance_t{4'294'967'294});
  EXPECT_EQ(wide_got.distances[3], kUnreachable);
  expect_matches_oracle(wide, 0, {});
}

TEST(SsspGpu, ManySourcesReuseOneSolver) {
  GRAPHKIT_REQUIRE_GPU();
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  const csr_graph g = generated("uniform:11:6", seed, 255);
  gpu_solver solver(g);
  for (vertex_t s : {0u, 17u, 2047u}) {
    gpu_stats stats;
    const result got = solver.run(s, {}, stats);
    EXPECT_TRUE(verify(g, run_reference(g, s), got).passed()) << "source " << s;
    EXPECT_TRUE(verify_certificate(g, s, got).passed()) << "source " << s;
  }
  gpu_stats stats;
  EXPECT_THROW(solver.run(g.num_vertices, {}, stats), input_error);
}

}  // namespace
TEST(SsspGpu, SolverOnTheGpuBuildsCsrMatchesTheUploadingOne) {
  GRAPHKIT_REQUIRE_GPU();
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  coo_graph coo = generate_rmat(12, 8, seed);
  assign_random_weights(coo, seed);
  const csr_graph g = to_csr(std::move(coo));
  gpu_solver uploading(g);
  gpu_solver taking(to_device(g));  // as the apps hand over the GPU build's CSR
  gpu_stats a, b;
  const vertex_t source = static_cast<vertex_t>(seed % g.num_vertices);
  const result want = uploading.run(source, {}, a);
  const result got = taking.run(source, {}, b);
  EXPECT_EQ(got.distances, want.distances);
  EXPECT_EQ(b.delta_first, a.delta_first);
  EXPECT_EQ(b.delta_first, heuristic_delta(g));  // the device's degree profile is the host's
  EXPECT_EQ(b.distance_bits, a.distance_bits);
  const apps::verification v = verify(g, run_reference(g, source), got);
  EXPECT_TRUE(v.passed()) << v.mismatches << " mismatches";
}

// Road-like graphs with their own length weights (thousands of rounds of small
// frontiers, the sparse fast links), against Boost from several sources and deltas.
TEST(SsspGpu, RoadGraphsMatchBoost) {
  GRAPHKIT_REQUIRE_GPU();
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  for (const char* spec : {"road:0", "road:1", "road:10", "road:12:1", "road:14:2", "road:16"}) {
    SCOPED_TRACE(spec);
    const csr_graph g = generated(spec, seed, 0);
    for (const vertex_t source : {vertex_t{0}, static_cast<vertex_t>(seed % g.num_vertices), g.num_vertices - 1}) {
      SCOPED_TRACE("source " + std::to_string(source));
      expect_matches_oracle(g, source, {});
      expect_matches_oracle(g, source, {delta_choice::mode::adaptive, 0});
    }
    for (const std::uint64_t delta : {1ull, 64ull, 4096ull, 1ull << 40})
      expect_matches_oracle(g, static_cast<vertex_t>((seed >> 20) % g.num_vertices),
                            {delta_choice::mode::fixed, delta});
  }
}

}  // namespace graphkit::sssp
