// Where the members of a gzip file (RFC 1952) lie, told by their headers
// alone, before anything is decompressed.
//
// A gzip file is one member or several concatenated (`gzip a > f; gzip b >> f`,
// or bgzip's ~64 KiB blocks). A member's compressed length is known only once
// its deflate stream has been decoded, except in BGZF, whose members carry it
// in the 'BC' subfield of their FEXTRA header: there every member, and from
// its ISIZE trailer its output length, is found in a walk over the headers,
// so that the members can be decompressed in parallel into their final place.
// Those lengths are hints that make the work parallel, never what decides
// the output: a file reads as it would member after member.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace graphkit::detail {

/// Deflate's largest expansion: a 258-byte match per 2 bits of input.
constexpr std::size_t kDeflateMaxRatio = 1032;

/// Checks the header of the member that starts `at` bytes into `file`.
/// Throws input_error naming `path` when the bytes there are not a gzip
/// member (trailing garbage), the header is cut short, or it names a method
/// or flags that gzip does not define. The rest of the header (name,
/// comment, header CRC) is left to the decompressor.
void check_member_header(std::string_view file, std::size_t at, const std::string& path);

/// A member found without decompressing it.
struct gzip_member {
  std::size_t in_at, in_size;    ///< its compressed bytes within the file
  std::size_t out_at, out_size;  ///< its decompressed bytes within the output
};

/// The BGZF members from the start of `file` while each names a length that
/// fits the file and ends where another member (or the file) starts: the
/// whole file for bgzip's output, none for plain gzip. Whatever follows them
/// is to be decompressed in order; nothing here throws.
std::vector<gzip_member> bgzf_members(std::string_view file);

}  // namespace graphkit::detail
