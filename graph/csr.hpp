// Compressed sparse row form in host memory: what the algorithms run on. An
// undirected graph stores each edge in both directions.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "graph/types.hpp"

namespace graphkit {

struct csr_graph {
  vertex_t num_vertices = 0;
  /// num_vertices + 1 offsets into targets (and weights).
  std::vector<edge_t> offsets{0};
  /// Neighbours of each vertex, sorted ascending.
  std::vector<vertex_t> targets;
  /// Empty for an unweighted graph.
  std::vector<weight_t> weights;
  bool directed = true;
  std::vector<original_id_t> original_ids;

  /// From the offsets, so that a copy holding only the offsets (a shape of
  /// the GPU path's host side, see has_adjacency) still knows its size.
  [[nodiscard]] edge_t num_edges() const noexcept { return offsets.back(); }
  /// False for the GPU path's host shape (apps::built_graph): at most the
  /// offsets and original ids, with the neighbour lists and weights left on
  /// the device.
  [[nodiscard]] bool has_adjacency() const noexcept { return targets.size() == num_edges(); }
  [[nodiscard]] bool weighted() const noexcept { return !weights.empty(); }
  [[nodiscard]] edge_t degree(vertex_t v) const noexcept { return offsets[v + 1] - offsets[v]; }
  [[nodiscard]] std::span<const vertex_t> neighbors(vertex_t v) const noexcept {
    return {targets.data() + offsets[v], static_cast<std::size_t>(degree(v))};
  }
  [[nodiscard]] std::span<const weight_t> neighbor_weights(vertex_t v) const noexcept {
    return {weights.data() + offsets[v], static_cast<std::size_t>(degree(v))};
  }
  [[nodiscard]] original_id_t original_id(vertex_t v) const noexcept {
    return original_ids.empty() ? original_id_t{v} : original_ids[v];
  }
};

}  // namespace graphkit
