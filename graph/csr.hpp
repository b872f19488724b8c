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

  /// False for the GPU path's host shape (apps::built_graph) until its
  /// offsets are fetched: the vertex count and original ids alone.
  [[nodiscard]] bool has_offsets() const noexcept { return offsets.size() == std::size_t{num_vertices} + 1; }
  /// From the offsets, so that a copy holding only the offsets still knows
  /// its size; 0 without them (see has_offsets).
  [[nodiscard]] edge_t num_edges() const noexcept { return offsets.empty() ? 0 : offsets.back(); }
  /// False for the GPU path's host shape (apps::built_graph): at most the
  /// offsets and original ids, with the neighbour lists and weights left on
  /// the device.
  [[nodiscard]] bool has_adjacency() const noexcept { return has_offsets() && targets.size() == num_edges(); }
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
