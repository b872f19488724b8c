// The counter split's index math (primitives/multisplit/detail/digit_rank.cuh,
// and count_digits / counted_place of detail/wide_digits.cuh) on the CPU:
// one block's threads emulated in turn, phase by phase as the kernel's
// barriers order them (count, rake, block scan, lift, place), against
// std::stable_sort of the tile by digit. Every block size and digit width
// that block_wide_digits_one instantiates, and the raking's claim that no
// two lanes of a warp meet in a bank. Compiled by nvcc, runs anywhere.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <set>
#include <vector>

#include "primitives/multisplit/detail/digit_rank.cuh"
#include "primitives/multisplit/detail/wide_digits.cuh"
#include "tests/common/test_support.hpp"

namespace graphkit::multisplit_detail {
namespace {

/// A counter split of Threads threads x Items items on the digit
/// (bucket >> Shift) & (2^Bits - 1), as block_wide_digits_one runs it.
template <int Bits, int Threads, int Items, int Shift>
struct split_shape {
  using counters = digit_counters<Bits, Threads>;
  static constexpr int kBits = Bits, kThreads = Threads, kItems = Items, kShift = Shift;
  static constexpr int kTile = Threads * Items;
  static constexpr std::uint32_t digit(std::uint32_t bucket) { return (bucket >> Shift) & (counters::kDigits - 1); }
};

/// Each item's tile place from the counters (kNoBucket items: none, left
/// as ~0u), for a tile of bucket ids below 256 or kNoBucket.
template <class Shape>
std::vector<std::uint32_t> counted_places(const std::vector<std::uint32_t>& bucket) {
  using counters_type = typename Shape::counters;
  constexpr int kThreads = Shape::kThreads, kItems = Shape::kItems, kStripes = counters_type::kStripes;
  struct chunk {
    std::uint32_t item[kItems];
  };
  const auto counters = std::make_unique<counters_type>();
  std::memset(counters.get(), 0xa5, sizeof(counters_type));  // count_digits zeroes each column itself
  std::vector<chunk> items(kThreads);
  // Count: thread t its chunk digit_chunk(t).
  for (unsigned t = 0; t < kThreads; ++t) {
    const unsigned first = digit_chunk(t) * kItems;
    for (int r = 0; r < kItems; ++r) items[t].item[r] = bucket[first + r];
    count_digits<Shape::kShift>(*counters, t, items[t].item);
  }
  // Rake, then the block scan (exclusive, in thread order; word kStripes,
  // the kernel's bucket counts, stays 0 here), then lift.
  std::vector<stripe_sums<kStripes>> prefix(kThreads);
  stripe_sums<kStripes> all{};
  for (unsigned t = 0; t < kThreads; ++t) {
    stripe_sums<kStripes> mine{};
    for (int k = 0; k < kStripes; ++k) mine.word[k] = counters->rake(k, t);
    prefix[t] = all;
    all = add_word_sums{}(all, mine);
  }
  for (unsigned t = 0; t < kThreads; ++t) lift_stripes(*counters, prefix[t], all, t);
  // Place.
  std::vector<std::uint32_t> place(bucket.size(), ~0u);
  for (unsigned t = 0; t < kThreads; ++t) {
    const unsigned first = digit_chunk(t) * kItems;
    for (int r = 0; r < kItems; ++r)
      if (items[t].item[r] != kNoBucket) place[first + r] = counted_place(counters->column(t), items[t].item[r]);
  }
  return place;
}

/// The model: each valid item's index in the valid items stably sorted by digit.
template <class Shape>
std::vector<std::uint32_t> stable_places(const std::vector<std::uint32_t>& bucket) {
  std::vector<std::uint32_t> order;
  for (std::uint32_t i = 0; i < bucket.size(); ++i)
    if (bucket[i] != kNoBucket) order.push_back(i);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return Shape::digit(bucket[a]) < Shape::digit(bucket[b]); });
  std::vector<std::uint32_t> place(bucket.size(), ~0u);
  for (std::uint32_t p = 0; p < order.size(); ++p) place[order[p]] = p;
  return place;
}

/// Tiles that test the split: random ids with some left out, skewed ids
/// (most in a few buckets), every item on one digit (each digit next to
/// the 16-bit halves' boundary: kRows - 1 and kRows, and the last), none
/// valid, one valid.
template <class Shape>
std::vector<std::vector<std::uint32_t>> tiles(std::mt19937_64& rng) {
  constexpr std::uint32_t kIds = 1u << (Shape::kBits + Shape::kShift), kRows = Shape::counters::kRows;
  std::vector<std::vector<std::uint32_t>> out;
  std::uniform_int_distribution<std::uint32_t> id(0, kIds - 1);
  std::bernoulli_distribution left_out(0.1);
  auto& uniform = out.emplace_back(Shape::kTile);
  for (auto& b : uniform) b = left_out(rng) ? kNoBucket : id(rng);
  auto& skewed = out.emplace_back(Shape::kTile);
  for (auto& b : skewed) b = std::min<std::uint32_t>(kIds - 1, std::countl_zero(static_cast<std::uint32_t>(rng())));
  for (const std::uint32_t digit : {0u, kRows - 1, kRows, 2 * kRows - 1})
    out.emplace_back(Shape::kTile, digit << Shape::kShift | (id(rng) & ((1u << Shape::kShift) - 1)));
  out.emplace_back(Shape::kTile, kNoBucket);
  auto& one = out.emplace_back(Shape::kTile, kNoBucket);
  one[std::uniform_int_distribution<std::size_t>(0, one.size() - 1)(rng)] = id(rng);
  return out;
}

template <class Shape>
void expect_stable_places() {
  SCOPED_TRACE(testing::Message() << Shape::kBits << "-bit digit, " << Shape::kThreads << " threads x " << Shape::kItems
                                  << " items, shift " << Shape::kShift);
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  std::mt19937_64 rng(seed);
  int pattern = 0;
  for (const auto& bucket : tiles<Shape>(rng)) {
    SCOPED_TRACE(testing::Message() << "tile pattern " << pattern++);
    const std::vector<std::uint32_t> got = counted_places<Shape>(bucket), want = stable_places<Shape>(bucket);
    const auto wrong = std::mismatch(got.begin(), got.end(), want.begin()).first - got.begin();
    EXPECT_EQ(got, want) << "first wrong place: item " << wrong << " (bucket " << bucket[wrong] << ")";
    if (got != want) return;  // one tile's thousands of places are enough to read
  }
}

// The shapes of wide_digits_one_storage: keys on 256 threads x 20 at 4-6
// bits and under 2 / 3 register bits; pairs on 512 x 20 (x 16 where 6 bits
// stage bucket bytes).
TEST(DigitRank, PlacesAreTheStableOrderByDigit) {
  expect_stable_places<split_shape<4, 256, 20, 0>>();
  expect_stable_places<split_shape<5, 256, 20, 0>>();
  expect_stable_places<split_shape<6, 256, 20, 0>>();
  expect_stable_places<split_shape<5, 256, 20, 2>>();
  expect_stable_places<split_shape<5, 256, 20, 3>>();
  expect_stable_places<split_shape<5, 512, 20, 0>>();
  expect_stable_places<split_shape<6, 512, 20, 0>>();
  expect_stable_places<split_shape<6, 512, 16, 0>>();
  expect_stable_places<split_shape<5, 512, 20, 3>>();
}

/// At each step of the rake (and the lift, which walks the same words),
/// a warp's 32 lanes read words in 32 distinct banks, and each stripe's
/// threads together rake every column of their rows once.
template <class Counters>
void expect_conflict_free_raking() {
  SCOPED_TRACE(testing::Message() << Counters::kRows << " rows of " << Counters::kThreads << " counters");
  for (int k = 0; k < Counters::kStripes; ++k) {
    std::set<std::pair<unsigned, unsigned>> raked;
    for (unsigned warp = 0; warp < Counters::kThreads / 32; ++warp) {
      for (int j = 0; j < Counters::kPerLane; ++j) {
        std::set<unsigned> banks;
        for (unsigned t = 32 * warp; t < 32 * warp + 32; ++t) {
          banks.insert(Counters::raked_column(t, j) % 32);
          raked.emplace(Counters::raked_row(k, t), Counters::raked_column(t, j));
        }
        EXPECT_EQ(banks.size(), 32u) << "stripe " << k << ", warp " << warp << ", step " << j;
      }
    }
    EXPECT_EQ(raked.size(), std::size_t{Counters::kRows} / Counters::kStripes * Counters::kThreads) << "stripe " << k;
  }
}

TEST(DigitRank, RakingMeetsNoBankConflicts) {
  expect_conflict_free_raking<digit_counters<4, 256>>();
  expect_conflict_free_raking<digit_counters<5, 256>>();
  expect_conflict_free_raking<digit_counters<6, 256>>();
  expect_conflict_free_raking<digit_counters<5, 512>>();
  expect_conflict_free_raking<digit_counters<6, 512>>();
}

}  // namespace
}  // namespace graphkit::multisplit_detail
