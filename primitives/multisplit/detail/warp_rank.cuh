// Warp-level ranking by bucket: each lane learns how many earlier items of
// its warp (in input order) share its bucket: by votes (ballot_ranker,
// shared_rank) or by peer masks built with shared-memory atomics (peer_rank).
#pragma once

#include <cstdint>

namespace graphkit::multisplit_detail {

inline constexpr unsigned kFullMask = 0xffffffffu;

__device__ __forceinline__ unsigned lane_id() { return threadIdx.x & 31u; }
__device__ __forceinline__ unsigned lanes_below() { return (1u << lane_id()) - 1u; }

/// Ranks for m <= 32 from votes (the paper's warp-level scheme): one ballot
/// per bucket-id bit; ANDing the votes (or their complements) gives the lanes
/// that share a bucket. Lane l also keeps the running count of bucket l, so
/// after the last round lane l holds the warp's histogram entry for bucket l.
struct ballot_ranker {
  std::uint32_t running = 0;

  /// `bits` = ceil(log2 m), warp-uniform. Every lane must call; invalid lanes
  /// (tail, out-of-range id) are left out of every count.
  __device__ __forceinline__ std::uint32_t rank(std::uint32_t bucket, bool valid, int bits) {
    const unsigned active = __ballot_sync(kFullMask, valid);
    unsigned same = active, own = active;
#pragma unroll
    for (int i = 0; i < 5; ++i) {
      if (i < bits) {
        const unsigned vote = __ballot_sync(kFullMask, (bucket >> i) & 1u);
        same &= ((bucket >> i) & 1u) ? vote : ~vote;
        own &= ((lane_id() >> i) & 1u) ? vote : ~vote;
      }
    }
    const std::uint32_t before = __shfl_sync(kFullMask, running, bucket & 31u);
    running += __popc(own);  // meaningful in lanes l < m only
    return before + __popc(same & lanes_below());
  }

  /// rank() without the rank: only lane l's count of bucket l advances.
  __device__ __forceinline__ void count(std::uint32_t bucket, bool valid, int bits) {
    unsigned own = __ballot_sync(kFullMask, valid);
#pragma unroll
    for (int i = 0; i < 5; ++i) {
      if (i < bits) {
        const unsigned vote = __ballot_sync(kFullMask, (bucket >> i) & 1u);
        own &= ((lane_id() >> i) & 1u) ? vote : ~vote;
      }
    }
    running += __popc(own);
  }
};

/// Lanes (among the valid ones) whose bucket equals this lane's: one vote per
/// bucket-id bit, `bits` = ceil(log2 m) <= 8, warp-uniform. Votes cost the same
/// however many distinct buckets a warp sees (unlike __match_any_sync, whose
/// cost on sm_90 grew with them: 2.5x slower on uniform ids than on skewed
/// ones at m = 64..256 in bench/multisplit_bench).
__device__ __forceinline__ unsigned same_bucket_lanes(std::uint32_t bucket, bool valid, int bits) {
  unsigned same = __ballot_sync(kFullMask, valid);
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    if (i < bits) {
      const unsigned vote = __ballot_sync(kFullMask, (bucket >> i) & 1u);
      same &= ((bucket >> i) & 1u) ? vote : ~vote;
    }
  }
  return same;
}

/// Ranks for m <= 256 in a warp-private row of shared-memory counters: the
/// lowest lane of each bucket's group adds the group size. Each counter has
/// one writer per round: no atomics.
__device__ __forceinline__ std::uint32_t shared_rank(std::uint32_t* warp_counts, std::uint32_t bucket, bool valid,
                                                     int bits) {
  const unsigned same = same_bucket_lanes(bucket, valid, bits);
  const std::uint32_t before = valid ? warp_counts[bucket] : 0;
  __syncwarp();
  if (valid && lane_id() == static_cast<unsigned>(__ffs(same) - 1)) warp_counts[bucket] = before + __popc(same);
  __syncwarp();
  return before + __popc(same & lanes_below());
}

/// Ranks for any m <= 256 by peer masks, in a warp-private row of m mask
/// words (`masks`, zero on entry and on return) beside the row of counters:
/// each valid lane sets its bit in its bucket's word with one shared atomic,
/// and after a warp barrier reads back the lanes that share its bucket. One
/// atomic, two loads and a few ALU ops per item, where shared_rank spends up
/// to 9 votes and ~27 bitwise ops (bench/NOTES.md multisplit step 16).
/// Stable: a call ranks its lanes in lane order after every item of the
/// earlier calls (each call advances the counters before it returns).
/// Invalid lanes touch no memory and get no meaningful rank.
__device__ __forceinline__ std::uint32_t peer_rank(std::uint32_t* warp_counts, std::uint32_t* masks,
                                                   std::uint32_t bucket, bool valid) {
  if (valid) atomicOr(&masks[bucket], 1u << lane_id());
  __syncwarp();  // every bit is in before any lane reads its word
  const unsigned peers = valid ? masks[bucket] : 0;
  const std::uint32_t before = valid ? warp_counts[bucket] : 0;
  __syncwarp();  // every peer has read word and counter before the lowest one rewrites them
  const std::uint32_t below = __popc(peers & lanes_below());
  if (valid && below == 0) {  // the group's lowest lane: one writer per bucket
    warp_counts[bucket] = before + __popc(peers);
    masks[bucket] = 0;  // the next call's atomics start from an empty word
  }
  __syncwarp();  // counters and cleared words visible to the next call
  return before + below;
}

/// Lanes (among the valid ones) whose bucket equals this lane's, for any
/// m <= 256: same_bucket_lanes with all eight votes taken, none skipped by a
/// warp-uniform test and branch (~2 instructions a bit): a valid bucket's
/// bits at and above ceil(log2 m) are 0, so those votes keep every valid
/// lane (invalid lanes, whose bits may be set, are out from the first vote).
__device__ __forceinline__ unsigned same_bucket_lanes_of_256(std::uint32_t bucket, bool valid) {
  unsigned same = __ballot_sync(kFullMask, valid);
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const bool bit = (bucket >> i) & 1u;
    const unsigned vote = __ballot_sync(kFullMask, bit);
    same &= bit ? vote : ~vote;
  }
  return same;
}

/// Places by votes, for any m <= 256, in a warp-private row of counters that
/// already holds, per bucket, the place of the warp's next item of that
/// bucket (the counts came first: Onesweep's "early counts" order, as in
/// CUB's radix rank on sm_90): the lanes that share this lane's bucket
/// (same_bucket_lanes_of_256: 9 ballots, no shared memory), and one shared
/// atomicAdd by the lowest of them, whose old value a shuffle hands to its
/// peers. Two shared accesses fewer per item than peer_rank (no mask word
/// to set, read and clear) for ~3 instructions per ballot: at m = 256 the
/// masks' accesses meet 3-4-way bank conflicts (bench/NOTES.md multisplit
/// step 17). Stable like peer_rank. Invalid lanes touch no memory and get
/// no meaningful place.
__device__ __forceinline__ std::uint32_t vote_place(std::uint32_t* next, std::uint32_t bucket, bool valid) {
  const unsigned same = same_bucket_lanes_of_256(bucket, valid);
  const unsigned below = __popc(same & lanes_below());
  std::uint32_t first = 0;
  if (valid && below == 0) first = atomicAdd(&next[bucket], static_cast<std::uint32_t>(__popc(same)));
  first = __shfl_sync(kFullMask, first, __ffs(same) - 1);  // an invalid lane's source lane is any lane
  __syncwarp();  // the counter advanced before the next call's lowest peer (another lane, maybe) reads it
  return first + below;
}

/// Adds this warp's count of out-of-range bucket ids to the global counter.
__device__ __forceinline__ void report_out_of_range(std::uint32_t bad, std::uint32_t* counter) {
#pragma unroll
  for (int d = 16; d > 0; d >>= 1) bad += __shfl_xor_sync(kFullMask, bad, d);
  if (bad != 0 && lane_id() == 0) atomicAdd(counter, bad);
}

}  // namespace graphkit::multisplit_detail
