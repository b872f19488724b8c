// Kernels and host side of linear_probing_map.
#pragma once

#include <algorithm>
#include <string>

#include "primitives/common/error.hpp"
#include "primitives/common/launch.hpp"

namespace graphkit {
namespace hash_detail {

enum counter : int { kFailed = 0, kSentinel = 1, kErased = 2, kCount = 3, kMaxProbe = 4, kProbeSum = 5, kHistogram = 6 };
inline constexpr int kHistogramBins = 40;
inline constexpr int kCounters = kHistogram + kHistogramBins;

/// Adds the number of lanes voting `yes` to *counter with one atomic per warp.
/// Every lane of the warp must call it.
__device__ inline void add_votes(bool yes, unsigned long long* counter) {
  const unsigned votes = __ballot_sync(0xffffffffu, yes);
  if (votes != 0 && (threadIdx.x & 31) == 0) atomicAdd(counter, static_cast<unsigned long long>(__popc(votes)));
}

// Grid-stride loops whose warps stay together, so that add_votes can vote.
#define GRAPHKIT_WARP_UNIFORM_LOOP(i, n)                                                      \
  for (std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x,                  \
                   graphkit_end_ = ((n) + 31) / 32 * 32;                                     \
       i < graphkit_end_; i += std::size_t{gridDim.x} * blockDim.x)

template <class Ref>
__global__ void insert_kernel(Ref table, const decltype(Ref::empty_key)* keys, const decltype(Ref::empty_value)* values,
                              std::size_t n, unsigned long long* counters) {
  GRAPHKIT_WARP_UNIFORM_LOOP(i, n) {
    bool sentinel = false, failed = false;
    if (i < n) {
      const auto k = keys[i];
      const auto v = values[i];
      sentinel = k == table.empty_key || v == table.empty_value;
      if (!sentinel) failed = !table.insert(k, v);
    }
    add_votes(sentinel, counters + kSentinel);
    add_votes(failed, counters + kFailed);
  }
}

template <class Ref>
__global__ void find_kernel(Ref table, const decltype(Ref::empty_key)* keys, std::size_t n,
                            decltype(Ref::empty_value)* out) {
  for (std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x)
    out[i] = table.find(keys[i]);
}

template <class Ref>
__global__ void contains_kernel(Ref table, const decltype(Ref::empty_key)* keys, std::size_t n, std::uint8_t* out) {
  for (std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x)
    out[i] = table.contains(keys[i]) ? 1 : 0;
}

template <class Ref>
__global__ void erase_kernel(Ref table, const decltype(Ref::empty_key)* keys, std::size_t n, unsigned long long* counters) {
  GRAPHKIT_WARP_UNIFORM_LOOP(i, n) {
    bool erased = false;
    if (i < n && keys[i] != table.empty_key) erased = table.erase(keys[i]);
    add_votes(erased, counters + kErased);
  }
}

template <class Ref>
__device__ inline bool live(const Ref& table, std::size_t i) {
  return Ref::load_key(table.slots[i]) != table.empty_key && Ref::load_value(table.slots[i]) != table.empty_value;
}

template <class Ref>
__global__ void count_live(Ref table, unsigned long long* counters) {
  GRAPHKIT_WARP_UNIFORM_LOOP(i, table.capacity) { add_votes(i < table.capacity && live(table, i), counters + kCount); }
}

/// Live entries out, in no particular order: one atomic per warp for the place.
template <class Ref>
__global__ void retrieve_kernel(Ref table, decltype(Ref::empty_key)* keys_out, decltype(Ref::empty_value)* values_out,
                                unsigned long long* counters) {
  GRAPHKIT_WARP_UNIFORM_LOOP(i, table.capacity) {
    const bool mine = i < table.capacity && live(table, i);
    const unsigned votes = __ballot_sync(0xffffffffu, mine);
    unsigned long long base = 0;
    if ((threadIdx.x & 31) == 0 && votes != 0) base = atomicAdd(counters + kCount, static_cast<unsigned long long>(__popc(votes)));
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
  for (std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x; i < table.capacity; i += std::size_t{gridDim.x} * blockDim.x)
    table.slots[i] = {table.empty_key, table.empty_value};
}

template <class Ref>
__global__ void probe_stats_kernel(Ref table, unsigned long long* counters) {
  for (std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x; i < table.capacity; i += std::size_t{gridDim.x} * blockDim.x) {
    if (!live(table, i)) continue;
    const std::size_t home = table.home(table.slots[i].key);
    const std::size_t length = (i >= home ? i - home : i + table.capacity - home) + 1;
    atomicAdd(counters + kCount, 1ull);
    atomicAdd(counters + kProbeSum, static_cast<unsigned long long>(length));
    atomicMax(counters + kMaxProbe, static_cast<unsigned long long>(length));
    atomicAdd(counters + kHistogram + (63 - __clzll(static_cast<long long>(length))), 1ull);
  }
}

/// The kernels loop grid-stride: 32 blocks per multiprocessor of this device.
inline unsigned grid_for(std::size_t n) { return graphkit::grid_stride_blocks(n); }

}  // namespace hash_detail

template <class Key, class Value, class Hash>
linear_probing_map<Key, Value, Hash>::linear_probing_map(std::size_t capacity, graphkit::empty_key<Key> key_sentinel,
                                                         graphkit::empty_value<Value> value_sentinel, cudaStream_t stream)
    : empty_key_(key_sentinel.value),
      empty_value_(value_sentinel.value),
      slots_(std::max<std::size_t>(capacity, 1)),
      counters_(hash_detail::kCounters) {
  clear(stream);
}

template <class Key, class Value, class Hash>
void linear_probing_map<Key, Value, Hash>::insert_async(const Key* d_keys, const Value* d_values, std::size_t n,
                                                        cudaStream_t stream) {
  GRAPHKIT_CUDA_TRY(cudaMemsetAsync(counters_.data(), 0, 3 * sizeof(unsigned long long), stream));
  if (n == 0) return;
  hash_detail::insert_kernel<<<hash_detail::grid_for(n), 256, 0, stream>>>(ref(), d_keys, d_values, n, counters_.data());
  GRAPHKIT_CHECK_LAUNCH();
}

template <class Key, class Value, class Hash>
hash_report linear_probing_map<Key, Value, Hash>::last_report(cudaStream_t stream) const {
  unsigned long long c[3] = {};
  GRAPHKIT_CUDA_TRY(cudaMemcpyAsync(c, counters_.data(), sizeof c, cudaMemcpyDeviceToHost, stream));
  GRAPHKIT_CUDA_TRY(cudaStreamSynchronize(stream));
  return {c[0], c[1], c[2]};
}

template <class Key, class Value, class Hash>
void linear_probing_map<Key, Value, Hash>::insert(const Key* d_keys, const Value* d_values, std::size_t n,
                                                  cudaStream_t stream) {
  insert_async(d_keys, d_values, n, stream);
  const hash_report report = last_report(stream);
  if (report.sentinel != 0)
    throw error("linear_probing_map::insert: " + std::to_string(report.sentinel) + " of " + std::to_string(n) +
                " pairs hold a sentinel (empty key " + std::to_string(empty_key_) + " or empty value " +
                std::to_string(empty_value_) + ") and were not inserted");
  if (report.failed != 0)
    throw resource_error("linear_probing_map::insert: table full: " + std::to_string(report.failed) + " of " + std::to_string(n) +
                " inserts found no free slot among " + std::to_string(capacity()) + " (rehash to a larger capacity)");
}

template <class Key, class Value, class Hash>
void linear_probing_map<Key, Value, Hash>::find_async(const Key* d_keys, std::size_t n, Value* d_values_out,
                                                      cudaStream_t stream) const {
  if (n == 0) return;
  hash_detail::find_kernel<<<hash_detail::grid_for(n), 256, 0, stream>>>(ref(), d_keys, n, d_values_out);
  GRAPHKIT_CHECK_LAUNCH();
}

template <class Key, class Value, class Hash>
void linear_probing_map<Key, Value, Hash>::contains_async(const Key* d_keys, std::size_t n, std::uint8_t* d_found,
                                                          cudaStream_t stream) const {
  if (n == 0) return;
  hash_detail::contains_kernel<<<hash_detail::grid_for(n), 256, 0, stream>>>(ref(), d_keys, n, d_found);
  GRAPHKIT_CHECK_LAUNCH();
}

template <class Key, class Value, class Hash>
void linear_probing_map<Key, Value, Hash>::erase_async(const Key* d_keys, std::size_t n, cudaStream_t stream) {
  GRAPHKIT_CUDA_TRY(cudaMemsetAsync(counters_.data(), 0, 3 * sizeof(unsigned long long), stream));
  if (n == 0) return;
  hash_detail::erase_kernel<<<hash_detail::grid_for(n), 256, 0, stream>>>(ref(), d_keys, n, counters_.data());
  GRAPHKIT_CHECK_LAUNCH();
}

template <class Key, class Value, class Hash>
std::uint64_t linear_probing_map<Key, Value, Hash>::erase(const Key* d_keys, std::size_t n, cudaStream_t stream) {
  erase_async(d_keys, n, stream);
  return last_report(stream).erased;
}

template <class Key, class Value, class Hash>
template <class Launch>
std::uint64_t linear_probing_map<Key, Value, Hash>::counted(Launch&& launch, cudaStream_t stream) const {
  unsigned long long* count = counters_.data() + hash_detail::kCount;
  GRAPHKIT_CUDA_TRY(cudaMemsetAsync(count, 0, sizeof(unsigned long long), stream));
  launch();
  GRAPHKIT_CHECK_LAUNCH();
  unsigned long long result = 0;
  GRAPHKIT_CUDA_TRY(cudaMemcpyAsync(&result, count, sizeof result, cudaMemcpyDeviceToHost, stream));
  GRAPHKIT_CUDA_TRY(cudaStreamSynchronize(stream));
  return result;
}

template <class Key, class Value, class Hash>
std::uint64_t linear_probing_map<Key, Value, Hash>::size(cudaStream_t stream) const {
  return counted([&] { hash_detail::count_live<<<hash_detail::grid_for(capacity()), 256, 0, stream>>>(ref(), counters_.data()); },
                 stream);
}

template <class Key, class Value, class Hash>
std::uint64_t linear_probing_map<Key, Value, Hash>::retrieve_all(Key* d_keys_out, Value* d_values_out,
                                                                 cudaStream_t stream) const {
  return counted(
      [&] {
        hash_detail::retrieve_kernel<<<hash_detail::grid_for(capacity()), 256, 0, stream>>>(ref(), d_keys_out,
                                                                                             d_values_out, counters_.data());
      },
      stream);
}

template <class Key, class Value, class Hash>
void linear_probing_map<Key, Value, Hash>::clear(cudaStream_t stream) {
  hash_detail::clear_kernel<<<hash_detail::grid_for(capacity()), 256, 0, stream>>>(ref());
  GRAPHKIT_CHECK_LAUNCH();
}

template <class Key, class Value, class Hash>
void linear_probing_map<Key, Value, Hash>::rehash(std::size_t new_capacity, cudaStream_t stream) {
  const std::uint64_t live = size(stream);
  if (new_capacity < live)
    throw error("linear_probing_map::rehash: " + std::to_string(new_capacity) + " slots cannot hold " +
                std::to_string(live) + " entries");
  device_buffer<Key> keys(live);
  device_buffer<Value> values(live);
  (void)retrieve_all(keys.data(), values.data(), stream);
  slots_ = device_buffer<slot>(std::max<std::size_t>(new_capacity, 1));
  clear(stream);
  insert(keys.data(), values.data(), live, stream);
}

template <class Key, class Value, class Hash>
probe_statistics linear_probing_map<Key, Value, Hash>::probe_stats(cudaStream_t stream) const {
  GRAPHKIT_CUDA_TRY(cudaMemsetAsync(counters_.data() + hash_detail::kCount, 0,
                                    (hash_detail::kCounters - hash_detail::kCount) * sizeof(unsigned long long), stream));
  hash_detail::probe_stats_kernel<<<hash_detail::grid_for(capacity()), 256, 0, stream>>>(ref(), counters_.data());
  GRAPHKIT_CHECK_LAUNCH();
  std::vector<unsigned long long> c(hash_detail::kCounters);
  GRAPHKIT_CUDA_TRY(cudaMemcpyAsync(c.data(), counters_.data(), c.size() * sizeof(unsigned long long), cudaMemcpyDeviceToHost, stream));
  GRAPHKIT_CUDA_TRY(cudaStreamSynchronize(stream));
  probe_statistics stats;
  stats.keys = c[hash_detail::kCount];
  stats.max = static_cast<std::uint32_t>(c[hash_detail::kMaxProbe]);
  stats.mean = stats.keys ? static_cast<double>(c[hash_detail::kProbeSum]) / stats.keys : 0.0;
  int last = hash_detail::kHistogramBins;
  while (last > 0 && c[hash_detail::kHistogram + last - 1] == 0) --last;
  stats.histogram.assign(c.begin() + hash_detail::kHistogram, c.begin() + hash_detail::kHistogram + last);
  return stats;
}

}  // namespace graphkit
