// GPU triangle counting, every method, against Boost and the published counts:
// complete graphs, stars and paths, generated R-MAT (skewed, with heavy
// vertices), uniform and grid graphs, hubs beyond shared memory, and every
// shipped dataset. Per-vertex counts against Boost's.
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
  for (const method m : kMethods) {
    SCOPED_TRACE(method_name(m));
    gpu_stats stats;
    const result got = counter.run(m, per_vertex, stats);
    const apps::verification v = verify(g, expected, got);
    EXPECT_TRUE(v.passed()) << v.mismatches << " mismatches, first: " << (v.first.empty() ? "" : v.first[0]);
    EXPECT_EQ(stats.oriented_edges * 2, g.num_edges());
  }
}

TEST(TricountGpu, CompleteGraphsStarsAndPaths) {
  GRAPHKIT_REQUIRE_GPU();
  // K_600: out-degrees up to 599, so heavy vertices use the block kernel.
  for (const vertex_t n : {0u, 1u, 2u, 3u, 4u, 33u, 600u}) {
    SCOPED_TRACE("K_" + std::to_string(n));
    const csr_graph g = complete(n);
    gpu_counter counter(g);
    for (const method m : kMethods) {
      gpu_stats stats;
      EXPECT_EQ(counter.run(m, false, stats).triangles, n < 3 ? 0 : std::uint64_t{n} * (n - 1) * (n - 2) / 6)
          << method_name(m);
    }
  }
  coo_graph star, path;
  star.num_vertices = path.num_vertices = 5000;
  for (vertex_t v = 1; v < 5000; ++v) star.src.push_back(0), star.dst.push_back(v);
  for (vertex_t v = 1; v < 5000; ++v) path.src.push_back(v - 1), path.dst.push_back(v);
  for (const csr_graph& g : {simple_undirected(star), simple_undirected(path)}) {
    gpu_counter counter(g);
    for (const method m : kMethods) {
      gpu_stats stats;
      EXPECT_EQ(counter.run(m, false, stats).triangles, 0u) << method_name(m);
    }
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
  gpu_stats stats;
  counter.run(method::hash, false, stats);
  EXPECT_GT(stats.heavy, 0u) << "the block kernel was not exercised";
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
    const csr_graph g = simple_undirected(load_graph(test::dataset(p.file)).graph);
    gpu_counter counter(g);
    for (const method m : kMethods) {
      gpu_stats stats;
      EXPECT_EQ(counter.run(m, false, stats).triangles, p.triangles) << method_name(m);
    }
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

}  // namespace
}  // namespace graphkit::tricount
