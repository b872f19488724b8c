// GPU triangle counting, every method under both walks and auto's, against
// Boost and the published counts: complete graphs, stars and paths, empty and
// one-edge graphs, wheels and hub cliques (where the shorter-side walk pulls,
// in the warp and the block kernels, across equal out-degrees), generated
// R-MAT (skewed, with heavy vertices), uniform and grid graphs, hubs beyond
// shared memory, and every shipped dataset. Per-vertex counts against
// Boost's. --walk auto's choice on R-MAT, uniform and grid graphs.
#include <gtest/gtest.h>

#include "apps/tricount/tricount.hpp"
#include "graph/build.hpp"
#include "graph/generate/generators.hpp"
#include "graph/io/load.hpp"
#include "primitives/common/error.hpp"
#include "tests/common/gpu_support.hpp"
#include "tests/common/test_support.hpp"

namespace graphkit::tricount {
namespace {

constexpr method kMethods[] = {method::automatic, method::merge, method::hash, method::bitmap};
constexpr walk kWalks[] = {walk::automatic, walk::out_lists, walk::shorter_side};

/// Calls check(m, w) for every method and walk, each traced.
template <class Check>
void for_each_method_and_walk(Check&& check) {
  for (const method m : kMethods)
    for (const walk w : kWalks) {
      SCOPED_TRACE(std::string(method_name(m)) + ", " + walk_name(w));
      check(m, w);
    }
}

/// Every method and walk finds `triangles`.
void expect_count(const csr_graph& g, std::uint64_t triangles) {
  gpu_counter counter(g);
  for_each_method_and_walk([&](method m, walk w) {
    gpu_stats stats;
    EXPECT_EQ(counter.run(m, false, stats, w).triangles, triangles);
  });
}

csr_graph complete(vertex_t n) {
  coo_graph g;
  g.num_vertices = n;
  for (vertex_t u = 0; u < n; ++u)
    for (vertex_t v = u + 1; v < n; ++v) g.src.push_back(u), g.dst.push_back(v);
  return simple_undirected(std::move(g));
}

/// Boost's count costs O(sum of d^3) (an edge lookup per pair of
/// neighbours): the oracle for small graphs. Larger or hub-heavy ones answer
/// to count_by_merge, which the CPU tests check against Boost.
void expect_matches_oracle(const csr_graph& g, bool per_vertex, bool use_boost) {
  EXPECT_EQ(wedges(to_device(g)), wedges(g));  // the GPU path's clustering coefficient counts them there
  const result expected = use_boost ? run_reference(g, per_vertex) : count_by_merge(g, per_vertex);
  gpu_counter counter(g);
  for_each_method_and_walk([&](method m, walk w) {
    gpu_stats stats;
    const result got = counter.run(m, per_vertex, stats, w);
    const apps::verification v = verify(g, expected, got);
    EXPECT_TRUE(v.passed()) << v.mismatches << " mismatches, first: " << (v.first.empty() ? "" : v.first[0]);
    EXPECT_EQ(stats.oriented_edges * 2, g.num_edges());
  });
}

TEST(TricountGpu, CompleteGraphsStarsAndPaths) {
  GRAPHKIT_REQUIRE_GPU();
  // K_600: out-degrees up to 599, so heavy vertices use the block kernel.
  for (const vertex_t n : {0u, 1u, 2u, 3u, 4u, 33u, 600u}) {
    SCOPED_TRACE("K_" + std::to_string(n));
    expect_count(complete(n), n < 3 ? 0 : std::uint64_t{n} * (n - 1) * (n - 2) / 6);
  }
  coo_graph star, path;
  star.num_vertices = path.num_vertices = 5000;
  for (vertex_t v = 1; v < 5000; ++v) star.src.push_back(0), star.dst.push_back(v);
  for (vertex_t v = 1; v < 5000; ++v) path.src.push_back(v - 1), path.dst.push_back(v);
  for (const csr_graph& g : {simple_undirected(star), simple_undirected(path)}) expect_count(g, 0);
}

TEST(TricountGpu, EdgelessAndOneEdgeGraphs) {
  GRAPHKIT_REQUIRE_GPU();
  coo_graph edgeless, one_edge;
  edgeless.num_vertices = 7;
  one_edge.num_vertices = 7;
  one_edge.src = {5};
  one_edge.dst = {2};
  expect_count(simple_undirected(std::move(edgeless)), 0);
  expect_count(simple_undirected(std::move(one_edge)), 0);
}

/// A hub joined to every vertex of a cycle of `rim` vertices: `rim`
/// triangles. Rim vertices have equal degrees and mostly equal out-degrees
/// (2: a rim neighbour and the hub), so the shorter-side walk breaks ties by
/// id and pulls: vertex i + 1 walks i's list {i + 1, hub}.
csr_graph wheel(vertex_t rim) {
  coo_graph g;
  g.num_vertices = rim + 1;
  for (vertex_t v = 0; v < rim; ++v) {
    g.src.push_back(v), g.dst.push_back((v + 1) % rim);
    g.src.push_back(v), g.dst.push_back(rim);
  }
  return simple_undirected(std::move(g));
}

TEST(TricountGpu, WheelsPullAcrossEqualOutDegrees) {
  GRAPHKIT_REQUIRE_GPU();
  for (const vertex_t rim : {4u, 5u, 100u, 3000u}) {
    SCOPED_TRACE("rim " + std::to_string(rim));
    const csr_graph g = wheel(rim);
    expect_count(g, rim);
    if (rim <= 100) expect_matches_oracle(g, true, true);
  }
}

/// K_hubs plus `pendants` vertices of degree 2, each joined to two hubs
/// (spread over all pairs): C(hubs, 3) + pendants triangles. A pendant's
/// out-list is the two hubs, shorter than most hubs' lists of the hubs above
/// them, so those hubs pull the pendants: the shorter-side walk finds the
/// pendants' triangles only through pull lists, long ones on the first hubs.
csr_graph hub_clique_with_pendants(vertex_t hubs, vertex_t pendants) {
  coo_graph g;
  g.num_vertices = hubs + pendants;
  for (vertex_t u = 0; u < hubs; ++u)
    for (vertex_t v = u + 1; v < hubs; ++v) g.src.push_back(u), g.dst.push_back(v);
  for (vertex_t p = 0; p < pendants; ++p) {
    const vertex_t a = p % hubs, b = (a + 1 + (p / hubs) % (hubs - 1)) % hubs;
    g.src.push_back(hubs + p), g.dst.push_back(a);
    g.src.push_back(hubs + p), g.dst.push_back(b);
  }
  return simple_undirected(std::move(g));
}

TEST(TricountGpu, HubCliquesPullTheirPendants) {
  GRAPHKIT_REQUIRE_GPU();
  // 40 hubs: out-degrees up to 39, warps pull; 600 hubs: up to 599, blocks
  // pull (and the bitmap and hash methods' block kernels for every class).
  for (const vertex_t hubs : {40u, 600u}) {
    SCOPED_TRACE(std::to_string(hubs) + " hubs");
    const vertex_t pendants = 20 * hubs;
    const csr_graph g = hub_clique_with_pendants(hubs, pendants);
    expect_count(g, std::uint64_t{hubs} * (hubs - 1) * (hubs - 2) / 6 + pendants);
    expect_matches_oracle(g, true, hubs <= 40);
  }
}

TEST(TricountGpu, GeneratedGraphsMatchTheOracleIncludingPerVertex) {
  GRAPHKIT_REQUIRE_GPU();
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  for (const char* spec : {"rmat:10", "uniform:12:8", "grid:40x50"}) {
    SCOPED_TRACE(spec);
    expect_matches_oracle(simple_undirected(generate(spec, seed)), true, true);
  }
  // Skewed enough for heavy vertices (out-degree > 256 or > 2^14 two-hop paths).
  SCOPED_TRACE("rmat:15:24");
  expect_matches_oracle(simple_undirected(generate("rmat:15:24", seed)), true, false);
}

TEST(TricountGpu, HubsBeyondSharedMemory) {
  GRAPHKIT_REQUIRE_GPU();
  // K_2500 plus pendant paths: out-degrees up to 2499 exceed the block's
  // shared-memory hash set (2048), so the hash method uses global memory.
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  coo_graph g;
  g.num_vertices = 3000;
  for (vertex_t u = 0; u < 2500; ++u)
    for (vertex_t v = u + 1; v < 2500; ++v)
      if ((seed + u * 2500 + v) % 7 != 0) g.src.push_back(u), g.dst.push_back(v);  // not quite complete
  for (vertex_t v = 2500; v < 3000; ++v) g.src.push_back(v - 1), g.dst.push_back(v);
  const csr_graph simple = simple_undirected(std::move(g));
  expect_matches_oracle(simple, false, false);
  gpu_counter counter(simple);
  for (const walk w : kWalks) {
    gpu_stats stats;
    counter.run(method::hash, false, stats, w);
    EXPECT_GT(stats.heavy, 0u) << "the block kernel was not exercised under " << walk_name(w);
  }
}

struct auto_case {
  const char* spec;
  walk expected;
};

TEST(TricountGpu, AutoWalkTakesShorterSideOnRmatAndOutListsOnRegularGraphs) {
  GRAPHKIT_REQUIRE_GPU();
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  // (P - S) / m, apps/tricount/method.cpp's floor: rmat:16 +30, uniform -8.5,
  // grids ~0, against a threshold of 8.
  for (const auto_case c : {auto_case{"rmat:16", walk::shorter_side}, auto_case{"uniform:14", walk::out_lists},
                            auto_case{"grid:64x64", walk::out_lists}}) {
    SCOPED_TRACE(c.spec);
    const csr_graph g = simple_undirected(generate(c.spec, seed));
    const walk_statistics host = walk_statistics_of(g);
    ASSERT_EQ(auto_walk(host), c.expected);
    const std::uint64_t triangles = count_by_merge(g, false).triangles;
    gpu_counter counter(g);
    gpu_stats chosen;
    counter.run(method::merge, false, chosen, c.expected);
    for_each_method_and_walk([&](method m, walk w) {
      gpu_stats stats;
      EXPECT_EQ(counter.run(m, false, stats, w).triangles, triangles);
      EXPECT_EQ(stats.walked, w == walk::automatic ? c.expected : w);
      // The GPU's sums are the host's, whichever walk ran.
      EXPECT_EQ(stats.walk_stats.out_lists_paths, host.out_lists_paths);
      EXPECT_EQ(stats.walk_stats.out_degree_squares, host.out_degree_squares);
      EXPECT_EQ(stats.walk_stats.oriented_edges, host.oriented_edges);
      if (w == walk::automatic) {  // the chosen walk's classes, nothing else
        EXPECT_EQ(stats.light, chosen.light);
        EXPECT_EQ(stats.heavy, chosen.heavy);
      }
    });
  }
}

struct published {
  const char* file;
  std::uint64_t triangles;
};

TEST(TricountGpu, ShippedDatasetsMatchTheirPublishedCounts) {
  GRAPHKIT_REQUIRE_GPU();
  for (const published p : {published{"karate.mtx", 45}, published{"jagmesh7.mtx", 2016},
                            published{"bcsstk13.mtx", 342300}, published{"CA-GrQc.txt", 48260},
                            published{"p2p-Gnutella04.txt", 934}, published{"facebook_combined.txt", 1612010}}) {
    SCOPED_TRACE(p.file);
    expect_count(simple_undirected(load_graph(test::dataset(p.file)).graph), p.triangles);
  }
}

TEST(TricountGpu, RefusesADirectedGraph) {
  GRAPHKIT_REQUIRE_GPU();
  coo_graph g;
  g.num_vertices = 2;
  g.src = {0};
  g.dst = {1};
  EXPECT_THROW(gpu_counter{to_csr(std::move(g))}, error);
}

TEST(TricountMethod, ParsesTheFourNames) {
  for (const method m : kMethods) EXPECT_EQ(parse_method(method_name(m)), m);
  EXPECT_THROW(parse_method("fastest"), input_error);
}

TEST(TricountWalk, ParsesTheThreeNames) {
  for (const walk w : kWalks) EXPECT_EQ(parse_walk(walk_name(w)), w);
  EXPECT_THROW(parse_walk("longest"), input_error);
}

}  // namespace
}  // namespace graphkit::tricount
