// The GAP runner of sssp_bench against stand-in gap-sssp and gap-converter
// scripts (the real binaries live on the GPU machine): the command line it
// builds (threads, file, 0-based source, trials, delta, paths with spaces and
// quotes), the 'Average Time:' it reads, the best delta it picks, and n/a
// (nullopt) when GAP fails or is missing.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "bench/common/gap_sssp.hpp"
#include "tests/common/test_support.hpp"

namespace graphkit::bench {
namespace {

namespace fs = std::filesystem;

// A folder whose name needs quoting, holding the stand-ins; each call of the
// fake gap-sssp appends "threads file source trials delta" to calls.log and
// prints a time that depends on the delta (best: 256, 10 ms).
class GapSssp : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = test::temp_path(" gap's anchors");
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    script("gap-sssp", R"(log="$(dirname "$0")/calls.log"
[ -f "$2" ] || { echo "Couldn't open file $2"; exit 2; }
echo "$OMP_NUM_THREADS $2 $4 $6 $8" >> "$log"
case "$8" in 1) t=0.05000;; 16) t=0.02000;; 256) t=0.01000;; *) t=0.03000;; esac
echo "Trial Time:          $t"
echo "Average Time:        $t")");
    script("gap-converter", R"(while [ $# -gt 0 ]; do [ "$1" = -b ] && out="$2"; shift; done
echo serialized > "$out")");
    gap_ = {dir_, 7};
  }
  void TearDown() override { fs::remove_all(dir_); }

  void script(const std::string& name, const std::string& body) {
    const fs::path path = fs::path(dir_) / name;
    test::write_all(path.string(), "#!/bin/sh\n" + body + "\n");
    fs::permissions(path, fs::perms::owner_all);
  }
  [[nodiscard]] std::string calls() const { return test::read_all((fs::path(dir_) / "calls.log").string()); }
  [[nodiscard]] std::string graph_file() const {
    const std::string gr = (fs::path(dir_) / "road_22.gr").string();
    test::write_all(gr, "p sp 1 0\n");
    return gr;
  }

  std::string dir_;
  gap_anchor gap_;
};

TEST_F(GapSssp, SerializesBesideTheFileAndReadsTheAverage) {
  ASSERT_TRUE(gap_.available());
  const std::optional<std::string> wsg = gap_serialize(gap_, graph_file());
  ASSERT_TRUE(wsg.has_value());
  EXPECT_EQ(fs::path(*wsg).filename(), "road_22.wsg");
  EXPECT_TRUE(fs::exists(*wsg));
  const std::optional<double> ms = gap_sssp_ms(gap_, *wsg, 41, 3, 16);
  ASSERT_TRUE(ms.has_value());
  EXPECT_DOUBLE_EQ(*ms, 20.0);
  EXPECT_EQ(calls(), "7 " + *wsg + " 41 3 16\n");
}

TEST_F(GapSssp, BestDeltaFromTheSweepThenEverySource) {
  const std::optional<std::string> wsg = gap_serialize(gap_, graph_file());
  ASSERT_TRUE(wsg.has_value());
  const std::optional<gap_result> best = gap_best(gap_, *wsg, {5, 9, 11}, {1, 16, 256, 2048}, 4);
  ASSERT_TRUE(best.has_value());
  EXPECT_EQ(best->delta, 256u);
  EXPECT_DOUBLE_EQ(best->ms, 10.0);
  EXPECT_EQ(best->sweep, "1=50.0 16=20.0 256=10.0 2048=30.0");
  // The sweep: each delta once from the first two sources; then delta 256 from all three, 4 trials each.
  std::string want;
  for (const char* delta : {"1", "16", "256", "2048"})
    for (const char* source : {"5", "9"}) want += "7 " + *wsg + " " + source + " 1 " + delta + "\n";
  for (const char* source : {"5", "9", "11"}) want += "7 " + *wsg + " " + source + " 4 256\n";
  EXPECT_EQ(calls(), want);
}

TEST_F(GapSssp, FailuresAreNotANumber) {
  EXPECT_FALSE(gap_sssp_ms(gap_, (fs::path(dir_) / "missing.wsg").string(), 0, 1, 1).has_value());
  EXPECT_FALSE(gap_best(gap_, (fs::path(dir_) / "missing.wsg").string(), {0}, {1}, 1).has_value());
  EXPECT_FALSE(gap_best(gap_, graph_file(), {0}, {}, 1).has_value());  // no delta to try
  script("gap-sssp", "echo 'Graph has 1 nodes'");                      // exits 0 without an average
  EXPECT_FALSE(gap_sssp_ms(gap_, graph_file(), 0, 1, 1).has_value());
  script("gap-converter", "exit 3");
  EXPECT_FALSE(gap_serialize(gap_, graph_file()).has_value());
  EXPECT_FALSE((gap_anchor{(fs::path(dir_) / "nowhere").string(), 16}.available()));
  EXPECT_FALSE((gap_anchor{"", 16}.available()));
}

}  // namespace
}  // namespace graphkit::bench
