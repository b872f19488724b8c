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

/// A road-like graph's shape (generate_road). Lengths are in mean point
/// spacings, 1 / sqrt(n): the side of the square each point has to itself.
struct road_params {
  unsigned neighbours = 3;             ///< k: each point is joined to its k nearest
  double highway_fraction = 1.0 / 64;  ///< the share of points that start a fast link
  double highway_length = 8;           ///< a fast link's mean length (uniform in [0.5, 1.5] x this)
  double highway_speedup = 2;          ///< a fast link costs its length / speedup
  double weight_per_spacing = 64;      ///< the integer weight of one mean spacing of road
};

/// A point of the unit square.
struct road_point {
  double x = 0, y = 0;
};

/// 2^scale points uniform in the unit square (a pure function of the seed),
/// numbered by cell: the square is cut into about n / 2 cells, taken row by
/// row, so points close in the plane have close ids, as in a grid. Vertex v of
/// generate_road is point v.
std::vector<road_point> road_points(unsigned scale, std::uint64_t seed);

/// A road-like network on road_points(scale, seed), undirected, each edge once
/// and no self-loops, weighted by length (max(1, round(length x weight per spacing))):
/// every point is joined to its k nearest (ties by id); a highway_fraction of
/// the points also start a fast link to the point nearest a spot about
/// highway_length spacings away in a random direction, weighted length / speedup
/// (rounded, at least 1); then, while the graph has several components, each
/// component but the largest is joined to its nearest point outside it
/// (Borůvka's step), so the result is connected.
coo_graph generate_road(unsigned scale, std::uint64_t seed, const road_params& params = {});

/// The labels' permutation of generate_rmat (Fisher-Yates on a counter
/// stream; serial), for generators that make the edges elsewhere.
std::vector<vertex_t> rmat_permutation(unsigned scale, std::uint64_t seed);

/// A parsed --gen spec.
struct generator_spec {
  enum kind_t { rmat, uniform, grid, road } kind = rmat;
  unsigned scale = 0, edge_factor = 16;  ///< rmat, uniform (scale also road)
  unsigned neighbours = 3;               ///< road: k nearest
  vertex_t rows = 0, cols = 0;           ///< grid
};

/// Parses (and checks) a spec as generate() takes it; throws input_error.
generator_spec parse_generator_spec(const std::string& spec);

/// Builds a graph from a spec: "rmat:SCALE[:EF]", "uniform:SCALE[:EF]"
/// (EF defaults to 16), "grid:ROWSxCOLS" or "grid:SCALE" (a square-ish grid of
/// 2^SCALE vertices), "road:SCALE[:K]" (generate_road, K nearest, default 3). Throws input_error on a malformed spec.
coo_graph generate(const std::string& spec, std::uint64_t seed);

/// Help text for the spec syntax.
inline constexpr const char* kGeneratorSpecHelp =
    "rmat:SCALE[:EF] | uniform:SCALE[:EF] | grid:ROWSxCOLS | grid:SCALE | road:SCALE[:K] (EF defaults to 16, K to 3)";

}  // namespace graphkit
