// load_binary_on_gpu: see load_gpu.hpp. A .gkbin version 2 file's edge
// arrays go from the file to the device by pread straight into the pinned
// transfer chunks (fill_device, one pass over all of them); no host thread
// touches an element. One
// kernel per array then adds up each block's sum (the terms of
// graph/io/detail/gkbin_hash.hpp, as the host reader adds them) and finds
// the first edge naming a vertex out of range; the host compares the sums
// with the file's table and words any error as the host reader does.
#include <cub/block/block_reduce.cuh>

#include <algorithm>
#include <vector>

#include "graph/gpu/load_gpu.hpp"
#include "graph/host_transfer.hpp"
#include "graph/io/detail/gkbin_file.hpp"
#include "graph/io/detail/gkbin_hash.hpp"
#include "graph/io/detail/posix_file.hpp"
#include "graph/io/detail/raw_edges.hpp"
#include "primitives/common/error.hpp"
#include "primitives/common/launch.hpp"
#include "primitives/common/nvtx.hpp"

namespace graphkit {
namespace {

namespace gkbin = detail::gkbin;

constexpr unsigned kThreads = 256;
/// Words one CUDA block sums: 16 per thread, 32 KiB; a 1 MiB file block is 32 of them.
constexpr std::uint64_t kSliceWords = std::uint64_t{kThreads} * 16;

/// One array on the device and where its sums go.
struct array_sums {
  const unsigned char* data;
  std::uint64_t bytes;
  std::uint64_t first_word;          ///< the array's offset in the file / 8
  std::uint64_t block_words;         ///< the file's block size / 8
  std::uint64_t slices;              ///< CUDA blocks per file block
  unsigned long long* sums;          ///< one per file block of this array, zeroed
  std::uint32_t vertices;            ///< ids must be below this ...
  bool vertex_ids;                   ///< ... when the array holds them (src, dst)
  unsigned long long* first_beyond;  ///< min edge index naming a vertex >= vertices
};

/// CUDA block i sums slice i % slices of file block i / slices: each thread
/// adds the terms of every 256th word, the block adds its threads' sums, and
/// one atomic add (wrapping, so the order does not matter) puts it in the
/// file block's sum.
__global__ void block_sums_kernel(array_sums a) {
  using reduce = cub::BlockReduce<unsigned long long, kThreads>;
  __shared__ typename reduce::TempStorage scratch;
  const std::uint64_t block = blockIdx.x / a.slices, slice = blockIdx.x % a.slices;
  const std::uint64_t words = (a.bytes + 7) / 8;
  const std::uint64_t begin = block * a.block_words + slice * kSliceWords;
  const std::uint64_t end = std::min(std::min(begin + kSliceWords, (block + 1) * a.block_words), words);
  const auto* full = reinterpret_cast<const std::uint64_t*>(a.data);  // device allocations are 256-byte aligned
  std::uint64_t sum = 0;
  unsigned long long beyond = ~0ull;
  for (std::uint64_t j = begin + threadIdx.x; j < end; j += kThreads) {
    const std::uint64_t in_word = std::min<std::uint64_t>(8, a.bytes - 8 * j);
    std::uint64_t w = 0;
    if (in_word == 8) {
      w = full[j];
    } else {  // the array's short last word, zero-padded as the host pads it
      for (std::uint64_t b = 0; b < in_word; ++b) w |= std::uint64_t{a.data[8 * j + b]} << (8 * b);
    }
    sum += gkbin::word_term(w, a.first_word + j);
    if (a.vertex_ids) {
      // Two ids per word (one in a short last word), lowest first.
      if (static_cast<std::uint32_t>(w) >= a.vertices) beyond = std::min<unsigned long long>(beyond, 2 * j);
      else if (in_word == 8 && static_cast<std::uint32_t>(w >> 32) >= a.vertices)
        beyond = std::min<unsigned long long>(beyond, 2 * j + 1);
    }
  }
  const unsigned long long total = reduce(scratch).Sum(static_cast<unsigned long long>(sum));
  if (threadIdx.x == 0) atomicAdd(a.sums + block, total);
  if (beyond != ~0ull) atomicMin(a.first_beyond, beyond);
}

/// Reads bytes [at, at + len) of the array at file offset `offset` into a pinned chunk.
chunk_filler read_from(const detail::posix_file& file, std::uint64_t offset) {
  return [&file, offset](char* chunk, std::size_t at, std::size_t len) {
    if (file.read_at(chunk, len, offset + at) != len)
      throw make_input_error(file.path(), 0, "the file shrank while it was being read");
  };
}

}  // namespace

std::optional<device_loaded> load_binary_on_gpu(const std::string& path) {
  nvtx_range range("graphkit::load_binary_on_gpu");
  const detail::posix_file file(path);
  const std::optional<gkbin::checked_file> f = gkbin::open_file(file);
  if (!f) return std::nullopt;  // version 1: the host reader's
  const gkbin::layout& l = f->where;
  device_loaded out;
  out.format = file_format::binary;
  out.bytes = l.file_bytes;
  device_edges& e = out.edges;
  e.num_vertices = static_cast<vertex_t>(l.vertices);
  e.directed = l.directed();
  e.src = device_buffer<vertex_t>(l.edges);
  e.dst = device_buffer<vertex_t>(l.edges);
  if (l.weighted()) e.weights = device_buffer<weight_t>(l.edges);
  struct on_device {
    gkbin::array_id array;
    void* data;
  };
  std::vector<on_device> arrays = {{gkbin::kSrc, e.src.data()}, {gkbin::kDst, e.dst.data()}};
  if (l.weighted()) arrays.push_back({gkbin::kWeights, e.weights.data()});
  {
    // The arrays lie one after another in the file (8-aligned): one pass of
    // the lanes over their span, each array's bytes to its buffer.
    nvtx_range fill_range("graphkit::gkbin arrays to the device");
    const std::uint64_t span_begin = l.arrays[arrays.front().array].offset;
    const gkbin::array_place& last = l.arrays[arrays.back().array];
    std::vector<device_piece> pieces;
    for (const on_device& a : arrays)
      pieces.push_back({l.arrays[a.array].offset - span_begin, l.arrays[a.array].bytes, a.data});
    fill_device(last.offset + last.bytes - span_begin, pieces, read_from(file, span_begin));
  }

  // The sums of the device arrays' blocks, which come first in the table.
  static_assert(sizeof(unsigned long long) == sizeof(std::uint64_t));
  const std::uint64_t device_blocks = l.arrays[arrays.back().array].first_block + l.arrays[arrays.back().array].blocks;
  device_buffer<unsigned long long> sums(device_blocks);
  device_buffer<unsigned long long> first_beyond(1);
  sums.fill_bytes(0);
  first_beyond.fill_bytes(0xff);
  for (const on_device& a : arrays) {
    const gkbin::array_place& p = l.arrays[a.array];
    if (p.blocks == 0) continue;
    const std::uint64_t block_words = l.block_bytes / 8;
    const std::uint64_t slices = blocks_for(std::min(block_words, (p.bytes + 7) / 8), kSliceWords);
    const std::uint64_t grid = p.blocks * slices;
    if (grid > 0x7fffffffu)
      throw error("load_binary_on_gpu: too many blocks for one launch (" + std::to_string(grid) + ")");
    const array_sums args{static_cast<const unsigned char*>(a.data),
                          p.bytes,
                          p.offset / 8,
                          block_words,
                          slices,
                          sums.data() + p.first_block,
                          static_cast<std::uint32_t>(l.vertices),
                          a.array == gkbin::kSrc || a.array == gkbin::kDst,
                          first_beyond.data()};
    block_sums_kernel<<<static_cast<unsigned>(grid), kThreads>>>(args);
    GRAPHKIT_CHECK_LAUNCH();
  }
  nvtx_range check_range("graphkit::gkbin checks, original ids");
  const std::vector<unsigned long long> got = sums.to_host();
  // In file order, so that the error names the file's first damaged block, as the host reader's does.
  for (const on_device& a : arrays) {
    const gkbin::array_place& p = l.arrays[a.array];
    for (std::uint64_t k = 0; k < p.blocks; ++k)
      if (got[p.first_block + k] != f->table[p.first_block + k]) gkbin::throw_damaged_block(path, l, a.array, k);
  }
  // The original ids are a host-side mapping: read on the host, checked there.
  if (l.has_original_ids()) {
    out.original_ids = prepared_vector<original_id_t>(l.vertices);
    const gkbin::host_target ids{gkbin::kOriginalIdArray, out.original_ids.data()};
    (void)gkbin::read_arrays(file, *f, {&ids, 1});
  }
  if (const unsigned long long edge = read_one(first_beyond.data()); edge != ~0ull) {
    const vertex_t u = read_one(e.src.data() + edge), v = read_one(e.dst.data() + edge);
    gkbin::throw_vertex_beyond(path, edge, u >= e.num_vertices ? u : v, l.vertices);
  }
  return out;
}

}  // namespace graphkit
