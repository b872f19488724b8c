// GPU delta-stepping SSSP on the issue's graphs (R-MAT 21/22/24, uniform
// 21/22 with weights 1..255, undirected; the road-like road:22 with its length
// weights and a 2^22-vertex grid with weights 1..255, undirected; rome99),
// 8 random sources each (the sssp app's own pick for the same --seed): the
// median over sources of each source's median time (CUDA events, after a
// warm-up: the app's own trial loop, apps/common/trial_loop.hpp), GTEPS,
// rounds and time per round (the two levers of a long-path graph: fewer
// rounds, cheaper rounds), work, the peers' figures from PERFORMANCE.md, and
// the gather ceiling measured in this run (a relaxation needs one random
// 8-byte distance read). Every source's distances are checked
// by the O(m) certificate (verify_certificate); the road-like graphs
// (--against-gap) also against Boost's Dijkstra, and GAP runs on the very
// graph, written to a file, in the same run (bench/common/gap_sssp.hpp). Then a
// delta sweep per graph: the default's time against the best of its delta x
// 2^k, k = -3..3, and --delta auto.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>
#include <span>

#include "apps/common/trial_loop.hpp"
#include "apps/sssp/inputs.hpp"
#include "apps/sssp/sssp.hpp"
#include "bench/common/gap_sssp.hpp"
#include "bench/common/gather_ceiling.cuh"
#include "graph/build.hpp"
#include "graph/detail/parallel.hpp"
#include "graph/generate/generators.hpp"
#include "graph/io/format.hpp"
#include "graph/io/load.hpp"
#include "primitives/common/device_buffer.hpp"

namespace {

using namespace graphkit;

// A spec's graph, cleaned as the apps clean it: generated graphs undirected
// with weights 1..255, except road's own lengths; .gr files directed as
// published. With `gap_file`, also written there as DIMACS (every arc, ids + 1).
csr_graph build(const std::string& spec, std::uint64_t seed, const std::string& gap_file) {
  const bool file = spec.ends_with(".gr");
  coo_graph coo = file ? load_graph(spec).graph : generate(spec, seed);
  clean_options rules;
  rules.symmetrize = !file;  // rome99 stays directed, as published
  rules.drop_self_loops = rules.drop_duplicates = true;
  rules.random_weights = !file && !spec.starts_with("road:");
  rules.seed = seed;
  (void)clean(coo, rules);
  if (!gap_file.empty()) write_graph(coo, gap_file, file_format::dimacs);
  return to_csr(std::move(coo));
}

vertex_t highest_degree(const csr_graph& g) {
  vertex_t best = 0;
  for (vertex_t v = 1; v < g.num_vertices; ++v)
    if (g.degree(v) > g.degree(best)) best = v;
  return best;
}

struct measured {
  double ms = 0;     // median over sources of the per-source median
  double gteps = 0;  // median over sources
  double rounds = 0, us_per_round = 0, relax_per_edge = 0;
  std::uint64_t delta = 0;
  bool ok = true;
};

enum class check { none, certificate, certificate_and_boost };

/// The sources timed as the sssp app times them (apps/common/trial_loop.hpp:
/// one warm-up, `trials` solves per source, each source's median), so that
/// the same graph, --seed, --sources and --trials give the app's figures.
measured measure(sssp::gpu_solver& solver, const csr_graph& g, const std::vector<vertex_t>& sources,
                 const sssp::delta_choice& delta, int trials, check checks) {
  measured m;
  std::vector<double> gteps, rounds, per_round, work;
  std::vector<sssp::result> answers;  // for Boost, which runs on all sources at once
  sssp::gpu_stats stats;
  auto solve = [&](vertex_t s) {
    solver.solve(s, delta, stats);
    return stats.seconds;
  };
  auto source_done = [&](std::size_t i, double seconds) {
    const std::uint64_t traversed = solver.reach().edges;
    gteps.push_back(traversed / seconds / 1e9);
    rounds.push_back(static_cast<double>(stats.rounds));
    per_round.push_back(seconds * 1e6 / static_cast<double>(std::max<std::uint64_t>(stats.rounds, 1)));
    work.push_back(static_cast<double>(stats.examined) / std::max<std::uint64_t>(traversed, 1));
    m.delta = stats.delta_first;
    if (checks == check::none) return;
    sssp::result r = solver.distances();
    m.ok = m.ok && sssp::verify_certificate(g, sources[i], r).passed();
    if (checks == check::certificate_and_boost) answers.push_back(std::move(r));
  };
  const std::vector<double> seconds =
      apps::source_medians(apps::trial_settings{trials}, std::span<const vertex_t>(sources), true, solve, source_done);
  if (!answers.empty()) {
    std::vector<char> passed(answers.size(), 0);
    detail::parallel_parts(answers.size(), [&](std::size_t i) {
      passed[i] = sssp::verify(g, sssp::run_reference(g, sources[i]), answers[i]).passed();
    });
    m.ok = m.ok && std::all_of(passed.begin(), passed.end(), [](char p) { return p != 0; });
  }
  m.ms = median(seconds) * 1e3, m.gteps = median(gteps), m.rounds = median(rounds), m.us_per_round = median(per_round);
  m.relax_per_edge = median(work);
  return m;
}

// A time in ms with three significant digits below 1 ms (rome99's target is
// 0.1 ms: two decimals would round 0.104 and 0.096 alike), two decimals above.
std::string ms_text(double ms) {
  char buf[32];
  std::snprintf(buf, sizeof buf, ms < 1 ? "%.3f" : "%.2f", ms);
  return buf;
}

// "GAP ms (x)" for a row GAP ran on in this run: its best delta's median, and
// how many times faster ours is.
std::string gap_cell(const std::optional<bench::gap_result>& gap, double ours_ms) {
  if (!gap) return "n/a";
  char buf[96];
  std::snprintf(buf, sizeof buf, "%s d%lu (%.1fx)", ms_text(gap->ms).c_str(), static_cast<unsigned long>(gap->delta),
                gap->ms / ours_ms);
  return buf;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"sssp_bench: GPU delta-stepping on the issue's graphs, with peers, ceilings and a delta sweep"};
  std::vector<std::string> graphs{"rmat:21", "uniform:21", "rmat:22", "uniform:22", "road:22", "grid:22", "rmat:24"};
  std::vector<std::string> against_gap{"road:22", "grid:22", "rome99"};
  std::vector<std::uint64_t> gap_deltas{1, 16, 256, 2048};
  std::string rome = std::string(GRAPHKIT_SOURCE_DIR) + "/datasets/rome99.gr";
  std::string workdir = (std::filesystem::temp_directory_path() / "graphkit_sssp_bench").string();
  bench::gap_anchor gap_anchor{".anchors", 16};
  int sources_per_graph = 8, trials = 3;
  bool sweep = true;
  std::uint64_t seed = 1;
  app.add_option("--graphs", graphs, "Generator specs (rome99 always comes last)")->capture_default_str();
  app.add_option("--sources", sources_per_graph)->capture_default_str();
  app.add_option("--trials", trials, "Timed runs per source (after one warm-up where more than one); GAP's -n too")
      ->capture_default_str();
  app.add_option("--seed", seed)->capture_default_str();
  app.add_flag("!--no-sweep", sweep, "Skip the delta sweep");
  app.add_option("--against-gap", against_gap,
                 "Graphs (specs, or rome99) also checked against Boost's Dijkstra and run by GAP on the same file")
      ->capture_default_str();
  app.add_option("--anchors", gap_anchor.dir, "Folder with gap-sssp and gap-converter (GAP prints n/a without it)")
      ->capture_default_str();
  app.add_option("--gap-threads", gap_anchor.threads, "OMP_NUM_THREADS for GAP")->capture_default_str();
  app.add_option("--gap-deltas", gap_deltas, "GAP's deltas; the best is reported")->capture_default_str();
  app.add_option("--workdir", workdir, "Where the graphs GAP reads are written (and removed after)")
      ->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  try {
    graphs.push_back(rome);
    const bool gap_ready = gap_anchor.available();
    if (!gap_ready)
      std::fprintf(stderr, "note: no gap-sssp and gap-converter in '%s': GAP prints n/a\n", gap_anchor.dir.c_str());
    const double ceiling = bench::gather_ceiling() / 1e9;
    // PERFORMANCE.md, same machine: (GAP 16 cores, Gunrock H100) in ms.
    const std::map<std::string, std::pair<double, double>> peers{
        {"rmat:21 hub", {70, 11}}, {"uniform:21", {109, 20.5}}, {"rmat:22", {215, 0}}, {"uniform:22", {278, 0}}};
    std::printf("gather ceiling (random 8-byte reads over 1 GiB): %.1f G/s\n", ceiling);
    std::printf("GAP: gap-sssp with %d threads in this run on the same graph file, best of deltas", gap_anchor.threads);
    for (const std::uint64_t d : gap_deltas) std::printf(" %lu", static_cast<unsigned long>(d));
    std::printf(
        " (each from 2 sources), then its median over the sources at that delta, and ours faster by (x);\n"
        "other GAP and Gunrock figures from PERFORMANCE.md. check: certificate, and Boost's Dijkstra on "
        "every source where it says so\n\n");
    std::printf(
        "| graph | sources | vertices | edges | delta | time ms | GTEPS | %% of gather ceiling | rounds | "
        "us/round | relax/edge | GAP ms (x) | Gunrock ms (x) | check |\n"
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    std::vector<std::string> sweep_rows, gap_rows;
    for (const std::string& spec : graphs) {
      const bool is_rome = spec == rome;
      const std::string name = is_rome ? "rome99" : spec;
      const bool road_like = std::find(against_gap.begin(), against_gap.end(), name) != against_gap.end();
      std::string gap_file;
      if (road_like && gap_ready) {
        std::filesystem::create_directories(workdir);
        std::string stem = name;
        std::replace(stem.begin(), stem.end(), ':', '_');
        gap_file = (std::filesystem::path(workdir) / (stem + ".gr")).string();
      }
      const csr_graph g = build(spec, seed, gap_file);
      sssp::gpu_solver solver(g);
      std::vector<std::pair<std::string, std::vector<vertex_t>>> source_sets{
          {name, sssp::pick_sources(g, sources_per_graph, seed)}};
      if (spec == "rmat:21") source_sets.push_back({"rmat:21 hub", {highest_degree(g)}});
      for (const auto& [label, sources] : source_sets) {
        const measured m =
            measure(solver, g, sources, {}, trials, road_like ? check::certificate_and_boost : check::certificate);
        std::string gap = "-", gunrock = "-";
        if (road_like) {
          std::optional<bench::gap_result> measured_gap;
          if (!gap_file.empty()) {
            if (const std::optional<std::string> wsg = bench::gap_serialize(gap_anchor, gap_file)) {
              measured_gap = bench::gap_best(gap_anchor, *wsg, sources, gap_deltas, trials);
              std::filesystem::remove(*wsg);
            }
            std::filesystem::remove(gap_file);
          }
          gap = gap_cell(measured_gap, m.ms);
          if (measured_gap) gap_rows.push_back(name + ": " + measured_gap->sweep);
        } else if (auto it = peers.find(label); it != peers.end()) {
          char buf[64];
          std::snprintf(buf, sizeof buf, "%.0f (%.1fx)", it->second.first, it->second.first / m.ms);
          gap = buf;
          if (it->second.second > 0) {
            std::snprintf(buf, sizeof buf, "%.1f (%.1fx)", it->second.second, it->second.second / m.ms);
            gunrock = buf;
          }
        }
        std::printf("| %s | %zu | %u | %lu | %lu | %s | %.2f | %.0f%% | %.0f | %.2f | %.2f | %s | %s | %s |\n",
                    label.c_str(), sources.size(), g.num_vertices, static_cast<unsigned long>(g.num_edges()),
                    static_cast<unsigned long>(m.delta), ms_text(m.ms).c_str(), m.gteps, 100 * m.gteps / ceiling,
                    m.rounds, m.us_per_round, m.relax_per_edge, gap.c_str(), gunrock.c_str(),
                    !m.ok       ? "FAIL"
                    : road_like ? "PASS (Boost)"
                                : "PASS");
        std::fflush(stdout);
      }
      if (!sweep) continue;
      // The sweep uses four sources (the median of `trials` runs each): it ranks deltas.
      const std::vector<vertex_t> few = sssp::pick_sources(g, 4, seed + 7);
      // Around the solver's own default: heuristic_delta, or 16x it on roads with the pool.
      const measured by_default = measure(solver, g, few, {}, trials, check::none);
      const std::uint64_t h = by_default.delta;
      const double default_ms = by_default.ms;
      double best_ms = 1e30;
      std::uint64_t best_delta = h;
      std::string row = name + ":";
      std::uint64_t previous = 0;
      for (int k = -3; k <= 3; ++k) {
        const std::uint64_t d = std::max<std::uint64_t>(1, k < 0 ? h >> -k : h << k);
        if (d == previous) continue;  // small heuristics round several multiples to 1
        previous = d;
        const double t = measure(solver, g, few, {sssp::delta_choice::mode::fixed, d}, trials, check::none).ms;
        char buf[48];
        std::snprintf(buf, sizeof buf, " %lu=%s", static_cast<unsigned long>(d), ms_text(t).c_str());
        row += buf;
        if (t < best_ms) best_ms = t, best_delta = d;
      }
      const double auto_ms = measure(solver, g, few, {sssp::delta_choice::mode::adaptive, 0}, trials, check::none).ms;
      char buf[160];
      std::snprintf(buf, sizeof buf, " | default %lu: %s ms, best %lu: %s ms (default %+.0f%%), auto: %s ms",
                    static_cast<unsigned long>(h), ms_text(default_ms).c_str(), static_cast<unsigned long>(best_delta),
                    ms_text(best_ms).c_str(), 100 * (default_ms / best_ms - 1), ms_text(auto_ms).c_str());
      sweep_rows.push_back(row + buf);
    }
    if (!sweep_rows.empty()) {
      std::printf("\ndelta sweep (ms per source, median of 4 sources; delta=ms):\n");
      for (const auto& r : sweep_rows) std::printf("  %s\n", r.c_str());
    }
    if (!gap_rows.empty()) {
      std::printf("\nGAP's delta sweep (ms per source, one run from each of the first 2 sources; delta=ms):\n");
      for (const auto& r : gap_rows) std::printf("  %s\n", r.c_str());
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  }
  return 0;
}
