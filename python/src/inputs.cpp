#include "python/src/inputs.hpp"

#include <pybind11/pybind11.h>

#include "graph/host_transfer.hpp"

namespace graphkit::python {

void check_interrupt() {
  pybind11::gil_scoped_acquire gil;
  if (PyErr_CheckSignals() != 0) throw pybind11::error_already_set();
}

namespace {

struct edge_columns {
  column<vertex_t, host_array<vertex_t>> src, dst;
  column<weight_t, host_array<weight_t>> weights;
};

edge_columns check_edges(const graph_input& in, bool nonnegative_weights, bool keep_weights) {
  if (in.first.size != in.second.size)
    throw input_error("src has " + std::to_string(in.first.size) + " ids but dst has " +
                      std::to_string(in.second.size));
  if (in.weighted && keep_weights && in.weights.size != in.first.size)
    throw input_error("weights has " + std::to_string(in.weights.size) + " values for " +
                      std::to_string(in.first.size) + " edges");
  using ids = host_array<vertex_t>;
  edge_columns c{vertex_column<ids>(in.first, in.num_vertices), vertex_column<ids>(in.second, in.num_vertices), {}};
  if (in.weighted && keep_weights) c.weights = weight_column<host_array<weight_t>>(in.weights, nonnegative_weights);
  return c;
}

}  // namespace

apps::input_edges load_edges(const graph_input& in, apps::common_options& o, apps::report& r, apps::input_info& info,
                             bool nonnegative_weights, bool keep_weights) {
  if (in.what == graph_input::kind::file) {
    o.input = in.path;
    o.format = in.format;
    return apps::load_edges(o, r, info);
  }
  GRAPHKIT_EXPECTS(in.what == graph_input::kind::edges, "python::load_edges takes a file or edge arrays");
  info.name = "edge arrays";
  apps::input_edges out;
  out.host.num_vertices = in.num_vertices;
  out.host.directed = in.directed;
  {
    apps::phase_timer timer(r, "load");
    edge_columns c = check_edges(in, nonnegative_weights, keep_weights);
    if (o.device == "gpu") {
      out.device.num_vertices = in.num_vertices;
      out.device.directed = in.directed;
      out.device.src = upload(c.src.values);
      out.device.dst = upload(c.dst.values);
      if (!c.weights.values.empty()) out.device.weights = upload(c.weights.values);
      out.on_device = true;
    } else {
      out.host.src = c.src.take();
      out.host.dst = c.dst.take();
      out.host.weights = c.weights.take();
    }
  }
  r.set("input", info.name);
  r.set("input edges", std::uint64_t{out.num_edges()});
  return out;
}

apps::built_graph load_csr(const graph_input& in, const apps::common_options& o, apps::report& r) {
  GRAPHKIT_EXPECTS(in.what == graph_input::kind::csr, "python::load_csr takes CSR arrays");
  apps::built_graph out;
  {
    apps::phase_timer timer(r, "load");
    const vertex_t n = in.num_vertices;
    if (in.first.size != std::size_t{n} + 1)
      throw input_error("indptr has " + std::to_string(in.first.size) + " entries for " + std::to_string(n) +
                        " rows (expected rows + 1)");
    column<edge_t> offsets = offset_column(in.first);
    const std::span<const edge_t> off = offsets.values;
    if (off.front() != 0) throw input_error("indptr[0] = " + std::to_string(off.front()) + ": expected 0");
    for (std::size_t v = 0; v < n; ++v)
      if (off[v + 1] < off[v])
        throw input_error("indptr[" + std::to_string(v + 1) + "] = " + std::to_string(off[v + 1]) +
                          " is below indptr[" + std::to_string(v) + "] = " + std::to_string(off[v]));
    if (off.back() != in.second.size)
      throw input_error("indptr ends at " + std::to_string(off.back()) + " but indices has " +
                        std::to_string(in.second.size) + " entries");
    if (in.weighted && in.weights.size != in.second.size)
      throw input_error("data has " + std::to_string(in.weights.size) + " values for " +
                        std::to_string(in.second.size) + " indices");
    out.host.num_vertices = n;
    out.host.directed = true;
    out.host.offsets = offsets.take();
    if (o.device == "gpu") {
      // Checked and converted on their way through the pinned lanes.
      out.device.num_vertices = n;
      out.device.directed = true;
      out.device.offsets = upload(std::span<const edge_t>(out.host.offsets));
      out.device.targets = to_device_column<vertex_t>(in.second, vertex_ids{n});
      if (in.weighted) out.device.weights = to_device_column<weight_t>(in.weights, integer_weights{true});
    } else {
      out.host.targets = vertex_column(in.second, n).take();
      if (in.weighted) out.host.weights = weight_column(in.weights, true).take();
    }
  }
  out.stored_edges = out.host.num_edges();
  r.set("input", std::string("CSR arrays"));
  r.set("vertices", std::uint64_t{out.host.num_vertices});
  r.set("edges (stored)", std::uint64_t{out.host.num_edges()});
  return out;
}

coo_graph host_edges(const graph_input& in) {
  GRAPHKIT_EXPECTS(in.what == graph_input::kind::edges, "python::host_edges takes edge arrays");
  edge_columns c = check_edges(in, false, true);
  coo_graph g;
  g.num_vertices = in.num_vertices;
  g.directed = in.directed;
  g.src = c.src.take();
  g.dst = c.dst.take();
  g.weights = c.weights.take();
  return g;
}

}  // namespace graphkit::python
