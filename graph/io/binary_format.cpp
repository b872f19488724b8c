// graphkit's binary graph (.gkbin): a fast reload of a parsed, relabelled
// graph, read at file-read speed by several host threads (here) or straight
// into device memory (graph/gpu/binary_gpu.cu). Little-endian layout,
// version 2 (version 1 files still load: binary_format_v1.cpp):
//
//   offset      bytes  field
//   0           8      char[8] "GRAPHKIT"
//   8           4      u32 version (2)
//   12          4      u32 flags: 1 weighted, 2 directed, 4 original ids
//   16          8      u64 vertices n
//   24          8      u64 edges m
//   32          8      u64 block size B (a multiple of 8 up to 2^30; written as 1 MiB)
//   40          8      u64 table checksum: the sum (gkbin_hash.hpp) of the table's bytes
//   48          8      zero
//   56          8      u64 header checksum: the sum of bytes 0..55
//   64                 u32 src[m]
//   next 8k            u32 dst[m]
//   next 8k            i32 weights[m], if weighted
//   next 8k            u64 original_ids[n], if flagged
//   next 8k            u64 table[]: the sum of each B-byte block of each array
//                      above, in file order (ceil(bytes / B) per array, the
//                      last one short); the file ends after it.
//
// Zero bytes pad each array to the next multiple of 8 and are not summed.
// Why this shape: every array starts 8-aligned at an offset the header
// implies, so a reader preads it into place (host memory or pinned chunks on
// their way to the device) with no copy, and sums its words as they are;
// per-block sums let many threads, or one kernel, check a file at once, a
// host thread each block right after reading it. The header's own checksum
// covers the table's, so header and table are checked before any array is
// trusted (a damaged edge count is a damaged header, not a size mismatch).
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>

#include "graph/detail/parallel.hpp"
#include "graph/host_transfer.hpp"
#include "graph/io/detail/gkbin_file.hpp"
#include "graph/io/detail/gkbin_hash.hpp"
#include "graph/io/detail/raw_edges.hpp"
#include "graph/io/detail/readers.hpp"
#include "primitives/common/error.hpp"

namespace graphkit::detail {
namespace {

struct file_closer {
  void operator()(std::FILE* f) const noexcept { std::fclose(f); }
};

/// The block sums of g's arrays, computed by every hardware thread.
std::vector<std::uint64_t> block_table(const gkbin::layout& l, const std::array<const void*, gkbin::kArrays>& data) {
  std::vector<std::uint64_t> table(l.total_blocks);
  const auto threads = static_cast<unsigned>(std::min<std::uint64_t>(host_threads(), l.total_blocks));
  parallel_parts(threads, [&](std::size_t t) {
    const auto [lo, hi] = part_range(l.total_blocks, threads, t);
    for (unsigned a = 0; a < gkbin::kArrays; ++a) {
      const gkbin::array_place& p = l.arrays[a];
      // This thread's blocks of array a: [lo, hi) intersected with the array's.
      const std::uint64_t from = std::max<std::uint64_t>(lo, p.first_block);
      const std::uint64_t to = std::min<std::uint64_t>(hi, p.first_block + p.blocks);
      for (std::uint64_t b = from; b < to; ++b) {
        const std::uint64_t at = (b - p.first_block) * l.block_bytes;
        table[b] = gkbin::sum_bytes(static_cast<const char*>(data[a]) + at, std::min(l.block_bytes, p.bytes - at),
                                    (p.offset + at) / 8);
      }
    }
  });
  return table;
}

/// g's arrays sized for `l`. The edge arrays are left unwritten (host_array):
/// each reader faults in the pages of its own blocks as it reads them, where
/// zeroing them first took one thread per array ~25 ms on the 16-core host.
/// The original ids (a std::vector) on pages prepared by several threads.
void size_arrays(coo_graph& g, const gkbin::layout& l) {
  g.src.resize(l.edges);
  g.dst.resize(l.edges);
  if (l.weighted()) g.weights.resize(l.edges);
  if (l.has_original_ids()) g.original_ids = prepared_vector<original_id_t>(l.vertices);
}

}  // namespace

void write_binary(const coo_graph& g, const std::string& path, std::uint64_t block_bytes) {
  if (block_bytes == 0) block_bytes = gkbin::kDefaultBlockBytes;
  if (block_bytes % 8 != 0 || block_bytes > gkbin::kMaxBlockBytes)
    throw error("write_binary: block size " + std::to_string(block_bytes) + " is not a multiple of 8 up to 2^30");
  const std::uint64_t n = g.num_vertices, m = g.num_edges();
  if (g.dst.size() != m || (g.weighted() && g.weights.size() != m) ||
      (!g.original_ids.empty() && g.original_ids.size() != n))
    throw error("write_binary: the graph's arrays disagree on its edge or vertex count");
  const std::uint32_t flags = (g.weighted() ? gkbin::kWeighted : 0) | (g.directed ? gkbin::kDirected : 0) |
                              (g.original_ids.empty() ? 0 : gkbin::kOriginalIds);
  const gkbin::layout l = gkbin::layout::of(flags, n, m, block_bytes);
  const std::array<const void*, gkbin::kArrays> data = {g.src.data(), g.dst.data(), g.weights.data(),
                                                        g.original_ids.data()};
  const std::vector<std::uint64_t> table = block_table(l, data);
  const auto header = gkbin::encode_header(l, table);

  std::unique_ptr<std::FILE, file_closer> f(std::fopen(path.c_str(), "wb"));
  if (!f) throw make_input_error(path, 0, "cannot create file");
  std::uint64_t at = 0;
  auto put = [&](const void* bytes, std::uint64_t count) {
    if (count != 0 && std::fwrite(bytes, 1, count, f.get()) != count) throw make_input_error(path, 0, "write failed");
    at += count;
  };
  auto pad_to = [&](std::uint64_t offset) {
    const char zeros[8] = {};
    put(zeros, offset - at);
  };
  put(header.data(), header.size());
  for (unsigned a = 0; a < gkbin::kArrays; ++a) {
    pad_to(l.arrays[a].offset);
    put(data[a], l.arrays[a].bytes);
  }
  pad_to(l.table_offset);
  put(table.data(), table.size() * sizeof(std::uint64_t));
  if (std::fflush(f.get()) != 0) throw make_input_error(path, 0, "write failed");
}

loaded_graph read_binary(const std::string& path) {
  const posix_file file(path);
  const std::optional<gkbin::checked_file> f = gkbin::open_file(file);
  if (!f) return read_binary_v1(path);
  const gkbin::layout& l = f->where;
  loaded_graph out;
  out.format = file_format::binary;
  out.bytes = l.file_bytes;
  coo_graph& g = out.graph;
  g.num_vertices = static_cast<vertex_t>(l.vertices);
  g.directed = l.directed();
  size_arrays(g, l);
  std::vector<gkbin::host_target> targets = {{gkbin::kSrc, g.src.data()}, {gkbin::kDst, g.dst.data()}};
  if (l.weighted()) targets.push_back({gkbin::kWeights, g.weights.data()});
  if (l.has_original_ids()) targets.push_back({gkbin::kOriginalIdArray, g.original_ids.data()});
  const std::uint64_t beyond = gkbin::read_arrays(file, *f, targets);
  if (beyond != gkbin::kNoEdge)
    gkbin::throw_vertex_beyond(path, beyond, g.src[beyond] >= g.num_vertices ? g.src[beyond] : g.dst[beyond],
                               l.vertices);
  return out;
}

}  // namespace graphkit::detail
