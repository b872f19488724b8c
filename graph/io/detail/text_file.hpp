// Whole-file reads for the text loaders: the file's bytes by several threads
// at once; gzip streams (told by their magic bytes, not their name) are then
// decompressed in memory (gunzip.hpp).
//
// A regular file is mapped from the page cache (map_file): no copy and no
// fresh pages for the text, each reader mapping its blocks' pages and
// counting their newlines. Where it cannot be mapped (gzip's output, pipes)
// it is read by several threads: one read() of a page-cached file copies at
// ~7 GB/s on our H100 host, 16 readers on disjoint ranges at ~19 GB/s; and
// the buffer's fresh pages, faulted in one by one, would cost more than the
// copy, so the buffer asks for huge pages and each reader faults in its own
// range.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace graphkit::detail {

/// Zero bytes that follow every text_buffer's text, so that the parsers' fast
/// paths may read a word past any position up to the end, and stop at the
/// zero, without checking the end at every byte.
inline constexpr std::size_t kTextPadding = 64;

/// Bytes per entry of a text_buffer's newline counts.
inline constexpr std::size_t kNewlineBlock = 1u << 20;

/// Newlines in each kNewlineBlock of the text at `base` (the last block may
/// be shorter), counted by the readers while each block was in cache, so that
/// the parsers need not read the whole text once more to count its lines.
struct newline_counts {
  const char* base = nullptr;
  std::span<const std::uint32_t> blocks;  ///< empty: not counted
};

/// Newlines in [p, end).
inline std::size_t count_newlines(const char* p, const char* end) {
  std::size_t newlines = 0;
#if defined(__SSE2__)
  // A byte counter per lane for up to 255 loads, summed by psadbw: ~16 bytes
  // a cycle, 3x the compiler's vectorization of the loop below (which widens
  // every byte to a 64-bit sum).
  const __m128i lf = _mm_set1_epi8('\n');
  while (end - p >= 16) {
    const auto loads = std::min<std::size_t>(static_cast<std::size_t>(end - p) / 16, 255);
    __m128i counts = _mm_setzero_si128();
    for (std::size_t i = 0; i < loads; ++i, p += 16)
      counts = _mm_sub_epi8(counts, _mm_cmpeq_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)), lf));
    const __m128i sums = _mm_sad_epu8(counts, _mm_setzero_si128());
    newlines +=
        static_cast<std::size_t>(_mm_cvtsi128_si32(sums)) + static_cast<std::size_t>(_mm_extract_epi16(sums, 4));
  }
#endif
  for (; p < end; ++p) newlines += *p == '\n';
  return newlines;
}

/// A file's bytes in memory the loader owns; moved, never copied.
class text_buffer {
 public:
  text_buffer() = default;
  /// Takes `data` (from std::malloc or std::aligned_alloc) holding `size`
  /// bytes and room for kTextPadding more, which it zeroes.
  text_buffer(char* data, std::size_t size) : data_(data), size_(size) {
    if (data != nullptr) std::memset(data + size, 0, kTextPadding);
  }
  /// Takes a mapping of `span` bytes at `data` (munmap'd when freed) whose
  /// first `size` bytes are the text and whose next kTextPadding bytes are zero.
  static text_buffer mapped(char* data, std::size_t size, std::size_t span) noexcept;

  /// The text; kTextPadding zero bytes follow it (while the buffer lives).
  [[nodiscard]] std::string_view view() const noexcept { return {data_.get(), size_}; }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  /// Frees the bytes now (the parsed edges outlive the text).
  void release() noexcept { data_.reset(), size_ = 0, newlines_.clear(); }

  /// What the reader counted (nothing, for gzip and pipes).
  [[nodiscard]] newline_counts newlines() const noexcept { return {data_.get(), newlines_}; }
  void set_newlines(std::vector<std::uint32_t> blocks) noexcept { newlines_ = std::move(blocks); }

 private:
  struct freer {
    std::size_t mapped;  ///< bytes to munmap; 0 (as value-initialized): memory to std::free
    void operator()(char* p) const noexcept;
  };
  std::unique_ptr<char, freer> data_;
  std::size_t size_ = 0;
  std::vector<std::uint32_t> newlines_;
};

/// How a regular file's bytes come into memory: mapped from the page cache
/// (where the kernel allows it, else copied), or copied by pread into
/// memory of the loader's own (the tests try both).
enum class text_source { map, copy };

/// The file's bytes, by up to `threads` threads (0: every hardware thread),
/// decompressed if they are gzip. Throws input_error naming the file when it
/// is missing, unreadable, shrinks while it is read, is a truncated/corrupt
/// gzip stream, or is empty where its name promises gzip (".gz"). A mapped
/// file that shrinks later, while it is parsed, ends the process (SIGBUS).
text_buffer read_text_file(const std::string& path, unsigned threads = 0, text_source source = text_source::map);

/// True when the file starts with the gzip magic bytes.
bool is_gzip_file(const std::string& path);

/// Uninitialized memory for `bytes`, plus kTextPadding (std::free it, or hand
/// it to a text_buffer), aligned so that huge pages can back it. Pages are
/// faulted in only when written, so a generous size costs address space, not memory.
char* allocate_text(std::size_t bytes);

}  // namespace graphkit::detail
