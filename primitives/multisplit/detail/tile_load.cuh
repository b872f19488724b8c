// Copying a tile of items from global into shared memory by cp.async, so
// that all of its loads are in flight at once and hold no registers: the
// one-sweep pass (onesweep.cuh) and the wide block post-scan (wide_tile.cuh)
// load their tiles with it.
#pragma once

#include <cuda_pipeline_primitives.h>

#include <cstddef>
#include <cstdint>

namespace graphkit::multisplit_detail {

/// Copies items [first, first + Tile) of `in` (those below n) into shared
/// `to` by cp.async: all of a tile's loads are in flight at once and hold no
/// registers; 16-byte chunks when the tile is whole and aligned, else one
/// item per copy (types of 4, 8 or 16 bytes aligned to their size: cp.async
/// copies at that alignment; any other type goes through registers).
/// Finished by __pipeline_wait_prior and a barrier.
template <int Threads, int Tile, class T>
__device__ __forceinline__ void load_tile_async(const T* in, std::size_t n, std::size_t first, T* to) {
  const std::size_t count = n - first < std::size_t{Tile} ? n - first : std::size_t{Tile};
  if constexpr (Tile * sizeof(T) % 16 == 0) {
    if (count == Tile && reinterpret_cast<std::uintptr_t>(in + first) % 16 == 0) {
      constexpr int kChunks = static_cast<int>(Tile * sizeof(T) / 16);
      const auto* from = reinterpret_cast<const char*>(in + first);
      auto* into = reinterpret_cast<char*>(to);
#pragma unroll 4
      for (int c = threadIdx.x; c < kChunks; c += Threads) __pipeline_memcpy_async(into + 16 * c, from + 16 * c, 16);
      return;
    }
  }
  for (std::size_t i = threadIdx.x; i < count; i += Threads) {
    if constexpr ((sizeof(T) == 4 || sizeof(T) == 8 || sizeof(T) == 16) && alignof(T) >= sizeof(T))
      __pipeline_memcpy_async(to + i, in + first + i, sizeof(T));
    else to[i] = in[first + i];
  }
}

}  // namespace graphkit::multisplit_detail
