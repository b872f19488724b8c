// GPU delta-stepping SSSP on the issue's graphs (R-MAT 21/22/24, uniform 22,
// a 2^22-vertex grid, rome99), weights 1..255, undirected, 8 random sources
// each: median time per source (CUDA events, after a warm-up), GTEPS, work,
// the peers' figures from PERFORMANCE.md, and the gather ceiling measured in
// this run (a relaxation needs one random 8-byte distance read). Every
// source's distances are checked by the O(m) certificate (verify_certificate),
// rome99's also against Boost. Then a delta sweep per graph: the default's
// time against the best of heuristic x 2^k, k = -3..3, and --delta auto.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>

#include "apps/sssp/sssp.hpp"
#include "bench/common/gather_ceiling.cuh"
#include "graph/build.hpp"
#include "graph/detail/parallel.hpp"
#include "graph/generate/generators.hpp"
#include "graph/io/load.hpp"
#include "primitives/common/device_buffer.hpp"

namespace {

using namespace graphkit;


csr_graph build(const std::string& spec, std::uint64_t seed) {
  coo_graph coo = spec.ends_with(".gr") ? load_graph(spec).graph : generate(spec, seed);
  clean_options rules;
  rules.symmetrize = !spec.ends_with(".gr");  // rome99 stays directed, as published
  rules.drop_self_loops = rules.drop_duplicates = true;
  rules.random_weights = !spec.ends_with(".gr");
  rules.seed = seed;
  (void)clean(coo, rules);
  return to_csr(std::move(coo));
}

std::vector<vertex_t> random_sources(const csr_graph& g, std::size_t count, std::uint64_t seed) {
  std::vector<vertex_t> sources;
  for (std::uint64_t k = 0; sources.size() < count && k < 1000 * count; ++k) {
    const auto v = static_cast<vertex_t>(detail::mix64(seed + k) % g.num_vertices);
    if (g.degree(v) > 0) sources.push_back(v);
  }
  return sources;
}

vertex_t highest_degree(const csr_graph& g) {
  vertex_t best = 0;
  for (vertex_t v = 1; v < g.num_vertices; ++v)
    if (g.degree(v) > g.degree(best)) best = v;
  return best;
}

struct measured {
  double ms = 0;       // median over sources of the per-source median
  double gteps = 0;    // median over sources
  double rounds = 0, relax_per_edge = 0;
  std::uint64_t delta = 0;
  bool ok = true;
};

measured measure(sssp::gpu_solver& solver, const csr_graph& g, const std::vector<vertex_t>& sources,
                 const sssp::delta_choice& delta, int trials, bool check, bool boost_check) {
  measured m;
  std::vector<double> ms, gteps, rounds, work;
  for (const vertex_t s : sources) {
    sssp::gpu_stats stats;
    sssp::result r = solver.run(s, delta, stats);  // warm-up, and the checked answer
    std::vector<double> t;
    for (int k = 0; k < trials; ++k) {
      solver.run(s, delta, stats);
      t.push_back(stats.seconds * 1e3);
    }
    std::sort(t.begin(), t.end());
    const std::uint64_t traversed = sssp::edges_traversed(g, r);
    ms.push_back(t[t.size() / 2]);
    gteps.push_back(traversed / (t[t.size() / 2] * 1e-3) / 1e9);
    rounds.push_back(static_cast<double>(stats.rounds));
    work.push_back(static_cast<double>(stats.examined) / std::max<std::uint64_t>(traversed, 1));
    m.delta = stats.delta_first;
    if (check) m.ok = m.ok && sssp::verify_certificate(g, s, r).passed();
    if (boost_check) m.ok = m.ok && sssp::verify(g, sssp::run_reference(g, s), r).passed();
  }
  auto med = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  m.ms = med(ms), m.gteps = med(gteps), m.rounds = med(rounds), m.relax_per_edge = med(work);
  return m;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"sssp_bench: GPU delta-stepping on the issue's graphs, with peers, ceilings and a delta sweep"};
  std::vector<std::string> graphs{"rmat:21", "uniform:21", "rmat:22", "uniform:22", "grid:22", "rmat:24"};
  std::string rome = std::string(GRAPHKIT_SOURCE_DIR) + "/datasets/rome99.gr";
  int sources_per_graph = 8, trials = 3;
  bool sweep = true;
  std::uint64_t seed = 1;
  app.add_option("--graphs", graphs, "Generator specs")->capture_default_str();
  app.add_option("--sources", sources_per_graph)->capture_default_str();
  app.add_option("--trials", trials, "Timed runs per source (after one warm-up)")->capture_default_str();
  app.add_option("--seed", seed)->capture_default_str();
  app.add_flag("!--no-sweep", sweep, "Skip the delta sweep");
  CLI11_PARSE(app, argc, argv);
  try {
    graphs.push_back(rome);
    const double ceiling = bench::gather_ceiling() / 1e9;
    // PERFORMANCE.md, same machine: (GAP 16 cores, Gunrock H100) in ms.
    const std::map<std::string, std::pair<double, double>> peers{{"rmat:21 hub", {70, 11}}, {"uniform:21", {109, 20.5}},
                                                                  {"rmat:22", {215, 0}}, {"uniform:22", {278, 0}}};
    std::printf("gather ceiling (random 8-byte reads over 1 GiB): %.1f G/s\n\n", ceiling);
    std::printf("| graph | sources | vertices | edges | delta | time ms | GTEPS | %% of gather ceiling | rounds | "
                "relax/edge | GAP ms (x) | Gunrock ms (x) | check |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    std::vector<std::string> sweep_rows;
    for (const std::string& spec : graphs) {
      const csr_graph g = build(spec, seed);
      sssp::gpu_solver solver(g);
      const bool is_rome = spec == rome;
      const std::string name = is_rome ? "rome99" : spec;
      std::vector<std::pair<std::string, std::vector<vertex_t>>> source_sets{
          {name, random_sources(g, sources_per_graph, seed)}};
      if (spec == "rmat:21") source_sets.push_back({"rmat:21 hub", {highest_degree(g)}});
      for (const auto& [label, sources] : source_sets) {
        const measured m = measure(solver, g, sources, {}, trials, true, is_rome);
        std::string gap = "-", gunrock = "-";
        if (auto it = peers.find(label); it != peers.end()) {
          char buf[64];
          std::snprintf(buf, sizeof buf, "%.0f (%.1fx)", it->second.first, it->second.first / m.ms);
          gap = buf;
          if (it->second.second > 0) {
            std::snprintf(buf, sizeof buf, "%.1f (%.1fx)", it->second.second, it->second.second / m.ms);
            gunrock = buf;
          }
        }
        std::printf("| %s | %zu | %u | %lu | %lu | %.2f | %.2f | %.0f%% | %.0f | %.2f | %s | %s | %s |\n", label.c_str(),
                    sources.size(), g.num_vertices, static_cast<unsigned long>(g.num_edges()),
                    static_cast<unsigned long>(m.delta), m.ms, m.gteps, 100 * m.gteps / ceiling, m.rounds,
                    m.relax_per_edge, gap.c_str(), gunrock.c_str(), m.ok ? "PASS" : "FAIL");
        std::fflush(stdout);
      }
      if (!sweep) continue;
      // The sweep uses four sources (the median of `trials` runs each): it ranks deltas.
      const std::vector<vertex_t> few = random_sources(g, 4, seed + 7);
      const std::uint64_t h = sssp::heuristic_delta(g);
      const double default_ms = measure(solver, g, few, {}, trials, false, false).ms;
      double best_ms = 1e30;
      std::uint64_t best_delta = h;
      std::string row = name + ":";
      std::uint64_t previous = 0;
      for (int k = -3; k <= 3; ++k) {
        const std::uint64_t d = std::max<std::uint64_t>(1, k < 0 ? h >> -k : h << k);
        if (d == previous) continue;  // small heuristics round several multiples to 1
        previous = d;
        const double t = measure(solver, g, few, {sssp::delta_choice::mode::fixed, d}, trials, false, false).ms;
        char buf[48];
        std::snprintf(buf, sizeof buf, " %lu=%.2f", static_cast<unsigned long>(d), t);
        row += buf;
        if (t < best_ms) best_ms = t, best_delta = d;
      }
      const double auto_ms = measure(solver, g, few, {sssp::delta_choice::mode::adaptive, 0}, trials, false, false).ms;
      char buf[160];
      std::snprintf(buf, sizeof buf, " | default %lu: %.2f ms, best %lu: %.2f ms (default %+.0f%%), auto: %.2f ms",
                    static_cast<unsigned long>(h), default_ms, static_cast<unsigned long>(best_delta), best_ms,
                    100 * (default_ms / best_ms - 1), auto_ms);
      sweep_rows.push_back(row + buf);
    }
    if (!sweep_rows.empty()) {
      std::printf("\ndelta sweep (ms per source, median of 4 sources; delta=ms):\n");
      for (const auto& r : sweep_rows) std::printf("  %s\n", r.c_str());
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  }
  return 0;
}
