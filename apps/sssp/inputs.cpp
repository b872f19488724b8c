#include "apps/sssp/inputs.hpp"

#include <string>

#include "graph/detail/parallel.hpp"
#include "primitives/common/error.hpp"

namespace graphkit::sssp {

std::vector<vertex_t> pick_sources(const csr_graph& g, std::size_t count, std::uint64_t seed) {
  if (g.num_vertices == 0) throw input_error("the graph has no vertices, so there is no source");
  GRAPHKIT_EXPECTS(g.has_offsets(), "pick_sources: the degrees are on the device (apps::built_graph::fetch_offsets)");
  std::vector<vertex_t> sources;
  for (std::uint64_t k = 0; sources.size() < count; ++k) {
    const auto v = static_cast<vertex_t>(detail::mix64(seed * 0x100000001b3ULL + k) % g.num_vertices);
    if (g.degree(v) > 0 || k > 64 * count) sources.push_back(v);
  }
  return sources;
}

void check_weights(const coo_graph& coo, const apps::common_options& o, const apps::input_info& info) {
  if (o.random_weights) return;
  for (const weight_t w : coo.weights) {
    if (w < 0)
      throw make_input_error(
          info.name, info.negative_weight_line,
          "negative weight " + std::to_string(w) + ": sssp needs non-negative weights (or --random-weights)");
  }
}

}  // namespace graphkit::sssp
