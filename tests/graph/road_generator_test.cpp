// The road-like generator against brute force: every point's k nearest
// (all pairs, ties by id) are its neighbours, the other edges are the sparse
// fast links and the few joins that make the graph connected, weights are the
// rounded lengths, and the graph is simple, undirected, connected and
// deterministic by seed.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <queue>
#include <set>

#include "graph/build.hpp"
#include "graph/generate/generators.hpp"
#include "primitives/common/error.hpp"
#include "tests/common/test_support.hpp"

namespace graphkit {
namespace {

using pair_set = std::set<std::pair<vertex_t, vertex_t>>;

std::pair<vertex_t, vertex_t> ordered(vertex_t a, vertex_t b) { return {std::min(a, b), std::max(a, b)}; }

double distance(const road_point& a, const road_point& b) { return std::hypot(a.x - b.x, a.y - b.y); }

// Every point's k nearest by brute force, ties by id, as unordered pairs.
pair_set brute_force_neighbours(const std::vector<road_point>& points, unsigned k) {
  pair_set pairs;
  for (vertex_t v = 0; v < points.size(); ++v) {
    std::vector<std::pair<double, vertex_t>> by_distance;
    for (vertex_t j = 0; j < points.size(); ++j) {
      if (j == v) continue;
      const double dx = points[j].x - points[v].x, dy = points[j].y - points[v].y;
      by_distance.emplace_back(dx * dx + dy * dy, j);  // the generator's own measure, so ties agree
    }
    const std::size_t take = std::min<std::size_t>(k, by_distance.size());
    std::partial_sort(by_distance.begin(), by_distance.begin() + static_cast<std::ptrdiff_t>(take), by_distance.end());
    for (std::size_t i = 0; i < take; ++i) pairs.insert(ordered(v, by_distance[i].second));
  }
  return pairs;
}

// Vertices reached from 0 over the undirected edges.
std::size_t reached_from_zero(const coo_graph& g) {
  if (g.num_vertices == 0) return 0;
  std::vector<std::vector<vertex_t>> adjacent(g.num_vertices);
  for (std::size_t e = 0; e < g.num_edges(); ++e) {
    adjacent[g.src[e]].push_back(g.dst[e]);
    adjacent[g.dst[e]].push_back(g.src[e]);
  }
  std::vector<bool> seen(g.num_vertices, false);
  std::queue<vertex_t> queue;
  queue.push(0);
  seen[0] = true;
  std::size_t count = 1;
  while (!queue.empty()) {
    const vertex_t u = queue.front();
    queue.pop();
    for (const vertex_t v : adjacent[u])
      if (!seen[v]) seen[v] = true, ++count, queue.push(v);
  }
  return count;
}

weight_t expected_weight(double length, double spacing, double speedup, const road_params& p) {
  return static_cast<weight_t>(std::max(1.0, std::round(length / spacing * p.weight_per_spacing / speedup)));
}

TEST(RoadGenerator, SameSeedSameGraphOtherSeedOtherGraph) {
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  for (const char* spec : {"road:9", "road:15"}) {  // 2^15 points: the threaded paths
    SCOPED_TRACE(spec);
    const coo_graph a = generate(spec, seed), b = generate(spec, seed), c = generate(spec, seed + 1);
    EXPECT_EQ(a.src, b.src);
    EXPECT_EQ(a.dst, b.dst);
    EXPECT_EQ(a.weights, b.weights);
    EXPECT_NE(a.weights, c.weights);
  }
}

TEST(RoadGenerator, TinySizes) {
  const coo_graph one = generate("road:0", 5);
  EXPECT_EQ(one.num_vertices, 1u);
  EXPECT_EQ(one.num_edges(), 0u);
  const coo_graph two = generate("road:1", 5);
  EXPECT_EQ(two.num_vertices, 2u);
  ASSERT_EQ(two.num_edges(), 1u);
  EXPECT_EQ(ordered(two.src[0], two.dst[0]), ordered(0, 1));
  // Four points, three nearest each: the complete graph, each edge once.
  const coo_graph four = generate("road:2", 5);
  pair_set pairs;
  for (std::size_t e = 0; e < four.num_edges(); ++e) pairs.insert(ordered(four.src[e], four.dst[e]));
  EXPECT_EQ(four.num_edges(), 6u);
  EXPECT_EQ(pairs.size(), 6u);
}

TEST(RoadGenerator, SimpleUndirectedWeightedAndConnected) {
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  for (const char* spec : {"road:12", "road:12:1", "road:11:2", "road:10:6"}) {
    SCOPED_TRACE(spec);
    const coo_graph g = generate(spec, seed);
    EXPECT_EQ(g.num_vertices, 1u << parse_generator_spec(spec).scale);
    EXPECT_FALSE(g.directed);
    ASSERT_EQ(g.weights.size(), g.num_edges());
    pair_set pairs;
    for (std::size_t e = 0; e < g.num_edges(); ++e) {
      ASSERT_LT(g.src[e], g.num_vertices);
      ASSERT_LT(g.dst[e], g.num_vertices);
      ASSERT_NE(g.src[e], g.dst[e]) << "self-loop at edge " << e;
      ASSERT_GE(g.weights[e], 1);
      ASSERT_TRUE(pairs.insert(ordered(g.src[e], g.dst[e])).second) << "edge " << e << " repeats a pair";
    }
    EXPECT_EQ(reached_from_zero(g), g.num_vertices);
  }
}

TEST(RoadGenerator, PointsAreInTheSquareAndNumberedByCell) {
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  const std::vector<road_point> points = road_points(12, seed);
  ASSERT_EQ(points.size(), 4096u);
  const auto side = static_cast<unsigned>(std::sqrt(4096.0 / 2));
  auto cell = [&](const road_point& p) {
    return std::min(side - 1, static_cast<unsigned>(p.y * side)) * side +
           std::min(side - 1, static_cast<unsigned>(p.x * side));
  };
  for (std::size_t i = 0; i < points.size(); ++i) {
    ASSERT_TRUE(points[i].x >= 0 && points[i].x < 1 && points[i].y >= 0 && points[i].y < 1);
    if (i > 0) {
      ASSERT_LE(cell(points[i - 1]), cell(points[i])) << "point " << i;
    }
  }
  // Uniform: each quarter of the square holds about a quarter of the points.
  std::size_t left_bottom = 0;
  for (const road_point& p : points) left_bottom += p.x < 0.5 && p.y < 0.5;
  EXPECT_NEAR(static_cast<double>(left_bottom), 1024.0, 5 * 28.0);  // 5 sigma
}

// Every edge is a k-nearest pair, a fast link or a join; every k-nearest pair
// is an edge; the weights are the rounded lengths (fast links: over speedup).
TEST(RoadGenerator, NearestNeighboursMatchBruteForce) {
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  const road_params p;
  for (const unsigned k : {1u, 2u, 3u, 4u}) {
    SCOPED_TRACE("k " + std::to_string(k));
    const unsigned scale = 11;
    road_params params;
    params.neighbours = k;
    const coo_graph g = generate_road(scale, seed, params);
    const std::vector<road_point> points = road_points(scale, seed);
    const double spacing = 1.0 / std::sqrt(static_cast<double>(points.size()));
    const pair_set nearest = brute_force_neighbours(points, k);
    std::map<std::pair<vertex_t, vertex_t>, std::size_t> edge_of;
    for (std::size_t e = 0; e < g.num_edges(); ++e) edge_of[ordered(g.src[e], g.dst[e])] = e;
    for (const auto& pair : nearest) {
      const auto it = edge_of.find(pair);
      ASSERT_NE(it, edge_of.end()) << "nearest pair " << pair.first << "-" << pair.second << " is not an edge";
      EXPECT_EQ(g.weights[it->second],
                expected_weight(distance(points[pair.first], points[pair.second]), spacing, 1, p));
    }
    std::size_t fast = 0, joins = 0;
    for (const auto& [pair, e] : edge_of) {
      if (nearest.contains(pair)) continue;
      const double length = distance(points[pair.first], points[pair.second]);
      const weight_t slow = expected_weight(length, spacing, 1, p);
      if (g.weights[e] == expected_weight(length, spacing, p.highway_speedup, p) && g.weights[e] != slow) {
        // A fast link ends at the point nearest a spot [0.5, 1.5] x its mean length away.
        EXPECT_LT(length, (1.5 * p.highway_length + 3) * spacing) << "fast link " << pair.first << "-" << pair.second;
        EXPECT_GT(length, (0.5 * p.highway_length - 3) * spacing) << "fast link " << pair.first << "-" << pair.second;
        ++fast;
      } else {
        EXPECT_EQ(g.weights[e], slow) << "join " << pair.first << "-" << pair.second;
        ++joins;
      }
    }
    // Fast links: binomial(n, fraction), less the few that duplicate a nearest pair.
    const double n = static_cast<double>(points.size()), mean = n * p.highway_fraction;
    EXPECT_NEAR(static_cast<double>(fast), mean, 5 * std::sqrt(mean) + 2);
    // Joins: one per extra component. k = 1 leaves ~n/3 of them (a nearest-point forest); k >= 3 very few.
    EXPECT_LE(static_cast<double>(joins), k == 1 ? n / 2 : k == 2 ? n / 10 : n / 50);
    EXPECT_EQ(reached_from_zero(g), g.num_vertices);
  }
}

TEST(RoadGenerator, DegreesLookLikeARoadNetwork) {
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  coo_graph coo = generate("road:14", seed);
  const csr_graph g = to_csr(std::move(coo));
  edge_t low = ~edge_t{0}, high = 0;
  for (vertex_t v = 0; v < g.num_vertices; ++v) low = std::min(low, g.degree(v)), high = std::max(high, g.degree(v));
  const double mean = static_cast<double>(g.num_edges()) / g.num_vertices;
  EXPECT_GE(low, 3u);  // its 3 nearest
  EXPECT_LE(high, 14u);
  EXPECT_GT(mean, 3.5);  // measured 3.76: a planar-ish mesh, no hubs
  EXPECT_LT(mean, 4.1);
}

TEST(RoadGenerator, SpecsAndBadSpecs) {
  const generator_spec s = parse_generator_spec("road:12:4");
  EXPECT_EQ(s.kind, generator_spec::road);
  EXPECT_EQ(s.scale, 12u);
  EXPECT_EQ(s.neighbours, 4u);
  EXPECT_EQ(parse_generator_spec("road:7").neighbours, 3u);
  for (const char* spec : {"road", "road:", "road:x", "road:40", "road:10:0", "road:10:17", "road:10:x"}) {
    SCOPED_TRACE(spec);
    EXPECT_THROW((void)generate(spec, 1), input_error);
  }
  road_params bad;
  bad.highway_speedup = 0.5;
  EXPECT_THROW((void)generate_road(4, 1, bad), input_error);
}

}  // namespace
}  // namespace graphkit
