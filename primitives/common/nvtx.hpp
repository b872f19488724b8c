// Named NVTX ranges, so that Nsight Systems shows graphkit's phases and rounds.
// NVTX costs nothing measurable when no tool is attached.
#pragma once

#include <nvtx3/nvToolsExt.h>

namespace graphkit {

class nvtx_range {
 public:
  explicit nvtx_range(const char* name) noexcept { nvtxRangePushA(name); }
  nvtx_range(const nvtx_range&) = delete;
  nvtx_range& operator=(const nvtx_range&) = delete;
  ~nvtx_range() { nvtxRangePop(); }
};

}  // namespace graphkit
