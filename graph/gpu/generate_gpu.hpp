// --gen on the GPU: the R-MAT and uniform generators' edges made where the
// build runs, equal to generate()'s edge for edge.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "graph/gpu/pipeline.hpp"

namespace graphkit {

/// The graph generate(spec, seed) makes, on the device; nullopt for the
/// generators that stay on the host (grid, road). Throws input_error on a bad spec,
/// device_memory_error when the edges do not fit.
std::optional<device_edges> generate_on_gpu(const std::string& spec, std::uint64_t seed);

}  // namespace graphkit
