#include "graph/io/detail/gkbin_file.hpp"

#include <algorithm>
#include <cstring>

#include "graph/detail/parallel.hpp"
#include "graph/io/detail/gkbin_hash.hpp"
#include "graph/types.hpp"
#include "primitives/common/error.hpp"

namespace graphkit::detail::gkbin {
namespace {

constexpr std::uint64_t kMaxEdges = std::uint64_t{1} << 56;

constexpr std::uint64_t round_up8(std::uint64_t x) noexcept { return (x + 7) / 8 * 8; }

template <class T>
T load(const unsigned char* p) noexcept {
  T value;
  std::memcpy(&value, p, sizeof value);
  return value;
}

template <class T>
void store(unsigned char* p, T value) noexcept {
  std::memcpy(p, &value, sizeof value);
}

// Header fields by offset (see binary_format.cpp).
constexpr std::size_t kVersionAt = 8, kFlagsAt = 12, kVerticesAt = 16, kEdgesAt = 24, kBlockAt = 32, kTableSumAt = 40,
                      kHeaderSumAt = 56;

std::uint64_t table_sum(const layout& l, std::span<const std::uint64_t> table) noexcept {
  return sum_bytes(table.data(), table.size_bytes(), l.table_offset / 8);
}

/// One block of one array, for the readers' work lists.
struct block_ref {
  array_id array;
  void* data;  ///< the array's host memory
  std::uint64_t block;
};

}  // namespace

const char* array_name(array_id a) noexcept {
  switch (a) {
    case kSrc: return "source";
    case kDst: return "destination";
    case kWeights: return "weight";
    case kOriginalIdArray: return "original id";
  }
  return "unknown";
}

layout layout::of(std::uint32_t flags, std::uint64_t vertices, std::uint64_t edges, std::uint64_t block_bytes) {
  layout l;
  l.flags = flags;
  l.vertices = vertices;
  l.edges = edges;
  l.block_bytes = block_bytes;
  std::uint64_t at = kHeaderBytes;
  auto place = [&](array_id a, std::uint64_t bytes) {
    const std::uint64_t blocks = (bytes + block_bytes - 1) / block_bytes;
    l.arrays[a] = {at, bytes, l.total_blocks, blocks};
    l.total_blocks += blocks;
    at = round_up8(at + bytes);
  };
  place(kSrc, edges * sizeof(vertex_t));
  place(kDst, edges * sizeof(vertex_t));
  place(kWeights, l.weighted() ? edges * sizeof(weight_t) : 0);
  place(kOriginalIdArray, l.has_original_ids() ? vertices * sizeof(original_id_t) : 0);
  l.table_offset = at;
  l.file_bytes = at + l.total_blocks * 8;
  return l;
}

std::array<unsigned char, kHeaderBytes> encode_header(const layout& l, std::span<const std::uint64_t> table) {
  std::array<unsigned char, kHeaderBytes> h{};  // reserved bytes 48..55 stay zero
  std::memcpy(h.data(), kMagic, 8);
  store(h.data() + kVersionAt, kVersion);
  store(h.data() + kFlagsAt, l.flags);
  store(h.data() + kVerticesAt, l.vertices);
  store(h.data() + kEdgesAt, l.edges);
  store(h.data() + kBlockAt, l.block_bytes);
  store(h.data() + kTableSumAt, table_sum(l, table));
  store(h.data() + kHeaderSumAt, sum_bytes(h.data(), kSealedHeaderBytes, 0));
  return h;
}

std::optional<checked_file> open_file(const posix_file& file) {
  const std::string& path = file.path();
  const long long regular_size = file.regular_size();
  if (regular_size < 0)
    throw make_input_error(path, 0, "not a regular file: a graphkit binary graph is read at known offsets");
  const auto size = static_cast<std::uint64_t>(regular_size);
  unsigned char h[kHeaderBytes] = {};
  const std::size_t got = file.read_at(reinterpret_cast<char*>(h), kHeaderBytes, 0);
  const auto ends_inside_header = [&] { return make_input_error(path, 0, "file ends inside the header"); };
  if (got < 8) throw ends_inside_header();
  if (std::memcmp(h, kMagic, 8) != 0)
    throw make_input_error(path, 0, "not a graphkit binary graph: wrong magic (expected 'GRAPHKIT')");
  if (got < kVersionAt + 4) throw ends_inside_header();
  const auto version = load<std::uint32_t>(h + kVersionAt);
  if (version == 1) return std::nullopt;
  if (version != kVersion)
    throw make_input_error(
        path, 0,
        "graphkit binary version " + std::to_string(version) + " is not supported (this build reads versions 1 and 2)");
  if (got < kHeaderBytes) throw ends_inside_header();
  // The header's own sum first: no field is trusted before it holds.
  if (sum_bytes(h, kSealedHeaderBytes, 0) != load<std::uint64_t>(h + kHeaderSumAt))
    throw make_input_error(path, 0, "the header is damaged: it does not match its checksum");

  const auto flags = load<std::uint32_t>(h + kFlagsAt);
  const auto n = load<std::uint64_t>(h + kVerticesAt), m = load<std::uint64_t>(h + kEdgesAt);
  const auto block_bytes = load<std::uint64_t>(h + kBlockAt);
  if ((flags & ~(kWeighted | kDirected | kOriginalIds)) != 0)
    throw make_input_error(path, 0, "unknown header flags " + std::to_string(flags));
  if (block_bytes == 0 || block_bytes % 8 != 0 || block_bytes > kMaxBlockBytes)
    throw make_input_error(
        path, 0,
        "the header's block size " + std::to_string(block_bytes) + " is not a multiple of 8 from 8 to 2^30 bytes");
  // Before the layout's sums, so that they cannot overflow; a count that
  // merely disagrees with the file's size is the size check's to word.
  if (n >= kMaxVertices || m > kMaxEdges)
    throw make_input_error(path, 0,
                           "header claims " + std::to_string(n) + " vertices and " + std::to_string(m) +
                               " edges, beyond what graphkit reads (below 2^32 vertices, 2^56 edges)");
  checked_file f{layout::of(flags, n, m, block_bytes), {}};
  const layout& l = f.where;
  if (size != l.file_bytes)
    throw make_input_error(path, 0,
                           "file is " + std::to_string(size) + " bytes, its header implies " +
                               std::to_string(l.file_bytes) +
                               (size < l.file_bytes ? " (the file was cut short)" : " (bytes after the end)"));
  f.table.resize(l.total_blocks);
  const std::size_t table_bytes = l.total_blocks * 8;
  if (file.read_at(reinterpret_cast<char*>(f.table.data()), table_bytes, l.table_offset) != table_bytes)
    throw make_input_error(path, 0, "the file shrank while it was being read");
  if (table_sum(l, f.table) != load<std::uint64_t>(h + kTableSumAt))
    throw make_input_error(path, 0, "the block checksum table is damaged: it does not match its checksum");
  return f;
}

void throw_damaged_block(const std::string& path, const layout& l, array_id a, std::uint64_t block) {
  const array_place& p = l.arrays[a];
  const std::uint64_t from = p.offset + block * l.block_bytes,
                      to = p.offset + std::min(p.bytes, (block + 1) * l.block_bytes);
  throw make_input_error(path, 0,
                         "block " + std::to_string(block) + " of the " + array_name(a) + " array (file bytes " +
                             std::to_string(from) + " to " + std::to_string(to) +
                             ") does not match its checksum: the file is damaged");
}

void throw_vertex_beyond(const std::string& path, std::uint64_t edge, std::uint64_t vertex, std::uint64_t vertices) {
  throw make_input_error(path, 0,
                         "edge " + std::to_string(edge) + " names vertex " + std::to_string(vertex) +
                             ", beyond the header's " + std::to_string(vertices) + " vertices");
}

std::uint64_t read_arrays(const posix_file& file, const checked_file& f, std::span<const host_target> targets,
                          unsigned threads) {
  const layout& l = f.where;
  std::vector<host_target> in_order(targets.begin(), targets.end());
  std::sort(in_order.begin(), in_order.end(),
            [](const host_target& a, const host_target& b) { return a.array < b.array; });
  std::vector<block_ref> work;
  for (const host_target& t : in_order)
    for (std::uint64_t k = 0; k < l.arrays[t.array].blocks; ++k) work.push_back({t.array, t.data, k});
  if (threads == 0) threads = host_threads();
  const auto readers = static_cast<unsigned>(std::min<std::size_t>(threads, work.size()));
  const auto n = static_cast<vertex_t>(l.vertices);  // below 2^32: open_file checked it
  std::vector<std::uint64_t> first_beyond(readers, kNoEdge);
  // Each reader takes a run of consecutive blocks and stops at its first bad
  // one; parallel_parts rethrows the lowest reader's error, so the error
  // names the first damaged block of the file.
  parallel_parts(readers, [&](std::size_t r) {
    const auto [lo, hi] = part_range(work.size(), readers, r);
    for (std::size_t i = lo; i < hi; ++i) {
      const block_ref& b = work[i];
      const array_place& p = l.arrays[b.array];
      const std::uint64_t from = b.block * l.block_bytes, len = std::min(l.block_bytes, p.bytes - from);
      char* dst = static_cast<char*>(b.data) + from;
      if (file.read_at(dst, len, p.offset + from) != len)
        throw make_input_error(file.path(), 0, "the file shrank while it was being read");
      if (sum_bytes(dst, len, (p.offset + from) / 8) != f.table[p.first_block + b.block])
        throw_damaged_block(file.path(), l, b.array, b.block);
      if (b.array == kSrc || b.array == kDst) {
        // Whether any id is out of range first (an OR of compares vectorizes
        // without SSE4's unsigned max, 4x a max's speed), where only if so.
        const auto* ids = reinterpret_cast<const vertex_t*>(dst);
        const std::size_t count = len / sizeof(vertex_t);
        unsigned beyond = 0;
        for (std::size_t j = 0; j < count; ++j) beyond |= ids[j] >= n ? 1u : 0u;
        if (beyond != 0) {
          const std::size_t j =
              static_cast<std::size_t>(std::find_if(ids, ids + count, [&](vertex_t v) { return v >= n; }) - ids);
          first_beyond[r] = std::min(first_beyond[r], from / sizeof(vertex_t) + j);
        }
      }
    }
  });
  return readers == 0 ? kNoEdge : *std::min_element(first_beyond.begin(), first_beyond.end());
}

}  // namespace graphkit::detail::gkbin
