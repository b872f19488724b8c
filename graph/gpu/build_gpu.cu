// build_csr_device: clean + CSR in one radix sort.
//
// Every edge becomes its arcs (both ways when undirected, a self-loop once),
// each a 64-bit key (source << b) | target with b = bits for n + 1 vertex
// ids, so the sort runs on 2b bits (42 for 2M vertices) instead of 64. Slots
// that hold no arc carry the all-ones key, which sorts after every arc. The
// sort is stable, so among equal arcs the input order survives: the first of
// a run is the first edge given, as clean() keeps it; an undirected edge's
// two arcs each collect every copy of that edge whichever way it was written,
// so merging runs of equal arcs is clean()'s duplicate merge done on both
// directions at once. The sorted, merged keys are the CSR: targets are their
// low bits and the offsets come from where each source's run begins.
#include <algorithm>
#include <limits>

#include "graph/gpu/detail/memory.hpp"
#include "graph/gpu/detail/sort.hpp"
#include "graph/gpu/pipeline.hpp"
#include "primitives/common/error.hpp"
#include "primitives/common/launch.hpp"

namespace graphkit {
namespace {

constexpr std::uint64_t kNoArc = std::numeric_limits<std::uint64_t>::max();

struct arc_layout {
  int bits;         // target bits in a key
  bool both_ways;   // undirected: two slots per edge
  bool drop_loops;
};

/// Slot s * i (+ 1) of edge i; counts the arcs written and the loops dropped
/// (one atomic per block for each).
__global__ void expand_arcs_kernel(const vertex_t* src, const vertex_t* dst, const weight_t* weights, std::size_t m,
                                   arc_layout layout, std::uint64_t* keys, weight_t* arc_weights,
                                   unsigned long long* arcs, unsigned long long* loops) {
  const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  bool first = false, second = false, loop = false;
  if (i < m) {
    const vertex_t u = src[i], v = dst[i];
    loop = u == v;
    first = !(loop && layout.drop_loops);
    second = layout.both_ways && !loop;
    const std::size_t slot = layout.both_ways ? 2 * i : i;
    keys[slot] = first ? (std::uint64_t{u} << layout.bits) | v : kNoArc;
    if (weights) arc_weights[slot] = weights[i];
    if (layout.both_ways) {
      keys[slot + 1] = second ? (std::uint64_t{v} << layout.bits) | u : kNoArc;
      if (weights) arc_weights[slot + 1] = weights[i];
    }
  }
  const int written = __syncthreads_count(first) + __syncthreads_count(second);
  const int dropped = __syncthreads_count(loop && layout.drop_loops);
  if (threadIdx.x == 0) {
    if (written) atomicAdd(arcs, static_cast<unsigned long long>(written));
    if (dropped) atomicAdd(loops, static_cast<unsigned long long>(dropped));
  }
}

/// Targets from the keys; offsets[v] for every v whose run starts at arc i
/// (i == count stands for the end, source n); counts the self-loop arcs.
__global__ void lay_out_csr_kernel(const std::uint64_t* keys, std::size_t count, int bits, vertex_t n,
                                   vertex_t* targets, edge_t* offsets, unsigned long long* loop_arcs) {
  const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  bool loop = false;
  if (i <= count) {
    const std::uint64_t mask = (std::uint64_t{1} << bits) - 1;
    const std::uint64_t u = i < count ? keys[i] >> bits : n;
    const std::uint64_t before = i == 0 ? 0 : (keys[i - 1] >> bits) + 1;
    for (std::uint64_t v = before; v <= u; ++v) offsets[v] = i;
    if (i < count) {
      targets[i] = static_cast<vertex_t>(keys[i] & mask);
      loop = (keys[i] & mask) == u;
    }
  }
  const int loops = __syncthreads_count(loop);
  if (threadIdx.x == 0 && loops) atomicAdd(loop_arcs, static_cast<unsigned long long>(loops));
}

/// Sums back to 32 bits; the smallest arc (u <= v for undirected graphs, so
/// named as clean() names the edge) whose sum does not fit is recorded.
__global__ void narrow_sums_kernel(const std::int64_t* sums, const std::uint64_t* keys, std::size_t count, int bits,
                                   bool undirected, weight_t* out, unsigned long long* overflow_edge) {
  const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (i >= count) return;
  const std::int64_t s = sums[i];
  out[i] = static_cast<weight_t>(s);
  if (s <= std::numeric_limits<weight_t>::max() && s >= std::numeric_limits<weight_t>::min()) return;
  const std::uint64_t u = keys[i] >> bits, v = keys[i] & ((std::uint64_t{1} << bits) - 1);
  if (!undirected || u <= v) atomicMin(overflow_edge, static_cast<unsigned long long>((u << 32) | v));
}

__global__ void random_weights_kernel(weight_t* weights, std::size_t m, std::uint64_t seed, weight_t max_weight) {
  const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (i < m) weights[i] = random_weight(seed, i, max_weight);
}

/// The runs of equal arcs merged as `keep` says, into the alternates; returns the count.
std::size_t merge_duplicate_arcs(device_buffer<std::uint64_t>& keys, device_buffer<std::uint64_t>& keys_alt,
                                 device_buffer<weight_t>& weights, device_buffer<weight_t>& weights_alt,
                                 std::size_t arcs, int bits, bool undirected, duplicate_weight keep) {
  if (weights.empty()) {
    const std::size_t count = detail::unique_keys(keys.data(), arcs, keys_alt.data());
    std::swap(keys, keys_alt);
    return count;
  }
  std::size_t count = 0;
  if (keep == duplicate_weight::first) {
    count = detail::unique_pairs_first(keys.data(), weights.data(), arcs, keys_alt.data(), weights_alt.data());
  } else if (keep == duplicate_weight::min) {
    count = detail::unique_pairs_min(keys.data(), weights.data(), arcs, keys_alt.data(), weights_alt.data());
  } else {
    device_buffer<std::int64_t> sums(arcs);
    count = detail::unique_pairs_sum(keys.data(), weights.data(), arcs, keys_alt.data(), sums.data());
    device_buffer<unsigned long long> overflow(1);
    overflow.fill_bytes(0xff);
    narrow_sums_kernel<<<blocks_for(count), 256>>>(sums.data(), keys_alt.data(), count, bits, undirected,
                                                    weights_alt.data(), overflow.data());
    GRAPHKIT_CHECK_LAUNCH();
    if (const auto bad = read_one(overflow.data()); bad != kNoArc)
      throw error("summed weight of duplicate edge (" + std::to_string(bad >> 32) + ", " +
                  std::to_string(bad & 0xffffffffu) + ") overflows 32 bits");
  }
  std::swap(keys, keys_alt);
  std::swap(weights, weights_alt);
  return count;
}

}  // namespace

void assign_random_weights(device_edges& g, std::uint64_t seed, weight_t max_weight) {
  g.weights = device_buffer<weight_t>(g.num_edges());
  if (g.num_edges() == 0) return;
  random_weights_kernel<<<blocks_for(g.num_edges()), 256>>>(g.weights.data(), g.num_edges(), seed, max_weight);
  GRAPHKIT_CHECK_LAUNCH();
}

device_csr build_csr_device(device_edges&& g, const clean_options& options, clean_stats& stats) {
  if (options.random_weights) assign_random_weights(g, options.seed, options.max_random_weight);
  const vertex_t n = g.num_vertices;
  const std::size_t m = g.num_edges();
  const bool undirected = options.symmetrize || !g.directed;
  const bool weighted = g.weighted();
  const arc_layout layout{detail::bits_for(std::uint64_t{n} + 1), undirected, options.drop_self_loops};
  const std::size_t slots = (undirected ? 2 : 1) * m;
  stats = {};
  stats.input_edges = m;

  // Peak per slot: key and weight, twice (the sort's ping-pong), plus the
  // edges being expanded (12 B per edge) and the CUB scratch.
  detail::require_device_memory("build_csr", m, (weighted ? 24 : 16) * slots + 12 * m + 8 * (std::size_t{n} + 1));
  device_buffer<std::uint64_t> keys(slots), keys_alt(slots);
  device_buffer<weight_t> weights(weighted ? slots : 0), weights_alt(weighted ? slots : 0);
  device_buffer<unsigned long long> counters(3);  // arcs, dropped loops, loop arcs kept
  counters.fill_bytes(0);
  if (m > 0) {
    expand_arcs_kernel<<<blocks_for(m), 256>>>(g.src.data(), g.dst.data(), weighted ? g.weights.data() : nullptr, m,
                                               layout, keys.data(), weights.data(), counters.data(),
                                               counters.data() + 1);
    GRAPHKIT_CHECK_LAUNCH();
  }
  g = {};
  std::size_t arcs = read_one(counters.data());
  stats.self_loops_removed = read_one(counters.data() + 1);

  if (weighted) detail::sort_pairs_ping_pong(keys, keys_alt, weights, weights_alt, slots, 2 * layout.bits);
  else detail::sort_keys_ping_pong(keys, keys_alt, slots, 2 * layout.bits);
  if (options.drop_duplicates)
    arcs = merge_duplicate_arcs(keys, keys_alt, weights, weights_alt, arcs, layout.bits, undirected, options.keep);
  keys_alt = {};
  weights_alt = {};

  device_csr out;
  out.num_vertices = n;
  out.directed = !undirected;
  out.offsets = device_buffer<edge_t>(std::size_t{n} + 1);
  out.targets = device_buffer<vertex_t>(arcs);
  lay_out_csr_kernel<<<blocks_for(arcs + 1), 256>>>(keys.data(), arcs, layout.bits, n, out.targets.data(),
                                                    out.offsets.data(), counters.data() + 2);
  GRAPHKIT_CHECK_LAUNCH();
  if (weighted) {
    out.weights = device_buffer<weight_t>(arcs);
    if (arcs > 0)
      GRAPHKIT_CUDA_TRY(cudaMemcpy(out.weights.data(), weights.data(), arcs * sizeof(weight_t),
                                   cudaMemcpyDeviceToDevice));
  }
  if (options.drop_duplicates) {
    // Edges kept: every arc once when directed; when undirected a self-loop is
    // one arc and any other edge two.
    const std::size_t loop_arcs = read_one(counters.data() + 2);
    const std::size_t edges = undirected ? (arcs - loop_arcs) / 2 + loop_arcs : arcs;
    stats.duplicates_removed = m - stats.self_loops_removed - edges;
  }
  return out;
}

}  // namespace graphkit
