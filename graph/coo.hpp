// Coordinate (edge-list) form: what loaders and generators produce, before the
// CSR build. Vertex ids are already dense 0..n-1; original ids are kept apart.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "graph/host_array.hpp"
#include "graph/types.hpp"

namespace graphkit {

struct coo_graph {
  vertex_t num_vertices = 0;
  /// host_array: resize() leaves new elements unwritten (graph/host_array.hpp).
  host_array<vertex_t> src;
  host_array<vertex_t> dst;
  /// Empty for an unweighted graph; otherwise one weight per edge.
  host_array<weight_t> weights;
  /// False when each edge stands for both directions (symmetric Matrix Market,
  /// generated undirected graphs); the CSR build then stores both.
  bool directed = true;
  /// original_ids[v] is v's id in the input. Empty means the identity.
  std::vector<original_id_t> original_ids;

  [[nodiscard]] std::size_t num_edges() const noexcept { return src.size(); }
  [[nodiscard]] bool weighted() const noexcept { return !weights.empty(); }
  [[nodiscard]] original_id_t original_id(vertex_t v) const noexcept {
    return original_ids.empty() ? original_id_t{v} : original_ids[v];
  }
};

}  // namespace graphkit
