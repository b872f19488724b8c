// DIMACS 9th Challenge shortest-path graphs (.gr): "c" comments, one
// "p sp NODES ARCS" problem line, then "a U V W" arcs with U, V in 1..NODES.
#include "graph/io/detail/fields.hpp"
#include "graph/io/detail/raw_edges.hpp"
#include "graph/io/detail/readers.hpp"
#include "graph/relabel.hpp"

namespace graphkit::detail {

namespace {

struct dimacs_problem {
  std::uint64_t nodes = 0, arcs = 0;
  std::size_t line = 0;  ///< file line of "p sp NODES ARCS"
};

/// Reads the comments and the problem line off the front of `text`.
dimacs_problem read_problem(const std::string& path, std::string_view& text) {
  dimacs_problem problem;
  std::size_t line_no = 0;
  std::string why;
  while (problem.line == 0) {
    if (text.empty())
      throw make_input_error(path, line_no, "expected a problem line 'p sp NODES ARCS', found end of file");
    std::string_view line = take_line(text);
    ++line_no;
    field_reader fields(line);
    if (fields.at_end() || fields.peek() == 'c') continue;
    const std::string kind = fields.next_token();
    if (kind != "p")
      throw make_input_error(path, line_no, "expected the problem line 'p sp NODES ARCS' before '" + kind + "' lines");
    std::string_view rest = line.substr(line.find('p') + 1);
    field_reader p(rest);
    if (p.at_end() || p.next_token() != "sp")
      throw make_input_error(path, line_no, "expected problem type 'sp', found '" + p.next_token() + "'");
    p = field_reader(rest.substr(rest.find("sp") + 2));
    if (!p.integer(problem.nodes, "the node count", why) || !p.integer(problem.arcs, "the arc count", why) ||
        !p.expect_end("p sp NODES ARCS", why))
      throw make_input_error(path, line_no, why);
    if (problem.nodes >= kMaxVertices)
      throw make_input_error(path, line_no, std::to_string(problem.nodes) + " nodes do not fit 32-bit ids");
    problem.line = line_no;
  }
  return problem;
}

bool is_comment_or_blank(std::string_view line) {
  field_reader fields(line);
  return fields.at_end() || fields.peek() == 'c';
}

}  // namespace

std::optional<text_body> describe_dimacs(const std::string& path, std::string_view head) {
  std::string_view text = head;
  const std::optional<dimacs_problem> problem = header_or_nothing([&] { return read_problem(path, text); });
  if (!problem || problem->nodes == 0) return std::nullopt;
  skip_lines(text, is_comment_or_blank);
  if (text.empty()) return std::nullopt;
  text_body body;
  body.format = file_format::dimacs;
  body.offset = head.size() - text.size();
  body.fields = 3;
  body.arc_prefix = true;
  body.max_id = problem->nodes;
  body.lines = problem->arcs;
  return body;
}

loaded_graph read_dimacs(const std::string& path, text_buffer&& file_text) {
  std::string_view text = file_text.view();
  const std::size_t total_bytes = text.size();
  const dimacs_problem problem = read_problem(path, text);
  const std::uint64_t nodes = problem.nodes, arcs = problem.arcs;
  const std::size_t problem_line = problem.line;

  using chunk = edge_chunk<vertex_t>;
  auto fast = [&](chunk& c, const char* p, const char* end, std::size_t local) -> const char* {
    if (end - p < 2 || p[0] != 'a' || (p[1] != ' ' && p[1] != '\t')) return nullptr;
    std::uint64_t f[3];
    const char* next = nullptr;
    if (scan_unsigned_fields(p + 1, end, f, next) != 3 || f[0] - 1 >= nodes || f[1] - 1 >= nodes ||
        f[2] > kFastMaxWeight)
      return nullptr;
    c.add(f[0], f[1], static_cast<weight_t>(f[2]), local);
    return next;
  };
  raw_edges<vertex_t> raw = parse_edges<vertex_t>(
      text, file_text.newlines(), problem_line + 1, path, true, 1, fast,
      [&](chunk& chunk, std::string_view line, std::size_t local) {
        if (is_comment_or_blank(line)) return true;
        field_reader fields(line);
        if (fields.peek() == 'p') {
          chunk.why = "a second problem line (the first is line " + std::to_string(problem_line) + ")";
          return false;
        }
        if (fields.next_token() != "a") {
          chunk.why = "expected an arc line 'a U V W', found '" + fields.next_token() + "'";
          return false;
        }
        field_reader arc(line.substr(line.find('a') + 1));
        std::uint64_t u = 0, v = 0;
        std::int64_t wide = 0;
        weight_t w = 0;
        if (!arc.integer(u, "a tail node", chunk.why) || !arc.integer(v, "a head node", chunk.why)) return false;
        for (const std::uint64_t node : {u, v}) {
          if (node == 0 || node > nodes) {
            chunk.why = "node " + std::to_string(node) + " is outside 1.." + std::to_string(nodes);
            return false;
          }
        }
        if (!arc.integer(wide, "an integer arc weight", chunk.why) || !narrow_weight(wide, w, chunk.why) ||
            !arc.expect_end("a U V W", chunk.why))
          return false;
        chunk.add(u, v, w, local);
        return true;
      });
  file_text.release();
  if (raw.src.size() != arcs)
    throw make_input_error(
        path, problem_line,
        "the problem line promises " + std::to_string(arcs) + " arcs, the file has " + std::to_string(raw.src.size()));

  loaded_graph out;
  out.format = file_format::dimacs;
  out.bytes = total_bytes;
  out.negative_weight_line = raw.negative_weight_line;
  out.negative_weight = raw.negative_weight;
  out.graph.num_vertices = static_cast<vertex_t>(nodes);
  out.graph.directed = true;
  out.graph.src = std::move(raw.src);
  out.graph.dst = std::move(raw.dst);
  out.graph.weights = std::move(raw.weights);
  out.graph.original_ids = one_based_ids(nodes);
  return out;
}

}  // namespace graphkit::detail
