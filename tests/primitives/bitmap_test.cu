// Dense bitmaps against std::set / host bit-vector models: element operations,
// counts, conversions, set algebra (out of place, in place, count only), chunk
// states (empty, partial, full), densities from 1e-6 to 1, universe edges.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>

#include "primitives/bitmap/dense_bitmap.cuh"
#include "tests/common/gpu_support.hpp"
#include "tests/common/test_support.hpp"

namespace graphkit {
namespace {

using elements = std::vector<std::uint32_t>;

device_buffer<std::uint32_t> upload(const elements& v) {
  return device_buffer<std::uint32_t>{std::span<const std::uint32_t>(v)};
}

elements random_elements(std::mt19937_64& rng, std::uint64_t universe, std::size_t n) {
  elements out(n);
  for (auto& x : out) x = static_cast<std::uint32_t>(rng() % universe);
  return out;
}

// Host model of a bitmap's words over whole chunks, as the device stores them.
std::vector<std::uint32_t> model_words(const std::set<std::uint32_t>& set, std::uint64_t universe) {
  const std::size_t chunks = (universe + kBitmapChunkBits - 1) / kBitmapChunkBits;
  std::vector<std::uint32_t> words(chunks * kBitmapWordsPerChunk, 0);
  for (const std::uint32_t x : set) words[x / 32] |= 1u << (x % 32);
  return words;
}

std::vector<std::uint32_t> model_counts(const std::vector<std::uint32_t>& words) {
  std::vector<std::uint32_t> counts(words.size() / kBitmapWordsPerChunk, 0);
  for (std::size_t w = 0; w < words.size(); ++w) counts[w / kBitmapWordsPerChunk] += __builtin_popcount(words[w]);
  return counts;
}

std::vector<std::uint32_t> device_words(const dense_bitmap& b) {
  std::vector<std::uint32_t> h(b.num_words());
  if (!h.empty()) GRAPHKIT_CUDA_TRY(cudaMemcpy(h.data(), b.words(), h.size() * 4, cudaMemcpyDeviceToHost));
  return h;
}
std::vector<std::uint32_t> device_counts(const dense_bitmap& b) {
  std::vector<std::uint32_t> h(b.num_chunks());
  if (!h.empty()) GRAPHKIT_CUDA_TRY(cudaMemcpy(h.data(), b.chunk_counts(), h.size() * 4, cudaMemcpyDeviceToHost));
  return h;
}

void expect_equals_model(const dense_bitmap& b, const std::set<std::uint32_t>& model) {
  const auto words = model_words(model, b.universe());
  ASSERT_EQ(device_words(b), words);
  ASSERT_EQ(device_counts(b), model_counts(words));
  ASSERT_EQ(b.count(), model.size());
  device_buffer<std::uint32_t> out(model.size() + 16);
  out.fill_bytes(0xee);
  ASSERT_EQ(b.to_sorted_array(out.data()), model.size());
  const auto got = out.to_host();
  ASSERT_TRUE(std::equal(model.begin(), model.end(), got.begin()));
  for (std::size_t i = model.size(); i < got.size(); ++i) ASSERT_EQ(got[i], 0xeeeeeeee) << "written past the end";
}

constexpr std::uint64_t kUniverses[] = {1, 31, 32, 33, 65535, 65536, 65537, 200003, (1u << 20) + 3};

TEST(DenseBitmap, ElementOperationsMatchAStdSet) {
  GRAPHKIT_REQUIRE_GPU();
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  std::mt19937_64 rng(seed);
  for (const std::uint64_t universe : kUniverses) {
    SCOPED_TRACE("universe " + std::to_string(universe));
    dense_bitmap b(universe);
    std::set<std::uint32_t> model;
    expect_equals_model(b, model);
    const elements in = random_elements(rng, universe, 1 + rng() % 5000);  // duplicates likely
    auto d_in = upload(in);
    b.insert(d_in.data(), in.size());
    model.insert(in.begin(), in.end());
    expect_equals_model(b, model);
    const elements out = random_elements(rng, universe, rng() % 3000);
    auto d_out = upload(out);
    b.erase(d_out.data(), out.size());
    for (const auto x : out) model.erase(x);
    expect_equals_model(b, model);
    // contains, with queries outside the universe answered 0
    elements queries = random_elements(rng, universe, 2000);
    queries.push_back(static_cast<std::uint32_t>(std::min<std::uint64_t>(universe, 0xffffffffu)));
    auto d_queries = upload(queries);
    device_buffer<std::uint8_t> found(queries.size());
    found.fill_bytes(7);
    b.contains_async(d_queries.data(), queries.size(), found.data());
    const auto got = found.to_host();
    for (std::size_t i = 0; i < queries.size(); ++i) ASSERT_EQ(got[i], model.count(queries[i]) ? 1 : 0) << queries[i];
    // count_range on random ranges, empty ones and the whole universe
    for (int k = 0; k < 20; ++k) {
      std::uint64_t lo = rng() % (universe + 1), hi = rng() % (universe + 1);
      if (k == 0) lo = 0, hi = universe;
      if (k == 1) hi = lo;
      if (lo > hi) std::swap(lo, hi);
      const auto expected =
          std::distance(model.lower_bound(static_cast<std::uint32_t>(lo)),
                        hi >= universe ? model.end() : model.lower_bound(static_cast<std::uint32_t>(hi)));
      ASSERT_EQ(b.count_range(lo, hi), static_cast<std::uint64_t>(expected)) << "[" << lo << ", " << hi << ")";
    }
  }
}

TEST(DenseBitmap, DensitiesFromOneInAMillionToFull) {
  GRAPHKIT_REQUIRE_GPU();
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  std::mt19937_64 rng(seed);
  const std::uint64_t universe = (1u << 24) + 7;
  for (const double density : {1e-6, 1e-4, 1e-2, 0.3, 0.9}) {
    SCOPED_TRACE("density " + std::to_string(density));
    const elements in = random_elements(rng, universe, static_cast<std::size_t>(density * universe) + 1);
    auto d_in = upload(in);
    dense_bitmap b = dense_bitmap::from_array(d_in.data(), in.size(), universe);
    expect_equals_model(b, std::set<std::uint32_t>(in.begin(), in.end()));
  }
  dense_bitmap full(universe);
  full.fill_async();
  EXPECT_EQ(full.count(), universe);
  EXPECT_EQ(full.count_range(5, universe - 3), universe - 8);
  device_buffer<std::uint32_t> all(universe);
  ASSERT_EQ(full.to_sorted_array(all.data()), universe);
  const auto got = all.to_host();
  for (std::uint32_t i = 0; i < universe; ++i) ASSERT_EQ(got[i], i);
}

TEST(DenseBitmap, UniverseOfTwoToThe32) {
  GRAPHKIT_REQUIRE_GPU();
  const std::uint64_t universe = kBitmapMaxUniverse;
  dense_bitmap b(universe);
  const elements edge = {0, 0xffffffffu, 0x80000000u, 0xffffffffu};
  auto d_edge = upload(edge);
  b.insert(d_edge.data(), edge.size());
  EXPECT_EQ(b.count(), 3u);
  EXPECT_EQ(b.count_range(0xffffffffu, universe), 1u);
  EXPECT_EQ(b.count_range(1, 0x80000000u), 0u);
  device_buffer<std::uint32_t> out(3);
  ASSERT_EQ(b.to_sorted_array(out.data()), 3u);
  EXPECT_EQ(out.to_host(), (elements{0, 0x80000000u, 0xffffffffu}));
  dense_bitmap full(universe);
  full.fill_async();
  EXPECT_EQ(full.count(), universe);
  EXPECT_EQ(set_algebra_count(full, b, set_op::intersection), 3u);
  EXPECT_EQ(set_algebra_count(full, b, set_op::difference), universe - 3);
  set_algebra_async(full, b, set_op::symmetric, full);  // in place: everything but the three
  EXPECT_EQ(full.count(), universe - 3);
  EXPECT_EQ(set_algebra_count(full, b, set_op::intersection), 0u);
}

TEST(DenseBitmap, OutOfRangeElementsAreReportedAndNeverWritten) {
  GRAPHKIT_REQUIRE_GPU();
  dense_bitmap b(1000);
  const elements in = {1, 999, 1000, 5000, 0xffffffffu, 2};
  auto d_in = upload(in);
  try {
    b.insert(d_in.data(), in.size());
    FAIL() << "no error";
  } catch (const error& e) {
    EXPECT_NE(std::string(e.what()).find("3 elements are outside [0, 1000)"), std::string::npos) << e.what();
  }
  expect_equals_model(b, {1, 2, 999});
  EXPECT_THROW(b.erase(d_in.data(), in.size()), error);
  expect_equals_model(b, {});
  EXPECT_THROW(dense_bitmap(kBitmapMaxUniverse + 1), error);
}

// A set whose chunks are, at random, empty, full or partial (dense or sparse).
std::set<std::uint32_t> chunky_set(std::mt19937_64& rng, std::uint64_t universe) {
  std::set<std::uint32_t> s;
  for (std::uint64_t c = 0; c * kBitmapChunkBits < universe; ++c) {
    const std::uint64_t lo = c * kBitmapChunkBits, hi = std::min(universe, lo + kBitmapChunkBits);
    switch (rng() % 4) {
      case 0: break;  // empty
      case 1:
        for (std::uint64_t x = lo; x < hi; ++x) s.insert(static_cast<std::uint32_t>(x));
        break;  // full
      case 2:
        for (std::uint64_t x = lo; x < hi; ++x)
          if (rng() % 2) s.insert(static_cast<std::uint32_t>(x));
        break;
      case 3:
        for (int k = 0; k < 20; ++k) s.insert(static_cast<std::uint32_t>(lo + rng() % (hi - lo)));
        break;
    }
  }
  return s;
}

std::set<std::uint32_t> model_op(const std::set<std::uint32_t>& a, const std::set<std::uint32_t>& b, set_op op) {
  std::set<std::uint32_t> out;
  auto into = std::inserter(out, out.end());
  switch (op) {
    case set_op::intersection: std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), into); break;
    case set_op::union_: std::set_union(a.begin(), a.end(), b.begin(), b.end(), into); break;
    case set_op::difference: std::set_difference(a.begin(), a.end(), b.begin(), b.end(), into); break;
    case set_op::symmetric: std::set_symmetric_difference(a.begin(), a.end(), b.begin(), b.end(), into); break;
  }
  return out;
}

dense_bitmap to_bitmap(const std::set<std::uint32_t>& s, std::uint64_t universe) {
  const elements v(s.begin(), s.end());
  auto d = upload(v);
  return dense_bitmap::from_array(d.data(), v.size(), universe);
}

TEST(DenseBitmap, SetAlgebraOutOfPlaceInPlaceAndCountOnly) {
  GRAPHKIT_REQUIRE_GPU();
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  std::mt19937_64 rng(seed);
  for (const std::uint64_t universe : {std::uint64_t{77}, std::uint64_t{65536}, std::uint64_t{12} * 65536 + 12345}) {
    for (int trial = 0; trial < 3; ++trial) {
      const auto a = chunky_set(rng, universe), b = chunky_set(rng, universe);
      for (const set_op op : {set_op::intersection, set_op::union_, set_op::difference, set_op::symmetric}) {
        SCOPED_TRACE("universe " + std::to_string(universe) + ", op " + std::to_string(static_cast<int>(op)));
        const auto expected = model_op(a, b, op);
        dense_bitmap da = to_bitmap(a, universe), db = to_bitmap(b, universe), out(universe);
        out.fill_async();  // poison: every chunk must be written or left correctly
        set_algebra_async(da, db, op, out);
        expect_equals_model(out, expected);
        EXPECT_EQ(set_algebra_count(da, db, op), expected.size());
        set_algebra_async(da, db, op, da);  // in place, into a
        expect_equals_model(da, expected);
        dense_bitmap da2 = to_bitmap(a, universe);
        set_algebra_async(da2, db, op, db);  // in place, into b
        expect_equals_model(db, expected);
      }
    }
  }
  dense_bitmap small(10), other(11);
  EXPECT_THROW(set_algebra_async(small, other, set_op::union_, small), error);
}

TEST(DenseBitmap, DuplicatesInOneBatchKeepCountsExact) {
  GRAPHKIT_REQUIRE_GPU();
  elements same(100000, 4242);
  same.push_back(7);
  auto d = upload(same);
  dense_bitmap b(70000);
  b.insert(d.data(), same.size());
  expect_equals_model(b, {7, 4242});
  b.erase(d.data(), same.size());
  expect_equals_model(b, {});
}

}  // namespace
}  // namespace graphkit
