// Text writers. Rendering goes through std::to_chars into one buffer, so a
// large graph writes at disk speed rather than iostream speed.
#include <charconv>

#include "graph/io/detail/readers.hpp"

namespace graphkit::detail {
namespace {

class text_writer {
 public:
  explicit text_writer(std::size_t reserve) { out_.reserve(reserve); }
  text_writer& operator<<(std::string_view s) {
    out_.append(s);
    return *this;
  }
  template <class T>
  requires std::is_integral_v<T> text_writer& operator<<(T value) {
    char digits[24];
    const auto [end, ec] = std::to_chars(digits, digits + sizeof digits, value);
    out_.append(digits, end);
    return *this;
  }
  std::string take() { return std::move(out_); }

 private:
  std::string out_;
};

}  // namespace

std::string render_edge_list(const coo_graph& g) {
  text_writer out(g.num_edges() * 16 + 128);
  out << "# graphkit edge list: " << g.num_vertices << " vertices, " << g.num_edges() << " edges, "
      << (g.directed ? "directed" : "undirected") << "\n";
  for (std::size_t i = 0; i < g.num_edges(); ++i) {
    out << g.original_id(g.src[i]) << " " << g.original_id(g.dst[i]);
    if (g.weighted()) out << " " << g.weights[i];
    out << "\n";
  }
  return out.take();
}

std::string render_matrix_market(const coo_graph& g) {
  text_writer out(g.num_edges() * 16 + 128);
  out << "%%MatrixMarket matrix coordinate " << (g.weighted() ? "integer" : "pattern") << " "
      << (g.directed ? "general" : "symmetric") << "\n";
  out << "% written by graphkit\n";
  out << g.num_vertices << " " << g.num_vertices << " " << g.num_edges() << "\n";
  for (std::size_t i = 0; i < g.num_edges(); ++i) {
    // Symmetric Matrix Market stores the lower triangle: row >= column.
    vertex_t row = g.src[i], col = g.dst[i];
    if (!g.directed && row < col) std::swap(row, col);
    out << std::uint64_t{row} + 1 << " " << std::uint64_t{col} + 1;
    if (g.weighted()) out << " " << g.weights[i];
    out << "\n";
  }
  return out.take();
}

std::string render_dimacs(const coo_graph& g) {
  // DIMACS arcs are directed and weighted: an undirected edge becomes two
  // arcs, a missing weight becomes 1.
  const std::size_t arcs = g.directed ? g.num_edges() : 2 * g.num_edges();
  text_writer out(arcs * 20 + 128);
  out << "c written by graphkit\n";
  out << "p sp " << g.num_vertices << " " << arcs << "\n";
  auto arc = [&](vertex_t u, vertex_t v, weight_t w) {
    out << "a " << std::uint64_t{u} + 1 << " " << std::uint64_t{v} + 1 << " " << w << "\n";
  };
  for (std::size_t i = 0; i < g.num_edges(); ++i) {
    const weight_t w = g.weighted() ? g.weights[i] : 1;
    arc(g.src[i], g.dst[i], w);
    if (!g.directed) arc(g.dst[i], g.src[i], w);
  }
  return out.take();
}

}  // namespace graphkit::detail
