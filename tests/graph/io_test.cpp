// Loaders and writers: every shipped good input loads, every bad one is
// refused naming its file and line, and each format round-trips.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <tuple>

#include "graph/build.hpp"
#include "graph/generate/generators.hpp"
#include "graph/io/load.hpp"
#include "primitives/common/error.hpp"
#include "tests/common/test_support.hpp"

namespace graphkit {
namespace {

using test::input_file;
using test::temp_path;

std::set<std::pair<original_id_t, original_id_t>> undirected_edges(const coo_graph& g) {
  std::set<std::pair<original_id_t, original_id_t>> out;
  for (std::size_t i = 0; i < g.num_edges(); ++i) {
    const original_id_t a = g.original_id(g.src[i]), b = g.original_id(g.dst[i]);
    out.emplace(std::min(a, b), std::max(a, b));
  }
  return out;
}

void write_file(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

// The message of the input_error that loading `path` throws.
std::string load_error(const std::string& path, load_options options = {}) {
  try {
    (void)load_graph(path, options);
  } catch (const input_error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(Loaders, EveryGoodInputIsATriangle) {
  for (const char* name : {"crlf.el", "spacing.el", "triangle.el.gz", "triangle.gr", "triangle.mtx"}) {
    SCOPED_TRACE(name);
    const loaded_graph loaded = load_graph(input_file(std::string("good/") + name));
    EXPECT_EQ(loaded.graph.num_vertices, 3u);
    EXPECT_EQ(undirected_edges(loaded.graph).size(), 3u);
  }
  const loaded_graph empty = load_graph(input_file("good/empty.el"));
  EXPECT_EQ(empty.graph.num_vertices, 0u);
  EXPECT_EQ(empty.graph.num_edges(), 0u);
}

TEST(Loaders, EveryBadInputNamesFileLineAndReason) {
  struct bad_case {
    const char* file;
    std::size_t line;  // 0: no line applies
    const char* reason;
  };
  const bad_case cases[] = {
      {"nonnumeric.el", 4, "found 'x'"},
      {"one-column.el", 2, "found one field"},
      {"id-overflow.el", 2, "does not fit in 64 bits"},
      {"truncated.mtx", 2, "promises 5 entries, the file has 4"},
      {"zero-index.mtx", 3, "index 0 is outside 1..4"},
      {"index-beyond-n.mtx", 4, "index 9 is outside 1..4"},
      {"array-format.mtx", 1, "'array'"},
      {"complex-field.mtx", 1, "'complex'"},
      {"missing-header.mtx", 1, "%%MatrixMarket"},
      {"arc-count-mismatch.gr", 1, "promises 3 arcs, the file has 2"},
      {"node-beyond-n.gr", 3, "node 4 is outside 1..3"},
      {"truncated.el.gz", 0, "truncated"},
      {"garbage.gkbin", 0, "version"},
  };
  for (const bad_case& c : cases) {
    SCOPED_TRACE(c.file);
    const std::string path = input_file(std::string("bad/") + c.file);
    const std::string message = load_error(path);
    const std::string where = c.line ? path + ":" + std::to_string(c.line) + ": " : path + ": ";
    EXPECT_EQ(message.rfind(where, 0), 0u) << message;
    EXPECT_NE(message.find(c.reason), std::string::npos) << message;
  }
}

TEST(Loaders, NegativeWeightIsLoadedWithItsLine) {
  // Loaders keep negative weights (tricount ignores weights); sssp refuses
  // them using the line recorded here.
  const loaded_graph loaded = load_graph(input_file("bad/negative-weight.gr"));
  EXPECT_EQ(loaded.negative_weight_line, 4u);
  EXPECT_EQ(loaded.negative_weight, -4);
}

TEST(Loaders, EdgeListCommentsWeightsAndSparseIds) {
  const std::string path = temp_path(".wel");
  write_file(path, "# comment\n% another\n\n7000000000 5 3\r\n5 100 2\n  100\t7000000000   1  \n");
  const loaded_graph loaded = load_graph(path);
  const coo_graph& g = loaded.graph;
  ASSERT_EQ(g.num_vertices, 3u);
  ASSERT_EQ(g.num_edges(), 3u);
  EXPECT_EQ(g.original_ids, (std::vector<original_id_t>{5, 100, 7000000000}));  // sorted order
  EXPECT_EQ(g.src, (std::vector<vertex_t>{2, 0, 1}));
  EXPECT_EQ(g.dst, (std::vector<vertex_t>{0, 1, 2}));
  EXPECT_EQ(g.weights, (std::vector<weight_t>{3, 2, 1}));

  load_options first_seen;
  first_seen.relabel = relabel_order::first_seen;
  const loaded_graph again = load_graph(path, first_seen);
  EXPECT_EQ(again.graph.original_ids, (std::vector<original_id_t>{7000000000, 5, 100}));
  EXPECT_EQ(again.graph.src, (std::vector<vertex_t>{0, 1, 2}));
}

TEST(Loaders, MixedWeightColumnsAreRefused) {
  const std::string path = temp_path(".el");
  write_file(path, "0 1\n1 2\n2 0 5\n");
  EXPECT_EQ(load_error(path).rfind(path + ":3: unexpected weight", 0), 0u) << load_error(path);
  write_file(path, "0 1 4\n1 2\n");
  EXPECT_EQ(load_error(path).rfind(path + ":2: missing weight", 0), 0u) << load_error(path);
}

TEST(Loaders, WeightBeyond32BitsAndExtraFieldsAreRefused) {
  const std::string path = temp_path(".el");
  write_file(path, "0 1 3000000000\n");
  EXPECT_NE(load_error(path).find(":1: weight 3000000000 does not fit in 32 bits"), std::string::npos);
  write_file(path, "0 1 2 9\n");
  EXPECT_NE(load_error(path).find(":1: unexpected extra field '9'"), std::string::npos);
}

TEST(Loaders, ErrorLineIsExactAcrossParallelChunks) {
  // Several megabytes, so the parser splits the text into many chunks; the bad
  // line sits deep inside a later chunk.
  const std::string path = temp_path(".el");
  std::string text;
  const std::size_t bad = 700001;
  for (std::size_t line = 1; line <= 900000; ++line) {
    if (line == bad) text += "12 oops\n";
    else if (line % 1000 == 0) text += "# comment line\n";
    else text += std::to_string(line % 5000) + " " + std::to_string((line * 7) % 5000) + "\n";
  }
  write_file(path, text);
  EXPECT_EQ(
      load_error(path).rfind(path + ":" + std::to_string(bad) + ": expected a destination vertex id, found 'oops'", 0),
      0u)
      << load_error(path);
}

TEST(Loaders, FormatDetectionAndOverride) {
  EXPECT_EQ(detect_format("a/b.txt"), file_format::edge_list);
  EXPECT_EQ(detect_format("b.wel.gz"), file_format::edge_list);
  EXPECT_EQ(detect_format("b.mtx.gz"), file_format::matrix_market);
  EXPECT_EQ(detect_format("b.gr"), file_format::dimacs);
  EXPECT_EQ(detect_format("b.gkbin"), file_format::binary);
  EXPECT_THROW(detect_format("b.csv"), input_error);
  const std::string path = temp_path(".data");
  write_file(path, "p sp 2 1\na 1 2 7\n");
  load_options options;
  options.format = file_format::dimacs;
  EXPECT_EQ(load_graph(path, options).graph.weights, std::vector<weight_t>{7});
  EXPECT_NE(load_error(path).find("use --format"), std::string::npos);
  EXPECT_NE(load_error(temp_path("-missing.el")).find("cannot open"), std::string::npos);
}

TEST(Loaders, RealMatrixMarketValuesThatAreNotIntegersAreDroppedWithAWarning) {
  const std::string path = temp_path(".mtx");
  write_file(path, "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 2 1.5\n2 1 3\n");
  const loaded_graph loaded = load_graph(path);
  EXPECT_FALSE(loaded.graph.weighted());
  ASSERT_EQ(loaded.warnings.size(), 1u);
  write_file(path, "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 2 2.0\n2 1 3e0\n");
  EXPECT_EQ(load_graph(path).graph.weights, (std::vector<weight_t>{2, 3}));
}

// Round trips: write a random graph in each format and read it back.
class RoundTrip : public ::testing::TestWithParam<const char*> {};

TEST_P(RoundTrip, WriteThenLoadGivesTheSameGraph) {
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  const std::string extension = GetParam();
  const bool mtx = extension.starts_with(".mtx"), gr = extension == ".gr";
  for (const bool weighted : {false, true}) {
    for (const bool directed : {false, true}) {
      coo_graph g = generate_uniform(9, 4, seed);
      g.directed = directed;
      clean_options rules;
      rules.drop_duplicates = true;
      rules.random_weights = weighted;
      rules.seed = seed;
      (void)clean(g, rules);
      if (extension.starts_with(".el") || extension.starts_with(".txt")) {
        // Edge lists keep original ids; make them sparse to exercise that.
        g.original_ids.resize(g.num_vertices);
        for (vertex_t v = 0; v < g.num_vertices; ++v) g.original_ids[v] = 1000003ULL * v + 17;
      }
      const std::string path = temp_path(extension);
      write_graph(g, path);
      const coo_graph back = load_graph(path).graph;
      SCOPED_TRACE(std::string("weighted ") + (weighted ? "yes" : "no") + ", directed " + (directed ? "yes" : "no"));
      // Edge lists name only vertices with edges, and DIMACS writes both arcs.
      std::multiset<std::tuple<original_id_t, original_id_t, weight_t>> want, got;
      for (std::size_t i = 0; i < g.num_edges(); ++i) {
        const weight_t w = g.weighted() ? g.weights[i] : 1;
        want.emplace(g.original_id(g.src[i]), g.original_id(g.dst[i]), w);
        if (gr && !directed) want.emplace(g.original_id(g.dst[i]), g.original_id(g.src[i]), w);
      }
      for (std::size_t i = 0; i < back.num_edges(); ++i) {
        original_id_t a = back.original_id(back.src[i]), b = back.original_id(back.dst[i]);
        if (mtx || gr) --a, --b;  // their ids are dense + 1
        if (mtx && !directed && a < b) std::swap(a, b);
        const weight_t w = back.weighted() ? back.weights[i] : 1;
        got.emplace(a, b, w);
      }
      if (mtx && !directed) {
        std::multiset<std::tuple<original_id_t, original_id_t, weight_t>> lower;
        for (auto [a, b, w] : want) lower.emplace(std::max(a, b), std::min(a, b), w);
        want = lower;
      }
      EXPECT_EQ(want, got);
      if (extension == ".gkbin") {
        EXPECT_EQ(back.num_vertices, g.num_vertices);
        EXPECT_EQ(back.directed, g.directed);
        EXPECT_EQ(back.src, g.src);
        EXPECT_EQ(back.weights, g.weights);
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Formats, RoundTrip, ::testing::Values(".el", ".txt.gz", ".mtx", ".mtx.gz", ".gr", ".gkbin"),
                         [](const auto& info) {
                           std::string name = info.param + 1;
                           std::replace(name.begin(), name.end(), '.', '_');
                           return name;
                         });

TEST(BinaryFormat, CorruptionAndTruncationAreDetected) {
  coo_graph g = generate_rmat(8, 4, test::fresh_seed());
  const std::string path = temp_path(".gkbin");
  write_graph(g, path);
  std::string bytes;
  {
    std::ifstream in(path, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  std::string flipped = bytes;
  flipped[bytes.size() / 2] ^= 0x10;
  write_file(path, flipped);
  EXPECT_NE(load_error(path).find("does not match its checksum"), std::string::npos) << load_error(path);
  write_file(path, bytes.substr(0, bytes.size() - 5));
  EXPECT_NE(load_error(path).find("header implies"), std::string::npos) << load_error(path);
  write_file(path, "NOTGRAPH" + bytes.substr(8));
  EXPECT_NE(load_error(path).find("wrong magic"), std::string::npos) << load_error(path);
}

}  // namespace
}  // namespace graphkit
