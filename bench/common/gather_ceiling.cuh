// The random-gather ceiling, measured in the benchmark's own run: random
// 8-byte reads over 1 GiB, the best a hash probe or a graph relaxation can do
// per random access.
#pragma once

#include "bench/common/gpu_timer.cuh"
#include "primitives/common/device_buffer.hpp"
#include "primitives/hash/hash_functions.cuh"

namespace graphkit::bench {

static __global__ void random_gather(const unsigned long long* table, std::size_t size, std::size_t n,
                                     unsigned long long* sink) {
  const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (i < n) {
    const unsigned long long v = table[murmur3_hash{}(static_cast<std::uint64_t>(i)) % size];
    if (v == 42) *sink = v;  // keeps the load
  }
}

/// Random 8-byte gathers per second over 1 GiB (median of 5 after warm-ups).
inline double gather_ceiling() {
  const std::size_t words = std::size_t{1} << 27;
  device_buffer<unsigned long long> big(words), sink(1);
  big.fill_bytes(0);
  gpu_timer t;
  const double ms = t.median_ms(5, [&] {
    random_gather<<<static_cast<unsigned>(words / 256), 256>>>(big.data(), words, words, sink.data());
    GRAPHKIT_CHECK_LAUNCH();
  });
  return words / (ms * 1e-3);
}

}  // namespace graphkit::bench
