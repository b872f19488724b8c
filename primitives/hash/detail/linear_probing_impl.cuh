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

// The refill walk (kLpRefill, issue 18 step 22): a lockstep walk holds a
// warp's keys until the longest of their probes ends (at load 0.9 the longest
// of 32 is ~4x the mean: a quarter of the lanes read, the rest wait); here a
// thread that settles its key starts its next one in the same loop, so every
// lane reads a window per iteration until the thread runs out of keys.

/// Walks this thread's keys (grid-stride) one window per iteration through
/// `load(first)`: step(cursor, window) says whether the key is settled
/// (its outcome kept by the caller); finish(i) takes key i's outcome, when
/// it settles or its lap ends. The next key is read one key ahead, so that
/// starting it waits on no load.
template <class Ref, class Key, class Load, class Step, class Finish>
__device__ void refill_walk(const Ref& table, const Key* keys, std::size_t n, Load&& load, Step&& step,
                            Finish&& finish) {
  const std::size_t stride = std::size_t{gridDim.x} * blockDim.x;
  std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (i >= n) return;
  auto c = table.start(keys[i]);
  Key next = i + stride < n ? keys[i + stride] : Key{};
  for (;;) {
    if (!step(c, load(c.first)) && table.advance(c)) continue;
    finish(i);
    i += stride;
    if (i >= n) return;
    c = table.start(next);
    if (i + stride < n) next = keys[i + stride];
  }
}

/// Finds (out: the values) or, with Contains, contains (out: 1 or 0).
template <bool Contains, class Ref, class Key, class Out>
__global__ void __launch_bounds__(kBlock) find_refill_kernel(Ref table, const Key* keys, std::size_t n, Out* out) {
  auto found = table.empty_value;
  refill_walk(
      table, keys, n, [&](std::size_t first) { return table.load_window(first); },
      [&](const auto& c, const auto& seen) {
        return table.visit_window(c, seen, [&](std::size_t, const auto& s) { return table.find_at(c.key, s, found); });
      },
      [&](std::size_t i) {
        if constexpr (Contains) out[i] = found != table.empty_value ? 1 : 0;
        else out[i] = found;
        found = table.empty_value;
      });
}

/// The bulk erase by the refill walk, reading windows through the L1 (one L2
/// request per window for a thread's two 16-byte loads, where relaxed loads
/// make two). Safe because no insert runs in this kernel: a slot's key is
/// fixed for its lifetime (erase keeps keys), and a value only goes from live
/// to empty, by this kernel's exchanges. So a window seen through the L1 holds
/// every key it held at launch, and a stale value can only be live where
/// another erase has since emptied it: the exchange then returns empty and
/// counts nothing. A value read empty is empty. Counts stay exact.
template <class Ref, class Key>
__global__ void __launch_bounds__(kBlock)
    erase_refill_kernel(Ref table, const Key* keys, std::size_t n, unsigned long long* counts) {
  unsigned erased = 0;  // a thread of the capped grid erases far fewer than 2^32 keys
  bool removed = false;
  refill_walk(
      table, keys, n, [&](std::size_t first) { return table.load_window_cached(first); },
      [&](const auto& c, const auto& seen) {
        // Decide on the window first, exchange after: the window's registers
        // are free by then (38 registers with the exchange inside the scan).
        // The empty key finds an empty slot, whose value is empty: nothing to erase.
        std::size_t live = table.capacity;
        const bool settled = table.visit_window(c, seen, [&](std::size_t at, const auto& s) {
          if (s.key == c.key && s.value != table.empty_value) live = at;
          return s.key == c.key || s.key == table.empty_key;
        });
        if (live != table.capacity) removed = table.exchange_value(live, table.empty_value) != table.empty_value;
        return settled;
      },
      [&](std::size_t) {
        erased += removed;
        removed = false;
      });
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

/// Blocks of Kernel resident on this device at once (its occupancy times the
/// multiprocessors), asked once per device: the one wave of lp_grid::resident.
/// Kernel is a template argument so that each kernel keeps its own count.
template <auto Kernel>
unsigned resident_wave() {
  static thread_local int cached_device = -1;
  static thread_local unsigned cached_blocks = 0;
  int device = 0;
  GRAPHKIT_CUDA_TRY(cudaGetDevice(&device));
  if (device != cached_device) {
    cached_blocks = graphkit::resident_blocks_per_sm(Kernel, static_cast<int>(kBlock)) * graphkit::device_sm_count();
    cached_device = device;
  }
  return cached_blocks;
}

/// Blocks for a bulk kernel over n keys at `lanes` lanes per key: the capped
/// grid, or at most one resident wave (lp_grid says why the two differ).
template <lp_grid Grid, auto Kernel>
unsigned bulk_grid(std::size_t n, unsigned lanes) {
  const unsigned capped = grid_for(n, lanes);
  if constexpr (Grid == lp_grid::capped) return capped;
  else return std::min(capped, resident_wave<Kernel>());
}

}  // namespace lp_detail

template <class Key, class Value, class Hash, unsigned WriteTile, unsigned FindTile, unsigned EraseTile, lp_grid Grid>
linear_probing_map<Key, Value, Hash, WriteTile, FindTile, EraseTile, Grid>::linear_probing_map(
    std::size_t capacity, graphkit::empty_key<Key> key_sentinel, graphkit::empty_value<Value> value_sentinel,
    cudaStream_t stream)
    : empty_key_(key_sentinel.value),
      empty_value_(value_sentinel.value),
      slots_(ref_type::capacity_for(capacity)),
      scratch_(lp_detail::kScratch) {
  clear(stream);
}

template <class Key, class Value, class Hash, unsigned WriteTile, unsigned FindTile, unsigned EraseTile, lp_grid Grid>
void linear_probing_map<Key, Value, Hash, WriteTile, FindTile, EraseTile, Grid>::insert_async(
    const Key* d_keys, const Value* d_values, std::size_t n, hash_counts& counts, cudaStream_t stream) {
  counts.reset(stream);
  if (n == 0) return;
  constexpr auto kernel = lp_detail::insert_kernel<WriteTile, ref_type, Key, Value>;
  kernel<<<lp_detail::bulk_grid<Grid, kernel>(n, WriteTile), lp_detail::kBlock, 0, stream>>>(ref(), d_keys, d_values, n,
                                                                                             counts.data());
  GRAPHKIT_CHECK_LAUNCH();
}

template <class Key, class Value, class Hash, unsigned WriteTile, unsigned FindTile, unsigned EraseTile, lp_grid Grid>
std::uint64_t linear_probing_map<Key, Value, Hash, WriteTile, FindTile, EraseTile, Grid>::insert(const Key* d_keys,
                                                                                                 const Value* d_values,
                                                                                                 std::size_t n,
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

template <class Key, class Value, class Hash, unsigned WriteTile, unsigned FindTile, unsigned EraseTile, lp_grid Grid>
void linear_probing_map<Key, Value, Hash, WriteTile, FindTile, EraseTile, Grid>::find_async(const Key* d_keys,
                                                                                            std::size_t n,
                                                                                            Value* d_values_out,
                                                                                            cudaStream_t stream) const {
  if (n == 0) return;
  if constexpr (FindTile == kLpRefill) {
    constexpr auto kernel = lp_detail::find_refill_kernel<false, const_ref_type, Key, Value>;
    kernel<<<lp_detail::bulk_grid<Grid, kernel>(n, 1), lp_detail::kBlock, 0, stream>>>(ref(), d_keys, n, d_values_out);
  } else {
    constexpr auto kernel = lp_detail::find_kernel<FindTile, const_ref_type, Key, Value>;
    kernel<<<lp_detail::bulk_grid<Grid, kernel>(n, FindTile), lp_detail::kBlock, 0, stream>>>(ref(), d_keys, n,
                                                                                              d_values_out);
  }
  GRAPHKIT_CHECK_LAUNCH();
}

template <class Key, class Value, class Hash, unsigned WriteTile, unsigned FindTile, unsigned EraseTile, lp_grid Grid>
void linear_probing_map<Key, Value, Hash, WriteTile, FindTile, EraseTile, Grid>::contains_async(
    const Key* d_keys, std::size_t n, std::uint8_t* d_found, cudaStream_t stream) const {
  if (n == 0) return;
  if constexpr (FindTile == kLpRefill) {
    constexpr auto kernel = lp_detail::find_refill_kernel<true, const_ref_type, Key, std::uint8_t>;
    kernel<<<lp_detail::bulk_grid<Grid, kernel>(n, 1), lp_detail::kBlock, 0, stream>>>(ref(), d_keys, n, d_found);
  } else {
    constexpr auto kernel = lp_detail::contains_kernel<FindTile, const_ref_type, Key>;
    kernel<<<lp_detail::bulk_grid<Grid, kernel>(n, FindTile), lp_detail::kBlock, 0, stream>>>(ref(), d_keys, n,
                                                                                              d_found);
  }
  GRAPHKIT_CHECK_LAUNCH();
}

template <class Key, class Value, class Hash, unsigned WriteTile, unsigned FindTile, unsigned EraseTile, lp_grid Grid>
void linear_probing_map<Key, Value, Hash, WriteTile, FindTile, EraseTile, Grid>::erase_async(const Key* d_keys,
                                                                                             std::size_t n,
                                                                                             hash_counts& counts,
                                                                                             cudaStream_t stream) {
  counts.reset(stream);
  if (n == 0) return;
  using erase_ref = ref_with<hash_ops::erase>;
  if constexpr (EraseTile == kLpRefill) {
    constexpr auto kernel = lp_detail::erase_refill_kernel<erase_ref, Key>;
    kernel<<<lp_detail::bulk_grid<Grid, kernel>(n, 1), lp_detail::kBlock, 0, stream>>>(ref<hash_ops::erase>(), d_keys,
                                                                                       n, counts.data());
  } else {
    constexpr auto kernel = lp_detail::erase_kernel<EraseTile, erase_ref, Key>;
    kernel<<<lp_detail::bulk_grid<Grid, kernel>(n, EraseTile), lp_detail::kBlock, 0, stream>>>(
        ref<hash_ops::erase>(), d_keys, n, counts.data());
  }
  GRAPHKIT_CHECK_LAUNCH();
}

template <class Key, class Value, class Hash, unsigned WriteTile, unsigned FindTile, unsigned EraseTile, lp_grid Grid>
std::uint64_t linear_probing_map<Key, Value, Hash, WriteTile, FindTile, EraseTile, Grid>::erase(const Key* d_keys,
                                                                                                std::size_t n,
                                                                                                cudaStream_t stream) {
  erase_async(d_keys, n, sync_counts_, stream);
  return sync_counts_.result(stream).erased;
}

template <class Key, class Value, class Hash, unsigned WriteTile, unsigned FindTile, unsigned EraseTile, lp_grid Grid>
void linear_probing_map<Key, Value, Hash, WriteTile, FindTile, EraseTile, Grid>::apply_async(
    const op_type* d_ops, std::size_t n, Value* d_results, hash_counts& counts, cudaStream_t stream) {
  counts.reset(stream);
  if (n == 0) return;
  lp_detail::apply_kernel<<<lp_detail::grid_for(n), lp_detail::kBlock, 0, stream>>>(ref(), d_ops, n, d_results,
                                                                                    counts.data());
  GRAPHKIT_CHECK_LAUNCH();
}

template <class Key, class Value, class Hash, unsigned WriteTile, unsigned FindTile, unsigned EraseTile, lp_grid Grid>
template <class Launch>
std::uint64_t linear_probing_map<Key, Value, Hash, WriteTile, FindTile, EraseTile, Grid>::counted(
    Launch&& launch, cudaStream_t stream) const {
  unsigned long long* count = scratch_.data() + lp_detail::kCount;
  GRAPHKIT_CUDA_TRY(cudaMemsetAsync(count, 0, sizeof(unsigned long long), stream));
  launch(count);
  GRAPHKIT_CHECK_LAUNCH();
  return read_one(count, stream);
}

template <class Key, class Value, class Hash, unsigned WriteTile, unsigned FindTile, unsigned EraseTile, lp_grid Grid>
std::uint64_t linear_probing_map<Key, Value, Hash, WriteTile, FindTile, EraseTile, Grid>::size(
    cudaStream_t stream) const {
  return counted(
      [&](unsigned long long* count) {
        lp_detail::count_live_kernel<<<lp_detail::grid_for(capacity()), lp_detail::kBlock, 0, stream>>>(ref(), count);
      },
      stream);
}

template <class Key, class Value, class Hash, unsigned WriteTile, unsigned FindTile, unsigned EraseTile, lp_grid Grid>
std::uint64_t linear_probing_map<Key, Value, Hash, WriteTile, FindTile, EraseTile, Grid>::retrieve_all(
    Key* d_keys_out, Value* d_values_out, cudaStream_t stream) const {
  return counted(
      [&](unsigned long long* count) {
        lp_detail::retrieve_kernel<<<lp_detail::grid_for(capacity()), lp_detail::kBlock, 0, stream>>>(
            ref(), d_keys_out, d_values_out, count);
      },
      stream);
}

template <class Key, class Value, class Hash, unsigned WriteTile, unsigned FindTile, unsigned EraseTile, lp_grid Grid>
void linear_probing_map<Key, Value, Hash, WriteTile, FindTile, EraseTile, Grid>::clear(cudaStream_t stream) {
  lp_detail::clear_kernel<<<lp_detail::grid_for(capacity()), lp_detail::kBlock, 0, stream>>>(ref());
  GRAPHKIT_CHECK_LAUNCH();
}

template <class Key, class Value, class Hash, unsigned WriteTile, unsigned FindTile, unsigned EraseTile, lp_grid Grid>
void linear_probing_map<Key, Value, Hash, WriteTile, FindTile, EraseTile, Grid>::rehash(std::size_t new_capacity,
                                                                                        cudaStream_t stream) {
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

template <class Key, class Value, class Hash, unsigned WriteTile, unsigned FindTile, unsigned EraseTile, lp_grid Grid>
probe_statistics linear_probing_map<Key, Value, Hash, WriteTile, FindTile, EraseTile, Grid>::probe_stats(
    cudaStream_t stream) const {
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
