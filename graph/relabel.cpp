#include "graph/relabel.hpp"

#include <algorithm>
#include <atomic>
#include <numeric>

#include "graph/detail/parallel.hpp"
#include "graph/host_transfer.hpp"
#include "primitives/common/error.hpp"

namespace graphkit {
namespace {

constexpr vertex_t kUnassigned = kMaxVertices;

template <class Fn>
void for_each_edge_parallel(std::size_t m, Fn&& fn) {
  const std::size_t parts = m < (1 << 20) ? 1 : detail::host_threads();
  detail::parallel_parts(parts, [&](std::size_t p) {
    auto [lo, hi] = detail::part_range(m, parts, p);
    for (std::size_t i = lo; i < hi; ++i) fn(i);
  });
}

void check_count(std::size_t n) {
  if (n >= kMaxVertices)
    throw input_error("graph has " + std::to_string(n) + " distinct vertex ids; at most " +
                      std::to_string(kMaxVertices - 1) + " are supported (32-bit vertex ids)");
}

// Ids in [0, max] with max small next to the edge count: a direct table.
relabeled_edges relabel_dense(std::span<const std::uint64_t> src, std::span<const std::uint64_t> dst,
                              std::uint64_t max_id, relabel_order order) {
  const std::size_t m = src.size();
  std::vector<vertex_t> table(max_id + 1, kUnassigned);
  relabeled_edges out;
  vertex_t next = 0;
  if (order == relabel_order::sorted) {
    // Relaxed atomic stores of one value: threads may race to mark an id.
    for_each_edge_parallel(m, [&](std::size_t i) {
      std::atomic_ref<vertex_t>(table[src[i]]).store(0, std::memory_order_relaxed);
      std::atomic_ref<vertex_t>(table[dst[i]]).store(0, std::memory_order_relaxed);
    });
    for (std::uint64_t id = 0; id <= max_id; ++id)
      if (table[id] != kUnassigned) table[id] = next++;
    if (next != max_id + 1) {
      out.original_ids.reserve(next);
      for (std::uint64_t id = 0; id <= max_id; ++id)
        if (table[id] != kUnassigned) out.original_ids.push_back(id);
    }
  } else {
    for (std::size_t i = 0; i < m; ++i) {
      for (const std::uint64_t id : {src[i], dst[i]}) {
        if (table[id] == kUnassigned) {
          table[id] = next++;
          out.original_ids.push_back(id);
        }
      }
    }
    bool identity = true;
    for (vertex_t v = 0; v < next && identity; ++v) identity = out.original_ids[v] == v;
    if (identity) out.original_ids.clear();
  }
  out.num_vertices = next;
  out.src.resize(m);
  out.dst.resize(m);
  for_each_edge_parallel(m, [&](std::size_t i) {
    out.src[i] = table[src[i]];
    out.dst[i] = table[dst[i]];
  });
  return out;
}

// Arbitrary 64-bit ids: sort the distinct ids and binary-search them.
relabeled_edges relabel_sparse(std::span<const std::uint64_t> src, std::span<const std::uint64_t> dst,
                               relabel_order order) {
  const std::size_t m = src.size();
  std::vector<std::uint64_t> ids(src.begin(), src.end());
  ids.insert(ids.end(), dst.begin(), dst.end());
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  check_count(ids.size());
  auto rank = [&](std::uint64_t id) {
    return static_cast<vertex_t>(std::lower_bound(ids.begin(), ids.end(), id) - ids.begin());
  };
  std::vector<vertex_t> new_id;         // by rank; empty means new id == rank
  std::vector<std::uint64_t> original;  // by new id, when not the sorted ids
  if (order == relabel_order::first_seen) {
    new_id.assign(ids.size(), kUnassigned);
    original.resize(ids.size());
    vertex_t next = 0;
    for (std::size_t i = 0; i < m; ++i) {
      for (const std::uint64_t id : {src[i], dst[i]}) {
        vertex_t& slot = new_id[rank(id)];
        if (slot == kUnassigned) {
          original[next] = id;
          slot = next++;
        }
      }
    }
  }
  relabeled_edges out;
  out.num_vertices = static_cast<vertex_t>(ids.size());
  out.src.resize(m);
  out.dst.resize(m);
  for_each_edge_parallel(m, [&](std::size_t i) {
    out.src[i] = new_id.empty() ? rank(src[i]) : new_id[rank(src[i])];
    out.dst[i] = new_id.empty() ? rank(dst[i]) : new_id[rank(dst[i])];
  });
  out.original_ids = new_id.empty() ? std::move(ids) : std::move(original);
  bool identity = true;
  for (std::size_t v = 0; v < out.original_ids.size() && identity; ++v) identity = out.original_ids[v] == v;
  if (identity) out.original_ids.clear();
  return out;
}

}  // namespace

relabeled_edges relabel(std::span<const std::uint64_t> src, std::span<const std::uint64_t> dst, relabel_order order) {
  GRAPHKIT_EXPECTS(src.size() == dst.size(), "relabel: src and dst differ in length");
  std::uint64_t max_id = 0;
  for (std::size_t i = 0; i < src.size(); ++i) max_id = std::max({max_id, src[i], dst[i]});
  // A table of max_id + 1 entries pays when it is no larger than the ids themselves.
  const bool dense = src.empty() || (max_id < kMaxVertices && max_id <= 2 * src.size() + (1 << 16));
  return dense ? relabel_dense(src, dst, src.empty() ? 0 : max_id, order) : relabel_sparse(src, dst, order);
}

std::vector<original_id_t> one_based_ids(std::uint64_t n) {
  std::vector<original_id_t> ids = prepared_vector<original_id_t>(n);
  const std::size_t parts = std::min<std::size_t>(detail::host_threads(), n / (1 << 16) + 1);
  detail::parallel_parts(parts, [&](std::size_t p) {
    const auto [lo, hi] = detail::part_range(n, parts, p);
    std::iota(ids.begin() + static_cast<std::ptrdiff_t>(lo), ids.begin() + static_cast<std::ptrdiff_t>(hi),
              original_id_t{lo + 1});
  });
  return ids;
}

}  // namespace graphkit
