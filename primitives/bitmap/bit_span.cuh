// Uncounted bit operations over a caller's word array, for scratch sets that
// a kernel builds, probes and clears itself: a round's frontier, a vertex's
// neighbourhood. dense_bitmap keeps exact per-chunk counts, which these uses
// never read and whose few count words would serialize their atomics.
#pragma once

#include <cstdint>

namespace graphkit {

struct bit_span_ref {
  std::uint32_t* words;

  /// Sets bit x; true for exactly one caller between clears.
  __device__ bool set(std::uint32_t x) const {
    const std::uint32_t bit = 1u << (x & 31);
    return (atomicOr(&words[x >> 5], bit) & bit) == 0;
  }
  /// Clears bit x (atomically: other bits of its word may be changing).
  __device__ void clear(std::uint32_t x) const { atomicAnd(&words[x >> 5], ~(1u << (x & 31))); }
  [[nodiscard]] __device__ bool test(std::uint32_t x) const { return (words[x >> 5] >> (x & 31)) & 1u; }
  /// test() read through L2: where bits are also cleared while others read
  /// them, an older line in this multiprocessor's L1 could show a bit that
  /// is no longer set.
  [[nodiscard]] __device__ bool test_in_l2(std::uint32_t x) const { return (__ldcg(&words[x >> 5]) >> (x & 31)) & 1u; }
  /// Zeroes the word holding x: clearing a set by its own elements costs
  /// one store each instead of a pass over the whole span.
  __device__ void clear_word_of(std::uint32_t x) const { words[x >> 5] = 0; }
};

}  // namespace graphkit
