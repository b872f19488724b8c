// The GPU load and build against their memory rule (graph/gpu/detail/
// memory_budget.hpp): beyond the CSR they return, device_buffer's peak stays
// within 16 B per input edge plus the fixed allowance, on R-MAT 18 (4.2
// million edges: 67 MB of rule against 16 MiB of allowance, and the build's
// ranges and the parser's windows several), with the host's CSR. The
// allowance is the rule's own (kFixedAllowance): the load and the build keep
// their small scratch inside it.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "graph/build.hpp"
#include "graph/device_csr.hpp"
#include "graph/generate/generators.hpp"
#include "graph/gpu/detail/memory_budget.hpp"
#include "graph/gpu/generate_gpu.hpp"
#include "graph/gpu/load_gpu.hpp"
#include "graph/gpu/pipeline.hpp"
#include "graph/io/load.hpp"
#include "tests/common/gpu_support.hpp"
#include "tests/graph/device_csr_checks.hpp"
#include "tests/common/test_support.hpp"

namespace graphkit {
namespace {

constexpr const char* kSpec = "rmat:18";

std::size_t csr_bytes(const device_csr& g) { return g.offsets.bytes() + g.targets.bytes() + g.weights.bytes(); }

/// Checks the peak beyond `csr` against the rule for `input_edges`, and prints
/// it per input edge (scripts read the "[ figures ]" lines).
void expect_within_rule(const std::string& what, const device_csr& csr, std::size_t input_edges) {
  const std::size_t peak = device_memory_in_use().peak;
  const std::size_t beyond = peak - csr_bytes(csr);
  std::printf("[ figures  ] %s: %zu input edges, peak %.1f MB, CSR %.1f MB, beyond the CSR %.2f B per input edge\n",
              what.c_str(), input_edges, peak / 1e6, csr_bytes(csr) / 1e6,
              static_cast<double>(beyond) / static_cast<double>(input_edges));
  EXPECT_LE(beyond, detail::memory_budget(input_edges))
      << what << ": " << beyond << " bytes beyond the CSR; the rule allows " << detail::memory_budget(input_edges);
}

clean_options cleaning(duplicate_weight keep, bool random_weights, std::uint64_t seed) {
  clean_options o;
  o.symmetrize = o.drop_self_loops = o.drop_duplicates = true;
  o.keep = keep;
  o.random_weights = random_weights;
  o.seed = seed;
  return o;
}

TEST(MemoryBudgetGpu, BuildOfGeneratedRmatStaysWithinTheRule) {
  GRAPHKIT_REQUIRE_GPU();
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  struct build_case {
    const char* name;
    bool random_weights;
    duplicate_weight keep;
  };
  // As `--gen` builds: edges made on the device, weights drawn in the build.
  for (const build_case c : {build_case{"unweighted", false, duplicate_weight::min},
                             build_case{"random weights, keep min", true, duplicate_weight::min},
                             build_case{"random weights, keep sum", true, duplicate_weight::sum}}) {
    SCOPED_TRACE(c.name);
    const clean_options o = cleaning(c.keep, c.random_weights, seed);
    coo_graph host = generate(kSpec, seed);
    clean(host, o);
    const csr_graph want = to_csr(std::move(host));

    std::optional<device_edges> made = generate_on_gpu(kSpec, seed);
    ASSERT_TRUE(made.has_value());
    const std::size_t m = made->num_edges();
    (void)restart_device_memory_peak();  // earlier tests raised the process high-water mark
    clean_stats stats;
    const device_csr got = build_csr_device(std::move(*made), o, stats);
    expect_within_rule(std::string(kSpec) + " build, " + c.name, got, m);
    test::expect_same_csr(want, got);
  }
}

TEST(MemoryBudgetGpu, LoadAndBuildOfAnMtxFileStayWithinTheRule) {
  GRAPHKIT_REQUIRE_GPU();
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  coo_graph g = generate(kSpec, seed);
  assign_random_weights(g, seed);
  const std::string path = test::temp_path(".mtx");
  write_graph(g, path);
  const clean_options o = cleaning(duplicate_weight::min, false, seed);
  coo_graph host = load_graph(path).graph;
  clean(host, o);
  const csr_graph want = to_csr(std::move(host));

  (void)restart_device_memory_peak();  // earlier tests raised the process high-water mark
  gpu_load_options lo;
  lo.min_bytes = 0;
  std::optional<device_loaded> loaded = load_on_gpu(path, lo);
  std::remove(path.c_str());
  ASSERT_TRUE(loaded.has_value());
  const std::size_t m = loaded->edges.num_edges();
  expect_within_rule(std::string(kSpec) + " .mtx parse", device_csr{}, m);
  clean_stats stats;
  const device_csr got = build_csr_device(std::move(loaded->edges), o, stats);
  expect_within_rule(std::string(kSpec) + " .mtx parse and build", got, m);
  test::expect_same_csr(want, got);
}

}  // namespace
}  // namespace graphkit
