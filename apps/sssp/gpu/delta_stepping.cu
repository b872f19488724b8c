// GPU delta-stepping (Meyer and Sanders), near/far form: a vertex's edges
// are relaxed each time it enters the frontier, light and heavy alike.
//
// One cooperative kernel runs a whole solve. Its grid works through phases
// (relax a round, open a bucket, start an epoch: apps/sssp/gpu/relax.cuh and
// buckets.cuh) separated by grid barriers; after each barrier every block
// reads what the phase added up and decides the next phase itself, the same
// way (apps/sssp/gpu/control.cuh). A host-driven loop paid two
// device-to-host round trips and up to 20 launches per round (45-70 us); a
// round here costs one grid barrier, so delta can be small enough to keep
// relaxations near one per edge without drowning in round overhead.
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>

#include "apps/sssp/gpu/buckets.cuh"
#include "apps/sssp/gpu/control.cuh"
#include "apps/sssp/gpu/edge_rows.cuh"
#include "apps/sssp/gpu/reach.cuh"
#include "apps/sssp/gpu/relax.cuh"
#include "apps/sssp/gpu/small_graph.cuh"
#include "apps/sssp/sssp.hpp"
#include "graph/detail/parallel.hpp"
#include "graph/device_csr.hpp"
#include "graph/gpu/pipeline.hpp"
#include "primitives/common/cuda_event.hpp"
#include "primitives/common/error.hpp"
#include "primitives/common/launch.hpp"
#include "primitives/common/nvtx.hpp"
#include "primitives/common/pinned_buffer.hpp"

namespace graphkit::sssp {

using detail::control;
using detail::gpu_distance;

namespace {

template <class Dist>
__global__ void init_distances_kernel(Dist* dist, vertex_t n, vertex_t source) {
  const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (i < n) dist[i] = i == source ? Dist{0} : static_cast<Dist>(~Dist{0});
}

/// Whether every finite distance fits 32 bits with UINT32_MAX left to mean
/// "unreached": a shortest path has at most n - 1 edges.
/// local_queue stores depths in a byte.
constexpr int kMaxRelaxDepth = 255;

bool distances_fit_32_bits(vertex_t num_vertices, weight_t max_weight) {
  const std::uint64_t hops = num_vertices > 0 ? num_vertices - 1 : 0;
  return static_cast<std::uint64_t>(std::max<weight_t>(max_weight, 1)) * hops < UINT32_MAX;
}

/// Copies a trivially copyable T word by word, the block's threads together,
/// through L2 (another SM may have written it since this SM last cached it).
template <class T>
__device__ void load_words(const T* from, T& to) {
  static_assert(sizeof(T) % sizeof(unsigned) == 0);
  const auto* src = reinterpret_cast<const unsigned*>(from);
  auto* dst = reinterpret_cast<unsigned*>(&to);
  for (unsigned w = threadIdx.x; w < sizeof(T) / sizeof(unsigned); w += blockDim.x) dst[w] = __ldcg(src + w);
}

template <class Dist, bool Rows>
__global__ void __launch_bounds__(detail::kBlock) delta_stepping_kernel(detail::solver_view<Dist, Rows> s) {
  namespace cg = cooperative_groups;
  const cg::grid_group grid = cg::this_grid();
  __shared__ control c;
  __shared__ detail::phase_counters added;
  load_words(s.ctl, c);
  __syncthreads();
  for (std::uint32_t step = 0; c.phase != detail::kDone; ++step) {
    detail::phase_counters& out = s.counters[step % 3];
    if (blockIdx.x == 0 && threadIdx.x == 0) s.counters[(step + 1) % 3] = detail::phase_counters::cleared();
    switch (c.phase) {
      case detail::kRelaxFrontier: detail::relax_frontier(s, c, out); break;
      case detail::kRelaxChunks: detail::relax_chunks(s, c, out); break;
      case detail::kOpenBucket: detail::open_bucket(s, c, out); break;
      case detail::kSpill: detail::spill(s, c, out); break;
      case detail::kFarMinimum: detail::far_minimum(s, c, out); break;
      case detail::kResplit: detail::resplit(s, c, out); break;
      case detail::kClearResplitMask: detail::clear_resplit_mask(s, c); break;
      default: break;
    }
    grid.sync();
    // Every block decides the next phase from the same counters.
    load_words(&out, added);
    __syncthreads();
    if (threadIdx.x == 0) {
      c.fold(added);
      detail::controller{c}.advance();
    }
    __syncthreads();
  }
  if (blockIdx.x == 0 && threadIdx.x == 0) *s.ctl = c;
}

/// profile_of() from the device CSR: the solver needs no host offsets.
graph_profile device_profile(const device_csr& g, double weight_sum, cudaStream_t stream) {
  nvtx_range range("graphkit::sssp set-up: degree profile");
  return profile_from_sums(g.num_vertices, g.num_edges(), sum_squared_degrees(g, stream), weight_sum);
}

}  // namespace

struct gpu_solver::state {
  state(device_csr&& g, const weight_summary& weights, cudaStream_t s)
      : graph(std::move(g)),
        n(std::max<std::size_t>(graph.num_vertices, 1)),
        narrow(distances_fit_32_bits(graph.num_vertices, weights.max)),
        dist32(narrow ? n : 0),
        dist64(narrow ? 0 : n),
        // kEpochBuckets lists and the frontier of n entries, two far lists of 2n.
        lists((detail::kEpochBuckets + 1) * n + 2 * 2 * n),
        chunks(detail::chunk_capacity(graph.num_edges())),
        mask_words((n + 31) / 32),
        masks(3 * mask_words),
        ctl(1),
        counters(3),
        profile(device_profile(graph, weights.sum, s)),
        heuristic(heuristic_delta(profile)),
        stream(s) {
    nvtx_range range("graphkit::sssp set-up: kernel limits");
    int device = 0, cooperative = 0;
    GRAPHKIT_CUDA_TRY(cudaGetDevice(&device));
    GRAPHKIT_CUDA_TRY(cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, device));
    if (cooperative == 0) throw error("sssp: the GPU does not support cooperative launches");
    resident_csr = narrow ? resident_blocks<std::uint32_t, false>() : resident_blocks<gpu_distance, false>();
    resident_rows = narrow ? resident_blocks<std::uint32_t, true>() : resident_blocks<gpu_distance, true>();
    fits_small = narrow ? ready_small_kernel<std::uint32_t>(device) : ready_small_kernel<gpu_distance>(device);
    lattice = sparse_even(profile) && detail::edge_rows_pay(graph, stream);
    apply(solver_tuning{});
  }

  /// Blocks of the solver kernel that fit on the GPU at once.
  template <class Dist, bool Rows>
  static unsigned resident_blocks() {
    int per_sm = 0;
    GRAPHKIT_CUDA_TRY(
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, delta_stepping_kernel<Dist, Rows>, detail::kBlock, 0));
    if (per_sm == 0) throw error("sssp: the solver kernel does not fit on one multiprocessor");
    return static_cast<unsigned>(per_sm) * device_sm_count();
  }

  template <class Dist>
  [[nodiscard]] detail::small_graph_layout<Dist> small_layout() const {
    return {graph.num_vertices, graph.num_edges(), !graph.weights.empty()};
  }

  /// Whether the graph fits one block's shared memory (small_graph.cuh),
  /// and if so readies the kernel for that much.
  template <class Dist>
  bool ready_small_kernel(int device) {
    if (graph.num_vertices == 0 || graph.num_edges() >= UINT32_MAX) return false;
    const detail::small_graph_layout<Dist> layout = small_layout<Dist>();
    int room = 0;
    GRAPHKIT_CUDA_TRY(cudaDeviceGetAttribute(&room, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    // The kernel's own static shared words need a little of the room.
    if (layout.bytes() + 1024 > static_cast<std::size_t>(room)) return false;
    GRAPHKIT_CUDA_TRY(cudaFuncSetAttribute(detail::small_graph_kernel<Dist>,
                                           cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           static_cast<int>(layout.bytes())));
    return true;
  }

  template <class Dist>
  void launch_small(Dist* dist, vertex_t source) {
    const detail::small_graph_layout<Dist> layout = small_layout<Dist>();
    detail::small_graph_kernel<Dist>
        <<<1, detail::kSmallBlock, layout.bytes(), stream>>>(graph.view(), layout, source, dist, small_stats.data());
    GRAPHKIT_CHECK_LAUNCH();
  }

  void apply(const solver_tuning& tuning) {
    use_small = fits_small && tuning.small_graph_kernel;
    use_rows(tuning.edge_rows == solver_tuning::edge_rows_mode::automatic
                 ? lattice
                 : tuning.edge_rows == solver_tuning::edge_rows_mode::on);
    // Every block must be resident for the grid barrier; a small graph gets
    // fewer blocks, which makes each barrier cheaper.
    const unsigned resident = rows.size() != 0 ? resident_rows : resident_csr;
    grid = std::clamp(tuning.blocks != 0 ? tuning.blocks : blocks_for(n, detail::kBlock), 1u, resident);
    relax_depth = tuning.relax_depth == solver_tuning::kAutoRelaxDepth
                      ? auto_relax_depth(profile, rows.size() != 0, tuning.pool)
                      : static_cast<std::uint32_t>(std::clamp(tuning.relax_depth, 0, kMaxRelaxDepth));
    use_pool = tuning.pool;
    const std::size_t room = tuning.pool_room != 0 ? std::min<std::size_t>(tuning.pool_room, n) : n;
    if (pooled() && pool.size() != room) pool = device_buffer<vertex_t>(room);
    default_delta = pooled() && sparse_even(profile) && !lattice
                        ? static_cast<std::uint64_t>(static_cast<double>(heuristic) * kPooledRoadDeltaScale)
                        : heuristic;
  }

  /// Whether relax phases share vertices through the pool: it carries what
  /// the warps' queues (relax depth > 0) cannot take.
  [[nodiscard]] bool pooled() const { return use_pool && relax_depth > 0; }

  device_csr graph;
  std::size_t n;
  bool narrow;  ///< 32-bit distances (see distances_fit_32_bits), else 64-bit
  device_buffer<std::uint32_t> dist32;
  device_buffer<gpu_distance> dist64;
  device_buffer<vertex_t> lists;
  device_buffer<detail::heavy_chunk> chunks;
  std::size_t mask_words;
  device_buffer<std::uint32_t> masks;  ///< two frontier masks, then resplit's
  device_buffer<control> ctl;
  device_buffer<detail::phase_counters> counters;
  device_buffer<vertex_t> pool;               ///< pool.cuh; every slot kEmptySlot between phases (set per solve)
  pinned_buffer<control> host_ctl_buffer{1};  ///< the control block's host side (asynchronous copies)
  control* host_ctl = host_ctl_buffer.data();
  device_buffer<detail::small_graph_stats> small_stats{1};
  device_buffer<uint2> rows;   ///< edge rows (edge_rows.cuh), or empty: the CSR kernel
  bool fits_small = false;     ///< the graph fits one block's shared memory
  bool use_small = false;      ///< ... and the tuning allows that kernel
  unsigned resident_csr = 1;   ///< blocks of the CSR kernel that fit on the GPU at once
  unsigned resident_rows = 1;  ///< the same for the rows kernel
  unsigned grid = 1;
  std::uint32_t relax_depth = 0;
  bool use_pool = true;  ///< solver_tuning::pool
  graph_profile profile;
  std::uint64_t heuristic;      ///< heuristic_delta(profile)
  bool lattice = false;         ///< sparse, even, and at most 1% of vertices with 5+ edges (edge_rows_pay)
  std::uint64_t default_delta;  ///< delta_choice::heuristic's delta (kPooledRoadDeltaScale)
  cudaStream_t stream;          ///< every solve's kernels, copies and events
  cuda_event start, stop;

  /// Builds the edge rows (once) or drops them.
  void use_rows(bool wanted) {
    if (!wanted) rows = {};
    else if (rows.size() == 0 && graph.num_vertices > 0) rows = detail::build_edge_rows(graph, stream);
  }

  template <class Dist, bool Rows>
  detail::solver_view<Dist, Rows> view(Dist* dist) {
    std::uint32_t* m = masks.data();
    return {graph.view(),
            {rows.data()},
            dist,
            {bit_span_ref{m}, bit_span_ref{m + mask_words}},
            bit_span_ref{m + 2 * mask_words},
            chunks.data(),
            static_cast<std::uint32_t>(chunks.size()),
            ctl.data(),
            counters.data(),
            pool.data(),
            static_cast<std::uint32_t>(pool.size())};
  }

  /// Initializes the distances and runs the solver kernel.
  template <class Dist>
  void launch(Dist* dist, vertex_t source) {
    init_distances_kernel<<<blocks_for(graph.num_vertices, 256), 256, 0, stream>>>(dist, graph.num_vertices, source);
    GRAPHKIT_CHECK_LAUNCH();
    if (rows.size() != 0) launch_solver<Dist, true>(dist);
    else launch_solver<Dist, false>(dist);
  }

  template <class Dist, bool Rows>
  void launch_solver(Dist* dist) {
    detail::solver_view<Dist, Rows> v = view<Dist, Rows>(dist);
    void* args[] = {&v};
    GRAPHKIT_CUDA_TRY(cudaLaunchCooperativeKernel(reinterpret_cast<void*>(delta_stepping_kernel<Dist, Rows>), grid,
                                                  detail::kBlock, args, 0, stream));
    GRAPHKIT_CHECK_LAUNCH();
  }

  /// The distances of the last solve: the device array copied down (staged,
  /// several threads) and widened by all host threads into pages prepared
  /// ahead (fresh pages alone cost more than the solve).
  result fetch_distances() const {
    nvtx_range range("graphkit::sssp distances to the host");
    result r;
    const std::size_t count = graph.num_vertices;
    r.distances.reserve(count);
    prepare_host_pages(r.distances.data(), count * sizeof(distance_t));
    r.distances.resize(count);
    auto widen = [&](const auto& d, auto unreached) {
      const unsigned parts = graphkit::detail::host_threads();
      graphkit::detail::parallel_parts(parts, [&](std::size_t p) {
        const auto [lo, hi] = graphkit::detail::part_range(count, parts, p);
        for (std::size_t v = lo; v < hi; ++v)
          r.distances[v] = d[v] == unreached ? kUnreachable : static_cast<distance_t>(d[v]);
      });
    };
    const transfer_options copies = on_stream(stream);
    if (narrow) widen(download(dist32, copies), std::uint32_t{UINT32_MAX});
    else widen(download(dist64, copies), detail::kGpuUnreachable);
    return r;
  }

  /// The control block of a solve from `source`, whose vertex is placed in
  /// the frontier storage.
  control initial(gpu_distance delta, bool adaptive) {
    control c{};
    c.phase = detail::kRelaxFrontier;
    c.frontier_size = 1;
    c.adaptive = adaptive ? 1 : 0;
    c.relax_depth = relax_depth;
    c.pool = pooled() ? 1 : 0;
    c.delta = c.next_delta = c.first_delta = delta;
    c.far_min = detail::kGpuUnreachable;
    c.epochs = 1;
    c.buckets = 1;
    vertex_t* p = lists.data();
    for (std::uint32_t j = 0; j < detail::kGroups; ++j, p += n) c.lists[j] = p;
    p += n;  // the far list above took 2n
    c.frontier = p;
    p += n;
    c.far_in = p;
    return c;
  }
};

graph_profile profile_from_sums(vertex_t num_vertices, edge_t edges, std::uint64_t squared_degrees, double weight_sum) {
  graph_profile p;
  p.edges = static_cast<double>(edges);
  if (p.edges == 0) return p;
  p.mean_weight = weight_sum / p.edges;
  const double n = num_vertices;
  p.mean_degree = p.edges / n;
  p.rms_degree = std::sqrt(static_cast<double>(squared_degrees) / n);
  return p;
}

graph_profile profile_of(vertex_t num_vertices, std::span<const edge_t> offsets, double weight_sum) {
  std::uint64_t squares = 0;  // exact, as device_profile's
  for (vertex_t v = 0; v < num_vertices; ++v) {
    const std::uint64_t d = offsets[v + 1] - offsets[v];
    squares += d * d;
  }
  return profile_from_sums(num_vertices, offsets.back(), squares, weight_sum);
}

std::uint64_t heuristic_delta(const csr_graph& g) {
  double sum = static_cast<double>(g.num_edges());  // weight 1 per edge when unweighted
  if (g.weighted()) {
    sum = 0;
    for (const weight_t w : g.weights) sum += w;
  }
  return heuristic_delta(profile_of(g.num_vertices, g.offsets, sum));
}

std::uint64_t heuristic_delta(const graph_profile& p) {
  if (p.edges == 0) return 1;
  double delta = 256.0 * p.mean_weight / (p.mean_degree * p.mean_degree) * std::sqrt(p.mean_degree / p.rms_degree);
  // Meshes and roads: a warp follows chains of hops within a round
  // (relax_depth), so a wider bucket's extra relaxations are cheap and the
  // rounds it saves are what the solve costs (H100, delta x1 / x2 / x4 / x6:
  // road:22 9.76 / 9.41 / 8.70 / 8.45 ms, grid:22 7.53 / 7.23 / - / 7.32).
  if (sparse_even(p)) delta *= kSparseEvenDeltaScale;
  // Past 2^26 edges a bucket of the same width holds more edges than the GPU
  // needs to stay busy, so narrower buckets cost no rounds' worth of idling
  // and save relaxations (sweeps: R-MAT 22 best at half, R-MAT 24 at a
  // quarter to a half of the unscaled delta).
  if (p.edges > kDeltaFullEdges) delta *= std::sqrt(kDeltaFullEdges / p.edges);
  return std::max<std::uint64_t>(1, static_cast<std::uint64_t>(std::llround(delta)));
}

bool sparse_even(const graph_profile& p) { return p.mean_degree <= 8 && p.rms_degree <= 2 * p.mean_degree; }

std::uint32_t auto_relax_depth(const graph_profile& p, bool edge_rows, bool pool) {
  // Sparse, even graphs (meshes, roads) have small rounds, thousands deep:
  // grid:22 went from 27.5 to 10.7 ms at depth 6-8 (3,370 rounds to ~410),
  // rome99 0.49 to 0.28 ms at 4-8. Skewed and dense graphs have few, full
  // rounds and gained nothing measurable (rmat:21, uniform:21 within noise).
  // Since the outbox and the 4x delta (session 12, depth 2 / 3 / 4 / 5 / 6 /
  // 8): road:22 on the CSR is best at 4 (8.53 / 7.97 / 7.78 / 7.90 / 8.10 /
  // 8.76 ms), grid:22 on edge rows at 8 (10.53 / 8.95 / 8.14 / 7.71 / 7.45 /
  // 7.34).
  // With the in-phase pool (road:22 at 4x and 8x the default delta, depth
  // 4 / 6 / 8: 5.99 / 5.59 / 5.65 and 5.87 / 5.40 / 5.42 ms) the CSR is
  // best at 6.
  if (!sparse_even(p)) return 0;
  if (edge_rows) return 8;
  return pool ? 6 : 4;
}

gpu_solver::gpu_solver(const csr_graph& g, cudaStream_t stream) : gpu_solver(to_device(g, stream), stream) {}
gpu_solver::gpu_solver(device_csr&& g, cudaStream_t stream) {
  const weight_summary weights = [&] {
    nvtx_range range("graphkit::sssp set-up: weight summary");
    return summarize_weights(g, stream);
  }();
  state_ = std::make_unique<state>(std::move(g), weights, stream);
}
gpu_solver::~gpu_solver() = default;

void gpu_solver::tune(const solver_tuning& tuning) { state_->apply(tuning); }

void gpu_solver::solve(vertex_t source, const delta_choice& choice, gpu_stats& stats) {
  state& st = *state_;
  if (source >= st.graph.num_vertices) throw input_error("sssp: source " + std::to_string(source) + " is not a vertex");
  nvtx_range range("sssp run");
  const gpu_distance delta = std::clamp<gpu_distance>(
      choice.how == delta_choice::mode::fixed ? choice.value : st.default_delta, 1, detail::kMaxDelta);
  stats = {};
  stats.delta_first = stats.delta_last = delta;
  stats.distance_bits = st.narrow ? 32 : 64;
  if (st.use_small) {
    st.start.record(st.stream);
    if (st.narrow) st.launch_small(st.dist32.data(), source);
    else st.launch_small(st.dist64.data(), source);
    st.stop.record(st.stream);
    const detail::small_graph_stats small = read_one(st.small_stats.data(), st.stream);
    stats.seconds = st.stop.seconds_since(st.start);
    stats.rounds = small.rounds;
    stats.examined = small.examined;
    stats.blocks = 1;
    stats.shared_memory_kernel = true;
    return;
  }
  *st.host_ctl = st.initial(delta, choice.how == delta_choice::mode::adaptive);
  const control& c = *st.host_ctl;

  st.start.record(st.stream);
  st.masks.fill_bytes(0, st.stream);
  if (c.pool != 0) st.pool.fill_bytes(0xff, st.stream);
  GRAPHKIT_CUDA_TRY(cudaMemcpyAsync(c.frontier, &source, sizeof source, cudaMemcpyHostToDevice, st.stream));
  GRAPHKIT_CUDA_TRY(cudaMemcpyAsync(st.ctl.data(), st.host_ctl, sizeof(control), cudaMemcpyHostToDevice, st.stream));
  static const detail::phase_counters cleared = detail::phase_counters::cleared();  // static: outlives the copy
  GRAPHKIT_CUDA_TRY(cudaMemcpyAsync(st.counters.data(), &cleared, sizeof cleared, cudaMemcpyHostToDevice, st.stream));
  if (st.narrow) st.launch(st.dist32.data(), source);
  else st.launch(st.dist64.data(), source);
  st.stop.record(st.stream);
  GRAPHKIT_CUDA_TRY(cudaMemcpyAsync(st.host_ctl, st.ctl.data(), sizeof(control), cudaMemcpyDeviceToHost, st.stream));
  GRAPHKIT_CUDA_TRY(cudaStreamSynchronize(st.stream));
  stats.seconds = st.stop.seconds_since(st.start);
  if (c.overflow != 0) throw error("sssp: internal error, a bucket list outgrew its bound (please report)");
  stats.rounds = c.rounds;
  stats.buckets = c.buckets;
  stats.epochs = c.epochs;
  stats.examined = c.examined;
  stats.delta_last = c.delta;
  stats.relax_depth = st.relax_depth;
  stats.edge_rows = st.rows.size() != 0;
  stats.pool = c.pool != 0;
  stats.blocks = st.grid;
}

result gpu_solver::distances() const { return state_->fetch_distances(); }

reach_summary gpu_solver::reach() const {
  const state& st = *state_;
  const std::size_t n = st.graph.num_vertices;
  if (st.narrow)
    return detail::reach_on_device(st.dist32.data(), std::uint32_t{UINT32_MAX}, st.graph.offsets.data(), n, st.stream);
  return detail::reach_on_device(st.dist64.data(), detail::kGpuUnreachable, st.graph.offsets.data(), n, st.stream);
}

result gpu_solver::run(vertex_t source, const delta_choice& choice, gpu_stats& stats) {
  solve(source, choice, stats);
  return distances();
}

}  // namespace graphkit::sssp
