// GPU triangle counting on the issue's graphs (R-MAT 20/21/22/24, uniform
// 21/22, the shipped real graphs): every method forced and auto, each under
// both walks and --walk auto (out-lists, shorter-side, then auto, in adjacent
// rows with the count time's ratio to out-lists; the auto row names the walk
// it took and the floor under shorter-side's saving that chose it, in paths
// per edge), with the light (warp) and heavy (block) kernels timed apart so
// the auto rules can be read off the table. Times are CUDA-event medians
// after a warm-up, as the tricount app takes them
// (apps/common/trial_loop.hpp). Each count is checked in the run: against
// the multithreaded CPU merge count up to scale 22, against the published
// count for shipped graphs, and every method and walk against every other;
// auto's walk against the one tricount::auto_walk picks from the host's sums.
// The ceiling column: the walk's two-hop paths checked per second against
// the random 8-byte gather rate of this run (a membership probe is at best
// one random read).
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <map>

#include "apps/common/trial_loop.hpp"
#include "apps/tricount/tricount.hpp"
#include "bench/common/gather_ceiling.cuh"
#include "graph/build.hpp"
#include "graph/generate/generators.hpp"
#include "graph/io/load.hpp"
#include "primitives/common/device_buffer.hpp"

namespace {

using namespace graphkit;

/// The two-hop paths walk `w` (not auto) takes (apps/tricount/gpu/orient.cuh):
/// the probes every method makes.
std::uint64_t walked_paths(const csr_graph& g, tricount::walk w) {
  using tricount::ranks_below;
  auto points_to = [&](vertex_t a, vertex_t b) { return ranks_below(g.degree(a), a, g.degree(b), b); };
  std::vector<std::uint64_t> out(g.num_vertices);
  for (vertex_t u = 0; u < g.num_vertices; ++u)
    for (vertex_t v : g.neighbors(u)) out[u] += points_to(u, v);
  std::uint64_t paths = 0;
  for (vertex_t u = 0; u < g.num_vertices; ++u)
    for (vertex_t v : g.neighbors(u)) {
      if (!points_to(u, v)) continue;
      if (w == tricount::walk::out_lists || ranks_below(out[v], v, out[u], u)) paths += out[v];
      else if (out[u] >= 2) paths += out[u];  // v pulls u
    }
  return paths;
}

struct timing {
  double preprocess_ms, light_ms, heavy_ms, total_ms;
  std::uint64_t triangles;
  tricount::gpu_stats stats;
};

/// Timed as the tricount app times its runs (apps/common/trial_loop.hpp: a
/// warm-up, `trials` runs, each phase's median and the total's median), so
/// that the same graph, method and --trials give the app's figures.
timing measure(tricount::gpu_counter& counter, tricount::method m, tricount::walk w, int trials) {
  timing t{};
  const apps::trial_times times = apps::measure_trials(apps::trial_settings{trials}, 3, true, [&] {
    t.triangles = counter.run(m, false, t.stats, w).triangles;
    return std::vector<double>{t.stats.preprocess_seconds, t.stats.light_seconds, t.stats.heavy_seconds};
  });
  t.preprocess_ms = times.median_phase(0) * 1e3;
  t.light_ms = times.median_phase(1) * 1e3;
  t.heavy_ms = times.median_phase(2) * 1e3;
  t.total_ms = times.median_total() * 1e3;
  return t;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"tricount_bench: GPU triangle counting, every method, with peers and checks"};
  std::vector<std::string> graphs{"rmat:20", "rmat:21", "uniform:21", "rmat:22", "uniform:22", "rmat:24"};
  std::vector<std::string> shipped{"facebook_combined.txt", "CA-GrQc.txt", "bcsstk13.mtx"};
  std::vector<std::string> walk_names{"out-lists", "shorter-side", "auto"};
  int trials = 5;
  int cpu_check_max_scale = 22;
  std::uint64_t seed = 1;
  app.add_option("--graphs", graphs, "Generator specs")->capture_default_str();
  app.add_option("--walks", walk_names, "Walks to time, in this order (out-lists, shorter-side, auto)")
      ->check(CLI::IsMember({"out-lists", "shorter-side", "auto"}))
      ->capture_default_str();
  app.add_option("--trials", trials)->capture_default_str();
  app.add_option("--seed", seed)->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  try {
    std::vector<tricount::walk> walks;
    for (const std::string& name : walk_names) walks.push_back(tricount::parse_walk(name));
    const std::map<std::string, std::uint64_t> published{
        {"facebook_combined.txt", 1612010}, {"CA-GrQc.txt", 48260}, {"bcsstk13.mtx", 342300}};
    // PERFORMANCE.md, same machine: (GAP 16 cores, Gunrock H100) in ms.
    const std::map<std::string, std::pair<double, double>> peers{
        {"rmat:21", {3670, 2730}}, {"uniform:21", {640, 25}}, {"rmat:22", {9470, 0}}, {"uniform:22", {1560, 0}}};
    const double ceiling = bench::gather_ceiling();
    std::printf("gather ceiling (random 8-byte reads over 1 GiB): %.1f G/s\n\n", ceiling / 1e9);
    std::printf(
        "| graph | vertices | edges | method (light/heavy) | walk | two-hop paths | light/heavy vertices | "
        "preprocess ms | light ms | heavy ms | total ms | count speed-up vs out-lists | Medges/s | "
        "probes %% of gather | GAP ms (x) | Gunrock ms (x) | triangles | check |\n"
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    std::vector<std::string> all = graphs;
    for (const auto& s : shipped) all.push_back(s);
    for (const std::string& spec : all) {
      const bool is_file = published.count(spec) > 0;
      const csr_graph g = tricount::simple_undirected(
          is_file ? load_graph(std::string(GRAPHKIT_SOURCE_DIR) + "/datasets/" + spec).graph : generate(spec, seed));
      std::uint64_t expected = 0;
      bool have_expected = false;
      if (is_file) {
        expected = published.at(spec), have_expected = true;
      } else if (std::stoi(spec.substr(spec.find(':') + 1)) <= cpu_check_max_scale) {
        expected = tricount::count_by_merge(g, false).triangles, have_expected = true;
      }
      // What auto should take here, from the host's sums (the GPU's must agree).
      const tricount::walk predicted = tricount::auto_walk(tricount::walk_statistics_of(g));
      std::vector<std::uint64_t> paths;
      for (const tricount::walk w : walks)
        paths.push_back(walked_paths(g, w == tricount::walk::automatic ? predicted : w));
      tricount::gpu_counter counter(g);
      std::uint64_t agreed = 0;
      bool first = true;
      for (const tricount::method m :
           {tricount::method::merge, tricount::method::hash, tricount::method::bitmap, tricount::method::automatic}) {
        double out_lists_count_ms = 0;
        for (std::size_t k = 0; k < walks.size(); ++k) {
          const timing t = measure(counter, m, walks[k], trials);
          bool ok = first || t.triangles == agreed;
          if (have_expected) ok = ok && t.triangles == expected;
          if (walks[k] == tricount::walk::automatic) ok = ok && t.stats.walked == predicted;
          agreed = t.triangles, first = false;
          const double count_ms = t.light_ms + t.heavy_ms;
          std::string versus = "-", gap = "-", gunrock = "-", walk_text = tricount::walk_name(walks[k]);
          char buf[64];
          if (walks[k] == tricount::walk::automatic) {
            const tricount::walk_statistics& ws = t.stats.walk_stats;
            const double saved_floor =
                (static_cast<double>(ws.out_lists_paths) - static_cast<double>(ws.out_degree_squares)) /
                static_cast<double>(std::max<std::uint64_t>(ws.oriented_edges, 1));
            std::snprintf(buf, sizeof buf, " (%s, %+.1f)", tricount::walk_name(t.stats.walked), saved_floor);
            walk_text += buf;
          }
          if (walks[k] == tricount::walk::out_lists) {
            out_lists_count_ms = count_ms;
          } else if (out_lists_count_ms > 0) {
            std::snprintf(buf, sizeof buf, "%.2fx", out_lists_count_ms / count_ms);
            versus = buf;
          }
          if (auto it = peers.find(spec); it != peers.end()) {
            std::snprintf(buf, sizeof buf, "%.0f (%.0fx)", it->second.first, it->second.first / t.total_ms);
            gap = buf;
            if (it->second.second > 0) {
              std::snprintf(buf, sizeof buf, "%.0f (%.1fx)", it->second.second, it->second.second / t.total_ms);
              gunrock = buf;
            }
          }
          const double undirected = g.num_edges() / 2.0;
          std::printf(
              "| %s | %u | %.0f | %s (%s/%s) | %s | %lu | %lu/%lu | %.2f | %.2f | %.2f | %.2f | %s | %.0f | %.0f%% | "
              "%s | %s | %lu | %s |\n",
              spec.c_str(), g.num_vertices, undirected, tricount::method_name(m),
              tricount::method_name(t.stats.light_method), tricount::method_name(t.stats.heavy_method),
              walk_text.c_str(), static_cast<unsigned long>(paths[k]), static_cast<unsigned long>(t.stats.light),
              static_cast<unsigned long>(t.stats.heavy), t.preprocess_ms, t.light_ms, t.heavy_ms, t.total_ms,
              versus.c_str(), undirected / (t.total_ms * 1e-3) / 1e6, 100.0 * paths[k] / (count_ms * 1e-3) / ceiling,
              gap.c_str(), gunrock.c_str(), static_cast<unsigned long>(t.triangles),
              ok ? (have_expected ? "PASS" : "PASS (methods agree)") : "FAIL");
          std::fflush(stdout);
        }
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  }
  return 0;
}
