// read_text_file's two ways into memory, mapping and copying, give the same
// text, the same per-block newline counts and kTextPadding zero bytes after
// the text, for sizes around page and block boundaries (a mapped file's last
// partial page is read, not mapped, so its bytes past the end are the loader's).
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <random>
#include <string>

#include <unistd.h>

#include "graph/io/detail/text_file.hpp"
#include "primitives/common/error.hpp"
#include "tests/common/test_support.hpp"

namespace graphkit::detail {
namespace {

void expect_text(const text_buffer& t, const std::string& bytes, const char* how) {
  SCOPED_TRACE(std::string(how) + ", " + std::to_string(bytes.size()) + " bytes");
  ASSERT_EQ(t.view(), bytes);
  for (std::size_t i = 0; i < kTextPadding; ++i) ASSERT_EQ(t.view().data()[bytes.size() + i], 0) << i;
  const newline_counts counts = t.newlines();
  if (bytes.empty()) return;
  ASSERT_EQ(counts.blocks.size(), (bytes.size() + kNewlineBlock - 1) / kNewlineBlock);
  for (std::size_t b = 0; b < counts.blocks.size(); ++b) {
    const auto from = bytes.begin() + static_cast<std::ptrdiff_t>(b * kNewlineBlock);
    const auto to = bytes.begin() + static_cast<std::ptrdiff_t>(std::min(bytes.size(), (b + 1) * kNewlineBlock));
    ASSERT_EQ(counts.blocks[b], static_cast<std::uint32_t>(std::count(from, to, '\n'))) << b;
  }
}

TEST(TextFile, MappedAndCopiedGiveTheSameTextAndCounts) {
  const std::uint64_t seed = test::fresh_seed();
  SCOPED_TRACE("GRAPHKIT_TEST_SEED=" + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  const std::string path = test::temp_path(".el");
  const std::size_t sizes[] = {0,
                               1,
                               page - 1,
                               page,
                               page + 1,
                               3 * page - kTextPadding,
                               3 * page - kTextPadding + 1,
                               kNewlineBlock,
                               2 * kNewlineBlock + page + 7,
                               (std::size_t{9} << 20) + 3};
  for (const std::size_t size : sizes) {
    std::string bytes(size, 'x');
    for (char& c : bytes) c = rng() % 7 == 0 ? '\n' : static_cast<char>('0' + rng() % 10);
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
    for (const unsigned threads : {1u, 3u}) {
      expect_text(read_text_file(path, threads, text_source::map), bytes, "mapped");
      expect_text(read_text_file(path, threads, text_source::copy), bytes, "copied");
    }
  }
}

TEST(TextFile, AMissingFileIsAnInputErrorEitherWay) {
  for (const text_source source : {text_source::map, text_source::copy})
    EXPECT_THROW((void)read_text_file("/nonexistent/graphkit.el", 0, source), input_error);
}

}  // namespace
}  // namespace graphkit::detail
