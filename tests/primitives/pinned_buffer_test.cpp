// primitives/common/pinned_buffer.hpp: owns page-locked memory, moves without
// copying, round-trips data through the device, and turns an impossible
// allocation into a resource_error (exit 2) that leaves CUDA usable.
#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <random>
#include <type_traits>
#include <utility>
#include <vector>

#include "primitives/common/device_buffer.hpp"
#include "primitives/common/error.hpp"
#include "primitives/common/pinned_buffer.hpp"
#include "tests/common/gpu_support.hpp"
#include "tests/common/test_support.hpp"

namespace graphkit {
namespace {

static_assert(!std::is_copy_constructible_v<pinned_buffer<int>> && !std::is_copy_assignable_v<pinned_buffer<int>>);
static_assert(std::is_nothrow_move_constructible_v<pinned_buffer<int>> &&
              std::is_nothrow_move_assignable_v<pinned_buffer<int>>);

TEST(PinnedBuffer, EmptyNeedsNoDevice) {
  pinned_buffer<double> none;  // no CUDA call: usable on machines without a GPU
  EXPECT_TRUE(none.empty());
  EXPECT_EQ(none.data(), nullptr);
  EXPECT_EQ(none.span().size(), 0u);
  pinned_buffer<double> zero(0);
  EXPECT_TRUE(zero.empty());
  EXPECT_EQ(zero.begin(), zero.end());
}

TEST(PinnedBuffer, IsPinnedAndRoundTripsThroughTheDevice) {
  GRAPHKIT_REQUIRE_GPU();
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  std::mt19937_64 random(seed);
  for (const std::size_t n : {std::size_t{1}, std::size_t{1000}, std::size_t{3} << 20}) {
    pinned_buffer<std::uint32_t> in(n), out(n);
    ASSERT_EQ(in.size(), n);
    ASSERT_EQ(in.bytes(), n * sizeof(std::uint32_t));
    cudaPointerAttributes attributes{};
    GRAPHKIT_CUDA_TRY(cudaPointerGetAttributes(&attributes, in.data()));
    EXPECT_EQ(attributes.type, cudaMemoryTypeHost) << "not page-locked";
    for (auto& x : in) x = static_cast<std::uint32_t>(random());
    device_buffer<std::uint32_t> d(n);
    GRAPHKIT_CUDA_TRY(cudaMemcpyAsync(d.data(), in.data(), in.bytes(), cudaMemcpyHostToDevice, nullptr));
    GRAPHKIT_CUDA_TRY(cudaMemcpyAsync(out.data(), d.data(), out.bytes(), cudaMemcpyDeviceToHost, nullptr));
    GRAPHKIT_CUDA_TRY(cudaStreamSynchronize(nullptr));
    ASSERT_TRUE(std::equal(in.begin(), in.end(), out.begin())) << "n = " << n;
  }
}

TEST(PinnedBuffer, MovesHandOverTheMemory) {
  GRAPHKIT_REQUIRE_GPU();
  pinned_buffer<int> a(16);
  std::iota(a.begin(), a.end(), 0);
  int* const memory = a.data();
  pinned_buffer<int> b(std::move(a));
  EXPECT_EQ(b.data(), memory);
  EXPECT_EQ(b.size(), 16u);
  EXPECT_TRUE(a.empty());  // NOLINT(bugprone-use-after-move): the moved-from state is specified
  pinned_buffer<int> c(4);
  c = std::move(b);  // frees c's own 4 ints
  EXPECT_EQ(c.data(), memory);
  EXPECT_EQ(c[15], 15);
  std::vector<pinned_buffer<int>> many;
  for (int i = 0; i < 8; ++i) many.emplace_back(1024);  // reallocation moves them
  for (auto& m : many) EXPECT_EQ(m.size(), 1024u);
}

TEST(PinnedBuffer, ImpossibleAllocationIsAResourceError) {
  GRAPHKIT_REQUIRE_GPU();
  EXPECT_THROW(pinned_buffer<char>(std::size_t{1} << 50), resource_error);   // a petabyte
  EXPECT_THROW(pinned_buffer<std::uint64_t>(SIZE_MAX / 4), resource_error);  // overflows size_t
  pinned_buffer<int> fine(16);                                               // the failure must not poison later work
  fine[0] = 1;
  GRAPHKIT_CUDA_TRY(cudaDeviceSynchronize());
}

}  // namespace
}  // namespace graphkit
