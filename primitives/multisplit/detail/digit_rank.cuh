// A stable 16-way split of a block's tile by one 4-bit digit, ranked by
// per-thread counters instead of warp votes or peer masks: the wide
// post-scan's `block_wide_digits` rank (detail/wide_digits.cuh) runs it
// twice, low digit then high digit (LSD order), to split by 8-bit bucket ids.
//
// Why (bench/NOTES.md multisplit step 19): at m = 128-256 the peer-mask
// rank costs ~6 shared-memory accesses an item at random words of an m-word
// row (3-4-way bank conflicts, same-word atomics under skew), and the votes
// rank ~9 ballots an item. Here every thread owns a chunk of Items
// consecutive tile items and a column of 16 counters that no other thread
// touches while it counts: the column sits in the thread's own bank, so
// counting and reading places never conflict, need no atomics, no
// __syncwarp and no ballots, and cost the same for any id distribution.
// Per item and digit: one 16-bit load and store to count, one load to
// place, and one store of the item at its place (the only access at random
// words). A raking scan over the 4,096 counters (one warp per row of 256
// words, conflict-free by the chunk order below) turns counts into places.
//
// Layout: counter (digit d, thread t) is the 16-bit half d / 8 of word
// [d % 8][t]: two digits a word, so that 8 KB hold a block's 4,096
// counters and a 32-bit add sums both halves at once in the scan (the low
// halves, digits 0-7, and the high halves, digits 8-15, are two sequences
// whose sums stay below 2^16: a tile has fewer than 2^16 items).
//
// Chunk order: thread t = 32 w + l owns chunk 32 w + (l ^ w). Stability
// needs the scan to walk chunks in input order; the raking lane u of row
// warp w reads chunks 8u .. 8u+7, whose owners 8u + (j ^ (u >> 2)) lie in
// 32 distinct banks at each step j, and a quarter-warp's 16-byte chunk
// loads start in 8 distinct 16-byte bank groups (Items % 4 == 0, 4-byte
// items), so neither conflicts. With chunk = thread the raking would meet
// 8-way conflicts.
#pragma once

#include <cub/block/block_scan.cuh>

#include <cstdint>
#include <cstring>

#include "primitives/multisplit/detail/warp_rank.cuh"

namespace graphkit::multisplit_detail {

/// The tile chunk that thread t owns, and (the map is its own inverse) the
/// thread that owns chunk t. 256 threads.
__device__ __forceinline__ unsigned digit_chunk(unsigned t) { return (t & ~31u) | ((t & 31u) ^ (t >> 5)); }

/// A block's 16 digit counters per thread (see the header). 256 threads:
/// the raking scan gives one warp to each of the 8 rows.
struct digit_counters {
  static constexpr int kThreads = 256;
  std::uint32_t words[8][kThreads];

  /// Address of counter (digit, thread t): the half digit / 8 of word
  /// [digit % 8][t]. Read and written only through memcpy (the scan reads
  /// the same bytes as words); its type tells the compiler that it is
  /// 2-byte aligned, so each access is one 16-bit load or store (through an
  /// unsigned char pointer each became two byte accesses).
  __device__ __forceinline__ std::uint16_t* counter(unsigned digit, unsigned t) {
    return reinterpret_cast<std::uint16_t*>(&words[digit & 7u][t]) + (digit >> 3);
  }

  /// Zeroes thread t's column. Only thread t calls it, after its last read
  /// of the column (the raking scans touch it only between two barriers).
  __device__ __forceinline__ void zero_column(unsigned t) {
#pragma unroll
    for (int k = 0; k < 8; ++k) words[k][t] = 0;
  }

  /// Counts one item of `digit` in thread t's column; returns the count
  /// before it (the item's rank among the chunk's items of that digit).
  /// 16-bit accesses through memcpy: the scan reads the same bytes as words.
  __device__ __forceinline__ std::uint32_t bump(unsigned digit, unsigned t) {
    std::uint16_t* at = counter(digit, t);
    std::uint16_t count;
    std::memcpy(&count, at, sizeof count);
    const auto next = static_cast<std::uint16_t>(count + 1);
    std::memcpy(at, &next, sizeof next);
    return count;
  }

  /// After scan(): the tile place of thread t's first item of `digit`.
  __device__ __forceinline__ std::uint32_t first_place(unsigned digit, unsigned t) {
    std::uint16_t place;
    std::memcpy(&place, counter(digit, t), sizeof place);
    return place;
  }

  /// Raking over the counters, in place: every count becomes the number of
  /// items before it in (digit, chunk) order, i.e. the tile place of that
  /// chunk's first item of that digit. Warp w rakes row w; lane u its chunks
  /// 8u .. 8u+7. rake() returns this thread's 8 counts' sum (both halves
  /// packed); the caller block-scans those sums (exclusive, in thread order)
  /// and calls lift() with the result, which reads the 8 counts again rather
  /// than hold them in registers across the block scan (with 20 keys and 20
  /// item words live there, holding them spilled). Between barriers: the
  /// counts are all in before, and nobody reads a place before the barrier
  /// after lift().
  __device__ __forceinline__ std::uint32_t rake() const {
    const unsigned row = threadIdx.x / 32, u = lane_id();
    std::uint32_t sum = 0;
#pragma unroll
    for (int j = 0; j < 8; ++j) sum += words[row][8 * u + (j ^ (u >> 2))];
    return sum;
  }

  /// Writes the places: `prefix` is this thread's exclusive block scan of
  /// rake()'s sums, `all` their total (low halves: digits 0-7; high: 8-15).
  /// The high halves follow every low-half digit: + the low total.
  __device__ __forceinline__ void lift(std::uint32_t prefix, std::uint32_t all) {
    const unsigned row = threadIdx.x / 32, u = lane_id();
    std::uint32_t place = prefix + (all << 16);  // all << 16: the low halves' total, moved to the high half
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      std::uint32_t& word = words[row][8 * u + (j ^ (u >> 2))];
      const std::uint32_t count = word;
      word = place;
      place += count;
    }
  }
};

/// Copies a thread's chunk (Items consecutive elements at `from`, which is
/// 16-byte aligned when the chunk's bytes are a multiple of 16) into
/// registers: 16-byte loads where the type allows.
template <int Items, class T>
__device__ __forceinline__ void load_chunk(const T* from, T (&to)[Items]) {
  if constexpr (sizeof(T) <= 16 && 16 % sizeof(T) == 0 && Items * sizeof(T) % 16 == 0) {
    constexpr int kPerVector = static_cast<int>(16 / sizeof(T));
    const auto* vectors = reinterpret_cast<const uint4*>(from);
#pragma unroll
    for (int v = 0; v < Items / kPerVector; ++v) {
      const uint4 loaded = vectors[v];
      std::memcpy(&to[v * kPerVector], &loaded, sizeof loaded);
    }
  } else {
#pragma unroll
    for (int r = 0; r < Items; ++r) to[r] = from[r];
  }
}

}  // namespace graphkit::multisplit_detail
