// The state machine of GPU delta-stepping, run inside one persistent kernel
// (apps/sssp/gpu/delta_stepping.cu). The grid works through phases separated
// by grid barriers; after each, every block reads what the phase added up
// (phase_counters) and advances its own copy of the state (control) the same
// way. Every decision a host loop would make after a device-to-host copy is
// made here instead, so a round costs one grid barrier, not host round trips.
//
// Buckets are counted from an epoch base: bucket j holds distances in
// [base + j*delta, base + (j+1)*delta). An epoch keeps kEpochBuckets bucket
// lists and one far list for everything beyond. Invariants between phases:
//   * every reached, unsettled vertex whose distance lies in bucket j > k
//     (k the current bucket) is in list j; list j holds each vertex once;
//   * every reached vertex whose distance lies beyond the epoch is in the far
//     list, once (a vertex enters it only when first reached);
//   * entries whose vertex has since moved to a lower bucket are stale and
//     are dropped when their list is read.
// Relaxing an edge that lowers dist[t] from `old` to `nd` therefore appends t
// to a list only when the bucket changes: to list group(nd) if that differs
// from group(old), to the next frontier if group(nd) is the current bucket
// (once per round, through a frontier mask), and to the far list if t was
// unreached. That bounds every list by n.
#pragma once

#include <cstdint>

#include "graph/types.hpp"

namespace graphkit::sssp::detail {

/// Device distances: unsigned, so that "unreachable" is the largest value and
/// atomicMin needs no special case. Sums of 32-bit weights fit in 64 bits.
using gpu_distance = unsigned long long;
inline constexpr gpu_distance kGpuUnreachable = ~0ull;

inline constexpr std::uint32_t kEpochBuckets = 16;
inline constexpr std::uint32_t kFarGroup = kEpochBuckets;  ///< lists[kFarGroup] is the far list
inline constexpr std::uint32_t kGroups = kEpochBuckets + 1;

enum phase : std::uint32_t {
  kRelaxFrontier,     ///< relax the frontier's edges; hubs queue chunks
  kRelaxChunks,       ///< relax the queued chunks of hubs' edges
  kOpenBucket,        ///< filter list `bucket` into the frontier
  kSpill,             ///< delta changed: live entries of lists > bucket go to far
  kFarMinimum,        ///< the smallest live distance in the far list
  kResplit,           ///< the old far list into the new epoch's lists
  kClearResplitMask,  ///< after a deduplicating resplit
  kDone,
};

// --delta auto: below kLowWork edges per round (about a microsecond of
// relaxation on an H100, less than the round's own cost) it widens delta;
// above kHighWork (several times a round's cost) it narrows it again, but
// not below the delta it started from, which the sweeps show is near the
// best for busy rounds: widening exists to fill the small rounds near the
// source and the sparse tail.
inline constexpr double kLowWork = 1 << 15;
inline constexpr double kHighWork = 1 << 18;
// Distances stay below 2^63, so a wider delta changes nothing; capping it
// keeps base + (kEpochBuckets + 1) * delta inside 64 bits.
inline constexpr gpu_distance kMaxDelta = gpu_distance{1} << 58;

/// What one phase adds up, with atomics, in global memory. Three slots
/// rotate: phase i adds into slot i % 3 while slot (i + 1) % 3 is reset for
/// the next phase, and after the barrier every block reads slot i % 3 (slot
/// i - 1 is then free: no block can still be reading it, as all have passed
/// the barrier that ended phase i - 1).
struct alignas(128) phase_counters {
  std::uint32_t sizes[kGroups];  ///< entries appended to each list
  std::uint32_t chunks;          ///< hub chunks queued
  std::uint32_t kept;            ///< open-bucket output size
  std::uint32_t overflow;        ///< a list ran out of room (a bug, reported by the host)
  gpu_distance far_min;          ///< far_minimum's result; kGpuUnreachable otherwise
  unsigned long long examined;   ///< edges relaxed, with repeats
  // The in-phase pool (pool.cuh): slots claimed and reserved, which every
  // waiting warp polls, on a line of their own; batches finished and idle
  // warps, read when the pool looks empty, on another.
  alignas(128) std::uint32_t pool_head;
  std::uint32_t pool_tail;
  alignas(128) std::uint32_t pool_done;
  std::uint32_t pool_idle;

  __host__ __device__ static phase_counters cleared() {
    phase_counters p{};
    p.far_min = kGpuUnreachable;
    return p;
  }
};

/// The solver's state. Every block keeps its own copy in shared memory and
/// advances it identically after each phase from the same phase_counters, so
/// that deciding needs no second barrier; the first block writes its copy
/// back at the end for the host.
struct alignas(16) control {
  std::uint32_t phase;
  std::uint32_t bucket;  ///< current bucket k, or the bucket being opened
  std::uint32_t round;   ///< its parity picks the frontier mask
  std::uint32_t frontier_size;
  std::uint32_t far_in_size;  ///< resplit's input size
  std::uint32_t dedup;        ///< resplit drops repeats (a spill may have doubled a vertex)
  std::uint32_t adaptive;     ///< --delta auto
  std::uint32_t chunks;       ///< hub chunks queued by the last relax phase
  std::uint32_t kept;         ///< the last open-bucket phase's output size
  std::uint32_t overflow;
  gpu_distance base, delta, next_delta, settled, far_min;
  gpu_distance first_delta;  ///< --delta auto narrows no further
  vertex_t* lists[kGroups];  ///< epoch buckets, then far
  vertex_t* frontier;        ///< the current round's input
  vertex_t* far_in;          ///< resplit's input; a spare far list otherwise
  std::uint32_t sizes[kGroups];
  std::uint32_t relax_depth;  ///< hops a warp relaxes past the frontier in one round (relax.cuh, local_queue)
  std::uint32_t pool;         ///< relax phases share queued vertices through the pool (pool.cuh)
  // Statistics.
  unsigned long long examined, rounds, buckets, epochs;
  unsigned long long bucket_rounds, bucket_examined_start;

  /// Takes in what a phase added up.
  __host__ __device__ void fold(const phase_counters& p) {
    for (std::uint32_t g = 0; g < kGroups; ++g) sizes[g] += p.sizes[g];
    chunks = p.chunks;
    kept = p.kept;
    overflow |= p.overflow;
    far_min = p.far_min;
    examined += p.examined;
  }
};

/// Which list a distance belongs in, for the epoch at `base`.
/// (d - base) / delta capped at kFarGroup, by a 4-step binary search: a 64-bit
/// division is a long dependent sequence, and on a road's chain of hops every
/// hop waits for it. delta <= kMaxDelta, so 16 x delta fits 64 bits.
__host__ __device__ inline std::uint32_t group_of(gpu_distance d, gpu_distance base, gpu_distance delta) {
  static_assert(kEpochBuckets == 16, "the search below takes 4 steps");
  gpu_distance x = d - base;  // d < base wraps to a far value, as the quotient would
  if (x >= delta * kEpochBuckets) return kFarGroup;
  std::uint32_t k = 0;
  for (std::uint32_t step = kEpochBuckets / 2; step > 0; step /= 2) {
    if (x >= delta * step) {
      x -= delta * step;
      k += step;
    }
  }
  return k;
}

/// The decisions, applied to one block's copy of the state after fold().
/// Host-callable too, so that tests/apps/sssp_control_test.cu can walk the
/// state machine on the CPU.
struct controller {
  control& c;

  __host__ __device__ void advance() {
    if (c.overflow != 0) {
      c.phase = kDone;
      return;
    }
    switch (c.phase) {
      case kRelaxFrontier:
        if (c.chunks > 0) {
          c.phase = kRelaxChunks;
          return;
        }
        end_round();
        return;
      case kRelaxChunks:
        c.chunks = 0;
        end_round();
        return;
      case kOpenBucket:
        c.sizes[c.bucket] = 0;
        if (c.kept > 0) {
          c.frontier_size = c.kept;
          c.kept = 0;
          ++c.buckets;
          c.bucket_rounds = 0;
          c.bucket_examined_start = c.examined;
          c.phase = kRelaxFrontier;
          return;
        }
        open_next(c.bucket + 1);
        return;
      case kSpill:
        for (std::uint32_t j = c.bucket + 1; j < kEpochBuckets; ++j) c.sizes[j] = 0;
        c.delta = c.next_delta;
        begin_far_minimum();
        return;
      case kFarMinimum:
        if (c.far_min == kGpuUnreachable) {  // only stale entries were left
          c.phase = kDone;
          return;
        }
        begin_resplit();
        return;
      case kResplit:
        if (c.dedup != 0) {
          c.phase = kClearResplitMask;
          return;
        }
        open_next(0);
        return;
      case kClearResplitMask:
        c.dedup = 0;
        open_next(0);
        return;
      default: c.phase = kDone;
    }
  }

 private:
  /// After a round: go on with the bucket while vertices fell back into it.
  __host__ __device__ void end_round() {
    ++c.rounds;
    ++c.bucket_rounds;
    ++c.round;
    const std::uint32_t k = c.bucket;
    if (c.sizes[k] > 0) {
      // The next frontier was appended to list k; the old frontier's storage
      // takes list k's place.
      vertex_t* const next = c.lists[k];
      c.lists[k] = c.frontier;
      c.frontier = next;
      c.frontier_size = c.sizes[k];
      c.sizes[k] = 0;
      c.phase = kRelaxFrontier;
      return;
    }
    // Bucket k is settled. --delta auto: a bucket whose rounds were too small
    // to fill the GPU widens delta, one whose rounds were huge narrows it.
    gpu_distance next = c.delta;
    if (c.adaptive != 0) {
      const double work =
          static_cast<double>(c.examined - c.bucket_examined_start) / static_cast<double>(c.bucket_rounds);
      if (work < kLowWork) next = c.delta * 2 < kMaxDelta ? c.delta * 2 : kMaxDelta;
      else if (work > kHighWork && c.delta / 2 >= c.first_delta) next = c.delta / 2;
    }
    if (next == c.delta) {
      open_next(k + 1);
      return;
    }
    // The epoch's bucket boundaries move with delta: end it here. Live
    // entries of the later lists go back to the far list (which may then name
    // a vertex twice, hence the deduplicating resplit).
    c.settled = c.base + (k + 1) * c.delta;
    c.next_delta = next;
    for (std::uint32_t j = k + 1; j < kEpochBuckets; ++j) {
      if (c.sizes[j] > 0) {
        c.dedup = 1;
        c.phase = kSpill;
        return;
      }
    }
    c.delta = next;
    begin_far_minimum();
  }

  /// Opens the first non-empty bucket from j on, or ends the epoch.
  __host__ __device__ void open_next(std::uint32_t j) {
    while (j < kEpochBuckets && c.sizes[j] == 0) ++j;
    if (j < kEpochBuckets) {
      c.bucket = j;
      c.kept = 0;
      c.phase = kOpenBucket;
      return;
    }
    c.settled = c.base + kEpochBuckets * c.delta;
    begin_far_minimum();
  }

  __host__ __device__ void begin_far_minimum() {
    if (c.sizes[kFarGroup] == 0) {
      c.phase = kDone;
      return;
    }
    c.far_min = kGpuUnreachable;
    c.phase = kFarMinimum;
  }

  /// The far list becomes resplit's input; the spare list the new far list.
  __host__ __device__ void begin_resplit() {
    c.base = c.far_min;
    ++c.epochs;
    vertex_t* const old_far = c.lists[kFarGroup];
    c.lists[kFarGroup] = c.far_in;
    c.far_in = old_far;
    c.far_in_size = c.sizes[kFarGroup];
    c.sizes[kFarGroup] = 0;
    c.phase = kResplit;
  }
};

}  // namespace graphkit::sssp::detail
