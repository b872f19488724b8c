// dedup: clean an edge list (duplicates, self-loops, sparse ids) and write it.
#include <iostream>

#include "apps/common/options.hpp"
#include "apps/common/trials.hpp"
#include "apps/dedup/dedup.hpp"
#include "primitives/common/error.hpp"

namespace graphkit::dedup {
namespace {

int run(apps::common_options& o, const params& p, relabel_order order, const std::string& out_path,
        const std::string& out_format) {
  apps::resolve_device(o, apps::device_support::cpu_and_gpu);
  const bool on_gpu = o.device == "gpu";
  apps::report r("dedup");
  apps::input_info info;
  coo_graph input = apps::load_input(o, r, info, order);
  // Weights are drawn before the copy for the oracle, so both see the same.
  if (o.random_weights) assign_random_weights(input, o.seed);
  coo_graph cleaned;
  clean_stats stats;
  // Each run cleans a fresh copy of the input, made outside the timing.
  apps::run_trials(
      r, o, {{"run"}, on_gpu},
      [&] {
        return std::vector<double>{
            apps::host_seconds([&] { stats = on_gpu ? run_gpu(cleaned, p) : run_cpu(cleaned, p); })};
      },
      [&] { cleaned = input; });
  std::optional<file_format> f;
  if (!out_format.empty()) {
    f = parse_format_name(out_format);
    if (!f) throw input_error("--out-format '" + out_format + "' is not one of " + std::string(format_choices()));
  }
  apps::output_phase(r, out_path, [&] { write_graph(cleaned, out_path, f); });
  apps::validate_phase(r, o, [&] { return verify(run_reference(input, p), cleaned); });
  r.set("device", on_gpu ? std::string("gpu (hash-table pipeline)") : std::string("cpu (sort-based clean)"));
  r.set("duplicates removed", std::uint64_t{stats.duplicates_removed});
  r.set("self-loops removed", std::uint64_t{stats.self_loops_removed});
  r.set("output edges", std::uint64_t{cleaned.num_edges()});
  r.set("vertices", std::uint64_t{cleaned.num_vertices});
  r.set("Medges/s", stats.input_edges / std::max(r.phase_seconds("run"), 1e-12) / 1e6);
  return apps::finish(r, o);
}

}  // namespace
}  // namespace graphkit::dedup

int main(int argc, char** argv) {
  using namespace graphkit;
  CLI::App app{
      "dedup: clean an edge list and write it. Vertex ids are compacted to 0..n-1 (the written\n"
      "edge list keeps the original ids), duplicate edges merged, self-loops dropped."};
  apps::common_options o;
  dedup::params p;
  std::string out_path, out_format, weights = "min", relabel = "sorted";
  apps::add_common_options(app, o, false, apps::device_support::cpu_and_gpu);
  app.add_option("input", o.input, "Input graph file (any format sssp and tricount read)")->required();
  app.add_option("output", out_path, "Output file; its extension picks the format unless --out-format")->required();
  app.add_option("--out-format", out_format, std::string("Output format: ") + std::string(format_choices()));
  app.add_flag("--keep-self-loops", p.keep_self_loops, "Keep edges from a vertex to itself");
  app.add_option("--weights", weights, "Which weight a set of duplicate edges keeps: min, first or sum")
      ->check(CLI::IsMember({"min", "first", "sum"}))
      ->capture_default_str();
  app.add_option("--relabel", relabel, "Dense id order: sorted (by original id) or first-seen (by first appearance)")
      ->check(CLI::IsMember({"sorted", "first-seen"}))
      ->capture_default_str();
  if (auto code = apps::parse_command_line(app, argc, argv)) return *code;
  p.symmetrize = o.symmetrize;
  p.keep = weights == "min"     ? duplicate_weight::min
           : weights == "first" ? duplicate_weight::first
                                : duplicate_weight::sum;
  const relabel_order order = relabel == "sorted" ? relabel_order::sorted : relabel_order::first_seen;
  return apps::guarded_main([&] { return dedup::run(o, p, order, out_path, out_format); });
}
