// A progress line for long phases: after a second of loading or building, the
// phase, the bytes read so far and their rate appear on stderr, rewritten in
// place four times a second, and are wiped when the phase ends. Only when
// stderr is a terminal: logs and pipes get nothing.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <string>
#include <thread>

namespace graphkit::apps {

/// "load: 1,234 MB read, 987 MB/s, 1.3 s" (no bytes part when none were read).
std::string progress_text(const char* phase, std::size_t bytes, double seconds);

class progress_line {
 public:
  /// Watches `phase` on `out` (stderr by default); prints only when `out` is a
  /// terminal, or always with `force` (tests), after `delay` seconds.
  explicit progress_line(const char* phase, std::FILE* out = stderr, double delay = 1.0, bool force = false);
  ~progress_line();
  progress_line(const progress_line&) = delete;
  progress_line& operator=(const progress_line&) = delete;

 private:
  void watch();

  const char* phase_;
  std::FILE* out_;
  double delay_;
  std::size_t bytes_at_start_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::mutex mutex_;
  std::condition_variable stop_signal_;
  bool stop_ = false;
  bool printed_ = false;
  std::thread watcher_;
};

}  // namespace graphkit::apps
