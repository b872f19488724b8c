// What a Python call hands graphkit: a file, numpy edge arrays, or a CSR
// matrix's three arrays (the Python layer turns scipy and networkx graphs into
// these), and the load and build phases that make the apps' graphs of them.
#pragma once

#include <optional>
#include <string>

#include "apps/common/options.hpp"
#include "python/src/columns.hpp"

namespace graphkit::python {

struct graph_input {
  enum class kind { file, edges, csr };
  kind what = kind::file;
  std::string path, format;  ///< kind::file
  vertex_t num_vertices = 0;
  bool directed = true;
  /// kind::edges: src, dst; kind::csr: indptr, indices. `weights` has size 0 when absent.
  raw_column first, second, weights;
  bool weighted = false;
};

/// The load phase of an app: a file through apps::load_edges (parsed on the
/// GPU where it can be), arrays checked and, for --device gpu, uploaded
/// straight from numpy's memory (phase "load"). `nonnegative_weights` refuses
/// negative array weights by index; `keep_weights` false ignores them.
apps::input_edges load_edges(const graph_input& in, apps::common_options& o, apps::report& r, apps::input_info& info,
                             bool nonnegative_weights, bool keep_weights);

/// A CSR input as the apps' built graph, without a build (sssp only: the
/// matrix is taken as it is, duplicates and self-loops included): checked,
/// and for --device gpu uploaded straight from numpy's memory, the host
/// keeping the offsets (phase "load").
apps::built_graph load_csr(const graph_input& in, const apps::common_options& o, apps::report& r);

/// An edge input as a host edge list (dedup's input): the arrays copied.
coo_graph host_edges(const graph_input& in);

/// Gives Python a chance to run its signal handlers (Ctrl-C) between phases:
/// takes the GIL briefly and throws pybind11::error_already_set (a
/// KeyboardInterrupt) when a handler raised.
void check_interrupt();

}  // namespace graphkit::python
