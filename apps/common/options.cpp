#include "apps/common/options.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <iostream>
#include <new>

#include <sys/resource.h>

#include "apps/common/gpu_code.hpp"
#include "apps/common/progress.hpp"
#include "graph/generate/generators.hpp"
#include "graph/gpu/generate_gpu.hpp"
#include "graph/gpu/load_gpu.hpp"
#include "graph/gpu/pipeline.hpp"
#include "graph/host_transfer.hpp"
#include "primitives/common/device.hpp"
#include "primitives/common/device_buffer.hpp"
#include "primitives/common/error.hpp"
#include "primitives/common/nvtx.hpp"

namespace graphkit::apps {

void add_common_options(CLI::App& app, common_options& o, bool positional_input, device_support devices) {
  if (positional_input) {
    app.add_option("input", o.input,
                   "Graph file: SNAP/whitespace edge list (.txt .el .wel), Matrix Market (.mtx), "
                   "DIMACS (.gr) or graphkit binary (.gkbin); .gz is read directly");
    app.add_option("--gen", o.generator, std::string("Generate the graph instead of loading it: ") + kGeneratorSpecHelp)
        ->excludes(app.get_option("input"));
  }
  app.add_option("--format", o.format,
                 std::string("Input format, overriding the file extension: ") + std::string(format_choices()));
  app.add_flag("--symmetrize", o.symmetrize, "Treat every edge as undirected");
  app.add_flag("--random-weights", o.random_weights, "Replace weights by uniform random integers in [1, 255] (seeded)");
  app.add_option("--seed", o.seed, "Seed for generators, random weights and random sources")->capture_default_str();
  app.add_option("--trials", o.trials, "Repeat the run phase this many times and report the median")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_flag("--validate", o.validate, "Check the result against an independent CPU oracle");
  app.add_option("--json", o.json, "Also write the report as JSON to this file");
  app.add_flag("-v,--verbose", o.verbose, "Print per-trial details and loader warnings");
  if (devices == device_support::cpu_and_gpu) {
    app.add_option("--device", o.device,
                   "Where to run: gpu (the default where a CUDA device exists) or cpu (the Boost.Graph oracle)")
        ->check(CLI::IsMember({"cpu", "gpu"}));
  } else {
    app.add_option("--device", o.device, "Where to run: cpu")->check(CLI::IsMember({"cpu"}));
  }
}

void resolve_device(common_options& o, device_support devices) {
  // The pinned transfer pool's pages are faulted in on another thread while
  // the CUDA driver starts (~0.1 s): pinning them afterwards is then cheap.
  const bool may_use_gpu = devices == device_support::cpu_and_gpu && o.device != "cpu";
  if (may_use_gpu) prepare_staging();
  {
    nvtx_range range("graphkit::resolve_device (CUDA driver start)");
    if (o.device.empty()) {
      o.device = devices == device_support::cpu_and_gpu && cuda_device_count() > 0 ? "gpu" : "cpu";
    } else if (o.device == "gpu") {
      if (const std::string why = cuda_unavailable_reason(); !why.empty()) throw input_error("--device gpu: " + why);
    }
  }
  if (may_use_gpu && o.device == "cpu") discard_staging();
}

namespace {

std::optional<file_format> format_override(const common_options& o) {
  if (o.format.empty()) return std::nullopt;
  const std::optional<file_format> f = parse_format_name(o.format);
  if (!f) throw input_error("--format '" + o.format + "' is not one of " + std::string(format_choices()));
  return f;
}

/// `edges_on_gpu`: files parsed and graphs generated on the GPU where it can.
input_edges load_edges(const common_options& o, report& r, input_info& info, relabel_order order, bool edges_on_gpu) {
  if (o.input.empty() && o.generator.empty()) throw input_error("no input: give a graph file or --gen SPEC");
  input_edges out;
  {
    phase_timer timer(r, "load");
    const progress_line progress("load");
    // The CUDA context (~0.1-0.3 s to create) starts at once: the host paths
    // read the file meanwhile, the GPU paths wait for it before their first call.
    // Starting it, the check that this build has GPU code for the device costs
    // nothing more; the GPU paths stop with its exit 2 before any work.
    std::future<void> context;
    if (o.device == "gpu")
      context = std::async(std::launch::async, [] {
        nvtx_range context_range("graphkit::CUDA context");
        require_gpu_code_for_device();
      });
    if (!o.generator.empty()) {
      info.name = o.generator;
      if (edges_on_gpu && o.device == "gpu") {
        context.get();
        if (std::optional<device_edges> made = generate_on_gpu(o.generator, o.seed)) {
          out.host.num_vertices = made->num_vertices;
          out.host.directed = made->directed;
          out.device = std::move(*made);
          out.on_device = true;
        }
      }
      if (!out.on_device) out.host = generate(o.generator, o.seed);
    } else {
      info.name = o.input;
      const std::optional<file_format> format = format_override(o);
      if (edges_on_gpu && o.device == "gpu") {
        context.get();
        gpu_load_options lo;
        lo.format = format;
        lo.relabel = order;
        if (std::optional<device_loaded> loaded = load_on_gpu(o.input, lo)) {
          info.bytes = loaded->bytes;
          out.host.num_vertices = loaded->edges.num_vertices;
          out.host.directed = loaded->edges.directed;
          out.host.original_ids = std::move(loaded->original_ids);
          out.device = std::move(loaded->edges);
          out.on_device = true;
          r.set("parsed on", std::string("gpu"));
        }
      }
      if (!out.on_device) {
        load_options lo;
        lo.relabel = order;
        lo.format = format;
        if (o.device == "gpu")  // vertex-id compaction in the GPU pipeline
          lo.relabeler = [](auto src, auto dst, relabel_order order) { return relabel_on_gpu(src, dst, order); };
        loaded_graph loaded = load_graph(o.input, lo);
        info.bytes = loaded.bytes;
        info.negative_weight_line = loaded.negative_weight_line;
        info.negative_weight = loaded.negative_weight;
        for (auto& w : loaded.warnings) r.warn(std::move(w));
        out.host = std::move(loaded.graph);
      }
    }
    if (context.valid()) context.get();
  }
  r.set("input", info.name);
  if (info.bytes > 0) r.set("load MB/s", info.bytes / 1e6 / std::max(r.phase_seconds("load"), 1e-9));
  r.set("input edges", std::uint64_t{out.num_edges()});
  return out;
}

}  // namespace

input_edges load_edges(const common_options& o, report& r, input_info& info, relabel_order order) {
  return load_edges(o, r, info, order, true);
}

coo_graph load_input(const common_options& o, report& r, input_info& info, relabel_order order) {
  return std::move(load_edges(o, r, info, order, false).host);
}

built_graph build_input(input_edges&& g, const common_options& o, clean_options rules, report& r) {
  rules.symmetrize = rules.symmetrize || o.symmetrize;
  rules.random_weights = o.random_weights;
  rules.seed = o.seed;
  built_graph out;
  clean_stats stats;
  {
    phase_timer timer(r, "build");
    const progress_line progress("build");
    if (o.device == "gpu") {
      // The GPU build (clean and CSR in one sort); the CSR stays on the
      // device, and the host gets its vertex count and original ids (the
      // offsets only through fetch_offsets).
      out.host.original_ids = std::move(g.host.original_ids);
      device_edges d = g.on_device ? std::move(g.device) : to_device(g.host);
      g = {};
      out.device = build_csr_device(std::move(d), rules, stats);
      out.host.num_vertices = out.device.num_vertices;
      out.host.directed = out.device.directed;
      out.host.offsets.clear();  // has_offsets() false until fetched
      out.stored_edges = out.device.num_edges();
    } else {
      stats = clean(g.host, rules);
      out.host = to_csr(std::move(g.host));
      out.stored_edges = out.host.num_edges();
    }
  }
  const csr_graph& csr = out.host;
  r.set("vertices", std::uint64_t{csr.num_vertices});
  r.set("edges (stored)", std::uint64_t{out.stored_edges});
  r.set("directed", std::string(csr.directed ? "yes" : "no"));
  if (rules.drop_self_loops) r.set("self-loops removed", std::uint64_t{stats.self_loops_removed});
  if (rules.drop_duplicates) r.set("duplicates removed", std::uint64_t{stats.duplicates_removed});
  return out;
}

void built_graph::fetch_offsets() {
  if (host.has_offsets()) return;
  GRAPHKIT_EXPECTS(device.offsets.size() == std::size_t{host.num_vertices} + 1,
                   "built_graph: the device CSR was handed on before fetch_offsets");
  nvtx_range range("graphkit::build: offsets to the host");
  host.offsets = download(device.offsets);
}

void built_graph::fetch_adjacency() {
  fetch_offsets();
  if (host.has_adjacency()) return;
  GRAPHKIT_EXPECTS(device.num_edges() == host.num_edges(),
                   "built_graph: the device CSR was handed on before fetch_adjacency");
  host.targets = download(device.targets);
  host.weights = download(device.weights);
}

vertex_t dense_vertex_id(const csr_graph& g, original_id_t original) {
  if (g.original_ids.empty()) {
    if (original < g.num_vertices) return static_cast<vertex_t>(original);
  } else {
    // Original ids are ascending for every loader but first-seen relabelling.
    const auto it = std::find(g.original_ids.begin(), g.original_ids.end(), original);
    if (it != g.original_ids.end()) return static_cast<vertex_t>(it - g.original_ids.begin());
  }
  throw input_error("vertex " + std::to_string(original) + " is not in the graph");
}

namespace {

/// A normal exit (destructors, context teardown) under CUDA tools, which
/// flush their data at teardown (Nsight, compute-sanitizer: they inject
/// through CUDA_INJECTION64_PATH or LD_PRELOAD), or when asked.
bool full_exit_wanted() {
  for (const char* name : {"GRAPHKIT_FULL_EXIT", "CUDA_INJECTION64_PATH", "NSYS_PROFILING_SESSION_ID", "LD_PRELOAD"}) {
    const char* value = std::getenv(name);
    if (value != nullptr && *value != '\0') return true;
  }
  return false;
}

}  // namespace

int finish(report& r, const common_options& o) {
  {
    nvtx_range range("graphkit::report");
    // Peaks, for the memory each path needs (what --json users track).
    rusage usage{};
    if (getrusage(RUSAGE_SELF, &usage) == 0) r.set("peak host RSS MB", static_cast<double>(usage.ru_maxrss) / 1024.0);
    if (o.device == "gpu") r.set("peak GPU MB (graphkit buffers)", device_memory_in_use().peak / 1048576.0);
    r.print(std::cout);
    if (!o.json.empty()) r.write_json(o.json);
  }
  const int code = r.validation_failed() ? kExitValidationFailed : kExitSuccess;
  if (o.device == "gpu" && !full_exit_wanted()) {
    // Tearing the CUDA context down buffer by buffer costs 0.1-0.15 s (a
    // fifth of a whole `sssp FILE`); the driver frees all of it with the
    // process anyway. Everything the run writes is flushed and closed by now.
    std::cout.flush();
    std::cerr.flush();
    std::fflush(nullptr);
    std::_Exit(code);
  }
  return code;
}

int guarded_main(const std::function<int()>& body) {
  try {
    return body();
  } catch (const input_error& e) {
    std::cerr << "error: " << e.what() << "\n";
    return kExitBadInput;
  } catch (const device_memory_error& e) {
    // The libraries say how much memory; what to do about it is the app's to say.
    std::cerr << "error: " << e.what() << "\n(--device cpu runs without GPU memory; or split the input)\n";
    return kExitBadInput;
  } catch (const resource_error& e) {
    std::cerr << "error: " << e.what() << "\n";
    return kExitBadInput;
  } catch (const std::bad_alloc&) {
    std::cerr << "error: out of host memory\n";
    return kExitBadInput;
  } catch (const std::exception& e) {
    std::cerr << "internal error: " << e.what() << "\n(please report it, with the command line)\n";
    return kExitInternal;
  } catch (...) {
    std::cerr << "internal error: an unknown exception\n";
    return kExitInternal;
  }
}

}  // namespace graphkit::apps

namespace graphkit::apps {

std::optional<int> parse_command_line(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? kExitSuccess : kExitBadInput;
  }
  return std::nullopt;
}

}  // namespace graphkit::apps
