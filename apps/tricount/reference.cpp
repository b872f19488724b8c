// CPU oracles for triangle counting: Boost.Graph, and a sorted-intersection
// count written independently of it.
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/clustering_coefficient.hpp>

#include <atomic>
#include <cmath>

#include "apps/tricount/tricount.hpp"
#include "graph/detail/parallel.hpp"
#include "primitives/common/error.hpp"

namespace graphkit::tricount {

result run_reference(const csr_graph& g, bool per_vertex) {
  // setS out-edge lists make Boost's edge lookups logarithmic, not linear.
  using boost_graph = boost::adjacency_list<boost::setS, boost::vecS, boost::undirectedS>;
  boost_graph bg(g.num_vertices);
  for (vertex_t u = 0; u < g.num_vertices; ++u)
    for (const vertex_t v : g.neighbors(u))
      if (u < v) boost::add_edge(u, v, bg);
  result r;
  if (per_vertex) r.per_vertex.resize(g.num_vertices);
  std::uint64_t sum = 0;
  for (vertex_t u = 0; u < g.num_vertices; ++u) {
    const std::uint64_t t = boost::num_triangles_on_vertex(bg, u);
    sum += t;
    if (per_vertex) r.per_vertex[u] = t;
  }
  r.triangles = sum / 3;
  return r;
}

result count_by_merge(const csr_graph& g, bool per_vertex) {
  const vertex_t n = g.num_vertices;
  // Orient u -> v when (degree, id) of u is smaller: out-degrees stay below
  // sqrt(2m), and each triangle has exactly one vertex that sees the other two.
  auto before = [&](vertex_t a, vertex_t b) {
    return g.degree(a) < g.degree(b) || (g.degree(a) == g.degree(b) && a < b);
  };
  std::vector<edge_t> offsets(std::size_t{n} + 1, 0);
  for (vertex_t u = 0; u < n; ++u)
    for (const vertex_t v : g.neighbors(u)) offsets[u + 1] += before(u, v);
  for (vertex_t u = 0; u < n; ++u) offsets[u + 1] += offsets[u];
  std::vector<vertex_t> out(offsets[n]);
  for (vertex_t u = 0; u < n; ++u) {
    edge_t at = offsets[u];
    for (const vertex_t v : g.neighbors(u))
      if (before(u, v)) out[at++] = v;  // stays sorted: neighbours are sorted
  }

  result r;
  if (per_vertex) r.per_vertex.assign(n, 0);
  const std::size_t parts = n < 1024 ? 1 : detail::host_threads() * 8;
  std::vector<std::uint64_t> partial(parts, 0);
  detail::parallel_parts(std::min<std::size_t>(parts, detail::host_threads()), [&](std::size_t worker) {
    // Interleave ranges across workers: high-degree vertices cluster by id in some inputs.
    for (std::size_t p = worker; p < parts; p += detail::host_threads()) {
      auto [lo, hi] = detail::part_range(n, parts, p);
      std::uint64_t local = 0;
      for (std::size_t u = lo; u < hi; ++u) {
        for (edge_t e = offsets[u]; e < offsets[u + 1]; ++e) {
          const vertex_t v = out[e];
          const vertex_t *a = out.data() + offsets[u], *a_end = out.data() + offsets[u + 1];
          const vertex_t *b = out.data() + offsets[v], *b_end = out.data() + offsets[v + 1];
          while (a < a_end && b < b_end) {
            if (*a < *b) ++a;
            else if (*b < *a) ++b;
            else {
              ++local;
              if (per_vertex) {
                for (const vertex_t w : {static_cast<vertex_t>(u), v, *a})
                  std::atomic_ref<std::uint64_t>(r.per_vertex[w]).fetch_add(1, std::memory_order_relaxed);
              }
              ++a, ++b;
            }
          }
        }
      }
      partial[p] = local;
    }
  });
  for (const std::uint64_t t : partial) r.triangles += t;
  return r;
}

apps::verification verify(const csr_graph& g, const result& expected, const result& actual) {
  apps::verification v;
  if (expected.triangles != actual.triangles)
    v.mismatch("total: expected " + std::to_string(expected.triangles) + ", got " + std::to_string(actual.triangles));
  if (!expected.per_vertex.empty() && !actual.per_vertex.empty()) {
    for (vertex_t u = 0; u < g.num_vertices; ++u) {
      if (expected.per_vertex[u] != actual.per_vertex[u])
        v.mismatch("vertex " + std::to_string(g.original_id(u)) + ": expected " +
                   std::to_string(expected.per_vertex[u]) + ", got " + std::to_string(actual.per_vertex[u]));
    }
  }
  return v;
}

bool boost_can_check(const csr_graph& g) {
  constexpr double kBudget = 2e10;  // about seconds of Boost's lookups
  double cost = 0;
  for (vertex_t v = 0; v < g.num_vertices; ++v) cost += std::pow(static_cast<double>(g.degree(v)), 3);
  return cost <= kBudget;
}

std::uint64_t wedges(const csr_graph& g) {
  GRAPHKIT_EXPECTS(g.has_offsets(), "wedges: the degrees are on the device (tricount::wedges(const device_csr&))");
  std::uint64_t total = 0;
  for (vertex_t u = 0; u < g.num_vertices; ++u) total += g.degree(u) * (g.degree(u) - 1) / 2;  // 0 for d = 0 too
  return total;
}

double global_clustering(const csr_graph& g, std::uint64_t triangles) {
  return global_clustering_of(wedges(g), triangles);
}

double global_clustering_of(std::uint64_t wedges, std::uint64_t triangles) {
  return wedges == 0 ? 0.0 : 3.0 * static_cast<double>(triangles) / static_cast<double>(wedges);
}

}  // namespace graphkit::tricount
