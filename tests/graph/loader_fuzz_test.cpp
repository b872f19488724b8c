// Fuzzing the text loaders with mutated copies of real inputs: bytes flipped
// to digits, blanks, line ends, signs, letters and NUL; lines cut; huge and
// negative numbers spliced in; truncation. The only outcomes allowed are a
// graph or an input_error; for edge lists the graph must also be the one an
// independent line-by-line model of the format reads (no line dropped, none
// misread by the fast path). Fixed seeds in CI; GRAPHKIT_FUZZ_ROUNDS=N runs
// more, GRAPHKIT_TEST_SEED replays one.
#include <gtest/gtest.h>

#include <charconv>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <optional>
#include <random>
#include <sstream>

#include "graph/io/load.hpp"
#include "primitives/common/error.hpp"
#include "tests/common/test_support.hpp"

namespace graphkit {
namespace {

/// A large edge list, so that the loader cuts it into several parts: ids up
/// to 2^40, weights, comments in the middle, blank and CRLF lines.
std::string big_edge_list(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::string text = "# header\n% another\n";
  for (int i = 0; i < 150000; ++i) {
    text += std::to_string(rng() >> 24) + (i % 7 ? " " : "\t") + std::to_string(rng() >> 24) + " " +
            std::to_string(rng() % 1000) + (i % 5000 == 3 ? "\r\n" : "\n");
    if (i % 40000 == 7) text += "# a comment between edges\n\n";
  }
  return text;
}

std::string mutate(std::string text, std::mt19937_64& rng) {
  static const std::string kBytes = "0123456789 \t\n\r-+x#%.e";
  if (text.empty()) return "1";
  const int edits = 1 + static_cast<int>(rng() % 4);
  for (int e = 0; e < edits && !text.empty(); ++e) {
    const std::size_t at = rng() % text.size();
    switch (rng() % 6) {
      case 0: text[at] = kBytes[rng() % kBytes.size()]; break;
      case 1: text[at] = '\0'; break;
      case 2: text.insert(at, rng() % 2 ? "99999999999999999999999" : "-5"); break;
      case 3: {  // cut a line: drop from here to its end
        const std::size_t nl = text.find('\n', at);
        text.erase(at, nl == std::string::npos ? std::string::npos : nl - at);
        break;
      }
      case 4: text.resize(at); break;  // truncate
      default: text.insert(at, " 7 "); break;
    }
  }
  return text;
}

bool blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

struct model_edge {
  std::uint64_t u, v;
  std::optional<std::int64_t> w;
};

/// The edge-list format read the simple way: split into lines and fields,
/// each field through from_chars. nullopt where the loader must refuse.
std::optional<std::vector<model_edge>> model_edge_list(const std::string& text) {
  std::vector<model_edge> edges;
  std::optional<bool> weighted;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    std::string line = text.substr(pos, nl - pos);
    pos = nl + 1;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    std::vector<std::string> fields;
    for (std::size_t i = 0; i < line.size();) {
      while (i < line.size() && blank(line[i])) ++i;
      const std::size_t start = i;
      while (i < line.size() && !blank(line[i])) ++i;
      if (i > start) fields.push_back(line.substr(start, i - start));
    }
    if (fields.empty() || fields[0][0] == '#' || fields[0][0] == '%') continue;
    if (fields.size() < 2 || fields.size() > 3) return std::nullopt;
    auto number = [](const std::string& f, auto& value) {
      const auto [p, ec] = std::from_chars(f.data(), f.data() + f.size(), value);
      return ec == std::errc() && p == f.data() + f.size();
    };
    model_edge e{};
    if (!number(fields[0], e.u) || !number(fields[1], e.v)) return std::nullopt;
    if (fields.size() == 3) {
      std::int64_t w = 0;
      if (!number(fields[2], w) || w < std::numeric_limits<std::int32_t>::min() ||
          w > std::numeric_limits<std::int32_t>::max())
        return std::nullopt;
      e.w = w;
    }
    if (!weighted) weighted = e.w.has_value();
    if (*weighted != e.w.has_value()) return std::nullopt;
    edges.push_back(e);
  }
  return edges;
}

int rounds() {
  const char* n = std::getenv("GRAPHKIT_FUZZ_ROUNDS");
  return n ? std::max(1, std::atoi(n)) : 40;
}

/// Loads `text` as `path`; an input_error must name the file.
std::optional<loaded_graph> try_load(const std::string& path, const std::string& text) {
  test::write_all(path, text);
  try {
    return load_graph(path);
  } catch (const input_error& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    return std::nullopt;
  }
}

TEST(LoaderFuzz, EdgeListsReadAsTheLineModelSays) {
  const std::uint64_t seed = std::getenv("GRAPHKIT_TEST_SEED") ? test::fresh_seed() : 20261123;
  GRAPHKIT_SEED_TRACE(seed);
  std::mt19937_64 rng(seed);
  const std::vector<std::string> bases = {test::read_all(test::input_file("good/crlf.el")),
                                          test::read_all(test::input_file("good/spacing.el")),
                                          test::read_all(test::dataset("CA-GrQc.txt")), big_edge_list(seed)};
  const std::string path = test::temp_path(".el");
  int accepted = 0, refused = 0;
  for (int r = 0; r < rounds(); ++r) {
    const std::string text = mutate(bases[r % bases.size()], rng);
    SCOPED_TRACE("round " + std::to_string(r));
    const auto want = model_edge_list(text);
    const auto got = try_load(path, text);
    ASSERT_EQ(got.has_value(), want.has_value())
        << "the loader " << (got ? "accepted" : "refused") << " what the model " << (want ? "accepts" : "refuses");
    ++(got ? accepted : refused);
    if (!got) continue;
    const coo_graph& g = got->graph;
    ASSERT_EQ(g.num_edges(), want->size());
    for (std::size_t i = 0; i < want->size(); ++i) {
      const model_edge& e = (*want)[i];
      ASSERT_EQ(g.original_id(g.src[i]), e.u) << "edge " << i;
      ASSERT_EQ(g.original_id(g.dst[i]), e.v) << "edge " << i;
      if (e.w) {
        ASSERT_EQ(g.weights[i], *e.w) << "edge " << i;
      }
    }
  }
  EXPECT_GT(accepted, 0) << "no mutated file loaded: the comparison was never made";
  EXPECT_GT(refused, 0) << "no mutated file was refused: the errors were never exercised";
}

TEST(LoaderFuzz, MatrixMarketAndDimacsGiveAGraphOrAnError) {
  const std::uint64_t seed = std::getenv("GRAPHKIT_TEST_SEED") ? test::fresh_seed() : 20261124;
  GRAPHKIT_SEED_TRACE(seed);
  std::mt19937_64 rng(seed);
  for (const auto& [file, ext] :
       {std::pair{test::dataset("karate.mtx"), ".mtx"}, std::pair{test::dataset("jagmesh7.mtx"), ".mtx"},
        std::pair{test::input_file("good/triangle.mtx"), ".mtx"}, std::pair{test::dataset("rome99.gr"), ".gr"},
        std::pair{test::input_file("good/triangle.gr"), ".gr"}}) {
    const std::string base = test::read_all(file), path = test::temp_path(ext);
    for (int r = 0; r < rounds(); ++r) {
      SCOPED_TRACE(file + ", round " + std::to_string(r));
      const auto got = try_load(path, mutate(base, rng));
      if (!got) continue;
      const coo_graph& g = got->graph;
      ASSERT_EQ(g.src.size(), g.dst.size());
      for (std::size_t i = 0; i < g.num_edges(); ++i)
        ASSERT_TRUE(g.src[i] < g.num_vertices && g.dst[i] < g.num_vertices) << "edge " << i;
    }
  }
}

}  // namespace
}  // namespace graphkit
