// The pipeline's sorts and scans, instantiated once in graph/gpu/sort.cu so
// that CUB's heavy templates compile in one translation unit. Each runs on
// `stream` (the legacy default stream unless given); a call that returns a
// count waits for it, the others only enqueue.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "primitives/common/device_buffer.hpp"

namespace graphkit::detail {

/// Sorts the first n keys ascending on bits [0, end_bit); the buffers are
/// replaced by sorted ones of the same size.
void sort_keys(device_buffer<std::uint64_t>& keys, std::size_t n, int end_bit = 64, cudaStream_t stream = nullptr);
void sort_pairs(device_buffer<std::uint64_t>& keys, device_buffer<std::uint64_t>& values, std::size_t n,
                int end_bit = 64, cudaStream_t stream = nullptr);
void sort_pairs(device_buffer<std::uint64_t>& keys, device_buffer<std::int32_t>& values, std::size_t n,
                int end_bit = 64, cudaStream_t stream = nullptr);

/// Sorts each segment [offsets[s], offsets[s + 1]) of the first n pairs on
/// bits [0, end_bit); `offsets` holds num_segments + 1 device values.
void sort_segments(device_buffer<std::uint64_t>& keys, device_buffer<std::int32_t>& values, std::size_t n,
                   const std::uint32_t* offsets, std::uint32_t num_segments, int end_bit,
                   cudaStream_t stream = nullptr);

/// Sorts the first n keys (with their values) on bits [0, end_bit), moving
/// between each buffer and its alternate of the same size: no third copy, as
/// sort_keys and sort_pairs make. The result is in `keys` / `values` (the
/// buffers are swapped where the sort ended in the alternates); the
/// alternates are left as scratch. Stable.
void sort_keys_ping_pong(device_buffer<std::uint64_t>& keys, device_buffer<std::uint64_t>& keys_alt, std::size_t n,
                         int end_bit, cudaStream_t stream = nullptr);
void sort_pairs_ping_pong(device_buffer<std::uint64_t>& keys, device_buffer<std::uint64_t>& keys_alt,
                          device_buffer<std::int32_t>& values, device_buffer<std::int32_t>& values_alt, std::size_t n,
                          int end_bit, cudaStream_t stream = nullptr);

/// Runs of equal keys among the first n sorted keys, each written once to
/// keys_out; returns how many.
std::size_t unique_keys(const std::uint64_t* keys, std::size_t n, std::uint64_t* keys_out,
                        cudaStream_t stream = nullptr);
/// ... with the value of each run's first pair.
std::size_t unique_pairs_first(const std::uint64_t* keys, const std::int32_t* values, std::size_t n,
                               std::uint64_t* keys_out, std::int32_t* values_out, cudaStream_t stream = nullptr);
/// ... with the smallest value of each run.
std::size_t unique_pairs_min(const std::uint64_t* keys, const std::int32_t* values, std::size_t n,
                             std::uint64_t* keys_out, std::int32_t* values_out, cudaStream_t stream = nullptr);
/// ... with the 64-bit sum of each run's values.
std::size_t unique_pairs_sum(const std::uint64_t* keys, const std::int32_t* values, std::size_t n,
                             std::uint64_t* keys_out, std::int64_t* sums_out, cudaStream_t stream = nullptr);

/// In place: data[i] = data[0] + ... + data[i - 1] over n values (data[0] = 0).
void exclusive_scan(std::uint64_t* data, std::size_t n, cudaStream_t stream = nullptr);

/// Bits needed for values below `bound` (at least 1).
inline int bits_for(std::uint64_t bound) {
  int bits = 1;
  while (bits < 64 && (std::uint64_t{1} << bits) < bound) ++bits;
  return bits;
}

}  // namespace graphkit::detail
