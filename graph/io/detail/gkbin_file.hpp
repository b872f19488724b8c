// The layout of a .gkbin version 2 file, and what both of its readers (the
// host's, graph/io/binary_format.cpp, and the GPU's, graph/gpu/binary_gpu.cu)
// do the same way: read and check the header and the block table, read
// arrays into host memory by several threads checking every block, and word
// the errors. The layout itself is described in binary_format.cpp.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "graph/io/detail/posix_file.hpp"

namespace graphkit::detail::gkbin {

inline constexpr char kMagic[8] = {'G', 'R', 'A', 'P', 'H', 'K', 'I', 'T'};
inline constexpr std::uint32_t kVersion = 2;
inline constexpr std::uint32_t kWeighted = 1, kDirected = 2, kOriginalIds = 4;
inline constexpr std::uint64_t kHeaderBytes = 64;
/// Bytes of the header that its own checksum (the last 8) covers.
inline constexpr std::uint64_t kSealedHeaderBytes = 56;
/// 1 MiB: a reader thread sums a block while it is still in its cache, and a
/// 381 MB graph has a table of ~400 sums.
inline constexpr std::uint64_t kDefaultBlockBytes = 1u << 20;
inline constexpr std::uint64_t kMaxBlockBytes = 1u << 30;

/// The arrays in file order.
enum array_id : unsigned { kSrc = 0, kDst = 1, kWeights = 2, kOriginalIdArray = 3 };
inline constexpr unsigned kArrays = 4;
/// As errors name them.
const char* array_name(array_id a) noexcept;

struct array_place {
  std::uint64_t offset = 0;       ///< in the file; a multiple of 8
  std::uint64_t bytes = 0;        ///< 0 for an array the file does not hold
  std::uint64_t first_block = 0;  ///< its first entry in the table
  std::uint64_t blocks = 0;
};

/// Where everything is, from the header's fields.
struct layout {
  std::uint32_t flags = 0;
  std::uint64_t vertices = 0, edges = 0, block_bytes = kDefaultBlockBytes;
  std::array<array_place, kArrays> arrays{};
  std::uint64_t table_offset = 0, total_blocks = 0, file_bytes = 0;

  /// Callers keep vertices < 2^32 and edges <= 2^56, so no sum overflows.
  static layout of(std::uint32_t flags, std::uint64_t vertices, std::uint64_t edges, std::uint64_t block_bytes);
  [[nodiscard]] bool weighted() const noexcept { return (flags & kWeighted) != 0; }
  [[nodiscard]] bool directed() const noexcept { return (flags & kDirected) != 0; }
  [[nodiscard]] bool has_original_ids() const noexcept { return (flags & kOriginalIds) != 0; }
};

/// The 64 header bytes of a file with this layout (both checksums filled in
/// from `table`, its block sums).
std::array<unsigned char, kHeaderBytes> encode_header(const layout& l, std::span<const std::uint64_t> table);

/// A version 2 file whose header and table have been checked.
struct checked_file {
  layout where;
  std::vector<std::uint64_t> table;  ///< one sum per block, the arrays' blocks in file order
};

/// Reads and checks the header and block table; nullopt for a version 1 file
/// (its own reader takes it). Throws input_error naming the file for anything
/// else that is not a whole, undamaged version 2 header and table.
std::optional<checked_file> open_file(const posix_file& file);

/// Throws the input_error for block `block` (0-based, within the array) of
/// array `a` whose sum is not the table's.
[[noreturn]] void throw_damaged_block(const std::string& path, const layout& l, array_id a, std::uint64_t block);
/// Throws the input_error for edge `edge`, which names `vertex` >= vertices.
[[noreturn]] void throw_vertex_beyond(const std::string& path, std::uint64_t edge, std::uint64_t vertex,
                                      std::uint64_t vertices);

/// Where one array goes in host memory (its whole size, layout.arrays[a].bytes).
struct host_target {
  array_id array;
  void* data;
};
/// No edge names a vertex out of range.
inline constexpr std::uint64_t kNoEdge = ~std::uint64_t{0};

/// Reads the arrays into place by up to `threads` readers (0: one per
/// hardware thread) with positioned reads, block by block, each block summed
/// by its reader right after the read (still in its cache) and compared with
/// the table: a mismatch throws throw_damaged_block's error, the first block
/// in file order when several are damaged. Returns the first edge whose
/// source or destination (among the vertex arrays read) is >= vertices, or
/// kNoEdge: the caller words it once every block has been checked.
std::uint64_t read_arrays(const posix_file& file, const checked_file& f, std::span<const host_target> targets,
                          unsigned threads = 0);

}  // namespace graphkit::detail::gkbin
