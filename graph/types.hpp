// The integer types of graphkit's graphs: 32-bit vertex ids (4G vertices fit one
// GPU's memory), 64-bit edge offsets (more than 4G edges do), signed 32-bit
// weights (signed so that a negative weight can be seen and refused by SSSP).
#pragma once

#include <cstdint>
#include <limits>

namespace graphkit {

using vertex_t = std::uint32_t;
using edge_t = std::uint64_t;
using weight_t = std::int32_t;
/// Vertex ids as the input file spelled them (SNAP ids are sparse 64-bit values).
using original_id_t = std::uint64_t;

inline constexpr vertex_t kMaxVertices = std::numeric_limits<vertex_t>::max();

}  // namespace graphkit
