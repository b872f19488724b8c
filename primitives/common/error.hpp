// Errors of graphkit: one hierarchy, so that every front end can map them to
// exit codes in one place (apps/common/options.hpp, guarded_main): input and
// resource errors exit 2, every other error (a broken precondition, a failed
// CUDA call) is internal and exits 3.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <stdexcept>
#include <string>

namespace graphkit {

/// Base of every error graphkit throws on purpose.
class error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Bad user input: a malformed file, an id out of range, an unknown format,
/// an impossible option. The message names the file and line where there is one.
class input_error : public error {
 public:
  using error::error;
};

/// Not enough of something for this input: GPU or host memory, a hash
/// table's slots. The message says how much was asked for and how much there is.
class resource_error : public error {
 public:
  using error::error;
};

/// A CUDA runtime call or kernel launch failed.
class cuda_error : public error {
 public:
  cuda_error(cudaError_t code, const char* call, const char* file, int line)
      : error(std::string(file) + ":" + std::to_string(line) + ": " + call + " failed: " + cudaGetErrorName(code) +
              " (" + cudaGetErrorString(code) + ")"),
        code_(code) {}
  [[nodiscard]] cudaError_t code() const noexcept { return code_; }

 private:
  cudaError_t code_;
};

/// "file:line: what" for input errors; line 0 means "no line" (e.g. a missing file).
inline input_error make_input_error(const std::string& file, std::size_t line, const std::string& what) {
  if (line == 0) return input_error(file + ": " + what);
  return input_error(file + ":" + std::to_string(line) + ": " + what);
}

}  // namespace graphkit

/// A precondition of a graphkit call (a programming error, not bad input):
/// throws graphkit::error naming the condition, file and line when it fails.
#define GRAPHKIT_EXPECTS(condition, what)                                                              \
  do {                                                                                                 \
    if (!(condition))                                                                                  \
      throw ::graphkit::error(std::string(__FILE__) + ":" + std::to_string(__LINE__) + ": " + (what) + \
                              " (expected " #condition ")");                                           \
  } while (0)

/// Throws graphkit::cuda_error naming the call, file and line when `call` fails.
#define GRAPHKIT_CUDA_TRY(call)                                                  \
  do {                                                                           \
    const cudaError_t graphkit_status_ = (call);                                 \
    if (graphkit_status_ != cudaSuccess) {                                       \
      (void)cudaGetLastError(); /* clear a sticky-free error */                  \
      throw ::graphkit::cuda_error(graphkit_status_, #call, __FILE__, __LINE__); \
    }                                                                            \
  } while (0)

/// Call right after every kernel launch. With GRAPHKIT_DEBUG_SYNC the launch is
/// also synchronized, so that an asynchronous fault is blamed on its kernel.
#ifdef GRAPHKIT_DEBUG_SYNC
#define GRAPHKIT_CHECK_LAUNCH()                 \
  do {                                          \
    GRAPHKIT_CUDA_TRY(cudaPeekAtLastError());   \
    GRAPHKIT_CUDA_TRY(cudaDeviceSynchronize()); \
  } while (0)
#else
#define GRAPHKIT_CHECK_LAUNCH() GRAPHKIT_CUDA_TRY(cudaPeekAtLastError())
#endif
