// The apps' exit codes, as guarded_main maps what a run throws: 2 for bad
// input and for too little memory, 3 for everything internal, and a body's
// own code (0, or 1 after a failed validation) passed through.
#include <gtest/gtest.h>

#include <new>
#include <stdexcept>
#include <string>

#include "apps/common/options.hpp"
#include "primitives/common/device_buffer.hpp"
#include "primitives/common/error.hpp"

namespace graphkit::apps {
namespace {

TEST(ExitCodes, EachKindOfFailureHasItsCode) {
  EXPECT_EQ(guarded_main([] { return kExitSuccess; }), 0);
  EXPECT_EQ(guarded_main([] { return kExitValidationFailed; }), 1);
  EXPECT_EQ(guarded_main([]() -> int { throw input_error("bad.el:3: expected a vertex id"); }), 2);
  EXPECT_EQ(guarded_main([]() -> int { throw make_input_error("bad.el", 3, "expected a vertex id"); }), 2);
  EXPECT_EQ(guarded_main([]() -> int { throw device_memory_error("out of GPU memory: asked for 9 bytes"); }), 2);
  EXPECT_EQ(guarded_main([]() -> int { throw resource_error("table full"); }), 2);
  EXPECT_EQ(guarded_main([]() -> int { throw std::bad_alloc(); }), 2);
  EXPECT_EQ(guarded_main([]() -> int { throw error("a broken invariant"); }), 3);
  EXPECT_EQ(guarded_main([]() -> int { throw cuda_error(cudaErrorLaunchFailure, "kernel<<<>>>", "x.cu", 1); }), 3);
  EXPECT_EQ(guarded_main([]() -> int { throw std::logic_error("std"); }), 3);
  EXPECT_EQ(guarded_main([]() -> int { throw 42; }), 3);
}

TEST(ExitCodes, TheAppNotTheLibrarySuggestsTheCpuWhenGpuMemoryRunsOut) {
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(guarded_main([]() -> int { throw device_memory_error("out of GPU memory: asked for 9 bytes"); }), 2);
  const std::string said = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(said.find("error: out of GPU memory: asked for 9 bytes\n"), std::string::npos) << said;
  EXPECT_NE(said.find("--device cpu"), std::string::npos) << said;
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(guarded_main([]() -> int { throw resource_error("table full"); }), 2);
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "error: table full\n");
}

TEST(ExitCodes, ExpectsNamesTheConditionWhereItFails) {
  const int n = 3;
  EXPECT_NO_THROW(GRAPHKIT_EXPECTS(n == 3, "n is three"));
  try {
    GRAPHKIT_EXPECTS(n == 4, "n must be four");
    FAIL() << "no throw";
  } catch (const error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("n must be four"), std::string::npos) << what;
    EXPECT_NE(what.find("(expected n == 4)"), std::string::npos) << what;
    EXPECT_NE(what.find("exit_codes_test.cpp"), std::string::npos) << what;
  }
  EXPECT_EQ(guarded_main([&]() -> int {
              GRAPHKIT_EXPECTS(n == 4, "n must be four");
              return 0;
            }),
            3);
}

}  // namespace
}  // namespace graphkit::apps
