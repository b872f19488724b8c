// The GPU pipeline against its host counterparts: relabel_on_gpu against
// relabel(), clean_on_gpu against clean(), to_csr_on_gpu against to_csr(),
// on dirty edge lists (duplicate rates 0%, 50%, 99%; ids up to 2^64 - 1;
// weighted and unweighted), edge sizes 0 and 1, and the shipped datasets.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "graph/build.hpp"
#include "graph/gpu/pipeline.hpp"
#include "graph/io/load.hpp"
#include "graph/relabel.hpp"
#include "primitives/common/error.hpp"
#include "tests/common/gpu_support.hpp"
#include "tests/graph/device_csr_checks.hpp"
#include "tests/common/test_support.hpp"

namespace graphkit {
namespace {

struct raw_list {
  std::vector<std::uint64_t> src, dst;
  std::vector<weight_t> weights;
};

/// `edges` edges over `vertices` distinct ids drawn from [0, 2^id_bits); a
/// `duplicate_rate` share of the edges repeat an earlier edge (possibly
/// reversed), weights 1..1000.
raw_list dirty_edges(std::uint64_t seed, std::size_t edges, std::size_t vertices, int id_bits, double duplicate_rate) {
  std::mt19937_64 rng(seed);
  std::vector<std::uint64_t> ids(vertices);
  for (auto& id : ids) id = id_bits == 64 ? rng() : rng() & ((std::uint64_t{1} << id_bits) - 1);
  raw_list r;
  for (std::size_t e = 0; e < edges; ++e) {
    if (e > 0 && std::uniform_real_distribution<>(0, 1)(rng) < duplicate_rate) {
      const std::size_t earlier = rng() % e;
      const bool flip = rng() & 1;
      r.src.push_back(flip ? r.dst[earlier] : r.src[earlier]);
      r.dst.push_back(flip ? r.src[earlier] : r.dst[earlier]);
    } else {
      r.src.push_back(ids[rng() % vertices]);
      r.dst.push_back(ids[rng() % vertices]);
    }
    r.weights.push_back(static_cast<weight_t>(rng() % 1000) + 1);
  }
  return r;
}

void expect_same_relabel(const relabeled_edges& want, const relabeled_edges& got) {
  EXPECT_EQ(want.num_vertices, got.num_vertices);
  EXPECT_EQ(want.original_ids, got.original_ids);
  EXPECT_TRUE(want.src == got.src) << "src differs";
  EXPECT_TRUE(want.dst == got.dst) << "dst differs";
}

TEST(PipelineGpu, RelabelMatchesTheHostOnSparseAndDenseIds) {
  GRAPHKIT_REQUIRE_GPU();
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  for (const int bits : {64, 40, 17}) {
    for (const double dup : {0.0, 0.5, 0.99}) {
      SCOPED_TRACE("id bits " + std::to_string(bits) + ", duplicates " + std::to_string(dup));
      raw_list r = dirty_edges(seed + bits, 20000, 3000, bits, dup);
      if (bits == 64) r.src[7] = ~std::uint64_t{0}, r.dst[11] = 0;  // the table's empty key is an id too
      for (const relabel_order order : {relabel_order::sorted, relabel_order::first_seen})
        expect_same_relabel(relabel(r.src, r.dst, order), relabel_on_gpu(r.src, r.dst, order));
    }
  }
  // Ids already dense 0..n-1: the identity, so no mapping is kept.
  std::vector<std::uint64_t> src{0, 1, 2, 3}, dst{1, 2, 3, 0};
  const relabeled_edges same = relabel_on_gpu(src, dst, relabel_order::sorted);
  EXPECT_TRUE(same.original_ids.empty());
  EXPECT_EQ(same.num_vertices, 4u);
}

TEST(PipelineGpu, RelabelOfZeroAndOneEdges) {
  GRAPHKIT_REQUIRE_GPU();
  const std::vector<std::uint64_t> none;
  EXPECT_EQ(relabel_on_gpu(none, none, relabel_order::sorted).num_vertices, 0u);
  const std::vector<std::uint64_t> a{1ull << 60}, b{5};
  for (const relabel_order order : {relabel_order::sorted, relabel_order::first_seen})
    expect_same_relabel(relabel(a, b, order), relabel_on_gpu(a, b, order));
}

coo_graph as_coo(const raw_list& r, bool weighted, bool directed) {
  relabeled_edges dense = relabel(r.src, r.dst, relabel_order::sorted);
  coo_graph g;
  g.num_vertices = dense.num_vertices;
  g.src = std::move(dense.src);
  g.dst = std::move(dense.dst);
  g.original_ids = std::move(dense.original_ids);
  g.directed = directed;
  if (weighted) g.weights.assign(r.weights.begin(), r.weights.end());
  return g;
}

TEST(PipelineGpu, CleanMatchesTheHostForEveryOption) {
  GRAPHKIT_REQUIRE_GPU();
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  for (const double dup : {0.0, 0.5, 0.99}) {
    const raw_list r = dirty_edges(seed, 30000, 2000, 40, dup);
    for (const bool weighted : {false, true}) {
      for (const bool symmetrize : {false, true}) {
        for (const bool drop_loops : {false, true}) {
          for (const duplicate_weight keep : {duplicate_weight::min, duplicate_weight::first, duplicate_weight::sum}) {
            SCOPED_TRACE("duplicates " + std::to_string(dup) + (weighted ? ", weighted" : "") +
                         (symmetrize ? ", symmetrize" : "") + (drop_loops ? ", drop loops" : "") + ", keep " +
                         std::to_string(static_cast<int>(keep)));
            clean_options o;
            o.symmetrize = symmetrize;
            o.drop_self_loops = drop_loops;
            o.drop_duplicates = true;
            o.keep = keep;
            coo_graph want = as_coo(r, weighted, true), got = as_coo(r, weighted, true);
            const clean_stats ws = clean(want, o), gs = clean_on_gpu(got, o);
            EXPECT_EQ(ws.self_loops_removed, gs.self_loops_removed);
            EXPECT_EQ(ws.duplicates_removed, gs.duplicates_removed);
            EXPECT_EQ(want.directed, got.directed);
            EXPECT_TRUE(want.src == got.src && want.dst == got.dst) << "edges differ";
            EXPECT_TRUE(want.weights == got.weights) << "weights differ";
            if (!weighted || keep != duplicate_weight::min) break;  // the keep rule only matters with weights
          }
        }
      }
    }
  }
}

TEST(PipelineGpu, CleanReportsASumThatOverflowsLikeTheHost) {
  GRAPHKIT_REQUIRE_GPU();
  coo_graph g;
  g.num_vertices = 3;
  g.src = {0, 1, 0, 2};
  g.dst = {1, 2, 1, 0};
  g.weights = {2'000'000'000, 5, 2'000'000'000, 7};
  clean_options o;
  o.drop_duplicates = true;
  o.keep = duplicate_weight::sum;
  coo_graph host = g;
  std::string host_message, gpu_message;
  try {
    clean(host, o);
  } catch (const error& e) {
    host_message = e.what();
  }
  try {
    clean_on_gpu(g, o);
  } catch (const error& e) {
    gpu_message = e.what();
  }
  EXPECT_FALSE(host_message.empty());
  EXPECT_EQ(host_message, gpu_message);
}

TEST(PipelineGpu, CleanOfZeroAndOneEdges) {
  GRAPHKIT_REQUIRE_GPU();
  clean_options o;
  o.drop_duplicates = o.drop_self_loops = true;
  coo_graph empty, loop, one;
  loop.num_vertices = one.num_vertices = 2;
  loop.src = {1}, loop.dst = {1};
  one.src = {1}, one.dst = {0};
  EXPECT_EQ(clean_on_gpu(empty, o).input_edges, 0u);
  EXPECT_EQ(clean_on_gpu(loop, o).self_loops_removed, 1u);
  EXPECT_TRUE(loop.src.empty());
  clean_on_gpu(one, o);
  EXPECT_EQ(one.src, std::vector<vertex_t>{1});
  o.drop_duplicates = false;
  EXPECT_THROW(clean_on_gpu(one, o), error);
}

TEST(PipelineGpu, CsrMatchesTheHostWithLoopsAndDuplicatesKept) {
  GRAPHKIT_REQUIRE_GPU();
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  const raw_list r = dirty_edges(seed, 50000, 5000, 64, 0.3);
  for (const bool weighted : {false, true}) {
    for (const bool directed : {true, false}) {
      SCOPED_TRACE(std::string(weighted ? "weighted" : "unweighted") + (directed ? ", directed" : ", undirected"));
      const coo_graph g = as_coo(r, weighted, directed);
      test::expect_same_csr(to_csr(coo_graph(g)), to_csr_on_gpu(g));
    }
  }
  coo_graph empty, one;
  empty.num_vertices = 3;
  one.num_vertices = 2, one.src = {1}, one.dst = {0}, one.directed = false;
  test::expect_same_csr(to_csr(coo_graph(empty)), to_csr_on_gpu(empty));
  test::expect_same_csr(to_csr(coo_graph(one)), to_csr_on_gpu(one));
}

/// clean() then to_csr() on the host: what build_csr_device must give.
csr_graph host_build(coo_graph g, const clean_options& o, clean_stats& stats) {
  stats = clean(g, o);
  return to_csr(std::move(g));
}

TEST(PipelineGpu, OneSortBuildMatchesCleanThenCsrForEveryOption) {
  GRAPHKIT_REQUIRE_GPU();
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  for (const double dup : {0.0, 0.5, 0.99}) {
    const raw_list r = dirty_edges(seed + static_cast<std::uint64_t>(dup * 100), 30000, 4096, 12, dup);
    for (const bool weighted : {false, true}) {
      for (const bool directed : {true, false}) {
        for (const bool symmetrize : {false, true}) {
          for (const bool drop_loops : {false, true}) {
            for (const bool drop_duplicates : {false, true}) {
              for (const duplicate_weight keep :
                   {duplicate_weight::min, duplicate_weight::first, duplicate_weight::sum}) {
                SCOPED_TRACE("duplicates " + std::to_string(dup) + (weighted ? ", weighted" : "") +
                             (directed ? ", directed" : "") + (symmetrize ? ", symmetrize" : "") +
                             (drop_loops ? ", drop loops" : "") + (drop_duplicates ? ", drop duplicates" : "") +
                             ", keep " + std::to_string(static_cast<int>(keep)));
                clean_options o;
                o.symmetrize = symmetrize;
                o.drop_self_loops = drop_loops;
                o.drop_duplicates = drop_duplicates;
                o.keep = keep;
                const coo_graph g = as_coo(r, weighted, directed);
                clean_stats want_stats;
                const csr_graph want = host_build(g, o, want_stats);
                // One pass, and source ranges of at most 4,999 arcs built one after another.
                for (const std::size_t per_pass : {std::size_t{0}, std::size_t{4999}}) {
                  clean_stats got_stats;
                  test::expect_same_csr(want, build_csr_device(to_device(g), o, got_stats, per_pass));
                  EXPECT_EQ(want_stats.input_edges, got_stats.input_edges);
                  EXPECT_EQ(want_stats.self_loops_removed, got_stats.self_loops_removed);
                  EXPECT_EQ(want_stats.duplicates_removed, got_stats.duplicates_removed);
                }
                if (!weighted || !drop_duplicates) break;  // the keep rule only matters when weights merge
              }
            }
          }
        }
      }
    }
  }
}

TEST(PipelineGpu, OneSortBuildOfZeroAndOneEdgesAndRandomWeights) {
  GRAPHKIT_REQUIRE_GPU();
  clean_options o;
  o.symmetrize = o.drop_self_loops = o.drop_duplicates = true;
  coo_graph empty, loop, one, top_loop;
  empty.num_vertices = 3;
  loop.num_vertices = one.num_vertices = 2;
  loop.src = {1}, loop.dst = {1};
  one.src = {1}, one.dst = {0};
  // n a power of two: the last vertex's self-loop is the largest key there can be.
  top_loop.num_vertices = 4, top_loop.src = {3, 0, 3}, top_loop.dst = {3, 3, 3};
  for (const coo_graph* g : {&empty, &loop, &one, &top_loop}) {
    for (const bool drop_loops : {true, false}) {
      o.drop_self_loops = drop_loops;
      clean_stats want_stats, got_stats;
      test::expect_same_csr(host_build(*g, o, want_stats), build_csr_device(to_device(*g), o, got_stats));
      EXPECT_EQ(want_stats.self_loops_removed, got_stats.self_loops_removed);
      EXPECT_EQ(want_stats.duplicates_removed, got_stats.duplicates_removed);
    }
  }
  // Random weights are drawn per input edge before anything merges, on either side.
  const raw_list r = dirty_edges(test::fresh_seed(), 5000, 300, 20, 0.5);
  o.random_weights = true;
  o.seed = 7;
  clean_stats want_stats, got_stats;
  const coo_graph g = as_coo(r, false, true);
  test::expect_same_csr(host_build(g, o, want_stats), build_csr_device(to_device(g), o, got_stats));
}

TEST(PipelineGpu, OneSortBuildReportsASumThatOverflowsLikeTheHost) {
  GRAPHKIT_REQUIRE_GPU();
  coo_graph g;
  g.num_vertices = 3;
  g.directed = false;
  g.src = {1, 2, 0, 1, 2};
  g.dst = {0, 1, 1, 2, 0};
  g.weights = {2'000'000'000, 5, 2'000'000'000, -2'000'000'000, 7};
  clean_options o;
  o.drop_duplicates = true;
  o.keep = duplicate_weight::sum;
  std::string host_message, gpu_message;
  clean_stats stats;
  try {
    host_build(g, o, stats);
  } catch (const error& e) {
    host_message = e.what();
  }
  try {
    build_csr_device(to_device(g), o, stats);
  } catch (const error& e) {
    gpu_message = e.what();
  }
  EXPECT_FALSE(host_message.empty());
  EXPECT_EQ(host_message, gpu_message);
  gpu_message.clear();
  try {
    build_csr_device(to_device(g), o, stats, 1);
  } catch (const error& e) {
    gpu_message = e.what();
  }
  EXPECT_EQ(host_message, gpu_message) << "a range per source";
}

TEST(PipelineGpu, ShippedDatasetsCleanAndBuildAsOnTheHost) {
  GRAPHKIT_REQUIRE_GPU();
  for (const char* file : {"CA-GrQc.txt", "p2p-Gnutella04.txt", "facebook_combined.txt", "bcsstk13.mtx", "rome99.gr"}) {
    SCOPED_TRACE(file);
    const coo_graph loaded = load_graph(test::dataset(file)).graph;
    clean_options o;
    o.symmetrize = o.drop_self_loops = o.drop_duplicates = true;
    coo_graph want = loaded, got = loaded;
    clean(want, o);
    clean_on_gpu(got, o);
    EXPECT_TRUE(want.src == got.src && want.dst == got.dst && want.weights == got.weights);
    test::expect_same_csr(to_csr(coo_graph(want)), to_csr_on_gpu(got));
  }
}

}  // namespace
TEST(PipelineGpu, WeightSummaryMatchesTheHost) {
  GRAPHKIT_REQUIRE_GPU();
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  std::mt19937_64 rng(seed);
  for (const std::size_t m : {std::size_t{0}, std::size_t{1}, std::size_t{100003}}) {
    coo_graph g;
    g.num_vertices = 1000;
    std::uniform_int_distribution<vertex_t> vertex(0, 999);
    std::uniform_int_distribution<weight_t> weight(-50, 1 << 20);
    for (std::size_t i = 0; i < m; ++i)
      g.src.push_back(vertex(rng)), g.dst.push_back(vertex(rng)), g.weights.push_back(weight(rng));
    const csr_graph host = to_csr(coo_graph(g));
    const weight_summary got = summarize_weights(to_device(host));
    if (m == 0) {
      EXPECT_EQ(got.sum, 0.0);
      continue;
    }
    double sum = 0;
    for (const weight_t w : host.weights) sum += w;
    EXPECT_EQ(got.sum, sum) << m;
    EXPECT_EQ(got.min, *std::min_element(host.weights.begin(), host.weights.end()));
    EXPECT_EQ(got.max, *std::max_element(host.weights.begin(), host.weights.end()));
    g.weights.clear();  // unweighted: weight 1 per arc
    const csr_graph plain = to_csr(std::move(g));
    const weight_summary ones = summarize_weights(to_device(plain));
    EXPECT_EQ(ones.sum, static_cast<double>(plain.num_edges()));
    EXPECT_EQ(ones.min, 1);
    EXPECT_EQ(ones.max, 1);
  }
}

}  // namespace graphkit
