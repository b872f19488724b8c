// tricount: exact triangle count of a graph taken as undirected.
#include <algorithm>
#include <fstream>
#include <iostream>

#include "apps/common/options.hpp"
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

int run(apps::common_options& o, bool per_vertex) {
  apps::resolve_device(o, apps::device_support::cpu_only);
  apps::report r("tricount");
  apps::input_info info;
  coo_graph coo = apps::load_input(o, r, info);
  clean_options rules;
  rules.symmetrize = true;
  rules.drop_self_loops = true;
  rules.drop_duplicates = true;
  const csr_graph g = apps::build_input(std::move(coo), o, rules, r);

  result res;
  const std::vector<double> times = apps::time_trials(o.trials, [&] { res = run_reference(g, per_vertex); });
  if (o.verbose)
    for (std::size_t t = 0; t < times.size(); ++t) std::cout << "trial " << t << ": " << times[t] * 1e3 << " ms\n";
  r.add_phase("run", apps::median(times));
  if (!o.output.empty()) {
    apps::phase_timer timer(r, "output");
    write_per_vertex(g, res, o.output);
  }
  if (o.validate) {
    apps::verification v;
    {
      apps::phase_timer timer(r, "validate");
      v = verify(g, count_by_merge(g, per_vertex), res);
    }
    r.set_validation(std::move(v));
  }
  r.set("device", o.device + " (Boost.Graph num_triangles_on_vertex)");
  r.set("triangles", res.triangles);
  r.set("global clustering", global_clustering(g, res.triangles));
  if (per_vertex && !res.per_vertex.empty())
    r.set("max per vertex", *std::max_element(res.per_vertex.begin(), res.per_vertex.end()));
  r.set("Medges/s", g.num_edges() / 2 / std::max(r.phase_seconds("run"), 1e-12) / 1e6);
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
  apps::add_common_options(app, o);
  auto* pv = app.add_flag("--per-vertex", per_vertex, "Also count the triangles through each vertex");
  app.add_option("--output", o.output, "Write 'vertex triangles' lines (original ids); needs --per-vertex")->needs(pv);
  if (auto code = apps::parse_command_line(app, argc, argv)) return *code;
  return apps::guarded_main([&] { return tricount::run(o, per_vertex); });
}
