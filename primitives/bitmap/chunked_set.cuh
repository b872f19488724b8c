// A chunked, Roaring-like GPU set over universes of up to 2^32 elements: the
// dense bitmap's 2^16-bit chunks, but only partial chunks own storage. Each
// chunk's state takes two bits (empty, full, partial, or busy while a thread
// gives it storage); a partial chunk's 8 KB of words come from a device pool
// of fixed-size blocks that kernels take from and give back to through a
// circular free queue driven by atomicAdd. Memory follows the number of
// partial chunks, not the universe: a set of a few clustered runs costs a few
// blocks where the dense form costs universe / 8 bytes.
//
// Pool discipline: a kernel either takes blocks or gives them back, never
// both, so the queue's two counters never race each other. Operations that
// free storage (an erase that empties a chunk, a set-algebra result that turns
// out empty or full) do it in a second, "normalize" kernel. Free blocks are
// kept all-zero, so a block is ready when taken. When the pool runs dry the
// synchronous calls throw graphkit::device_memory_error naming the pool's
// size; the set is then unspecified until clear().
//
// The same element operations (insert, erase, contains), counts, conversion
// to a sorted array and to / from the dense form, and the same set algebra
// (each op also count-only) as dense_bitmap, chunk by chunk: states alone
// decide most chunks (an AND with an empty chunk is empty, an OR with a full
// one is full, ...), and only partial-with-partial chunks read words.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include <cuda_runtime_api.h>

#include "primitives/bitmap/dense_bitmap.cuh"
#include "primitives/common/device_buffer.hpp"

namespace graphkit {

enum chunk_state : std::uint32_t { kChunkEmpty = 0, kChunkFull = 1, kChunkPartial = 2, kChunkBusy = 3 };
inline constexpr std::uint32_t kNoBlock = 0xffffffffu;

/// The block pool as kernels see it.
struct block_pool_ref {
  std::uint32_t* words;      ///< capacity blocks of kBitmapWordsPerChunk words; free blocks are all zero
  std::uint32_t* queue;      ///< capacity entries: ids of free blocks, a ring
  unsigned long long* head;  ///< tickets taken (allocations)
  unsigned long long* tail;  ///< tickets given back, plus the initial capacity
  std::uint32_t capacity;
  unsigned long long* dry;  ///< allocations that found the pool empty

  /// A free block's id, or kNoBlock (counted in *dry). Only in take-kernels.
  __device__ std::uint32_t take() const {
    const unsigned long long ticket = atomicAdd(head, 1ull);
    if (ticket >= *reinterpret_cast<volatile unsigned long long*>(tail)) {
      atomicAdd(dry, 1ull);
      return kNoBlock;
    }
    return queue[ticket % capacity];
  }
  /// Returns an all-zero block. Only in give-back kernels.
  __device__ void give_back(std::uint32_t block) const {
    const unsigned long long ticket = atomicAdd(tail, 1ull);
    queue[ticket % capacity] = block;
  }
  [[nodiscard]] __device__ std::uint32_t* block_words(std::uint32_t block) const {
    return words + std::size_t{block} * kBitmapWordsPerChunk;
  }
};

/// What a kernel takes to update or read the set.
struct chunked_set_ref {
  std::uint32_t* states;    ///< two bits per chunk, 16 chunks a word
  std::uint32_t* block_of;  ///< per chunk: its pool block (partial chunks only)
  std::uint32_t* counts;    ///< per chunk: elements present
  std::uint64_t universe;
  block_pool_ref pool;

  [[nodiscard]] __device__ std::uint32_t num_chunks() const {
    return static_cast<std::uint32_t>((universe + kBitmapChunkBits - 1) / kBitmapChunkBits);
  }
  /// Bits of chunk c inside the universe (the last chunk may be short).
  [[nodiscard]] __device__ std::uint32_t chunk_bits(std::uint32_t c) const {
    const std::uint64_t rest = universe - std::uint64_t{c} * kBitmapChunkBits;
    return rest < kBitmapChunkBits ? static_cast<std::uint32_t>(rest) : kBitmapChunkBits;
  }
  [[nodiscard]] __device__ std::uint32_t state(std::uint32_t c) const {
    const std::uint32_t word = *reinterpret_cast<volatile std::uint32_t*>(&states[c >> 4]);
    return (word >> ((c & 15) * 2)) & 3u;
  }
  /// Moves chunk c from state `from` to `to`; false if it was not in `from`.
  __device__ bool change_state(std::uint32_t c, std::uint32_t from, std::uint32_t to) const {
    const unsigned shift = (c & 15) * 2;
    std::uint32_t seen = *reinterpret_cast<volatile std::uint32_t*>(&states[c >> 4]);
    for (;;) {
      if (((seen >> shift) & 3u) != from) return false;
      const std::uint32_t next = (seen & ~(3u << shift)) | (to << shift);
      const std::uint32_t old = atomicCAS(&states[c >> 4], seen, next);
      if (old == seen) return true;
      seen = old;
    }
  }

  [[nodiscard]] __device__ bool contains(std::uint32_t x) const {
    if (x >= universe) return false;
    const std::uint32_t c = x >> 16, s = state(c);
    if (s != kChunkPartial) return s == kChunkFull;
    const std::uint32_t* w = pool.block_words(block_of[c]);
    return (w[(x & 0xffffu) >> 5] >> (x & 31)) & 1u;
  }

  /// Adds x; true if it was absent. An empty chunk takes a block first (the
  /// one thread that wins the move to busy does; the others wait for it).
  /// Call only from take-kernels. Returns false as well when the pool is dry.
  __device__ bool insert(std::uint32_t x) const {
    const std::uint32_t c = x >> 16;
    for (;;) {
      const std::uint32_t s = state(c);
      if (s == kChunkFull) return false;
      if (s == kChunkPartial) {
        std::uint32_t* w = pool.block_words(*reinterpret_cast<volatile std::uint32_t*>(&block_of[c]));
        const std::uint32_t bit = 1u << (x & 31);
        if (atomicOr(&w[(x & 0xffffu) >> 5], bit) & bit) return false;
        atomicAdd(&counts[c], 1u);
        return true;
      }
      if (s == kChunkEmpty && change_state(c, kChunkEmpty, kChunkBusy)) {
        const std::uint32_t block = pool.take();
        if (block == kNoBlock) {
          change_state(c, kChunkBusy, kChunkEmpty);
          return false;
        }
        block_of[c] = block;
        counts[c] = 0;
        __threadfence();
        change_state(c, kChunkBusy, kChunkPartial);
      }
      // busy: another thread is giving the chunk storage; look again
    }
  }

  /// Removes x; true if it was present. A full chunk takes a block of ones
  /// first. Call only from take-kernels; empty chunks are given back later.
  __device__ bool erase(std::uint32_t x) const {
    if (x >= universe) return false;
    const std::uint32_t c = x >> 16;
    for (;;) {
      const std::uint32_t s = state(c);
      if (s == kChunkEmpty) return false;
      if (s == kChunkPartial) {
        std::uint32_t* w = pool.block_words(*reinterpret_cast<volatile std::uint32_t*>(&block_of[c]));
        const std::uint32_t bit = 1u << (x & 31);
        if (!(atomicAnd(&w[(x & 0xffffu) >> 5], ~bit) & bit)) return false;
        atomicSub(&counts[c], 1u);
        return true;
      }
      if (s == kChunkFull && change_state(c, kChunkFull, kChunkBusy)) {
        const std::uint32_t block = pool.take();
        if (block == kNoBlock) {
          change_state(c, kChunkBusy, kChunkFull);
          return false;
        }
        std::uint32_t* w = pool.block_words(block);
        const std::uint32_t bits = chunk_bits(c);
        for (std::uint32_t i = 0; i < kBitmapWordsPerChunk; ++i) {
          const std::uint32_t first = i * 32;
          w[i] = first + 32 <= bits ? ~0u : first >= bits ? 0u : (1u << (bits - first)) - 1;
        }
        block_of[c] = block;
        counts[c] = bits;
        __threadfence();
        change_state(c, kChunkBusy, kChunkPartial);
      }
    }
  }
};

class chunked_set {
 public:
  /// An empty set over [0, universe) whose pool holds `pool_blocks` chunks'
  /// storage (8 KB each): the most partial chunks it can have at once.
  chunked_set(std::uint64_t universe, std::uint32_t pool_blocks, cudaStream_t stream = nullptr);

  [[nodiscard]] std::uint64_t universe() const noexcept { return universe_; }
  [[nodiscard]] std::uint32_t num_chunks() const noexcept { return static_cast<std::uint32_t>(counts_.size()); }
  [[nodiscard]] std::uint32_t pool_blocks() const noexcept { return pool_capacity_; }
  [[nodiscard]] chunked_set_ref ref() noexcept;

  /// Device bytes: chunk metadata plus the whole pool (allocated up front).
  [[nodiscard]] std::size_t memory_bytes() const noexcept;
  /// Pool blocks in use (partial chunks).
  [[nodiscard]] std::uint64_t blocks_in_use(cudaStream_t stream = nullptr) const;

  void clear(cudaStream_t stream = nullptr);
  /// Adds / removes the n elements at d_elements (duplicates allowed). Throws
  /// graphkit::error for elements outside the universe, device_memory_error
  /// when the pool runs dry.
  void insert(const std::uint32_t* d_elements, std::size_t n, cudaStream_t stream = nullptr);
  void erase(const std::uint32_t* d_elements, std::size_t n, cudaStream_t stream = nullptr);
  void contains_async(const std::uint32_t* d_elements, std::size_t n, std::uint8_t* d_found,
                      cudaStream_t stream = nullptr) const;

  [[nodiscard]] std::uint64_t count(cudaStream_t stream = nullptr) const;
  /// Writes the elements in ascending order (d_out holds count()); returns how many.
  std::uint64_t to_sorted_array(std::uint32_t* d_out, cudaStream_t stream = nullptr) const;
  void to_dense(dense_bitmap& out, cudaStream_t stream = nullptr) const;
  /// Replaces the contents with a dense bitmap's (same universe).
  void assign(const dense_bitmap& in, cudaStream_t stream = nullptr);

 private:
  friend void set_algebra(const chunked_set&, const chunked_set&, set_op, chunked_set&, cudaStream_t);
  friend std::uint64_t set_algebra_count(const chunked_set&, const chunked_set&, set_op, cudaStream_t);
  [[nodiscard]] chunked_set_ref ref() const noexcept { return const_cast<chunked_set*>(this)->ref(); }
  void normalize(cudaStream_t stream);  // gives back the storage of chunks now empty or full
  void throw_if_dry(const char* what, cudaStream_t stream) const;

  std::uint64_t universe_;
  std::uint32_t pool_capacity_;
  device_buffer<std::uint32_t> states_, block_of_, counts_;
  device_buffer<std::uint32_t> pool_words_, pool_queue_;
  device_buffer<unsigned long long> pool_counters_;  ///< head, tail, dry, scratch, a count's total
};

/// out = a op b, chunk by chunk (all three share one universe; out must be
/// neither a nor b). Throws device_memory_error when out's pool runs dry.
void set_algebra(const chunked_set& a, const chunked_set& b, set_op op, chunked_set& out,
                 cudaStream_t stream = nullptr);
/// |a op b|, reading only the chunks whose states do not decide it.
std::uint64_t set_algebra_count(const chunked_set& a, const chunked_set& b, set_op op, cudaStream_t stream = nullptr);

}  // namespace graphkit

#include "primitives/bitmap/detail/chunked_set_impl.cuh"
