// Helpers shared by the test binaries: fresh seeds that are printed (so a
// failure can be replayed with GRAPHKIT_TEST_SEED), paths to shipped data.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <string>

namespace graphkit::test {

/// A new seed per call unless GRAPHKIT_TEST_SEED is set; recorded in the
/// test's XML output and printed on failure through SCOPED_TRACE by callers.
inline std::uint64_t fresh_seed() {
  if (const char* fixed = std::getenv("GRAPHKIT_TEST_SEED")) return std::strtoull(fixed, nullptr, 10);
  std::random_device device;
  const std::uint64_t seed = (std::uint64_t{device()} << 32) | device();
  ::testing::Test::RecordProperty("seed", std::to_string(seed));
  return seed;
}

inline std::string source_path(const std::string& relative) {
  return std::string(GRAPHKIT_SOURCE_DIR) + "/" + relative;
}
inline std::string dataset(const std::string& name) { return source_path("datasets/" + name); }
inline std::string input_file(const std::string& relative) { return source_path("tests/data/inputs/" + relative); }

/// A scratch file path unique to the running test.
inline std::string temp_path(const std::string& suffix) {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string name = std::string(info->test_suite_name()) + "_" + info->name();
  for (char& c : name)
    if (c == '/') c = '_';  // parameterized suites and tests carry slashes
  return ::testing::TempDir() + "graphkit_" + name + suffix;
}

/// A file's bytes, and a file written with `text` (binary: bytes as given).
inline std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}
inline void write_all(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

}  // namespace graphkit::test

#define GRAPHKIT_SEED_TRACE(seed) \
  SCOPED_TRACE("seed " + std::to_string(seed) + " (replay: GRAPHKIT_TEST_SEED=" + std::to_string(seed) + ")")
