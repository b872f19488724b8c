#include "graph/io/detail/text_file.hpp"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <new>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "graph/detail/parallel.hpp"
#include "graph/io/detail/gunzip.hpp"
#include "graph/io/detail/posix_file.hpp"
#include "primitives/common/error.hpp"
#include "primitives/common/nvtx.hpp"

namespace graphkit::detail {
namespace {

constexpr std::size_t kHugePage = 2u << 20;
/// Each reader's share is whole pieces of this size, so that a reader
/// faults in and fills pages it will reuse from the cache soon after.
constexpr std::size_t kReadPiece = 8u << 20;
static_assert(kReadPiece % kNewlineBlock == 0, "a block is read by one reader");

/// Reads a stream of unknown length: read_some(dst, max) returns the bytes
/// it put at dst, 0 at the end, and throws on errors. At least 1 MiB stays
/// free at the end, room for the text_buffer's padding.
template <class ReadSome>
text_buffer read_growing(ReadSome&& read_some) {
  std::size_t capacity = 0, used = 0;
  std::unique_ptr<char, void (*)(void*)> data(nullptr, &std::free);
  for (;;) {
    if (capacity - used < (1 << 20)) {
      capacity = std::max<std::size_t>(capacity * 2, 1 << 22);
      auto* grown = static_cast<char*>(std::realloc(data.get(), capacity));
      if (grown == nullptr) throw std::bad_alloc();
      (void)data.release();
      data.reset(grown);
    }
    const std::size_t got = read_some(data.get() + used, std::min<std::size_t>(capacity - used, 1u << 30));
    if (got == 0) break;
    used += got;
  }
  return text_buffer(data.release(), used);
}

/// The whole file as it is on disk: a regular file by up to `threads` readers
/// on disjoint ranges; pipes and special files (no size) in blocks on one thread.
text_buffer read_bytes(const std::string& path, unsigned threads) {
  const posix_file fd(path);
  const long long regular_size = fd.regular_size();
  if (regular_size < 0) {
    return read_growing([&](char* dst, std::size_t max) {
      for (;;) {
        const ssize_t got = ::read(fd.get(), dst, max);
        if (got >= 0) return static_cast<std::size_t>(got);
        if (errno != EINTR) throw make_input_error(path, 0, std::string("read error: ") + std::strerror(errno));
      }
    });
  }
  const auto size = static_cast<std::size_t>(regular_size);
  text_buffer text(allocate_text(size), size);
  char* const data = const_cast<char*>(text.view().data());
  const std::size_t pieces = (size + kReadPiece - 1) / kReadPiece;
  const unsigned readers = static_cast<unsigned>(std::min<std::size_t>(pieces, threads));
  std::atomic<bool> short_read{false};
  std::vector<std::uint32_t> newlines((size + kNewlineBlock - 1) / kNewlineBlock);
  parallel_parts(readers, [&](std::size_t r) {
    // Whole pieces per reader, so that no huge page is faulted by two readers;
    // each block's newlines counted while it is in cache.
    const auto [lo, hi] = part_range(pieces, readers, r);
    for (std::size_t at = lo * kReadPiece; at < std::min(hi * kReadPiece, size); at += kNewlineBlock) {
      const std::size_t len = std::min(kNewlineBlock, size - at);
      if (fd.read_at(data + at, len, at) != len) short_read = true;
      newlines[at / kNewlineBlock] = static_cast<std::uint32_t>(count_newlines(data + at, data + at + len));
    }
  });
  if (short_read) throw make_input_error(path, 0, "the file shrank while it was being read");
  text.set_newlines(std::move(newlines));
  return text;
}

bool has_gzip_magic(std::string_view bytes) { return bytes.size() >= 2 && bytes[0] == '\x1f' && bytes[1] == '\x8b'; }

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

}  // namespace

void text_buffer::freer::operator()(char* p) const noexcept { std::free(p); }

char* allocate_text(std::size_t bytes) {
  const std::size_t rounded = (bytes + kTextPadding + kHugePage - 1) / kHugePage * kHugePage;
  auto* p = static_cast<char*>(std::aligned_alloc(kHugePage, rounded));
  if (p == nullptr) throw std::bad_alloc();
  (void)madvise(p, rounded, MADV_HUGEPAGE);  // advice: refused, it changes only speed
  return p;
}

bool is_gzip_file(const std::string& path) {
  const posix_file fd(path);
  char magic[2] = {0, 0};
  return fd.read_at(magic, 2, 0) == 2 && has_gzip_magic({magic, 2});
}

text_buffer read_text_file(const std::string& path, unsigned threads) {
  nvtx_range range("graphkit::read_text_file");
  if (threads == 0) threads = host_threads();
  // The compressed bytes are read whole, as a plain file is, because
  // libdeflate decompresses from one buffer (and BGZF members in parallel).
  text_buffer bytes = read_bytes(path, threads);
  if (has_gzip_magic(bytes.view())) return gunzip(bytes.view(), path, threads);
  // gzip itself refuses an empty .gz; loading it as an empty graph would hide a failed write.
  if (bytes.size() == 0 && ends_with(path, ".gz"))
    throw make_input_error(path, 0, "empty file: a .gz file holds at least one gzip member");
  return bytes;
}

}  // namespace graphkit::detail
