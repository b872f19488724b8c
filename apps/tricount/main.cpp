// tricount: exact triangle count of a graph taken as undirected.
#include <algorithm>
#include <fstream>
#include <iostream>
#include <memory>

#include "apps/common/options.hpp"
#include "apps/common/trials.hpp"
#include "apps/tricount/tricount.hpp"
#include "primitives/common/error.hpp"

namespace graphkit::tricount {
namespace {

void write_per_vertex(const csr_graph& g, const result& r, const std::string& path) {
  std::ofstream out(path);
  if (!out) throw make_input_error(path, 0, "cannot create output file");
  out << "# vertex triangles (original ids)\n";
  for (vertex_t v = 0; v < g.num_vertices; ++v) out << g.original_id(v) << ' ' << r.per_vertex[v] << '\n';
  if (!out) throw make_input_error(path, 0, "write failed");
}

int run(apps::common_options& o, bool per_vertex, const std::string& method_text, const std::string& walk_text) {
  apps::resolve_device(o, apps::device_support::cpu_and_gpu);
  const bool on_gpu = o.device == "gpu";
  const method chosen = parse_method(method_text);
  // An empty --walk is the default, auto.
  const walk walked = walk_text.empty() ? walk::automatic : parse_walk(walk_text);
  if (!on_gpu && walked != walk::automatic) throw input_error("--walk applies to --device gpu only");
  if (!on_gpu && chosen != method::automatic) throw input_error("--method applies to --device gpu only");
  apps::report r("tricount");
  apps::input_info info;
  apps::input_edges edges = apps::load_edges(o, r, info);
  // Triangles ignore weights: without them the build sorts keys alone.
  edges.host.weights = {};
  edges.device.weights = {};
  apps::built_graph built = apps::build_input(std::move(edges), o, simple_undirected_rules(), r);
  if (o.validate || !on_gpu) built.fetch_adjacency();  // the oracles read the host copy
  const csr_graph& g = built.host;

  result res;
  std::unique_ptr<gpu_counter> counter;
  gpu_stats stats;
  std::vector<double> times;
  std::uint64_t wedge_count = 0;
  if (on_gpu) {
    {
      apps::phase_timer timer(r, "upload");
      wedge_count = wedges(built.device);                                // before the counter takes the CSR
      counter = std::make_unique<gpu_counter>(std::move(built.device));  // already on the device
    }
    times = apps::run_trials(r, o, {{"preprocess", "count"}, true}, [&] {
      res = counter->run(chosen, per_vertex, stats, walked);
      return std::vector<double>{stats.preprocess_seconds, stats.count_seconds()};
    });
  } else {
    wedge_count = wedges(g);
    // No warm-up: the CPU path is the oracle, and on a big graph one run is long.
    times = apps::run_trials(r, o, {{"run"}, false}, [&] {
      return std::vector<double>{apps::host_seconds([&] { res = run_reference(g, per_vertex); })};
    });
  }
  apps::output_phase(r, o.output, [&] { write_per_vertex(g, res, o.output); });
  apps::validate_phase(r, o, [&] {
    // The GPU answers to Boost where Boost can finish, else to the merge
    // count; the CPU path (Boost itself) answers to the merge count.
    const bool use_boost = on_gpu && boost_can_check(g);
    r.set("validated against", std::string(use_boost ? "Boost.Graph" : "multithreaded merge count"));
    return verify(g, use_boost ? run_reference(g, per_vertex) : count_by_merge(g, per_vertex), res);
  });
  if (on_gpu) {
    r.set("device", std::string("gpu (oriented, ") + method_name(chosen) + ")");
    // The walk that ran, and what chose it: auto's rule reads the two sums
    // (apps/tricount/method.cpp), reported under every walk.
    r.set("walk", std::string(walk_name(stats.walked)));
    r.set("walk chosen by", std::string(walked == walk::automatic ? "auto" : "--walk"));
    r.set("out-lists paths", stats.walk_stats.out_lists_paths);
    r.set("sum of squared out-degrees", stats.walk_stats.out_degree_squares);
    r.set("method (light / heavy vertices)",
          std::string(method_name(stats.light_method)) + " / " + method_name(stats.heavy_method));
    r.set("light / heavy vertices", std::to_string(stats.light) + " / " + std::to_string(stats.heavy));
  } else {
    r.set("device", std::string("cpu (Boost.Graph num_triangles_on_vertex)"));
  }
  r.set("triangles", res.triangles);
  r.set("global clustering", global_clustering_of(wedge_count, res.triangles));
  if (per_vertex && !res.per_vertex.empty())
    r.set("max per vertex", *std::max_element(res.per_vertex.begin(), res.per_vertex.end()));
  r.set("Medges/s", built.stored_edges / 2 / std::max(apps::median(times), 1e-12) / 1e6);
  return apps::finish(r, o);
}

}  // namespace
}  // namespace graphkit::tricount

int main(int argc, char** argv) {
  using namespace graphkit;
  CLI::App app{
      "tricount: exact number of triangles in a graph, taken as undirected\n"
      "(edges symmetrized, self-loops and duplicate edges dropped, weights ignored)."};
  apps::common_options o;
  bool per_vertex = false;
  std::string method_text = "auto";
  std::string walk_text;
  apps::add_common_options(app, o, true, apps::device_support::cpu_and_gpu);
  app.add_option("--method", method_text,
                 "GPU intersection: auto (per vertex class, see docs/design.md), merge, hash or bitmap")
      ->check(CLI::IsMember({"auto", "merge", "hash", "bitmap"}))
      ->capture_default_str();
  app.add_option("--walk", walk_text,
                 "GPU walk: auto (the default: shorter-side on skewed graphs, out-lists on near-regular ones), "
                 "shorter-side (each edge's shorter out-list) or out-lists (see docs/design.md)")
      ->check(CLI::IsMember({"auto", "shorter-side", "out-lists"}));
  auto* pv = app.add_flag("--per-vertex", per_vertex, "Also count the triangles through each vertex");
  app.add_option("--output", o.output, "Write 'vertex triangles' lines (original ids); needs --per-vertex")->needs(pv);
  if (auto code = apps::parse_command_line(app, argc, argv)) return *code;
  return apps::guarded_main([&] { return tricount::run(o, per_vertex, method_text, walk_text); });
}
