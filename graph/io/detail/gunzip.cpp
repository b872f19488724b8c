#include "graph/io/detail/gunzip.hpp"

#include <libdeflate.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <vector>

#include "graph/detail/parallel.hpp"
#include "graph/io/detail/gzip_members.hpp"
#include "primitives/common/error.hpp"

namespace graphkit::detail {
namespace {

using decompressor = std::unique_ptr<libdeflate_decompressor, decltype(&libdeflate_free_decompressor)>;

decompressor new_decompressor() {
  libdeflate_decompressor* d = libdeflate_alloc_decompressor();
  if (d == nullptr) throw std::bad_alloc();
  return {d, &libdeflate_free_decompressor};
}

input_error bad_member(const std::string& path, std::size_t at) {
  return make_input_error(
      path, 0,
      "gzip stream is corrupt or truncated: the member at byte " + std::to_string(at) + " does not decompress");
}

/// The decompressed text so far, in huge-page memory. libdeflate writes a
/// member only whole into room given up front, so a member that does not fit
/// is decompressed again after the buffer has grown.
class output {
 public:
  explicit output(std::size_t capacity) : data_(allocate_text(capacity), &std::free), capacity_(capacity) {}
  [[nodiscard]] char* data() const noexcept { return data_.get(); }
  [[nodiscard]] char* end() const noexcept { return data_.get() + used_; }
  [[nodiscard]] std::size_t room() const noexcept { return capacity_ - used_; }
  void append(std::size_t bytes) noexcept { used_ += bytes; }
  /// Doubles the capacity, keeping the bytes so far. Doubling bounds the work
  /// thrown away with the members that did not fit by the final size.
  void grow() {
    const std::size_t capacity = std::max<std::size_t>(2 * capacity_, 1 << 20);
    std::unique_ptr<char, void (*)(void*)> grown(allocate_text(capacity), &std::free);
    std::memcpy(grown.get(), data_.get(), used_);
    data_ = std::move(grown);
    capacity_ = capacity;
  }
  text_buffer release() noexcept { return text_buffer(data_.release(), used_); }

 private:
  std::unique_ptr<char, void (*)(void*)> data_{nullptr, &std::free};
  std::size_t capacity_ = 0, used_ = 0;
};

/// Output room to start with for the members from `rest` on, which are
/// decompressed in order. A single member's ISIZE trailer (the file's last 4
/// bytes) is its exact length below 4 GiB; with several members it is only
/// the last one's, and text expands, so the compressed length is the floor;
/// deflate's 1032:1 limit caps what a corrupt trailer can ask for.
std::size_t room_for(std::string_view rest) {
  if (rest.size() < 4) return rest.size();
  std::uint32_t isize = 0;
  for (int i = 3; i >= 0; --i) isize = isize << 8 | static_cast<unsigned char>(rest[rest.size() - 4 + i]);
  return std::max<std::size_t>(std::min<std::size_t>(isize, kDeflateMaxRatio * rest.size()), rest.size());
}

/// BGZF members, each straight into its place in `out`; contiguous runs of
/// members per thread, each thread with its own decompressor. False where a
/// member does not decompress to the lengths its header and trailer name.
bool decompress_parallel(std::string_view file, const std::vector<gzip_member>& members, char* out, unsigned threads) {
  const std::size_t parts = std::min<std::size_t>(threads, members.size());
  std::atomic<bool> failed{false};
  parallel_parts(parts, [&](std::size_t part) {
    const decompressor d = new_decompressor();
    const auto [lo, hi] = part_range(members.size(), parts, part);
    for (std::size_t i = lo; i < hi && !failed.load(std::memory_order_relaxed); ++i) {
      const gzip_member& m = members[i];
      std::size_t in_bytes = 0, out_bytes = 0;
      // libdeflate checks the CRC and ISIZE itself.
      const libdeflate_result r = libdeflate_gzip_decompress_ex(d.get(), file.data() + m.in_at, m.in_size,
                                                                out + m.out_at, m.out_size, &in_bytes, &out_bytes);
      if (r != LIBDEFLATE_SUCCESS || in_bytes != m.in_size) failed = true;
    }
  });
  return !failed;
}

/// Members from byte `at` to the end, one after another: where one ends is
/// known only once it has been decompressed.
void decompress_in_order(std::string_view file, std::size_t at, output& out, const std::string& path) {
  if (at == file.size()) return;
  const decompressor d = new_decompressor();
  while (at < file.size()) {
    check_member_header(file, at, path);  // plain words for garbage and bad headers
    for (;;) {
      std::size_t in_bytes = 0, out_bytes = 0;
      const libdeflate_result r = libdeflate_gzip_decompress_ex(d.get(), file.data() + at, file.size() - at, out.end(),
                                                                out.room(), &in_bytes, &out_bytes);
      if (r == LIBDEFLATE_SUCCESS) {
        out.append(out_bytes);
        at += in_bytes;
        break;
      }
      if (r != LIBDEFLATE_INSUFFICIENT_SPACE) throw bad_member(path, at);
      out.grow();
    }
  }
}

}  // namespace

text_buffer gunzip(std::string_view file, const std::string& path, unsigned threads) {
  // The members the headers locate go in parallel, whatever follows them
  // (everything, for plain gzip) in order after them. Should a located
  // member fail, its BGZF length may have lied about an intact stream: the
  // whole file is then read in order, which also words the error.
  const std::vector<gzip_member> members = bgzf_members(file);
  const std::size_t in_order_at = members.empty() ? 0 : members.back().in_at + members.back().in_size;
  const std::size_t parallel_bytes = members.empty() ? 0 : members.back().out_at + members.back().out_size;
  output out(parallel_bytes + room_for(file.substr(in_order_at)));
  if (decompress_parallel(file, members, out.data(), threads)) {
    out.append(parallel_bytes);
    decompress_in_order(file, in_order_at, out, path);
  } else {
    decompress_in_order(file, 0, out, path);
  }
  return out.release();
}

}  // namespace graphkit::detail
