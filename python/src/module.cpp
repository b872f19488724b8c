// graphkit._graphkit: the extension module under python/graphkit/. It takes
// plain arguments (a path, or numpy arrays with their sizes); the package's
// __init__.py turns scipy matrices and networkx graphs into these and the
// returned dicts into its result types.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "primitives/common/device.hpp"
#include "primitives/common/error.hpp"
#include "python/src/calls.hpp"

namespace py = pybind11;
using namespace graphkit;
using namespace graphkit::python;

namespace {

/// A 1-D C-contiguous array's memory; the Python layer makes arrays contiguous
/// (a copy only where they were not) before they come here.
raw_column raw_of(const py::array& a, const char* name) {
  if (a.ndim() != 1)
    throw input_error(std::string(name) + ": expected a 1-D array, got " + std::to_string(a.ndim()) + "-D");
  // dtype's kind and itemsize through Python, not pybind11's accessors: those
  // read numpy 1's descriptor layout, which numpy 2 changed (pybind11 < 2.12).
  const auto itemsize = a.attr("itemsize").cast<std::size_t>();
  const auto kind = a.attr("dtype").attr("kind").cast<std::string>();
  if (a.size() > 1 && a.strides(0) != static_cast<py::ssize_t>(itemsize))
    throw input_error(std::string(name) + ": expected a contiguous array (numpy.ascontiguousarray makes one)");
  return {a.data(), static_cast<std::size_t>(a.size()), kind.empty() ? '?' : kind[0], itemsize, name};
}

/// The arrays a graph_input views stay alive as long as the input object does.
struct py_graph_input : graph_input {
  py::object keep[3];
};

/// The optional weights column (None: unweighted).
void set_weights(py_graph_input& in, const py::object& weights, const char* name) {
  if (weights.is_none()) return;
  const auto w = weights.cast<py::array>();
  in.weights = raw_of(w, name);
  in.weighted = true;
  in.keep[2] = w;
}

vertex_t vertex_count(std::uint64_t n) {
  if (n > kMaxVertices) throw input_error(std::to_string(n) + " vertices: graphkit takes at most 2^32 - 1");
  return static_cast<vertex_t>(n);
}

call_options options_of(bool symmetrize, bool random_weights, std::uint64_t seed, const std::string& device,
                        bool validate) {
  return {symmetrize, random_weights, seed, device, validate};
}

}  // namespace

PYBIND11_MODULE(_graphkit, m) {
  m.doc() = "graphkit's GPU graph apps (use the graphkit package, not this module)";

  // Base first: pybind11 tries the translators registered last first.
  py::register_exception<graphkit::error>(m, "InternalError", PyExc_RuntimeError);
  py::register_exception<input_error>(m, "InputError", PyExc_ValueError);
  py::register_exception<resource_error>(m, "ResourceError", PyExc_MemoryError);

  py::class_<py_graph_input>(m, "Input")
      .def_static(
          "file",
          [](const std::string& path, const std::string& format) {
            py_graph_input in;
            in.what = graph_input::kind::file;
            in.path = path;
            in.format = format;
            return in;
          },
          py::arg("path"), py::arg("format") = "")
      .def_static(
          "edges",
          [](std::uint64_t n, const py::array& src, const py::array& dst, const py::object& weights, bool directed) {
            py_graph_input in;
            in.what = graph_input::kind::edges;
            in.num_vertices = vertex_count(n);
            in.directed = directed;
            in.first = raw_of(src, "src");
            in.second = raw_of(dst, "dst");
            in.keep[0] = src, in.keep[1] = dst;
            set_weights(in, weights, "weights");
            return in;
          },
          py::arg("num_vertices"), py::arg("src"), py::arg("dst"), py::arg("weights"), py::arg("directed"))
      .def_static(
          "csr",
          [](std::uint64_t n, const py::array& indptr, const py::array& indices, const py::object& data) {
            py_graph_input in;
            in.what = graph_input::kind::csr;
            in.num_vertices = vertex_count(n);
            in.first = raw_of(indptr, "indptr");
            in.second = raw_of(indices, "indices");
            in.keep[0] = indptr, in.keep[1] = indices;
            set_weights(in, data, "data");
            return in;
          },
          py::arg("num_vertices"), py::arg("indptr"), py::arg("indices"), py::arg("data"));

  m.def(
      "sssp",
      [](const py_graph_input& in, const std::vector<original_id_t>& sources, std::size_t random_sources,
         bool symmetrize, bool random_weights, std::uint64_t seed, const std::string& device, bool validate,
         const std::string& delta) {
        return run_sssp(in, sources, random_sources, options_of(symmetrize, random_weights, seed, device, validate),
                        delta);
      },
      py::arg("input"), py::arg("sources"), py::arg("random_sources"), py::arg("symmetrize"), py::arg("random_weights"),
      py::arg("seed"), py::arg("device"), py::arg("validate"), py::arg("delta"));

  m.def(
      "triangles",
      [](const py_graph_input& in, bool per_vertex, const std::string& method, bool random_weights, std::uint64_t seed,
         const std::string& device, bool validate) {
        return run_triangles(in, per_vertex, method, options_of(true, random_weights, seed, device, validate));
      },
      py::arg("input"), py::arg("per_vertex"), py::arg("method"), py::arg("random_weights"), py::arg("seed"),
      py::arg("device"), py::arg("validate"));

  m.def(
      "dedup",
      [](const py_graph_input& in, const std::string& output, const std::string& out_format, bool symmetrize,
         bool keep_self_loops, const std::string& weights, const std::string& relabel, bool random_weights,
         std::uint64_t seed, const std::string& device, bool validate) {
        dedup::params p;
        p.symmetrize = symmetrize;
        p.keep_self_loops = keep_self_loops;
        if (weights == "min") p.keep = duplicate_weight::min;
        else if (weights == "first") p.keep = duplicate_weight::first;
        else if (weights == "sum") p.keep = duplicate_weight::sum;
        else throw input_error("weights='" + weights + "' is not one of min, first, sum");
        relabel_order order = relabel_order::sorted;
        if (relabel == "first-seen") order = relabel_order::first_seen;
        else if (relabel != "sorted") throw input_error("relabel='" + relabel + "' is not one of sorted, first-seen");
        return run_dedup(in, p, order, output, out_format,
                         options_of(symmetrize, random_weights, seed, device, validate));
      },
      py::arg("input"), py::arg("output"), py::arg("out_format"), py::arg("symmetrize"), py::arg("keep_self_loops"),
      py::arg("weights"), py::arg("relabel"), py::arg("random_weights"), py::arg("seed"), py::arg("device"),
      py::arg("validate"));

  m.def("generate", &generate_edges, py::arg("spec"), py::arg("seed"));
  m.def(
      "write",
      [](const py_graph_input& in, const std::string& path, const std::string& format) {
        write_edges(in, path, format);
      },
      py::arg("input"), py::arg("path"), py::arg("format"));

  m.def(
      "gpu_available", [] { return cuda_device_count() > 0; },
      "Whether a usable CUDA device exists (device=None then picks the GPU).");
  m.def(
      "gpu_unavailable_reason", [] { return cuda_unavailable_reason(); },
      "Why device='gpu' would be refused (empty when a device is usable).");
}
