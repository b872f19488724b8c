// hash_bench's reading of cuCollections' figures: the anchor binary's own line
// format (as its printf spells it), lines it must pass over, a binary that
// cannot run, and the recorded fallback.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "bench/cuco_figures.hpp"

namespace graphkit::bench {
namespace {

// The format string inside ../shared/anchors/cuco_bench (`strings` shows it).
constexpr const char* kCucoFormat =
    "cuco static_map linear_probing<4> load %.2f (capacity %zu): insert %.0f M/s, find %.0f M/s, erase half %.0f M/s\n";

std::string cuco_line(double load, double insert, double find, double erase) {
  char line[256];
  std::snprintf(line, sizeof line, kCucoFormat, load, static_cast<std::size_t>((1u << 26) / load), insert, find, erase);
  return line;
}

TEST(CucoFigures, ReadsTheAnchorsLineFormat) {
  cuco_row row;
  ASSERT_TRUE(parse_cuco_line(cuco_line(0.9, 6190, 12050, 11260), row));
  EXPECT_DOUBLE_EQ(row.load, 0.9);
  EXPECT_DOUBLE_EQ(row.insert, 6.19);
  EXPECT_DOUBLE_EQ(row.find, 12.05);
  EXPECT_DOUBLE_EQ(row.erase, 11.26);
}

TEST(CucoFigures, PassesOverOtherLinesAndKeepsWhatItCanRead) {
  cuco_row row;
  EXPECT_FALSE(parse_cuco_line("last error: no error", row));
  EXPECT_FALSE(parse_cuco_line("cudaError 2: out of memory", row));
  EXPECT_FALSE(parse_cuco_line("", row));
  cuco_row partial;
  ASSERT_TRUE(parse_cuco_line("cuco static_map load 0.50: insert 10000 M/s", partial));
  EXPECT_DOUBLE_EQ(partial.insert, 10.0);
  EXPECT_EQ(partial.find, 0.0);  // printed as n/a
  EXPECT_EQ(partial.erase, 0.0);
}

TEST(CucoFigures, RunsABinaryAndReadsEveryRow) {
  const auto dir = std::filesystem::temp_directory_path() / ("cuco_figures_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto script = dir / "fake cuco";  // a space in the path, as paths may have
  {
    std::ofstream out(script);
    out << "#!/bin/sh\necho 'warming up'\n";
    out << "printf '%s'\n"
        << "'" << cuco_line(0.5, 10470, 21600, 11370) << "'\n";
    out << "printf '%s'\n"
        << "'" << cuco_line(0.95, 4220, 7600, 10100) << "'\n";
  }
  std::filesystem::permissions(script, std::filesystem::perms::owner_all);
  const cuco_figures figures = cuco_measured(script.string());
  std::filesystem::remove_all(dir);
  ASSERT_EQ(figures.rows.size(), 2u) << figures.source;
  ASSERT_NE(figures.at(0.95), nullptr);
  EXPECT_DOUBLE_EQ(figures.at(0.95)->find, 7.6);
  EXPECT_EQ(figures.at(0.7), nullptr);
  EXPECT_NE(figures.source.find("measured in this run"), std::string::npos);
}

TEST(CucoFigures, ABinaryThatCannotRunGivesNoRows) {
  const cuco_figures figures = cuco_measured("/nonexistent/cuco_bench");
  EXPECT_TRUE(figures.rows.empty());
  EXPECT_EQ(figures.source.rfind("n/a", 0), 0u) << figures.source;
}

TEST(CucoFigures, RecordedFiguresAreLabelledAndCoverEveryLoad) {
  const cuco_figures recorded = cuco_recorded();
  for (const double load : {0.5, 0.7, 0.8, 0.9, 0.95}) ASSERT_NE(recorded.at(load), nullptr) << load;
  EXPECT_DOUBLE_EQ(recorded.at(0.9)->find, 12.03);
  EXPECT_NE(recorded.source.find("PERFORMANCE.md"), std::string::npos);
}

}  // namespace
}  // namespace graphkit::bench
