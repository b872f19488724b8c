#include "graph/io/detail/text_file.hpp"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <new>
#include <optional>

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

/// Whole pieces of kReadPiece per reader over [0, size), so that no huge
/// page is touched by two readers; calls fn(at, len) for each kNewlineBlock
/// of the reader's share in order, and returns each block's newlines,
/// counted by its reader right after fn (the block still in cache).
template <class Fn>
std::vector<std::uint32_t> read_blocks(const char* data, std::size_t size, unsigned threads, Fn&& fn) {
  const std::size_t pieces = (size + kReadPiece - 1) / kReadPiece;
  const unsigned readers = static_cast<unsigned>(std::min<std::size_t>(pieces, threads));
  std::vector<std::uint32_t> newlines((size + kNewlineBlock - 1) / kNewlineBlock);
  parallel_parts(readers, [&](std::size_t r) {
    const auto [lo, hi] = part_range(pieces, readers, r);
    for (std::size_t at = lo * kReadPiece; at < std::min(hi * kReadPiece, size); at += kNewlineBlock) {
      const std::size_t len = std::min(kNewlineBlock, size - at);
      fn(at, len);
      newlines[at / kNewlineBlock] = static_cast<std::uint32_t>(count_newlines(data + at, data + at + len));
    }
  });
  return newlines;
}

/// A regular file's bytes copied by `threads` readers on disjoint ranges
/// into fresh huge-page memory.
text_buffer copy_file(const posix_file& fd, std::size_t size, unsigned threads) {
  text_buffer text(allocate_text(size), size);
  char* const data = const_cast<char*>(text.view().data());
  std::atomic<bool> short_read{false};
  auto newlines = read_blocks(data, size, threads, [&](std::size_t at, std::size_t len) {
    if (fd.read_at(data + at, len, at) != len) short_read = true;
  });
  if (short_read) throw make_input_error(fd.path(), 0, "the file shrank while it was being read");
  text.set_newlines(std::move(newlines));
  return text;
}

/// A regular file's pages mapped where they already are, in the page cache:
/// no copy, and no fresh pages for the text (on the 16-core host the text's
/// fresh pages cost more than reading into them). The mapping lies in a
/// reserved anonymous range one page longer than the file's whole pages; the
/// last partial page's bytes are read into that anonymous memory rather than
/// mapped, so that the zero bytes after the text are the loader's own (a
/// mapped partial page would show what a writer appends to the file) and
/// past the text lies readable memory. nullopt where the kernel refuses to
/// map the file (the caller copies it).
std::optional<text_buffer> map_file(const posix_file& fd, std::size_t size, unsigned threads) {
  const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  const std::size_t whole = size / page * page, tail = size - whole;
  const std::size_t span = whole + (tail + kTextPadding + page - 1) / page * page;
  // Reserved at a huge-page boundary, where the kernel can map the page
  // cache's 2 MiB folios whole.
  void* reserved = mmap(nullptr, span + kHugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (reserved == MAP_FAILED) return std::nullopt;
  const auto raw = reinterpret_cast<std::uintptr_t>(reserved);
  const std::uintptr_t base = (raw + kHugePage - 1) / kHugePage * kHugePage;
  if (base > raw) (void)munmap(reserved, base - raw);
  (void)munmap(reinterpret_cast<void*>(base + span), raw + kHugePage - base);
  char* const data = reinterpret_cast<char*>(base);
  text_buffer text = text_buffer::mapped(data, size, span);
  if (whole > 0 && mmap(data, whole, PROT_READ, MAP_PRIVATE | MAP_FIXED, fd.get(), 0) == MAP_FAILED)
    return std::nullopt;
  if (fd.read_at(data + whole, tail, whole) != tail)
    throw make_input_error(fd.path(), 0, "the file shrank while it was being read");
  std::atomic<bool> short_file{false};
  auto newlines = read_blocks(data, size, threads, [&](std::size_t at, std::size_t len) {
    // The block's page-table entries in one call rather than a fault per few
    // pages; EFAULT where the file no longer reaches (a read would SIGBUS).
    if (at < whole) {
      const std::size_t mapped = std::min(len, whole - at);
#ifdef MADV_POPULATE_READ
      if (madvise(data + at, mapped, MADV_POPULATE_READ) != 0 && errno == EFAULT) {
        short_file = true;
        return;
      }
#endif
      g_file_bytes_read.fetch_add(mapped, std::memory_order_relaxed);
    }
  });
  if (short_file) throw make_input_error(fd.path(), 0, "the file shrank while it was being read");
  text.set_newlines(std::move(newlines));
  return text;
}

/// The whole file as it is on disk: a regular file mapped (or, where it
/// cannot be, copied by up to `threads` readers); pipes and special files
/// (no size) in blocks on one thread.
text_buffer read_bytes(const std::string& path, unsigned threads, text_source source) {
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
  if (source == text_source::map)
    if (std::optional<text_buffer> mapped = map_file(fd, size, threads)) return std::move(*mapped);
  return copy_file(fd, size, threads);
}

bool has_gzip_magic(std::string_view bytes) { return bytes.size() >= 2 && bytes[0] == '\x1f' && bytes[1] == '\x8b'; }

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

}  // namespace

void text_buffer::freer::operator()(char* p) const noexcept {
  if (mapped != 0) (void)munmap(p, mapped);
  else std::free(p);
}

text_buffer text_buffer::mapped(char* data, std::size_t size, std::size_t span) noexcept {
  text_buffer text;
  text.data_ = std::unique_ptr<char, freer>(data, freer{span});
  text.size_ = size;
  return text;
}

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

text_buffer read_text_file(const std::string& path, unsigned threads, text_source source) {
  nvtx_range range("graphkit::read_text_file");
  if (threads == 0) threads = host_threads();
  // The compressed bytes are read whole, as a plain file is, because
  // libdeflate decompresses from one buffer (and BGZF members in parallel).
  text_buffer bytes = read_bytes(path, threads, source);
  if (has_gzip_magic(bytes.view())) return gunzip(bytes.view(), path, threads);
  // gzip itself refuses an empty .gz; loading it as an empty graph would hide a failed write.
  if (bytes.size() == 0 && ends_with(path, ".gz"))
    throw make_input_error(path, 0, "empty file: a .gz file holds at least one gzip member");
  return bytes;
}

}  // namespace graphkit::detail
