// Named NVTX ranges, so that Nsight Systems shows graphkit's phases and rounds.
// NVTX costs nothing measurable when no tool is attached.
//
// GRAPHKIT_TRACE=1 also prints each range's start and end on stderr, in ms
// since the process started: a timeline of start-up, load and build where
// Nsight is not at hand (the phases of the report hide what overlaps).
#pragma once

#include <nvtx3/nvToolsExt.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

namespace graphkit {

namespace detail {

/// The process's start, near enough: static initialisation, before main.
inline const std::chrono::steady_clock::time_point trace_origin = std::chrono::steady_clock::now();

inline bool trace_wanted() noexcept {
  static const bool wanted = [] {
    const char* value = std::getenv("GRAPHKIT_TRACE");
    return value != nullptr && *value != '\0' && *value != '0';
  }();
  return wanted;
}

inline double trace_ms(std::chrono::steady_clock::time_point t) noexcept {
  return std::chrono::duration<double, std::milli>(t - trace_origin).count();
}

}  // namespace detail

class nvtx_range {
 public:
  explicit nvtx_range(const char* name) noexcept : name_(name) {
    nvtxRangePushA(name);
    if (detail::trace_wanted()) {
      start_ = std::chrono::steady_clock::now();
      std::fprintf(stderr, "graphkit trace %9.1f ms  begin %s\n", detail::trace_ms(start_), name_);
    }
  }
  nvtx_range(const nvtx_range&) = delete;
  nvtx_range& operator=(const nvtx_range&) = delete;
  ~nvtx_range() {
    nvtxRangePop();
    if (detail::trace_wanted()) {
      const auto now = std::chrono::steady_clock::now();
      std::fprintf(stderr, "graphkit trace %9.1f ms  end   %s (%.1f ms)\n", detail::trace_ms(now), name_,
                   std::chrono::duration<double, std::milli>(now - start_).count());
    }
  }

 private:
  const char* name_;
  std::chrono::steady_clock::time_point start_{};
};

}  // namespace graphkit
