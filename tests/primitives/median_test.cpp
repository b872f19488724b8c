// graphkit::median against the definition, computed on a sorted copy.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "primitives/common/median.hpp"
#include "tests/common/test_support.hpp"

namespace graphkit {
namespace {

double sorted_median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t mid = v.size() / 2;
  return v.size() % 2 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
}

TEST(Median, EmptyOneAndTwo) {
  EXPECT_EQ(median({}), 0.0);
  EXPECT_EQ(median({7.5}), 7.5);
  EXPECT_EQ(median({3.0, 1.0}), 2.0);
}

TEST(Median, RandomSamplesWithRepeatsMatchTheSortedDefinition) {
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  std::mt19937_64 rng(seed);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<double> v(1 + rng() % 40);
    for (double& x : v) x = static_cast<double>(rng() % 10);  // repeats on purpose
    EXPECT_EQ(median(v), sorted_median(v)) << v.size() << " samples";
  }
}

}  // namespace
}  // namespace graphkit
