// load_on_gpu: see load_gpu.hpp.
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>

#include <algorithm>
#include <future>
#include <memory>
#include <string>

#include "graph/gpu/detail/memory_budget.hpp"
#include "graph/gpu/detail/sort.hpp"
#include "graph/gpu/load_gpu.hpp"
#include "graph/host_transfer.hpp"
#include "graph/io/detail/fields.hpp"
#include "graph/io/detail/posix_file.hpp"
#include "graph/io/detail/text_file.hpp"
#include "graph/io/text_body.hpp"
#include "primitives/common/cuda_event.hpp"
#include "primitives/common/error.hpp"
#include "primitives/common/launch.hpp"
#include "primitives/common/nvtx.hpp"

namespace graphkit {
namespace {

constexpr unsigned kBlock = 256;
constexpr unsigned kBytesPerThread = 32;  // two 16-byte loads
constexpr std::size_t kTile = std::size_t{kBlock} * kBytesPerThread;
/// Zeros after the text: whole tiles for the loads, and a stop for the last line's parse.
constexpr std::size_t kPadding = kTile;
/// The head read for the header: the data lines must begin within it.
constexpr std::size_t kHeadBytes = 1u << 20;

/// What a data line must look like (from text_body).
struct line_rules {
  int fields;
  bool arc_prefix;
  std::uint64_t max_id;  // 0: 64-bit edge-list ids
};

/// Where parsed lines go: 1-based formats write dense src/dst, edge lists
/// their raw ids (all sources, then all destinations); weights when 3 fields.
struct line_outputs {
  vertex_t* src;
  vertex_t* dst;
  std::uint64_t* ids;
  weight_t* weights;
  std::size_t lines;
  unsigned* rejected;  // set when some line is not of the common shape
};

/// A thread's 32 bytes, and a bit per byte that is a newline.
struct thread_bytes {
  uint4 v[2];
  __device__ unsigned newline_mask() const {
    const unsigned words[8] = {v[0].x, v[0].y, v[0].z, v[0].w, v[1].x, v[1].y, v[1].z, v[1].w};
    unsigned mask = 0;
    for (int k = 0; k < 8; ++k) {
      const unsigned eq = __vcmpeq4(words[k], 0x0a0a0a0au);  // 0xff in each byte that is '\n'
      mask |= ((eq >> 7 & 1u) | (eq >> 14 & 2u) | (eq >> 21 & 4u) | (eq >> 28 & 8u)) << (4 * k);
    }
    return mask;
  }
};

__device__ thread_bytes load_thread_bytes(const char* text) {
  const auto* p =
      reinterpret_cast<const uint4*>(text + (std::size_t{blockIdx.x} * kBlock + threadIdx.x) * kBytesPerThread);
  return {{p[0], p[1]}};
}

__global__ void count_tile_lines_kernel(const char* text, std::uint64_t* tile_newlines) {
  using reduce = cub::BlockReduce<unsigned, kBlock>;
  __shared__ typename reduce::TempStorage scratch;
  const unsigned mine = __popc(load_thread_bytes(text).newline_mask());
  const unsigned total = reduce(scratch).Sum(mine);
  if (threadIdx.x == 0) tile_newlines[blockIdx.x] = total;
}

__device__ bool is_digit(char c) { return static_cast<unsigned char>(c - '0') < 10; }
__device__ bool is_field_blank(char c) { return c == ' ' || c == '\t'; }

/// The host's scan_unsigned_fields and the format's fast-path checks, for the
/// line at `p`: true with the line stored in slot `line`, false if the host
/// reader must see it.
__device__ bool parse_line(const char* p, const char* end, std::size_t line, const line_rules& rules,
                           const line_outputs& out) {
  if (line >= out.lines) return false;  // more lines than the header promised: the host reports it
  if (rules.arc_prefix) {
    if (end - p < 2 || p[0] != 'a' || !is_field_blank(p[1])) return false;
    ++p;
  }
  std::uint64_t value[3] = {0, 0, 0};
  int fields = 0;
  for (;;) {
    while (p < end && is_field_blank(*p)) ++p;
    if (p == end || *p == '\n' || *p == '\r') break;
    if (fields == rules.fields) return false;
    const char* start = p;
    std::uint64_t v = 0;
    while (p < end && is_digit(*p)) v = v * 10 + static_cast<unsigned>(*p++ - '0');
    if (p == start || p - start > 19) return false;
    if (p < end && !is_field_blank(*p) && *p != '\n' && *p != '\r') return false;
    value[fields++] = v;
  }
  if (p < end && *p == '\r') ++p;
  if ((p < end && *p != '\n') || fields != rules.fields) return false;
  if (rules.fields == 3 && value[2] > detail::kFastMaxWeight) return false;
  if (rules.max_id != 0) {
    if (value[0] - 1 >= rules.max_id || value[1] - 1 >= rules.max_id) return false;  // 0 wraps round
    out.src[line] = static_cast<vertex_t>(value[0] - 1);
    out.dst[line] = static_cast<vertex_t>(value[1] - 1);
  } else {
    out.ids[line] = value[0];
    out.ids[out.lines + line] = value[1];
  }
  if (rules.fields == 3) out.weights[line] = static_cast<weight_t>(value[2]);
  return true;
}

/// Every line that starts in this thread's 32 bytes, in its slot: the line
/// after the k-th newline of the window is line *lines_before + k (the
/// lines of the windows before; the window starts at a line).
__global__ void parse_tile_lines_kernel(const char* text, std::size_t size, const std::uint64_t* tile_first_line,
                                        const std::uint64_t* lines_before, line_rules rules, line_outputs out) {
  const std::uint64_t line_base = *lines_before;
  using scan = cub::BlockScan<unsigned, kBlock>;
  __shared__ typename scan::TempStorage scratch;
  unsigned mask = load_thread_bytes(text).newline_mask();
  unsigned before = 0;
  scan(scratch).ExclusiveSum(static_cast<unsigned>(__popc(mask)), before);
  const char* end = text + size;
  const std::size_t first_byte = (std::size_t{blockIdx.x} * kBlock + threadIdx.x) * kBytesPerThread;
  std::size_t line = line_base + tile_first_line[blockIdx.x] + before;
  bool ok = true;
  if (first_byte == 0 && size > 0) ok = parse_line(text, end, line_base, rules, out);
  while (mask != 0) {
    const std::size_t at = first_byte + static_cast<unsigned>(__ffs(static_cast<int>(mask)) - 1);
    mask &= mask - 1;
    ++line;
    if (at + 1 < size) ok = parse_line(text + at + 1, end, line, rules, out) && ok;
  }
  if (!ok) *out.rejected = 1;
}

/// Moves the running line count past a window: its newlines (the scan's
/// total), and its last line when that has none (the body's end).
__global__ void advance_line_base_kernel(std::uint64_t* lines_before, const std::uint64_t* window_newlines,
                                         bool open_last_line) {
  *lines_before += *window_newlines + (open_last_line ? 1 : 0);
}

/// Where the body's bytes come from: `fill` writes body bytes [at, at + len)
/// into a chunk (pread from the file into the pinned lanes, or a copy of host
/// text: gzip, already decompressed); the host also reads a window's last
/// bytes through it to cut the window at a line end.
struct body_source {
  std::size_t size = 0;
  chunk_filler fill;
};

/// The body's bytes that go to the device at once, from the memory rule
/// (graph/gpu/detail/memory_budget.hpp): when the header promises the line
/// count, the parsed edges (8 B a line, 12 B weighted) are held from the
/// start, and the text window, its padding and its tile counts (8 B per 8 KiB
/// tile) get what the budget leaves, at most 256 MiB (past that a window
/// gains no speed: the transfer, not the parse, sets the pace); at least one
/// tile. Edge lists promise no count, and their parse holds 64-bit ids (16 B
/// a line) and then relabel's table, over the rule whatever the window: their
/// text goes in one window, as before.
std::size_t window_bytes(const text_body& body, std::size_t size) {
  const std::size_t whole = (size + kTile - 1) / kTile * kTile;
  if (body.lines == 0 || body.max_id == 0) return std::max(whole, kTile);
  const std::size_t edge_bytes = body.lines * (2 * sizeof(vertex_t) + (body.fields == 3 ? sizeof(weight_t) : 0));
  const std::size_t left =
      detail::workspace_bytes(body.lines, edge_bytes + kPadding + sizeof(std::uint64_t) + detail::kSmallScratch);
  const std::size_t fits = left / (kTile + sizeof(std::uint64_t)) * kTile;  // a tile and its count
  return std::clamp(std::min(fits, std::size_t{256} << 20), kTile, std::max(whole, kTile));
}

/// How many of the `len` body bytes from `at` make whole lines: up to the last
/// newline among the window's last 64 KiB, read on the host; 0 when there is
/// none (a line that long is not the common shape: the host reader's).
std::size_t whole_lines(const body_source& source, std::size_t at, std::size_t len) {
  const std::size_t probe = std::min<std::size_t>(len, 64u << 10);
  std::string tail(probe, '\0');
  source.fill(tail.data(), at + len - probe, probe);
  const std::size_t nl = tail.rfind('\n');
  return nl == std::string::npos ? 0 : len - probe + nl + 1;
}

/// The parse's outputs for `lines` lines: dense src/dst (1-based formats) or
/// raw ids (edge lists), and weights when lines have 3 fields.
struct parsed_lines {
  std::size_t lines;
  device_edges edges;
  device_buffer<std::uint64_t> ids;
  parsed_lines(const text_body& body, std::size_t count) : lines(count), ids(body.max_id != 0 ? 0 : 2 * count) {
    edges.directed = body.directed;
    if (body.max_id != 0) {
      edges.num_vertices = static_cast<vertex_t>(body.max_id);
      edges.src = device_buffer<vertex_t>(lines);
      edges.dst = device_buffer<vertex_t>(lines);
    }
    if (body.fields == 3) edges.weights = device_buffer<weight_t>(lines);
  }
};

/// One text window on the device: the text (zero-padded), its tiles' line
/// counts, and when its last parse finished.
struct text_window {
  device_buffer<char> text;
  device_buffer<std::uint64_t> tile_first_line;
  cuda_event parsed;
  explicit text_window(std::size_t bytes) : text(bytes + kPadding), tile_first_line(bytes / kTile + 1) {}
};

/// Parses the body window by window (window_bytes; each cut at a line end)
/// into the slots of its lines; nullopt when some line is the host's, or the
/// lines are not the header's count (the host reports it). A body of several
/// windows alternates between two buffers of half the size, so that one is
/// filled from the file while the other is parsed (the parse of R-MAT 21's
/// .mtx is ~17 ms of GPU time, as long as half of its transfer); the line
/// count runs on in device memory, so no window waits for the host to read
/// its count back, and a parse writes no line past the header's count.
std::optional<parsed_lines> parse_windows(const body_source& source, const text_body& body) {
  // A line the GPU takes has its fields (a digit each), blanks between them
  // and a newline (but the last): a header that promises more lines than
  // that is the host's to report, before the outputs are allocated for them.
  const std::size_t shortest_line = 2 * static_cast<std::size_t>(body.fields) + (body.arc_prefix ? 2 : 0);
  if (body.lines > (source.size + 1) / shortest_line) return std::nullopt;
  std::size_t window = window_bytes(body, source.size);
  const bool alternate = window < source.size && window >= 2 * kTile;
  if (alternate) window = window / 2 / kTile * kTile;
  std::vector<std::unique_ptr<text_window>> windows;
  device_buffer<unsigned> rejected(1);
  device_buffer<std::uint64_t> lines_before(1);
  std::optional<parsed_lines> parsed;
  {
    nvtx_range range("graphkit::GPU parse: buffers");
    windows.push_back(std::make_unique<text_window>(window));
    if (alternate) windows.push_back(std::make_unique<text_window>(window));
    rejected.fill_bytes(0);
    lines_before.fill_bytes(0);
    if (body.lines != 0) parsed.emplace(body, body.lines);
  }
  bool open_last_line = false;  // the body's last byte is not a newline
  if (source.size > 0) {
    char last = '\n';
    source.fill(&last, source.size - 1, 1);
    open_last_line = last != '\n';
  }
  const line_rules rules{body.fields, body.arc_prefix, body.max_id};
  std::size_t at = 0;
  transfer_options no_wait;
  no_wait.wait_for_device = false;  // the window's own event says when its last parse is done
  no_wait.wait_for_copies = false;  // the parse (default stream) waits for the copies, not the host
  for (std::size_t k = 0; at < source.size || k == 0; ++k) {
    nvtx_range range("graphkit::GPU parse: a window");
    text_window& w = *windows[k % windows.size()];
    std::size_t len = std::min(window, source.size - at);
    if (at + len < source.size && (len = whole_lines(source, at, len)) == 0) return std::nullopt;
    const bool last_window = at + len == source.size;
    {
      nvtx_range wait("graphkit::GPU parse: buffer free");
      w.parsed.synchronize();
    }
    {
      nvtx_range fill("graphkit::GPU parse: text to the device");
      fill_device(
          w.text.data(), len,
          [&source, at](char* chunk, std::size_t from, std::size_t n) { source.fill(chunk, at + from, n); }, no_wait);
    }
    GRAPHKIT_CUDA_TRY(cudaMemsetAsync(w.text.data() + len, 0, w.text.size() - len));  // and the last window's bytes
    const std::size_t tiles = (len + kTile - 1) / kTile;
    w.tile_first_line.fill_bytes(0);
    if (tiles > 0) {
      count_tile_lines_kernel<<<static_cast<unsigned>(tiles), kBlock>>>(w.text.data(), w.tile_first_line.data());
      GRAPHKIT_CHECK_LAUNCH();
    }
    detail::exclusive_scan(w.tile_first_line.data(), tiles + 1);
    if (!parsed) {  // an edge list: one window (no count promised), all of its lines
      parsed.emplace(body, read_one(w.tile_first_line.data() + tiles) + (open_last_line ? 1 : 0));
    }
    const line_outputs out{parsed->edges.src.data(),
                           parsed->edges.dst.data(),
                           parsed->ids.data(),
                           parsed->edges.weights.data(),
                           parsed->lines,
                           rejected.data()};
    if (tiles > 0) {
      parse_tile_lines_kernel<<<static_cast<unsigned>(tiles), kBlock>>>(w.text.data(), len, w.tile_first_line.data(),
                                                                        lines_before.data(), rules, out);
      GRAPHKIT_CHECK_LAUNCH();
    }
    advance_line_base_kernel<<<1, 1>>>(lines_before.data(), w.tile_first_line.data() + tiles,
                                       last_window && open_last_line);
    GRAPHKIT_CHECK_LAUNCH();
    w.parsed.record();  // runs on while the next window is filled
    at += len;
  }
  nvtx_range tail("graphkit::GPU parse: last window and counts");
  const std::uint64_t lines = read_one(lines_before.data());
  if ((body.lines != 0 && lines != body.lines) || read_one(rejected.data()) != 0) return std::nullopt;
  return parsed;
}

/// Parses the body on the device; nullopt when some line is the host's.
std::optional<device_edges> parse_body(const body_source& source, const text_body& body, relabel_order order,
                                       std::vector<original_id_t>& original_ids) {
  nvtx_range range("graphkit::parse_on_gpu");
  // A 1-based format's original ids are 1..n from the header: written on the
  // host while the windows go to the device (R-MAT 21's 2M ids: ~5 ms that
  // followed the last window).
  std::future<std::vector<original_id_t>> ids;
  if (body.max_id != 0) ids = std::async(std::launch::async, one_based_ids, body.max_id);
  std::optional<parsed_lines> parsed = parse_windows(source, body);
  if (!parsed) return std::nullopt;
  if (body.max_id != 0) {
    original_ids = ids.get();
    return std::move(parsed->edges);
  }
  device_edges dense = relabel_device(parsed->ids, order, original_ids);
  dense.directed = true;
  dense.weights = std::move(parsed->edges.weights);
  return dense;
}

/// The head of the text up to its last complete line (all of it when `whole`).
std::string_view complete_lines(std::string_view head, bool whole) {
  if (whole) return head;
  const std::size_t nl = head.rfind('\n');
  return nl == std::string_view::npos ? std::string_view() : head.substr(0, nl + 1);
}

}  // namespace

std::optional<device_loaded> load_on_gpu(const std::string& path, const gpu_load_options& options) {
  nvtx_range range("graphkit::load_on_gpu");
  const file_format format = options.format ? *options.format : detect_format(path);
  if (format == file_format::binary) return load_binary_on_gpu(path);
  const detail::posix_file file(path);
  const long long file_size = file.regular_size();
  if (file_size < 0 || static_cast<std::size_t>(file_size) < options.min_bytes) return std::nullopt;
  const auto size = static_cast<std::size_t>(file_size);

  device_loaded loaded;
  loaded.format = format;
  std::optional<text_body> body;
  body_source source;
  detail::text_buffer host;  // a gzip file's text, decompressed
  if (detail::is_gzip_file(path)) {
    // A gzip stream is decompressed on the host; only the parse moves to the GPU.
    host = detail::read_text_file(path);
    body = describe_text_body(path, format, host.view());
    if (!body) return std::nullopt;
    loaded.bytes = host.size();
    source.size = host.size() - body->offset;
    const char* from = host.view().data() + body->offset;
    source.fill = [from](char* chunk, std::size_t at, std::size_t len) { std::copy_n(from + at, len, chunk); };
  } else {
    std::string head(std::min(size, kHeadBytes), '\0');
    head.resize(file.read_at(head.data(), head.size(), 0));
    body = describe_text_body(path, format, complete_lines(head, head.size() == size));
    if (!body) return std::nullopt;
    loaded.bytes = size;
    source.size = size - body->offset;
    const std::size_t offset = body->offset;
    source.fill = [&file, offset](char* chunk, std::size_t at, std::size_t len) {
      if (file.read_at(chunk, len, offset + at) != len)
        throw make_input_error(file.path(), 0, "the file shrank while it was being read");
    };
  }
  std::optional<device_edges> edges = parse_body(source, *body, options.relabel, loaded.original_ids);
  if (!edges) return std::nullopt;
  loaded.edges = std::move(*edges);
  return loaded;
}

}  // namespace graphkit
