#include "graph/generate/generators.hpp"

#include <charconv>
#include <numeric>
#include <vector>

#include "graph/build.hpp"
#include "graph/detail/parallel.hpp"
#include "graph/generate/edge_rules.hpp"
#include "primitives/common/error.hpp"

namespace graphkit {
namespace {

using detail::mix64;  // the permutation

constexpr unsigned kMaxScale = 31;

// Fills edges [0, m) in parallel; make(i) returns edge i.
template <class Make>
void fill_edges(coo_graph& g, std::size_t m, Make&& make) {
  g.src.resize(m);
  g.dst.resize(m);
  const std::size_t parts = m < (1 << 16) ? 1 : detail::host_threads();
  detail::parallel_parts(parts, [&](std::size_t p) {
    auto [lo, hi] = detail::part_range(m, parts, p);
    for (std::size_t i = lo; i < hi; ++i) {
      const auto [u, v] = make(i);
      g.src[i] = u;
      g.dst[i] = v;
    }
  });
}

void check_scale(unsigned scale, unsigned edge_factor) {
  if (scale > kMaxScale)
    throw input_error("generator scale " + std::to_string(scale) + " exceeds " + std::to_string(kMaxScale));
  if (edge_factor == 0) throw input_error("generator edge factor must be at least 1");
}

// A seeded random permutation of 0..n-1 (Fisher-Yates on a counter stream).
std::vector<vertex_t> permutation(vertex_t n, std::uint64_t seed) {
  std::vector<vertex_t> perm(n);
  std::iota(perm.begin(), perm.end(), vertex_t{0});
  for (vertex_t i = n; i > 1; --i) {
    const vertex_t j = static_cast<vertex_t>(mix64(seed ^ (std::uint64_t{i} * 0x2545f4914f6cdd1dULL)) % i);
    std::swap(perm[i - 1], perm[j]);
  }
  return perm;
}

unsigned parse_unsigned(const std::string& spec, std::string_view text, const char* what) {
  unsigned value = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size() || text.empty())
    throw input_error("--gen '" + spec + "': expected " + what + ", found '" + std::string(text) + "' (" +
                      kGeneratorSpecHelp + ")");
  return value;
}

}  // namespace

std::vector<vertex_t> rmat_permutation(unsigned scale, std::uint64_t seed) {
  return permutation(static_cast<vertex_t>(std::uint64_t{1} << scale), detail::rmat_stream(seed));
}

coo_graph generate_rmat(unsigned scale, unsigned edge_factor, std::uint64_t seed, rmat_params params) {
  check_scale(scale, edge_factor);
  const vertex_t n = static_cast<vertex_t>(std::uint64_t{1} << scale);
  const std::size_t m = std::size_t{edge_factor} << scale;
  const detail::rmat_thresholds thresholds = detail::rmat_thresholds_of(params.a, params.b, params.c);
  const std::uint64_t stream = detail::rmat_stream(seed);
  coo_graph g;
  g.num_vertices = n;
  g.directed = false;
  fill_edges(g, m, [&](std::size_t i) {
    const detail::vertex_pair e = detail::rmat_edge(stream, i, scale, thresholds);
    return std::pair{e.u, e.v};
  });
  const std::vector<vertex_t> perm = rmat_permutation(scale, seed);
  fill_edges(g, m, [&](std::size_t i) { return std::pair{perm[g.src[i]], perm[g.dst[i]]}; });
  return g;
}

coo_graph generate_uniform(unsigned scale, unsigned edge_factor, std::uint64_t seed) {
  check_scale(scale, edge_factor);
  const std::uint64_t n = std::uint64_t{1} << scale;
  const std::size_t m = std::size_t{edge_factor} << scale;
  const std::uint64_t stream = detail::uniform_stream(seed);
  coo_graph g;
  g.num_vertices = static_cast<vertex_t>(n);
  g.directed = false;
  fill_edges(g, m, [&](std::size_t i) {
    const detail::vertex_pair e = detail::uniform_edge(stream, i, n);
    return std::pair{e.u, e.v};
  });
  return g;
}

coo_graph generate_grid(vertex_t rows, vertex_t cols, std::uint64_t seed, weight_t max_weight) {
  if (rows == 0 || cols == 0) throw input_error("grid generator needs at least one row and one column");
  if (std::uint64_t{rows} * cols >= kMaxVertices) throw input_error("grid has too many vertices for 32-bit ids");
  coo_graph g;
  g.num_vertices = rows * cols;
  g.directed = false;
  const std::size_t horizontal = std::size_t{rows} * (cols - 1);
  const std::size_t m = horizontal + std::size_t{rows - 1} * cols;
  fill_edges(g, m, [&](std::size_t i) {
    if (i < horizontal) {
      const vertex_t r = static_cast<vertex_t>(i / (cols - 1)), c = static_cast<vertex_t>(i % (cols - 1));
      return std::pair{r * cols + c, r * cols + c + 1};
    }
    const std::size_t k = i - horizontal;
    const vertex_t r = static_cast<vertex_t>(k / cols), c = static_cast<vertex_t>(k % cols);
    return std::pair{r * cols + c, (r + 1) * cols + c};
  });
  g.weights.resize(m);
  for (std::size_t i = 0; i < m; ++i) g.weights[i] = random_weight(seed, i, max_weight);
  return g;
}

generator_spec parse_generator_spec(const std::string& spec) {
  const std::size_t colon = spec.find(':');
  const std::string kind = spec.substr(0, colon);
  if (colon == std::string::npos) throw input_error("--gen '" + spec + "': expected " + kGeneratorSpecHelp);
  std::string_view args = std::string_view(spec).substr(colon + 1);
  generator_spec out;
  if (kind == "rmat" || kind == "uniform") {
    const std::size_t second = args.find(':');
    out.kind = kind == "rmat" ? generator_spec::rmat : generator_spec::uniform;
    out.scale = parse_unsigned(spec, args.substr(0, second), "a scale");
    out.edge_factor =
        second == std::string_view::npos ? 16 : parse_unsigned(spec, args.substr(second + 1), "an edge factor");
    check_scale(out.scale, out.edge_factor);
    return out;
  }
  if (kind == "grid") {
    out.kind = generator_spec::grid;
    const std::size_t x = args.find('x');
    if (x == std::string_view::npos) {
      const unsigned scale = parse_unsigned(spec, args, "a scale or ROWSxCOLS");
      if (scale > kMaxScale) throw input_error("--gen '" + spec + "': scale too large");
      out.rows = vertex_t{1} << (scale / 2);
      out.cols = static_cast<vertex_t>((std::uint64_t{1} << scale) / out.rows);
    } else {
      out.rows = parse_unsigned(spec, args.substr(0, x), "a row count");
      out.cols = parse_unsigned(spec, args.substr(x + 1), "a column count");
    }
    return out;
  }
  if (kind == "road") {
    out.kind = generator_spec::road;
    const std::size_t second = args.find(':');
    out.scale = parse_unsigned(spec, args.substr(0, second), "a scale");
    if (second != std::string_view::npos)
      out.neighbours = parse_unsigned(spec, args.substr(second + 1), "a neighbour count");
    if (out.scale > kMaxScale) throw input_error("--gen '" + spec + "': scale too large");
    if (out.neighbours == 0) throw input_error("--gen '" + spec + "': the neighbour count must be at least 1");
    return out;
  }
  throw input_error("--gen '" + spec + "': unknown generator '" + kind + "' (" + kGeneratorSpecHelp + ")");
}

coo_graph generate(const std::string& spec, std::uint64_t seed) {
  const generator_spec g = parse_generator_spec(spec);
  switch (g.kind) {
    case generator_spec::rmat: return generate_rmat(g.scale, g.edge_factor, seed);
    case generator_spec::uniform: return generate_uniform(g.scale, g.edge_factor, seed);
    case generator_spec::road: {
      road_params params;
      params.neighbours = g.neighbours;
      return generate_road(g.scale, seed, params);
    }
    case generator_spec::grid: break;
  }
  return generate_grid(g.rows, g.cols, seed);
}

}  // namespace graphkit
