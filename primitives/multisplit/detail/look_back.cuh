// Decoupled look-back (Merrill and Garland's single-pass scan), one scan per
// bucket: each tile (or chunk of rows) publishes per bucket a word holding
// a flag and a count, first its own count (aggregate), then the count of
// all tiles up to it (inclusive), and gets its bucket's items in earlier
// tiles by walking back over those words to the nearest inclusive one.
// The one-sweep pass (onesweep.cuh) and the wide methods' column scan
// (column_scan.cuh) use it. Words are tile-major: tile t's word of bucket b
// at words[t * m + b], zero until published.
#pragma once

#include <cuda/atomic>

#include <cstddef>
#include <cstdint>

#include "primitives/multisplit/detail/warp_rank.cuh"

namespace graphkit::multisplit_detail {

/// A look-back word: 2 flag bits over the count. 32-bit words count fewer
/// than 2^30 items, 64-bit words any 32-bit count.
template <class Word>
struct look_back_word {
  static constexpr int kBits = 8 * sizeof(Word);
  static constexpr Word kAggregate = Word{1} << (kBits - 2);  ///< the tile's own count
  static constexpr Word kInclusive = Word{2} << (kBits - 2);  ///< count of all tiles up to this one
  static constexpr Word kCountMask = kAggregate - 1;
};

/// Publishes `count` with `flag` (kAggregate or kInclusive) in one store: the
/// count travels in the word, so relaxed order is enough.
template <class Word>
__device__ __forceinline__ void publish(Word* word, Word flag, std::uint32_t count) {
  cuda::atomic_ref<Word, cuda::thread_scope_device>(*word).store(flag | count, cuda::std::memory_order_relaxed);
}

/// Lanes that look back together for one bucket: the largest power of two,
/// at most 32, with m groups in a block of Threads threads.
template <int Threads>
__device__ __forceinline__ unsigned look_back_group(std::uint32_t m) {
  unsigned group = 32;
  while (group > 1 && group * m > Threads) group >>= 1;
  return group;
}

/// Bucket b's items in tiles 0 .. t - 1 (t >= 1), read from the tiles'
/// published words by a group of `group` lanes (a power of two, aligned in
/// the warp, all with the same b): each step reads group x Window earlier
/// tiles at once, Window a lane (their loads in flight together), waits for
/// each to be published, and stops at the nearest that holds an inclusive
/// count. One lane walking alone, a tile at a time, would pay an L2 round
/// trip per tile, and at tens of tiles per microsecond the walks then
/// lengthen faster than they finish. Every lane of the warp calls, in step
/// (`active` false where the lane has no bucket): warp intrinsics with a
/// mask per group serialized the groups, 4x slower at m = 256.
template <int Window, class Word>
__device__ __forceinline__ std::uint32_t look_back(Word* words, std::size_t t, std::uint32_t m, std::uint32_t b,
                                                   unsigned group, bool active) {
  using flags = look_back_word<Word>;
  const unsigned j = lane_id() & (group - 1), first_lane = lane_id() & ~(group - 1);
  const unsigned group_bits = group == 32 ? kFullMask : (1u << group) - 1;
  const auto word_of = [&](std::size_t tile) {
    return cuda::atomic_ref<Word, cuda::thread_scope_device>(words[tile * m + b]);
  };
  std::uint32_t before = 0;
  bool done = !active;
  // The step that reaches tile 0 (inclusive) ends every walk, so `newest`
  // never passes below 0 in a step that reads.
  for (std::size_t newest = t - 1; !__all_sync(kFullMask, done); newest -= std::size_t{group} * Window) {
    // This lane's tiles, newest first: newest - (j Window + w); past tile 0 an inclusive count of 0.
    Word word[Window];
#pragma unroll
    for (int w = 0; w < Window; ++w) {
      const std::size_t back = std::size_t{j} * Window + w;
      word[w] =
          !done && back <= newest ? word_of(newest - back).load(cuda::std::memory_order_relaxed) : flags::kInclusive;
    }
    std::uint32_t count = 0;
    bool inclusive_here = false;
#pragma unroll
    for (int w = 0; w < Window; ++w) {
      const std::size_t back = std::size_t{j} * Window + w;
      while ((word[w] & ~flags::kCountMask) == 0)
        word[w] = word_of(newest - back).load(cuda::std::memory_order_relaxed);
      if (!inclusive_here) count += static_cast<std::uint32_t>(word[w] & flags::kCountMask);
      inclusive_here = inclusive_here || (word[w] & flags::kInclusive) != 0;
    }
    const unsigned inclusive = (__ballot_sync(kFullMask, inclusive_here) >> first_lane) & group_bits;
    const unsigned last = inclusive ? __ffs(inclusive) - 1 : group - 1;  // the step's last lane counted
    if (j > last) count = 0;
    for (unsigned d = 1; d < group; d <<= 1) count += __shfl_xor_sync(kFullMask, count, d);
    if (!done) before += count;
    done = done || inclusive != 0;
  }
  return before;
}

}  // namespace graphkit::multisplit_detail
