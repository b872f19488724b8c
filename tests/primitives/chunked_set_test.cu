// The chunked (Roaring-like) set against std::vector<bool> models: element
// operations at densities from 1e-6 to 1, chunks that fill up and empty out,
// universe edges (0 and 2^32 - 1), a short last chunk, pool exhaustion, set
// algebra and its count-only form, and conversion to and from the dense form.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "primitives/bitmap/chunked_set.cuh"
#include "primitives/common/error.hpp"
#include "tests/common/gpu_support.hpp"
#include "tests/common/test_support.hpp"

namespace graphkit {
namespace {

std::vector<std::uint32_t> members(const std::vector<bool>& model) {
  std::vector<std::uint32_t> out;
  for (std::size_t i = 0; i < model.size(); ++i)
    if (model[i]) out.push_back(static_cast<std::uint32_t>(i));
  return out;
}

void insert_all(chunked_set& set, const std::vector<std::uint32_t>& elements) {
  device_buffer<std::uint32_t> d{std::span<const std::uint32_t>(elements)};
  set.insert(d.data(), elements.size());
}

std::vector<std::uint32_t> sorted_contents(const chunked_set& set) {
  device_buffer<std::uint32_t> out(std::max<std::uint64_t>(set.count(), 1));
  const std::uint64_t n = set.to_sorted_array(out.data());
  std::vector<std::uint32_t> host = out.to_host();
  host.resize(n);
  return host;
}

/// A model with clustered structure: some chunks empty, some full, the rest at `density`.
std::vector<bool> clustered_model(std::uint64_t universe, double density, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<bool> model(universe);
  for (std::uint64_t c = 0; c * kBitmapChunkBits < universe; ++c) {
    const int kind = static_cast<int>(rng() % 3);  // 0 empty, 1 full, 2 random
    for (std::uint64_t x = c * kBitmapChunkBits; x < std::min<std::uint64_t>(universe, (c + 1) * kBitmapChunkBits); ++x)
      model[x] = kind == 1 || (kind == 2 && std::uniform_real_distribution<>(0, 1)(rng) < density);
  }
  return model;
}

TEST(ChunkedSet, ElementOperationsMatchTheModelAtEveryDensity) {
  GRAPHKIT_REQUIRE_GPU();
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  const std::uint64_t universe = 5 * kBitmapChunkBits + 12345;  // a short last chunk
  for (const double density : {1e-6, 1e-3, 0.1, 0.5, 0.999, 1.0}) {
    SCOPED_TRACE("density " + std::to_string(density));
    std::mt19937_64 rng(seed);
    std::vector<bool> model(universe);
    std::vector<std::uint32_t> inserted;
    for (std::uint64_t x = 0; x < universe; ++x)
      if (std::uniform_real_distribution<>(0, 1)(rng) < density)
        inserted.push_back(static_cast<std::uint32_t>(x)), model[x] = true;
    std::shuffle(inserted.begin(), inserted.end(), rng);
    if (!inserted.empty()) inserted.push_back(inserted.front());  // a duplicate
    chunked_set set(universe, 8);
    insert_all(set, inserted);
    EXPECT_EQ(set.count(), members(model).size());
    EXPECT_EQ(sorted_contents(set), members(model));
    // Every chunk that came out full holds no block.
    const std::uint64_t full = density == 1.0 ? set.num_chunks() : 0;
    if (full) EXPECT_EQ(set.blocks_in_use(), 0u);

    // Erase a random half of the universe (present or not).
    std::vector<std::uint32_t> gone;
    for (std::uint64_t x = 0; x < universe; ++x)
      if (rng() & 1) gone.push_back(static_cast<std::uint32_t>(x)), model[x] = false;
    device_buffer<std::uint32_t> d_gone{std::span<const std::uint32_t>(gone)};
    set.erase(d_gone.data(), gone.size());
    EXPECT_EQ(sorted_contents(set), members(model));

    std::vector<std::uint32_t> probe(universe);
    for (std::uint64_t x = 0; x < universe; ++x) probe[x] = static_cast<std::uint32_t>(x);
    device_buffer<std::uint32_t> d_probe{std::span<const std::uint32_t>(probe)};
    device_buffer<std::uint8_t> found(universe);
    set.contains_async(d_probe.data(), universe, found.data());
    const std::vector<std::uint8_t> got = found.to_host();
    for (std::uint64_t x = 0; x < universe; ++x) ASSERT_EQ(got[x] != 0, model[x]) << "element " << x;
  }
}

TEST(ChunkedSet, ChunksFillUpAndEmptyOutGivingTheirBlocksBack) {
  GRAPHKIT_REQUIRE_GPU();
  chunked_set set(3 * kBitmapChunkBits, 2);
  std::vector<std::uint32_t> chunk1(kBitmapChunkBits);
  for (std::uint32_t i = 0; i < kBitmapChunkBits; ++i) chunk1[i] = kBitmapChunkBits + i;
  insert_all(set, chunk1);
  EXPECT_EQ(set.blocks_in_use(), 0u) << "a full chunk needs no block";
  EXPECT_EQ(set.count(), kBitmapChunkBits);
  const std::vector<std::uint32_t> one{kBitmapChunkBits + 7};
  device_buffer<std::uint32_t> d_one{std::span<const std::uint32_t>(one)};
  set.erase(d_one.data(), 1);  // full -> partial: takes a block of ones
  EXPECT_EQ(set.blocks_in_use(), 1u);
  EXPECT_EQ(set.count(), kBitmapChunkBits - 1);
  device_buffer<std::uint32_t> d_all{std::span<const std::uint32_t>(chunk1)};
  set.erase(d_all.data(), chunk1.size());
  EXPECT_EQ(set.count(), 0u);
  EXPECT_EQ(set.blocks_in_use(), 0u) << "an emptied chunk gives its block back";
}

TEST(ChunkedSet, UniverseEdgesOfTwoToThe32) {
  GRAPHKIT_REQUIRE_GPU();
  chunked_set set(kBitmapMaxUniverse, 4);
  insert_all(set, {0u, 0xffffffffu, 0x80000000u});
  EXPECT_EQ(set.count(), 3u);
  EXPECT_EQ(sorted_contents(set), (std::vector<std::uint32_t>{0u, 0x80000000u, 0xffffffffu}));
  EXPECT_EQ(set.blocks_in_use(), 3u);
  EXPECT_LT(set.memory_bytes(), std::size_t{1} << 20) << "a sparse 2^32 universe stays small";
}

TEST(ChunkedSet, PoolExhaustionAndOutOfRangeAreErrors) {
  GRAPHKIT_REQUIRE_GPU();
  chunked_set set(4 * kBitmapChunkBits, 2);
  EXPECT_THROW(insert_all(set, {1u, kBitmapChunkBits + 1, 2 * kBitmapChunkBits + 1}), device_memory_error);
  chunked_set small(100, 1);
  EXPECT_THROW(insert_all(small, {5u, 100u}), error);
}

TEST(ChunkedSet, SetAlgebraAndCountsMatchTheModel) {
  GRAPHKIT_REQUIRE_GPU();
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  const std::uint64_t universe = 9 * kBitmapChunkBits + 999;
  const std::vector<bool> ma = clustered_model(universe, 0.05, seed), mb = clustered_model(universe, 0.3, seed + 1);
  chunked_set a(universe, 10), b(universe, 10);
  insert_all(a, members(ma));
  insert_all(b, members(mb));
  for (const set_op op : {set_op::intersection, set_op::union_, set_op::difference, set_op::symmetric}) {
    SCOPED_TRACE(static_cast<int>(op));
    std::vector<bool> want(universe);
    for (std::uint64_t x = 0; x < universe; ++x) {
      switch (op) {
        case set_op::intersection: want[x] = ma[x] && mb[x]; break;
        case set_op::union_: want[x] = ma[x] || mb[x]; break;
        case set_op::difference: want[x] = ma[x] && !mb[x]; break;
        case set_op::symmetric: want[x] = ma[x] != mb[x]; break;
      }
    }
    chunked_set out(universe, 10);
    set_algebra(a, b, op, out);
    EXPECT_EQ(sorted_contents(out), members(want));
    EXPECT_EQ(set_algebra_count(a, b, op), members(want).size());
  }
}

TEST(ChunkedSet, ConvertsToAndFromTheDenseForm) {
  GRAPHKIT_REQUIRE_GPU();
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  const std::uint64_t universe = 6 * kBitmapChunkBits + 77;
  const std::vector<bool> model = clustered_model(universe, 0.01, seed);
  chunked_set set(universe, 8);
  insert_all(set, members(model));
  dense_bitmap dense(universe);
  set.to_dense(dense);
  EXPECT_EQ(dense.count(), members(model).size());
  device_buffer<std::uint32_t> out(std::max<std::size_t>(members(model).size(), 1));
  const std::uint64_t n = dense.to_sorted_array(out.data());
  std::vector<std::uint32_t> got = out.to_host();
  got.resize(n);
  EXPECT_EQ(got, members(model));
  chunked_set back(universe, 8);
  back.assign(dense);
  EXPECT_EQ(sorted_contents(back), members(model));
}

}  // namespace
}  // namespace graphkit

#include "primitives/bitmap/batch_intersection.cuh"

namespace graphkit {
namespace {

TEST(BatchIntersection, ThousandsOfPairsInOneLaunchMatchStdSetIntersection) {
  GRAPHKIT_REQUIRE_GPU();
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  std::mt19937_64 rng(seed);
  std::vector<std::uint32_t> values;
  std::vector<set_pair> pairs;
  std::vector<unsigned long long> want;
  auto make_set = [&](std::size_t size, std::uint32_t span) {
    std::vector<std::uint32_t> s(size);
    for (auto& x : s) x = static_cast<std::uint32_t>(rng() % span);
    std::sort(s.begin(), s.end());
    s.erase(std::unique(s.begin(), s.end()), s.end());
    const std::uint64_t begin = values.size();
    values.insert(values.end(), s.begin(), s.end());
    return std::pair{begin, std::move(s)};
  };
  for (int i = 0; i < 5000; ++i) {
    // Sizes 0..300; spans narrow (bitmap window) and wide (binary search).
    const std::uint32_t span = i % 3 == 0 ? 0xfffffff0u : 1000 + static_cast<std::uint32_t>(rng() % 100000);
    auto [a_begin, a] = make_set(rng() % 300, span);
    auto [b_begin, b] = make_set(i % 50 == 0 ? 0 : rng() % 300, span);
    pairs.push_back({a_begin, a_begin + a.size(), b_begin, b_begin + b.size()});
    std::vector<std::uint32_t> common;
    std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(common));
    want.push_back(common.size());
  }
  device_buffer<std::uint32_t> d_values{std::span<const std::uint32_t>(values)};
  device_buffer<set_pair> d_pairs{std::span<const set_pair>(pairs)};
  device_buffer<unsigned long long> counts(pairs.size());
  batch_intersection_count(d_values.data(), d_pairs.data(), pairs.size(), counts.data());
  EXPECT_EQ(counts.to_host(), want);
}

}  // namespace
}  // namespace graphkit
