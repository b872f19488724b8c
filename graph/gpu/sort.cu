// CUB sorts and scans for the GPU pipeline (see detail/sort.hpp).
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_segmented_radix_sort.cuh>

#include <algorithm>

#include "graph/gpu/detail/sort.hpp"
#include "primitives/common/error.hpp"

namespace graphkit::detail {
namespace {

/// Runs a CUB call twice: once for its temporary size, once for real.
template <class Call>
void with_temp(Call&& call) {
  std::size_t bytes = 0;
  GRAPHKIT_CUDA_TRY(call(nullptr, bytes));
  device_buffer<unsigned char> temp(std::max<std::size_t>(bytes, 1));
  GRAPHKIT_CUDA_TRY(call(temp.data(), bytes));
}

template <class Value>
void sort_pairs_impl(device_buffer<std::uint64_t>& keys, device_buffer<Value>& values, std::size_t n, int end_bit) {
  if (n < 2) return;
  device_buffer<std::uint64_t> keys_out(keys.size());
  device_buffer<Value> values_out(values.size());
  with_temp([&](void* temp, std::size_t& bytes) {
    return cub::DeviceRadixSort::SortPairs(temp, bytes, keys.data(), keys_out.data(), values.data(),
                                           values_out.data(), n, 0, end_bit);
  });
  keys = std::move(keys_out);
  values = std::move(values_out);
}

}  // namespace

void sort_keys(device_buffer<std::uint64_t>& keys, std::size_t n, int end_bit) {
  if (n < 2) return;
  device_buffer<std::uint64_t> out(keys.size());
  with_temp([&](void* temp, std::size_t& bytes) {
    return cub::DeviceRadixSort::SortKeys(temp, bytes, keys.data(), out.data(), n, 0, end_bit);
  });
  keys = std::move(out);
}

void sort_pairs(device_buffer<std::uint64_t>& keys, device_buffer<std::uint64_t>& values, std::size_t n,
                int end_bit) {
  sort_pairs_impl(keys, values, n, end_bit);
}

void sort_pairs(device_buffer<std::uint64_t>& keys, device_buffer<std::int32_t>& values, std::size_t n,
                int end_bit) {
  sort_pairs_impl(keys, values, n, end_bit);
}

void sort_segments(device_buffer<std::uint64_t>& keys, device_buffer<std::int32_t>& values, std::size_t n,
                   const std::uint32_t* offsets, std::uint32_t num_segments, int end_bit) {
  if (n < 2) return;
  device_buffer<std::uint64_t> keys_out(keys.size());
  device_buffer<std::int32_t> values_out(values.size());
  with_temp([&](void* temp, std::size_t& bytes) {
    return cub::DeviceSegmentedRadixSort::SortPairs(temp, bytes, keys.data(), keys_out.data(), values.data(),
                                                    values_out.data(), static_cast<int>(n),
                                                    static_cast<int>(num_segments), offsets, offsets + 1, 0,
                                                    end_bit);
  });
  keys = std::move(keys_out);
  values = std::move(values_out);
}

void exclusive_scan(std::uint64_t* data, std::size_t n) {
  if (n == 0) return;
  with_temp([&](void* temp, std::size_t& bytes) {
    return cub::DeviceScan::ExclusiveSum(temp, bytes, data, data, n);
  });
}

}  // namespace graphkit::detail
