// GPU tests: skip with the reason where no CUDA device exists (CI).
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "primitives/common/device.hpp"

#define GRAPHKIT_REQUIRE_GPU()                                                                             \
  do {                                                                                                     \
    if (const std::string graphkit_why_ = ::graphkit::cuda_unavailable_reason(); !graphkit_why_.empty()) { \
      GTEST_SKIP() << graphkit_why_;                                                                       \
    }                                                                                                      \
  } while (0)
