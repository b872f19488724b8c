#include "graph/build.hpp"

#include <algorithm>
#include <limits>
#include <numeric>
#include <utility>

#include "graph/detail/parallel.hpp"
#include "primitives/common/error.hpp"

namespace graphkit {

void assign_random_weights(coo_graph& g, std::uint64_t seed, weight_t max_weight) {
  g.weights.resize(g.num_edges());
  for (std::size_t i = 0; i < g.weights.size(); ++i) g.weights[i] = random_weight(seed, i, max_weight);
}

namespace {

std::uint64_t pack(vertex_t u, vertex_t v) { return (std::uint64_t{u} << 32) | v; }

void drop_self_loops(coo_graph& g, clean_stats& stats) {
  std::size_t out = 0;
  const bool weighted = g.weighted();
  for (std::size_t i = 0; i < g.src.size(); ++i) {
    if (g.src[i] == g.dst[i]) continue;
    g.src[out] = g.src[i];
    g.dst[out] = g.dst[i];
    if (weighted) g.weights[out] = g.weights[i];
    ++out;
  }
  stats.self_loops_removed = g.src.size() - out;
  g.src.resize(out);
  g.dst.resize(out);
  if (weighted) g.weights.resize(out);
}

// Sorting indices by (key, position) keeps the "first" duplicate well defined.
void drop_duplicates(coo_graph& g, duplicate_weight keep, clean_stats& stats) {
  const std::size_t m = g.src.size();
  std::vector<std::uint64_t> keys(m);
  for (std::size_t i = 0; i < m; ++i) keys[i] = pack(g.src[i], g.dst[i]);
  if (!g.weighted()) {
    std::sort(keys.begin(), keys.end());
    keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
    for (std::size_t i = 0; i < keys.size(); ++i) {
      g.src[i] = static_cast<vertex_t>(keys[i] >> 32);
      g.dst[i] = static_cast<vertex_t>(keys[i]);
    }
  } else {
    std::vector<std::size_t> order(m);
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return keys[a] < keys[b]; });
    host_array<vertex_t> src, dst;
    host_array<weight_t> weights;
    src.reserve(m);
    dst.reserve(m);
    weights.reserve(m);
    for (std::size_t i = 0; i < m;) {
      std::size_t j = i;
      std::int64_t combined = g.weights[order[i]];
      while (++j < m && keys[order[j]] == keys[order[i]]) {
        const std::int64_t w = g.weights[order[j]];
        if (keep == duplicate_weight::min) combined = std::min(combined, w);
        if (keep == duplicate_weight::sum) combined += w;
      }
      if (combined > std::numeric_limits<weight_t>::max() || combined < std::numeric_limits<weight_t>::min()) {
        throw input_error("summed weight of duplicate edge (" + std::to_string(g.src[order[i]]) + ", " +
                          std::to_string(g.dst[order[i]]) + ") overflows 32 bits");
      }
      src.push_back(g.src[order[i]]);
      dst.push_back(g.dst[order[i]]);
      weights.push_back(static_cast<weight_t>(combined));
      i = j;
    }
    g.src = std::move(src);
    g.dst = std::move(dst);
    g.weights = std::move(weights);
  }
  const std::size_t kept = g.weighted() ? g.src.size() : keys.size();
  stats.duplicates_removed = m - kept;
  g.src.resize(kept);
  g.dst.resize(kept);
}

}  // namespace

clean_stats clean(coo_graph& g, const clean_options& options) {
  clean_stats stats;
  stats.input_edges = g.num_edges();
  if (options.random_weights) assign_random_weights(g, options.seed, options.max_random_weight);
  if (options.symmetrize) g.directed = false;
  if (!g.directed) {
    for (std::size_t i = 0; i < g.src.size(); ++i)
      if (g.src[i] > g.dst[i]) std::swap(g.src[i], g.dst[i]);
  }
  if (options.drop_self_loops) drop_self_loops(g, stats);
  if (options.drop_duplicates) drop_duplicates(g, options.keep, stats);
  return stats;
}

csr_graph to_csr(coo_graph&& g) {
  csr_graph out;
  const vertex_t n = g.num_vertices;
  const bool both_ways = !g.directed;
  const bool weighted = g.weighted();
  out.num_vertices = n;
  out.directed = g.directed;
  out.original_ids = std::move(g.original_ids);

  std::vector<edge_t> offsets(std::size_t{n} + 1, 0);
  for (std::size_t i = 0; i < g.src.size(); ++i) {
    ++offsets[g.src[i] + 1];
    if (both_ways && g.src[i] != g.dst[i]) ++offsets[g.dst[i] + 1];
  }
  std::partial_sum(offsets.begin(), offsets.end(), offsets.begin());

  std::vector<vertex_t> targets(offsets[n]);
  std::vector<weight_t> weights(weighted ? offsets[n] : 0);
  std::vector<edge_t> cursor(offsets.begin(), offsets.end() - 1);
  auto place = [&](vertex_t u, vertex_t v, std::size_t i) {
    const edge_t at = cursor[u]++;
    targets[at] = v;
    if (weighted) weights[at] = g.weights[i];
  };
  for (std::size_t i = 0; i < g.src.size(); ++i) {
    place(g.src[i], g.dst[i], i);
    if (both_ways && g.src[i] != g.dst[i]) place(g.dst[i], g.src[i], i);
  }
  g = coo_graph{};  // release the edge list before the sort's scratch space

  // Sort each neighbour list; lists are short on average, so the per-vertex
  // work is split over threads by vertex ranges.
  const std::size_t parts = n < 4096 ? 1 : detail::host_threads();
  detail::parallel_parts(parts, [&](std::size_t p) {
    auto [lo, hi] = detail::part_range(n, parts, p);
    std::vector<std::pair<vertex_t, weight_t>> scratch;
    for (std::size_t v = lo; v < hi; ++v) {
      vertex_t* first = targets.data() + offsets[v];
      vertex_t* last = targets.data() + offsets[v + 1];
      if (!weighted) {
        std::sort(first, last);
        continue;
      }
      scratch.clear();
      for (edge_t e = offsets[v]; e < offsets[v + 1]; ++e) scratch.emplace_back(targets[e], weights[e]);
      std::stable_sort(scratch.begin(), scratch.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
      for (std::size_t k = 0; k < scratch.size(); ++k) {
        targets[offsets[v] + k] = scratch[k].first;
        weights[offsets[v] + k] = scratch[k].second;
      }
    }
  });
  out.offsets = std::move(offsets);
  out.targets = std::move(targets);
  out.weights = std::move(weights);
  return out;
}

}  // namespace graphkit
