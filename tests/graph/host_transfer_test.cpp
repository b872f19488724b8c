// Staged host <-> device copies (graph/host_transfer) against plain
// cudaMemcpy: every size class (empty, below the staging threshold, around
// it, chunk remainders that leave threads uneven), several thread counts and
// chunk sizes, random bytes with fresh seeds.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <vector>

#include "graph/host_transfer.hpp"
#include "tests/common/gpu_support.hpp"
#include "tests/common/test_support.hpp"

namespace graphkit {
namespace {

std::vector<unsigned char> random_bytes(std::size_t n, std::mt19937_64& rng) {
  std::vector<unsigned char> v(n);
  for (auto& b : v) b = static_cast<unsigned char>(rng());
  return v;
}

TEST(HostTransfer, MatchesCudaMemcpyForEverySizeThreadsAndChunk) {
  GRAPHKIT_REQUIRE_GPU();
  const std::uint64_t seed = test::fresh_seed();
  SCOPED_TRACE(seed);
  std::mt19937_64 rng(seed);
  constexpr std::size_t kMiB = 1u << 20;
  const std::size_t sizes[] = {0, 1, 4093, kStagedMinBytes - 1, kStagedMinBytes, kStagedMinBytes + 3, 13 * kMiB + 777};
  for (const std::size_t n : sizes) {
    const std::vector<unsigned char> source = random_bytes(n, rng);
    for (const unsigned threads : {1u, 3u, 8u}) {
      for (const std::size_t chunk : {kMiB + 8, std::size_t{8} << 20}) {
        SCOPED_TRACE(testing::Message() << n << " bytes, " << threads << " threads, chunks of " << chunk);
        const transfer_options o{threads, chunk};
        device_buffer<unsigned char> device(n);
        device.fill_bytes(0xa5);
        copy_to_device(device.data(), source.data(), n, o);
        std::vector<unsigned char> check(n);
        if (n > 0) GRAPHKIT_CUDA_TRY(cudaMemcpy(check.data(), device.data(), n, cudaMemcpyDeviceToHost));
        ASSERT_EQ(check, source) << "upload";

        std::vector<unsigned char> back(n, 0x5a);
        copy_to_host(back.data(), device.data(), n, o);
        ASSERT_EQ(back, source) << "download";
      }
    }
  }
}

TEST(HostTransfer, UploadsThatDoNotWaitForTheirCopiesStayInOrder) {
  // Back-to-back fills that return with their copies still in flight (as the
  // GPU parser's windows do), then a staged download through the same lanes
  // and a plain copy on the default stream, which must see every byte.
  GRAPHKIT_REQUIRE_GPU();
  const std::uint64_t seed = test::fresh_seed();
  SCOPED_TRACE(seed);
  std::mt19937_64 rng(seed);
  constexpr std::size_t kMiB = 1u << 20;
  transfer_options o{4, kMiB};
  o.wait_for_device = false;
  o.wait_for_copies = false;
  std::vector<std::vector<unsigned char>> sources;
  std::vector<device_buffer<unsigned char>> devices;
  for (const std::size_t n : {9 * kMiB + 5, 3 * kMiB, 17 * kMiB + 1, std::size_t{1}, 6 * kMiB}) {
    sources.push_back(random_bytes(n, rng));
    devices.emplace_back(n);
    const std::vector<unsigned char>& from = sources.back();
    fill_device(
        devices.back().data(), n,
        [&from](char* chunk, std::size_t at, std::size_t len) { std::memcpy(chunk, from.data() + at, len); }, o);
  }
  // Overwrite the first array again while the others may still be in flight.
  sources[0] = random_bytes(sources[0].size(), rng);
  copy_to_device(devices[0].data(), sources[0].data(), sources[0].size(), o);
  for (std::size_t i = 0; i < sources.size(); ++i) {
    SCOPED_TRACE(i);
    std::vector<unsigned char> back(sources[i].size(), 0x5a);
    GRAPHKIT_CUDA_TRY(cudaMemcpy(back.data(), devices[i].data(), back.size(), cudaMemcpyDeviceToHost));
    ASSERT_EQ(back, sources[i]) << "default-stream copy";
    std::fill(back.begin(), back.end(), 0x5a);
    copy_to_host(back.data(), devices[i].data(), back.size(), o);
    ASSERT_EQ(back, sources[i]) << "staged download";
  }
}

TEST(HostTransfer, FillsSeveralDeviceArraysInOnePass) {
  // Random pieces of a random source (gaps between them, pieces that start
  // or end mid-chunk, an empty one, one at each end) against the same bytes
  // copied piece by piece; gap bytes must reach no array.
  GRAPHKIT_REQUIRE_GPU();
  const std::uint64_t seed = test::fresh_seed();
  SCOPED_TRACE(seed);
  std::mt19937_64 rng(seed);
  constexpr std::size_t kMiB = 1u << 20;
  for (int round = 0; round < 4; ++round) {
    const std::size_t n = (round == 0 ? 0 : 1 + rng() % (12 * kMiB));
    const std::vector<unsigned char> source = random_bytes(n, rng);
    std::vector<std::size_t> cuts = {0, n};
    for (int k = 0; k < 6 && n > 0; ++k) cuts.push_back(rng() % (n + 1));
    std::sort(cuts.begin(), cuts.end());
    // Pieces [cuts[i], cuts[i+1]) for even i; the odd spans are gaps.
    std::vector<device_buffer<unsigned char>> arrays;
    std::vector<device_piece> pieces;
    for (std::size_t i = 0; i + 1 < cuts.size(); i += 2) {
      arrays.emplace_back(cuts[i + 1] - cuts[i]);
      arrays.back().fill_bytes(0xa5);
      pieces.push_back({cuts[i], cuts[i + 1] - cuts[i], arrays.back().data()});
    }
    for (const unsigned threads : {1u, 3u, 8u}) {
      SCOPED_TRACE(testing::Message() << n << " bytes, round " << round << ", " << threads << " threads");
      fill_device(
          n, pieces, [&](char* chunk, std::size_t at, std::size_t len) { std::memcpy(chunk, source.data() + at, len); },
          transfer_options{threads, kMiB + 8});
      for (std::size_t i = 0; i < pieces.size(); ++i) {
        const std::vector<unsigned char> expected(source.begin() + pieces[i].at,
                                                  source.begin() + pieces[i].at + pieces[i].bytes);
        ASSERT_EQ(arrays[i].to_host(), expected) << "piece " << i;
      }
    }
  }
}

TEST(HostTransfer, UploadAndDownloadRoundTripTypedArrays) {
  GRAPHKIT_REQUIRE_GPU();
  const std::uint64_t seed = test::fresh_seed();
  SCOPED_TRACE(seed);
  std::mt19937_64 rng(seed);
  for (const std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{3} << 20, (std::size_t{5} << 20) + 1}) {
    std::vector<std::uint32_t> values(n);
    for (auto& v : values) v = static_cast<std::uint32_t>(rng());
    const device_buffer<std::uint32_t> device = upload(std::span<const std::uint32_t>(values));
    ASSERT_EQ(device.size(), n);
    EXPECT_EQ(device.to_host(), values) << n;
    EXPECT_EQ(download(device), values) << n;
  }
}

TEST(HostTransfer, PreparingPagesKeepsTheirContents) {
  // Host only: the advice must not change memory that is already written.
  std::vector<std::uint64_t> v(3u << 20);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = i * 0x9e3779b97f4a7c15ull;
  prepare_host_pages(v.data(), v.size() * sizeof v[0], transfer_options{4, 8u << 20});
  for (std::size_t i = 0; i < v.size(); ++i) ASSERT_EQ(v[i], i * 0x9e3779b97f4a7c15ull) << i;
}

TEST(HostTransfer, RejectsAnEmptyChunk) {
  GRAPHKIT_REQUIRE_GPU();
  std::vector<unsigned char> source(kStagedMinBytes);
  device_buffer<unsigned char> device(source.size());
  EXPECT_THROW(copy_to_device(device.data(), source.data(), source.size(), transfer_options{2, 0}), error);
}

}  // namespace
}  // namespace graphkit
