// sssp: shortest-path distances from one or more sources.
#include <chrono>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <span>

#include "apps/common/options.hpp"
#include "apps/common/trials.hpp"
#include "apps/sssp/inputs.hpp"
#include "apps/sssp/sssp.hpp"
#include "primitives/common/error.hpp"

namespace graphkit::sssp {
namespace {

void write_distances(const csr_graph& g, const result& r, const std::string& path) {
  std::ofstream out(path);
  if (!out) throw make_input_error(path, 0, "cannot create output file");
  out << "# vertex distance (original ids)\n";
  for (vertex_t v = 0; v < g.num_vertices; ++v) {
    out << g.original_id(v) << ' ';
    if (r.distances[v] == kUnreachable) out << "unreachable\n";
    else out << r.distances[v] << '\n';
  }
  if (!out) throw make_input_error(path, 0, "write failed");
}

int run(apps::common_options& o, std::optional<original_id_t> source, std::size_t source_count,
        const std::string& delta_text, const solver_tuning& tuning) {
  const delta_choice delta = delta_text.empty() ? delta_choice{} : delta_choice::parse(delta_text);
  apps::resolve_device(o, apps::device_support::cpu_and_gpu);
  const bool on_gpu = o.device == "gpu";
  if (!delta_text.empty() && !on_gpu) throw input_error("--delta applies to --device gpu only");
  if ((tuning.relax_depth != solver_tuning::kAutoRelaxDepth || tuning.blocks != 0 ||
       tuning.edge_rows != solver_tuning::edge_rows_mode::automatic || !tuning.pool) &&
      !on_gpu)
    throw input_error("--relax-depth, --edge-rows, --pool and --solver-blocks apply to --device gpu only");

  apps::report r("sssp");
  apps::input_info info;
  apps::input_edges edges = apps::load_edges(o, r, info);
  check_weights(edges.host, o, info);
  apps::built_graph built = apps::build_input(std::move(edges), o, {}, r);
  if (o.validate || !on_gpu) built.fetch_adjacency();  // the oracles read the host copy
  else if (!source) built.fetch_offsets();             // random sources are vertices with edges
  const csr_graph& g = built.host;
  const std::vector<vertex_t> sources =
      source ? std::vector<vertex_t>{apps::dense_vertex_id(g, *source)} : pick_sources(g, source_count, o.seed);

  std::unique_ptr<gpu_solver> solver;
  gpu_stats stats, first_stats;
  result cpu_result;  // the CPU path's last solve
  if (on_gpu) {
    apps::phase_timer timer(r, "upload");  // the CSR is on the device already: the solver's own set-up
    solver = std::make_unique<gpu_solver>(std::move(built.device));
    solver->tune(tuning);
  }
  // The distances come to the host only where something reads them: the
  // oracle, and --output for the first source. Otherwise the GPU counts what
  // each solve reached itself (gpu_solver::reach).
  auto distances_wanted = [&](std::size_t s) { return o.validate || (s == 0 && !o.output.empty()); };
  // One timed run: CUDA events on the GPU, the host clock on the CPU.
  auto solve = [&](vertex_t s) {
    if (on_gpu) {
      nvtx_range range("run");
      solver->solve(s, delta, stats);
      return stats.seconds;
    }
    return apps::host_seconds([&] { cpu_result = run_reference(g, s); });
  };

  std::vector<double> rates;
  apps::verification checked;
  double validate_seconds = 0;
  reach_summary reach_first;
  result first;  // the first source's distances, for --output
  // What one source's trials leave: its rate, its check, the first's answer.
  auto source_done = [&](std::size_t s, double seconds) {
    result res;
    if (!on_gpu) res = std::move(cpu_result);
    else if (distances_wanted(s)) res = solver->distances();
    const reach_summary reach = on_gpu ? solver->reach() : reach_of(g, res);
    rates.push_back(reach.edges / std::max(seconds, 1e-12));
    if (o.verbose) {
      std::cout << "source " << g.original_id(sources[s]) << ": " << seconds * 1e3 << " ms, " << reach.edges
                << " edges traversed";
      if (on_gpu)
        std::cout << ", " << stats.rounds << " rounds (" << seconds * 1e6 / std::max<std::uint64_t>(stats.rounds, 1)
                  << " us each), delta " << stats.delta_first << " -> " << stats.delta_last;
      std::cout << "\n";
    }
    if (o.validate) {
      nvtx_range range("validate");
      const auto start = std::chrono::steady_clock::now();
      // The GPU answers to Boost; the CPU path (Boost itself) to a textbook Dijkstra.
      const result expected = on_gpu ? run_reference(g, sources[s]) : run_textbook_dijkstra(g, sources[s]);
      const apps::verification v = verify(g, expected, res);
      for (const auto& m : v.first) checked.mismatch("source " + std::to_string(g.original_id(sources[s])) + ", " + m);
      checked.mismatches += v.mismatches - v.first.size();
      validate_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    }
    if (s == 0) {  // after validation, which reads res
      reach_first = reach;
      first = std::move(res);
      first_stats = stats;
    }
  };
  // The warm-up (GPU only: module loads, first touches) runs before the first source.
  const std::vector<double> medians =
      apps::source_medians(apps::settings_of(o), std::span<const vertex_t>(sources), on_gpu, solve, source_done);
  r.add_phase("run", apps::median(medians));
  if (o.validate) r.add_phase("validate", validate_seconds);
  apps::output_phase(r, o.output, [&] { write_distances(g, first, o.output); });
  r.set("device",
        on_gpu ? std::string("gpu (delta-stepping)") : std::string("cpu (Boost.Graph dijkstra_shortest_paths)"));
  r.set("sources", std::uint64_t{sources.size()});
  r.set("first source", std::uint64_t{g.original_id(sources[0])});
  r.set("reached (first source)", reach_first.vertices);
  r.set("trials per source", std::int64_t{o.trials});
  r.set("GTEPS (median)", apps::median(rates) / 1e9);
  if (on_gpu) {
    const char* mode = delta.how == delta_choice::mode::adaptive ? "auto"
                       : delta.how == delta_choice::mode::fixed  ? "fixed"
                                                                 : "heuristic";
    r.set("delta mode", std::string(mode));
    r.set("delta (first source)",
          std::to_string(first_stats.delta_first) + (first_stats.delta_last != first_stats.delta_first
                                                         ? " -> " + std::to_string(first_stats.delta_last)
                                                         : std::string()));
    r.set("GPU distance width (bits)", std::uint64_t{first_stats.distance_bits});
    r.set("rounds (first source)", first_stats.rounds);
    r.set("us per round (first source)", first_stats.seconds * 1e6 / std::max<std::uint64_t>(first_stats.rounds, 1));
    r.set("relax depth", std::uint64_t{first_stats.relax_depth});
    r.set("edge rows", std::string(first_stats.edge_rows ? "yes" : "no"));
    r.set("in-phase pool", std::string(first_stats.pool ? "yes" : "no"));
    r.set("solver blocks", std::uint64_t{first_stats.blocks});
    r.set("GPU kernel", std::string(first_stats.shared_memory_kernel ? "one block, graph in shared memory"
                                                                     : "persistent, delta-stepping"));
    r.set("buckets (first source)", first_stats.buckets);
    r.set("epochs (first source)", first_stats.epochs);
    r.set("relaxations per edge (first source)",
          static_cast<double>(first_stats.examined) / std::max<std::uint64_t>(reach_first.edges, 1));
  }
  if (o.validate) r.set_validation(checked);
  return apps::finish(r, o);
}

}  // namespace
}  // namespace graphkit::sssp

int main(int argc, char** argv) {
  using namespace graphkit;
  CLI::App app{
      "sssp: shortest-path distances from a source vertex to every vertex of a graph.\n"
      "Unweighted graphs use weight 1; negative weights are refused. Distances are 64-bit."};
  apps::common_options o;
  std::optional<original_id_t> source;
  std::size_t source_count = 1;
  std::string delta;
  sssp::solver_tuning tuning;
  apps::add_common_options(app, o, true, apps::device_support::cpu_and_gpu);
  auto* source_opt = app.add_option("--source", source, "Source vertex, by its id in the input file");
  app.add_option("--sources", source_count, "Run from this many random sources (seeded), report the median")
      ->check(CLI::PositiveNumber)
      ->excludes(source_opt);
  app.add_option("--delta", delta,
                 "Bucket width for the GPU: a positive integer, or 'auto' to adapt it while running "
                 "(default: 256 x mean weight / mean degree^2 x sqrt(mean / RMS degree), x 4 on sparse, even graphs, x "
                 "sqrt(2^26 / edges) past 2^26 edges; x 16 more on sparse, even graphs that are not lattices, such as "
                 "roads, when the in-phase pool runs)");
  app.add_option(
         "--relax-depth", tuning.relax_depth,
         "Hops past the frontier a GPU warp relaxes within one round (0: one hop per round; "
         "default on sparse, even graphs such as meshes and roads (mean degree <= 8, RMS degree <= twice the mean): "
         "8 with edge rows, else 6 with the in-phase pool and 4 without; 0 on the rest)")
      ->check(CLI::Range(0, 255));
  const std::map<std::string, sssp::solver_tuning::edge_rows_mode> rows_modes = {
      {"auto", sssp::solver_tuning::edge_rows_mode::automatic},
      {"on", sssp::solver_tuning::edge_rows_mode::on},
      {"off", sssp::solver_tuning::edge_rows_mode::off}};
  std::string rows_text = "auto";
  app.add_option("--edge-rows", rows_text,
                 "GPU warps relax each vertex's first 4 edges from 32-byte rows, a lane per edge: auto | on | off "
                 "(default auto: on for meshes, sparse, even graphs whose vertices nearly all have at most 4 edges)")
      ->check(CLI::IsMember({"auto", "on", "off"}))
      ->each([&](const std::string& text) { tuning.edge_rows = rows_modes.at(text); });
  std::string pool_text = "on";
  app.add_option("--pool", pool_text,
                 "Where the relax depth is above 0, GPU warps share the vertices their own queues cannot take through "
                 "a pool within the phase, instead of leaving them to the next round: on | off (default on)")
      ->check(CLI::IsMember({"on", "off"}))
      ->each([&](const std::string& text) { tuning.pool = text == "on"; });
  app.add_option("--solver-blocks", tuning.blocks,
                 "Blocks of the GPU solver's persistent kernel (default: as many as can be resident)")
      ->check(CLI::PositiveNumber);
  app.add_option("--output", o.output, "Write 'vertex distance' lines (original ids) for the first source");
  if (auto code = apps::parse_command_line(app, argc, argv)) return *code;
  return apps::guarded_main([&] { return sssp::run(o, source, source_count, delta, tuning); });
}
