// GPU triangle counting driver: preprocessing (orientation, --walk auto's
// choice, the walk's pull lists, work classes, multisplit into light and
// heavy vertices, under shorter_side the heavy ones longest first) and the
// two counting kernels, each with the membership set the method asks for.
// See orient.cuh and intersect.cuh for the algorithm.
#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <cmath>

#include "apps/tricount/gpu/intersect.cuh"
#include "apps/tricount/gpu/orient.cuh"
#include "apps/tricount/tricount.hpp"
#include "graph/gpu/pipeline.hpp"
#include "primitives/common/cuda_event.hpp"
#include "primitives/common/error.hpp"
#include "primitives/common/launch.hpp"
#include "primitives/common/nvtx.hpp"
#include "primitives/common/pinned_buffer.hpp"
#include "primitives/multisplit/multisplit.cuh"

namespace graphkit::tricount {

namespace {

detail::set_kind kind_of(method m) {
  switch (m) {
    case method::merge: return detail::set_kind::sorted_list;
    case method::hash: return detail::set_kind::hash;
    case method::bitmap: return detail::set_kind::bitmap;
    case method::automatic: break;
  }
  throw error("tricount: no set kind for 'auto'");
}

}  // namespace

// The rule --method auto applies, from bench/tricount_bench (docs/performance.md, "Triangle
// counting"): merge (binary search in shared memory) beat the hash set 3-4x and
// the n-bit bitmap 2-15x on every generated graph, for both classes; only on
// small graphs, whose bitmap stays in cache, did the bitmap win (ego-Facebook
// 0.20 ms against 0.28 ms). So: bitmap for both classes below kSmallGraph
// vertices, merge otherwise.
constexpr vertex_t kSmallGraph = 1u << 16;

method auto_method(vertex_t num_vertices, vertex_class) {
  return num_vertices < kSmallGraph ? method::bitmap : method::merge;
}

struct gpu_counter::state {
  state(device_csr&& g, cudaStream_t s)
      : graph(std::move(g)),
        num_undirected_edges(graph.num_edges() / 2),
        out_degree(std::size_t{graph.num_vertices} + 1),
        out_targets(std::max<std::size_t>(num_undirected_edges, 1)),
        walk_sums(2 * detail::kWalkStatSlots),
        walk_sums_host(walk_sums.size()),
        class_of(std::max<std::size_t>(graph.num_vertices, 1)),
        ids(std::max<std::size_t>(graph.num_vertices, 1)),
        ordered(std::max<std::size_t>(graph.num_vertices, 1)),
        counters(2),
        sms(device_sm_count()),
        stream(s) {}

  device_csr graph;
  std::size_t num_undirected_edges;
  device_buffer<edge_t> out_degree;  ///< then the oriented offsets (n + 1)
  device_buffer<vertex_t> out_targets;
  /// --walk auto's sums, per slot (orient.cuh), and their copy on the host.
  device_buffer<unsigned long long> walk_sums;
  pinned_buffer<unsigned long long> walk_sums_host;
  cuda_event walk_sums_copied;
  /// shorter_side's pull lists: at most the in-edges, m. Made by the first
  /// run that takes shorter_side (in timed trials, the warm-up), so that a
  /// graph auto counts by out_lists never holds them.
  device_buffer<vertex_t> pulled;
  device_buffer<std::uint32_t> pulled_count;  ///< per vertex
  detail::pull_lists pull{};                  ///< the walk the last preprocess() set up
  walk walked = walk::automatic;              ///< and its name
  device_buffer<std::uint32_t> class_of;
  device_buffer<vertex_t> ids, ordered;        ///< 0..n-1, and the same split by class
  device_buffer<unsigned long long> counters;  ///< [0] triangles, [1] heavy-vertex cursor (low 32 bits)
  device_buffer<unsigned long long> per_vertex;
  device_buffer<unsigned char> scan_temp;
  device_buffer<detail::set_slot> slot_pool;
  device_buffer<std::uint32_t> bitmap_pool;
  multisplit_workspace split_workspace;
  unsigned sms = 1;
  cudaStream_t stream = nullptr;  ///< every kernel, scan, copy and event of a run

  [[nodiscard]] detail::oriented_view oriented() const {
    return {graph.num_vertices, out_degree.data(), out_targets.data()};
  }

  /// The pull lists for walk `w` (no targets for out_lists).
  detail::pull_lists pull_lists_for(walk w) {
    detail::pull_lists p{graph.offsets.data(), out_degree.data(), nullptr, nullptr};
    if (w == walk::shorter_side) {
      if (pulled.empty()) {
        pulled = device_buffer<vertex_t>(out_targets.size());
        pulled_count = device_buffer<std::uint32_t>(std::max<std::size_t>(graph.num_vertices, 1));
      }
      p.targets = pulled.data();
      p.count = pulled_count.data();
    }
    return p;
  }

  /// --walk auto's sums from their copy (complete once walk_sums_copied is).
  [[nodiscard]] walk_statistics walk_stats() const {
    walk_statistics s;
    for (unsigned k = 0; k < detail::kWalkStatSlots; ++k) {
      s.out_lists_paths += walk_sums_host[2 * k];
      s.out_degree_squares += walk_sums_host[2 * k + 1];
    }
    s.oriented_edges = num_undirected_edges;
    return s;
  }

  /// Orients, takes walk `w` (under walk::automatic, auto_walk's choice: set
  /// in `walked`), sets it up, classifies and splits the vertices; returns the
  /// class offsets.
  std::vector<std::uint32_t> preprocess(walk w) {
    nvtx_range range("preprocess");
    const vertex_t n = graph.num_vertices;
    const unsigned warps_grid = blocks_for(std::size_t{n} * 32, 256);
    GRAPHKIT_CUDA_TRY(cudaMemsetAsync(out_degree.data() + n, 0, sizeof(edge_t), stream));
    GRAPHKIT_CUDA_TRY(cudaMemsetAsync(walk_sums.data(), 0, walk_sums.size() * sizeof(unsigned long long), stream));
    if (n > 0) {
      detail::count_out_edges_kernel<<<warps_grid, 256, 0, stream>>>(graph.view(), out_degree.data(), walk_sums.data());
      GRAPHKIT_CHECK_LAUNCH();
    }
    // The sums come back (1 KB) while the scan runs: auto waits for them
    // alone, and the fill is launched while the scan still runs.
    GRAPHKIT_CUDA_TRY(cudaMemcpyAsync(walk_sums_host.data(), walk_sums.data(),
                                      walk_sums.size() * sizeof(unsigned long long), cudaMemcpyDeviceToHost, stream));
    walk_sums_copied.record(stream);
    std::size_t temp_bytes = 0;
    GRAPHKIT_CUDA_TRY(cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, out_degree.data(), out_degree.data(),
                                                    std::size_t{n} + 1, stream));
    if (scan_temp.size() < temp_bytes) scan_temp = device_buffer<unsigned char>(temp_bytes);
    GRAPHKIT_CUDA_TRY(cub::DeviceScan::ExclusiveSum(scan_temp.data(), temp_bytes, out_degree.data(), out_degree.data(),
                                                    std::size_t{n} + 1, stream));
    if (w == walk::automatic) {
      walk_sums_copied.synchronize();
      w = auto_walk(walk_stats());
    }
    walked = w;
    pull = pull_lists_for(w);
    // Heavy vertices longest first under shorter_side only (orient.cuh).
    const std::uint32_t classes = w == walk::shorter_side ? detail::kWorkClasses : detail::kOutListsClasses;
    if (n == 0) return std::vector<std::uint32_t>(classes + 1, 0);
    detail::fill_out_edges_kernel<<<warps_grid, 256, 0, stream>>>(graph.view(), pull, out_targets.data());
    GRAPHKIT_CHECK_LAUNCH();
    detail::classify_work_kernel<<<warps_grid, 256, 0, stream>>>(oriented(), pull, class_of.data());
    GRAPHKIT_CHECK_LAUNCH();
    detail::iota_kernel<<<blocks_for(n, 256), 256, 0, stream>>>(ids.data(), n);
    GRAPHKIT_CHECK_LAUNCH();
    return multisplit_keys(ids.data(), ordered.data(), n, classes, bucket_ids_of{class_of.data()}, split_workspace,
                           stream);
  }

  /// Out-degrees are at most sqrt(2m): a vertex's out-neighbours all have at
  /// least its degree, so d+(u)^2 <= sum of degrees = 2m.
  [[nodiscard]] std::size_t max_out_degree() const {
    return static_cast<std::size_t>(std::sqrt(2.0 * static_cast<double>(num_undirected_edges))) + 1;
  }

  template <detail::set_kind Kind>
  void count_heavy(const vertex_t* vertices, std::uint32_t count, detail::triangle_sink sink) {
    if (count == 0) return;
    // The bitmap method's pool holds n bits per block: keep the grid modest.
    const unsigned cap = Kind == detail::set_kind::bitmap ? 2 : 8;
    const unsigned per_sm =
        std::min(resident_blocks_per_sm(detail::count_heavy_kernel<Kind>, detail::kCountThreads), cap);
    const unsigned grid = std::min<unsigned>(count, sms * per_sm);
    detail::block_scratch scratch{};
    if constexpr (Kind == detail::set_kind::hash) {
      // Whole windows per block, so each block's table starts 16-byte aligned.
      scratch.slots_per_block = detail::set_ref::capacity_for(2 * max_out_degree());
      if (slot_pool.size() < grid * scratch.slots_per_block)
        slot_pool = device_buffer<detail::set_slot>(grid * scratch.slots_per_block);
      scratch.slots = slot_pool.data();
    }
    if constexpr (Kind == detail::set_kind::bitmap) {
      scratch.words_per_block = (std::size_t{graph.num_vertices} + 31) / 32;
      if (bitmap_pool.size() < grid * scratch.words_per_block) {
        bitmap_pool = device_buffer<std::uint32_t>(grid * scratch.words_per_block);
        bitmap_pool.fill_bytes(0, stream);  // the kernel leaves every bitmap empty again
      }
      scratch.bitmaps = bitmap_pool.data();
    }
    auto* cursor = reinterpret_cast<std::uint32_t*>(counters.data() + 1);
    GRAPHKIT_CUDA_TRY(cudaMemsetAsync(cursor, 0, sizeof(std::uint32_t), stream));
    detail::count_heavy_kernel<Kind><<<grid, detail::kCountThreads, 0, stream>>>(
        oriented(), pull, vertices, count, sink, scratch, cursor, counters.data());
    GRAPHKIT_CHECK_LAUNCH();
  }

  void count_with(method m, const vertex_t* vertices, std::uint32_t count, detail::triangle_sink sink) {
    switch (kind_of(m)) {
      case detail::set_kind::sorted_list: return count_heavy<detail::set_kind::sorted_list>(vertices, count, sink);
      case detail::set_kind::hash: return count_heavy<detail::set_kind::hash>(vertices, count, sink);
      case detail::set_kind::bitmap: return count_heavy<detail::set_kind::bitmap>(vertices, count, sink);
    }
  }

  void count_light(method m, const vertex_t* vertices, std::uint32_t count, detail::triangle_sink sink) {
    if (count == 0) return;
    if (m == method::bitmap) return count_with(m, vertices, count, sink);  // block-wide only
    const unsigned grid = blocks_for(count, detail::kCountWarps);
    if (m == method::merge)
      detail::count_light_kernel<detail::set_kind::sorted_list>
          <<<grid, detail::kCountThreads, 0, stream>>>(oriented(), pull, vertices, count, sink, counters.data());
    else
      detail::count_light_kernel<detail::set_kind::hash>
          <<<grid, detail::kCountThreads, 0, stream>>>(oriented(), pull, vertices, count, sink, counters.data());
    GRAPHKIT_CHECK_LAUNCH();
  }
};

gpu_counter::gpu_counter(const csr_graph& g, cudaStream_t stream) : gpu_counter(to_device(g, stream), stream) {}
gpu_counter::gpu_counter(device_csr&& g, cudaStream_t stream) {
  GRAPHKIT_EXPECTS(!g.directed, "tricount: the GPU counter needs the symmetrized graph");
  state_ = std::make_unique<state>(std::move(g), stream);
}
gpu_counter::~gpu_counter() = default;

result gpu_counter::run(method m, bool per_vertex, gpu_stats& stats, walk w) {
  state& st = *state_;
  stats = {};
  const vertex_t n = st.graph.num_vertices;
  stats.light_method = m == method::automatic ? auto_method(n, vertex_class::light) : m;
  stats.heavy_method = m == method::automatic ? auto_method(n, vertex_class::heavy) : m;

  cuda_event start, preprocessed, light_done, done;
  start.record(st.stream);
  const std::vector<std::uint32_t> classes = st.preprocess(w);
  preprocessed.record(st.stream);

  GRAPHKIT_CUDA_TRY(cudaMemsetAsync(st.counters.data(), 0, sizeof(unsigned long long), st.stream));
  detail::triangle_sink sink{nullptr};
  if (per_vertex) {
    if (st.per_vertex.size() < n) st.per_vertex = device_buffer<unsigned long long>(n);
    st.per_vertex.fill_bytes(0, st.stream);
    sink.per_vertex = st.per_vertex.data();
  }
  {
    nvtx_range range("count");
    stats.light = classes[detail::kLight + 1] - classes[detail::kLight];
    stats.heavy = classes.back() - classes[detail::kHeavy];  // every heavy class (longest first)
    st.count_light(stats.light_method, st.ordered.data() + classes[detail::kLight], stats.light, sink);
    light_done.record(st.stream);
    st.count_with(stats.heavy_method, st.ordered.data() + classes[detail::kHeavy], stats.heavy, sink);
    done.record(st.stream);
  }
  stats.preprocess_seconds = preprocessed.seconds_since(start);
  stats.light_seconds = light_done.seconds_since(preprocessed);
  stats.heavy_seconds = done.seconds_since(light_done);
  stats.oriented_edges = st.num_undirected_edges;
  stats.walked = st.walked;
  st.walk_sums_copied.synchronize();  // the host reads the walk's sums below
  stats.walk_stats = st.walk_stats();

  result r;
  r.triangles = read_one(st.counters.data(), st.stream);
  if (per_vertex) {
    const std::vector<unsigned long long> counts = st.per_vertex.to_host(st.stream);
    r.per_vertex.assign(counts.begin(), counts.begin() + n);
  }
  return r;
}

std::uint64_t wedges(const device_csr& g) { return (sum_squared_degrees(g) - g.num_edges()) / 2; }

}  // namespace graphkit::tricount
