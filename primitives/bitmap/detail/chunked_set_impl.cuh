// Kernels and host side of chunked_set.
#pragma once

#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>

#include <numeric>
#include <string>

#include "primitives/bitmap/set_op.cuh"
#include "primitives/common/error.hpp"
#include "primitives/common/launch.hpp"

namespace graphkit {
namespace chunked_detail {

inline constexpr int kThreads = 256;
inline constexpr int kWordsPerThread = kBitmapWordsPerChunk / kThreads;  // 8
enum counter : int { kHead = 0, kTail = 1, kDry = 2, kScratch = 3, kTotal = 4, kCounters = 5 };

using graphkit::blocks_for;

/// Word i of chunk c as if every chunk had storage: zeros, ones (masked to the
/// universe), or the partial chunk's block.
__device__ inline std::uint32_t word_of(const chunked_set_ref& s, std::uint32_t c, std::uint32_t state,
                                        std::uint32_t i) {
  if (state == kChunkEmpty) return 0;
  if (state == kChunkFull) {
    const std::uint32_t bits = s.chunk_bits(c), first = i * 32;
    return first + 32 <= bits ? ~0u : first >= bits ? 0u : (1u << (bits - first)) - 1;
  }
  return s.pool.block_words(s.block_of[c])[i];
}

using bitmap_detail::apply;  // primitives/bitmap/set_op.cuh

/// The result chunk's state when the operands' states decide it, else kChunkPartial ("compute").
__device__ inline std::uint32_t decided(set_op op, std::uint32_t sa, std::uint32_t sb) {
  const bool ea = sa == kChunkEmpty, eb = sb == kChunkEmpty, fa = sa == kChunkFull, fb = sb == kChunkFull;
  switch (op) {
    case set_op::intersection: return ea || eb ? kChunkEmpty : fa && fb ? kChunkFull : kChunkPartial;
    case set_op::union_: return fa || fb ? kChunkFull : ea && eb ? kChunkEmpty : kChunkPartial;
    case set_op::difference: return ea || fb ? kChunkEmpty : fa && eb ? kChunkFull : kChunkPartial;
    case set_op::symmetric:
      if ((ea && eb) || (fa && fb)) return kChunkEmpty;
      return (ea && fb) || (fa && eb) ? kChunkFull : kChunkPartial;
  }
  return kChunkPartial;
}

static __global__ void init_pool_kernel(std::uint32_t* queue, std::uint32_t capacity) {
  const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (i < capacity) queue[i] = static_cast<std::uint32_t>(i);
}

static __global__ void insert_kernel(chunked_set_ref s, const std::uint32_t* elements, std::size_t n,
                                     unsigned long long* outside) {
  const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (i >= n) return;
  if (elements[i] >= s.universe) atomicAdd(outside, 1ull);
  else s.insert(elements[i]);
}

static __global__ void erase_kernel(chunked_set_ref s, const std::uint32_t* elements, std::size_t n,
                                    unsigned long long* outside) {
  const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (i >= n) return;
  if (elements[i] >= s.universe) atomicAdd(outside, 1ull);
  else s.erase(elements[i]);
}

static __global__ void contains_kernel(chunked_set_ref s, const std::uint32_t* elements, std::size_t n,
                                       std::uint8_t* found) {
  const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (i < n) found[i] = s.contains(elements[i]) ? 1 : 0;
}

/// A warp per chunk: a partial chunk now empty or full gives its block back
/// (zeroed) and takes that state. The only give-back kernel.
static __global__ void normalize_kernel(chunked_set_ref s) {
  const std::uint32_t c = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x & 31;
  if (c >= s.num_chunks() || s.state(c) != kChunkPartial) return;
  const std::uint32_t count = s.counts[c], bits = s.chunk_bits(c);
  if (count != 0 && count != bits) return;
  std::uint32_t* w = s.pool.block_words(s.block_of[c]);
  if (count == bits)
    for (std::uint32_t i = lane; i < kBitmapWordsPerChunk; i += 32) w[i] = 0;
  __syncwarp();
  if (lane == 0) {
    __threadfence();
    s.pool.give_back(s.block_of[c]);
    s.block_of[c] = kNoBlock;
    s.change_state(c, kChunkPartial, count == bits ? kChunkFull : kChunkEmpty);
  }
}

/// Elements per chunk (full chunks count their bits).
static __global__ void chunk_sizes_kernel(chunked_set_ref s, std::uint32_t* sizes) {
  const std::uint32_t c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= s.num_chunks()) return;
  const std::uint32_t st = s.state(c);
  sizes[c] = st == kChunkFull ? s.chunk_bits(c) : st == kChunkPartial ? s.counts[c] : 0;
}

/// A block per chunk: its elements, ascending, from offsets[c].
static __global__ void __launch_bounds__(kThreads)
    to_array_kernel(chunked_set_ref s, const std::uint64_t* offsets, std::uint32_t* out) {
  using scan = cub::BlockScan<std::uint32_t, kThreads>;
  __shared__ typename scan::TempStorage storage;
  const std::uint32_t c = blockIdx.x, st = s.state(c);
  if (st == kChunkEmpty) return;
  std::uint32_t words[kWordsPerThread], mine = 0;
  for (int k = 0; k < kWordsPerThread; ++k) {
    words[k] = word_of(s, c, st, threadIdx.x * kWordsPerThread + k);
    mine += __popc(words[k]);
  }
  std::uint32_t before = 0;
  scan(storage).ExclusiveSum(mine, before);
  std::uint32_t* dst = out + offsets[c] + before;
  for (int k = 0; k < kWordsPerThread; ++k) {
    const std::uint32_t base = (c << 16) + (threadIdx.x * kWordsPerThread + k) * 32;
    for (std::uint32_t w = words[k]; w != 0; w &= w - 1) *dst++ = base + __ffs(w) - 1;
  }
}

static __global__ void __launch_bounds__(kThreads) to_dense_kernel(chunked_set_ref s, dense_bitmap_ref d) {
  const std::uint32_t c = blockIdx.x, st = s.state(c);
  for (std::uint32_t i = threadIdx.x; i < kBitmapWordsPerChunk; i += kThreads) {
    const std::size_t at = std::size_t{c} * kBitmapWordsPerChunk + i;
    if (at * 32 < d.universe) d.words[at] = word_of(s, c, st, i);
  }
  if (threadIdx.x == 0) d.chunk_counts[c] = st == kChunkFull ? s.chunk_bits(c) : st == kChunkPartial ? s.counts[c] : 0;
}

/// A block per chunk of an empty set: the dense chunk's words, as a state or a block.
static __global__ void __launch_bounds__(kThreads)
    from_dense_kernel(chunked_set_ref s, const std::uint32_t* words, const std::uint32_t* dense_counts) {
  __shared__ std::uint32_t block;
  const std::uint32_t c = blockIdx.x, count = dense_counts[c], bits = s.chunk_bits(c);
  if (count == 0) return;
  if (count == bits) {
    if (threadIdx.x == 0) s.change_state(c, kChunkEmpty, kChunkFull);
    return;
  }
  if (threadIdx.x == 0) block = s.pool.take();
  __syncthreads();
  if (block == kNoBlock) return;
  std::uint32_t* w = s.pool.block_words(block);
  for (std::uint32_t i = threadIdx.x; i < kBitmapWordsPerChunk; i += kThreads) {
    const std::size_t at = std::size_t{c} * kBitmapWordsPerChunk + i;
    w[i] = at * 32 < s.universe ? words[at] : 0;
  }
  if (threadIdx.x == 0) {
    s.block_of[c] = block;
    s.counts[c] = count;
    s.change_state(c, kChunkEmpty, kChunkPartial);
  }
}

/// out = a op b over the chunks whose states do not decide it (see
/// busy_chunks.cuh); chunks decided full are marked by the voting lane. out's
/// chunks that come out empty or full are fixed by normalize_kernel after.
static __global__ void __launch_bounds__(kThreads)
    algebra_kernel(chunked_set_ref a, chunked_set_ref b, set_op op, chunked_set_ref out, std::uint32_t group) {
  using reduce = cub::BlockReduce<std::uint32_t, kThreads>;
  __shared__ typename reduce::TempStorage storage;
  __shared__ std::uint32_t block;
  auto needs = [&](std::uint64_t c64, unsigned) {
    const auto c = static_cast<std::uint32_t>(c64);
    const std::uint32_t result = decided(op, a.state(c), b.state(c));
    if (result == kChunkFull) out.change_state(c, kChunkEmpty, kChunkFull);
    return result == kChunkPartial;
  };
  bitmap_detail::for_each_busy_chunk<true>(out.num_chunks(), group, needs, [&](std::uint64_t c64, unsigned) {
    const auto c = static_cast<std::uint32_t>(c64);
    const std::uint32_t sa = a.state(c), sb = b.state(c);
    if (threadIdx.x == 0) block = out.pool.take();
    __syncthreads();
    if (block == kNoBlock) return;  // the whole block leaves: the dry pool is reported after
    std::uint32_t* w = out.pool.block_words(block);
    std::uint32_t mine = 0;
    for (std::uint32_t i = threadIdx.x; i < kBitmapWordsPerChunk; i += kThreads) {
      w[i] = apply(op, word_of(a, c, sa, i), word_of(b, c, sb, i));
      mine += __popc(w[i]);
    }
    const std::uint32_t total = reduce(storage).Sum(mine);
    if (threadIdx.x == 0) {
      out.block_of[c] = block;
      out.counts[c] = total;
      out.change_state(c, kChunkEmpty, kChunkPartial);
    }
  });
}

/// |a op b|: decided chunks are summed by the voting lane, the others by
/// each thread over its words; the block adds its total once at the end.
static __global__ void __launch_bounds__(kThreads)
    algebra_count_kernel(chunked_set_ref a, chunked_set_ref b, set_op op, unsigned long long* total,
                         std::uint32_t group) {
  using reduce = cub::BlockReduce<unsigned long long, kThreads>;
  __shared__ typename reduce::TempStorage storage;
  unsigned long long mine = 0;
  auto needs = [&](std::uint64_t c64, unsigned) {
    const auto c = static_cast<std::uint32_t>(c64);
    const std::uint32_t result = decided(op, a.state(c), b.state(c));
    if (result == kChunkFull) mine += a.chunk_bits(c);
    return result == kChunkPartial;
  };
  bitmap_detail::for_each_busy_chunk<false>(a.num_chunks(), group, needs, [&](std::uint64_t c64, unsigned) {
    const auto c = static_cast<std::uint32_t>(c64);
    const std::uint32_t sa = a.state(c), sb = b.state(c);
    for (std::uint32_t i = threadIdx.x; i < kBitmapWordsPerChunk; i += kThreads)
      mine += __popc(apply(op, word_of(a, c, sa, i), word_of(b, c, sb, i)));
  });
  const unsigned long long sum = reduce(storage).Sum(mine);
  if (threadIdx.x == 0 && sum > 0) atomicAdd(total, sum);
}

using graphkit::read_one;

}  // namespace chunked_detail

inline chunked_set::chunked_set(std::uint64_t universe, std::uint32_t pool_blocks, cudaStream_t stream)
    : universe_(universe),
      pool_capacity_(std::max<std::uint32_t>(pool_blocks, 1)),
      states_(std::max<std::size_t>((universe + kBitmapChunkBits - 1) / kBitmapChunkBits / 16 + 1, 1)),
      block_of_(std::max<std::size_t>((universe + kBitmapChunkBits - 1) / kBitmapChunkBits, 1)),
      counts_(std::max<std::size_t>((universe + kBitmapChunkBits - 1) / kBitmapChunkBits, 1)),
      pool_words_(std::size_t{pool_capacity_} * kBitmapWordsPerChunk),
      pool_queue_(pool_capacity_),
      pool_counters_(chunked_detail::kCounters) {
  if (universe > kBitmapMaxUniverse) throw error("chunked_set: the universe is at most 2^32 elements");
  clear(stream);
}

inline chunked_set_ref chunked_set::ref() noexcept {
  const block_pool_ref pool{pool_words_.data(),
                            pool_queue_.data(),
                            pool_counters_.data() + chunked_detail::kHead,
                            pool_counters_.data() + chunked_detail::kTail,
                            pool_capacity_,
                            pool_counters_.data() + chunked_detail::kDry};
  return {states_.data(), block_of_.data(), counts_.data(), universe_, pool};
}

inline std::size_t chunked_set::memory_bytes() const noexcept {
  return states_.bytes() + block_of_.bytes() + counts_.bytes() + pool_words_.bytes() + pool_queue_.bytes() +
         pool_counters_.bytes();
}

inline std::uint64_t chunked_set::blocks_in_use(cudaStream_t stream) const {
  std::vector<unsigned long long> c(2);
  GRAPHKIT_CUDA_TRY(
      cudaMemcpyAsync(c.data(), pool_counters_.data(), 2 * sizeof(unsigned long long), cudaMemcpyDeviceToHost, stream));
  GRAPHKIT_CUDA_TRY(cudaStreamSynchronize(stream));
  return pool_capacity_ - (c[chunked_detail::kTail] - c[chunked_detail::kHead]);
}

inline void chunked_set::clear(cudaStream_t stream) {
  states_.fill_bytes(0, stream);
  block_of_.fill_bytes(0xff, stream);
  counts_.fill_bytes(0, stream);
  pool_words_.fill_bytes(0, stream);
  chunked_detail::init_pool_kernel<<<chunked_detail::blocks_for(pool_capacity_), 256, 0, stream>>>(pool_queue_.data(),
                                                                                                   pool_capacity_);
  GRAPHKIT_CHECK_LAUNCH();
  const unsigned long long init[chunked_detail::kCounters] = {0, pool_capacity_, 0, 0, 0};
  GRAPHKIT_CUDA_TRY(cudaMemcpyAsync(pool_counters_.data(), init, sizeof init, cudaMemcpyHostToDevice, stream));
  GRAPHKIT_CUDA_TRY(cudaStreamSynchronize(stream));  // `init` lives on this stack frame
}

inline void chunked_set::normalize(cudaStream_t stream) {
  chunked_detail::normalize_kernel<<<chunked_detail::blocks_for(std::size_t{num_chunks()} * 32), 256, 0, stream>>>(
      ref());
  GRAPHKIT_CHECK_LAUNCH();
}

inline void chunked_set::throw_if_dry(const char* what, cudaStream_t stream) const {
  if (const auto dry = chunked_detail::read_one(pool_counters_.data() + chunked_detail::kDry, stream); dry != 0)
    throw device_memory_error(std::string("chunked_set::") + what + ": the block pool (" +
                              std::to_string(pool_capacity_) + " blocks of 8 KB) ran dry " + std::to_string(dry) +
                              " times; construct the set with a larger pool");
}

inline void chunked_set::insert(const std::uint32_t* d_elements, std::size_t n, cudaStream_t stream) {
  auto* outside = pool_counters_.data() + chunked_detail::kScratch;
  GRAPHKIT_CUDA_TRY(cudaMemsetAsync(outside, 0, sizeof *outside, stream));
  if (n > 0) {
    chunked_detail::insert_kernel<<<chunked_detail::blocks_for(n), 256, 0, stream>>>(ref(), d_elements, n, outside);
    GRAPHKIT_CHECK_LAUNCH();
    normalize(stream);
  }
  if (const auto bad = chunked_detail::read_one(outside, stream); bad != 0)
    throw error("chunked_set::insert: " + std::to_string(bad) + " elements outside the universe of " +
                std::to_string(universe_));
  throw_if_dry("insert", stream);
}

inline void chunked_set::erase(const std::uint32_t* d_elements, std::size_t n, cudaStream_t stream) {
  auto* outside = pool_counters_.data() + chunked_detail::kScratch;
  GRAPHKIT_CUDA_TRY(cudaMemsetAsync(outside, 0, sizeof *outside, stream));
  if (n > 0) {
    chunked_detail::erase_kernel<<<chunked_detail::blocks_for(n), 256, 0, stream>>>(ref(), d_elements, n, outside);
    GRAPHKIT_CHECK_LAUNCH();
    normalize(stream);
  }
  if (const auto bad = chunked_detail::read_one(outside, stream); bad != 0)
    throw error("chunked_set::erase: " + std::to_string(bad) + " elements outside the universe of " +
                std::to_string(universe_));
  throw_if_dry("erase", stream);
}

inline void chunked_set::contains_async(const std::uint32_t* d_elements, std::size_t n, std::uint8_t* d_found,
                                        cudaStream_t stream) const {
  if (n == 0) return;
  chunked_detail::contains_kernel<<<chunked_detail::blocks_for(n), 256, 0, stream>>>(ref(), d_elements, n, d_found);
  GRAPHKIT_CHECK_LAUNCH();
}

inline std::uint64_t chunked_set::count(cudaStream_t stream) const {
  device_buffer<std::uint32_t> sizes(num_chunks());
  chunked_detail::chunk_sizes_kernel<<<chunked_detail::blocks_for(num_chunks()), 256, 0, stream>>>(ref(), sizes.data());
  GRAPHKIT_CHECK_LAUNCH();
  const std::vector<std::uint32_t> host = sizes.to_host(stream);
  return std::accumulate(host.begin(), host.end(), std::uint64_t{0});
}

inline std::uint64_t chunked_set::to_sorted_array(std::uint32_t* d_out, cudaStream_t stream) const {
  device_buffer<std::uint32_t> sizes(num_chunks());
  chunked_detail::chunk_sizes_kernel<<<chunked_detail::blocks_for(num_chunks()), 256, 0, stream>>>(ref(), sizes.data());
  GRAPHKIT_CHECK_LAUNCH();
  const std::vector<std::uint32_t> host = sizes.to_host(stream);
  std::vector<std::uint64_t> offsets(host.size());
  std::uint64_t total = 0;
  for (std::size_t c = 0; c < host.size(); ++c) offsets[c] = total, total += host[c];
  if (total == 0) return 0;
  device_buffer<std::uint64_t> d_offsets{std::span<const std::uint64_t>(offsets), stream};
  chunked_detail::to_array_kernel<<<num_chunks(), chunked_detail::kThreads, 0, stream>>>(ref(), d_offsets.data(),
                                                                                         d_out);
  GRAPHKIT_CHECK_LAUNCH();
  GRAPHKIT_CUDA_TRY(cudaStreamSynchronize(stream));
  return total;
}

inline void chunked_set::to_dense(dense_bitmap& out, cudaStream_t stream) const {
  GRAPHKIT_EXPECTS(out.universe() == universe_, "chunked_set::to_dense: the universes differ");
  if (universe_ == 0) return;
  chunked_detail::to_dense_kernel<<<num_chunks(), chunked_detail::kThreads, 0, stream>>>(ref(), out.ref());
  GRAPHKIT_CHECK_LAUNCH();
}

inline void chunked_set::assign(const dense_bitmap& in, cudaStream_t stream) {
  GRAPHKIT_EXPECTS(in.universe() == universe_, "chunked_set::assign: the universes differ");
  clear(stream);
  if (universe_ == 0) return;
  chunked_detail::from_dense_kernel<<<num_chunks(), chunked_detail::kThreads, 0, stream>>>(ref(), in.words(),
                                                                                           in.chunk_counts());
  GRAPHKIT_CHECK_LAUNCH();
  throw_if_dry("assign", stream);
}

inline void set_algebra(const chunked_set& a, const chunked_set& b, set_op op, chunked_set& out, cudaStream_t stream) {
  GRAPHKIT_EXPECTS(a.universe() == b.universe() && a.universe() == out.universe(),
                   "set_algebra: the three sets must share one universe");
  GRAPHKIT_EXPECTS(&out != &a && &out != &b, "set_algebra (chunked): out must be a third set");
  out.clear(stream);
  if (out.universe() == 0) return;
  const bitmap_detail::busy_chunk_grid grid = bitmap_detail::plan_busy_chunks(out.num_chunks());
  chunked_detail::algebra_kernel<<<grid.blocks, chunked_detail::kThreads, 0, stream>>>(a.ref(), b.ref(), op, out.ref(),
                                                                                       grid.group);
  GRAPHKIT_CHECK_LAUNCH();
  out.normalize(stream);
  out.throw_if_dry("set_algebra", stream);
}

inline std::uint64_t set_algebra_count(const chunked_set& a, const chunked_set& b, set_op op, cudaStream_t stream) {
  GRAPHKIT_EXPECTS(a.universe() == b.universe(), "set_algebra_count: the sets must share one universe");
  if (a.universe() == 0) return 0;
  // The total lives in a's counters: an allocation per call cost more than the kernel.
  auto* total = const_cast<unsigned long long*>(a.pool_counters_.data()) + chunked_detail::kTotal;
  GRAPHKIT_CUDA_TRY(cudaMemsetAsync(total, 0, sizeof *total, stream));
  const bitmap_detail::busy_chunk_grid grid = bitmap_detail::plan_busy_chunks(a.num_chunks());
  chunked_detail::algebra_count_kernel<<<grid.blocks, chunked_detail::kThreads, 0, stream>>>(a.ref(), b.ref(), op,
                                                                                             total, grid.group);
  GRAPHKIT_CHECK_LAUNCH();
  return chunked_detail::read_one(total, stream);
}

}  // namespace graphkit
