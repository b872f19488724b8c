// Dense GPU bitmaps over universes of up to 2^32 elements, split into chunks
// of 2^16 bits (8 KB) that each carry their population count, so that set
// algebra can skip empty chunks and short-circuit full ones, and so that a
// bitmap's size, range counts and conversion to a sorted array cost a pass
// over the non-empty chunks only.
//
// The design follows the talk on bitmap-based set operations on CUDA GPUs
// (chunked universes, chunk-level population counts, a block per chunk); the
// code is ours.
//
// Counts stay exact under concurrent element updates: insert and erase use
// the old word that atomicOr / atomicAnd return to adjust the chunk's count.
//
// Host API in the library's style: `op(..., stream)` synchronizes and returns
// a result, `op_async(..., stream)` only enqueues. Elements outside the
// universe are never written: the synchronous calls throw graphkit::error
// with the count.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

#include "primitives/bitmap/set_op.cuh"
#include "primitives/common/device_buffer.hpp"

namespace graphkit {

inline constexpr std::uint32_t kBitmapChunkBits = 1u << 16;
inline constexpr std::uint32_t kBitmapWordsPerChunk = kBitmapChunkBits / 32;
inline constexpr std::uint64_t kBitmapMaxUniverse = std::uint64_t{1} << 32;

/// What a kernel takes: raw pointers, passed by value.
struct dense_bitmap_ref {
  std::uint32_t* words;
  std::uint32_t* chunk_counts;
  std::uint64_t universe;

  [[nodiscard]] __device__ bool contains(std::uint32_t x) const {
    return x < universe && ((words[x >> 5] >> (x & 31)) & 1u);
  }
  /// Sets bit x; true if it was clear. Keeps the chunk count exact.
  __device__ bool insert(std::uint32_t x) const {
    const std::uint32_t bit = 1u << (x & 31);
    const bool added = (atomicOr(&words[x >> 5], bit) & bit) == 0;
    if (added) atomicAdd(&chunk_counts[x / kBitmapChunkBits], 1u);
    return added;
  }
  /// Clears bit x; true if it was set.
  __device__ bool erase(std::uint32_t x) const {
    const std::uint32_t bit = 1u << (x & 31);
    const bool removed = (atomicAnd(&words[x >> 5], ~bit) & bit) != 0;
    if (removed) atomicSub(&chunk_counts[x / kBitmapChunkBits], 1u);
    return removed;
  }
};

class dense_bitmap {
 public:
  dense_bitmap() = default;
  /// An empty set over [0, universe); universe <= 2^32.
  explicit dense_bitmap(std::uint64_t universe, cudaStream_t stream = nullptr);

  [[nodiscard]] std::uint64_t universe() const noexcept { return universe_; }
  [[nodiscard]] std::size_t num_words() const noexcept { return words_.size(); }
  [[nodiscard]] std::size_t num_chunks() const noexcept { return counts_.size(); }
  [[nodiscard]] dense_bitmap_ref ref() noexcept { return {words_.data(), counts_.data(), universe_}; }
  [[nodiscard]] const std::uint32_t* words() const noexcept { return words_.data(); }
  [[nodiscard]] const std::uint32_t* chunk_counts() const noexcept { return counts_.data(); }

  void clear_async(cudaStream_t stream = nullptr);
  /// Every element of the universe.
  void fill_async(cudaStream_t stream = nullptr);

  /// Adds / removes the n elements at d_elements (duplicates allowed).
  void insert_async(const std::uint32_t* d_elements, std::size_t n, cudaStream_t stream = nullptr);
  void insert(const std::uint32_t* d_elements, std::size_t n, cudaStream_t stream = nullptr);
  void erase_async(const std::uint32_t* d_elements, std::size_t n, cudaStream_t stream = nullptr);
  void erase(const std::uint32_t* d_elements, std::size_t n, cudaStream_t stream = nullptr);
  /// d_found[i] = 1 if d_elements[i] is in the set (0 also for elements outside the universe).
  void contains_async(const std::uint32_t* d_elements, std::size_t n, std::uint8_t* d_found,
                      cudaStream_t stream = nullptr) const;

  /// Number of elements (a sum of chunk counts).
  [[nodiscard]] std::uint64_t count(cudaStream_t stream = nullptr) const;
  /// Number of elements in [first, last).
  [[nodiscard]] std::uint64_t count_range(std::uint64_t first, std::uint64_t last, cudaStream_t stream = nullptr) const;
  /// Writes the elements in ascending order; d_out must hold count() values. Returns how many.
  std::uint64_t to_sorted_array(std::uint32_t* d_out, cudaStream_t stream = nullptr) const;
  /// A set from unsorted elements (duplicates allowed).
  static dense_bitmap from_array(const std::uint32_t* d_elements, std::size_t n, std::uint64_t universe,
                                 cudaStream_t stream = nullptr);

 private:
  friend void set_algebra_async(const dense_bitmap&, const dense_bitmap&, set_op, dense_bitmap&, cudaStream_t);
  friend std::uint64_t set_algebra_count(const dense_bitmap&, const dense_bitmap&, set_op, cudaStream_t);
  void throw_if_out_of_range(const char* what, cudaStream_t stream) const;

  std::uint64_t universe_ = 0;
  device_buffer<std::uint32_t> words_;
  device_buffer<std::uint32_t> counts_;                ///< one per chunk
  mutable device_buffer<unsigned long long> scratch_;  ///< [0] out-of-range count, [1] a result count
};

/// out = a op b, chunk by chunk. out may be a or b (the in-place forms
/// a &= b, a |= b, a -= b, a ^= b): chunks the result leaves unchanged are then
/// not written at all. All three share one universe.
void set_algebra_async(const dense_bitmap& a, const dense_bitmap& b, set_op op, dense_bitmap& out,
                       cudaStream_t stream = nullptr);
/// |a op b| without materializing it; reads only chunks that can contribute.
std::uint64_t set_algebra_count(const dense_bitmap& a, const dense_bitmap& b, set_op op, cudaStream_t stream = nullptr);

}  // namespace graphkit

#include "primitives/bitmap/detail/dense_bitmap_impl.cuh"
