// The GPU text parser against load_graph, the host reader it must equal: the
// shipped datasets, random graphs in every text format (LF and CR LF, tabs,
// a last line without its newline, gzip), and mutated files whose only
// allowed outcomes are the host's graph or a hand-back to the host
// (nullopt), never a different graph.
#include <gtest/gtest.h>

#include <fstream>
#include <random>
#include <sstream>

#include "graph/build.hpp"
#include "graph/generate/generators.hpp"
#include "graph/gpu/load_gpu.hpp"
#include "graph/io/load.hpp"
#include "primitives/common/error.hpp"
#include "tests/common/gpu_support.hpp"
#include "tests/graph/device_loaded_checks.hpp"
#include "tests/common/test_support.hpp"

namespace graphkit {
namespace {

gpu_load_options every_size() {
  gpu_load_options o;
  o.min_bytes = 0;
  return o;
}

TEST(LoadGpu, ShippedDatasetsParseAsOnTheHost) {
  GRAPHKIT_REQUIRE_GPU();
  // bcsstk13 holds real values: the host's (nullopt). The others are common-shape files.
  for (const char* name :
       {"CA-GrQc.txt", "p2p-Gnutella04.txt", "facebook_combined.txt", "jagmesh7.mtx", "karate.mtx", "rome99.gr"}) {
    SCOPED_TRACE(name);
    std::optional<device_loaded> got = load_on_gpu(test::dataset(name), every_size());
    ASSERT_TRUE(got.has_value());
    test::expect_same_as_host(test::dataset(name), std::move(*got));
  }
  EXPECT_FALSE(load_on_gpu(test::dataset("bcsstk13.mtx"), every_size()).has_value());
  EXPECT_FALSE(load_on_gpu(test::dataset("karate.mtx")).has_value()) << "small files are the host's by default";
}

TEST(LoadGpu, RandomGraphsInEveryTextFormatAndLineEnding) {
  GRAPHKIT_REQUIRE_GPU();
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  coo_graph g = generate_rmat(12, 8, seed);
  assign_random_weights(g, seed);
  for (const char* suffix : {".el", ".mtx", ".gr", ".mtx.gz", ".el.gz"}) {
    const std::string path = test::temp_path(suffix);
    write_graph(g, path);
    for (const bool crlf_tabs_open_end : {false, true}) {
      SCOPED_TRACE(std::string(suffix) + (crlf_tabs_open_end ? ", CR LF, tabs, no last newline" : ""));
      if (crlf_tabs_open_end) {
        if (std::string(suffix).ends_with(".gz")) continue;
        std::string text = test::read_all(path), out;
        for (const char c : text) {
          if (c == '\n') out += "\r\n";
          else if (c == ' ' && (out.size() & 1)) out += "\t ";
          else out += c;
        }
        out.resize(out.size() - 2);  // the last line ends at the end of the file
        test::write_all(path, out);
      }
      std::optional<device_loaded> got = load_on_gpu(path, every_size());
      ASSERT_TRUE(got.has_value());
      test::expect_same_as_host(path, std::move(*got));
    }
    std::remove(path.c_str());
  }
}

TEST(LoadGpu, ZeroAndOneEdgeFiles) {
  GRAPHKIT_REQUIRE_GPU();
  const std::string el = test::temp_path(".el"), mtx = test::temp_path(".mtx");
  test::write_all(el, "# one edge\n5 9\n");
  test::write_all(mtx, "%%MatrixMarket matrix coordinate pattern general\n3 3 1\n3 1\n");
  for (const std::string& path : {el, mtx}) {
    std::optional<device_loaded> got = load_on_gpu(path, every_size());
    ASSERT_TRUE(got.has_value());
    test::expect_same_as_host(path, std::move(*got));
  }
  test::write_all(el, "# no edges\n");
  test::write_all(mtx, "%%MatrixMarket matrix coordinate pattern general\n3 3 0\n");
  EXPECT_FALSE(load_on_gpu(el, every_size()).has_value());
  EXPECT_FALSE(load_on_gpu(mtx, every_size()).has_value());
  std::remove(el.c_str());
  std::remove(mtx.c_str());
}

/// Lines the GPU must hand to the host, each in an otherwise common file.
TEST(LoadGpu, UncommonLinesGoToTheHost) {
  GRAPHKIT_REQUIRE_GPU();
  const std::string header = "%%MatrixMarket matrix coordinate integer general\n4 4 3\n";
  const char* uncommon[] = {
      "1 2 3\n% a comment\n2 3 4\n3 4 5\n",  // a comment among the data: 4 lines for 3 entries
      "1 2 3\n2 3 -4\n3 4 5\n",              // a sign
      "1 2 3\n2 3 4.5\n3 4 5\n",             // a real value
      "1 2 3\n2 5 4\n3 4 5\n",               // an id past n
      "1 2 3\n0 3 4\n3 4 5\n",               // id 0
      "1 2 3\n2 3\n3 4 5\n",                 // a field short
      "1 2 3\n2 3 4 5\n3 4 5\n",             // a field too many
      "1 2 3\n2 3 99999999999\n3 4 5\n",     // a weight past 32 bits
      "1 2 3\n2 3 4\n3 4 5\n\n",             // a blank last line
      "1 2 3\n2 x3 4\n3 4 5\n",              // stray characters
  };
  const std::string path = test::temp_path(".mtx");
  for (const char* body : uncommon) {
    SCOPED_TRACE(body);
    test::write_all(path, header + body);
    EXPECT_FALSE(load_on_gpu(path, every_size()).has_value());
  }
  test::write_all(path, header + "1 2 3\n2 3 4\n3 4 5\n");
  EXPECT_TRUE(load_on_gpu(path, every_size()).has_value());
  std::remove(path.c_str());
}

/// Random damage to a valid file: the GPU gives the host's graph or hands the
/// file back; where the host refuses the file, the GPU must not accept it.
TEST(LoadGpu, MutatedFilesGiveTheHostsGraphOrGoToTheHost) {
  GRAPHKIT_REQUIRE_GPU();
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  std::mt19937_64 rng(seed);
  coo_graph g = generate_rmat(8, 4, seed);
  assign_random_weights(g, seed);
  const char alphabet[] = "0123456789 \t\r\n#%-.ac";
  for (const char* suffix : {".el", ".mtx", ".gr"}) {
    const std::string path = test::temp_path(suffix);
    write_graph(g, path);
    const std::string original = test::read_all(path);
    int accepted = 0;
    for (int round = 0; round < 60; ++round) {
      std::string text = original;
      const int edits = 1 + static_cast<int>(rng() % 3);
      for (int e = 0; e < edits; ++e) {
        const std::size_t at = rng() % text.size();
        const char c = alphabet[rng() % (sizeof alphabet - 1)];
        switch (rng() % 3) {
          case 0: text[at] = c; break;
          case 1: text.insert(at, 1, c); break;
          default: text.erase(at, 1); break;
        }
      }
      test::write_all(path, text);
      SCOPED_TRACE(std::string(suffix) + ", round " + std::to_string(round));
      bool host_accepts = true;
      try {
        (void)load_graph(path);
      } catch (const input_error&) {
        host_accepts = false;
      }
      std::optional<device_loaded> got = load_on_gpu(path, every_size());
      if (!got) continue;
      ASSERT_TRUE(host_accepts) << "the GPU accepted a file the host refuses";
      ++accepted;
      test::expect_same_as_host(path, std::move(*got));
    }
    RecordProperty(std::string("accepted") + suffix, accepted);
    std::remove(path.c_str());
  }
}

}  // namespace
}  // namespace graphkit
