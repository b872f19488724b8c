// The text parsers' fast scan (scan_unsigned_fields) against field_reader on
// lines built from the pieces its word and 32-byte paths decide on: numbers
// of 1 to 21 digits (8, 16 and 19 are the edges), blanks, CR, NUL, signs,
// lines around 32 bytes, the text's last line with and without its LF. The
// fast scan may refuse any line; a line it takes must read as field_reader
// reads it, and end where the line ends.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "graph/io/detail/fields.hpp"
#include "graph/io/detail/text_file.hpp"
#include "tests/common/test_support.hpp"

namespace graphkit::detail {
namespace {

std::string random_line(std::mt19937_64& rng) {
  static const std::vector<std::string> kOdd = {"\r", std::string(1, '\0'), "-", "+", "x", "#", ".", "\v"};
  std::string line;
  const int tokens = static_cast<int>(rng() % 6);
  for (int t = 0; t < tokens; ++t) {
    const unsigned blanks = static_cast<unsigned>(rng() % 3);
    for (unsigned b = 0; b < blanks; ++b) line += rng() % 4 ? ' ' : '\t';
    if (rng() % 12 == 0) line += kOdd[rng() % kOdd.size()];
    const int digits = 1 + static_cast<int>(rng() % (rng() % 3 ? 9 : 21));
    for (int d = 0; d < digits; ++d) line += static_cast<char>('0' + rng() % 10);
  }
  if (rng() % 3 == 0) line += ' ';
  if (rng() % 8 == 0) line += '\r';
  return line;
}

/// field_reader's reading of `line` as up to three unsigned fields, or -1.
int reference_fields(std::string_view line, std::uint64_t (&values)[3]) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  field_reader fields(line);
  std::string why;
  int n = 0;
  while (!fields.at_end()) {
    if (n == 3 || !fields.integer(values[n], "a field", why)) return -1;
    ++n;
  }
  return n;
}

TEST(FastFields, TakesOnlyWhatFieldReaderReadsTheSame) {
  const std::uint64_t seed = test::fresh_seed();
  SCOPED_TRACE("GRAPHKIT_TEST_SEED=" + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (int round = 0; round < 20000; ++round) {
    const std::string line = random_line(rng);
    const bool last_line = rng() % 4 == 0;  // the text's end instead of an LF
    const std::string text = line + (last_line ? "" : "\n") + (last_line ? "" : random_line(rng));
    // As in a text_buffer: zeros after the text.
    std::vector<char> buffer(text.size() + kTextPadding, '\0');
    std::memcpy(buffer.data(), text.data(), text.size());
    const char* const end = buffer.data() + (last_line ? text.size() : line.size() + 1);
    std::uint64_t fast[3] = {}, slow[3] = {};
    const char* next = nullptr;
    const int taken = scan_unsigned_fields(buffer.data(), end, fast, next);
    if (taken == 0) continue;
    SCOPED_TRACE("line '" + line + "'");
    ASSERT_EQ(reference_fields(line, slow), taken);
    for (int f = 0; f < taken; ++f) EXPECT_EQ(fast[f], slow[f]) << f;
    EXPECT_EQ(next, end);
  }
}

TEST(FastFields, ReadsTheUsualLinesAtEveryLength) {
  // Fields of every length up to 19 digits, so that both paths take them.
  for (int digits = 1; digits <= 19; ++digits) {
    const std::string number(static_cast<std::size_t>(digits), '7');
    for (const char* ending : {"\n", "\r\n", ""}) {
      const std::string text = "1\t" + number + " " + number + " " + ending;
      std::vector<char> buffer(text.begin(), text.end());
      buffer.resize(text.size() + kTextPadding, '\0');
      std::uint64_t values[3] = {};
      const char* next = nullptr;
      ASSERT_EQ(scan_unsigned_fields(buffer.data(), buffer.data() + text.size(), values, next), 3) << text;
      EXPECT_EQ(values[1], std::stoull(number));
      EXPECT_EQ(values[2], std::stoull(number));
      EXPECT_EQ(next, buffer.data() + text.size());
    }
  }
}

}  // namespace
}  // namespace graphkit::detail
