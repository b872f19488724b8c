// The generators' per-edge rules, shared by the host generators and the GPU
// ones (graph/gpu/generate_gpu.cu): edge i is a pure function of (stream, i),
// constexpr so that device code computes the very same edges.
#pragma once

#include <cstdint>

#include "graph/detail/parallel.hpp"
#include "graph/types.hpp"

namespace graphkit::detail {

struct vertex_pair {
  vertex_t u, v;
};

/// R-MAT quadrant thresholds on a 32-bit random draw: below a, quadrant A;
/// [a, ab) B; [ab, abc) C; the rest D.
struct rmat_thresholds {
  std::uint64_t a, ab, abc;
};

constexpr rmat_thresholds rmat_thresholds_of(double a, double b, double c) {
  constexpr double kTwo32 = 4294967296.0;
  return {static_cast<std::uint64_t>(a * kTwo32), static_cast<std::uint64_t>((a + b) * kTwo32),
          static_cast<std::uint64_t>((a + b + c) * kTwo32)};
}

constexpr std::uint64_t rmat_stream(std::uint64_t seed) { return mix64(seed ^ 0x524d4154ULL); }     // "RMAT"
constexpr std::uint64_t uniform_stream(std::uint64_t seed) { return mix64(seed ^ 0x554e4946ULL); }  // "UNIF"

/// Edge i of an R-MAT graph of 2^scale vertices, before the label permutation:
/// one quadrant choice per level, two levels per 64-bit draw.
constexpr vertex_pair rmat_edge(std::uint64_t stream, std::uint64_t i, unsigned scale, const rmat_thresholds& t) {
  std::uint64_t state = mix64(stream + i);
  vertex_t u = 0, v = 0;
  for (unsigned level = 0; level < scale; ++level) {
    if (level % 2 == 0 && level > 0) state = mix64(state);
    const std::uint64_t r = (level % 2 == 0) ? (state & 0xffffffffULL) : (state >> 32);
    const vertex_t bit = vertex_t{1} << level;
    if (r >= t.a && r < t.ab) v |= bit;         // quadrant B
    else if (r >= t.ab && r < t.abc) u |= bit;  // quadrant C
    else if (r >= t.abc) u |= bit, v |= bit;    // quadrant D
  }
  return {u, v};
}

/// Edge i of a uniform G(n, m): the high bits of the 32-bit halves of one draw,
/// times n (unbiased enough for n <= 2^31).
constexpr vertex_pair uniform_edge(std::uint64_t stream, std::uint64_t i, std::uint64_t n) {
  const std::uint64_t r = mix64(stream + i);
  return {static_cast<vertex_t>(((r & 0xffffffffULL) * n) >> 32), static_cast<vertex_t>(((r >> 32) * n) >> 32)};
}

}  // namespace graphkit::detail
