// SNAP / whitespace edge lists: "src dst" or "src dst weight" per line, ids
// any 64-bit value, '#' and '%' comment lines, blank lines, CRLF endings.
#include "graph/io/detail/fields.hpp"
#include "graph/io/detail/raw_edges.hpp"
#include "graph/io/detail/readers.hpp"

namespace graphkit::detail {

loaded_graph read_edge_list(const std::string& path, std::string_view text, const load_options& options) {
  auto parsed = parse_lines<raw_chunk>(
      text, 1, path, [](raw_chunk& chunk, std::string_view line, std::size_t local) {
        field_reader fields(line);
        if (fields.at_end() || fields.peek() == '#' || fields.peek() == '%') return true;
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
        if (!fields.integer(wide, "an integer weight", chunk.why) || !narrow_weight(wide, w, chunk.why))
          return false;
        if (!fields.expect_end("src dst [weight]", chunk.why)) return false;
        chunk.add(u, v, w, local);
        return true;
      });
  raw_edges raw = merge_chunks(std::move(parsed), path);

  loaded_graph out;
  out.format = file_format::edge_list;
  out.bytes = text.size();
  out.negative_weight_line = raw.negative_weight_line;
  out.negative_weight = raw.negative_weight;
  relabeled_edges dense = options.relabeler ? options.relabeler(raw.src, raw.dst, options.relabel)
                                            : relabel(raw.src, raw.dst, options.relabel);
  std::vector<std::uint64_t>().swap(raw.src);
  std::vector<std::uint64_t>().swap(raw.dst);
  out.graph.num_vertices = dense.num_vertices;
  out.graph.src = std::move(dense.src);
  out.graph.dst = std::move(dense.dst);
  out.graph.original_ids = std::move(dense.original_ids);
  out.graph.weights = std::move(raw.weights);
  out.graph.directed = true;
  return out;
}

}  // namespace graphkit::detail
