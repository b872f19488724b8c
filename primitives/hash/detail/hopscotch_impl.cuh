// Kernels and host side of hopscotch_map: one tile of Tile threads per
// operation, tiles taking operations in a grid-stride loop.
#pragma once

#include <algorithm>
#include <string>

#include "primitives/common/error.hpp"
#include "primitives/common/launch.hpp"

namespace graphkit {
namespace hop_detail {

namespace cg = cooperative_groups;
inline constexpr int kBlock = 256;

template <int Tile>
__device__ cg::thread_block_tile<Tile> my_tile() {
  return cg::tiled_partition<Tile>(cg::this_thread_block());
}

/// Calls op(tile, i) for this tile's operations i < n.
template <int Tile, class Op>
__device__ void for_each_op(std::size_t n, Op&& op) {
  const auto tile = my_tile<Tile>();
  const std::size_t tiles = std::size_t{gridDim.x} * (blockDim.x / Tile);
  for (std::size_t i = std::size_t{blockIdx.x} * (blockDim.x / Tile) + threadIdx.x / Tile; i < n; i += tiles)
    op(tile, i);
}

template <class Ref>
__device__ bool refused(const Ref& t, std::uint32_t key, std::uint32_t value, bool has_value) {
  return key == t.empty_key || key == t.reserved_key() || (has_value && value == t.empty_value);
}

// Each tile's first thread counts its common outcomes (keys added, erased,
// refused) in registers; the block adds them with one atomic per count
// (hash_detail::block_add) after the loop. Rare events (failures, moves,
// stashed keys) are counted by the ref where they happen.

template <int Tile, class Ref>
__global__ void insert_kernel(Ref t, const std::uint32_t* keys, const std::uint32_t* values, std::size_t n,
                              unsigned long long* counts) {
  unsigned long long inserted = 0, sentinel = 0;
  for_each_op<Tile>(n, [&](const auto& tile, std::size_t i) {
    const bool lead = tile.thread_rank() == 0;
    if (refused(t, keys[i], values[i], true)) {
      sentinel += lead;
      return;
    }
    const std::uint32_t outcome = t.insert(tile, keys[i], values[i]);  // the whole tile takes part
    inserted += lead && outcome == kHopInserted;
  });
  hash_detail::block_add({inserted, sentinel}, {hash_detail::kInserted, hash_detail::kSentinel}, counts);
}

template <int Tile, class Ref>
__global__ void find_kernel(Ref t, const std::uint32_t* keys, std::size_t n, std::uint32_t* out) {
  for_each_op<Tile>(n, [&](const auto& tile, std::size_t i) {
    const std::uint32_t value = refused(t, keys[i], 0, false) ? t.empty_value : t.find(tile, keys[i]);
    if (tile.thread_rank() == 0) out[i] = value;
  });
}

template <int Tile, class Ref>
__global__ void contains_kernel(Ref t, const std::uint32_t* keys, std::size_t n, std::uint8_t* out) {
  for_each_op<Tile>(n, [&](const auto& tile, std::size_t i) {
    const bool found = !refused(t, keys[i], 0, false) && t.find(tile, keys[i]) != t.empty_value;
    if (tile.thread_rank() == 0) out[i] = found ? 1 : 0;
  });
}

template <int Tile, class Ref>
__global__ void erase_kernel(Ref t, const std::uint32_t* keys, std::size_t n, unsigned long long* counts) {
  unsigned long long erased = 0;
  for_each_op<Tile>(n, [&](const auto& tile, std::size_t i) {
    if (!refused(t, keys[i], 0, false) && t.erase(tile, keys[i])) erased += tile.thread_rank() == 0;
  });
  hash_detail::block_add({erased}, {hash_detail::kErased}, counts);
}

template <int Tile, class Ref>
__global__ void apply_kernel(Ref t, const hop_op* ops, std::size_t n, std::uint32_t* results,
                             unsigned long long* counts) {
  unsigned long long inserted = 0, sentinel = 0, erased = 0;
  for_each_op<Tile>(n, [&](const auto& tile, std::size_t i) {
    const hop_op op = ops[i];
    const bool lead = tile.thread_rank() == 0;
    std::uint32_t result = 0;
    const bool has_value = op.kind == hop_op_kind::insert;
    if (refused(t, op.key, op.value, has_value)) {
      sentinel += lead;
      result = op.kind == hop_op_kind::find ? t.empty_value : 0u;
    } else if (op.kind == hop_op_kind::insert) {
      result = t.insert(tile, op.key, op.value);
      inserted += lead && result == kHopInserted;
    } else if (op.kind == hop_op_kind::erase) {
      result = t.erase(tile, op.key) ? kHashErased : kHashAbsent;
      erased += lead && result == kHashErased;
    } else {
      result = t.find(tile, op.key);
    }
    if (lead) results[i] = result;
  });
  hash_detail::block_add({inserted, sentinel, erased},
                         {hash_detail::kInserted, hash_detail::kSentinel, hash_detail::kErased}, counts);
}

/// words[i] = value for i < n, every `stride`-th word from `first`.
static __global__ void fill_words_kernel(unsigned long long* words, std::size_t n, unsigned long long value,
                                         std::size_t first = 0, std::size_t stride = 1) {
  const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (i < n) words[first + i * stride] = value;
}

/// Entries of the hopscotch array, then of the stash (indices from capacity on).
template <class Ref>
__global__ void retrieve_kernel(Ref t, std::uint32_t* keys, std::uint32_t* values, unsigned long long* count) {
  const std::size_t s = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (s >= std::size_t{t.capacity} + t.stash_capacity) return;
  const unsigned long long w = s < t.capacity ? *t.slot_at(static_cast<std::uint32_t>(s)) : t.stash[s - t.capacity];
  const auto key = static_cast<std::uint32_t>(w >> 32);
  if (key == t.empty_key || key == t.reserved_key()) return;
  const auto j = atomicAdd(count, 1ull);
  if (keys) keys[j] = key, values[j] = static_cast<std::uint32_t>(w);
}

inline unsigned grid_for(std::size_t ops, int tile) {
  return std::clamp(graphkit::blocks_for(ops * tile, kBlock), 1u, 1u << 16);
}

}  // namespace hop_detail

template <int Tile, class Hash>
hopscotch_map<Tile, Hash>::hopscotch_map(std::size_t capacity, graphkit::empty_key<std::uint32_t> key_sentinel,
                                         graphkit::empty_value<std::uint32_t> value_sentinel, cudaStream_t stream)
    : empty_key_(key_sentinel.value),
      empty_value_(value_sentinel.value),
      entries_(2 * std::max<std::size_t>(capacity, kHopNeighbourhood)),
      stash_(hop_detail::stash_slots(capacity)),
      size_count_(1) {
  if (capacity + hop_detail::stash_slots(capacity) >= (std::size_t{1} << 32))
    throw error("hopscotch_map: " + std::to_string(capacity) + " slots and their stash exceed 2^32 - 1");
  if (empty_key_ == 0)
    throw error("hopscotch_map: the empty key must not be 0 (the key below it marks reserved slots)");
  clear(stream);
}

template <int Tile, class Hash>
void hopscotch_map<Tile, Hash>::insert_async(const std::uint32_t* d_keys, const std::uint32_t* d_values, std::size_t n,
                                             hash_counts& counts, cudaStream_t stream) {
  counts.reset(stream);
  if (n == 0) return;
  hop_detail::insert_kernel<Tile><<<hop_detail::grid_for(n, Tile), hop_detail::kBlock, 0, stream>>>(
      counting_ref(counts), d_keys, d_values, n, counts.data());
  GRAPHKIT_CHECK_LAUNCH();
}

template <int Tile, class Hash>
std::uint64_t hopscotch_map<Tile, Hash>::insert(const std::uint32_t* d_keys, const std::uint32_t* d_values,
                                                std::size_t n, cudaStream_t stream) {
  insert_async(d_keys, d_values, n, sync_counts_, stream);
  const hash_result r = sync_counts_.result(stream);
  if (r.sentinel != 0)
    throw error("hopscotch_map::insert: " + std::to_string(r.sentinel) + " of " + std::to_string(n) +
                " pairs hold a sentinel (empty key " + std::to_string(empty_key_) + ", the reserved key below it, or " +
                "empty value " + std::to_string(empty_value_) + ") and were not inserted");
  if (r.failed != 0)
    throw resource_error("hopscotch_map::insert: " + std::to_string(r.failed) + " of " + std::to_string(n) +
                         " keys found no slot within reach (the table holds " + std::to_string(capacity()) +
                         " slots and " + std::to_string(stash_capacity()) + " in its stash)");
  return r.inserted;
}

template <int Tile, class Hash>
void hopscotch_map<Tile, Hash>::find_async(const std::uint32_t* d_keys, std::size_t n, std::uint32_t* d_values_out,
                                           cudaStream_t stream) const {
  if (n == 0) return;
  hop_detail::find_kernel<Tile>
      <<<hop_detail::grid_for(n, Tile), hop_detail::kBlock, 0, stream>>>(ref(), d_keys, n, d_values_out);
  GRAPHKIT_CHECK_LAUNCH();
}

template <int Tile, class Hash>
void hopscotch_map<Tile, Hash>::contains_async(const std::uint32_t* d_keys, std::size_t n, std::uint8_t* d_found,
                                               cudaStream_t stream) const {
  if (n == 0) return;
  hop_detail::contains_kernel<Tile>
      <<<hop_detail::grid_for(n, Tile), hop_detail::kBlock, 0, stream>>>(ref(), d_keys, n, d_found);
  GRAPHKIT_CHECK_LAUNCH();
}

template <int Tile, class Hash>
void hopscotch_map<Tile, Hash>::erase_async(const std::uint32_t* d_keys, std::size_t n, hash_counts& counts,
                                            cudaStream_t stream) {
  counts.reset(stream);
  if (n == 0) return;
  hop_detail::erase_kernel<Tile><<<hop_detail::grid_for(n, Tile), hop_detail::kBlock, 0, stream>>>(
      counting_ref(counts), d_keys, n, counts.data());
  GRAPHKIT_CHECK_LAUNCH();
}

template <int Tile, class Hash>
std::uint64_t hopscotch_map<Tile, Hash>::erase(const std::uint32_t* d_keys, std::size_t n, cudaStream_t stream) {
  erase_async(d_keys, n, sync_counts_, stream);
  return sync_counts_.result(stream).erased;
}

template <int Tile, class Hash>
void hopscotch_map<Tile, Hash>::apply_async(const hop_op* d_ops, std::size_t n, std::uint32_t* d_results,
                                            hash_counts& counts, cudaStream_t stream) {
  counts.reset(stream);
  if (n == 0) return;
  hop_detail::apply_kernel<Tile><<<hop_detail::grid_for(n, Tile), hop_detail::kBlock, 0, stream>>>(
      counting_ref(counts), d_ops, n, d_results, counts.data());
  GRAPHKIT_CHECK_LAUNCH();
}

template <int Tile, class Hash>
std::uint64_t hopscotch_map<Tile, Hash>::size(cudaStream_t stream) const {
  return retrieve_all(nullptr, nullptr, stream);
}

template <int Tile, class Hash>
std::uint64_t hopscotch_map<Tile, Hash>::retrieve_all(std::uint32_t* d_keys_out, std::uint32_t* d_values_out,
                                                      cudaStream_t stream) const {
  unsigned long long* count = size_count_.data();
  GRAPHKIT_CUDA_TRY(cudaMemsetAsync(count, 0, sizeof *count, stream));
  hop_detail::retrieve_kernel<<<blocks_for(capacity() + stash_capacity()), 256, 0, stream>>>(ref(), d_keys_out,
                                                                                             d_values_out, count);
  GRAPHKIT_CHECK_LAUNCH();
  return read_one(count, stream);
}

template <int Tile, class Hash>
void hopscotch_map<Tile, Hash>::clear(cudaStream_t stream) {
  const unsigned long long empty = (static_cast<unsigned long long>(empty_key_) << 32) | empty_value_;
  entries_.fill_bytes(0, stream);  // info words: empty bitmaps, unlocked, version 0
  hop_detail::fill_words_kernel<<<blocks_for(capacity()), 256, 0, stream>>>(entries_.data(), capacity(), empty, 1, 2);
  GRAPHKIT_CHECK_LAUNCH();
  hop_detail::fill_words_kernel<<<blocks_for(stash_.size()), 256, 0, stream>>>(stash_.data(), stash_.size(), empty);
  GRAPHKIT_CHECK_LAUNCH();
}

}  // namespace graphkit
