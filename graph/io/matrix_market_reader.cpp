// Matrix Market coordinate files as graphs: an entry (i, j) is an edge
// i-1 -> j-1. Pattern, integer and real fields; general, symmetric and
// skew-symmetric (both read as undirected). Dense "array" files and complex
// values are refused: they are not graphs.
#include <algorithm>
#include <atomic>
#include <cctype>
#include <cmath>

#include "graph/io/detail/fields.hpp"
#include "graph/io/detail/raw_edges.hpp"
#include "graph/io/detail/readers.hpp"
#include "graph/relabel.hpp"

namespace graphkit::detail {
namespace {

enum class mm_field { pattern, integer, real };

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

struct mm_header {
  mm_field field = mm_field::pattern;
  bool symmetric = false;
  std::uint64_t rows = 0, cols = 0, entries = 0;
  std::size_t size_line = 0;  // file line of "rows cols entries"
  std::size_t data_line = 0;  // file line where entries start
};

// Reads the banner, comments and size line off the front of `text`.
mm_header read_header(const std::string& path, std::string_view& text) {
  mm_header h;
  std::string_view banner = take_line(text);
  std::string why;
  std::string words[5];
  {
    std::size_t k = 0;
    std::size_t pos = 0;
    while (k < 5 && pos < banner.size()) {
      while (pos < banner.size() && is_blank(banner[pos])) ++pos;
      const std::size_t start = pos;
      while (pos < banner.size() && !is_blank(banner[pos])) ++pos;
      if (pos > start) words[k++] = std::string(banner.substr(start, pos - start));
    }
  }
  if (lower(words[0]) != "%%matrixmarket")
    throw make_input_error(path, 1, "missing '%%MatrixMarket matrix coordinate <field> <symmetry>' banner");
  if (lower(words[1]) != "matrix")
    throw make_input_error(path, 1, "expected object 'matrix', found '" + words[1] + "'");
  if (lower(words[2]) != "coordinate")
    throw make_input_error(
        path, 1,
        "expected format 'coordinate' (a sparse matrix), found '" + words[2] + "'; dense 'array' files are not graphs");
  const std::string field = lower(words[3]);
  if (field == "pattern") h.field = mm_field::pattern;
  else if (field == "integer") h.field = mm_field::integer;
  else if (field == "real" || field == "double") h.field = mm_field::real;
  else throw make_input_error(path, 1, "expected field 'pattern', 'integer' or 'real', found '" + words[3] + "'");
  const std::string symmetry = lower(words[4]);
  if (symmetry == "general") h.symmetric = false;
  else if (symmetry == "symmetric" || symmetry == "skew-symmetric") h.symmetric = true;
  else
    throw make_input_error(path, 1,
                           "expected symmetry 'general', 'symmetric' or 'skew-symmetric', found '" + words[4] + "'");

  std::size_t line_no = 1;
  for (;;) {
    if (text.empty())
      throw make_input_error(path, line_no, "expected the size line 'rows cols entries', found end of file");
    std::string_view line = take_line(text);
    ++line_no;
    field_reader fields(line);
    if (fields.at_end() || fields.peek() == '%') continue;
    if (!fields.integer(h.rows, "the row count", why) || !fields.integer(h.cols, "the column count", why) ||
        !fields.integer(h.entries, "the entry count", why) || !fields.expect_end("rows cols entries", why))
      throw make_input_error(path, line_no, why);
    h.size_line = line_no;
    h.data_line = line_no + 1;
    break;
  }
  if (h.rows != h.cols)
    throw make_input_error(
        path, h.size_line,
        "a graph needs a square matrix, this one is " + std::to_string(h.rows) + " x " + std::to_string(h.cols));
  if (h.rows >= kMaxVertices)
    throw make_input_error(path, h.size_line, std::to_string(h.rows) + " vertices do not fit 32-bit ids");
  return h;
}

}  // namespace

std::optional<text_body> describe_matrix_market(const std::string& path, std::string_view head) {
  std::string_view text = head;
  const std::optional<mm_header> header = header_or_nothing([&] { return read_header(path, text); });
  if (!header || header->field == mm_field::real || header->rows == 0) return std::nullopt;
  const mm_header& h = *header;
  skip_lines(text, [](std::string_view line) {
    field_reader fields(line);
    return fields.at_end() || fields.peek() == '%';
  });
  if (text.empty()) return std::nullopt;
  text_body body;
  body.format = file_format::matrix_market;
  body.offset = head.size() - text.size();
  body.fields = h.field == mm_field::pattern ? 2 : 3;
  body.max_id = h.rows;
  body.lines = h.entries;
  body.directed = !h.symmetric;
  return body;
}

loaded_graph read_matrix_market(const std::string& path, text_buffer&& file_text) {
  std::string_view text = file_text.view();
  const std::size_t total_bytes = text.size();
  const mm_header h = read_header(path, text);
  bool non_integral = false;  // real weights that are not whole numbers
  using chunk = edge_chunk<vertex_t>;
  // Pattern and integer entries take the fast path; real values (and anything
  // unusual) the field_reader path.
  const int fast_fields = h.field == mm_field::pattern ? 2 : h.field == mm_field::integer ? 3 : 0;
  auto fast = [&](chunk& c, const char* p, const char* end, std::size_t local) -> const char* {
    if (fast_fields == 0) return nullptr;
    std::uint64_t f[3];
    const char* next = nullptr;
    if (scan_unsigned_fields(p, end, f, next) != fast_fields || f[0] - 1 >= h.rows || f[1] - 1 >= h.rows)
      return nullptr;
    if (fast_fields == 2) c.add(f[0], f[1], local);
    else if (f[2] <= kFastMaxWeight) c.add(f[0], f[1], static_cast<weight_t>(f[2]), local);
    else return nullptr;
    return next;
  };
  raw_edges<vertex_t> raw = parse_edges<vertex_t>(
      text, file_text.newlines(), h.data_line, path, h.field != mm_field::pattern, 1, fast,
      [&](chunk& chunk, std::string_view line, std::size_t local) {
        field_reader fields(line);
        if (fields.at_end() || fields.peek() == '%') return true;
        std::uint64_t i = 0, j = 0;
        if (!fields.integer(i, "a row index", chunk.why) || !fields.integer(j, "a column index", chunk.why))
          return false;
        for (const std::uint64_t index : {i, j}) {
          if (index == 0 || index > h.rows) {
            chunk.why = "index " + std::to_string(index) + " is outside 1.." + std::to_string(h.rows) +
                        " (Matrix Market indices start at 1)";
            return false;
          }
        }
        if (h.field == mm_field::pattern) {
          if (!fields.expect_end("row column", chunk.why)) return false;
          chunk.add(i, j, local);
          return true;
        }
        weight_t w = 0;
        if (h.field == mm_field::integer) {
          std::int64_t wide = 0;
          if (!fields.integer(wide, "an integer value", chunk.why) || !narrow_weight(wide, w, chunk.why)) return false;
        } else {
          double value = 0;
          if (!fields.real(value, "a real value", chunk.why)) return false;
          if (value != std::nearbyint(value) || std::fabs(value) > 2147483647.0) {
            std::atomic_ref<bool>(non_integral).store(true, std::memory_order_relaxed);
          } else {
            w = static_cast<weight_t>(value);
          }
        }
        if (!fields.expect_end("row column value", chunk.why)) return false;
        chunk.add(i, j, w, local);
        return true;
      });
  file_text.release();
  if (raw.src.size() != h.entries)
    throw make_input_error(path, h.size_line,
                           "the size line promises " + std::to_string(h.entries) + " entries, the file has " +
                               std::to_string(raw.src.size()));

  loaded_graph out;
  out.format = file_format::matrix_market;
  out.bytes = total_bytes;
  out.graph.num_vertices = static_cast<vertex_t>(h.rows);
  out.graph.directed = !h.symmetric;
  out.graph.src = std::move(raw.src);
  out.graph.dst = std::move(raw.dst);
  out.graph.original_ids = one_based_ids(h.rows);
  if (non_integral) {
    out.warnings.push_back(path + ": real values are not all integers; weights ignored (unweighted graph)");
  } else {
    out.graph.weights = std::move(raw.weights);
    out.negative_weight_line = raw.negative_weight_line;
    out.negative_weight = raw.negative_weight;
  }
  return out;
}

}  // namespace graphkit::detail
