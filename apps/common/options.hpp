// Command-line options every app shares, and the load + build phases that
// turn them into a CSR graph.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "apps/common/report.hpp"
#include "graph/build.hpp"
#include "graph/csr.hpp"
#include "graph/device_csr.hpp"
#include "graph/gpu/pipeline.hpp"
#include "graph/io/load.hpp"

namespace graphkit::apps {

struct common_options {
  std::string input;      ///< a graph file, or empty with `generator`
  std::string generator;  ///< --gen spec
  std::string format;     ///< --format override
  bool symmetrize = false;
  bool random_weights = false;
  std::uint64_t seed = 1;
  int trials = 1;
  bool validate = false;
  std::string json;
  std::string output;
  bool verbose = false;
  /// "cpu" or "gpu"; empty until resolve_device() picks the default.
  std::string device;
};

/// Which --device values an app has.
enum class device_support { cpu_only, cpu_and_gpu };

/// Adds the shared options. `positional_input` makes INPUT the first
/// positional argument (sssp, tricount); dedup names its own positionals.
void add_common_options(CLI::App& app, common_options& options, bool positional_input = true,
                        device_support devices = device_support::cpu_only);

/// Settles options.device: the GPU where one exists (and the app has a GPU
/// path), else the CPU. Asking for --device gpu without a usable device is
/// an input_error that says why there is none.
void resolve_device(common_options& options, device_support devices);

/// What the load phase learned beyond the edges themselves.
struct input_info {
  std::string name;  ///< file path or generator spec, for messages
  std::size_t bytes = 0;
  std::size_t negative_weight_line = 0;
  weight_t negative_weight = 0;
};

/// The load phase's edges: on the host, or already on the device where the
/// GPU parsed the file (then `host` holds the graph's shape and original ids
/// without edges).
struct input_edges {
  coo_graph host;
  device_edges device;
  bool on_device = false;
  [[nodiscard]] std::size_t num_edges() const noexcept { return on_device ? device.num_edges() : host.num_edges(); }
};

/// Runs the "load" phase (file or generator) into `report`, with its rate.
/// For --device gpu a text file is parsed on the GPU when its lines allow
/// (graph/gpu/load_gpu.hpp), else read on the host; --gen rmat and uniform
/// graphs are generated on the GPU (graph/gpu/generate_gpu.hpp).
input_edges load_edges(const common_options& options, report& r, input_info& info,
                       relabel_order order = relabel_order::sorted);

/// load_edges for an app that wants the edges on the host.
coo_graph load_input(const common_options& options, report& r, input_info& info,
                     relabel_order order = relabel_order::sorted);

/// What the build phase hands an app. On the CPU path `host` is the whole
/// CSR. On the GPU path the CSR stays where the GPU build made it, in
/// `device`, for the solver to take without a round trip through the host;
/// `host` holds only its vertex count, direction and original ids until
/// fetch_offsets() or fetch_adjacency() (R-MAT 21's offsets cost 7-9 ms to
/// bring down, which `sssp --source S` and `tricount` never read).
struct built_graph {
  csr_graph host;
  device_csr device;
  edge_t stored_edges = 0;  ///< arcs in the CSR, wherever it is

  /// Copies the offsets down into `host` (for degrees, random sources); on
  /// the GPU path, call it before the solver takes `device`.
  void fetch_offsets();
  /// Copies the offsets, neighbour lists and weights down into `host` (for
  /// the oracles); on the GPU path, call it before the solver takes `device`.
  void fetch_adjacency();
};

/// Runs the "build" phase: clean() with the app's rules plus --symmetrize and
/// --random-weights, then the CSR build (on the GPU for --device gpu).
/// Reports vertices, edges and removals.
built_graph build_input(input_edges&& g, const common_options& options, clean_options rules, report& r);

/// Maps an original vertex id (as the input file spells it) to its dense id.
/// Throws input_error naming the id when the graph has no such vertex.
vertex_t dense_vertex_id(const csr_graph& g, original_id_t original);

/// Adds the peak host RSS and (GPU runs) the peak bytes of device buffers,
/// prints the report, writes it as JSON if asked; returns the exit code
/// (1 when validation failed). A GPU run ends the process here with that
/// code (std::_Exit, output flushed): the driver frees the context with the
/// process, 0.1-0.15 s sooner than a teardown. Under a CUDA tool (Nsight,
/// compute-sanitizer) or with GRAPHKIT_FULL_EXIT=1 it returns as usual.
int finish(report& r, const common_options& options);

/// The apps' exit codes.
inline constexpr int kExitSuccess = 0;
inline constexpr int kExitValidationFailed = 1;  ///< --validate found a difference
inline constexpr int kExitBadInput = 2;          ///< bad input or usage, or too little memory for it
inline constexpr int kExitInternal = 3;          ///< a bug or a failed CUDA call: please report

/// Runs `body` and turns exceptions into messages and exit codes:
/// input_error, resource_error (GPU memory, a full hash table) and host
/// memory exhaustion exit 2; any other exception is internal and exits 3.
int guarded_main(const std::function<int()>& body);

}  // namespace graphkit::apps

namespace graphkit::apps {

/// Parses the command line; returns an exit code when the program should stop
/// now (0 after --help, 2 after a usage error), nullopt to go on.
std::optional<int> parse_command_line(CLI::App& app, int argc, char** argv);

}  // namespace graphkit::apps
