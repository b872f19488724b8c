// Version 1 of graphkit's binary graph (.gkbin), as builds before version 2
// wrote it: still read (load_graph hands these files here), and still
// written, by tests only, so that they can check that old files load.
// Little-endian layout, version 1:
//   char[8] "GRAPHKIT" | u32 version | u32 flags (1 weighted, 2 directed,
//   4 original ids) | u64 vertices | u64 edges | u32 src[m] | u32 dst[m] |
//   i32 weights[m] if weighted | u64 original_ids[n] if flagged |
//   u64 checksum of every byte before it.
// Its one sequential checksum is why version 2 exists (binary_format.cpp).
#include <cstdio>
#include <cstring>
#include <memory>

#include "graph/io/detail/readers.hpp"
#include "primitives/common/error.hpp"

namespace graphkit::detail {
namespace {

constexpr char kMagic[8] = {'G', 'R', 'A', 'P', 'H', 'K', 'I', 'T'};
constexpr std::uint32_t kVersion = 1;
constexpr std::uint32_t kWeighted = 1, kDirected = 2, kOriginalIds = 4;
constexpr std::size_t kHeaderBytes = 8 + 4 + 4 + 8 + 8;

// Four independent multiply-xor lanes over 8-byte words: several GB/s, and
// any flipped bit or reordered word changes the sum.
class checksum {
 public:
  void add(const void* data, std::size_t bytes) {
    const auto* p = static_cast<const unsigned char*>(data);
    for (; pending_ < 8 && bytes > 0; --bytes) tail_[pending_++] = *p++;
    if (pending_ == 8) {
      absorb(tail_);
      pending_ = 0;
    }
    for (; bytes >= 8; bytes -= 8, p += 8) absorb(p);
    for (; bytes > 0; --bytes) tail_[pending_++] = *p++;
  }
  [[nodiscard]] std::uint64_t value() const {
    std::uint64_t h = total_ ^ 0x9e3779b97f4a7c15ULL;
    for (int i = 0; i < pending_; ++i) h = (h ^ tail_[i]) * 0x100000001b3ULL;
    for (const std::uint64_t lane : lanes_) h = (h ^ lane) * 0xff51afd7ed558ccdULL, h ^= h >> 32;
    return h;
  }

 private:
  void absorb(const unsigned char* p) {
    std::uint64_t word;
    std::memcpy(&word, p, 8);
    std::uint64_t& lane = lanes_[total_++ & 3];
    lane = (lane ^ word) * 0x9fb21c651e98df25ULL;
    lane ^= lane >> 29;
  }
  std::uint64_t lanes_[4] = {1, 2, 3, 4};
  std::uint64_t total_ = 0;
  unsigned char tail_[8] = {};
  int pending_ = 0;
};

struct file_closer {
  void operator()(std::FILE* f) const noexcept { std::fclose(f); }
};

}  // namespace

void write_binary_v1(const coo_graph& g, const std::string& path) {
  std::unique_ptr<std::FILE, file_closer> f(std::fopen(path.c_str(), "wb"));
  if (!f) throw make_input_error(path, 0, "cannot create file");
  checksum sum;
  auto put = [&](const void* data, std::size_t bytes) {
    if (bytes == 0) return;
    if (std::fwrite(data, 1, bytes, f.get()) != bytes) throw make_input_error(path, 0, "write failed");
    sum.add(data, bytes);
  };
  const std::uint32_t flags =
      (g.weighted() ? kWeighted : 0) | (g.directed ? kDirected : 0) | (g.original_ids.empty() ? 0 : kOriginalIds);
  const std::uint64_t n = g.num_vertices, m = g.num_edges();
  put(kMagic, 8);
  put(&kVersion, 4);
  put(&flags, 4);
  put(&n, 8);
  put(&m, 8);
  put(g.src.data(), m * sizeof(vertex_t));
  put(g.dst.data(), m * sizeof(vertex_t));
  if (g.weighted()) put(g.weights.data(), m * sizeof(weight_t));
  if (!g.original_ids.empty()) put(g.original_ids.data(), n * sizeof(original_id_t));
  const std::uint64_t value = sum.value();
  put(&value, 8);
  if (std::fflush(f.get()) != 0) throw make_input_error(path, 0, "write failed");
}

loaded_graph read_binary_v1(const std::string& path) {
  std::unique_ptr<std::FILE, file_closer> f(std::fopen(path.c_str(), "rb"));
  if (!f) throw make_input_error(path, 0, std::string("cannot open: ") + std::strerror(errno));
  std::fseek(f.get(), 0, SEEK_END);
  const auto file_bytes = static_cast<std::uint64_t>(std::ftell(f.get()));
  std::rewind(f.get());
  checksum sum;
  auto get = [&](void* data, std::size_t bytes, const char* what) {
    if (bytes == 0) return;
    if (std::fread(data, 1, bytes, f.get()) != bytes)
      throw make_input_error(path, 0, std::string("file ends inside the ") + what);
    sum.add(data, bytes);
  };
  char magic[8] = {};
  std::uint32_t version = 0, flags = 0;
  std::uint64_t n = 0, m = 0;
  get(magic, 8, "header");
  if (std::memcmp(magic, kMagic, 8) != 0)
    throw make_input_error(path, 0, "not a graphkit binary graph: wrong magic (expected 'GRAPHKIT')");
  get(&version, 4, "header");
  if (version != kVersion)
    throw make_input_error(path, 0,
                           "graphkit binary version " + std::to_string(version) +
                               " is not supported (this build reads version " + std::to_string(kVersion) + ")");
  get(&flags, 4, "header");
  get(&n, 8, "header");
  get(&m, 8, "header");
  if ((flags & ~(kWeighted | kDirected | kOriginalIds)) != 0)
    throw make_input_error(path, 0, "unknown header flags " + std::to_string(flags));
  if (n >= kMaxVertices || m > (file_bytes / 8))
    throw make_input_error(path, 0,
                           "header claims " + std::to_string(n) + " vertices and " + std::to_string(m) +
                               " edges, which a " + std::to_string(file_bytes) + "-byte file cannot hold");
  const std::uint64_t expected =
      kHeaderBytes + m * 8 + ((flags & kWeighted) ? m * 4 : 0) + ((flags & kOriginalIds) ? n * 8 : 0) + 8;
  if (file_bytes != expected)
    throw make_input_error(
        path, 0, "file is " + std::to_string(file_bytes) + " bytes, its header implies " + std::to_string(expected));
  loaded_graph out;
  out.format = file_format::binary;
  out.bytes = file_bytes;
  coo_graph& g = out.graph;
  g.num_vertices = static_cast<vertex_t>(n);
  g.directed = (flags & kDirected) != 0;
  g.src.resize(m);
  g.dst.resize(m);
  get(g.src.data(), m * sizeof(vertex_t), "source array");
  get(g.dst.data(), m * sizeof(vertex_t), "destination array");
  if (flags & kWeighted) {
    g.weights.resize(m);
    get(g.weights.data(), m * sizeof(weight_t), "weight array");
  }
  if (flags & kOriginalIds) {
    g.original_ids.resize(n);
    get(g.original_ids.data(), n * sizeof(original_id_t), "original id array");
  }
  const std::uint64_t computed = sum.value();
  std::uint64_t stored = 0;
  if (std::fread(&stored, 1, 8, f.get()) != 8) throw make_input_error(path, 0, "file ends before the checksum");
  if (stored != computed) throw make_input_error(path, 0, "checksum mismatch: the file is corrupt");
  for (std::uint64_t i = 0; i < m; ++i) {
    if (g.src[i] >= n || g.dst[i] >= n)
      throw make_input_error(path, 0, "edge " + std::to_string(i) + " names a vertex beyond " + std::to_string(n));
  }
  return out;
}

}  // namespace graphkit::detail
