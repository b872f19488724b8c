// clean_on_gpu: self-loops and duplicate edges through the linear-probing
// table; the kept weight is aggregated in arrays indexed by the edge's slot.
#include <algorithm>
#include <limits>

#include "graph/gpu/detail/memory.hpp"
#include "graph/gpu/detail/sort.hpp"
#include "graph/host_transfer.hpp"
#include "graph/gpu/pipeline.hpp"
#include "primitives/common/error.hpp"
#include "primitives/common/launch.hpp"
#include "primitives/hash/linear_probing_map.cuh"

namespace graphkit {
namespace {

using edge_map = linear_probing_map<std::uint64_t, std::uint32_t>;
/// Claims slots; the per-edge aggregates live in arrays indexed by slot.
using edge_ref = edge_map::ref_with<hash_ops::insert>;
// No edge packs to this: vertex ids stop at 2^32 - 2.
constexpr std::uint64_t kNoEdge = std::numeric_limits<std::uint64_t>::max();
constexpr long long kMaxWeight = std::numeric_limits<weight_t>::max();
constexpr long long kMinWeight = std::numeric_limits<weight_t>::min();

struct aggregates {
  int* min;                   // per slot
  long long* sum;             // per slot, 64-bit so overflow can be reported
  unsigned long long* first;  // per slot: the smallest edge index
};

__global__ void pack_edges_kernel(const vertex_t* src, const vertex_t* dst, std::size_t m, bool undirected,
                                  bool drop_loops, std::uint64_t* keys, unsigned long long* loops) {
  const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (i >= m) return;
  vertex_t u = src[i], v = dst[i];
  if (undirected && u > v) {
    const vertex_t t = u;
    u = v;
    v = t;
  }
  if (drop_loops && u == v) {
    keys[i] = kNoEdge;
    atomicAdd(loops, 1ull);
  } else {
    keys[i] = (std::uint64_t{u} << 32) | v;
  }
}

__global__ void merge_edges_kernel(edge_ref table, const std::uint64_t* keys, const weight_t* weights, std::size_t m,
                                   aggregates agg, unsigned long long* failures) {
  const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (i >= m || keys[i] == kNoEdge) return;
  const std::size_t s = table.insert_slot(keys[i]);
  if (s == table.capacity) {
    atomicAdd(failures, 1ull);
    return;
  }
  if (weights) {
    atomicMin(&agg.min[s], weights[i]);
    atomicAdd(reinterpret_cast<unsigned long long*>(&agg.sum[s]), static_cast<unsigned long long>(weights[i]));
    atomicMin(&agg.first[s], static_cast<unsigned long long>(i));
  }
}

/// The distinct edges out of the occupied slots (slot order), with the kept
/// weight; sums outside 32 bits are counted and the smallest such edge kept.
__global__ void gather_edges_kernel(edge_ref table, aggregates agg, const weight_t* weights, duplicate_weight keep,
                                    std::uint64_t* out_keys, std::int32_t* out_weights, unsigned long long* count,
                                    unsigned long long* overflow_key) {
  const std::size_t s = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (s >= table.capacity) return;
  const std::uint64_t key = table.slots[s].key;
  if (key == kNoEdge) return;
  const auto j = atomicAdd(count, 1ull);
  out_keys[j] = key;
  if (!weights) return;
  if (keep == duplicate_weight::min) {
    out_weights[j] = agg.min[s];
  } else if (keep == duplicate_weight::first) {
    out_weights[j] = weights[agg.first[s]];
  } else {
    const long long sum = agg.sum[s];
    if (sum > kMaxWeight || sum < kMinWeight) atomicMin(overflow_key, static_cast<unsigned long long>(key));
    out_weights[j] = static_cast<std::int32_t>(sum);
  }
}

__global__ void unpack_edges_kernel(const std::uint64_t* keys, std::size_t n, vertex_t* src, vertex_t* dst) {
  const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (i < n) src[i] = static_cast<vertex_t>(keys[i] >> 32), dst[i] = static_cast<vertex_t>(keys[i]);
}

__global__ void fill_kernel(int* data, std::size_t n, int value) {
  const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (i < n) data[i] = value;
}

}  // namespace

clean_stats clean_device(device_edges& g, const clean_options& options, cudaStream_t stream) {
  GRAPHKIT_EXPECTS(options.drop_duplicates, "clean_on_gpu merges duplicate edges: use clean() to keep them");
  clean_stats stats;
  stats.input_edges = g.num_edges();
  if (options.symmetrize) g.directed = false;
  const std::size_t m = g.num_edges();
  if (m == 0) return stats;
  const bool weighted = g.weighted();

  // Peak per edge: keys 8 B, table 32, aggregates 40 (weighted), survivors and their sort ~24 (+12).
  detail::require_device_memory("clean_on_gpu", m, (weighted ? 124 : 72) * m);
  device_buffer<std::uint64_t> keys(m);
  device_buffer<unsigned long long> counters(4);  // loops, failures, distinct, smallest overflowing edge
  counters.fill_bytes(0, stream);
  GRAPHKIT_CUDA_TRY(cudaMemsetAsync(counters.data() + 3, 0xff, sizeof(unsigned long long), stream));
  pack_edges_kernel<<<blocks_for(m), 256, 0, stream>>>(g.src.data(), g.dst.data(), m, !g.directed,
                                                       options.drop_self_loops, keys.data(), counters.data());
  GRAPHKIT_CHECK_LAUNCH();
  g.src = {};
  g.dst = {};

  edge_map table(2 * m, empty_key<std::uint64_t>{kNoEdge}, {}, stream);
  const edge_ref ref = table.ref<hash_ops::insert>();
  device_buffer<int> min_weight(weighted ? table.capacity() : 0);
  device_buffer<long long> sum_weight(weighted ? table.capacity() : 0);
  device_buffer<unsigned long long> first_index(weighted ? table.capacity() : 0);
  if (weighted) {
    fill_kernel<<<blocks_for(min_weight.size()), 256, 0, stream>>>(min_weight.data(), min_weight.size(),
                                                                   std::numeric_limits<int>::max());
    GRAPHKIT_CHECK_LAUNCH();
    sum_weight.fill_bytes(0, stream);
    first_index.fill_bytes(0xff, stream);
  }
  const aggregates agg{min_weight.data(), sum_weight.data(), first_index.data()};
  merge_edges_kernel<<<blocks_for(m), 256, 0, stream>>>(ref, keys.data(), weighted ? g.weights.data() : nullptr, m, agg,
                                                        counters.data() + 1);
  GRAPHKIT_CHECK_LAUNCH();
  if (const auto failed = read_one(counters.data() + 1, stream); failed != 0)
    throw resource_error("clean_on_gpu: " + std::to_string(failed) + " edges found the table full (" +
                         std::to_string(table.capacity()) + " slots for " + std::to_string(m) + " edges)");
  stats.self_loops_removed = read_one(counters.data(), stream);

  device_buffer<std::uint64_t> distinct(m);
  device_buffer<std::int32_t> kept_weights(weighted ? m : 1);
  gather_edges_kernel<<<blocks_for(table.capacity()), 256, 0, stream>>>(
      ref, agg, weighted ? g.weights.data() : nullptr, options.keep, distinct.data(), kept_weights.data(),
      counters.data() + 2, counters.data() + 3);
  GRAPHKIT_CHECK_LAUNCH();
  const std::size_t n = read_one(counters.data() + 2, stream);
  if (const auto bad = read_one(counters.data() + 3, stream); weighted && bad != kNoEdge)
    throw input_error("summed weight of duplicate edge (" + std::to_string(bad >> 32) + ", " +
                      std::to_string(bad & 0xffffffffu) + ") overflows 32 bits");
  stats.duplicates_removed = m - stats.self_loops_removed - n;

  const int key_bits = std::min(64, 32 + detail::bits_for(g.num_vertices));
  if (weighted) detail::sort_pairs(distinct, kept_weights, n, key_bits, stream);
  else detail::sort_keys(distinct, n, key_bits, stream);
  g.src = device_buffer<vertex_t>(n);
  g.dst = device_buffer<vertex_t>(n);
  if (n > 0) {  // every edge may have been a self-loop
    unpack_edges_kernel<<<blocks_for(n), 256, 0, stream>>>(distinct.data(), n, g.src.data(), g.dst.data());
    GRAPHKIT_CHECK_LAUNCH();
  }
  g.weights = {};
  if (weighted) {
    g.weights = device_buffer<weight_t>(n);
    if (n > 0)
      GRAPHKIT_CUDA_TRY(cudaMemcpyAsync(g.weights.data(), kept_weights.data(), n * sizeof(weight_t),
                                        cudaMemcpyDeviceToDevice, stream));
  }
  return stats;
}

clean_stats clean_on_gpu(coo_graph& g, const clean_options& options, cudaStream_t stream) {
  GRAPHKIT_EXPECTS(options.drop_duplicates, "clean_on_gpu merges duplicate edges: use clean() to keep them");
  if (options.random_weights) assign_random_weights(g, options.seed, options.max_random_weight);
  detail::require_device_memory("clean_on_gpu", g.num_edges(), (g.weighted() ? 136 : 80) * g.num_edges());
  device_edges d = to_device(g, stream);
  const clean_stats stats = clean_device(d, options, stream);
  to_host(std::move(d), g, stream);
  return stats;
}

device_edges to_device(const coo_graph& g, cudaStream_t stream) {
  const transfer_options copies = on_stream(stream);
  device_edges d;
  d.num_vertices = g.num_vertices;
  d.directed = g.directed;
  d.src = upload(std::span<const vertex_t>(g.src), copies);
  d.dst = upload(std::span<const vertex_t>(g.dst), copies);
  d.weights = upload(std::span<const weight_t>(g.weights), copies);
  return d;
}

void to_host(device_edges&& g, coo_graph& out, cudaStream_t stream) {
  const transfer_options copies = on_stream(stream);
  out.num_vertices = g.num_vertices;
  out.directed = g.directed;
  out.src = download_as<host_array<vertex_t>>(g.src, copies);
  out.dst = download_as<host_array<vertex_t>>(g.dst, copies);
  out.weights = download_as<host_array<weight_t>>(g.weights, copies);
  g = {};
}

}  // namespace graphkit
