// --method's and --walk's names: the GPU counting methods and walks
// (apps/tricount/tricount.hpp) to text and back; --walk auto's rule.
#include <string>

#include "apps/tricount/tricount.hpp"
#include "primitives/common/error.hpp"

namespace graphkit::tricount {

method parse_method(const std::string& name) {
  for (const method m : {method::automatic, method::merge, method::hash, method::bitmap})
    if (name == method_name(m)) return m;
  throw input_error("--method '" + name + "': expected auto, merge, hash or bitmap");
}

const char* method_name(method m) {
  switch (m) {
    case method::automatic: return "auto";
    case method::merge: return "merge";
    case method::hash: return "hash";
    case method::bitmap: return "bitmap";
  }
  return "?";
}

walk parse_walk(const std::string& name) {
  for (const walk w : {walk::automatic, walk::out_lists, walk::shorter_side})
    if (name == walk_name(w)) return w;
  throw input_error("--walk '" + name + "': expected auto, out-lists or shorter-side");
}

const char* walk_name(walk w) {
  switch (w) {
    case walk::automatic: return "auto";
    case walk::out_lists: return "out-lists";
    case walk::shorter_side: return "shorter-side";
  }
  return "?";
}

walk_statistics walk_statistics_of(const csr_graph& g) {
  // The orientation's (degree, id) order (apps/tricount/gpu/orient.cuh).
  auto points_to = [&](vertex_t a, vertex_t b) { return ranks_below(g.degree(a), a, g.degree(b), b); };
  walk_statistics s;
  for (vertex_t u = 0; u < g.num_vertices; ++u) {
    std::uint64_t out = 0;
    for (const vertex_t v : g.neighbors(u)) out += points_to(u, v);
    s.out_lists_paths += (g.degree(u) - out) * out;
    s.out_degree_squares += out * out;
    s.oriented_edges += out;
  }
  return s;
}

// --walk auto. out_lists walks exactly P = sum (d(v) - d+(v)) d+(v) paths,
// and shorter_side at most S = sum d+(u)^2 (an edge u -> v costs it
// min(d+(u), d+(v)) <= d+(u)), so P - S is a floor under the paths that
// shorter_side saves; both sums come from the pass that counts d+, at a
// multiply-add per vertex. shorter_side's price is preprocessing (the pull
// lists: the fill reads every in-neighbour's out-degree and writes m more
// slots; the classes read them again) and a slower light kernel on short
// lists. Measured on an H100 (tricount_bench, merge; bench/NOTES.md step 9):
//   uniform:21  preprocess 1.91 -> 2.60 ms, light 2.53 -> 2.66 ms, paths
//               3.57e8 -> 3.51e8: total 4.45 -> 5.26 ms, 0.82 ms lost;
//   rmat:21     preprocess 4.69 -> 5.56 ms, count 57.68 -> 20.24 ms, paths
//               1.135e10 -> 4.84e9: total 62.39 -> 25.79 ms.
// At those graphs' out-lists rates (7.1 and 5.1 ps per path) the extra
// 0.82 / 0.87 ms is the time of 3.4 / 5.4 paths per undirected edge: the walk
// pays where it saves more than ~5 paths per edge. The rule asks its floor
// for kMinSavedPathsPerEdge = 8 (1.5x that). No graph we measure is near it:
// (P - S) / m is +31, +65, +124, +169 and +225 on R-MAT 16, 18, 20, 21 and 22
// (rmat:21 saves 205 per edge), -8.5 on uniform graphs (which save 0.18), -0.1
// on grids, -1.5 on road graphs and -0.9 to -15.5 on the shipped real graphs
// (which save at most 2.6 per edge, ego-Facebook). Degree orientation makes a
// near-regular graph's d+ largest on its low-degree vertices, the tails, so
// there S exceeds P; on a skewed graph the heads are the hubs with long lists.
// The floor is loose on small R-MAT graphs, which keep out_lists (rmat:12:
// +2.8, saving 12.7 per edge, 6e5 paths: microseconds); from scale 14 (+12)
// they take shorter_side.
constexpr std::uint64_t kMinSavedPathsPerEdge = 8;

walk auto_walk(const walk_statistics& s) {
  return s.out_lists_paths > s.out_degree_squares + kMinSavedPathsPerEdge * s.oriented_edges ? walk::shorter_side
                                                                                             : walk::out_lists;
}

}  // namespace graphkit::tricount
