// GPU delta-stepping (Meyer and Sanders), driven from the host one round at a
// time. A round relaxes every out-edge of the current bucket's frontier
// (apps/sssp/gpu/relax.cuh); the vertices whose distance fell are then
// multisplit by bucket (apps/sssp/gpu/buckets.cuh): those still in the
// current bucket are the next round's frontier, the others are appended to
// their bucket's list or to the far list. Light and heavy edges are not
// separated: a vertex's edges are relaxed each time it enters the frontier,
// the near/far formulation of the algorithm.
//
// Each round reads its counters back once (the size of the next launch) and
// multisplit's offsets once; these two small synchronizations are the fixed
// cost of a round, which is why delta should be large enough to keep rounds
// few and full.
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <cmath>

#include "apps/sssp/gpu/buckets.cuh"
#include "apps/sssp/gpu/relax.cuh"
#include "apps/sssp/sssp.hpp"
#include "graph/device_csr.hpp"
#include "graph/frontier.cuh"
#include "primitives/common/cuda_event.hpp"
#include "primitives/common/error.hpp"
#include "primitives/common/nvtx.hpp"
#include "primitives/multisplit/multisplit.cuh"

namespace graphkit::sssp {

using detail::gpu_distance;

namespace {

// Work per round that keeps an H100 busy: below kLowWork edges per round the
// adaptive mode widens delta, above kHighWork it narrows it.
constexpr double kLowWork = 1 << 18;
constexpr double kHighWork = 1 << 21;

__global__ void init_distances_kernel(gpu_distance* dist, vertex_t n, vertex_t source) {
  const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (i < n) dist[i] = i == source ? 0 : detail::kGpuUnreachable;
}

unsigned blocks_for(std::size_t n, unsigned block) { return static_cast<unsigned>((n + block - 1) / block); }

}  // namespace

struct gpu_solver::state {
  explicit state(const csr_graph& g)
      : graph(to_device(g)),
        dist(std::max<std::size_t>(g.num_vertices, 1)),
        frontier(std::max<std::size_t>(g.num_vertices, 1)),
        updated(std::max<std::size_t>(g.num_vertices, 1)),
        split(std::max<std::size_t>(g.num_vertices, 1)),
        chunks(detail::chunk_capacity(g.num_edges())),
        counters(1),
        offsets(detail::kGroups + 1),
        mask(g.num_vertices),
        heuristic(heuristic_delta(g)) {
    GRAPHKIT_CUDA_TRY(cudaMallocHost(&host_counters, sizeof(detail::round_counters)));
    GRAPHKIT_CUDA_TRY(cudaMallocHost(&host_offsets, (detail::kGroups + 1) * sizeof(std::uint32_t)));
    int device = 0;
    GRAPHKIT_CUDA_TRY(cudaGetDevice(&device));
    GRAPHKIT_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  }
  ~state() {
    cudaFreeHost(host_counters);
    cudaFreeHost(host_offsets);
  }

  device_csr graph;
  device_buffer<gpu_distance> dist;
  device_buffer<vertex_t> frontier;  ///< a bucket opened by filter_bucket_kernel
  device_buffer<vertex_t> updated;   ///< vertices improved in a round
  device_buffer<vertex_t> split;     ///< multisplit output
  device_buffer<detail::heavy_chunk> chunks;
  device_buffer<detail::round_counters> counters;
  device_buffer<std::uint32_t> offsets;  ///< multisplit's kGroups + 1 offsets
  frontier_mask mask;
  std::array<detail::vertex_list, detail::kEpochBuckets> buckets;
  detail::vertex_list far;
  multisplit_workspace split_workspace;
  detail::round_counters* host_counters = nullptr;  // pinned, so reads are plain DMA
  std::uint32_t* host_offsets = nullptr;
  int sms = 1;
  std::uint64_t heuristic;
  cudaStream_t stream = nullptr;
  cuda_event start, stop;

  detail::relax_state relax_view() {
    return {graph.view(), dist.data(), mask.ref(), updated.data(), chunks.data(), counters.data()};
  }

  void reset_counters() {
    GRAPHKIT_CUDA_TRY(cudaMemsetAsync(counters.data(), 0, sizeof(detail::round_counters), stream));
  }
  const detail::round_counters& read_counters() {
    GRAPHKIT_CUDA_TRY(
        cudaMemcpyAsync(host_counters, counters.data(), sizeof *host_counters, cudaMemcpyDeviceToHost, stream));
    GRAPHKIT_CUDA_TRY(cudaStreamSynchronize(stream));
    return *host_counters;
  }

  /// One relaxation round over `size` frontier vertices; returns the number
  /// of vertices whose distance fell (now in `updated`).
  std::uint32_t relax(const vertex_t* d_frontier, std::uint32_t size, gpu_stats& stats) {
    nvtx_range range("relax");
    reset_counters();
    const detail::relax_state s = relax_view();
    detail::relax_frontier_kernel<<<blocks_for(size, detail::kRelaxBlock), detail::kRelaxBlock, 0, stream>>>(
        s, d_frontier, size);
    GRAPHKIT_CHECK_LAUNCH();
    detail::relax_heavy_chunks_kernel<<<2 * sms, detail::kRelaxBlock, 0, stream>>>(s);
    GRAPHKIT_CHECK_LAUNCH();
    mask.clear_async(stream);
    const detail::round_counters& c = read_counters();
    ++stats.rounds;
    stats.examined += c.examined;
    return c.updated;
  }

  /// Splits n vertices at d_in into `split` by bucket; returns the kGroups + 1
  /// offsets. bucket_of_vertex never leaves [0, kGroups), so unlike
  /// multisplit_keys this skips the out-of-range check and its second sync.
  const std::uint32_t* classify(const vertex_t* d_in, std::uint32_t n, gpu_distance base, gpu_distance delta) {
    nvtx_range range("multisplit");
    multisplit_keys_async(d_in, split.data(), n, detail::kGroups, detail::bucket_of_vertex{dist.data(), base, delta},
                          offsets.data(), split_workspace, stream);
    GRAPHKIT_CUDA_TRY(cudaMemcpyAsync(host_offsets, offsets.data(), (detail::kGroups + 1) * sizeof(std::uint32_t),
                                      cudaMemcpyDeviceToHost, stream));
    GRAPHKIT_CUDA_TRY(cudaStreamSynchronize(stream));
    return host_offsets;
  }

  /// Bucket k's list, cleaned into `frontier`: returns its size.
  std::uint32_t open_bucket(std::uint32_t k, gpu_distance base, gpu_distance delta) {
    nvtx_range range("open bucket");
    detail::vertex_list& list = buckets[k];
    reset_counters();
    detail::filter_bucket_kernel<<<blocks_for(list.size(), 256), 256, 0, stream>>>(
        list.data(), list.size(), dist.data(), base + k * delta, base + (k + 1) * delta, mask.ref(), frontier.data(),
        counters.data());
    GRAPHKIT_CHECK_LAUNCH();
    mask.clear_async(stream);
    list.clear();
    return read_counters().kept;
  }

  /// The smallest distance at or above `threshold` in the far list.
  gpu_distance far_minimum(gpu_distance threshold) {
    reset_counters();
    GRAPHKIT_CUDA_TRY(cudaMemsetAsync(&counters.data()->far_min, 0xff, sizeof(gpu_distance), stream));
    const unsigned grid = std::min(blocks_for(far.size(), 256), 8u * static_cast<unsigned>(sms));
    detail::min_live_distance_kernel<<<grid, 256, 0, stream>>>(far.data(), far.size(), dist.data(), threshold,
                                                                counters.data());
    GRAPHKIT_CHECK_LAUNCH();
    return read_counters().far_min;
  }

  /// Moves groups [first, kEpochBuckets) of `split` into their bucket lists
  /// and the far group into the far list.
  void distribute(const std::uint32_t* offsets, std::uint32_t first) {
    for (std::uint32_t k = first; k < detail::kEpochBuckets; ++k)
      buckets[k].append(split.data() + offsets[k], offsets[k + 1] - offsets[k], stream);
    far.append(split.data() + offsets[detail::kFarGroup],
               offsets[detail::kFarGroup + 1] - offsets[detail::kFarGroup], stream);
  }
};

std::uint64_t heuristic_delta(const csr_graph& g) {
  if (g.num_edges() == 0) return 1;
  double mean_weight = 1;
  if (g.weighted()) {
    double sum = 0;
    for (const weight_t w : g.weights) sum += w;
    mean_weight = sum / static_cast<double>(g.num_edges());
  }
  const double mean_degree = static_cast<double>(g.num_edges()) / g.num_vertices;
  return std::max<std::uint64_t>(1, static_cast<std::uint64_t>(std::llround(32.0 * mean_weight / mean_degree)));
}

gpu_solver::gpu_solver(const csr_graph& g) : state_(std::make_unique<state>(g)) {}
gpu_solver::~gpu_solver() = default;

result gpu_solver::run(vertex_t source, const delta_choice& choice, gpu_stats& stats) {
  state& st = *state_;
  if (source >= st.graph.num_vertices) throw input_error("sssp: source " + std::to_string(source) + " is not a vertex");
  stats = {};
  // Distances stay below 2^63, so a wider delta changes nothing; capping it
  // keeps base + (kEpochBuckets + 1) * delta inside 64 bits.
  constexpr gpu_distance kMaxDelta = gpu_distance{1} << 58;
  gpu_distance delta = std::min<gpu_distance>(choice.how == delta_choice::mode::fixed ? choice.value : st.heuristic, kMaxDelta);
  stats.delta_first = delta;
  const bool adaptive = choice.how == delta_choice::mode::adaptive;

  st.start.record(st.stream);
  init_distances_kernel<<<blocks_for(st.graph.num_vertices, 256), 256, 0, st.stream>>>(st.dist.data(),
                                                                                       st.graph.num_vertices, source);
  GRAPHKIT_CHECK_LAUNCH();
  for (auto& b : st.buckets) b.clear();
  st.far.clear();
  GRAPHKIT_CUDA_TRY(cudaMemcpyAsync(st.frontier.data(), &source, sizeof source, cudaMemcpyHostToDevice, st.stream));

  gpu_distance base = 0;  // the epoch's first distance
  const vertex_t* frontier = st.frontier.data();
  std::uint32_t frontier_size = 1;
  std::uint32_t k = 0;  // the current bucket, counted from base
  stats.epochs = 1;
  for (;;) {
    // Settle bucket k: relax until no vertex falls back into it.
    ++stats.buckets;
    std::uint64_t bucket_rounds = 0, bucket_examined = 0;
    while (frontier_size > 0) {
      const std::uint64_t examined_before = stats.examined;
      const std::uint32_t updated = st.relax(frontier, frontier_size, stats);
      ++bucket_rounds;
      bucket_examined += stats.examined - examined_before;
      if (updated == 0) break;
      const std::uint32_t* offsets = st.classify(st.updated.data(), updated, base, delta);
      st.distribute(offsets, k + 1);
      frontier = st.split.data() + offsets[k];
      frontier_size = offsets[k + 1] - offsets[k];
    }
    // Everything below `settled` is final now.
    gpu_distance settled = base + (k + 1) * delta;

    // --delta auto: a bucket whose rounds were too small to fill the GPU
    // widens delta, one whose rounds were huge narrows it. The epoch's
    // bucket boundaries move with delta, so its lists go back to the far list.
    gpu_distance next_delta = delta;
    if (adaptive) {
      const double work = static_cast<double>(bucket_examined) / static_cast<double>(bucket_rounds);
      if (work < kLowWork) next_delta = std::min(delta * 2, kMaxDelta);
      else if (work > kHighWork && delta > 1) next_delta = delta / 2;
    }
    frontier_size = 0;
    if (next_delta != delta) {
      for (std::uint32_t j = k + 1; j < detail::kEpochBuckets; ++j) {
        st.far.append(st.buckets[j].data(), st.buckets[j].size(), st.stream);
        st.buckets[j].clear();
      }
      delta = next_delta;
    } else {
      // The next non-empty bucket of this epoch.
      while (frontier_size == 0 && ++k < detail::kEpochBuckets) {
        if (st.buckets[k].size() == 0) continue;
        frontier_size = st.open_bucket(k, base, delta);
        frontier = st.frontier.data();
      }
      if (frontier_size > 0) continue;
      settled = base + detail::kEpochBuckets * delta;
    }

    // A new epoch, from the far list.
    if (st.far.size() == 0) break;
    base = st.far_minimum(settled);
    if (base == detail::kGpuUnreachable) break;  // only stale entries were left
    ++stats.epochs;
    const std::uint32_t far_size = st.far.size();
    if (st.split.size() < far_size) st.split = device_buffer<vertex_t>(far_size + far_size / 2);
    const std::uint32_t* offsets = st.classify(st.far.data(), far_size, base, delta);
    st.far.clear();
    st.distribute(offsets, 0);
    k = 0;
    frontier_size = st.open_bucket(0, base, delta);  // holds the vertex at `base`, at least
    frontier = st.frontier.data();
  }
  st.stop.record(st.stream);
  stats.seconds = st.stop.seconds_since(st.start);
  stats.delta_last = delta;

  const std::vector<gpu_distance> d = st.dist.to_host(st.stream);
  result r;
  r.distances.resize(st.graph.num_vertices);
  for (vertex_t v = 0; v < st.graph.num_vertices; ++v)
    r.distances[v] = d[v] == detail::kGpuUnreachable ? kUnreachable : static_cast<distance_t>(d[v]);
  return r;
}

}  // namespace graphkit::sssp
