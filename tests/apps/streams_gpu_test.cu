// The GPU pipeline, the SSSP solver and the triangle counter on a stream of
// the caller's: a non-blocking one, which does not wait for the legacy
// default stream nor it for it, so work left on the default stream, or a
// result read without waiting for the stream, shows up as a wrong answer.
// Each answer must equal the one on the default stream.
#include <gtest/gtest.h>

#include "apps/sssp/sssp.hpp"
#include "apps/tricount/tricount.hpp"
#include "graph/build.hpp"
#include "graph/generate/generators.hpp"
#include "graph/gpu/pipeline.hpp"
#include "primitives/common/error.hpp"
#include "tests/common/gpu_support.hpp"
#include "tests/common/test_support.hpp"
#include "tests/graph/device_csr_checks.hpp"

namespace graphkit {
namespace {

/// A non-blocking stream, destroyed with the test.
class own_stream {
 public:
  own_stream() { GRAPHKIT_CUDA_TRY(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
  ~own_stream() { (void)cudaStreamDestroy(stream_); }
  own_stream(const own_stream&) = delete;
  own_stream& operator=(const own_stream&) = delete;
  operator cudaStream_t() const { return stream_; }

 private:
  cudaStream_t stream_{};
};

coo_graph weighted_rmat(unsigned scale, std::uint64_t seed) {
  coo_graph g = generate_rmat(scale, 8, seed);
  assign_random_weights(g, seed);
  return g;
}

TEST(Streams, PipelineStepsOnAStreamMatchTheDefaultStream) {
  GRAPHKIT_REQUIRE_GPU();
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  const own_stream stream;
  const coo_graph g = weighted_rmat(14, seed);

  for (const relabel_order order : {relabel_order::sorted, relabel_order::first_seen}) {
    std::vector<std::uint64_t> src(g.src.begin(), g.src.end()), dst(g.dst.begin(), g.dst.end());
    const relabeled_edges want = relabel_on_gpu(src, dst, order);
    const relabeled_edges got = relabel_on_gpu(src, dst, order, stream);
    EXPECT_EQ(got.num_vertices, want.num_vertices);
    EXPECT_EQ(got.src, want.src);
    EXPECT_EQ(got.dst, want.dst);
    EXPECT_EQ(got.original_ids, want.original_ids);
  }

  clean_options o;
  o.symmetrize = o.drop_self_loops = o.drop_duplicates = true;
  for (const duplicate_weight keep : {duplicate_weight::min, duplicate_weight::first, duplicate_weight::sum}) {
    o.keep = keep;
    coo_graph want = g, got = g;
    const clean_stats want_stats = clean_on_gpu(want, o);
    const clean_stats got_stats = clean_on_gpu(got, o, stream);
    EXPECT_EQ(got.src, want.src);
    EXPECT_EQ(got.dst, want.dst);
    EXPECT_EQ(got.weights, want.weights);
    EXPECT_EQ(got_stats.duplicates_removed, want_stats.duplicates_removed);

    // The one-sort build, in several source ranges so that its scans, sorts
    // and merges run more than once on the stream.
    clean_stats build_want, build_got;
    const csr_graph want_csr = to_host(build_csr_device(to_device(g), o, build_want, g.num_edges() / 3));
    test::expect_same_csr(want_csr, build_csr_device(to_device(g, stream), o, build_got, g.num_edges() / 3, stream));
    EXPECT_EQ(build_got.duplicates_removed, build_want.duplicates_removed);
  }

  const device_csr csr = to_csr_on_gpu(g, stream);
  const weight_summary want = summarize_weights(csr), got = summarize_weights(csr, stream);
  EXPECT_EQ(got.sum, want.sum);
  EXPECT_EQ(got.min, want.min);
  EXPECT_EQ(got.max, want.max);
}

TEST(Streams, SolverOnAStreamMatchesTheDefaultStream) {
  GRAPHKIT_REQUIRE_GPU();
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  const own_stream stream;
  for (const unsigned scale : {8u, 14u}) {  // the first fits one block's shared memory
    SCOPED_TRACE("rmat scale " + std::to_string(scale));
    const csr_graph g = to_csr(weighted_rmat(scale, seed));
    sssp::gpu_solver on_default(g), streamed(g, stream);
    for (const bool small_kernel : {true, false}) {
      sssp::solver_tuning tuning;
      tuning.small_graph_kernel = small_kernel;
      on_default.tune(tuning);
      streamed.tune(tuning);
      for (const vertex_t source : {vertex_t{0}, static_cast<vertex_t>(seed % g.num_vertices)}) {
        sssp::gpu_stats a, b;
        const sssp::result want = on_default.run(source, {}, a);
        const sssp::result got = streamed.run(source, {}, b);
        // Not the rounds: how many a solve takes depends on the order its
        // atomics land in (23 against 24 under racecheck's serialised warps).
        EXPECT_EQ(got.distances, want.distances);
        EXPECT_EQ(streamed.reach(), on_default.reach());
        EXPECT_GT(b.seconds, 0.0);  // the events were recorded on the stream the solve ran on
      }
    }
  }
}

TEST(Streams, CounterOnAStreamMatchesTheDefaultStream) {
  GRAPHKIT_REQUIRE_GPU();
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  const own_stream stream;
  const csr_graph g = tricount::simple_undirected(generate_rmat(14, 8, seed));
  tricount::gpu_counter on_default(g), streamed(g, stream);
  for (const tricount::method m :
       {tricount::method::automatic, tricount::method::merge, tricount::method::hash, tricount::method::bitmap}) {
    SCOPED_TRACE(tricount::method_name(m));
    tricount::gpu_stats a, b;
    const tricount::result want = on_default.run(m, true, a);
    const tricount::result got = streamed.run(m, true, b);
    EXPECT_EQ(got.triangles, want.triangles);
    EXPECT_EQ(got.per_vertex, want.per_vertex);
    EXPECT_EQ(b.light, a.light);
    EXPECT_EQ(b.heavy, a.heavy);
  }
}

}  // namespace
}  // namespace graphkit
