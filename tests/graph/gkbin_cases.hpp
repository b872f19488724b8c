// .gkbin version 2 material shared by the host reader's tests
// (binary_format_test.cpp) and the GPU reader's (binary_gpu_test.cpp):
// random graphs of every shape, the layout as binary_format.cpp's top comment
// documents it (worked out again here, not taken from the library), and
// damaged copies of a good file with the words their error must hold.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "graph/coo.hpp"
#include "graph/io/detail/gkbin_hash.hpp"

namespace graphkit::test::gkbin {

/// A graph with `edges` uniform random edges over 1..200 vertices (none when
/// there are no edges and the draw says so), any int32 weights, sparse
/// 64-bit original ids: what the writer is given and the reader must give back.
inline coo_graph random_graph(std::mt19937_64& rng, std::size_t edges, bool weighted, bool directed, bool ids) {
  coo_graph g;
  g.directed = directed;
  g.num_vertices = static_cast<vertex_t>(edges == 0 ? rng() % 3 : 1 + rng() % 200);
  for (std::size_t i = 0; i < edges; ++i) {
    g.src.push_back(static_cast<vertex_t>(rng() % g.num_vertices));
    g.dst.push_back(static_cast<vertex_t>(rng() % g.num_vertices));
    if (weighted) g.weights.push_back(static_cast<weight_t>(static_cast<std::uint32_t>(rng())));
  }
  if (ids && g.num_vertices > 0) {
    for (vertex_t v = 0; v < g.num_vertices; ++v) g.original_ids.push_back(rng());
  }
  return g;
}

/// Offsets from the documented layout: a 64-byte header, then each array
/// 8-aligned, then the table of one u64 per block of each array, then the end.
struct documented_layout {
  std::uint64_t src = 64, dst = 0, weights = 0, ids = 0, table = 0, end = 0;
  std::uint64_t src_bytes = 0, weight_bytes = 0, id_bytes = 0;
  std::uint64_t blocks = 0;
};

inline documented_layout layout_of(const coo_graph& g, std::uint64_t block_bytes) {
  auto up8 = [](std::uint64_t x) { return (x + 7) / 8 * 8; };
  auto blocks = [&](std::uint64_t bytes) { return (bytes + block_bytes - 1) / block_bytes; };
  documented_layout d;
  d.src_bytes = 4 * g.num_edges();
  d.weight_bytes = g.weighted() ? 4 * g.num_edges() : 0;
  d.id_bytes = 8 * g.original_ids.size();
  d.dst = up8(d.src + d.src_bytes);
  d.weights = up8(d.dst + d.src_bytes);
  d.ids = up8(d.weights + d.weight_bytes);
  d.table = up8(d.ids + d.id_bytes);
  d.blocks = 2 * blocks(d.src_bytes) + blocks(d.weight_bytes) + blocks(d.id_bytes);
  d.end = d.table + 8 * d.blocks;
  return d;
}

/// A file changed from the good one, and a piece of the error it must give.
struct damaged {
  std::string what;   ///< for the test's trace
  std::string bytes;  ///< the whole damaged file
  std::string expect;
};

/// The header's own checksum recomputed, so that a header with a chosen bad
/// field passes its checksum and the field's own check is the one that fires.
inline void reseal_header(std::string& bytes) {
  const std::uint64_t sum = graphkit::detail::gkbin::sum_bytes(bytes.data(), 56, 0);
  std::memcpy(bytes.data() + 56, &sum, 8);
}

inline std::string with_u64(std::string bytes, std::size_t at, std::uint64_t value, bool reseal) {
  std::memcpy(bytes.data() + at, &value, 8);
  if (reseal) reseal_header(bytes);
  return bytes;
}

inline std::string with_u32(std::string bytes, std::size_t at, std::uint32_t value, bool reseal) {
  std::memcpy(bytes.data() + at, &value, 4);
  if (reseal) reseal_header(bytes);
  return bytes;
}

/// Every kind of damage to `good` (the file written for `g` with blocks of
/// `block_bytes`): each array's bytes (first, last and random ones), the
/// header, the table, truncation at several points and extra bytes, the
/// magic, the version, and header fields that are wrong but sealed.
inline std::vector<damaged> damaged_copies(const std::string& good, const coo_graph& g, std::uint64_t block_bytes,
                                           std::mt19937_64& rng) {
  const documented_layout d = layout_of(g, block_bytes);
  std::vector<damaged> out;
  auto flip = [&](std::uint64_t at) {
    std::string bytes = good;
    bytes[at] = static_cast<char>(bytes[at] ^ (1 + rng() % 255));
    return bytes;
  };
  struct array_span {
    const char* name;
    std::uint64_t offset, bytes;
  };
  for (const array_span a :
       {array_span{"source", d.src, d.src_bytes}, array_span{"destination", d.dst, d.src_bytes},
        array_span{"weight", d.weights, d.weight_bytes}, array_span{"original id", d.ids, d.id_bytes}}) {
    if (a.bytes == 0) continue;
    for (const std::uint64_t in : {std::uint64_t{0}, a.bytes - 1, rng() % a.bytes}) {
      out.push_back({std::string(a.name) + " array byte " + std::to_string(in), flip(a.offset + in),
                     "block " + std::to_string(in / block_bytes) + " of the " + a.name + " array (file bytes " +
                         std::to_string(a.offset + in / block_bytes * block_bytes) + " to "});
    }
  }
  for (int i = 0; i < 3; ++i) {
    const std::uint64_t at = 12 + rng() % (64 - 12);  // flags onwards: magic and version have their own errors
    out.push_back({"header byte " + std::to_string(at), flip(at), "the header is damaged"});
  }
  if (d.blocks > 0) {
    const std::uint64_t at = d.table + rng() % (8 * d.blocks);
    out.push_back({"table byte " + std::to_string(at), flip(at), "the block checksum table is damaged"});
  }
  for (const std::uint64_t keep : {std::uint64_t{0}, std::uint64_t{5}, std::uint64_t{8}, std::uint64_t{11},
                                   std::uint64_t{12}, std::uint64_t{40}, std::uint64_t{63}}) {
    out.push_back({"cut to " + std::to_string(keep) + " bytes", good.substr(0, keep), "file ends inside the header"});
  }
  const std::uint64_t somewhere = d.end > 64 ? 64 + rng() % (d.end - 64) : 64;
  for (const std::uint64_t keep : {std::uint64_t{64}, d.dst, d.table, d.end - 1, somewhere}) {
    if (keep >= d.end || keep < 64) continue;
    out.push_back({"cut to " + std::to_string(keep) + " bytes", good.substr(0, keep),
                   "file is " + std::to_string(keep) + " bytes, its header implies " + std::to_string(d.end) +
                       " (the file was cut short)"});
  }
  out.push_back({"a byte more", good + '\0',
                 "file is " + std::to_string(d.end + 1) + " bytes, its header implies " + std::to_string(d.end) +
                     " (bytes after the end)"});
  out.push_back({"magic", "GRAPHKIX" + good.substr(8), "wrong magic (expected 'GRAPHKIT')"});
  for (const std::uint32_t version : {0u, 3u, 0x01000002u}) {
    out.push_back({"version " + std::to_string(version), with_u32(good, 8, version, false),
                   "graphkit binary version " + std::to_string(version) + " is not supported"});
  }
  out.push_back({"unknown flag, resealed", with_u32(good, 12, 1u << 3, true), "unknown header flags 8"});
  for (const std::uint64_t b : {std::uint64_t{0}, std::uint64_t{12}, (std::uint64_t{1} << 30) + 8}) {
    out.push_back({"block size " + std::to_string(b) + ", resealed", with_u64(good, 32, b, true),
                   "the header's block size " + std::to_string(b) + " is not a multiple of 8 from 8 to 2^30 bytes"});
  }
  out.push_back({"2^32 vertices, resealed", with_u64(good, 16, std::uint64_t{1} << 32, true),
                 "header claims 4294967296 vertices"});
  out.push_back({"2^40 edges, resealed", with_u64(good, 24, std::uint64_t{1} << 40, true), "(the file was cut short)"});
  out.push_back({"2^60 edges, resealed", with_u64(good, 24, std::uint64_t{1} << 60, true),
                 "1152921504606846976 edges, beyond what graphkit reads"});
  return out;
}

}  // namespace graphkit::test::gkbin
