// The GPU delta-stepping state machine (apps/sssp/gpu/control.cuh), walked on
// the CPU: every transition against what the design says should happen. The
// list pointers are fake addresses; only their movement is checked.
#include <gtest/gtest.h>

#include <random>

#include "apps/sssp/gpu/control.cuh"
#include "tests/common/test_support.hpp"

namespace graphkit::sssp::detail {
namespace {

vertex_t* fake(std::uintptr_t k) { return reinterpret_cast<vertex_t*>(k * 4096); }

/// An epoch at base 1000 with delta 10, bucket 2 being relaxed.
control relaxing() {
  control c{};
  c.phase = kRelaxFrontier;
  c.bucket = 2;
  c.base = 1000;
  c.delta = c.next_delta = c.first_delta = 10;
  c.far_min = kGpuUnreachable;
  for (std::uint32_t g = 0; g < kGroups; ++g) c.lists[g] = fake(g + 1);
  c.frontier = fake(100);
  c.far_in = fake(200);
  c.frontier_size = 7;
  return c;
}

control advanced(control c) {
  controller{c}.advance();
  return c;
}

TEST(SsspControl, GroupOfCountsBucketsFromTheBase) {
  EXPECT_EQ(group_of(1000, 1000, 10), 0u);
  EXPECT_EQ(group_of(1009, 1000, 10), 0u);
  EXPECT_EQ(group_of(1010, 1000, 10), 1u);
  EXPECT_EQ(group_of(1000 + 16 * 10 - 1, 1000, 10), kEpochBuckets - 1);
  EXPECT_EQ(group_of(1000 + 16 * 10, 1000, 10), kFarGroup);
  EXPECT_EQ(group_of(kGpuUnreachable - 1, 0, kMaxDelta), kFarGroup);
}

// group_of searches instead of dividing: it must agree with the quotient for
// every delta up to kMaxDelta, at the bucket edges and between them.
TEST(SsspControl, GroupOfAgreesWithTheQuotient) {
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  std::mt19937_64 rng(seed);
  const auto quotient = [](gpu_distance d, gpu_distance base, gpu_distance delta) {
    const gpu_distance k = (d - base) / delta;
    return k < kEpochBuckets ? static_cast<std::uint32_t>(k) : kFarGroup;
  };
  for (int i = 0; i < 200000; ++i) {
    const gpu_distance delta = 1 + rng() % (i % 2 == 0 ? 1000 : kMaxDelta);
    const gpu_distance base = rng() % (gpu_distance{1} << 62);
    const gpu_distance k = rng() % 18;  // 16 and 17: past the epoch
    const gpu_distance edge = base + k * delta;
    for (const gpu_distance d : {edge, edge + delta - 1, edge + rng() % delta, base - 1 - rng() % 1000}) {
      ASSERT_EQ(group_of(d, base, delta), quotient(d, base, delta)) << d << " " << base << " " << delta;
    }
  }
}

TEST(SsspControl, FoldAddsListGrowthAndTakesThePhaseResults) {
  control c = relaxing();
  c.sizes[3] = 5;
  c.examined = 100;
  phase_counters p = phase_counters::cleared();
  p.sizes[3] = 2;
  p.sizes[kFarGroup] = 4;
  p.chunks = 9;
  p.examined = 50;
  c.fold(p);
  EXPECT_EQ(c.sizes[3], 7u);
  EXPECT_EQ(c.sizes[kFarGroup], 4u);
  EXPECT_EQ(c.chunks, 9u);
  EXPECT_EQ(c.examined, 150u);
  EXPECT_EQ(c.far_min, kGpuUnreachable);
  EXPECT_EQ(c.overflow, 0u);
}

TEST(SsspControl, ARoundWithVerticesBackInTheBucketSwapsThemIntoTheFrontier) {
  control c = relaxing();
  c.sizes[2] = 4;  // the next frontier went to list 2
  const control next = advanced(c);
  EXPECT_EQ(next.phase, kRelaxFrontier);
  EXPECT_EQ(next.frontier, fake(3));
  EXPECT_EQ(next.lists[2], fake(100));
  EXPECT_EQ(next.frontier_size, 4u);
  EXPECT_EQ(next.sizes[2], 0u);
  EXPECT_EQ(next.rounds, 1u);
  EXPECT_EQ(next.round, 1u);
}

TEST(SsspControl, QueuedHubChunksGetTheirOwnPhaseBeforeTheRoundEnds) {
  control c = relaxing();
  c.chunks = 3;
  c = advanced(c);
  EXPECT_EQ(c.phase, kRelaxChunks);
  EXPECT_EQ(c.rounds, 0u);
  c.sizes[2] = 1;
  c = advanced(c);
  EXPECT_EQ(c.phase, kRelaxFrontier);
  EXPECT_EQ(c.rounds, 1u);
  EXPECT_EQ(c.chunks, 0u);
}

TEST(SsspControl, ASettledBucketOpensTheNextNonEmptyOne) {
  control c = relaxing();
  c.sizes[5] = 8;
  c.sizes[9] = 1;
  c = advanced(c);
  EXPECT_EQ(c.phase, kOpenBucket);
  EXPECT_EQ(c.bucket, 5u);
  // Every entry of list 5 was stale: on to list 9.
  c.kept = 0;
  c = advanced(c);
  EXPECT_EQ(c.phase, kOpenBucket);
  EXPECT_EQ(c.bucket, 9u);
  EXPECT_EQ(c.sizes[5], 0u);
  c.kept = 1;
  const std::uint64_t buckets = c.buckets;
  c = advanced(c);
  EXPECT_EQ(c.phase, kRelaxFrontier);
  EXPECT_EQ(c.frontier_size, 1u);
  EXPECT_EQ(c.sizes[9], 0u);
  EXPECT_EQ(c.buckets, buckets + 1);
}

TEST(SsspControl, AnEpochEndsInTheFarListOrInDone) {
  control c = relaxing();
  EXPECT_EQ(advanced(c).phase, kDone);  // nothing pending anywhere
  c.sizes[kFarGroup] = 6;
  c = advanced(c);
  EXPECT_EQ(c.phase, kFarMinimum);
  EXPECT_EQ(c.settled, 1000u + kEpochBuckets * 10);
  // Only stale far entries: done.
  EXPECT_EQ(advanced(c).phase, kDone);
  // A live one at 1234 starts the next epoch there; the far list becomes
  // resplit's input and the spare list the new far list.
  c.far_min = 1234;
  c = advanced(c);
  EXPECT_EQ(c.phase, kResplit);
  EXPECT_EQ(c.base, 1234u);
  EXPECT_EQ(c.far_in, fake(kFarGroup + 1));
  EXPECT_EQ(c.lists[kFarGroup], fake(200));
  EXPECT_EQ(c.far_in_size, 6u);
  EXPECT_EQ(c.sizes[kFarGroup], 0u);
  EXPECT_EQ(c.epochs, 1u);
  c.sizes[0] = 2;
  c = advanced(c);
  EXPECT_EQ(c.phase, kOpenBucket);
  EXPECT_EQ(c.bucket, 0u);
}

TEST(SsspControl, AutoDeltaWidensSmallBucketsAndSpillsTheEpochsLaterLists) {
  control c = relaxing();
  c.adaptive = 1;
  c.examined = 100;  // one round of 100 edges: far below kLowWork
  c.sizes[7] = 3;
  c.sizes[kFarGroup] = 1;
  c = advanced(c);
  EXPECT_EQ(c.phase, kSpill);
  EXPECT_EQ(c.dedup, 1u);
  EXPECT_EQ(c.next_delta, 20u);
  EXPECT_EQ(c.delta, 10u);  // the spill still needs the old boundaries
  EXPECT_EQ(c.settled, 1000u + 3 * 10);
  c = advanced(c);
  EXPECT_EQ(c.phase, kFarMinimum);
  EXPECT_EQ(c.delta, 20u);
  EXPECT_EQ(c.sizes[7], 0u);
  // After the resplit, its deduplication bits are cleared before opening.
  c.far_min = 1030;
  c = advanced(c);
  c.sizes[0] = 1;
  c = advanced(c);
  EXPECT_EQ(c.phase, kClearResplitMask);
  c = advanced(c);
  EXPECT_EQ(c.phase, kOpenBucket);
  EXPECT_EQ(c.dedup, 0u);
}

TEST(SsspControl, AutoDeltaNarrowsBusyBucketsButNotBelowWhereItStarted) {
  control c = relaxing();
  c.adaptive = 1;
  c.delta = c.next_delta = 40;
  c.examined = 1ull << 22;  // one round of 4M edges: above kHighWork
  c.sizes[kFarGroup] = 1;
  c = advanced(c);
  EXPECT_EQ(c.delta, 20u);
  c = relaxing();
  c.adaptive = 1;
  c.examined = 1ull << 22;
  c.sizes[kFarGroup] = 1;
  c = advanced(c);
  EXPECT_EQ(c.delta, 10u);  // first_delta is the floor
  EXPECT_EQ(c.phase, kFarMinimum);
}

TEST(SsspControl, AnOverflowStopsTheSolve) {
  control c = relaxing();
  c.sizes[2] = 4;
  c.overflow = 1;
  EXPECT_EQ(advanced(c).phase, kDone);
}

}  // namespace
}  // namespace graphkit::sssp::detail
