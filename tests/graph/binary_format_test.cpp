// The .gkbin reader on the host: version 2 round trips of every shape and
// block size, the bytes where the documented layout puts them, every kind of
// damage refused with an error that names the file and what is wrong (the
// block and array for damaged data), and version 1 files still loading.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "graph/io/detail/readers.hpp"
#include "graph/io/load.hpp"
#include "primitives/common/error.hpp"
#include "tests/common/test_support.hpp"
#include "tests/graph/gkbin_cases.hpp"

namespace graphkit {
namespace {

using test::temp_path;

std::string load_error(const std::string& path) {
  try {
    (void)load_graph(path);
  } catch (const input_error& e) {
    return e.what();
  }
  return "(no error)";
}

void expect_same_graph(const coo_graph& want, const coo_graph& got) {
  EXPECT_EQ(want.num_vertices, got.num_vertices);
  EXPECT_EQ(want.directed, got.directed);
  EXPECT_TRUE(want.src == got.src) << "src differs";
  EXPECT_TRUE(want.dst == got.dst) << "dst differs";
  EXPECT_TRUE(want.weights == got.weights) << "weights differ";
  EXPECT_TRUE(want.original_ids == got.original_ids) << "original ids differ";
}

template <class T, class Alloc>
bool bytes_at(const std::string& file, std::uint64_t offset, const std::vector<T, Alloc>& values) {
  const std::size_t n = values.size() * sizeof(T);
  return offset + n <= file.size() && (n == 0 || std::memcmp(file.data() + offset, values.data(), n) == 0);
}

TEST(BinaryFormatV2, RoundTripsEveryShapeAndBlockSize) {
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  std::mt19937_64 rng(seed);
  const std::string path = temp_path(".gkbin");
  for (const std::uint64_t block : {std::uint64_t{8}, std::uint64_t{64}, std::uint64_t{4096}, std::uint64_t{0}}) {
    for (const std::size_t edges :
         {std::size_t{0}, std::size_t{1}, std::size_t{2}, std::size_t{3}, static_cast<std::size_t>(4 + rng() % 3000)}) {
      for (int shape = 0; shape < 8; ++shape) {
        const bool weighted = shape & 1, directed = shape & 2, ids = shape & 4;
        SCOPED_TRACE("block " + std::to_string(block) + ", " + std::to_string(edges) + " edges, weighted " +
                     std::to_string(weighted) + ", directed " + std::to_string(directed) + ", ids " +
                     std::to_string(ids));
        const coo_graph g = test::gkbin::random_graph(rng, edges, weighted, directed, ids);
        detail::write_binary(g, path, block);
        const loaded_graph back = load_graph(path);
        expect_same_graph(g, back.graph);
        EXPECT_EQ(back.format, file_format::binary);
        EXPECT_TRUE(back.warnings.empty());
        EXPECT_EQ(back.negative_weight_line, 0u);

        // The bytes sit where the format's comment says.
        const std::string file = test::read_all(path);
        const auto d = test::gkbin::layout_of(g, block == 0 ? 1u << 20 : block);
        ASSERT_EQ(file.size(), d.end);
        EXPECT_EQ(back.bytes, d.end);
        EXPECT_EQ(file.substr(0, 8), "GRAPHKIT");
        std::uint32_t version = 0, flags = 0;
        std::uint64_t n = 0, m = 0, b = 0;
        std::memcpy(&version, file.data() + 8, 4);
        std::memcpy(&flags, file.data() + 12, 4);
        std::memcpy(&n, file.data() + 16, 8);
        std::memcpy(&m, file.data() + 24, 8);
        std::memcpy(&b, file.data() + 32, 8);
        EXPECT_EQ(version, 2u);
        EXPECT_EQ(flags, (weighted && edges > 0 ? 1u : 0u) | (directed ? 2u : 0u) | (g.original_ids.empty() ? 0u : 4u));
        EXPECT_EQ(n, g.num_vertices);
        EXPECT_EQ(m, g.num_edges());
        EXPECT_EQ(b, block == 0 ? 1u << 20 : block);
        EXPECT_TRUE(bytes_at(file, d.src, g.src));
        EXPECT_TRUE(bytes_at(file, d.dst, g.dst));
        EXPECT_TRUE(bytes_at(file, d.weights, g.weights));
        EXPECT_TRUE(bytes_at(file, d.ids, g.original_ids));
        EXPECT_EQ(file.substr(48, 8), std::string(8, '\0'));
      }
    }
  }
}

TEST(BinaryFormatV2, LargeGraphReadByEveryThread) {
  // Several MiB per array: more blocks than threads, and the arrays sized at once.
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  std::mt19937_64 rng(seed);
  coo_graph g = test::gkbin::random_graph(rng, 0, false, true, false);
  g.num_vertices = 3'000'000;
  const std::size_t edges = 1'500'000 + rng() % 1000;
  for (std::size_t i = 0; i < edges; ++i) {
    g.src.push_back(static_cast<vertex_t>(rng() % g.num_vertices));
    g.dst.push_back(static_cast<vertex_t>(rng() % g.num_vertices));
    g.weights.push_back(static_cast<weight_t>(rng() % 1000));
  }
  g.original_ids.resize(g.num_vertices);
  for (auto& id : g.original_ids) id = rng();
  const std::string path = temp_path(".gkbin");
  write_graph(g, path);
  expect_same_graph(g, load_graph(path).graph);

  // Two damaged blocks: the error names the first of the file.
  std::string file = test::read_all(path);
  const auto d = test::gkbin::layout_of(g, 1u << 20);
  file[d.weights + 3 * (1u << 20) + 17] ^= 1;
  file[d.dst + 2 * (1u << 20) + 5] ^= 1;
  test::write_all(path, file);
  const std::string message = load_error(path);
  EXPECT_NE(message.find("block 2 of the destination array"), std::string::npos) << message;
}

TEST(BinaryFormatV2, EveryDamageIsRefusedNamingTheFile) {
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  std::mt19937_64 rng(seed);
  const std::string path = temp_path(".gkbin");
  for (const std::uint64_t block : {std::uint64_t{64}, std::uint64_t{1} << 20}) {
    const coo_graph g = test::gkbin::random_graph(rng, 100 + rng() % 400, true, false, true);
    detail::write_binary(g, path, block);
    const std::string good = test::read_all(path);
    for (const test::gkbin::damaged& c : test::gkbin::damaged_copies(good, g, block, rng)) {
      SCOPED_TRACE("block " + std::to_string(block) + ": " + c.what);
      test::write_all(path, c.bytes);
      const std::string message = load_error(path);
      EXPECT_EQ(message.rfind(path + ": ", 0), 0u) << message;
      EXPECT_NE(message.find(c.expect), std::string::npos) << message << "\nexpected: " << c.expect;
    }
  }
}

TEST(BinaryFormatV2, VertexOutOfRangeIsRefused) {
  coo_graph g;
  g.num_vertices = 4;
  g.src = {0, 1, 2, 3, 9, 1};
  g.dst = {1, 2, 3, 7, 0, 1};
  const std::string path = temp_path(".gkbin");
  detail::write_binary(g, path, 8);
  EXPECT_EQ(load_error(path), path + ": edge 3 names vertex 7, beyond the header's 4 vertices");
}

TEST(BinaryFormatV2, FilesThatCannotBeReadAtOffsetsOrWritten) {
  load_options binary;
  binary.format = file_format::binary;
  try {
    (void)load_graph("/dev/null", binary);
    ADD_FAILURE() << "/dev/null loaded";
  } catch (const input_error& e) {
    EXPECT_EQ(std::string(e.what()), "/dev/null: not a regular file: a graphkit binary graph is read at known offsets");
  }
  const std::string nowhere = temp_path("-missing-dir/g.gkbin");
  try {
    write_graph(coo_graph{}, nowhere);
    ADD_FAILURE() << "wrote into a missing folder";
  } catch (const input_error& e) {
    EXPECT_EQ(std::string(e.what()), nowhere + ": cannot create file");
  }
}

TEST(BinaryFormatV2, WriterRefusesInconsistentGraphs) {
  coo_graph g;
  g.num_vertices = 2;
  g.src = {0, 1};
  g.dst = {1, 0};
  g.original_ids = {5};
  EXPECT_THROW(detail::write_binary(g, temp_path(".gkbin")), error);
  g.original_ids.clear();
  EXPECT_THROW(detail::write_binary(g, temp_path(".gkbin"), 12), error);
}

TEST(BinaryFormatV1, ShippedFileFromAnOlderBuildLoads) {
  // Written by dedup before version 2: ids 10, 20, 7000000000 in a weighted triangle.
  const loaded_graph loaded = load_graph(test::input_file("good/triangle-v1.gkbin"));
  const coo_graph& g = loaded.graph;
  EXPECT_EQ(loaded.format, file_format::binary);
  EXPECT_EQ(g.num_vertices, 3u);
  EXPECT_TRUE(g.directed);
  EXPECT_EQ(g.src, (std::vector<vertex_t>{0, 1, 2}));
  EXPECT_EQ(g.dst, (std::vector<vertex_t>{1, 2, 0}));
  EXPECT_EQ(g.weights, (std::vector<weight_t>{3, 5, 1}));
  EXPECT_EQ(g.original_ids, (std::vector<original_id_t>{10, 20, 7000000000}));
}

TEST(BinaryFormatV1, RandomVersion1FilesLoadAndDamageIsStillCaught) {
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  std::mt19937_64 rng(seed);
  const std::string path = temp_path(".gkbin");
  for (int shape = 0; shape < 8; ++shape) {
    const coo_graph g = test::gkbin::random_graph(rng, rng() % 500, shape & 1, shape & 2, shape & 4);
    detail::write_binary_v1(g, path);
    expect_same_graph(g, load_graph(path).graph);
  }
  const coo_graph g = test::gkbin::random_graph(rng, 50, true, true, true);
  detail::write_binary_v1(g, path);
  std::string bytes = test::read_all(path);
  bytes[40] ^= 4;
  test::write_all(path, bytes);
  EXPECT_NE(load_error(path).find("checksum mismatch"), std::string::npos) << load_error(path);
}

}  // namespace
}  // namespace graphkit
