// The pipeline's early memory check: a step that will not fit says so before
// it starts, with the bytes it needs and the bytes free, instead of failing
// half-way at whichever allocation runs out first.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>

#include "primitives/common/device_buffer.hpp"
#include "primitives/common/error.hpp"

namespace graphkit::detail {

inline void require_device_memory(const char* step, std::size_t edges, std::size_t bytes) {
  std::size_t free = 0, total = 0;
  GRAPHKIT_CUDA_TRY(cudaMemGetInfo(&free, &total));
  if (bytes > free) {
    throw device_memory_error(std::string(step) + ": " + std::to_string(edges) + " edges need about " +
                              std::to_string(bytes >> 20) + " MiB of GPU memory; " + std::to_string(free >> 20) +
                              " MiB are free (of " + std::to_string(total >> 20) + ")");
  }
}

}  // namespace graphkit::detail
