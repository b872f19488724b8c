// Triangle counting: the API shared by the CPU oracles and the GPU counter
// (hash, bitmap and merge intersections, apps/tricount/gpu/). Input graphs are
// undirected and simple: symmetrized, without self-loops or duplicates.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "apps/tricount/degree_order.hpp"
#include "apps/common/report.hpp"
#include "graph/build.hpp"
#include "graph/csr.hpp"
#include "graph/device_csr.hpp"

namespace graphkit::tricount {

/// The build rules that make any input a tricount input: symmetrized, self-loops
/// and duplicate edges dropped (apps/tricount/simple_graph.cpp).
clean_options simple_undirected_rules();
/// `g` cleaned by simple_undirected_rules() and built on the host, for the
/// oracles, tests and benches that start from generated or loaded edges.
csr_graph simple_undirected(coo_graph g);

struct result {
  std::uint64_t triangles = 0;
  /// Triangles through each vertex; empty unless asked for.
  std::vector<std::uint64_t> per_vertex;
};

/// Boost.Graph's num_triangles_on_vertex (clustering_coefficient.hpp) summed
/// over vertices, divided by 3. Slow on large graphs: an oracle.
result run_reference(const csr_graph& g, bool per_vertex);

/// Whether run_reference finishes in seconds: Boost looks up an edge per pair
/// of neighbours, about the sum of d^3 steps (hours on R-MAT 20). Where it
/// cannot, validation answers to count_by_merge, which the tests check against Boost.
bool boost_can_check(const csr_graph& g);

/// Sorted-list intersection over the degree-oriented graph (each triangle
/// found once, at its lowest-ranked vertex), multithreaded. Independent of
/// Boost: it cross-checks the oracle.
result count_by_merge(const csr_graph& g, bool per_vertex);

/// How the GPU tests whether a two-hop neighbour w of u is also u's neighbour.
enum class method {
  automatic,  ///< per vertex class, the set that measured fastest (auto_method)
  merge,      ///< binary search in u's sorted out-list
  hash,       ///< u's out-list in a linear-probing hash set (shared memory, else global)
  bitmap,     ///< u's out-list as bits in a per-block n-bit bitmap
};
/// "auto", "merge", "hash" or "bitmap"; throws input_error otherwise.
method parse_method(const std::string& name);
const char* method_name(method m);

/// Which of an oriented edge's two out-lists the GPU walks, probing the
/// other's set (apps/tricount/gpu/orient.cuh). Both find every triangle once.
enum class walk {
  automatic,     ///< per graph, from the orientation's out-degrees (auto_walk)
  out_lists,     ///< u walks v's list for each u -> v: sum of d+(v) paths
  shorter_side,  ///< the shorter of the two lists (pulled by v where u's is): sum of min(d+(u), d+(v))
};
/// "auto", "out-lists" or "shorter-side"; throws input_error otherwise.
walk parse_walk(const std::string& name);
const char* walk_name(walk w);

/// What --walk auto decides from: two sums over the oriented out-degrees d+
/// and degrees d that the orientation's first pass adds up beside counting d+.
struct walk_statistics {
  /// Sum over v of (d(v) - d+(v)) d+(v) = sum of d+(v) over the edges u -> v:
  /// exactly the paths out_lists walks.
  std::uint64_t out_lists_paths = 0;
  /// Sum of d+(u)^2 = sum of d+(u) over the edges u -> v: at least the paths
  /// shorter_side walks (at most min(d+(u), d+(v)) per edge).
  std::uint64_t out_degree_squares = 0;
  std::uint64_t oriented_edges = 0;  ///< m, the sum of d+
};
/// The same sums on the host (the tests' and the bench's prediction of the GPU's).
walk_statistics walk_statistics_of(const csr_graph& g);
/// The walk --walk auto takes: shorter_side where it surely saves more paths
/// than its preprocessing costs, out_lists otherwise (the rule and its
/// figures: apps/tricount/method.cpp).
walk auto_walk(const walk_statistics& s);

/// Light vertices are counted by a warp each, heavy ones (out-degree above
/// 256, or more than 2^14 two-hop paths) by a block each.
enum class vertex_class { light, heavy };
/// What --method auto uses for each class of a graph of `num_vertices`.
method auto_method(vertex_t num_vertices, vertex_class c);

struct gpu_stats {
  method light_method = method::automatic, heavy_method = method::automatic;
  std::uint64_t light = 0, heavy = 0;  ///< vertices in each class
  std::uint64_t oriented_edges = 0;
  walk walked = walk::automatic;  ///< the walk that ran (auto resolved)
  walk_statistics walk_stats;     ///< what auto_walk read (computed under every walk)
  double preprocess_seconds = 0;  ///< orientation, walk, classes, multisplit (CUDA events)
  double light_seconds = 0, heavy_seconds = 0;
  [[nodiscard]] double count_seconds() const { return light_seconds + heavy_seconds; }
};

/// wedges() of a CSR on the device, from its degrees there: (sum of d^2 -
/// arcs) / 2, with no host copy of the offsets.
std::uint64_t wedges(const device_csr& g);

/// Exact triangle counting on the GPU. Construction uploads the (symmetric,
/// simple) graph; run() orients it, chooses (under walk::automatic) and sets
/// up the walk, classifies vertices and counts. Every run's device work goes
/// on the stream given at construction (the legacy default stream unless
/// given); run() waits for it to read the count.
class gpu_counter {
 public:
  /// Uploads `g`.
  explicit gpu_counter(const csr_graph& g, cudaStream_t stream = nullptr);
  /// Takes a CSR already on the device (the GPU build's); work that made it
  /// on another stream must be complete.
  explicit gpu_counter(device_csr&& g, cudaStream_t stream = nullptr);
  ~gpu_counter();
  gpu_counter(const gpu_counter&) = delete;
  gpu_counter& operator=(const gpu_counter&) = delete;

  result run(method m, bool per_vertex, gpu_stats& stats, walk w = walk::automatic);

 private:
  struct state;
  std::unique_ptr<state> state_;
};

/// Compares totals and, where both have them, per-vertex counts.
apps::verification verify(const csr_graph& g, const result& expected, const result& actual);

/// Wedges (paths of length two) centred anywhere: sum of d(d-1)/2.
std::uint64_t wedges(const csr_graph& g);

/// Global clustering coefficient (transitivity): 3 * triangles / wedges.
double global_clustering(const csr_graph& g, std::uint64_t triangles);
/// The same from the wedge count (on the GPU path: (sum_squared_degrees -
/// arcs) / 2 from the device CSR, with no host offsets).
double global_clustering_of(std::uint64_t wedges, std::uint64_t triangles);

}  // namespace graphkit::tricount
