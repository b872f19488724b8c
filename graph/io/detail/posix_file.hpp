// A file opened for positioned reads (pread), shared by the readers that
// fill host memory (text_file.cpp) and those that stream a file to the GPU.
#pragma once

#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstring>
#include <string>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "primitives/common/error.hpp"

namespace graphkit::detail {

/// Bytes read from files by this process, for the apps' progress line (every
/// loader reads through posix_file::read_at).
inline std::atomic<std::size_t> g_file_bytes_read{0};

class posix_file {
 public:
  explicit posix_file(std::string path) : path_(std::move(path)), fd_(::open(path_.c_str(), O_RDONLY | O_CLOEXEC)) {
    if (fd_ < 0) throw make_input_error(path_, 0, std::string("cannot open: ") + std::strerror(errno));
  }
  ~posix_file() { ::close(fd_); }
  posix_file(const posix_file&) = delete;
  posix_file& operator=(const posix_file&) = delete;

  [[nodiscard]] int get() const noexcept { return fd_; }
  [[nodiscard]] const std::string& path() const noexcept { return path_; }

  /// The size of a regular file; -1 for pipes and devices (no size up front).
  [[nodiscard]] long long regular_size() const {
    struct stat info {};
    if (::fstat(fd_, &info) != 0) throw make_input_error(path_, 0, std::string("cannot stat: ") + std::strerror(errno));
    return S_ISREG(info.st_mode) ? static_cast<long long>(info.st_size) : -1;
  }

  /// pread until `bytes` are in or the file ends; returns the bytes read.
  std::size_t read_at(char* dst, std::size_t bytes, std::size_t offset) const {
    std::size_t done = 0;
    while (done < bytes) {
      const ssize_t got = ::pread(fd_, dst + done, bytes - done, static_cast<off_t>(offset + done));
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) throw make_input_error(path_, 0, std::string("read error: ") + std::strerror(errno));
      if (got == 0) break;
      done += static_cast<std::size_t>(got);
      g_file_bytes_read.fetch_add(static_cast<std::size_t>(got), std::memory_order_relaxed);
    }
    return done;
  }

 private:
  std::string path_;
  int fd_;
};

}  // namespace graphkit::detail
