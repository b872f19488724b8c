// Single-source shortest paths: the API shared by the CPU oracle and (with the
// GPU issue) delta-stepping on the GPU.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "apps/common/report.hpp"
#include "graph/csr.hpp"

namespace graphkit::sssp {

/// 64-bit distances: 32-bit weights summed over long paths overflow 32 bits.
using distance_t = std::int64_t;
inline constexpr distance_t kUnreachable = std::numeric_limits<distance_t>::max();

struct result {
  std::vector<distance_t> distances;  ///< kUnreachable where no path exists
};

/// Boost.Graph's dijkstra_shortest_paths: the oracle. Unweighted graphs use
/// weight 1. Weights must be non-negative (see check_weights).
result run_reference(const csr_graph& g, vertex_t source);

/// A textbook binary-heap Dijkstra, independent of Boost: validates the
/// CPU path, where the oracle itself is what ran.
result run_textbook_dijkstra(const csr_graph& g, vertex_t source);

/// Compares every distance; mismatches name the vertex by its original id.
apps::verification verify(const csr_graph& g, const result& expected, const result& actual);

/// Sum of the out-degrees of reached vertices: the edges a traversal must look at.
std::uint64_t edges_traversed(const csr_graph& g, const result& r);

}  // namespace graphkit::sssp
