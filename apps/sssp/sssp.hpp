// Single-source shortest paths: the API shared by the CPU oracle and
// delta-stepping on the GPU.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "apps/common/report.hpp"
#include "graph/csr.hpp"
#include "graph/device_csr.hpp"

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

/// How the GPU solver picks delta, the width of a bucket.
struct delta_choice {
  enum class mode {
    heuristic,  ///< heuristic_delta(g), fixed for the whole run
    fixed,      ///< `value`
    adaptive,   ///< starts at the heuristic, doubled or halved between epochs to keep the GPU busy
  };
  mode how = mode::heuristic;
  std::uint64_t value = 0;

  /// "auto", or a positive integer. Throws input_error otherwise.
  static delta_choice parse(const std::string& text);
};

/// The GPU solver's settings beyond delta.
struct solver_tuning {
  /// Hops past the frontier that a warp relaxes on its own within one round
  /// (apps/sssp/gpu/relax.cuh, local_queue); 0 relaxes one hop per round.
  /// kAutoRelaxDepth picks it from the graph (auto_relax_depth).
  static constexpr int kAutoRelaxDepth = -1;
  int relax_depth = kAutoRelaxDepth;
  /// Blocks of the persistent kernel; 0 for as many as can be resident at once.
  unsigned blocks = 0;
  /// Solve graphs that fit one block's shared memory there
  /// (apps/sssp/gpu/small_graph.cuh); false forces the persistent kernel.
  bool small_graph_kernel = true;
  /// Whether the persistent kernel relaxes each vertex's first 4 edges from
  /// rows, a lane per edge (apps/sssp/gpu/edge_rows.cuh). automatic: on
  /// meshes, sparse, even graphs (sparse_even) whose vertices nearly all
  /// (99%) have at most 4 edges.
  enum class edge_rows_mode { automatic, off, on };
  edge_rows_mode edge_rows = edge_rows_mode::automatic;
  /// Where relax_depth > 0: warps share the vertices their own queues cannot
  /// take through a pool within the phase (apps/sssp/gpu/pool.cuh), so a
  /// bucket takes one phase, not a round per few hops; false sends them to
  /// the next round, as before.
  bool pool = true;
  /// The pool's slots; 0 for one per vertex. Vertices past it go to the next
  /// round (tests shrink it to take that path).
  std::uint32_t pool_room = 0;
};

/// What the default delta depends on.
struct graph_profile {
  double edges = 0;
  double mean_weight = 1;  ///< 1 for unweighted graphs
  double mean_degree = 0;  ///< out-degree
  double rms_degree = 0;   ///< root mean square out-degree: above the mean when skewed
};

/// Above this many edges the default delta narrows by sqrt(kDeltaFullEdges / edges).
inline constexpr double kDeltaFullEdges = 67108864.0;  // 2^26

/// Sparse, even graphs (sparse_even) take this many times the formula's delta.
inline constexpr double kSparseEvenDeltaScale = 4;

/// The GPU solver's default delta on sparse, even graphs that are not
/// lattices (more than 1% of vertices with 5 or more edges: roads), solved
/// with the in-phase pool: this many times heuristic_delta. A bucket then
/// takes one phase whatever its depth, so a wide one costs relaxations
/// only, and on roads those stay few (H100, road:20 / 22 / 24 / 22:4, x1 /
/// x4 / x8 / x16 / x32: road:22 6.61 / 5.59 / 5.40 / 5.24 / 5.27 ms, road:24
/// 15.9 / 13.9 / 13.5 / 13.5 / 13.5). Lattices keep x1: there every bucket
/// holds many paths of nearly equal length, and wider ones multiply the
/// relaxations (grid:22 x1 / x2 5.3 / 7.3 per edge, 6.20 / 6.38 ms).
inline constexpr double kPooledRoadDeltaScale = 16;

/// 256 x mean weight / mean out-degree^2 x sqrt(mean / RMS out-degree), times
/// 4 on sparse, even graphs, times sqrt(2^26 / edges) past 2^26 edges, at
/// least 1. Fitted to delta sweeps on an H100 (docs/design.md, "SSSP on the
/// GPU"): with rounds costing microseconds, dense graphs want narrow buckets
/// (few relaxations per edge), sparse long-path graphs wide ones (few rounds),
/// meshes and roads, whose warps relax chains of hops within a round, wider
/// still, skewed graphs, whose hubs reach most vertices early, narrower, and
/// so do big graphs, whose buckets fill the GPU anyway.
std::uint64_t heuristic_delta(const csr_graph& g);
std::uint64_t heuristic_delta(const graph_profile& p);
/// Meshes and roads: mean out-degree <= 8 and RMS <= twice the mean. Their
/// rounds are short chains of hops, thousands deep.
bool sparse_even(const graph_profile& p);
/// The relax depth solver_tuning's auto picks for a graph of this profile.
/// `edge_rows`: whether the solver relaxes from edge rows; `pool`: whether
/// it may use the in-phase pool.
std::uint32_t auto_relax_depth(const graph_profile& p, bool edge_rows, bool pool);
/// The profile of a graph of `num_vertices` from its CSR offsets and the sum of its weights.
graph_profile profile_of(vertex_t num_vertices, std::span<const edge_t> offsets, double weight_sum);
/// The same from its sums: arcs, squared out-degrees (exact) and weights.
graph_profile profile_from_sums(vertex_t num_vertices, edge_t edges, std::uint64_t squared_degrees, double weight_sum);

/// What one GPU run did, for the report.
/// The vertices a solve reached, and the sum of their out-degrees: the edges
/// a traversal must look at (the numerator of GTEPS).
struct reach_summary {
  std::uint64_t vertices = 0;
  std::uint64_t edges = 0;
  bool operator==(const reach_summary&) const = default;
};

struct gpu_stats {
  std::uint64_t rounds = 0;    ///< relaxation rounds (one pass over a frontier each)
  std::uint64_t buckets = 0;   ///< non-empty buckets processed
  std::uint64_t epochs = 0;    ///< far-list redistributions, plus the first
  std::uint64_t examined = 0;  ///< edges relaxed (with repeats)
  std::uint64_t delta_first = 0;
  std::uint64_t delta_last = 0;
  std::uint32_t distance_bits = 64;   ///< 32 where every distance fits (max weight x (n - 1) < 2^32 - 1)
  std::uint32_t relax_depth = 0;      ///< solver_tuning::relax_depth, resolved
  bool edge_rows = false;             ///< solver_tuning::edge_rows, resolved
  bool pool = false;                  ///< solver_tuning::pool, resolved (relax depth > 0)
  std::uint32_t blocks = 0;           ///< blocks of the kernel that ran
  bool shared_memory_kernel = false;  ///< the graph was solved in one block's shared memory
  double seconds = 0;                 ///< CUDA-event time from initialization to the end of the solve
};

/// Delta-stepping on the GPU (see apps/sssp/gpu/). Construction uploads the
/// graph; run() may be called for many sources. Every solve's device work
/// (kernels, copies, timing events) goes on the stream given at construction
/// (the legacy default stream unless given); a solve waits for it to read
/// its statistics back.
class gpu_solver {
 public:
  /// Uploads `g`.
  explicit gpu_solver(const csr_graph& g, cudaStream_t stream = nullptr);
  /// Takes a CSR already on the device (the GPU build's); the default delta's
  /// degree profile is taken there too, so no host copy is needed. Work that
  /// made the CSR on another stream must be complete.
  explicit gpu_solver(device_csr&& g, cudaStream_t stream = nullptr);
  ~gpu_solver();
  gpu_solver(const gpu_solver&) = delete;
  gpu_solver& operator=(const gpu_solver&) = delete;

  /// Settings for the solves that follow (the defaults until called).
  void tune(const solver_tuning& tuning);

  /// Solves from `source` and fetches the distances.
  result run(vertex_t source, const delta_choice& delta, gpu_stats& stats);
  /// Solves without fetching the distances (a warm-up: module loads, first touches).
  void solve(vertex_t source, const delta_choice& delta, gpu_stats& stats);
  /// The distances of the last solve.
  [[nodiscard]] result distances() const;
  /// What the last solve reached, counted on the device: no distances fetched.
  [[nodiscard]] reach_summary reach() const;

 private:
  struct state;
  std::unique_ptr<state> state_;
};

/// Checks distances without a second solver, in O(m) on all host threads:
/// d(source) = 0, no edge can still be relaxed (d(v) <= d(u) + w), and every
/// other reached vertex has an in-edge that is tight (d(v) = d(u) + w). With
/// positive weights these make d exactly the shortest-path distances; with
/// zero-weight edges, use verify() against an oracle instead.
apps::verification verify_certificate(const csr_graph& g, vertex_t source, const result& r);

/// Compares every distance; mismatches name the vertex by its original id.
apps::verification verify(const csr_graph& g, const result& expected, const result& actual);

/// What a solve reached, on the host's distances (gpu_solver::reach counts it on the device).
reach_summary reach_of(const csr_graph& g, const result& r);

}  // namespace graphkit::sssp
