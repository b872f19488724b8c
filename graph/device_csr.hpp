// CSR in device memory, and the trivially copyable view that kernels take.
#pragma once

#include "graph/csr.hpp"
#include "graph/host_transfer.hpp"
#include "primitives/common/device_buffer.hpp"

namespace graphkit {

/// What a kernel receives: raw pointers and sizes, passed by value.
struct device_csr_view {
  vertex_t num_vertices;
  edge_t num_edges;
  const edge_t* offsets;
  const vertex_t* targets;
  const weight_t* weights;  // nullptr when unweighted
};

struct device_csr {
  vertex_t num_vertices = 0;
  bool directed = true;
  device_buffer<edge_t> offsets;
  device_buffer<vertex_t> targets;
  device_buffer<weight_t> weights;

  [[nodiscard]] edge_t num_edges() const noexcept { return targets.size(); }
  [[nodiscard]] device_csr_view view() const noexcept {
    return {num_vertices, num_edges(), offsets.data(), targets.data(), weights.empty() ? nullptr : weights.data()};
  }
};

/// Copies a host CSR to the device (original ids stay on the host), staged
/// through pinned memory (graph/host_transfer.hpp); synchronous, and in
/// place for work enqueued on `stream` afterwards.
inline device_csr to_device(const csr_graph& g, cudaStream_t stream = nullptr) {
  const transfer_options o = on_stream(stream);
  device_csr d;
  d.num_vertices = g.num_vertices;
  d.directed = g.directed;
  d.offsets = upload(std::span<const edge_t>(g.offsets), o);
  d.targets = upload(std::span<const vertex_t>(g.targets), o);
  d.weights = upload(std::span<const weight_t>(g.weights), o);
  return d;
}

/// Copies a device CSR back (the GPU build, and tests checking it), staged;
/// after all work queued so far.
inline csr_graph to_host(const device_csr& d, cudaStream_t stream = nullptr) {
  const transfer_options o = on_stream(stream);
  csr_graph g;
  g.num_vertices = d.num_vertices;
  g.directed = d.directed;
  g.offsets = download(d.offsets, o);
  g.targets = download(d.targets, o);
  g.weights = download(d.weights, o);
  return g;
}

}  // namespace graphkit
