// The progress line: its wording, silence where stderr is not a terminal,
// and a line that is drawn and wiped where it is (forced here on a file).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <thread>

#include "apps/common/progress.hpp"

namespace graphkit::apps {
namespace {

std::string contents(std::FILE* f) {
  std::fflush(f);
  std::rewind(f);
  std::string out;
  for (int c; (c = std::fgetc(f)) != EOF;) out += static_cast<char>(c);
  return out;
}

TEST(Progress, Wording) {
  EXPECT_EQ(progress_text("load", 1'234'567'890, 1.3), "load: 1,234 MB read, 949 MB/s, 1.3 s");
  EXPECT_EQ(progress_text("build", 0, 2.0), "build: 2.0 s");
  EXPECT_EQ(progress_text("load", 999'999, 0.5), "load: 0 MB read, 1 MB/s, 0.5 s");
}

TEST(Progress, SilentWhereNotATerminal) {
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  {
    const progress_line line("load", f, 0.0);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
  }
  EXPECT_EQ(contents(f), "");
  std::fclose(f);
}

TEST(Progress, DrawnAfterTheDelayAndWipedAtTheEnd) {
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  {
    const progress_line quick("build", f, 5.0, true);  // ends before its delay: nothing
  }
  EXPECT_EQ(contents(f), "");
  {
    const progress_line line("build", f, 0.05, true);
    std::this_thread::sleep_for(std::chrono::milliseconds(400));
  }
  const std::string text = contents(f);
  EXPECT_EQ(text.rfind("\r\033[Kbuild: ", 0), 0u) << text;
  EXPECT_NE(text.find(" s"), std::string::npos);
  EXPECT_EQ(text.substr(text.size() - 4), "\r\033[K") << "the line is wiped";
  std::fclose(f);
}

}  // namespace
}  // namespace graphkit::apps
