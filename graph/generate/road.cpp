// generate_road: a road-like network (see generators.hpp). Points live in a
// uniform grid of cells, ~2 a cell, so that every nearest-point question looks
// at a few cells around its spot: O(n) work for the whole graph, split over the
// host threads wherever it is per point. The counting sort by cell and the
// union-find that checks connectivity are serial: one pass each over n points
// or m edges.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numbers>
#include <numeric>

#include "graph/detail/parallel.hpp"
#include "graph/generate/generators.hpp"
#include "primitives/common/error.hpp"

namespace graphkit {
namespace {

using detail::mix64;

constexpr unsigned kMaxRoadScale = 31;
constexpr unsigned kMaxNeighbours = 16;
constexpr vertex_t kNone = kMaxVertices;

constexpr std::uint64_t road_stream(std::uint64_t seed) { return mix64(seed ^ 0x524f4144ULL); }  // "ROAD"

// A uniform double in [0, 1) from a 64-bit draw.
double unit_draw(std::uint64_t r) { return static_cast<double>(r >> 11) * 0x1.0p-53; }

struct candidate {
  double d2 = 0;
  vertex_t id = kNone;
  bool operator<(const candidate& o) const { return d2 != o.d2 ? d2 < o.d2 : id < o.id; }
};

// The points sorted by cell (side x side cells of the unit square, row by row):
// cell c holds points [start[c], start[c + 1]).
struct cell_grid {
  unsigned side = 1;
  std::vector<road_point> points;
  std::vector<std::uint64_t> start;

  [[nodiscard]] unsigned cell_coord(double t) const { return std::min(side - 1, static_cast<unsigned>(t * side)); }

  // The `k` nearest points to `q` that `accept` takes, nearest first (ties by
  // id), into best[0..); returns how many were found. Looks at the rings of
  // cells around q's cell, nearest ring first, and stops once the k-th best is
  // nearer than the next ring can be: q lies somewhere in its own cell, so
  // every point of ring r + 1 is at least r cell sides away.
  // With `max_rings`, looks no further than that many rings out: what it
  // returns then is exact only if the k-th is nearer than max_rings cell sides.
  template <class Accept>
  unsigned nearest(road_point q, unsigned k, candidate* best, Accept&& accept, int max_rings = INT32_MAX) const {
    const int cx = static_cast<int>(cell_coord(q.x)), cy = static_cast<int>(cell_coord(q.y));
    const int last = static_cast<int>(side) - 1;
    const int rings = std::min(max_rings, std::max(std::max(cx, last - cx), std::max(cy, last - cy)));
    const double cell = 1.0 / side;
    unsigned found = 0;
    auto visit = [&](int x, int y) {
      if (x < 0 || y < 0 || x > last || y > last) return;
      const std::size_t c = static_cast<std::size_t>(y) * side + static_cast<std::size_t>(x);
      for (std::uint64_t j = start[c]; j < start[c + 1]; ++j) {
        const vertex_t id = static_cast<vertex_t>(j);
        if (!accept(id)) continue;
        const double dx = points[j].x - q.x, dy = points[j].y - q.y;
        const candidate cand{dx * dx + dy * dy, id};
        if (found == k && !(cand < best[k - 1])) continue;
        unsigned at = found < k ? found++ : k - 1;  // insertion into the sorted prefix
        while (at > 0 && cand < best[at - 1]) best[at] = best[at - 1], --at;
        best[at] = cand;
      }
    };
    for (int r = 0; r <= rings; ++r) {
      for (int dy = -r; dy <= r; ++dy) {
        if (dy == -r || dy == r) {
          for (int dx = -r; dx <= r; ++dx) visit(cx + dx, cy + dy);
        } else {
          visit(cx - r, cy + dy);
          visit(cx + r, cy + dy);
        }
      }
      // Strictly nearer than the next ring, so that a tie there cannot be missed
      // (ties go by id); the margin covers rounding in cell_coord.
      const double reach = r * cell * (1 - 1e-9);
      if (found == k && best[k - 1].d2 < reach * reach) break;
    }
    return found;
  }
};

// n seeded points, counting-sorted by cell (stable, so the order is a pure
// function of the seed at any thread count).
cell_grid place_points(std::uint64_t n, std::uint64_t stream) {
  cell_grid grid;
  grid.side = std::max<unsigned>(1, static_cast<unsigned>(std::sqrt(static_cast<double>(n) / 2)));
  std::vector<road_point> drawn(n);
  std::vector<std::uint32_t> cell_of(n);
  const std::size_t parts = n < (1 << 16) ? 1 : detail::host_threads();
  detail::parallel_parts(parts, [&](std::size_t p) {
    const auto [lo, hi] = detail::part_range(n, parts, p);
    for (std::size_t i = lo; i < hi; ++i) {
      drawn[i] = {unit_draw(mix64(stream + 2 * i)), unit_draw(mix64(stream + 2 * i + 1))};
      cell_of[i] = grid.cell_coord(drawn[i].y) * grid.side + grid.cell_coord(drawn[i].x);
    }
  });
  const std::size_t cells = std::size_t{grid.side} * grid.side;
  grid.start.assign(cells + 1, 0);
  for (const std::uint32_t c : cell_of) ++grid.start[c + 1];
  std::partial_sum(grid.start.begin(), grid.start.end(), grid.start.begin());
  std::vector<std::uint64_t> next(grid.start.begin(), grid.start.end() - 1);
  grid.points.resize(n);
  for (std::size_t i = 0; i < n; ++i) grid.points[next[cell_of[i]]++] = drawn[i];
  return grid;
}

void check_road(unsigned scale, const road_params& p) {
  if (scale > kMaxRoadScale)
    throw input_error("road generator scale " + std::to_string(scale) + " exceeds " + std::to_string(kMaxRoadScale));
  if (p.neighbours == 0 || p.neighbours > kMaxNeighbours)
    throw input_error("road generator: neighbours must be 1.." + std::to_string(kMaxNeighbours) + ", got " +
                      std::to_string(p.neighbours));
  if (!(p.highway_fraction >= 0 && p.highway_fraction <= 1) || !(p.highway_length > 0) || !(p.highway_speedup >= 1) ||
      !(p.weight_per_spacing > 0))
    throw input_error(
        "road generator: highway fraction must be in [0, 1], length and weight per spacing positive, "
        "speedup at least 1");
}

// Union-find with path halving, for the connectivity joins.
struct disjoint_sets {
  std::vector<vertex_t> parent;
  explicit disjoint_sets(std::size_t n) : parent(n) { std::iota(parent.begin(), parent.end(), vertex_t{0}); }
  vertex_t find(vertex_t v) {
    while (parent[v] != v) v = parent[v] = parent[parent[v]];
    return v;
  }
  void unite(vertex_t a, vertex_t b) {
    a = find(a), b = find(b);
    if (a != b) parent[std::max(a, b)] = std::min(a, b);
  }
};

class road_builder {
 public:
  road_builder(unsigned scale, std::uint64_t seed, const road_params& p)
      : p_(p),
        n_(std::uint64_t{1} << scale),
        stream_(road_stream(seed)),
        grid_(place_points(n_, stream_)),
        spacing_(1.0 / std::sqrt(static_cast<double>(n_))),
        k_(p.neighbours) {}

  coo_graph build() {
    find_neighbours();
    choose_highways();
    coo_graph g;
    g.num_vertices = static_cast<vertex_t>(n_);
    g.directed = false;
    emit_edges(g);
    join_components(g);
    return g;
  }

 private:
  [[nodiscard]] bool is_neighbour(vertex_t of, vertex_t v) const {
    const vertex_t* list = &knn_[std::size_t{of} * k_];
    return std::find(list, list + k_, v) != list + k_;
  }
  [[nodiscard]] double length(vertex_t a, vertex_t b) const {
    return std::hypot(grid_.points[a].x - grid_.points[b].x, grid_.points[a].y - grid_.points[b].y);
  }
  [[nodiscard]] weight_t weight(double len, double speedup) const {
    const double w = std::llround(len / spacing_ * p_.weight_per_spacing / speedup);
    return static_cast<weight_t>(std::clamp(w, 1.0, 2147483647.0));
  }
  template <class Fn>
  void per_point(Fn&& fn) const {
    const std::size_t parts = n_ < (1 << 14) ? 1 : detail::host_threads();
    detail::parallel_parts(parts, [&](std::size_t part) {
      const auto [lo, hi] = detail::part_range(n_, parts, part);
      for (std::size_t v = lo; v < hi; ++v) fn(static_cast<vertex_t>(v));
    });
  }

  // knn_[v * k .. v * k + k): v's k nearest, kNone past the (n - 1)th.
  void find_neighbours() {
    knn_.assign(n_ * k_, kNone);
    per_point([&](vertex_t v) {
      std::array<candidate, kMaxNeighbours> best;
      const unsigned found = grid_.nearest(grid_.points[v], k_, best.data(), [v](vertex_t j) { return j != v; });
      for (unsigned i = 0; i < found; ++i) knn_[std::size_t{v} * k_ + i] = best[i].id;
    });
  }

  // highway_[v]: the far end of v's fast link, or kNone.
  void choose_highways() {
    highway_.assign(n_, kNone);
    const std::uint64_t stream = mix64(stream_ ^ 0x48574159ULL);  // "HWAY"
    const auto threshold = static_cast<std::uint64_t>(p_.highway_fraction * 0x1.0p53);
    per_point([&](vertex_t v) {
      const std::uint64_t r = mix64(stream + 3 * std::uint64_t{v});
      if ((r >> 11) >= threshold) return;
      const double angle = 2 * std::numbers::pi * unit_draw(mix64(stream + 3 * std::uint64_t{v} + 1));
      const double len = p_.highway_length * spacing_ * (0.5 + unit_draw(mix64(stream + 3 * std::uint64_t{v} + 2)));
      const road_point from = grid_.points[v];
      double dx = len * std::cos(angle), dy = len * std::sin(angle);
      // A link that would leave the square turns back (clamping would shorten it to nothing at the border).
      if (from.x + dx < 0 || from.x + dx > 1 || from.y + dy < 0 || from.y + dy > 1) dx = -dx, dy = -dy;
      const road_point spot{std::clamp(from.x + dx, 0.0, 1.0), std::clamp(from.y + dy, 0.0, 1.0)};
      candidate best[1];
      if (grid_.nearest(spot, 1, best, [v](vertex_t j) { return j != v; }) == 1) highway_[v] = best[0].id;
    });
  }

  // Each undirected edge once: a k-nearest pair from its smaller end when the
  // relation is mutual, else from the end that chose it; a fast link only
  // where no k-nearest edge joins the pair already, and once when two points
  // link each other.
  void emit_edges(coo_graph& g) const {
    auto own_neighbour = [&](vertex_t v, vertex_t j) { return j != kNone && (v < j || !is_neighbour(j, v)); };
    auto own_highway = [&](vertex_t v) {
      const vertex_t j = highway_[v];
      return j != kNone && !is_neighbour(v, j) && !is_neighbour(j, v) && !(highway_[j] == v && j < v);
    };
    const std::size_t parts = n_ < (1 << 14) ? 1 : detail::host_threads();
    std::vector<std::size_t> first(parts + 1, 0);
    auto each_edge = [&](std::size_t part, auto&& out) {
      const auto [lo, hi] = detail::part_range(n_, parts, part);
      for (std::size_t i = lo; i < hi; ++i) {
        const auto v = static_cast<vertex_t>(i);
        for (unsigned a = 0; a < k_; ++a) {
          const vertex_t j = knn_[i * k_ + a];
          if (own_neighbour(v, j)) out(v, j, weight(length(v, j), 1));
        }
        if (own_highway(v)) out(v, highway_[v], weight(length(v, highway_[v]), p_.highway_speedup));
      }
    };
    detail::parallel_parts(parts, [&](std::size_t part) {
      std::size_t count = 0;
      each_edge(part, [&](vertex_t, vertex_t, weight_t) { ++count; });
      first[part + 1] = count;
    });
    std::partial_sum(first.begin(), first.end(), first.begin());
    g.src.resize(first[parts]);
    g.dst.resize(first[parts]);
    g.weights.resize(first[parts]);
    detail::parallel_parts(parts, [&](std::size_t part) {
      std::size_t at = first[part];
      each_edge(part, [&](vertex_t u, vertex_t v, weight_t w) {
        g.src[at] = u, g.dst[at] = v, g.weights[at] = w;
        ++at;
      });
    });
  }

  // Borůvka's step until one component is left: every component but the
  // largest is joined to the nearest point outside it (the closest pair from
  // any of its points). Each round at least halves the number of components
  // besides the largest.
  void join_components(coo_graph& g) const {
    disjoint_sets sets(n_);
    for (std::size_t e = 0; e < g.num_edges(); ++e) sets.unite(g.src[e], g.dst[e]);
    std::vector<vertex_t> comp(n_);
    std::vector<std::uint64_t> size(n_);
    for (;;) {
      std::fill(size.begin(), size.end(), 0);
      for (vertex_t v = 0; v < n_; ++v) ++size[comp[v] = sets.find(v)];
      const auto largest = static_cast<vertex_t>(std::max_element(size.begin(), size.end()) - size.begin());
      if (size[largest] == n_) return;
      std::vector<vertex_t> looking;  // the points outside the largest, by component
      for (vertex_t v = 0; v < n_; ++v)
        if (comp[v] != largest) looking.push_back(v);
      std::stable_sort(looking.begin(), looking.end(), [&](vertex_t a, vertex_t b) { return comp[a] < comp[b]; });
      std::vector<std::pair<vertex_t, vertex_t>> joins;
      for (int rings = 2; !looking.empty(); rings *= 2) looking = closest_pairs(looking, comp, rings, joins);
      std::sort(joins.begin(), joins.end());
      joins.erase(std::unique(joins.begin(), joins.end()), joins.end());
      for (const auto& [a, b] : joins) {
        g.src.push_back(a);
        g.dst.push_back(b);
        g.weights.push_back(weight(length(a, b), 1));
        sets.unite(a, b);
      }
    }
  }

  // For each component among `looking` (its points, grouped by component),
  // the closest pair to a point outside it, searched at most `rings` rings out
  // around each point: a search from deep inside a big component would
  // otherwise walk the whole component. Adds the pairs found for sure (nearer
  // than `rings` cell sides, or the whole grid searched) to `joins` as (min,
  // max) and returns the points of the other components, to look further.
  std::vector<vertex_t> closest_pairs(const std::vector<vertex_t>& looking, const std::vector<vertex_t>& comp,
                                      int rings, std::vector<std::pair<vertex_t, vertex_t>>& joins) const {
    std::vector<candidate> link(looking.size());
    const std::size_t parts = looking.size() < 1024 ? 1 : detail::host_threads();
    detail::parallel_parts(parts, [&](std::size_t part) {
      const auto [lo, hi] = detail::part_range(looking.size(), parts, part);
      for (std::size_t i = lo; i < hi; ++i) {
        const vertex_t v = looking[i], own = comp[v];
        if (grid_.nearest(
                grid_.points[v], 1, &link[i], [&](vertex_t j) { return comp[j] != own; }, rings) == 0)
          link[i] = {std::numeric_limits<double>::infinity(), kNone};
      }
    });
    const double sure = rings * (1 - 1e-9) / grid_.side;
    const bool everything = rings >= static_cast<int>(grid_.side);
    std::vector<vertex_t> further;
    for (std::size_t lo = 0, hi = 0; lo < looking.size(); lo = hi) {
      std::size_t at = lo;  // the component's closest pair: ties by distance, then the outside end, then the inside end
      for (hi = lo + 1; hi < looking.size() && comp[looking[hi]] == comp[looking[lo]]; ++hi)
        if (link[hi] < link[at]) at = hi;
      if (link[at].id != kNone && (everything || link[at].d2 < sure * sure))
        joins.emplace_back(std::min(looking[at], link[at].id), std::max(looking[at], link[at].id));
      else
        further.insert(further.end(), looking.begin() + static_cast<std::ptrdiff_t>(lo),
                       looking.begin() + static_cast<std::ptrdiff_t>(hi));
    }
    return further;
  }

  road_params p_;
  std::uint64_t n_;
  std::uint64_t stream_;
  cell_grid grid_;
  double spacing_;
  unsigned k_;
  std::vector<vertex_t> knn_;
  std::vector<vertex_t> highway_;
};

}  // namespace

std::vector<road_point> road_points(unsigned scale, std::uint64_t seed) {
  check_road(scale, road_params{});
  return place_points(std::uint64_t{1} << scale, road_stream(seed)).points;
}

coo_graph generate_road(unsigned scale, std::uint64_t seed, const road_params& params) {
  check_road(scale, params);
  return road_builder(scale, seed, params).build();
}

}  // namespace graphkit
