// Checks a distance vector without running a second solver (for graphs too
// large for the Boost oracle in a benchmark). See verify_certificate.
#include <atomic>
#include <mutex>

#include "apps/sssp/sssp.hpp"
#include "graph/detail/parallel.hpp"
#include "primitives/common/error.hpp"

namespace graphkit::sssp {

apps::verification verify_certificate(const csr_graph& g, vertex_t source, const result& r) {
  apps::verification v;
  if (r.distances.size() != g.num_vertices) {
    v.mismatch("expected " + std::to_string(g.num_vertices) + " distances, got " + std::to_string(r.distances.size()));
    return v;
  }
  const auto& d = r.distances;
  if (d[source] != 0)
    v.mismatch("source " + std::to_string(g.original_id(source)) + " has distance " + std::to_string(d[source]));
  std::vector<std::uint8_t> tight(g.num_vertices, 0);
  std::mutex lock;  // guards v, only on the failure path
  const std::size_t parts = detail::host_threads();
  detail::parallel_parts(parts, [&](std::size_t p) {
    const auto [first, last] = detail::part_range(g.num_vertices, parts, p);
    for (auto u = static_cast<vertex_t>(first); u < last; ++u) {
      if (d[u] == kUnreachable) continue;
      for (edge_t e = g.offsets[u]; e < g.offsets[u + 1]; ++e) {
        const vertex_t t = g.targets[e];
        const distance_t through = d[u] + (g.weighted() ? g.weights[e] : 1);
        if (through < d[t]) {
          std::lock_guard guard(lock);
          v.mismatch("edge " + std::to_string(g.original_id(u)) + " -> " + std::to_string(g.original_id(t)) +
                     " still relaxes: " + std::to_string(through) + " < " +
                     (d[t] == kUnreachable ? std::string("unreachable") : std::to_string(d[t])));
        } else if (through == d[t]) {
          std::atomic_ref(tight[t]).store(1, std::memory_order_relaxed);
        }
      }
    }
  });
  for (vertex_t u = 0; u < g.num_vertices; ++u) {
    if (u != source && d[u] != kUnreachable && !tight[u])
      v.mismatch("vertex " + std::to_string(g.original_id(u)) + ": distance " + std::to_string(d[u]) +
                 " is not the end of any path (no tight in-edge)");
  }
  return v;
}

}  // namespace graphkit::sssp
