// build_csr_device: clean + CSR in one radix sort (per pass).
//
// Every edge becomes its arcs (both ways when undirected, a self-loop once),
// each a 64-bit key (source << b) | target with b = bits for n + 1 vertex
// ids, so the sort runs on 2b bits (42 for 2M vertices) instead of 64. The
// arcs are written in input order (edge by edge) and the sort is stable, so
// among equal arcs the input order survives: the first of a run is the first
// edge given, as clean() keeps it; an undirected edge's two arcs each collect
// every copy of that edge whichever way it was written, so merging runs of
// equal arcs is clean()'s duplicate merge done on both directions at once.
// The sorted, merged keys are the CSR: targets are their low bits and the
// offsets come from where each source's run begins.
//
// The sources are cut into ranges, from a histogram of arc sources, so that
// each range's arcs fit the memory rule (graph/gpu/detail/memory_budget.hpp:
// 16 B per input edge beyond the CSR) and the memory free; the ranges are
// built one after another, the input edges read once per range. A range's
// keys hold the source less the range's first (u - lo), so its sort runs on
// only the bits its sources need.
//
// The range size, from the rule: the input edges (8 B each, 12 B weighted)
// stay on the device through every pass, and the rest of the budget pays for
// one pass's arcs at pass_bytes_per_arc each (the keys and their alternates,
// 16 B; the weights and theirs, 8 B; the sum merge's 64-bit sums, 8 B; 2 B for
// CUB's scratch). Weighted and undirected, that is (16 - 12) / 26 of an arc
// per input edge, about one arc in thirteen: R-MAT 21 builds in ~14 passes.
// (A bin of sources with more arcs than a range holds is a range of its own,
// and over the rule by its excess: the histogram has 1024 bins, and R-MAT's
// densest holds ~6% of the arcs.)
//
// Each pass writes its merged arcs to CSR parts of their exact size (so no
// CSR is held at its size before merging); once the input is freed the parts
// are joined, one array at a time: 4 B per arc beyond the CSR at most, 8 B
// per input edge.
#include <algorithm>
#include <limits>

#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>

#include <vector>

#include "graph/gpu/detail/memory.hpp"
#include "graph/gpu/detail/memory_budget.hpp"
#include "graph/gpu/detail/sort.hpp"
#include "graph/gpu/pipeline.hpp"
#include "primitives/common/error.hpp"
#include "primitives/common/launch.hpp"
#include "primitives/common/nvtx.hpp"

namespace graphkit {
namespace {

constexpr std::uint64_t kNoEdge = std::numeric_limits<std::uint64_t>::max();  // no overflowing edge

struct arc_layout {
  int bits;        // target bits in a key
  bool both_ways;  // undirected: two arcs per edge
  bool drop_loops;
};

/// Edge (u, v)'s arcs as keys, in placement order; returns how many (0-2).
__device__ int arcs_of(vertex_t u, vertex_t v, const arc_layout& layout, std::uint64_t (&keys)[2]) {
  if (u == v) {
    if (layout.drop_loops) return 0;
    keys[0] = (std::uint64_t{u} << layout.bits) | v;
    return 1;
  }
  keys[0] = (std::uint64_t{u} << layout.bits) | v;
  if (!layout.both_ways) return 1;
  keys[1] = (std::uint64_t{v} << layout.bits) | u;
  return 2;
}

constexpr int kHistogramBins = 1024;

/// How many arcs start in each of kHistogramBins source bins (source >> shift),
/// and the self-loops dropped.
__global__ void histogram_sources_kernel(const vertex_t* src, const vertex_t* dst, std::size_t m, arc_layout layout,
                                         int shift, unsigned long long* bins, unsigned long long* dropped_loops) {
  __shared__ unsigned long long local[kHistogramBins];
  for (int b = threadIdx.x; b < kHistogramBins; b += blockDim.x) local[b] = 0;
  __syncthreads();
  const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  bool dropped = false;
  if (i < m) {
    std::uint64_t keys[2];
    const int count = arcs_of(src[i], dst[i], layout, keys);
    dropped = count == 0;
    for (int k = 0; k < count; ++k) atomicAdd(&local[(keys[k] >> layout.bits) >> shift], 1ull);
  }
  const int drops = __syncthreads_count(dropped);
  for (int b = threadIdx.x; b < kHistogramBins; b += blockDim.x)
    if (local[b] != 0) atomicAdd(&bins[b], local[b]);
  if (threadIdx.x == 0 && drops != 0) atomicAdd(dropped_loops, static_cast<unsigned long long>(drops));
}

/// The arcs of edges in this block whose source is in [lo, hi), keyed by
/// (u - lo, v).
__device__ int arcs_in_range(const vertex_t* src, const vertex_t* dst, std::size_t m, const arc_layout& layout,
                             std::uint64_t lo, std::uint64_t hi, std::uint64_t (&keys)[2]) {
  const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (i >= m) return 0;
  std::uint64_t all[2];
  const int count = arcs_of(src[i], dst[i], layout, all);
  int kept = 0;
  for (int k = 0; k < count; ++k) {
    const std::uint64_t u = all[k] >> layout.bits;
    if (u >= lo && u < hi) keys[kept++] = all[k] - (lo << layout.bits);
  }
  return kept;
}

__global__ void count_range_arcs_kernel(const vertex_t* src, const vertex_t* dst, std::size_t m, arc_layout layout,
                                        std::uint64_t lo, std::uint64_t hi, std::uint64_t* block_counts) {
  using reduce = cub::BlockReduce<int, 256>;
  __shared__ typename reduce::TempStorage scratch;
  std::uint64_t keys[2];
  const int total = reduce(scratch).Sum(arcs_in_range(src, dst, m, layout, lo, hi, keys));
  if (threadIdx.x == 0) block_counts[blockIdx.x] = static_cast<std::uint64_t>(total);
}

/// Writes the range's arcs (and their edges' weights) at the block's offset,
/// in edge order: the order the stable sort keeps among equal arcs.
__global__ void expand_range_arcs_kernel(const vertex_t* src, const vertex_t* dst, const weight_t* weights,
                                         std::size_t m, arc_layout layout, std::uint64_t lo, std::uint64_t hi,
                                         const std::uint64_t* block_offsets, std::uint64_t* keys_out,
                                         weight_t* weights_out) {
  using scan = cub::BlockScan<int, 256>;
  __shared__ typename scan::TempStorage scratch;
  std::uint64_t keys[2];
  const int count = arcs_in_range(src, dst, m, layout, lo, hi, keys);
  int before = 0;
  scan(scratch).ExclusiveSum(count, before);
  const std::size_t at = block_offsets[blockIdx.x] + static_cast<std::size_t>(before);
  const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  for (int k = 0; k < count; ++k) {
    keys_out[at + k] = keys[k];
    if (weights) weights_out[at + k] = weights[i];
  }
}

/// Targets (and weights) of the range's merged arcs, keyed (u - lo, v), in
/// the range's CSR part, and offsets[v] = base + i for every source v in
/// [lo, hi] whose run starts at arc i (i == count stands for the range's
/// end); counts the self-loop arcs.
__global__ void lay_out_range_kernel(const std::uint64_t* keys, const weight_t* weights, std::size_t count, int bits,
                                     std::uint64_t lo, std::uint64_t hi, std::size_t base, vertex_t* targets,
                                     weight_t* weights_out, edge_t* offsets, unsigned long long* loop_arcs) {
  const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  bool loop = false;
  if (i <= count) {
    const std::uint64_t mask = (std::uint64_t{1} << bits) - 1;
    const std::uint64_t u = i < count ? lo + (keys[i] >> bits) : hi;
    const std::uint64_t before = i == 0 ? lo : lo + (keys[i - 1] >> bits) + 1;
    for (std::uint64_t v = before; v <= u; ++v) offsets[v] = base + i;
    if (i < count) {
      targets[i] = static_cast<vertex_t>(keys[i] & mask);
      if (weights) weights_out[i] = weights[i];
      loop = (keys[i] & mask) == u;
    }
  }
  const int loops = __syncthreads_count(loop);
  if (threadIdx.x == 0 && loops) atomicAdd(loop_arcs, static_cast<unsigned long long>(loops));
}

/// Sums back to 32 bits; the smallest arc (u <= v for undirected graphs, so
/// named as clean() names the edge) whose sum does not fit is recorded; keys
/// are (u - lo, v).
__global__ void narrow_sums_kernel(const std::int64_t* sums, const std::uint64_t* keys, std::size_t count, int bits,
                                   std::uint64_t lo, bool undirected, weight_t* out,
                                   unsigned long long* overflow_edge) {
  const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (i >= count) return;
  const std::int64_t s = sums[i];
  out[i] = static_cast<weight_t>(s);
  if (s <= std::numeric_limits<weight_t>::max() && s >= std::numeric_limits<weight_t>::min()) return;
  const std::uint64_t u = lo + (keys[i] >> bits), v = keys[i] & ((std::uint64_t{1} << bits) - 1);
  if (!undirected || u <= v) atomicMin(overflow_edge, static_cast<unsigned long long>((u << 32) | v));
}

__global__ void random_weights_kernel(weight_t* weights, std::size_t m, std::uint64_t seed, weight_t max_weight) {
  const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (i < m) weights[i] = random_weight(seed, i, max_weight);
}

/// The runs of equal arcs (keyed (u - lo, v)) merged as `keep` says, into the
/// alternates; returns the count.
std::size_t merge_duplicate_arcs(device_buffer<std::uint64_t>& keys, device_buffer<std::uint64_t>& keys_alt,
                                 device_buffer<weight_t>& weights, device_buffer<weight_t>& weights_alt,
                                 std::size_t arcs, int bits, std::uint64_t lo, bool undirected, duplicate_weight keep,
                                 cudaStream_t stream) {
  if (arcs == 0) return 0;  // an empty range (after a bin too large for one): no launch of 0 blocks
  if (weights.empty()) {
    const std::size_t count = detail::unique_keys(keys.data(), arcs, keys_alt.data(), stream);
    std::swap(keys, keys_alt);
    return count;
  }
  std::size_t count = 0;
  if (keep == duplicate_weight::first) {
    count = detail::unique_pairs_first(keys.data(), weights.data(), arcs, keys_alt.data(), weights_alt.data(), stream);
  } else if (keep == duplicate_weight::min) {
    count = detail::unique_pairs_min(keys.data(), weights.data(), arcs, keys_alt.data(), weights_alt.data(), stream);
  } else {
    device_buffer<std::int64_t> sums(arcs);
    count = detail::unique_pairs_sum(keys.data(), weights.data(), arcs, keys_alt.data(), sums.data(), stream);
    device_buffer<unsigned long long> overflow(1);
    overflow.fill_bytes(0xff, stream);
    narrow_sums_kernel<<<blocks_for(count), 256, 0, stream>>>(sums.data(), keys_alt.data(), count, bits, lo, undirected,
                                                              weights_alt.data(), overflow.data());
    GRAPHKIT_CHECK_LAUNCH();
    if (const auto bad = read_one(overflow.data(), stream); bad != kNoEdge)
      throw input_error("summed weight of duplicate edge (" + std::to_string(bad >> 32) + ", " +
                        std::to_string(bad & 0xffffffffu) + ") overflows 32 bits");
  }
  std::swap(keys, keys_alt);
  std::swap(weights, weights_alt);
  return count;
}

}  // namespace

void assign_random_weights(device_edges& g, std::uint64_t seed, weight_t max_weight, cudaStream_t stream) {
  g.weights = device_buffer<weight_t>(g.num_edges());
  if (g.num_edges() == 0) return;
  random_weights_kernel<<<blocks_for(g.num_edges()), 256, 0, stream>>>(g.weights.data(), g.num_edges(), seed,
                                                                       max_weight);
  GRAPHKIT_CHECK_LAUNCH();
}

namespace {

/// Source ranges [cuts[k], cuts[k + 1]) whose arcs each fit `capacity`, from
/// the histogram of arc sources (a bin with more arcs than that is a range
/// of its own: the allocation then says what it needed), and the most arcs
/// in one range.
struct source_ranges {
  std::vector<std::uint64_t> cuts{0};
  std::size_t largest = 0;
};

source_ranges cut_sources(const std::vector<unsigned long long>& bins, int shift, std::uint64_t n,
                          std::size_t capacity) {
  source_ranges r;
  std::size_t in_range = 0;
  for (std::size_t b = 0; b < bins.size(); ++b) {
    if (in_range > 0 && in_range + bins[b] > capacity && (std::uint64_t{b} << shift) < n) {
      r.cuts.push_back(std::uint64_t{b} << shift);
      r.largest = std::max(r.largest, in_range);
      in_range = 0;
    }
    in_range += bins[b];
  }
  r.cuts.push_back(n);
  r.largest = std::max(r.largest, in_range);
  return r;
}

/// Bytes a pass holds per arc of its range: the keys and their alternates,
/// the weights and theirs, the sum merge's 64-bit sums, and 2 for CUB's
/// scratch (the radix sort's look-back is ~0.25 B per key, the merges' tile
/// states less).
std::size_t pass_bytes_per_arc(bool weighted, bool sums) {
  return 2 * sizeof(std::uint64_t) + (weighted ? 2 * sizeof(weight_t) : 0) + (sums ? sizeof(std::int64_t) : 0) + 2;
}

/// Arcs a pass can sort in the memory free now, at `per_arc` bytes, with a
/// margin kept; at most 2^31 - 1, where CUB's selections count in 32 bits.
std::size_t arcs_that_fit(std::size_t per_arc) {
  std::size_t free = 0, total = 0;
  GRAPHKIT_CUDA_TRY(cudaMemGetInfo(&free, &total));
  const std::size_t margin = std::max<std::size_t>(free / 16, std::size_t{512} << 20);
  const std::size_t fit = free > margin ? (free - margin) / per_arc : 0;
  return std::min<std::size_t>(fit, std::numeric_limits<std::int32_t>::max());
}

/// The passes' CSR parts end to end, in one buffer of `total` (a single part
/// is taken as it is); the parts are freed.
template <class T>
device_buffer<T> joined(std::vector<device_buffer<T>>& parts, std::size_t total, cudaStream_t stream) {
  if (parts.size() == 1) return std::move(parts.front());
  device_buffer<T> all(total);
  std::size_t at = 0;
  for (const device_buffer<T>& part : parts) {
    if (!part.empty())
      GRAPHKIT_CUDA_TRY(cudaMemcpyAsync(all.data() + at, part.data(), part.bytes(), cudaMemcpyDeviceToDevice, stream));
    at += part.size();
  }
  parts.clear();
  return all;
}

}  // namespace

device_csr build_csr_device(device_edges&& g, const clean_options& options, clean_stats& stats,
                            std::size_t max_arcs_per_pass, cudaStream_t stream) {
  if (options.random_weights) assign_random_weights(g, options.seed, options.max_random_weight, stream);
  const vertex_t n = g.num_vertices;
  const std::size_t m = g.num_edges();
  const bool undirected = options.symmetrize || !g.directed;
  const bool weighted = g.weighted();
  const arc_layout layout{detail::bits_for(std::uint64_t{n} + 1), undirected, options.drop_self_loops};
  stats = {};
  stats.input_edges = m;

  device_csr out;
  out.num_vertices = n;
  out.directed = !undirected;
  out.offsets = device_buffer<edge_t>(std::size_t{n} + 1);
  if (m == 0) {
    out.offsets.fill_bytes(0, stream);
    return out;
  }
  // The arcs per source bin, and the self-loops dropped.
  const int shift = std::max(0, layout.bits - 10);
  device_buffer<unsigned long long> counters(kHistogramBins + 2);  // bins, dropped loops, loop arcs kept
  counters.fill_bytes(0, stream);
  histogram_sources_kernel<<<blocks_for(m), 256, 0, stream>>>(g.src.data(), g.dst.data(), m, layout, shift,
                                                              counters.data(), counters.data() + kHistogramBins);
  GRAPHKIT_CHECK_LAUNCH();
  std::vector<unsigned long long> bins(kHistogramBins + 1);
  GRAPHKIT_CUDA_TRY(
      cudaMemcpyAsync(bins.data(), counters.data(), bins.size() * sizeof bins[0], cudaMemcpyDeviceToHost, stream));
  GRAPHKIT_CUDA_TRY(cudaStreamSynchronize(stream));
  stats.self_loops_removed = bins.back();
  bins.pop_back();

  // As many source ranges as the memory rule (see the top of this file) and
  // the memory free need.
  device_buffer<std::uint64_t> block_offsets(std::size_t{blocks_for(m)} + 1);
  const bool sums = weighted && options.drop_duplicates && options.keep == duplicate_weight::sum;
  const std::size_t per_arc = pass_bytes_per_arc(weighted, sums);
  const std::size_t held = g.src.bytes() + g.dst.bytes() + g.weights.bytes() + block_offsets.bytes() +
                           counters.bytes() + detail::kSmallScratch;
  std::size_t capacity = std::min(arcs_that_fit(per_arc), detail::workspace_bytes(m, held) / per_arc);
  if (max_arcs_per_pass != 0) capacity = std::min(capacity, max_arcs_per_pass);
  const source_ranges ranges = cut_sources(bins, shift, n, std::max<std::size_t>(capacity, 1));
  const std::vector<std::uint64_t>& cuts = ranges.cuts;
  const std::size_t largest = ranges.largest;
  detail::require_device_memory("build_csr", m, per_arc * largest);
  device_buffer<std::uint64_t> keys(largest), keys_alt(largest);
  device_buffer<weight_t> weights(weighted ? largest : 0), weights_alt(weighted ? largest : 0);
  std::vector<device_buffer<vertex_t>> target_parts;
  std::vector<device_buffer<weight_t>> weight_parts;
  std::size_t base = 0;
  for (std::size_t k = 0; k + 1 < cuts.size(); ++k) {
    nvtx_range range("graphkit::build: a source range");
    const std::uint64_t lo = cuts[k], hi = cuts[k + 1];
    block_offsets.fill_bytes(0, stream);
    count_range_arcs_kernel<<<blocks_for(m), 256, 0, stream>>>(g.src.data(), g.dst.data(), m, layout, lo, hi,
                                                               block_offsets.data());
    GRAPHKIT_CHECK_LAUNCH();
    detail::exclusive_scan(block_offsets.data(), block_offsets.size(), stream);
    std::size_t count = read_one(block_offsets.data() + blocks_for(m), stream);
    expand_range_arcs_kernel<<<blocks_for(m), 256, 0, stream>>>(g.src.data(), g.dst.data(),
                                                                weighted ? g.weights.data() : nullptr, m, layout, lo,
                                                                hi, block_offsets.data(), keys.data(), weights.data());
    GRAPHKIT_CHECK_LAUNCH();
    const int key_bits = layout.bits + detail::bits_for(hi - lo);  // (u - lo, v)
    if (weighted) detail::sort_pairs_ping_pong(keys, keys_alt, weights, weights_alt, count, key_bits, stream);
    else detail::sort_keys_ping_pong(keys, keys_alt, count, key_bits, stream);
    if (options.drop_duplicates)
      count = merge_duplicate_arcs(keys, keys_alt, weights, weights_alt, count, layout.bits, lo, undirected,
                                   options.keep, stream);
    target_parts.emplace_back(count);
    weight_parts.emplace_back(weighted ? count : 0);
    lay_out_range_kernel<<<blocks_for(count + 1), 256, 0, stream>>>(
        keys.data(), weighted ? weights.data() : nullptr, count, layout.bits, lo, hi, base, target_parts.back().data(),
        weight_parts.back().data(), out.offsets.data(), counters.data() + kHistogramBins + 1);
    GRAPHKIT_CHECK_LAUNCH();
    base += count;
  }
  nvtx_range join_range("graphkit::build: inputs freed, CSR parts joined");
  g = {};
  keys = {}, keys_alt = {}, weights = {}, weights_alt = {};
  out.targets = joined(target_parts, base, stream);
  if (weighted) out.weights = joined(weight_parts, base, stream);
  if (options.drop_duplicates) {
    // Edges kept: every arc once when directed; when undirected a self-loop is
    // one arc and any other edge two.
    const std::size_t loop_arcs = read_one(counters.data() + kHistogramBins + 1, stream);
    const std::size_t edges = undirected ? (base - loop_arcs) / 2 + loop_arcs : base;
    stats.duplicates_removed = m - stats.self_loops_removed - edges;
  }
  return out;
}

}  // namespace graphkit
