// Line counts from the reader's per-block newline counts (text_file.hpp) and
// from the text itself must agree for every range the parser may ask about:
// ranges within a block, across blocks, ending at the text's end with and
// without an LF at the range's end.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "graph/io/detail/line_chunks.hpp"
#include "tests/common/test_support.hpp"

namespace graphkit::detail {
namespace {

TEST(LineCount, BlockCountsGiveTheLinesOfAnyRange) {
  const std::uint64_t seed = test::fresh_seed();
  SCOPED_TRACE("GRAPHKIT_TEST_SEED=" + std::to_string(seed));
  std::mt19937_64 rng(seed);
  std::string text(3 * kNewlineBlock + 12345, 'x');
  for (char& c : text) c = rng() % 9 == 0 ? '\n' : static_cast<char>('0' + rng() % 10);
  std::vector<std::uint32_t> blocks;
  for (std::size_t at = 0; at < text.size(); at += kNewlineBlock) {
    const std::size_t len = std::min(kNewlineBlock, text.size() - at);
    blocks.push_back(static_cast<std::uint32_t>(std::count(text.begin() + at, text.begin() + at + len, '\n')));
  }
  const newline_counts known{text.data(), blocks};
  for (int round = 0; round < 200; ++round) {
    std::size_t a = rng() % text.size(), b = rng() % 4 == 0 ? text.size() : rng() % text.size();
    if (a > b) std::swap(a, b);
    const char *p = text.data() + a, *end = text.data() + b;
    const std::size_t newlines = static_cast<std::size_t>(std::count(p, end, '\n'));
    ASSERT_EQ(count_newlines(p, end), newlines) << a << ".." << b;
    ASSERT_EQ(count_lines(p, end, known), count_lines(p, end)) << a << ".." << b;
  }
}

}  // namespace
}  // namespace graphkit::detail
