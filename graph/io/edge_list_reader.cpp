// SNAP / whitespace edge lists: "src dst" or "src dst weight" per line, ids
// any 64-bit value, '#' and '%' comment lines, blank lines, CRLF endings.
#include "graph/io/detail/fields.hpp"
#include "graph/io/detail/raw_edges.hpp"
#include "graph/io/detail/readers.hpp"

namespace graphkit::detail {
namespace {

using chunk = edge_chunk<std::uint64_t>;

bool is_comment_or_blank(std::string_view line) {
  field_reader fields(line);
  return fields.at_end() || fields.peek() == '#' || fields.peek() == '%';
}

/// Whether the first data line has a third field: the file's weightedness
/// (a later line of the other kind is an error).
bool first_data_line_weighted(std::string_view text) {
  while (!text.empty()) {
    const std::string_view line = take_line(text);
    if (is_comment_or_blank(line)) continue;
    int count = 0;
    for (std::size_t i = 0; i < line.size(); ++i) count += !is_blank(line[i]) && (i == 0 || is_blank(line[i - 1]));
    return count >= 3;
  }
  return false;
}

}  // namespace

std::optional<text_body> describe_edge_list(std::string_view head) {
  std::string_view text = head;
  skip_lines(text, is_comment_or_blank);
  if (text.empty()) return std::nullopt;
  text_body body;
  body.format = file_format::edge_list;
  body.offset = head.size() - text.size();
  body.fields = first_data_line_weighted(text) ? 3 : 2;
  return body;
}

loaded_graph read_edge_list(const std::string& path, text_buffer&& file_text, const load_options& options) {
  std::string_view text = file_text.view();
  const std::size_t total_bytes = text.size();
  // Leading comments are taken off first, so that the parts' slots need no closing up.
  const std::size_t first_line = 1 + skip_lines(text, is_comment_or_blank);
  auto fast = [](chunk& c, const char* p, const char* end, std::size_t local) -> const char* {
    std::uint64_t f[3];
    const char* next = nullptr;
    const int n = scan_unsigned_fields(p, end, f, next);
    if (n == 2) c.add(f[0], f[1], local);
    else if (n == 3 && f[2] <= kFastMaxWeight) c.add(f[0], f[1], static_cast<weight_t>(f[2]), local);
    else return nullptr;
    return next;
  };
  raw_edges<std::uint64_t> raw = parse_edges<std::uint64_t>(
      text, file_text.newlines(), first_line, path, first_data_line_weighted(text), 0, fast,
      [](chunk& chunk, std::string_view line, std::size_t local) {
        if (is_comment_or_blank(line)) return true;
        field_reader fields(line);
        std::uint64_t u = 0, v = 0;
        if (!fields.integer(u, "a source vertex id", chunk.why)) return false;
        if (fields.at_end()) {
          chunk.why = "expected two vertex ids (src dst [weight]), found one field";
          return false;
        }
        if (!fields.integer(v, "a destination vertex id", chunk.why)) return false;
        if (fields.at_end()) {
          chunk.add(u, v, local);
          return true;
        }
        std::int64_t wide = 0;
        weight_t w = 0;
        if (!fields.integer(wide, "an integer weight", chunk.why) || !narrow_weight(wide, w, chunk.why)) return false;
        if (!fields.expect_end("src dst [weight]", chunk.why)) return false;
        chunk.add(u, v, w, local);
        return true;
      });
  file_text.release();

  loaded_graph out;
  out.format = file_format::edge_list;
  out.bytes = total_bytes;
  out.negative_weight_line = raw.negative_weight_line;
  out.negative_weight = raw.negative_weight;
  relabeled_edges dense = options.relabeler ? options.relabeler(raw.src, raw.dst, options.relabel)
                                            : relabel(raw.src, raw.dst, options.relabel);
  decltype(raw.src)().swap(raw.src);
  decltype(raw.dst)().swap(raw.dst);
  out.graph.num_vertices = dense.num_vertices;
  out.graph.src = std::move(dense.src);
  out.graph.dst = std::move(dense.dst);
  out.graph.original_ids = std::move(dense.original_ids);
  out.graph.weights = std::move(raw.weights);
  out.graph.directed = true;
  return out;
}

}  // namespace graphkit::detail
