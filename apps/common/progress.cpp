#include "apps/common/progress.hpp"

#include <unistd.h>

#include <algorithm>

#include "graph/io/detail/posix_file.hpp"

namespace graphkit::apps {
namespace {

std::string with_commas(std::size_t value) {
  std::string digits = std::to_string(value), out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::size_t bytes_read() { return detail::g_file_bytes_read.load(std::memory_order_relaxed); }

}  // namespace

std::string progress_text(const char* phase, std::size_t bytes, double seconds) {
  char rest[64];
  std::snprintf(rest, sizeof rest, "%.1f s", seconds);
  if (bytes == 0) return std::string(phase) + ": " + rest;
  const double mb = static_cast<double>(bytes) / 1e6;
  return std::string(phase) + ": " + with_commas(static_cast<std::size_t>(mb)) + " MB read, " +
         with_commas(static_cast<std::size_t>(mb / std::max(seconds, 1e-9))) + " MB/s, " + rest;
}

progress_line::progress_line(const char* phase, std::FILE* out, double delay, bool force)
    : phase_(phase), out_(out), delay_(delay), bytes_at_start_(bytes_read()) {
  if (force || ::isatty(::fileno(out_)) == 1) watcher_ = std::thread([this] { watch(); });
}

progress_line::~progress_line() {
  if (!watcher_.joinable()) return;
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  stop_signal_.notify_one();
  watcher_.join();
  if (printed_) std::fprintf(out_, "\r\033[K"), std::fflush(out_);  // wipe the line
}

void progress_line::watch() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    const auto wait =
        printed_ ? std::chrono::milliseconds(250)
                 : std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::duration<double>(delay_));
    if (stop_signal_.wait_for(lock, wait, [this] { return stop_; })) return;
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    if (seconds < delay_) continue;
    const std::string text = progress_text(phase_, bytes_read() - bytes_at_start_, seconds);
    std::fprintf(out_, "\r\033[K%s", text.c_str());
    std::fflush(out_);
    printed_ = true;
  }
}

}  // namespace graphkit::apps
