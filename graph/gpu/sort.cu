// CUB sorts and scans for the GPU pipeline (see detail/sort.hpp).
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_select.cuh>
#include <cuda/functional>
#include <cuda/std/functional>
#include <thrust/iterator/transform_iterator.h>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_segmented_radix_sort.cuh>

#include <algorithm>

#include "graph/gpu/detail/sort.hpp"
#include "primitives/common/cuda_event.hpp"
#include "primitives/common/error.hpp"
#include "primitives/common/launch.hpp"

namespace graphkit::detail {
namespace {

/// CUB's scratch up to this size is kept between calls on a host thread:
/// a cudaMalloc and a cudaFree (which waits for the device) per call cost
/// more than the calls themselves on the build's source ranges (R-MAT 21
/// builds in ~14 ranges, each a scan, a sort and a merge). Larger scratch is
/// allocated per call, so that no big buffer outlives its step (its cudaFree
/// waits for the device, so the call on any stream is done with it first).
constexpr std::size_t kKeptScratchBytes = std::size_t{64} << 20;

/// The kept scratch and the event recorded after its last use: calls on one
/// host thread may come on different streams, and a call must not overwrite
/// scratch that an earlier one, on another stream, still reads.
struct kept_scratch {
  device_buffer<unsigned char> buffer;
  cuda_event last_use;
};

/// Runs a CUB call on `stream` twice: once for its temporary size, once for real.
template <class Call>
void with_temp(cudaStream_t stream, Call&& call) {
  std::size_t bytes = 0;
  GRAPHKIT_CUDA_TRY(call(nullptr, bytes, stream));
  bytes = std::max<std::size_t>(bytes, 1);
  if (bytes > kKeptScratchBytes) {
    device_buffer<unsigned char> temp(bytes);
    GRAPHKIT_CUDA_TRY(call(temp.data(), bytes, stream));
    return;
  }
  thread_local kept_scratch kept;
  if (kept.buffer.size() < bytes) {
    kept.buffer = {};  // freed before the larger one is asked for
    kept.buffer = device_buffer<unsigned char>(std::min(kKeptScratchBytes, bytes + bytes / 2));
  }
  kept.last_use.enqueue_wait(stream);
  std::size_t available = kept.buffer.size();
  GRAPHKIT_CUDA_TRY(call(kept.buffer.data(), available, stream));
  kept.last_use.record(stream);
}

template <class Value>
void sort_pairs_impl(device_buffer<std::uint64_t>& keys, device_buffer<Value>& values, std::size_t n, int end_bit,
                     cudaStream_t stream) {
  if (n < 2) return;
  device_buffer<std::uint64_t> keys_out(keys.size());
  device_buffer<Value> values_out(values.size());
  with_temp(stream, [&](void* temp, std::size_t& bytes, cudaStream_t s) {
    return cub::DeviceRadixSort::SortPairs(temp, bytes, keys.data(), keys_out.data(), values.data(), values_out.data(),
                                           n, 0, end_bit, s);
  });
  keys = std::move(keys_out);
  values = std::move(values_out);
}

}  // namespace

void sort_keys(device_buffer<std::uint64_t>& keys, std::size_t n, int end_bit, cudaStream_t stream) {
  if (n < 2) return;
  device_buffer<std::uint64_t> out(keys.size());
  with_temp(stream, [&](void* temp, std::size_t& bytes, cudaStream_t s) {
    return cub::DeviceRadixSort::SortKeys(temp, bytes, keys.data(), out.data(), n, 0, end_bit, s);
  });
  keys = std::move(out);
}

void sort_pairs(device_buffer<std::uint64_t>& keys, device_buffer<std::uint64_t>& values, std::size_t n, int end_bit,
                cudaStream_t stream) {
  sort_pairs_impl(keys, values, n, end_bit, stream);
}

void sort_pairs(device_buffer<std::uint64_t>& keys, device_buffer<std::int32_t>& values, std::size_t n, int end_bit,
                cudaStream_t stream) {
  sort_pairs_impl(keys, values, n, end_bit, stream);
}

void sort_segments(device_buffer<std::uint64_t>& keys, device_buffer<std::int32_t>& values, std::size_t n,
                   const std::uint32_t* offsets, std::uint32_t num_segments, int end_bit, cudaStream_t stream) {
  if (n < 2) return;
  device_buffer<std::uint64_t> keys_out(keys.size());
  device_buffer<std::int32_t> values_out(values.size());
  with_temp(stream, [&](void* temp, std::size_t& bytes, cudaStream_t s) {
    return cub::DeviceSegmentedRadixSort::SortPairs(
        temp, bytes, keys.data(), keys_out.data(), values.data(), values_out.data(), static_cast<int>(n),
        static_cast<int>(num_segments), offsets, offsets + 1, 0, end_bit, s);
  });
  keys = std::move(keys_out);
  values = std::move(values_out);
}

void sort_keys_ping_pong(device_buffer<std::uint64_t>& keys, device_buffer<std::uint64_t>& keys_alt, std::size_t n,
                         int end_bit, cudaStream_t stream) {
  if (n < 2) return;
  cub::DoubleBuffer<std::uint64_t> k(keys.data(), keys_alt.data());
  with_temp(stream, [&](void* temp, std::size_t& bytes, cudaStream_t s) {
    return cub::DeviceRadixSort::SortKeys(temp, bytes, k, n, 0, end_bit, s);
  });
  if (k.Current() != keys.data()) std::swap(keys, keys_alt);
}

void sort_pairs_ping_pong(device_buffer<std::uint64_t>& keys, device_buffer<std::uint64_t>& keys_alt,
                          device_buffer<std::int32_t>& values, device_buffer<std::int32_t>& values_alt, std::size_t n,
                          int end_bit, cudaStream_t stream) {
  if (n < 2) return;
  cub::DoubleBuffer<std::uint64_t> k(keys.data(), keys_alt.data());
  cub::DoubleBuffer<std::int32_t> v(values.data(), values_alt.data());
  with_temp(stream, [&](void* temp, std::size_t& bytes, cudaStream_t s) {
    return cub::DeviceRadixSort::SortPairs(temp, bytes, k, v, n, 0, end_bit, s);
  });
  if (k.Current() != keys.data()) std::swap(keys, keys_alt);
  if (v.Current() != values.data()) std::swap(values, values_alt);
}

namespace {

/// Runs a CUB call that reports a count on the device, and returns the count
/// (waits for `stream`, so the kept count is free again on return).
template <class Call>
std::size_t counted(cudaStream_t stream, Call&& call) {
  thread_local device_buffer<unsigned long long> count(1);  // kept, as the scratch is
  with_temp(stream, [&](void* temp, std::size_t& bytes, cudaStream_t s) { return call(temp, bytes, count.data(), s); });
  return read_one(count.data(), stream);
}

struct widen {
  __device__ std::int64_t operator()(std::int32_t w) const { return w; }
};

}  // namespace

std::size_t unique_keys(const std::uint64_t* keys, std::size_t n, std::uint64_t* keys_out, cudaStream_t stream) {
  if (n == 0) return 0;
  return counted(stream, [&](void* temp, std::size_t& bytes, unsigned long long* count, cudaStream_t s) {
    return cub::DeviceSelect::Unique(temp, bytes, keys, keys_out, count, n, s);
  });
}

std::size_t unique_pairs_first(const std::uint64_t* keys, const std::int32_t* values, std::size_t n,
                               std::uint64_t* keys_out, std::int32_t* values_out, cudaStream_t stream) {
  if (n == 0) return 0;
  return counted(stream, [&](void* temp, std::size_t& bytes, unsigned long long* count, cudaStream_t s) {
    // The equality named, so that the stream cannot be taken for it.
    return cub::DeviceSelect::UniqueByKey(temp, bytes, keys, values, keys_out, values_out, count, n,
                                          cuda::std::equal_to<>{}, s);
  });
}

std::size_t unique_pairs_min(const std::uint64_t* keys, const std::int32_t* values, std::size_t n,
                             std::uint64_t* keys_out, std::int32_t* values_out, cudaStream_t stream) {
  if (n == 0) return 0;
  return counted(stream, [&](void* temp, std::size_t& bytes, unsigned long long* count, cudaStream_t s) {
    return cub::DeviceReduce::ReduceByKey(temp, bytes, keys, keys_out, values, values_out, count, cuda::minimum<>{}, n,
                                          s);
  });
}

std::size_t unique_pairs_sum(const std::uint64_t* keys, const std::int32_t* values, std::size_t n,
                             std::uint64_t* keys_out, std::int64_t* sums_out, cudaStream_t stream) {
  if (n == 0) return 0;
  const auto wide = thrust::make_transform_iterator(values, widen{});
  return counted(stream, [&](void* temp, std::size_t& bytes, unsigned long long* count, cudaStream_t s) {
    return cub::DeviceReduce::ReduceByKey(temp, bytes, keys, keys_out, wide, sums_out, count, cuda::std::plus<>{}, n,
                                          s);
  });
}

void exclusive_scan(std::uint64_t* data, std::size_t n, cudaStream_t stream) {
  if (n == 0) return;
  with_temp(stream, [&](void* temp, std::size_t& bytes, cudaStream_t s) {
    return cub::DeviceScan::ExclusiveSum(temp, bytes, data, data, n, s);
  });
}

}  // namespace graphkit::detail
