// What the GPU build's tests hold it to: a device CSR equal, arc for arc, to
// the host's.
#pragma once

#include <gtest/gtest.h>

#include "graph/csr.hpp"
#include "graph/device_csr.hpp"

namespace graphkit::test {

inline void expect_same_csr(const csr_graph& want, const device_csr& got_device) {
  const csr_graph got = to_host(got_device);
  EXPECT_EQ(want.num_vertices, got.num_vertices);
  EXPECT_EQ(want.directed, got.directed);
  EXPECT_TRUE(want.offsets == got.offsets) << "offsets differ";
  EXPECT_TRUE(want.targets == got.targets) << "targets differ";
  EXPECT_TRUE(want.weights == got.weights) << "weights differ";
}

}  // namespace graphkit::test
