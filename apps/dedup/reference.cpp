#include <algorithm>
#include <tuple>

#include "apps/dedup/dedup.hpp"

namespace graphkit::dedup {

coo_graph run_reference(const coo_graph& input, const params& p) {
  struct item {
    vertex_t u, v;
    std::size_t position;
    std::int64_t weight;
  };
  const bool undirected = p.symmetrize || !input.directed;
  std::vector<item> items;
  items.reserve(input.num_edges());
  for (std::size_t i = 0; i < input.num_edges(); ++i) {
    vertex_t u = input.src[i], v = input.dst[i];
    if (undirected && u > v) std::swap(u, v);
    if (u == v && !p.keep_self_loops) continue;
    items.push_back({u, v, i, input.weighted() ? input.weights[i] : 0});
  }
  std::sort(items.begin(), items.end(), [](const item& a, const item& b) {
    return std::tie(a.u, a.v, a.position) < std::tie(b.u, b.v, b.position);
  });
  coo_graph out;
  out.num_vertices = input.num_vertices;
  out.directed = !undirected;
  out.original_ids = input.original_ids;
  for (std::size_t i = 0; i < items.size();) {
    std::size_t j = i;
    std::int64_t w = items[i].weight;
    for (++j; j < items.size() && items[j].u == items[i].u && items[j].v == items[i].v; ++j) {
      if (p.keep == duplicate_weight::min) w = std::min(w, items[j].weight);
      if (p.keep == duplicate_weight::sum) w += items[j].weight;
    }
    out.src.push_back(items[i].u);
    out.dst.push_back(items[i].v);
    if (input.weighted()) out.weights.push_back(static_cast<weight_t>(w));
    i = j;
  }
  return out;
}

apps::verification verify(const coo_graph& expected, const coo_graph& actual) {
  apps::verification v;
  if (expected.num_edges() != actual.num_edges())
    v.mismatch("edge count: expected " + std::to_string(expected.num_edges()) + ", got " +
               std::to_string(actual.num_edges()));
  const std::size_t common = std::min(expected.num_edges(), actual.num_edges());
  auto text = [](const coo_graph& g, std::size_t i) {
    // Appends rather than operator+ chains: GCC 12 warns falsely on those (-Wrestrict, bug 105329).
    std::string s = "(";
    s += std::to_string(g.original_id(g.src[i]));
    s += ", ";
    s += std::to_string(g.original_id(g.dst[i]));
    if (g.weighted()) s += ", w=" + std::to_string(g.weights[i]);
    s += ")";
    return s;
  };
  for (std::size_t i = 0; i < common; ++i) {
    const bool same = expected.src[i] == actual.src[i] && expected.dst[i] == actual.dst[i] &&
                      (!expected.weighted() || expected.weights[i] == actual.weights[i]);
    if (!same) v.mismatch("edge " + std::to_string(i) + ": expected " + text(expected, i) + ", got " + text(actual, i));
  }
  return v;
}

}  // namespace graphkit::dedup
