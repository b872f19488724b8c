// Compacting sparse vertex ids (SNAP ids run to 26,196 for 5,242 vertices;
// dirty inputs use arbitrary 64-bit ids) to dense 0..n-1, keeping the mapping.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "graph/host_array.hpp"
#include "graph/types.hpp"

namespace graphkit {

enum class relabel_order {
  sorted,      ///< dense ids follow the original ids' order (identity if already 0..n-1)
  first_seen,  ///< dense ids follow first appearance, scanning src then dst of each edge
};

struct relabeled_edges {
  vertex_t num_vertices = 0;
  host_array<vertex_t> src, dst;
  /// original_ids[v]; empty when the mapping is the identity.
  std::vector<original_id_t> original_ids;
};

/// The original ids of a 1-based format (Matrix Market, DIMACS): 1..n, on
/// prepared pages, written by all host threads. Filling R-MAT 21's 2M ids
/// one by one into fresh pages took ~10 ms of a 0.4 s `sssp FILE`.
std::vector<original_id_t> one_based_ids(std::uint64_t n);

/// Throws input_error when there are more than 2^32 - 1 distinct ids.
relabeled_edges relabel(std::span<const std::uint64_t> src, std::span<const std::uint64_t> dst, relabel_order order);

}  // namespace graphkit
