// gzip files written for the tests with zlib, independently of the reader
// under test: whole members (zlib's own gzip wrapper) and BGZF members (raw
// deflate inside a header written here, carrying the 'BC' length subfield).
#pragma once

#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>

namespace graphkit::test {

/// `text` deflated by zlib; window_bits picks the wrapper (31: gzip, -15: none).
inline std::string zlib_deflate(std::string_view text, int level, int window_bits) {
  z_stream z{};
  EXPECT_EQ(deflateInit2(&z, level, Z_DEFLATED, window_bits, 8, Z_DEFAULT_STRATEGY), Z_OK);
  std::string out(deflateBound(&z, text.size()) + 64, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  z.avail_in = static_cast<uInt>(text.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&z, Z_FINISH), Z_STREAM_END);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

/// One gzip member holding `text`, as `gzip -c` writes it.
inline std::string gzip_member(std::string_view text, int level = 6) { return zlib_deflate(text, level, 31); }

inline void put_le(std::string& out, std::uint32_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out += static_cast<char>(value >> (8 * i) & 0xff);
}

/// One BGZF member holding `text` (at most 64 KiB compressed, as bgzip's are).
inline std::string bgzf_member(std::string_view text, int level = 6) {
  const std::string data = zlib_deflate(text, level, -15);
  const std::size_t length = 18 + data.size() + 8;
  EXPECT_LE(length, 65536u) << "a BGZF member holds at most 64 KiB";
  std::string out = "\x1f\x8b\x08\x04";  // magic, deflate, FEXTRA
  put_le(out, 0, 4);                     // mtime
  out += '\0';                           // extra flags
  out += '\xff';                         // OS unknown
  put_le(out, 6, 2);                     // XLEN
  out += "BC";
  put_le(out, 2, 2);
  put_le(out, static_cast<std::uint32_t>(length - 1), 2);
  out += data;
  const uLong crc = crc32(0, reinterpret_cast<const Bytef*>(text.data()), static_cast<uInt>(text.size()));
  put_le(out, static_cast<std::uint32_t>(crc), 4);
  put_le(out, static_cast<std::uint32_t>(text.size()), 4);
  return out;
}

/// `text` as bgzip writes it: blocks of `block` bytes, then the empty
/// member bgzip ends its files with.
inline std::string bgzf_file(std::string_view text, std::size_t block = 0xff00) {
  std::string out;
  for (std::size_t at = 0; at < text.size(); at += block)
    out += bgzf_member(text.substr(at, std::min(block, text.size() - at)));
  return out + bgzf_member("");
}

}  // namespace graphkit::test
