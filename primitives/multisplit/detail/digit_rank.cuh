// A stable split of a block's tile by one digit of 4, 5 or 6 bits, ranked
// by per-thread counters instead of warp votes or peer masks: the counter
// split of `block_wide_digits_one` (detail/wide_digits_one.cuh). The 4-bit
// layout and scan below are the same at every width: 5 and 6 bits give a
// thread 32 or 64 counters, each warp raking 2 or 4 rows as stripes.
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
// needs the scan to walk chunks in input order; the raking lane u of a row
// reads P = threads / 32 consecutive chunks (8 at 256 threads, 16 at 512),
// Pu .. Pu + P - 1, whose owners Pu + (j ^ (Pu >> 5)) lie in 32 distinct
// banks at each step j, so the raking never conflicts (with chunk = thread
// it would meet P-way conflicts). A quarter-warp's 16-byte chunk loads
// (8 lanes, an aligned run of 8 chunks whatever the swizzle) start in 8
// distinct 16-byte bank groups when Items / 4 is odd (4-byte items: 12,
// 20, 44); at 16 items the chunks' 64-byte stride puts them in 2 groups,
// 4-way conflicts.
//
// tests/primitives/digit_rank_test.cu runs the count, rake, lift and place
// for a whole block on the CPU (hence __host__ __device__ and the explicit
// thread indices) against a stable sort, and checks the raking's banks.
// Those host-callable loops carry no `#pragma unroll` (the host compiler
// warns of it): nvcc unrolls their constant counts anyway, the same PTX.
#pragma once

#include <cub/block/block_scan.cuh>

#include <cstdint>
#include <cstring>

#include "primitives/multisplit/detail/warp_rank.cuh"

namespace graphkit::multisplit_detail {

/// The tile chunk that thread t owns, and (the map is its own inverse) the
/// thread that owns chunk t: t ^ warp, the warp below 32 (at most 1,024
/// threads), so only the lane's bits change.
__host__ __device__ __forceinline__ unsigned digit_chunk(unsigned t) { return t ^ (t >> 5); }

/// A block's 2^Bits digit counters per thread (see the header; Bits = 4:
/// 16 digits, 8 rows), for Threads threads (256 or 512). Two digits a word,
/// d and d + kRows, so kRows = 2^(Bits - 1) rows of Threads words: 8 KB at
/// 4 bits, 16 KB at 5, 32 KB at 6 for 256 threads (twice that for 512). The
/// raking scan gives each warp kStripes rows: row w + kWarps k is warp w's
/// stripe k, and stripe k of every warp comes before stripe k + 1 of any in
/// (digit, chunk) order, so thread i's stripe-k rake is item Threads k + i
/// of the scan: a striped arrangement, whose exclusive prefix is the
/// stripes' totals before k plus one block scan of stripe k (all stripes in
/// one block scan of a kStripes-word sum, see stripe_sums).
template <int Bits = 4, int Threads = 256>
struct digit_counters {
  static constexpr int kThreads = Threads;
  static constexpr int kWarps = Threads / 32;
  static constexpr int kPerLane = Threads / 32;  ///< a row's words each raking lane sums
  static constexpr int kDigits = 1 << Bits;
  static constexpr int kRows = kDigits / 2;
  static constexpr int kStripes = kRows / kWarps;  ///< rows each warp rakes
  static_assert(Bits >= 4 && Bits <= 6, "6 bits fill 32 KB for 256 threads");
  static_assert(Threads == 256 || Threads == 512, "the chunk swizzle and the raking assume 8 or 16 warps");
  static_assert(kStripes >= 1 && kRows % kWarps == 0, "a warp rakes whole rows");
  std::uint32_t words[kRows][kThreads];

  /// Halves (16-bit counters) from a thread's counter of digit d to its
  /// counter of d + kRows (the next row).
  static constexpr std::uint32_t kRowHalves = 2u * kThreads;
  static_assert(kRows * kRowHalves <= (1u << 16), "counter offsets fit 16 bits of an item word");

  /// Thread t's column of counters, as 16-bit halves: its counter of
  /// `digit` is column(t)[offset_of(digit)].
  __host__ __device__ __forceinline__ std::uint16_t* column(unsigned t) {
    return reinterpret_cast<std::uint16_t*>(&words[0][t]);
  }

  /// Offset in halves of a column's counter of `digit`: the half digit /
  /// kRows of the column's word digit % kRows. Below 2^16, so that an
  /// item's word carries it from the count to the place (wide_digits.cuh).
  __host__ __device__ __forceinline__ static std::uint32_t offset_of(unsigned digit) {
    return (digit & (kRows - 1u)) * kRowHalves + (digit >> (Bits - 1));
  }

  /// Zeroes thread t's column. Only thread t calls it, after its last read
  /// of the column (the raking scans touch it only between two barriers).
  __host__ __device__ __forceinline__ void zero_column(unsigned t) {
    for (int k = 0; k < kRows; ++k) words[k][t] = 0;
  }

  /// The row that `thread` rakes in `stripe`.
  __host__ __device__ __forceinline__ static unsigned raked_row(int stripe, unsigned thread) {
    return stripe * kWarps + thread / 32;
  }

  /// The column (the counters' thread, see the chunk order in the header)
  /// whose count `thread` rakes at step j (j < kPerLane) of its row.
  __host__ __device__ __forceinline__ static unsigned raked_column(unsigned thread, int j) {
    const unsigned first = kPerLane * (thread % 32), swizzle = first >> 5;
    return first + (j ^ swizzle);
  }

  /// Raking over the counters, in place: every count becomes the number of
  /// items before it in (digit, chunk) order, i.e. the tile place of that
  /// chunk's first item of that digit. In stripe k warp w rakes row w +
  /// kWarps k; lane u its chunks P u .. P u + P - 1 (P = kPerLane). rake(k)
  /// returns this thread's P counts' sum (both halves packed); the caller
  /// block-scans those sums (exclusive, in stripe then thread order) and
  /// lifts each stripe with the result (lift_stripes), which reads the
  /// counts again rather than hold them in registers across the block scan
  /// (with 20 keys and 20 item words live there, holding them spilled).
  /// Between barriers: the counts are all in before, and nobody reads a
  /// place before the barrier after the lift. `thread`: the calling
  /// thread's index (threadIdx.x; the host tests emulate a block).
  __host__ __device__ __forceinline__ std::uint32_t rake(int stripe, unsigned thread) const {
    const unsigned row = raked_row(stripe, thread);
    std::uint32_t sum = 0;
    for (int j = 0; j < kPerLane; ++j) sum += words[row][raked_column(thread, j)];
    return sum;
  }

  /// Writes stripe k's places from `place`: the packed place of this
  /// thread's first count (low half: digits below kRows; high: the rest).
  __host__ __device__ __forceinline__ void lift_stripe(int stripe, std::uint32_t place, unsigned thread) {
    const unsigned row = raked_row(stripe, thread);
    for (int j = 0; j < kPerLane; ++j) {
      std::uint32_t& word = words[row][raked_column(thread, j)];
      const std::uint32_t count = word;
      word = place;
      place += count;
    }
  }
};

/// Counts one item in the counter at `offset` of `column`
/// (digit_counters::column of the calling thread); returns the count before
/// it (the item's rank among the chunk's items of that digit). 16-bit
/// accesses through memcpy: the scan reads the same bytes as words, and the
/// pointer's type tells the compiler that each access is one 16-bit load or
/// store (through an unsigned char pointer each became two byte accesses).
__host__ __device__ __forceinline__ std::uint32_t bump_counter(std::uint16_t* column, std::uint32_t offset) {
  std::uint16_t count;
  std::memcpy(&count, column + offset, sizeof count);
  const auto next = static_cast<std::uint16_t>(count + 1);
  std::memcpy(column + offset, &next, sizeof next);
  return count;
}

/// The 16-bit word at `offset` of `column`: after the scan, a counter's
/// tile place of its thread's first item of its digit.
__host__ __device__ __forceinline__ std::uint32_t read_counter(const std::uint16_t* column, std::uint32_t offset) {
  std::uint16_t word;
  std::memcpy(&word, column + offset, sizeof word);
  return word;
}

/// N 32-bit sums that one block scan carries at once (add_word_sums adds
/// them word by word).
template <int N>
struct word_sums {
  static constexpr int kWords = N;
  std::uint32_t word[N];
};
struct add_word_sums {
  template <int N>
  __host__ __device__ __forceinline__ word_sums<N> operator()(const word_sums<N>& a, const word_sums<N>& b) const {
    word_sums<N> sum;
    for (int k = 0; k < N; ++k) sum.word[k] = a.word[k] + b.word[k];
    return sum;
  }
};

/// A thread's rake sums, word k for stripe k, and in word Stripes the count
/// of the bucket that the thread stands for: what one block scan turns
/// into places and shifts.
template <int Stripes>
using stripe_sums = word_sums<Stripes + 1>;

/// After the block scan of stripe_sums (`prefix` exclusive, `all` the
/// total): every stripe's places. Stripe k starts after the earlier
/// stripes' totals; the high halves after all low halves (all's low total
/// moved up: the carry-free packing, see the header). `thread`: as rake's.
template <class Counters>
__host__ __device__ __forceinline__ void lift_stripes(Counters& counters, const stripe_sums<Counters::kStripes>& prefix,
                                                      const stripe_sums<Counters::kStripes>& all, unsigned thread) {
  constexpr int kStripes = Counters::kStripes;
  std::uint32_t total = 0;
  for (int k = 0; k < kStripes; ++k) total += all.word[k];
  std::uint32_t before = total << 16;  // the low halves' total, moved to the high half
  for (int k = 0; k < kStripes; ++k) {
    counters.lift_stripe(k, before + prefix.word[k], thread);
    before += all.word[k];
  }
}

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
