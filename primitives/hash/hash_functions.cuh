// Hash functions shared by graphkit's hash tables: the MurmurHash3 finalizers
// (fmix32 / fmix64), which mix every input bit into every output bit at a few
// multiply-xorshift steps: cheap on a GPU, and good enough for open addressing
// on adversarial-free graph ids.
#pragma once

#include <cstdint>

namespace graphkit {

struct murmur3_hash {
  __host__ __device__ constexpr std::uint32_t operator()(std::uint32_t k) const {
    k ^= k >> 16;
    k *= 0x85ebca6bu;
    k ^= k >> 13;
    k *= 0xc2b2ae35u;
    k ^= k >> 16;
    return k;
  }
  __host__ __device__ constexpr std::uint64_t operator()(std::uint64_t k) const {
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ULL;
    k ^= k >> 33;
    return k;
  }
};

}  // namespace graphkit
