// Whole-file reads for the text loaders: the file's bytes by several threads
// at once; gzip streams (told by their magic bytes, not their name) are then
// decompressed in memory (gunzip.hpp).
//
// Why several readers: one read() of a page-cached file copies at ~7 GB/s on
// our H100 host, 16 readers on disjoint ranges at ~19 GB/s; and the buffer's
// fresh pages, faulted in one by one, would cost more than the copy, so the
// buffer asks for huge pages and each reader faults in its own range.
#pragma once

#include <cstddef>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>

namespace graphkit::detail {

/// Zero bytes that follow every text_buffer's text, so that the parsers' fast
/// paths may read a word past any position up to the end, and stop at the
/// zero, without checking the end at every byte.
inline constexpr std::size_t kTextPadding = 64;

/// A file's bytes in memory the loader owns; moved, never copied.
class text_buffer {
 public:
  text_buffer() = default;
  /// Takes `data` (from std::malloc or std::aligned_alloc) holding `size`
  /// bytes and room for kTextPadding more, which it zeroes.
  text_buffer(char* data, std::size_t size) : data_(data), size_(size) {
    if (data != nullptr) std::memset(data + size, 0, kTextPadding);
  }

  /// The text; kTextPadding zero bytes follow it (while the buffer lives).
  [[nodiscard]] std::string_view view() const noexcept { return {data_.get(), size_}; }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  /// Frees the bytes now (the parsed edges outlive the text).
  void release() noexcept { data_.reset(), size_ = 0; }

 private:
  struct freer {
    void operator()(char* p) const noexcept;
  };
  std::unique_ptr<char, freer> data_;
  std::size_t size_ = 0;
};

/// The file's bytes, read by up to `threads` threads (0: every hardware
/// thread) and decompressed if they are gzip. Throws input_error naming the
/// file when it is missing, unreadable, a truncated/corrupt gzip stream, or
/// empty where its name promises gzip (".gz").
text_buffer read_text_file(const std::string& path, unsigned threads = 0);

/// True when the file starts with the gzip magic bytes.
bool is_gzip_file(const std::string& path);

/// Uninitialized memory for `bytes`, plus kTextPadding (std::free it, or hand
/// it to a text_buffer), aligned so that huge pages can back it. Pages are
/// faulted in only when written, so a generous size costs address space, not memory.
char* allocate_text(std::size_t bytes);

}  // namespace graphkit::detail
