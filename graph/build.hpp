// Cleaning an edge list and building CSR on the host. The GPU dedup pipeline
// (apps/dedup) replaces the cleaning for --device gpu; results must agree.
#pragma once

#include <cstddef>
#include <cstdint>

#include "graph/coo.hpp"
#include "graph/csr.hpp"
#include "graph/detail/parallel.hpp"

namespace graphkit {

enum class duplicate_weight { min, first, sum };

struct clean_options {
  /// Take every edge as undirected (u,v) == (v,u).
  bool symmetrize = false;
  bool drop_self_loops = false;
  bool drop_duplicates = false;
  /// Which weight a set of duplicate edges keeps.
  duplicate_weight keep = duplicate_weight::min;
  /// Replace (or add) weights with uniform values in [1, max_random_weight].
  bool random_weights = false;
  weight_t max_random_weight = 255;
  std::uint64_t seed = 1;
};

struct clean_stats {
  std::size_t input_edges = 0;
  std::size_t self_loops_removed = 0;
  std::size_t duplicates_removed = 0;
};

/// Applies the options in a fixed order: random weights (so both directions of
/// an undirected edge share one), symmetrize, then self-loop and duplicate
/// removal. Undirected edges come out as (min, max) pairs. With duplicates
/// dropped the edges are sorted by (src, dst); otherwise input order is kept.
clean_stats clean(coo_graph& g, const clean_options& options);

/// Builds CSR with sorted neighbour lists; an undirected edge is stored in
/// both directions, a self-loop once. Original ids move over.
csr_graph to_csr(coo_graph&& g);

/// Sets (or replaces) every weight with random_weight(seed, i, max_weight).
void assign_random_weights(coo_graph& g, std::uint64_t seed, weight_t max_weight = 255);

/// Weight of edge i under a seed, uniform in [1, max_weight]; a pure function
/// of (seed, i) so that generators, loaders, the GPU build and tests agree at
/// any thread count (constexpr, so that device code calls it too).
constexpr weight_t random_weight(std::uint64_t seed, std::uint64_t i, weight_t max_weight) {
  const std::uint64_t r = detail::mix64(detail::mix64(seed) ^ i);
  return static_cast<weight_t>(r % static_cast<std::uint64_t>(max_weight)) + 1;
}

}  // namespace graphkit
