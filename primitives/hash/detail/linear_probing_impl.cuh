// Kernels and host side of linear_probing_map: grid-stride loops, one key
// per thread or per tile of T lanes (the bulk kernels), each thread counting
// in registers and its block adding the counts with one atomic per count
// (hash_detail::block_add).
#pragma once

#include <algorithm>
#include <string>
#include <type_traits>

#include <cooperative_groups.h>

#include "primitives/common/error.hpp"
#include "primitives/common/launch.hpp"

namespace graphkit {
namespace lp_detail {

enum scratch_field : int { kCount = 0, kMaxProbe = 1, kProbeSum = 2, kHistogram = 3 };
inline constexpr int kHistogramBins = 40;
inline constexpr int kScratch = kHistogram + kHistogramBins;
inline constexpr unsigned kBlock = 256;

/// Grid-stride loop over items taken `lanes` threads at a time (a tile of
/// consecutive lanes shares i), whose every thread runs to the end (block_add follows it).
#define GRAPHKIT_LP_LOOP_BY(i, n, lanes)                                                        \
  for (std::size_t i = (std::size_t{blockIdx.x} * blockDim.x + threadIdx.x) / (lanes); i < (n); \
       i += std::size_t{gridDim.x} * blockDim.x / (lanes))
#define GRAPHKIT_LP_LOOP(i, n) GRAPHKIT_LP_LOOP_BY(i, n, 1)

/// This thread's tile of T lanes (T = 1: the thread alone).
template <unsigned T>
__device__ auto key_tile() {
  static_assert(kBlock % T == 0, "whole tiles per block");
  return cooperative_groups::tiled_partition<T>(cooperative_groups::this_thread_block());
}

// The bulk kernels: a tile of T lanes per key; its lane 0 counts.

/// A thread's counts of one bulk call. 32 bits hold them (a thread of the
/// capped grid sees far fewer than 2^32 keys) and bring the tile insert kernel
/// from 34 registers to 32 (2048 threads per SM, no spill); the thread's path
/// keeps the 64-bit counts it was measured with (ptxas spills it with 32).
template <unsigned T>
using tally = std::conditional_t<T == 1, unsigned long long, unsigned>;

template <unsigned T, class Ref, class Key, class Value>
__global__ void __launch_bounds__(kBlock)
    insert_kernel(Ref table, const Key* keys, const Value* values, std::size_t n, unsigned long long* counts) {
  const auto tile = key_tile<T>();
  const bool counter = tile.thread_rank() == 0;
  tally<T> inserted = 0, failed = 0, sentinel = 0;
  GRAPHKIT_LP_LOOP_BY(i, n, T) {
    const Key k = keys[i];
    const Value v = values[i];
    if (k == table.empty_key || v == table.empty_value) {
      sentinel += counter;
      continue;
    }
    const std::uint32_t outcome = table.insert(tile, k, v);
    inserted += counter && outcome == kHashInserted;
    failed += counter && outcome == kHashFailed;
  }
  hash_detail::block_add({inserted, failed, sentinel},
                         {hash_detail::kInserted, hash_detail::kFailed, hash_detail::kSentinel}, counts);
}

template <unsigned T, class Ref, class Key, class Value>
__global__ void __launch_bounds__(kBlock) find_kernel(Ref table, const Key* keys, std::size_t n, Value* out) {
  const auto tile = key_tile<T>();
  GRAPHKIT_LP_LOOP_BY(i, n, T) {
    const Value v = table.find(tile, keys[i]);  // the empty key finds an empty slot: the empty value
    if (tile.thread_rank() == 0) out[i] = v;
  }
}

template <unsigned T, class Ref, class Key>
__global__ void __launch_bounds__(kBlock)
    contains_kernel(Ref table, const Key* keys, std::size_t n, std::uint8_t* out) {
  const auto tile = key_tile<T>();
  GRAPHKIT_LP_LOOP_BY(i, n, T) {
    const bool found = table.contains(tile, keys[i]);
    if (tile.thread_rank() == 0) out[i] = found ? 1 : 0;
  }
}

template <unsigned T, class Ref, class Key>
__global__ void __launch_bounds__(kBlock)
    erase_kernel(Ref table, const Key* keys, std::size_t n, unsigned long long* counts) {
  const auto tile = key_tile<T>();
  const bool counter = tile.thread_rank() == 0;
  unsigned long long erased = 0;
  GRAPHKIT_LP_LOOP_BY(i, n, T) {
    const Key k = keys[i];
    if (k != table.empty_key) erased += table.erase(tile, k) && counter;
  }
  hash_detail::block_add({erased}, {hash_detail::kErased}, counts);
}

template <class Ref, class Key, class Value>
__global__ void __launch_bounds__(kBlock)
    apply_kernel(Ref table, const hash_op<Key, Value>* ops, std::size_t n, Value* results, unsigned long long* counts) {
  unsigned long long inserted = 0, failed = 0, sentinel = 0, erased = 0;
  GRAPHKIT_LP_LOOP(i, n) {
    const hash_op<Key, Value> op = ops[i];
    Value result = 0;
    if (op.key == table.empty_key || (op.kind == hash_op_kind::insert && op.value == table.empty_value)) {
      ++sentinel;
      result = op.kind == hash_op_kind::find ? table.empty_value : Value{kHashFailed};
    } else if (op.kind == hash_op_kind::insert) {
      const std::uint32_t outcome = table.insert(op.key, op.value);
      inserted += outcome == kHashInserted;
      failed += outcome == kHashFailed;
      result = outcome;
    } else if (op.kind == hash_op_kind::erase) {
      const bool removed = table.erase(op.key);
      erased += removed;
      result = removed ? kHashErased : kHashAbsent;
    } else {
      result = table.find(op.key);
    }
    results[i] = result;
  }
  hash_detail::block_add({inserted, failed, sentinel, erased},
                         {hash_detail::kInserted, hash_detail::kFailed, hash_detail::kSentinel, hash_detail::kErased},
                         counts);
}

template <class Ref>
__device__ inline bool live(const Ref& table, std::size_t i) {
  return table.slots[i].key != table.empty_key && table.slots[i].value != table.empty_value;
}

template <class Ref>
__global__ void __launch_bounds__(kBlock) count_live_kernel(Ref table, unsigned long long* count) {
  unsigned long long mine = 0;
  GRAPHKIT_LP_LOOP(i, table.capacity) mine += live(table, i);
  hash_detail::block_add({mine}, {0}, count);
}

/// Live entries out, in no particular order: one atomic per warp for the place.
template <class Ref, class Key, class Value>
__global__ void retrieve_kernel(Ref table, Key* keys_out, Value* values_out, unsigned long long* count) {
  const std::size_t end = (table.capacity + 31) / 32 * 32;  // whole warps vote
  for (std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x; i < end;
       i += std::size_t{gridDim.x} * blockDim.x) {
    const bool mine = i < table.capacity && live(table, i);
    const unsigned votes = __ballot_sync(0xffffffffu, mine);
    unsigned long long base = 0;
    if ((threadIdx.x & 31) == 0 && votes != 0) base = atomicAdd(count, static_cast<unsigned long long>(__popc(votes)));
    base = __shfl_sync(0xffffffffu, base, 0);
    if (mine) {
      const auto at = base + __popc(votes & ((1u << (threadIdx.x & 31)) - 1));
      keys_out[at] = table.slots[i].key;
      values_out[at] = table.slots[i].value;
    }
  }
}

template <class Ref>
__global__ void clear_kernel(Ref table) {
  GRAPHKIT_LP_LOOP(i, table.capacity) table.slots[i] = {table.empty_key, table.empty_value};
}

template <class Ref>
__global__ void __launch_bounds__(kBlock) probe_stats_kernel(Ref table, unsigned long long* scratch) {
  unsigned long long keys = 0, sum = 0, longest = 0;
  GRAPHKIT_LP_LOOP(i, table.capacity) {
    if (!live(table, i)) continue;
    const std::size_t home = table.home(table.slots[i].key);
    const std::size_t length = (i >= home ? i - home : i + table.capacity - home) + 1;
    ++keys;
    sum += length;
    if (length > longest) longest = length;
    atomicAdd(scratch + kHistogram + (63 - __clzll(static_cast<long long>(length))), 1ull);
  }
  hash_detail::block_add({keys, sum}, {kCount, kProbeSum}, scratch);
  if (longest != 0) atomicMax(scratch + kMaxProbe, longest);
}

#undef GRAPHKIT_LP_LOOP
#undef GRAPHKIT_LP_LOOP_BY

/// The kernels loop grid-stride: up to 32 blocks per multiprocessor of this
/// device, `lanes` threads per item.
inline unsigned grid_for(std::size_t n, unsigned lanes = 1) { return graphkit::grid_stride_blocks(n * lanes, kBlock); }

}  // namespace lp_detail

template <class Key, class Value, class Hash, unsigned WriteTile, unsigned FindTile>
linear_probing_map<Key, Value, Hash, WriteTile, FindTile>::linear_probing_map(
    std::size_t capacity, graphkit::empty_key<Key> key_sentinel, graphkit::empty_value<Value> value_sentinel,
    cudaStream_t stream)
    : empty_key_(key_sentinel.value),
      empty_value_(value_sentinel.value),
      slots_(ref_type::capacity_for(capacity)),
      scratch_(lp_detail::kScratch) {
  clear(stream);
}

template <class Key, class Value, class Hash, unsigned WriteTile, unsigned FindTile>
void linear_probing_map<Key, Value, Hash, WriteTile, FindTile>::insert_async(const Key* d_keys, const Value* d_values,
                                                                             std::size_t n, hash_counts& counts,
                                                                             cudaStream_t stream) {
  counts.reset(stream);
  if (n == 0) return;
  lp_detail::insert_kernel<WriteTile>
      <<<lp_detail::grid_for(n, WriteTile), lp_detail::kBlock, 0, stream>>>(ref(), d_keys, d_values, n, counts.data());
  GRAPHKIT_CHECK_LAUNCH();
}

template <class Key, class Value, class Hash, unsigned WriteTile, unsigned FindTile>
std::uint64_t linear_probing_map<Key, Value, Hash, WriteTile, FindTile>::insert(const Key* d_keys,
                                                                                const Value* d_values, std::size_t n,
                                                                                cudaStream_t stream) {
  insert_async(d_keys, d_values, n, sync_counts_, stream);
  const hash_result result = sync_counts_.result(stream);
  if (result.sentinel != 0)
    throw error("linear_probing_map::insert: " + std::to_string(result.sentinel) + " of " + std::to_string(n) +
                " pairs hold a sentinel (empty key " + std::to_string(empty_key_) + " or empty value " +
                std::to_string(empty_value_) + ") and were not inserted");
  if (result.failed != 0)
    throw resource_error("linear_probing_map::insert: table full: " + std::to_string(result.failed) + " of " +
                         std::to_string(n) + " inserts found no free slot among " + std::to_string(capacity()) +
                         " (rehash to a larger capacity)");
  return result.inserted;
}

template <class Key, class Value, class Hash, unsigned WriteTile, unsigned FindTile>
void linear_probing_map<Key, Value, Hash, WriteTile, FindTile>::find_async(const Key* d_keys, std::size_t n,
                                                                           Value* d_values_out,
                                                                           cudaStream_t stream) const {
  if (n == 0) return;
  lp_detail::find_kernel<FindTile>
      <<<lp_detail::grid_for(n, FindTile), lp_detail::kBlock, 0, stream>>>(ref(), d_keys, n, d_values_out);
  GRAPHKIT_CHECK_LAUNCH();
}

template <class Key, class Value, class Hash, unsigned WriteTile, unsigned FindTile>
void linear_probing_map<Key, Value, Hash, WriteTile, FindTile>::contains_async(const Key* d_keys, std::size_t n,
                                                                               std::uint8_t* d_found,
                                                                               cudaStream_t stream) const {
  if (n == 0) return;
  lp_detail::contains_kernel<FindTile>
      <<<lp_detail::grid_for(n, FindTile), lp_detail::kBlock, 0, stream>>>(ref(), d_keys, n, d_found);
  GRAPHKIT_CHECK_LAUNCH();
}

template <class Key, class Value, class Hash, unsigned WriteTile, unsigned FindTile>
void linear_probing_map<Key, Value, Hash, WriteTile, FindTile>::erase_async(const Key* d_keys, std::size_t n,
                                                                            hash_counts& counts, cudaStream_t stream) {
  counts.reset(stream);
  if (n == 0) return;
  lp_detail::erase_kernel<WriteTile><<<lp_detail::grid_for(n, WriteTile), lp_detail::kBlock, 0, stream>>>(
      ref<hash_ops::erase>(), d_keys, n, counts.data());
  GRAPHKIT_CHECK_LAUNCH();
}

template <class Key, class Value, class Hash, unsigned WriteTile, unsigned FindTile>
std::uint64_t linear_probing_map<Key, Value, Hash, WriteTile, FindTile>::erase(const Key* d_keys, std::size_t n,
                                                                               cudaStream_t stream) {
  erase_async(d_keys, n, sync_counts_, stream);
  return sync_counts_.result(stream).erased;
}

template <class Key, class Value, class Hash, unsigned WriteTile, unsigned FindTile>
void linear_probing_map<Key, Value, Hash, WriteTile, FindTile>::apply_async(const op_type* d_ops, std::size_t n,
                                                                            Value* d_results, hash_counts& counts,
                                                                            cudaStream_t stream) {
  counts.reset(stream);
  if (n == 0) return;
  lp_detail::apply_kernel<<<lp_detail::grid_for(n), lp_detail::kBlock, 0, stream>>>(ref(), d_ops, n, d_results,
                                                                                    counts.data());
  GRAPHKIT_CHECK_LAUNCH();
}

template <class Key, class Value, class Hash, unsigned WriteTile, unsigned FindTile>
template <class Launch>
std::uint64_t linear_probing_map<Key, Value, Hash, WriteTile, FindTile>::counted(Launch&& launch,
                                                                                 cudaStream_t stream) const {
  unsigned long long* count = scratch_.data() + lp_detail::kCount;
  GRAPHKIT_CUDA_TRY(cudaMemsetAsync(count, 0, sizeof(unsigned long long), stream));
  launch(count);
  GRAPHKIT_CHECK_LAUNCH();
  return read_one(count, stream);
}

template <class Key, class Value, class Hash, unsigned WriteTile, unsigned FindTile>
std::uint64_t linear_probing_map<Key, Value, Hash, WriteTile, FindTile>::size(cudaStream_t stream) const {
  return counted(
      [&](unsigned long long* count) {
        lp_detail::count_live_kernel<<<lp_detail::grid_for(capacity()), lp_detail::kBlock, 0, stream>>>(ref(), count);
      },
      stream);
}

template <class Key, class Value, class Hash, unsigned WriteTile, unsigned FindTile>
std::uint64_t linear_probing_map<Key, Value, Hash, WriteTile, FindTile>::retrieve_all(Key* d_keys_out,
                                                                                      Value* d_values_out,
                                                                                      cudaStream_t stream) const {
  return counted(
      [&](unsigned long long* count) {
        lp_detail::retrieve_kernel<<<lp_detail::grid_for(capacity()), lp_detail::kBlock, 0, stream>>>(
            ref(), d_keys_out, d_values_out, count);
      },
      stream);
}

template <class Key, class Value, class Hash, unsigned WriteTile, unsigned FindTile>
void linear_probing_map<Key, Value, Hash, WriteTile, FindTile>::clear(cudaStream_t stream) {
  lp_detail::clear_kernel<<<lp_detail::grid_for(capacity()), lp_detail::kBlock, 0, stream>>>(ref());
  GRAPHKIT_CHECK_LAUNCH();
}

template <class Key, class Value, class Hash, unsigned WriteTile, unsigned FindTile>
void linear_probing_map<Key, Value, Hash, WriteTile, FindTile>::rehash(std::size_t new_capacity, cudaStream_t stream) {
  const std::uint64_t live = size(stream);
  if (new_capacity < live)
    throw error("linear_probing_map::rehash: " + std::to_string(new_capacity) + " slots cannot hold " +
                std::to_string(live) + " entries");
  device_buffer<Key> keys(live);
  device_buffer<Value> values(live);
  (void)retrieve_all(keys.data(), values.data(), stream);
  slots_ = device_buffer<slot>(ref_type::capacity_for(new_capacity));
  clear(stream);
  (void)insert(keys.data(), values.data(), live, stream);
}

template <class Key, class Value, class Hash, unsigned WriteTile, unsigned FindTile>
probe_statistics linear_probing_map<Key, Value, Hash, WriteTile, FindTile>::probe_stats(cudaStream_t stream) const {
  GRAPHKIT_CUDA_TRY(cudaMemsetAsync(scratch_.data(), 0, lp_detail::kScratch * sizeof(unsigned long long), stream));
  lp_detail::probe_stats_kernel<<<lp_detail::grid_for(capacity()), lp_detail::kBlock, 0, stream>>>(ref(),
                                                                                                   scratch_.data());
  GRAPHKIT_CHECK_LAUNCH();
  std::vector<unsigned long long> c(lp_detail::kScratch);
  GRAPHKIT_CUDA_TRY(cudaMemcpyAsync(c.data(), scratch_.data(), c.size() * sizeof(unsigned long long),
                                    cudaMemcpyDeviceToHost, stream));
  GRAPHKIT_CUDA_TRY(cudaStreamSynchronize(stream));
  probe_statistics stats;
  stats.keys = c[lp_detail::kCount];
  stats.max = static_cast<std::uint32_t>(c[lp_detail::kMaxProbe]);
  stats.mean = stats.keys ? static_cast<double>(c[lp_detail::kProbeSum]) / stats.keys : 0.0;
  int last = lp_detail::kHistogramBins;
  while (last > 0 && c[lp_detail::kHistogram + last - 1] == 0) --last;
  stats.histogram.assign(c.begin() + lp_detail::kHistogram, c.begin() + lp_detail::kHistogram + last);
  return stats;
}

}  // namespace graphkit
