// The GPU edge-list pipeline: raw edges to clean CSR on the GPU with the
// project's lock-free hash table and multisplit. Each step has the same
// contract as its host counterpart (relabel, clean, to_csr) and must give the
// same result; tests/graph/pipeline_gpu_test.cu holds them to it.
//
//   relabel_on_gpu   64-bit ids -> dense 0..n-1: every endpoint into a hash
//                    table, the distinct ids gathered from its slots, ordered
//                    (sorted, or by first appearance), their ranks written
//                    back, every endpoint translated by one lookup;
//   clean_on_gpu     (u, v) packed into 64-bit keys (min, max for undirected
//                    edges), self-loops dropped, duplicates merged in a hash
//                    table whose slot index keys the kept weight (min, sum, or
//                    the first position's), the survivors sorted by (u, v);
//   build_csr_device clean() and to_csr() in one: the arcs (both directions of
//                    undirected edges) as (source, target) keys, one stable
//                    radix sort, runs of equal arcs merged, the CSR read off
//                    the sorted keys (graph/gpu/build_gpu.cu says why that is
//                    clean()'s result); to_csr_on_gpu is it without cleaning.
//
// Each step has a device form (edges stay on the GPU from one step to the
// next, as in the apps' build and the benchmark) and a host form that copies
// in and out around it (as the tests and the dedup app use it).
//
// Inputs must fit on the device; when they do not, the calls throw a
// device_memory_error that states the bytes asked for and the bytes free.
//
// Every call takes the stream its device work is enqueued on (kernels, CUB,
// copies); the default is the legacy default stream. A call waits for its
// stream only where a result comes back to the host (a count, a size), so its
// device results are ready for later work on the same stream; work on
// another stream must wait for it (an event). Large host <-> device copies
// (to_device, to_host, relabel_on_gpu's ids) still wait for the whole device
// first (graph/host_transfer.hpp), so two pipelines on two streams take turns
// at those.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <span>
#include <vector>

#include "graph/build.hpp"
#include "graph/coo.hpp"
#include "graph/device_csr.hpp"
#include "graph/relabel.hpp"
#include "primitives/common/device_buffer.hpp"

namespace graphkit {

/// An edge list on the device with dense vertex ids.
struct device_edges {
  vertex_t num_vertices = 0;
  bool directed = true;
  device_buffer<vertex_t> src, dst;
  device_buffer<weight_t> weights;  ///< empty when unweighted
  [[nodiscard]] std::size_t num_edges() const noexcept { return src.size(); }
  [[nodiscard]] bool weighted() const noexcept { return !weights.empty(); }
};

/// `ids` holds the 2E raw endpoint ids, all sources then all destinations.
/// Returns the dense edges; original_ids (on the host) as in relabel().
device_edges relabel_device(const device_buffer<std::uint64_t>& ids, relabel_order order,
                            std::vector<original_id_t>& original_ids, cudaStream_t stream = nullptr);

/// clean_on_gpu on device edges, in place (random weights are the caller's).
clean_stats clean_device(device_edges& g, const clean_options& options, cudaStream_t stream = nullptr);

/// clean() then to_csr() on device edges, which it consumes: symmetrize,
/// self-loops and duplicates as `options` say (random weights too), the CSR
/// with sorted neighbour lists. `stats` as clean() reports them. Where the
/// arcs do not fit in one sort, source ranges are built one after another;
/// `max_arcs_per_pass` caps a range's arcs (0: as GPU memory allows).
device_csr build_csr_device(device_edges&& g, const clean_options& options, clean_stats& stats,
                            std::size_t max_arcs_per_pass = 0, cudaStream_t stream = nullptr);

/// Replaces g's weights with random_weight(seed, i, max_weight), on the device.
void assign_random_weights(device_edges& g, std::uint64_t seed, weight_t max_weight = 255,
                           cudaStream_t stream = nullptr);

/// Sum, minimum and maximum of a device CSR's weights (1, 1, 1 per arc when
/// unweighted): what the solvers' heuristics need, without a host copy.
struct weight_summary {
  double sum = 0;
  weight_t min = 1, max = 1;
};
weight_summary summarize_weights(const device_csr& g, cudaStream_t stream = nullptr);

/// The sum over vertices of the squared out-degree, exact: the degree
/// moment SSSP's default delta and the clustering coefficient's wedges need,
/// without a host copy of the offsets.
std::uint64_t sum_squared_degrees(const device_csr& g, cudaStream_t stream = nullptr);

/// Copies between the host and the device forms (the host graph's
/// original_ids stay where they are).
device_edges to_device(const coo_graph& g, cudaStream_t stream = nullptr);
void to_host(device_edges&& g, coo_graph& out, cudaStream_t stream = nullptr);

/// As relabel(): throws input_error past 2^32 - 1 distinct ids; original_ids
/// is empty when the mapping is the identity.
relabeled_edges relabel_on_gpu(std::span<const std::uint64_t> src, std::span<const std::uint64_t> dst,
                               relabel_order order, cudaStream_t stream = nullptr);

/// As clean() with options.drop_duplicates set (it throws graphkit::error
/// otherwise): random weights, symmetrize, self-loops, duplicates, output
/// sorted by (src, dst).
clean_stats clean_on_gpu(coo_graph& g, const clean_options& options, cudaStream_t stream = nullptr);

/// As to_csr(): sorted neighbour lists, undirected edges stored both ways, a
/// self-loop once; the CSR stays on the device (original ids are the caller's).
device_csr to_csr_on_gpu(const coo_graph& g, cudaStream_t stream = nullptr);

}  // namespace graphkit
