// The three apps as Python calls: the same load, build and solver code as the
// command lines (apps/), the GIL released while they run, a Ctrl-C check
// between phases and between sources. Each returns a dict that
// python/graphkit/__init__.py turns into its result types.
#pragma once

#include <pybind11/pybind11.h>

#include <cstdint>
#include <string>
#include <vector>

#include "apps/dedup/dedup.hpp"
#include "python/src/inputs.hpp"

namespace graphkit::python {

/// The options every command line shares that make sense in a call.
struct call_options {
  bool symmetrize = false;
  bool random_weights = false;
  std::uint64_t seed = 1;
  std::string device;  ///< "", "cpu" or "gpu" (as --device; "" picks the GPU where one exists)
  bool validate = false;
};

/// Distances from `sources` (original ids), or from `random_sources` seeded
/// random ones when `sources` is empty: {"distances": float64 [sources, n]
/// (inf where unreachable), "sources": dense ids, "ids", "timings", "metrics",
/// "validation", "warnings"}.
pybind11::dict run_sssp(const graph_input& in, const std::vector<original_id_t>& sources, std::size_t random_sources,
                        const call_options& options, const std::string& delta);

/// {"triangles", "per_vertex" (uint64 [n] or None), "ids", "timings", ...}.
pybind11::dict run_triangles(const graph_input& in, bool per_vertex, const std::string& method,
                             const call_options& options);

/// The cleaned edges: {"src", "dst", "weights" (or None), "num_vertices",
/// "ids", "duplicates_removed", "self_loops_removed", "timings", ...};
/// written to `output` too unless it is empty.
pybind11::dict run_dedup(const graph_input& in, const dedup::params& p, relabel_order order, const std::string& output,
                         const std::string& out_format, const call_options& options);

/// A generated graph (--gen SPEC, on the host): {"src", "dst", "weights" (or
/// None), "num_vertices", "directed"}.
pybind11::dict generate_edges(const std::string& spec, std::uint64_t seed);

/// Writes edge arrays to `path` in any format the loaders read (by its
/// extension, or `format`), with the file writers dedup uses.
void write_edges(const graph_input& in, const std::string& path, const std::string& format);

}  // namespace graphkit::python
