// load_binary_on_gpu against load_graph, the host reader it must equal: the
// same graph for random files of every shape and block size, the same
// input_error message for every kind of damage (gkbin_cases.hpp), and
// version 1 files left to the host reader (nullopt).
#include <gtest/gtest.h>

#include <random>

#include "graph/gpu/load_gpu.hpp"
#include "graph/io/detail/readers.hpp"
#include "graph/io/load.hpp"
#include "primitives/common/error.hpp"
#include "tests/common/gpu_support.hpp"
#include "tests/graph/device_loaded_checks.hpp"
#include "tests/common/test_support.hpp"
#include "tests/graph/gkbin_cases.hpp"

namespace graphkit {
namespace {

/// The input_error message of `load`, or a note that there was none.
template <class Load>
std::string error_of(Load&& load) {
  try {
    (void)load();
  } catch (const input_error& e) {
    return e.what();
  }
  return "(no input_error)";
}

TEST(BinaryGpu, RandomGraphsEqualTheHostReader) {
  GRAPHKIT_REQUIRE_GPU();
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  std::mt19937_64 rng(seed);
  const std::string path = test::temp_path(".gkbin");
  for (const std::uint64_t block : {std::uint64_t{8}, std::uint64_t{64}, std::uint64_t{4096}, std::uint64_t{0}}) {
    for (const std::size_t edges :
         {std::size_t{0}, std::size_t{1}, std::size_t{3}, static_cast<std::size_t>(4 + rng() % 5000)}) {
      for (int shape = 0; shape < 8; ++shape) {
        SCOPED_TRACE("block " + std::to_string(block) + ", " + std::to_string(edges) + " edges, shape " +
                     std::to_string(shape));
        const coo_graph g = test::gkbin::random_graph(rng, edges, shape & 1, shape & 2, shape & 4);
        detail::write_binary(g, path, block);
        std::optional<device_loaded> got = load_binary_on_gpu(path);
        ASSERT_TRUE(got.has_value());
        test::expect_same_as_host(path, std::move(*got));
      }
    }
  }
}

TEST(BinaryGpu, LoadOnGpuTakesEveryVersion2File) {
  GRAPHKIT_REQUIRE_GPU();
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  std::mt19937_64 rng(seed);
  const std::string path = test::temp_path(".gkbin");
  write_graph(test::gkbin::random_graph(rng, 20, true, false, true), path);
  std::optional<device_loaded> got = load_on_gpu(path);  // default options: small files too
  ASSERT_TRUE(got.has_value());
  test::expect_same_as_host(path, std::move(*got));
}

TEST(BinaryGpu, LargeGraphAndItsFirstDamagedBlock) {
  GRAPHKIT_REQUIRE_GPU();
  // Several 1 MiB blocks per array, each summed by 32 CUDA blocks; an odd
  // edge count leaves a short last word.
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  std::mt19937_64 rng(seed);
  coo_graph g;
  g.num_vertices = 2'000'000;
  g.directed = false;
  const std::size_t edges = 2'000'001 + 2 * (rng() % 1000);
  for (std::size_t i = 0; i < edges; ++i) {
    g.src.push_back(static_cast<vertex_t>(rng() % g.num_vertices));
    g.dst.push_back(static_cast<vertex_t>(rng() % g.num_vertices));
    g.weights.push_back(static_cast<weight_t>(rng() % 1000) - 500);
  }
  g.original_ids.resize(g.num_vertices);
  for (auto& id : g.original_ids) id = rng();
  const std::string path = test::temp_path(".gkbin");
  write_graph(g, path);
  std::optional<device_loaded> got = load_binary_on_gpu(path);
  ASSERT_TRUE(got.has_value());
  test::expect_same_as_host(path, std::move(*got));

  std::string file = test::read_all(path);
  const auto d = test::gkbin::layout_of(g, 1u << 20);
  file[d.ids + 5 * (1u << 20)] ^= 2;
  file[d.weights + 7 * (1u << 20) + 1000] ^= 2;
  file[d.src + d.src_bytes - 1] ^= 2;  // the short last word
  test::write_all(path, file);
  const std::string host = error_of([&] { return load_graph(path); });
  EXPECT_NE(host.find("block 7 of the source array"), std::string::npos) << host;
  EXPECT_EQ(error_of([&] { return load_binary_on_gpu(path); }), host);
}

TEST(BinaryGpu, EveryDamageGivesTheHostReadersError) {
  GRAPHKIT_REQUIRE_GPU();
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  std::mt19937_64 rng(seed);
  const std::string path = test::temp_path(".gkbin");
  for (const std::uint64_t block : {std::uint64_t{64}, std::uint64_t{1} << 20}) {
    const coo_graph g = test::gkbin::random_graph(rng, 100 + rng() % 400, true, true, true);
    detail::write_binary(g, path, block);
    const std::string good = test::read_all(path);
    for (const test::gkbin::damaged& c : test::gkbin::damaged_copies(good, g, block, rng)) {
      SCOPED_TRACE("block " + std::to_string(block) + ": " + c.what);
      test::write_all(path, c.bytes);
      const std::string host = error_of([&] { return load_graph(path); });
      EXPECT_NE(host.find(c.expect), std::string::npos) << host;
      EXPECT_EQ(error_of([&] { return load_binary_on_gpu(path); }), host);
    }
  }
}

TEST(BinaryGpu, VertexOutOfRangeGivesTheHostReadersError) {
  GRAPHKIT_REQUIRE_GPU();
  coo_graph g;
  g.num_vertices = 4;
  g.src = {0, 1, 2, 3, 9, 1, 2};  // odd: the last id is alone in its word
  g.dst = {1, 2, 3, 1, 0, 1, 8};
  const std::string path = test::temp_path(".gkbin");
  for (const std::uint64_t block : {std::uint64_t{8}, std::uint64_t{0}}) {
    detail::write_binary(g, path, block);
    const std::string host = error_of([&] { return load_graph(path); });
    EXPECT_EQ(host, path + ": edge 4 names vertex 9, beyond the header's 4 vertices");
    EXPECT_EQ(error_of([&] { return load_binary_on_gpu(path); }), host);
  }
  g.src.back() = 6;  // the short last word alone
  g.dst.back() = 0;
  g.src[4] = 0;
  detail::write_binary(g, path);
  EXPECT_EQ(error_of([&] { return load_binary_on_gpu(path); }),
            path + ": edge 6 names vertex 6, beyond the header's 4 vertices");
}

TEST(BinaryGpu, Version1FilesAreLeftToTheHostReader) {
  GRAPHKIT_REQUIRE_GPU();
  EXPECT_FALSE(load_binary_on_gpu(test::input_file("good/triangle-v1.gkbin")).has_value());
  gpu_load_options every_size;
  every_size.min_bytes = 0;
  EXPECT_FALSE(load_on_gpu(test::input_file("good/triangle-v1.gkbin"), every_size).has_value());
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  std::mt19937_64 rng(seed);
  const std::string path = test::temp_path(".gkbin");
  detail::write_binary_v1(test::gkbin::random_graph(rng, 300, true, false, true), path);
  EXPECT_FALSE(load_binary_on_gpu(path).has_value());
  EXPECT_EQ(error_of([&] { return load_binary_on_gpu(test::temp_path(".missing.gkbin")); }).find("cannot open"),
            test::temp_path(".missing.gkbin").size() + 2);
}

}  // namespace
}  // namespace graphkit
