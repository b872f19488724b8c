// Kernels and host side of dense_bitmap. One block of 256 threads per chunk
// for the chunk-level passes: 2,048 words, 8 per thread, two 16-byte loads.
#pragma once

#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <string>
#include <type_traits>

#include "primitives/bitmap/detail/busy_chunks.cuh"
#include "primitives/common/error.hpp"
#include "primitives/common/launch.hpp"

namespace graphkit {
namespace bitmap_detail {

inline constexpr int kChunkThreads = 256;
inline constexpr int kWordsPerThread = kBitmapWordsPerChunk / kChunkThreads;  // 8
static_assert(kWordsPerThread % 4 == 0, "two uint4 per thread");

/// Bits of the universe inside chunk c: 2^16 except in a last, partial chunk.
__host__ __device__ inline std::uint32_t chunk_capacity(std::uint64_t universe, std::uint64_t c) {
  const std::uint64_t first = c * kBitmapChunkBits;
  const std::uint64_t left = universe - first;
  return static_cast<std::uint32_t>(left < kBitmapChunkBits ? left : kBitmapChunkBits);
}

/// The valid bits of word w (all of them but in the universe's last word).
__device__ inline std::uint32_t word_mask(std::uint64_t universe, std::uint64_t w) {
  const std::uint64_t first = w * 32;
  if (first >= universe) return 0;
  const std::uint64_t bits = universe - first;
  return bits >= 32 ? ~0u : (1u << bits) - 1u;
}

__device__ inline void count_out_of_range(bool bad, unsigned long long* counter) {
  const unsigned votes = __ballot_sync(0xffffffffu, bad);
  if (votes != 0 && (threadIdx.x & 31) == 0) atomicAdd(counter, static_cast<unsigned long long>(__popc(votes)));
}

enum class element_op { insert, erase };

template <element_op Op>
__global__ void update_elements(dense_bitmap_ref set, const std::uint32_t* elements, std::size_t n,
                                unsigned long long* out_of_range) {
  for (std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;; i += std::size_t{gridDim.x} * blockDim.x) {
    const bool active = i < n;  // the whole warp stays in the loop for the vote
    if (__all_sync(0xffffffffu, !active)) return;
    bool bad = false;
    if (active) {
      const std::uint32_t x = elements[i];
      bad = x >= set.universe;
      if (!bad) {
        if constexpr (Op == element_op::insert) set.insert(x);
        else set.erase(x);
      }
    }
    count_out_of_range(bad, out_of_range);
  }
}

static __global__ void contains_elements(dense_bitmap_ref set, const std::uint32_t* elements, std::size_t n,
                                         std::uint8_t* found) {
  for (std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x)
    found[i] = set.contains(elements[i]) ? 1 : 0;
}

static __global__ void fill_words(std::uint32_t* words, std::size_t num_words, std::uint64_t universe) {
  for (std::size_t w = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x; w < num_words;
       w += std::size_t{gridDim.x} * blockDim.x)
    words[w] = word_mask(universe, w);
}

static __global__ void fill_counts(std::uint32_t* counts, std::size_t num_chunks, std::uint64_t universe) {
  for (std::size_t c = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x; c < num_chunks;
       c += std::size_t{gridDim.x} * blockDim.x)
    counts[c] = chunk_capacity(universe, c);
}

static __global__ void sum_counts(const std::uint32_t* counts, std::size_t num_chunks, unsigned long long* total) {
  using reduce = cub::BlockReduce<unsigned long long, kChunkThreads>;
  __shared__ typename reduce::TempStorage storage;
  unsigned long long sum = 0;
  for (std::size_t c = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x; c < num_chunks;
       c += std::size_t{gridDim.x} * blockDim.x)
    sum += counts[c];
  sum = reduce(storage).Sum(sum);
  if (threadIdx.x == 0 && sum != 0) atomicAdd(total, sum);
}

/// Elements in [first, last): whole chunks by their count, partial ones by popcount.
static __global__ void count_range_kernel(const std::uint32_t* words, const std::uint32_t* counts, std::uint64_t first,
                                          std::uint64_t last, unsigned long long* total) {
  using reduce = cub::BlockReduce<unsigned long long, kChunkThreads>;
  __shared__ typename reduce::TempStorage storage;
  const std::uint64_t c = first / kBitmapChunkBits + blockIdx.x;
  const std::uint64_t chunk_first = c * kBitmapChunkBits, chunk_last = chunk_first + kBitmapChunkBits;
  if (first <= chunk_first && chunk_last <= last) {
    if (threadIdx.x == 0 && counts[c] != 0) atomicAdd(total, static_cast<unsigned long long>(counts[c]));
    return;
  }
  unsigned long long sum = 0;
  for (int k = 0; k < kWordsPerThread; ++k) {
    const std::uint64_t w = c * kBitmapWordsPerChunk + threadIdx.x * kWordsPerThread + k;
    const std::uint64_t lo = w * 32;
    std::uint32_t mask = ~0u;
    if (lo + 32 <= first || lo >= last) mask = 0;
    else {
      if (lo < first) mask &= ~0u << (first - lo);
      if (lo + 32 > last) mask &= ~0u >> (lo + 32 - last);
    }
    if (mask) sum += __popc(words[w] & mask);
  }
  sum = reduce(storage).Sum(sum);
  if (threadIdx.x == 0 && sum != 0) atomicAdd(total, sum);
}

static __global__ void widen_counts(const std::uint32_t* counts, std::size_t num_chunks, std::uint64_t* wide) {
  for (std::size_t c = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x; c < num_chunks;
       c += std::size_t{gridDim.x} * blockDim.x)
    wide[c] = counts[c];
}

/// One block per non-empty chunk writes its elements at the chunk's offset,
/// each thread a sorted run of its 8 words.
static __global__ void chunk_to_array(const std::uint32_t* words, const std::uint32_t* counts,
                                      const std::uint64_t* offsets, std::uint32_t* out) {
  using scan = cub::BlockScan<std::uint32_t, kChunkThreads>;
  __shared__ typename scan::TempStorage storage;
  const std::uint64_t c = blockIdx.x;
  if (counts[c] == 0) return;
  const uint4* vectors = reinterpret_cast<const uint4*>(words + c * kBitmapWordsPerChunk) + threadIdx.x * 2;
  const uint4 v0 = vectors[0], v1 = vectors[1];
  const std::uint32_t w[8] = {v0.x, v0.y, v0.z, v0.w, v1.x, v1.y, v1.z, v1.w};
  std::uint32_t mine = 0;
#pragma unroll
  for (int k = 0; k < 8; ++k) mine += __popc(w[k]);
  std::uint32_t at = 0;
  scan(storage).ExclusiveSum(mine, at);
  std::uint64_t position = offsets[c] + at;
  const std::uint64_t base = c * kBitmapChunkBits + std::uint64_t{threadIdx.x} * 8 * 32;
#pragma unroll
  for (int k = 0; k < 8; ++k) {
    for (std::uint32_t bits = w[k]; bits != 0; bits &= bits - 1)
      out[position++] = static_cast<std::uint32_t>(base + k * 32 + __ffs(bits) - 1);
  }
}

// ---- set algebra ------------------------------------------------------------

enum class chunk_plan { zero, copy_a, copy_b, ones, compute };

/// What a chunk of a op b is, from the operands' counts alone.
__device__ inline chunk_plan plan_chunk(set_op op, std::uint32_t ca, std::uint32_t cb, std::uint32_t capacity) {
  switch (op) {
    case set_op::intersection:
      if (ca == 0 || cb == 0) return chunk_plan::zero;
      if (ca == capacity) return chunk_plan::copy_b;
      if (cb == capacity) return chunk_plan::copy_a;
      return chunk_plan::compute;
    case set_op::union_:
      if (ca == 0) return chunk_plan::copy_b;
      if (cb == 0) return chunk_plan::copy_a;
      if (ca == capacity || cb == capacity) return chunk_plan::ones;
      return chunk_plan::compute;
    case set_op::difference:
      if (ca == 0 || cb == capacity) return chunk_plan::zero;
      if (cb == 0) return chunk_plan::copy_a;
      return chunk_plan::compute;
    case set_op::symmetric:
      if (ca == 0) return chunk_plan::copy_b;
      if (cb == 0) return chunk_plan::copy_a;
      return chunk_plan::compute;
  }
  return chunk_plan::compute;
}

__device__ inline std::uint32_t popc(uint4 v) { return __popc(v.x) + __popc(v.y) + __popc(v.z) + __popc(v.w); }

/// Whether chunk c of out = a op b needs writing: with out aliasing an
/// operand, chunks whose result is that operand are left alone.
__device__ inline bool algebra_writes(set_op op, std::uint32_t ca, std::uint32_t cb, std::uint32_t capacity,
                                      bool out_is_a, bool out_is_b) {
  const chunk_plan plan = plan_chunk(op, ca, cb, capacity);
  if ((plan == chunk_plan::copy_a && out_is_a) || (plan == chunk_plan::copy_b && out_is_b)) return false;
  return !(plan == chunk_plan::zero && ((out_is_a && ca == 0) || (out_is_b && cb == 0)));
}

/// The popcount of v summed over the warp, added to *total by lane 0.
__device__ inline void warp_add(std::uint32_t v, std::uint32_t* total) {
  v = __reduce_add_sync(~0u, v);
  if (threadIdx.x % 32 == 0 && v != 0) atomicAdd(total, v);
}

/// out = a op b over the chunks that need writing (see busy_chunks.cuh). The
/// voting lane reads the chunk's counts (stashing them for the block, since
/// out_counts may alias an operand's), writes the result's count when the
/// counts decide it and zero when it must be computed; computed chunks then
/// get their count from one atomicAdd per warp.
template <set_op op>
__global__ void __launch_bounds__(kChunkThreads)
    algebra_chunks(const std::uint32_t* a_words, const std::uint32_t* a_counts, const std::uint32_t* b_words,
                   const std::uint32_t* b_counts, std::uint32_t* out_words, std::uint32_t* out_counts,
                   std::uint64_t universe, std::uint64_t chunks, std::uint32_t group, bool out_is_a, bool out_is_b) {
  __shared__ std::uint32_t stash_a[32], stash_b[32];
  auto needs = [&](std::uint64_t c, unsigned lane) {
    const std::uint32_t ca = a_counts[c], cb = b_counts[c], capacity = chunk_capacity(universe, c);
    if (!algebra_writes(op, ca, cb, capacity, out_is_a, out_is_b)) return false;
    stash_a[lane] = ca, stash_b[lane] = cb;
    std::uint32_t count = 0;
    switch (plan_chunk(op, ca, cb, capacity)) {
      case chunk_plan::zero:
      case chunk_plan::compute: break;
      case chunk_plan::copy_a: count = ca; break;
      case chunk_plan::copy_b: count = cb; break;
      case chunk_plan::ones: count = capacity; break;
    }
    out_counts[c] = count;
    return true;
  };
  for_each_busy_chunk<false>(chunks, group, needs, [&](std::uint64_t c, unsigned lane) {
    const chunk_plan plan = plan_chunk(op, stash_a[lane], stash_b[lane], chunk_capacity(universe, c));
    const std::size_t offset = c * kBitmapWordsPerChunk / 4 + threadIdx.x * 2;  // in uint4
    const uint4* a = reinterpret_cast<const uint4*>(a_words) + offset;
    const uint4* b = reinterpret_cast<const uint4*>(b_words) + offset;
    uint4* out = reinterpret_cast<uint4*>(out_words) + offset;
    switch (plan) {
      case chunk_plan::zero: out[0] = out[1] = make_uint4(0, 0, 0, 0); break;
      case chunk_plan::copy_a: out[0] = a[0], out[1] = a[1]; break;
      case chunk_plan::copy_b: out[0] = b[0], out[1] = b[1]; break;
      case chunk_plan::ones: {
        const std::uint64_t w = c * kBitmapWordsPerChunk + threadIdx.x * kWordsPerThread;
        out[0] = {word_mask(universe, w), word_mask(universe, w + 1), word_mask(universe, w + 2),
                  word_mask(universe, w + 3)};
        out[1] = {word_mask(universe, w + 4), word_mask(universe, w + 5), word_mask(universe, w + 6),
                  word_mask(universe, w + 7)};
        break;
      }
      case chunk_plan::compute: {
        const uint4 a0 = a[0], a1 = a[1], b0 = b[0], b1 = b[1];
        const uint4 r0 = apply(op, a0, b0), r1 = apply(op, a1, b1);
        out[0] = r0, out[1] = r1;
        warp_add(popc(r0) + popc(r1), &out_counts[c]);
        break;
      }
    }
  });
}

/// |a op b|: chunks decided by their counts are summed by the voting lane
/// and never read; each thread sums its words of the others, and the block
/// adds its total once at the end.
template <set_op op>
__global__ void __launch_bounds__(kChunkThreads)
    algebra_count_chunks(const std::uint32_t* a_words, const std::uint32_t* a_counts, const std::uint32_t* b_words,
                         const std::uint32_t* b_counts, std::uint64_t universe, std::uint64_t chunks,
                         std::uint32_t group, unsigned long long* total) {
  using reduce = cub::BlockReduce<unsigned long long, kChunkThreads>;
  __shared__ typename reduce::TempStorage storage;
  unsigned long long mine = 0;
  auto needs = [&](std::uint64_t c, unsigned) {
    const std::uint32_t ca = a_counts[c], cb = b_counts[c], capacity = chunk_capacity(universe, c);
    switch (plan_chunk(op, ca, cb, capacity)) {
      case chunk_plan::compute: return true;
      case chunk_plan::zero: break;
      case chunk_plan::copy_a: mine += ca; break;
      case chunk_plan::copy_b: mine += cb; break;
      case chunk_plan::ones: mine += capacity; break;
    }
    return false;
  };
  for_each_busy_chunk<false>(chunks, group, needs, [&](std::uint64_t c, unsigned) {
    const std::size_t offset = c * kBitmapWordsPerChunk / 4 + threadIdx.x * 2;
    const uint4* a = reinterpret_cast<const uint4*>(a_words) + offset;
    const uint4* b = reinterpret_cast<const uint4*>(b_words) + offset;
    mine += popc(apply(op, a[0], b[0])) + popc(apply(op, a[1], b[1]));
  });
  const unsigned long long sum = reduce(storage).Sum(mine);
  if (threadIdx.x == 0 && sum != 0) atomicAdd(total, sum);
}

/// Calls launch(std::integral_constant<set_op, op>{}) for the run-time op, so
/// that kernels get the operation as a constant (the run-time switch in the
/// word loop cost a third of the count-only kernels' speed).
template <class Launch>
void dispatch_op(set_op op, Launch&& launch) {
  switch (op) {
    case set_op::intersection: return launch(std::integral_constant<set_op, set_op::intersection>{});
    case set_op::union_: return launch(std::integral_constant<set_op, set_op::union_>{});
    case set_op::difference: return launch(std::integral_constant<set_op, set_op::difference>{});
    case set_op::symmetric: return launch(std::integral_constant<set_op, set_op::symmetric>{});
  }
}

inline unsigned grid_for(std::size_t items, unsigned threads = 256) {
  return std::min(graphkit::blocks_for(items, threads), 65535u * 32);
}

}  // namespace bitmap_detail

// ---- dense_bitmap -----------------------------------------------------------------

inline dense_bitmap::dense_bitmap(std::uint64_t universe, cudaStream_t stream) : universe_(universe), scratch_(2) {
  if (universe > kBitmapMaxUniverse)
    throw error("dense_bitmap: universe " + std::to_string(universe) + " exceeds 2^32 elements");
  const std::size_t chunks = (universe + kBitmapChunkBits - 1) / kBitmapChunkBits;
  words_ = device_buffer<std::uint32_t>(chunks * kBitmapWordsPerChunk);  // whole chunks; padding stays 0
  counts_ = device_buffer<std::uint32_t>(chunks);
  clear_async(stream);
}

inline void dense_bitmap::clear_async(cudaStream_t stream) {
  if (words_.empty()) return;
  GRAPHKIT_CUDA_TRY(cudaMemsetAsync(words_.data(), 0, words_.bytes(), stream));
  GRAPHKIT_CUDA_TRY(cudaMemsetAsync(counts_.data(), 0, counts_.bytes(), stream));
}

inline void dense_bitmap::fill_async(cudaStream_t stream) {
  if (words_.empty()) return;
  bitmap_detail::fill_words<<<bitmap_detail::grid_for(num_words()), 256, 0, stream>>>(words_.data(), num_words(),
                                                                                      universe_);
  GRAPHKIT_CHECK_LAUNCH();
  bitmap_detail::fill_counts<<<bitmap_detail::grid_for(num_chunks()), 256, 0, stream>>>(counts_.data(), num_chunks(),
                                                                                        universe_);
  GRAPHKIT_CHECK_LAUNCH();
}

inline void dense_bitmap::insert_async(const std::uint32_t* d_elements, std::size_t n, cudaStream_t stream) {
  GRAPHKIT_CUDA_TRY(cudaMemsetAsync(scratch_.data(), 0, sizeof(unsigned long long), stream));
  if (n == 0) return;
  bitmap_detail::update_elements<bitmap_detail::element_op::insert>
      <<<bitmap_detail::grid_for(n), 256, 0, stream>>>(ref(), d_elements, n, scratch_.data());
  GRAPHKIT_CHECK_LAUNCH();
}

inline void dense_bitmap::erase_async(const std::uint32_t* d_elements, std::size_t n, cudaStream_t stream) {
  GRAPHKIT_CUDA_TRY(cudaMemsetAsync(scratch_.data(), 0, sizeof(unsigned long long), stream));
  if (n == 0) return;
  bitmap_detail::update_elements<bitmap_detail::element_op::erase>
      <<<bitmap_detail::grid_for(n), 256, 0, stream>>>(ref(), d_elements, n, scratch_.data());
  GRAPHKIT_CHECK_LAUNCH();
}

inline void dense_bitmap::throw_if_out_of_range(const char* what, cudaStream_t stream) const {
  unsigned long long bad = 0;
  GRAPHKIT_CUDA_TRY(cudaMemcpyAsync(&bad, scratch_.data(), sizeof bad, cudaMemcpyDeviceToHost, stream));
  GRAPHKIT_CUDA_TRY(cudaStreamSynchronize(stream));
  if (bad != 0)
    throw error(std::string("dense_bitmap::") + what + ": " + std::to_string(bad) + " elements are outside [0, " +
                std::to_string(universe_) + ")");
}

inline void dense_bitmap::insert(const std::uint32_t* d_elements, std::size_t n, cudaStream_t stream) {
  insert_async(d_elements, n, stream);
  throw_if_out_of_range("insert", stream);
}

inline void dense_bitmap::erase(const std::uint32_t* d_elements, std::size_t n, cudaStream_t stream) {
  erase_async(d_elements, n, stream);
  throw_if_out_of_range("erase", stream);
}

inline void dense_bitmap::contains_async(const std::uint32_t* d_elements, std::size_t n, std::uint8_t* d_found,
                                         cudaStream_t stream) const {
  if (n == 0) return;
  const dense_bitmap_ref r{const_cast<std::uint32_t*>(words_.data()), const_cast<std::uint32_t*>(counts_.data()),
                           universe_};
  bitmap_detail::contains_elements<<<bitmap_detail::grid_for(n), 256, 0, stream>>>(r, d_elements, n, d_found);
  GRAPHKIT_CHECK_LAUNCH();
}

namespace bitmap_detail {
// Runs `launch(total)` against a zeroed device counter and returns it.
template <class Launch>
std::uint64_t device_total(const device_buffer<unsigned long long>& scratch, cudaStream_t stream, Launch&& launch) {
  auto* total = const_cast<unsigned long long*>(scratch.data()) + 1;
  GRAPHKIT_CUDA_TRY(cudaMemsetAsync(total, 0, sizeof(unsigned long long), stream));
  launch(total);
  unsigned long long result = 0;
  GRAPHKIT_CUDA_TRY(cudaMemcpyAsync(&result, total, sizeof result, cudaMemcpyDeviceToHost, stream));
  GRAPHKIT_CUDA_TRY(cudaStreamSynchronize(stream));
  return result;
}
}  // namespace bitmap_detail

inline std::uint64_t dense_bitmap::count(cudaStream_t stream) const {
  if (counts_.empty()) return 0;
  return bitmap_detail::device_total(scratch_, stream, [&](unsigned long long* total) {
    bitmap_detail::sum_counts<<<std::min<unsigned>(bitmap_detail::grid_for(num_chunks()), 1024), 256, 0, stream>>>(
        counts_.data(), num_chunks(), total);
    GRAPHKIT_CHECK_LAUNCH();
  });
}

inline std::uint64_t dense_bitmap::count_range(std::uint64_t first, std::uint64_t last, cudaStream_t stream) const {
  last = std::min(last, universe_);
  if (first >= last) return 0;
  const std::uint64_t chunks = (last - 1) / kBitmapChunkBits - first / kBitmapChunkBits + 1;
  return bitmap_detail::device_total(scratch_, stream, [&](unsigned long long* total) {
    bitmap_detail::count_range_kernel<<<static_cast<unsigned>(chunks), bitmap_detail::kChunkThreads, 0, stream>>>(
        words_.data(), counts_.data(), first, last, total);
    GRAPHKIT_CHECK_LAUNCH();
  });
}

inline std::uint64_t dense_bitmap::to_sorted_array(std::uint32_t* d_out, cudaStream_t stream) const {
  const std::uint64_t total = count(stream);
  if (total == 0) return 0;
  device_buffer<std::uint64_t> offsets(num_chunks());
  bitmap_detail::widen_counts<<<bitmap_detail::grid_for(num_chunks()), 256, 0, stream>>>(counts_.data(), num_chunks(),
                                                                                         offsets.data());
  GRAPHKIT_CHECK_LAUNCH();
  std::size_t temp_bytes = 0;
  GRAPHKIT_CUDA_TRY(
      cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, offsets.data(), offsets.data(), num_chunks(), stream));
  device_buffer<unsigned char> temp(std::max<std::size_t>(temp_bytes, 1));
  GRAPHKIT_CUDA_TRY(
      cub::DeviceScan::ExclusiveSum(temp.data(), temp_bytes, offsets.data(), offsets.data(), num_chunks(), stream));
  bitmap_detail::chunk_to_array<<<static_cast<unsigned>(num_chunks()), bitmap_detail::kChunkThreads, 0, stream>>>(
      words_.data(), counts_.data(), offsets.data(), d_out);
  GRAPHKIT_CHECK_LAUNCH();
  GRAPHKIT_CUDA_TRY(cudaStreamSynchronize(stream));
  return total;
}

inline dense_bitmap dense_bitmap::from_array(const std::uint32_t* d_elements, std::size_t n, std::uint64_t universe,
                                             cudaStream_t stream) {
  dense_bitmap set(universe, stream);
  set.insert(d_elements, n, stream);
  return set;
}

// ---- set algebra -------------------------------------------------------------------

namespace bitmap_detail {
inline void check_same_universe(const dense_bitmap& a, const dense_bitmap& b, const char* what) {
  if (a.universe() != b.universe())
    throw error(std::string(what) + ": universes differ (" + std::to_string(a.universe()) + " and " +
                std::to_string(b.universe()) + ")");
}
}  // namespace bitmap_detail

inline void set_algebra_async(const dense_bitmap& a, const dense_bitmap& b, set_op op, dense_bitmap& out,
                              cudaStream_t stream) {
  bitmap_detail::check_same_universe(a, b, "set_algebra");
  bitmap_detail::check_same_universe(a, out, "set_algebra");
  if (a.num_chunks() == 0) return;
  const bitmap_detail::busy_chunk_grid grid = bitmap_detail::plan_busy_chunks(a.num_chunks());
  bitmap_detail::dispatch_op(op, [&](auto constant) {
    bitmap_detail::algebra_chunks<decltype(constant)::value><<<grid.blocks, bitmap_detail::kChunkThreads, 0, stream>>>(
        a.words_.data(), a.counts_.data(), b.words_.data(), b.counts_.data(), out.words_.data(), out.counts_.data(),
        a.universe_, a.num_chunks(), grid.group, &out == &a, &out == &b);
  });
  GRAPHKIT_CHECK_LAUNCH();
}

inline std::uint64_t set_algebra_count(const dense_bitmap& a, const dense_bitmap& b, set_op op, cudaStream_t stream) {
  bitmap_detail::check_same_universe(a, b, "set_algebra_count");
  if (a.num_chunks() == 0) return 0;
  return bitmap_detail::device_total(a.scratch_, stream, [&](unsigned long long* total) {
    const bitmap_detail::busy_chunk_grid grid = bitmap_detail::plan_busy_chunks(a.num_chunks());
    bitmap_detail::dispatch_op(op, [&](auto constant) {
      bitmap_detail::algebra_count_chunks<decltype(constant)::value>
          <<<grid.blocks, bitmap_detail::kChunkThreads, 0, stream>>>(a.words_.data(), a.counts_.data(), b.words_.data(),
                                                                     b.counts_.data(), a.universe_, a.num_chunks(),
                                                                     grid.group, total);
    });
    GRAPHKIT_CHECK_LAUNCH();
  });
}

}  // namespace graphkit
