// Triangle counting: the API shared by the CPU oracles and (with the GPU
// issue) the hash, bitmap and merge intersections on the GPU. Input graphs are
// undirected and simple: symmetrized, without self-loops or duplicates.
#pragma once

#include <cstdint>
#include <vector>

#include "apps/common/report.hpp"
#include "graph/csr.hpp"

namespace graphkit::tricount {

struct result {
  std::uint64_t triangles = 0;
  /// Triangles through each vertex; empty unless asked for.
  std::vector<std::uint64_t> per_vertex;
};

/// Boost.Graph's num_triangles_on_vertex (clustering_coefficient.hpp) summed
/// over vertices, divided by 3. Slow on large graphs: an oracle.
result run_reference(const csr_graph& g, bool per_vertex);

/// Sorted-list intersection over the degree-oriented graph (each triangle
/// found once, at its lowest-ranked vertex), multithreaded. Independent of
/// Boost: it cross-checks the oracle.
result count_by_merge(const csr_graph& g, bool per_vertex);

/// Compares totals and, where both have them, per-vertex counts.
apps::verification verify(const csr_graph& g, const result& expected, const result& actual);

/// Wedges (paths of length two) centred anywhere: sum of d(d-1)/2.
std::uint64_t wedges(const csr_graph& g);

/// Global clustering coefficient (transitivity): 3 * triangles / wedges.
double global_clustering(const csr_graph& g, std::uint64_t triangles);

}  // namespace graphkit::tricount
