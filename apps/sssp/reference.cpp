// CPU oracles for SSSP: Boost.Graph's Dijkstra, and a textbook one to check it.
#include <boost/graph/compressed_sparse_row_graph.hpp>
#include <boost/graph/dijkstra_shortest_paths.hpp>

#include <queue>

#include "apps/sssp/sssp.hpp"

namespace graphkit::sssp {
namespace {

weight_t weight_of(const csr_graph& g, edge_t e) { return g.weighted() ? g.weights[e] : 1; }

}  // namespace

result run_reference(const csr_graph& g, vertex_t source) {
  struct arc {
    distance_t weight;
  };
  using boost_graph = boost::compressed_sparse_row_graph<boost::directedS, boost::no_property, arc>;
  std::vector<std::pair<vertex_t, vertex_t>> edges;
  std::vector<arc> props;
  edges.reserve(g.num_edges());
  props.reserve(g.num_edges());
  for (vertex_t u = 0; u < g.num_vertices; ++u) {
    for (edge_t e = g.offsets[u]; e < g.offsets[u + 1]; ++e) {
      edges.emplace_back(u, g.targets[e]);
      props.push_back({weight_of(g, e)});
    }
  }
  const boost_graph bg(boost::edges_are_sorted, edges.begin(), edges.end(), props.begin(), g.num_vertices);
  edges = {};
  result r;
  r.distances.assign(g.num_vertices, kUnreachable);
  boost::dijkstra_shortest_paths(
      bg, source,
      boost::weight_map(boost::get(&arc::weight, bg))
          .distance_map(boost::make_iterator_property_map(r.distances.begin(), boost::get(boost::vertex_index, bg)))
          .distance_inf(kUnreachable)
          .distance_zero(distance_t{0}));
  return r;
}

result run_textbook_dijkstra(const csr_graph& g, vertex_t source) {
  result r;
  r.distances.assign(g.num_vertices, kUnreachable);
  using entry = std::pair<distance_t, vertex_t>;
  std::priority_queue<entry, std::vector<entry>, std::greater<>> heap;
  r.distances[source] = 0;
  heap.emplace(0, source);
  while (!heap.empty()) {
    const auto [d, u] = heap.top();
    heap.pop();
    if (d != r.distances[u]) continue;  // stale entry
    for (edge_t e = g.offsets[u]; e < g.offsets[u + 1]; ++e) {
      const distance_t candidate = d + weight_of(g, e);
      distance_t& best = r.distances[g.targets[e]];
      if (candidate < best) {
        best = candidate;
        heap.emplace(candidate, g.targets[e]);
      }
    }
  }
  return r;
}

apps::verification verify(const csr_graph& g, const result& expected, const result& actual) {
  apps::verification v;
  if (expected.distances.size() != actual.distances.size()) {
    v.mismatch("distance arrays differ in length: " + std::to_string(expected.distances.size()) + " vs " +
               std::to_string(actual.distances.size()));
    return v;
  }
  auto text = [](distance_t d) { return d == kUnreachable ? std::string("unreachable") : std::to_string(d); };
  for (vertex_t u = 0; u < g.num_vertices; ++u) {
    if (expected.distances[u] != actual.distances[u])
      v.mismatch("vertex " + std::to_string(g.original_id(u)) + ": expected " + text(expected.distances[u]) + ", got " +
                 text(actual.distances[u]));
  }
  return v;
}

reach_summary reach_of(const csr_graph& g, const result& r) {
  reach_summary out;
  for (vertex_t u = 0; u < g.num_vertices; ++u) {
    if (r.distances[u] != kUnreachable) {
      ++out.vertices;
      out.edges += g.degree(u);
    }
  }
  return out;
}

}  // namespace graphkit::sssp
