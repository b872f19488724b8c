// The block sum of graphkit binary files (.gkbin version 2), in one place for
// the host reader's threads and the GPU reader's kernel, which must agree bit
// for bit: word_term is constexpr, so nvcc compiles it for the device too
// (graphkit_graph_gpu builds with --expt-relaxed-constexpr).
//
// The sum of a run of bytes that starts at file offset 8 * first_word is the
// wrapping (mod 2^64) sum over its 8-byte little-endian words w_i, the last
// one zero-padded, of word_term(w_i, first_word + i). Why this shape:
//   - each term depends on one word and its place only, so any split of the
//     work (reader threads, CUDA blocks, atomic adds) gives the same sum;
//   - the place (the word's index in the file) is mixed in, so moved,
//     swapped or repeated words change the sum, and so does an array read
//     from the wrong offset;
//   - mix64 spreads a flipped bit over the whole term; two 64-bit multiplies
//     per word keep the host loop at several GB/s per core and the kernel
//     far above the device's memory bandwidth.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "graph/detail/parallel.hpp"

namespace graphkit::detail::gkbin {

/// Odd, so that distinct word indices give distinct keys.
inline constexpr std::uint64_t kPositionKey = 0xd6e8feb86659fd93ULL;

/// One word's share of a block sum: `word` as read little-endian from file
/// offset 8 * word_index.
constexpr std::uint64_t word_term(std::uint64_t word, std::uint64_t word_index) noexcept {
  return mix64(word ^ (word_index * kPositionKey));
}

/// The sum of `bytes` bytes at `data`, which the file holds from offset
/// 8 * first_word on (the host's loop; the kernel in graph/gpu/binary_gpu.cu
/// adds the same terms).
inline std::uint64_t sum_bytes(const void* data, std::size_t bytes, std::uint64_t first_word) noexcept {
  static_assert(std::endian::native == std::endian::little, "gkbin words are little-endian; so is the host read");
  const auto* p = static_cast<const unsigned char*>(data);
  const std::size_t words = bytes / 8;
  std::uint64_t sum = 0;
  for (std::size_t i = 0; i < words; ++i) {
    std::uint64_t w;
    std::memcpy(&w, p + 8 * i, 8);
    sum += word_term(w, first_word + i);
  }
  if (const std::size_t tail = bytes % 8; tail != 0) {
    std::uint64_t w = 0;
    std::memcpy(&w, p + 8 * words, tail);
    sum += word_term(w, first_word + words);
  }
  return sum;
}

}  // namespace graphkit::detail::gkbin
