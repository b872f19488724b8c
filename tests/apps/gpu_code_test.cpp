// What the start-up check reports a build was made for (apps/common/gpu_code.cu):
// recorded by CMake from the architectures the apps' code is compiled for.
// The check itself needs a GPU the build lacks: cli.gpu-code-missing.
#include <gtest/gtest.h>

#include <string>

#include "apps/common/gpu_code.hpp"

namespace graphkit::apps {
namespace {

TEST(GpuCode, TheBuildRecordsItsArchitecturesInWords) {
  const std::string built = built_gpu_code();
  // "sm_90 + PTX compute_90", "sm_80, sm_86, sm_89, sm_90 + PTX compute_90", "PTX compute_90"
  EXPECT_TRUE(built.find("sm_") != std::string::npos || built.find("PTX compute_") != std::string::npos) << built;
  EXPECT_EQ(built.find(';'), std::string::npos) << "a CMake list, not words: " << built;
}

}  // namespace
}  // namespace graphkit::apps
