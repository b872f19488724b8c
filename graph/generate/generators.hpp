// Synthetic graphs, deterministic by seed at any thread count: each edge is a
// pure function of (seed, edge index).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "graph/coo.hpp"

namespace graphkit {

/// R-MAT quadrant probabilities; d = 1 - a - b - c.
struct rmat_params {
  double a = 0.57, b = 0.19, c = 0.19;  // Graph500's
};

/// edge_factor * 2^scale undirected edges over 2^scale vertices, with vertex
/// labels scrambled by a seeded permutation (as Graph500 does) so that the
/// high-degree vertices are not the low ids. Duplicates and self-loops are
/// left in, as the generator makes them; clean() removes them.
coo_graph generate_rmat(unsigned scale, unsigned edge_factor, std::uint64_t seed, rmat_params params = {});

/// Uniform random G(n, m): n = 2^scale, m = edge_factor * n undirected edges
/// with endpoints drawn independently (duplicates and self-loops possible).
coo_graph generate_uniform(unsigned scale, unsigned edge_factor, std::uint64_t seed);

/// A rows x cols 4-neighbour grid, undirected, weights uniform in
/// [1, max_weight]: a road-like graph with a large diameter.
coo_graph generate_grid(vertex_t rows, vertex_t cols, std::uint64_t seed, weight_t max_weight = 255);

/// The labels' permutation of generate_rmat (Fisher-Yates on a counter
/// stream; serial), for generators that make the edges elsewhere.
std::vector<vertex_t> rmat_permutation(unsigned scale, std::uint64_t seed);

/// A parsed --gen spec.
struct generator_spec {
  enum kind_t { rmat, uniform, grid } kind = rmat;
  unsigned scale = 0, edge_factor = 16;  ///< rmat, uniform
  vertex_t rows = 0, cols = 0;           ///< grid
};

/// Parses (and checks) a spec as generate() takes it; throws input_error.
generator_spec parse_generator_spec(const std::string& spec);

/// Builds a graph from a spec: "rmat:SCALE[:EF]", "uniform:SCALE[:EF]"
/// (EF defaults to 16), "grid:ROWSxCOLS" or "grid:SCALE" (a square-ish grid of
/// 2^SCALE vertices). Throws input_error on a malformed spec.
coo_graph generate(const std::string& spec, std::uint64_t seed);

/// Help text for the spec syntax.
inline constexpr const char* kGeneratorSpecHelp =
    "rmat:SCALE[:EF] | uniform:SCALE[:EF] | grid:ROWSxCOLS | grid:SCALE (EF defaults to 16)";

}  // namespace graphkit
