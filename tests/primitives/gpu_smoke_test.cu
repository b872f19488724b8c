// The GPU test mechanism itself: allocate, launch, check, copy back, and skip
// with a reason where there is no CUDA device (CI).
#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <vector>

#include "primitives/common/device.hpp"
#include "primitives/common/device_buffer.hpp"
#include "primitives/common/error.hpp"
#include "primitives/common/launch.hpp"
#include "tests/common/gpu_support.hpp"

namespace graphkit {
namespace {

/// Writes every index; a poisoned buffer shows any it missed.
__global__ void iota_kernel(std::uint32_t* out, std::uint32_t n) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = i;
}

TEST(GpuSmoke, KernelWritesEveryElementOfADeviceBuffer) {
  GRAPHKIT_REQUIRE_GPU();
  for (const std::uint32_t n : {1u, 255u, 256u, 257u, 100'003u}) {
    device_buffer<std::uint32_t> out(n);
    out.fill_bytes(0xff);  // poison: every entry must be written
    iota_kernel<<<blocks_for(n, 256), 256>>>(out.data(), n);
    GRAPHKIT_CHECK_LAUNCH();
    const std::vector<std::uint32_t> got = out.to_host();
    std::vector<std::uint32_t> want(n);
    std::iota(want.begin(), want.end(), 0u);
    ASSERT_EQ(got, want) << "n = " << n;
  }
}

TEST(GpuSmoke, ImpossibleAllocationIsAClearError) {
  GRAPHKIT_REQUIRE_GPU();
  try {
    device_buffer<char> huge(std::size_t{1} << 50);  // a petabyte
    FAIL() << "allocation of 2^50 bytes succeeded";
  } catch (const device_memory_error& e) {
    EXPECT_NE(std::string(e.what()).find("out of GPU memory: asked for 1125899906842624 bytes"), std::string::npos)
        << e.what();
  }
  // The failure must not poison later work.
  device_buffer<int> fine(16);
  fine.fill_bytes(0);
  GRAPHKIT_CUDA_TRY(cudaDeviceSynchronize());
}

TEST(GpuSmoke, FailedCallNamesItself) {
  GRAPHKIT_REQUIRE_GPU();
  try {
    GRAPHKIT_CUDA_TRY(cudaSetDevice(1 << 20));
    FAIL() << "cudaSetDevice(2^20) succeeded";
  } catch (const cuda_error& e) {
    EXPECT_NE(std::string(e.what()).find("cudaSetDevice"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("cudaErrorInvalidDevice"), std::string::npos) << e.what();
  }
}

TEST(GpuSmoke, ReportsWhyItSkips) {
  // Always runs: on a machine without a device the reason must be non-empty.
  if (cuda_device_count() == 0) EXPECT_FALSE(cuda_unavailable_reason().empty());
  else EXPECT_TRUE(cuda_unavailable_reason().empty());
}

}  // namespace
}  // namespace graphkit
