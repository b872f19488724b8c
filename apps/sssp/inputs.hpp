// What sssp asks of its input beyond loading it: non-negative weights and
// sources. Shared by the command line (main.cpp), sssp_bench and the Python
// module, so that one seed picks the same sources in each.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "apps/common/options.hpp"

namespace graphkit::sssp {

/// `count` random sources with at least one out-edge (as GAP picks them), from
/// the seed. Throws input_error for a graph without vertices.
std::vector<vertex_t> pick_sources(const csr_graph& g, std::size_t count, std::uint64_t seed);

/// Throws input_error naming the file and line of the first negative weight,
/// unless --random-weights replaces them. Edges parsed on the GPU have none:
/// its parser takes unsigned weights only.
void check_weights(const coo_graph& coo, const apps::common_options& o, const apps::input_info& info);

}  // namespace graphkit::sssp
