#include "graph/io/detail/gzip_members.hpp"

#include <cstdint>

#include "primitives/common/error.hpp"

namespace graphkit::detail {
namespace {

constexpr std::size_t kFixedHeader = 10;  // magic, method, flags, mtime, xfl, os
constexpr std::size_t kTrailer = 8;       // CRC-32, ISIZE
constexpr unsigned kDeflate = 8;          // the only method gzip defines
constexpr unsigned kFlagExtra = 0x04;
constexpr unsigned kReservedFlags = 0xe0;

unsigned byte_at(std::string_view s, std::size_t i) { return static_cast<unsigned char>(s[i]); }
std::size_t le16(std::string_view s, std::size_t i) { return byte_at(s, i) | byte_at(s, i + 1) << 8; }
std::uint32_t le32(std::string_view s, std::size_t i) {
  return static_cast<std::uint32_t>(le16(s, i) | le16(s, i + 2) << 16);
}

bool has_magic(std::string_view s) { return s.size() >= 2 && s[0] == '\x1f' && s[1] == '\x8b'; }

/// What a member's header says, read without throwing.
struct header {
  enum kind { ok, not_gzip, cut_short, bad } status = ok;
  unsigned method = 0, flags = 0;
  std::size_t bgzf_length = 0;  ///< the 'BC' length; 0 where there is none
};

/// BGZF's block length in an FEXTRA field `extra`: subfield 'B','C' of two
/// bytes holding the member's length minus one; 0 where there is none.
std::size_t bc_length(std::string_view extra) {
  for (std::size_t p = 0; extra.size() - p >= 4;) {
    const std::size_t length = le16(extra, p + 2);
    if (length > extra.size() - p - 4) break;  // malformed subfields: not BGZF
    if (extra[p] == 'B' && extra[p + 1] == 'C' && length == 2) return le16(extra, p + 4) + 1;
    p += 4 + length;
  }
  return 0;
}

header read_header(std::string_view member) {
  header h;
  const auto failed = [&h](header::kind why) {
    h.status = why;
    return h;
  };
  if (!has_magic(member)) return failed(header::not_gzip);
  if (member.size() < kFixedHeader) return failed(header::cut_short);
  h.method = byte_at(member, 2), h.flags = byte_at(member, 3);
  if (h.method != kDeflate || (h.flags & kReservedFlags) != 0) return failed(header::bad);
  if ((h.flags & kFlagExtra) == 0) return h;
  if (member.size() < kFixedHeader + 2 || member.size() - kFixedHeader - 2 < le16(member, kFixedHeader))
    return failed(header::cut_short);
  const std::size_t extra_size = le16(member, kFixedHeader);
  const std::size_t length = bc_length(member.substr(kFixedHeader + 2, extra_size));
  // A length too short to hold this header and a trailer is no BGZF block.
  if (length >= kFixedHeader + 2 + extra_size + kTrailer) h.bgzf_length = length;
  return h;
}

}  // namespace

void check_member_header(std::string_view file, std::size_t at, const std::string& path) {
  const header h = read_header(file.substr(at));
  const std::string where = " at byte " + std::to_string(at);
  switch (h.status) {
    case header::ok: return;
    case header::not_gzip:
      throw make_input_error(path, 0,
                             "gzip stream has trailing garbage: " + std::to_string(file.size() - at) + " bytes" +
                                 where + " after the last member are not a gzip member");
    case header::cut_short:
      throw make_input_error(path, 0, "gzip stream is truncated: the member header" + where + " is cut short");
    case header::bad:
      throw make_input_error(path, 0,
                             "gzip stream is corrupt: bad member header" + where + " (compression method " +
                                 std::to_string(h.method) + ", flags " + std::to_string(h.flags) + ")");
  }
}

std::vector<gzip_member> bgzf_members(std::string_view file) {
  std::vector<gzip_member> members;
  std::size_t at = 0, out_at = 0;
  while (at < file.size()) {
    const header h = read_header(file.substr(at));
    const std::size_t length = h.status == header::ok ? h.bgzf_length : 0;
    // A length is believed only where it lands on the end or on a next member.
    if (length == 0 || length > file.size() - at) break;
    if (length < file.size() - at && !has_magic(file.substr(at + length))) break;
    // ISIZE is the output length mod 2^32, exact here: a member of at most
    // 64 KiB cannot expand past deflate's 1032:1 to 4 GiB (a larger ISIZE
    // is corrupt, and is not to size the output).
    const std::size_t out_size = le32(file, at + length - 4);
    if (out_size > kDeflateMaxRatio * length) break;
    members.push_back({at, length, out_at, out_size});
    at += length;
    out_at += out_size;
  }
  return members;
}

}  // namespace graphkit::detail
