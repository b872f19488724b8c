#include "python/src/calls.hpp"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <chrono>
#include <cmath>
#include <limits>
#include <memory>
#include <variant>

#include "apps/sssp/inputs.hpp"
#include "apps/sssp/sssp.hpp"
#include "apps/tricount/tricount.hpp"
#include "graph/generate/generators.hpp"
#include "graph/io/load.hpp"
#include "primitives/common/error.hpp"

namespace py = pybind11;

namespace graphkit::python {
namespace {

apps::common_options common_of(const call_options& c) {
  apps::common_options o;
  o.symmetrize = c.symmetrize;
  o.random_weights = c.random_weights;
  o.seed = c.seed;
  o.device = c.device;
  o.validate = c.validate;
  return o;
}

/// A numpy array that owns the vector's (or host_array's) memory (no copy). Needs the GIL.
template <class T, class Alloc>
py::array_t<T> to_numpy(std::vector<T, Alloc>&& v) {
  using owner = std::vector<T, Alloc>;
  auto* owned = new owner(std::move(v));
  py::capsule free_when_done(owned, [](void* p) { delete static_cast<owner*>(p); });
  // The shape-only constructor takes the strides from sizeof(T); the count-only
  // one asks the dtype, whose layout pybind11 < 2.12 reads as numpy 1's.
  return py::array_t<T>(py::array::ShapeContainer{static_cast<py::ssize_t>(owned->size())}, owned->data(),
                        free_when_done);
}

/// The original ids as numpy (None where they are the identity). Needs the GIL.
py::object ids_of(std::vector<original_id_t>&& ids) {
  if (ids.empty()) return py::none();
  return to_numpy(std::move(ids));
}

/// Phases, metrics and warnings of a report, and the validation outcome. Needs the GIL.
void put_report(py::dict& out, const apps::report& r, const apps::verification* checked) {
  py::dict timings, metrics;
  for (const auto& [name, seconds] : r.phases()) {
    const py::str key(name);
    timings[key] = timings.contains(key) ? timings[key].cast<double>() + seconds : seconds;
  }
  for (const auto& [name, value] : r.metrics())
    std::visit([&, &name = name](const auto& v) { metrics[py::str(name)] = v; }, value);
  out["timings"] = timings;
  out["metrics"] = metrics;
  out["warnings"] = py::cast(r.warnings());
  if (checked != nullptr) {
    py::dict v;
    v["mismatches"] = checked->mismatches;
    v["first"] = py::cast(checked->first);
    out["validation"] = v;
  } else {
    out["validation"] = py::none();
  }
}

/// --out-format / --format as the command lines parse it.
std::optional<file_format> format_of(const std::string& name, const char* option) {
  if (name.empty()) return std::nullopt;
  const std::optional<file_format> f = parse_format_name(name);
  if (!f) throw input_error(std::string(option) + "='" + name + "' is not one of " + std::string(format_choices()));
  return f;
}

/// The edge dict of generate_edges and run_dedup. Needs the GIL.
void put_edges(py::dict& out, coo_graph&& g, bool weighted) {
  out["num_vertices"] = g.num_vertices;
  out["directed"] = g.directed;
  out["weights"] = weighted ? py::object(to_numpy(std::move(g.weights))) : py::none();
  out["src"] = to_numpy(std::move(g.src));
  out["dst"] = to_numpy(std::move(g.dst));
  out["ids"] = ids_of(std::move(g.original_ids));
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

py::dict run_sssp(const graph_input& in, const std::vector<original_id_t>& source_ids, std::size_t random_sources,
                  const call_options& options, const std::string& delta_text) {
  apps::common_options o = common_of(options);
  apps::report r("sssp");
  apps::verification checked;
  py::array_t<double> distances;  // made with the GIL, filled without it
  std::vector<vertex_t> sources;
  std::vector<original_id_t> ids;
  std::vector<double> run_seconds;
  {
    py::gil_scoped_release nogil;
    const sssp::delta_choice delta = delta_text.empty() ? sssp::delta_choice{} : sssp::delta_choice::parse(delta_text);
    apps::resolve_device(o, apps::device_support::cpu_and_gpu);
    const bool on_gpu = o.device == "gpu";
    if (!delta_text.empty() && !on_gpu) throw input_error("delta applies to device='gpu' only");

    apps::built_graph built;
    if (in.what == graph_input::kind::csr) {
      built = load_csr(in, o, r);
    } else {
      apps::input_info info;
      apps::input_edges edges = load_edges(in, o, r, info, !o.random_weights, true);
      sssp::check_weights(edges.host, o, info);
      check_interrupt();
      built = apps::build_input(std::move(edges), o, {}, r);
    }
    check_interrupt();
    if (o.validate || !on_gpu) built.fetch_adjacency();  // the oracles read the host copy
    else if (source_ids.empty()) built.fetch_offsets();  // random sources are vertices with edges
    const csr_graph& g = built.host;
    if (source_ids.empty()) {
      sources = sssp::pick_sources(g, random_sources, o.seed);
    } else {
      for (const original_id_t s : source_ids) sources.push_back(apps::dense_vertex_id(g, s));
    }
    const std::size_t n = g.num_vertices;
    double* out = nullptr;
    {
      py::gil_scoped_acquire gil;
      distances = py::array_t<double>({static_cast<py::ssize_t>(sources.size()), static_cast<py::ssize_t>(n)});
      out = distances.mutable_data();
    }
    std::unique_ptr<sssp::gpu_solver> solver;
    sssp::gpu_stats stats;
    if (on_gpu) {
      apps::phase_timer timer(r, "upload");  // the CSR is on the device already: the solver's own set-up
      solver = std::make_unique<sssp::gpu_solver>(std::move(built.device));
    }
    double validate_seconds = 0;
    for (std::size_t s = 0; s < sources.size(); ++s) {
      sssp::result res;
      if (on_gpu) {
        res = solver->run(sources[s], delta, stats);
        run_seconds.push_back(stats.seconds);
      } else {
        const auto start = std::chrono::steady_clock::now();
        res = sssp::run_reference(g, sources[s]);
        run_seconds.push_back(seconds_since(start));
      }
      double* row = out + s * n;
      for (std::size_t v = 0; v < n; ++v)
        row[v] = res.distances[v] == sssp::kUnreachable ? std::numeric_limits<double>::infinity()
                                                        : static_cast<double>(res.distances[v]);
      if (o.validate) {
        const auto start = std::chrono::steady_clock::now();
        // As the command line: the GPU answers to Boost, the CPU path (Boost) to a textbook Dijkstra.
        const sssp::result expected =
            on_gpu ? sssp::run_reference(g, sources[s]) : sssp::run_textbook_dijkstra(g, sources[s]);
        const apps::verification v = sssp::verify(g, expected, res);
        for (const auto& m : v.first)
          checked.mismatch("source " + std::to_string(g.original_id(sources[s])) + ", " + m);
        checked.mismatches += v.mismatches - v.first.size();
        validate_seconds += seconds_since(start);
      }
      check_interrupt();
    }
    double total = 0;
    for (const double t : run_seconds) total += t;
    r.add_phase("run", total);
    if (o.validate) r.add_phase("validate", validate_seconds);
    r.set("device",
          on_gpu ? std::string("gpu (delta-stepping)") : std::string("cpu (Boost.Graph dijkstra_shortest_paths)"));
    if (on_gpu) {
      r.set("delta (last source)", stats.delta_first);
      r.set("GPU distance width (bits)", std::uint64_t{stats.distance_bits});
      r.set("rounds (last source)", stats.rounds);
    }
    ids = std::move(built.host.original_ids);
  }
  py::dict out;
  out["distances"] = distances;
  out["sources"] = to_numpy(std::move(sources));
  out["run_seconds"] = to_numpy(std::move(run_seconds));
  out["ids"] = ids_of(std::move(ids));
  put_report(out, r, options.validate ? &checked : nullptr);
  return out;
}

py::dict run_triangles(const graph_input& in, bool per_vertex, const std::string& method_text,
                       const call_options& options) {
  apps::common_options o = common_of(options);
  apps::report r("tricount");
  apps::verification checked;
  tricount::result res;
  std::vector<original_id_t> ids;
  {
    py::gil_scoped_release nogil;
    apps::resolve_device(o, apps::device_support::cpu_and_gpu);
    const bool on_gpu = o.device == "gpu";
    const tricount::method chosen = tricount::parse_method(method_text);
    if (!on_gpu && chosen != tricount::method::automatic) throw input_error("method applies to device='gpu' only");
    apps::input_info info;
    apps::input_edges edges = load_edges(in, o, r, info, false, false);
    // Triangles ignore weights: without them the build sorts keys alone.
    edges.host.weights = {};
    edges.device.weights = {};
    check_interrupt();
    clean_options rules;
    rules.symmetrize = true;
    rules.drop_self_loops = true;
    rules.drop_duplicates = true;
    apps::built_graph built = apps::build_input(std::move(edges), o, rules, r);
    check_interrupt();
    if (o.validate || !on_gpu) built.fetch_adjacency();
    const csr_graph& g = built.host;
    std::uint64_t wedge_count = 0;
    if (on_gpu) {
      std::unique_ptr<tricount::gpu_counter> counter;
      {
        apps::phase_timer timer(r, "upload");
        wedge_count = tricount::wedges(built.device);  // before the counter takes the CSR
        counter = std::make_unique<tricount::gpu_counter>(std::move(built.device));
      }
      tricount::gpu_stats stats;
      res = counter->run(chosen, per_vertex, stats);
      r.add_phase("preprocess", stats.preprocess_seconds);
      r.add_phase("count", stats.count_seconds());
      r.set("method (light / heavy vertices)",
            std::string(tricount::method_name(stats.light_method)) + " / " + tricount::method_name(stats.heavy_method));
      r.set("walk", std::string(tricount::walk_name(stats.walked)));  // --walk auto's choice
    } else {
      wedge_count = tricount::wedges(g);
      const auto start = std::chrono::steady_clock::now();
      res = tricount::run_reference(g, per_vertex);
      r.add_phase("run", seconds_since(start));
    }
    check_interrupt();
    if (o.validate) {
      apps::phase_timer timer(r, "validate");
      const bool use_boost = on_gpu && tricount::boost_can_check(g);
      checked = tricount::verify(
          g, use_boost ? tricount::run_reference(g, per_vertex) : tricount::count_by_merge(g, per_vertex), res);
      r.set("validated against", std::string(use_boost ? "Boost.Graph" : "multithreaded merge count"));
    }
    r.set("device", on_gpu ? std::string("gpu (oriented)") : std::string("cpu (Boost.Graph num_triangles_on_vertex)"));
    r.set("global clustering", tricount::global_clustering_of(wedge_count, res.triangles));
    ids = std::move(built.host.original_ids);
  }
  py::dict out;
  out["triangles"] = res.triangles;
  out["per_vertex"] = per_vertex ? py::object(to_numpy(std::move(res.per_vertex))) : py::none();
  out["ids"] = ids_of(std::move(ids));
  put_report(out, r, options.validate ? &checked : nullptr);
  return out;
}

py::dict run_dedup(const graph_input& in, const dedup::params& p, relabel_order order, const std::string& output,
                   const std::string& out_format, const call_options& options) {
  apps::common_options o = common_of(options);
  apps::report r("dedup");
  apps::verification checked;
  coo_graph cleaned;
  clean_stats stats;
  bool weighted = false;  // an empty result keeps an empty weights array
  {
    py::gil_scoped_release nogil;
    apps::resolve_device(o, apps::device_support::cpu_and_gpu);
    const bool on_gpu = o.device == "gpu";
    const std::optional<file_format> f = format_of(out_format, "out_format");
    coo_graph input;
    if (in.what == graph_input::kind::file) {
      o.input = in.path;
      o.format = in.format;
      apps::input_info info;
      input = apps::load_input(o, r, info, order);
    } else {
      apps::phase_timer timer(r, "load");
      input = host_edges(in);
    }
    weighted = input.weighted() || o.random_weights || (in.what == graph_input::kind::edges && in.weighted);
    check_interrupt();
    // Weights are drawn before the copy for the oracle, so both see the same.
    if (o.random_weights) assign_random_weights(input, o.seed);
    if (o.validate) cleaned = input;  // the oracle reads the input afterwards
    else cleaned = std::move(input);
    {
      apps::phase_timer timer(r, "run");
      stats = on_gpu ? dedup::run_gpu(cleaned, p) : dedup::run_cpu(cleaned, p);
    }
    check_interrupt();
    if (!output.empty()) {
      apps::phase_timer timer(r, "output");
      write_graph(cleaned, output, f);
    }
    if (o.validate) {
      apps::phase_timer timer(r, "validate");
      checked = dedup::verify(dedup::run_reference(input, p), cleaned);
    }
    r.set("device", on_gpu ? std::string("gpu (hash-table pipeline)") : std::string("cpu (sort-based clean)"));
  }
  py::dict out;
  out["duplicates_removed"] = stats.duplicates_removed;
  out["self_loops_removed"] = stats.self_loops_removed;
  put_edges(out, std::move(cleaned), weighted);
  put_report(out, r, options.validate ? &checked : nullptr);
  return out;
}

py::dict generate_edges(const std::string& spec, std::uint64_t seed) {
  coo_graph g;
  {
    py::gil_scoped_release nogil;
    g = generate(spec, seed);
  }
  py::dict out;
  const bool weighted = g.weighted();
  put_edges(out, std::move(g), weighted);
  return out;
}

void write_edges(const graph_input& in, const std::string& path, const std::string& format) {
  py::gil_scoped_release nogil;
  const std::optional<file_format> f = format_of(format, "format");
  write_graph(host_edges(in), path, f);
}

}  // namespace graphkit::python
