// Time to a graph: writes an undirected R-MAT graph with weights 1..255 in
// every format, then times each load against the file-read ceiling measured
// in the same run, and, where a GPU exists, the GPU paths to a device CSR:
// the host parser with the GPU build, and the GPU parser (what `sssp FILE`
// and `tricount FILE` take) alone and with the build.
//
// The ceilings read the page-cached file into small reused buffers (as `cat`
// does), by one reader and by one reader per hardware thread on disjoint
// ranges: what reading the bytes costs when nothing else is paid.
//
//   load_bench [--scale 21] [--trials 5] [--dir /tmp] [--keep] [--gzip]
//   load_bench --load FILE [--trials 5]    (the host parser alone, on a file
//                                           written before: one line per load)
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

#include "apps/common/trial_loop.hpp"
#include "graph/build.hpp"
#include "graph/detail/parallel.hpp"
#include "graph/generate/generators.hpp"
#include "graph/gpu/generate_gpu.hpp"
#include "graph/gpu/load_gpu.hpp"
#include "graph/gpu/pipeline.hpp"
#include "graph/host_transfer.hpp"
#include "graph/io/load.hpp"
#include "primitives/common/device.hpp"
#include "primitives/common/device_buffer.hpp"
#include "primitives/common/pinned_buffer.hpp"

namespace {

using namespace graphkit;

/// Reads `path` by `readers` threads on disjoint ranges into 8 MiB buffers
/// each reuses; returns the bytes read.
std::size_t read_ceiling(const std::string& path, unsigned readers) {
  constexpr std::size_t kBuffer = 8u << 20;
  const std::size_t size = std::filesystem::file_size(path);
  std::vector<std::size_t> got(readers, 0);
  detail::parallel_parts(readers, [&](std::size_t r) {
    const int fd = ::open(path.c_str(), O_RDONLY);
    if (fd < 0) return;
    std::unique_ptr<char[]> buffer(new char[kBuffer]);
    const auto [lo, hi] = detail::part_range(size, readers, r);
    for (std::size_t at = lo; at < hi;) {
      const ssize_t n = ::pread(fd, buffer.get(), std::min(kBuffer, hi - at), static_cast<off_t>(at));
      if (n <= 0) break;
      at += static_cast<std::size_t>(n);
      got[r] += static_cast<std::size_t>(n);
    }
    ::close(fd);
  });
  std::size_t total = 0;
  for (const std::size_t g : got) total += g;
  return total;
}

/// An order-free fingerprint of the undirected edges with their weights:
/// equal for every format's copy of one graph (DIMACS holds each edge as two
/// arcs, so its fingerprint is twice the others'). Edge lists are compared by
/// the ids they spell (relabelling drops isolated vertices), the others by
/// dense id.
std::uint64_t fingerprint(const coo_graph& g, bool by_original_id) {
  std::uint64_t sum = 0;
  for (std::size_t i = 0; i < g.num_edges(); ++i) {
    const original_id_t u = by_original_id ? g.original_id(g.src[i]) : g.src[i];
    const original_id_t v = by_original_id ? g.original_id(g.dst[i]) : g.dst[i];
    const std::uint64_t w = g.weighted() ? static_cast<std::uint32_t>(g.weights[i]) : 0;
    sum += detail::mix64(detail::mix64(std::min(u, v) * 0x9e3779b97f4a7c15ULL + std::max(u, v)) ^ w);
  }
  return sum;
}

/// Faults in `bytes` of fresh memory as the host parser's output arrays are
/// (graph/host_transfer.hpp: huge pages where granted, several threads),
/// then frees it: what the parser pays for its output before it parses.
void fault_fresh_pages(std::size_t bytes) {
  std::vector<char> fresh = prepared_vector<char>(bytes);
  const volatile char sink = fresh[bytes / 2];  // keeps the vector from being optimized away
  (void)sink;
}

/// --load: `path` loaded by the host parser `trials` times, each load in
/// fresh memory as an app's only load is (GRAPHKIT_TRACE=1 shows its phases);
/// no warm-up, so that a run of one trial is one app's load.
int time_host_loads(const std::string& path, int trials) {
  const double mb = std::filesystem::file_size(path) / 1e6;
  std::vector<double> seconds;
  loaded_graph loaded;
  for (int t = 0; t < trials; ++t) {
    loaded = {};  // the last load's memory freed outside the timing
    const double s = apps::host_seconds([&] { loaded = load_graph(path); });
    seconds.push_back(s);
    std::printf("load %d: %.1f ms (%.0f MB/s)\n", t + 1, s * 1e3, mb / s);
  }
  const double middle = graphkit::median(seconds);
  std::printf("%s, %.0f MB, %u host threads: median load %.1f ms (%.0f MB/s)\n", path.c_str(), mb,
              detail::host_threads(), middle * 1e3, mb / middle);
  return 0;
}

/// The apps' trial loop: a warm-up (page cache, first touch of the
/// allocator's pools) where more than one trial, then the median.
template <class Body>
double median_seconds(int trials, Body&& body) {
  return apps::median_host_seconds(apps::trial_settings{trials}, body);
}

/// Seconds per byte of the host-to-device link itself: cudaMemcpy of 256 MiB
/// from pinned memory. A GPU load can beat neither this nor the file read.
double link_seconds_per_byte(int trials) {
  constexpr std::size_t kBytes = std::size_t{256} << 20;
  pinned_buffer<char> host(kBytes);
  std::fill_n(host.data(), kBytes, 'x');
  device_buffer<char> device(kBytes);
  const double s = median_seconds(
      trials, [&] { GRAPHKIT_CUDA_TRY(cudaMemcpy(device.data(), host.data(), kBytes, cudaMemcpyHostToDevice)); });
  return s / kBytes;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"load_bench: time from a graph file to a CSR, every format, against the file-read ceiling"};
  unsigned scale = 21;
  int trials = 5;
  bool keep = false, gzip = false;
  std::string dir = std::filesystem::temp_directory_path().string();
  app.add_option("--scale", scale, "R-MAT scale (edge factor 16)")->capture_default_str();
  app.add_option("--trials", trials)->capture_default_str()->check(CLI::PositiveNumber);
  app.add_option("--dir", dir, "Where to write the files")->capture_default_str();
  app.add_flag("--keep", keep, "Keep the files (graphkit_load_bench.{mtx,el,gr,gkbin}) for runs of the apps");
  app.add_flag("--gzip", gzip, "Also time a gzip Matrix Market file (slow to write)");
  std::string load_only;
  app.add_option("--load", load_only, "Only time the host parser's load of this file, --trials times");
  CLI11_PARSE(app, argc, argv);
  if (!load_only.empty()) {
    try {
      return time_host_loads(load_only, trials);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "load_bench: %s\n", e.what());
      return 2;
    }
  }

  coo_graph g = generate_rmat(scale, 16, 1);
  assign_random_weights(g, 1);
  clean_options rules;
  rules.symmetrize = rules.drop_self_loops = rules.drop_duplicates = true;
  clean(g, rules);
  const std::string base = dir + "/graphkit_load_bench";
  std::vector<std::string> files = {base + ".mtx", base + ".el", base + ".gr", base + ".gkbin"};
  if (gzip) files.push_back(base + ".mtx.gz");
  for (const std::string& f : files) write_graph(g, f);

  const std::uint64_t expected = fingerprint(g, false);  // g's original ids are its dense ids
  const bool gpu = cuda_device_count() > 0;
  const unsigned threads = detail::host_threads();
  const std::string& reference = files[0];
  const double mb = std::filesystem::file_size(reference) / 1e6;
  const double one_s = median_seconds(trials, [&] { (void)read_ceiling(reference, 1); });
  const double all_s = median_seconds(trials, [&] { (void)read_ceiling(reference, threads); });

  std::printf("time to a graph: R-MAT scale %u, %zu undirected edges, weights 1..255, %u host threads, median of %d\n",
              scale, g.num_edges(), threads, trials);
  std::printf("ceilings (page-cached .mtx, %.0f MB): 1 reader %.1f ms (%.0f MB/s), %u readers %.1f ms (%.0f MB/s)\n",
              mb, one_s * 1e3, mb / one_s, threads, all_s * 1e3, mb / all_s);
  // The GPU rows' own ceiling: the file read or the link, whichever is slower.
  const double link_s_per_byte = gpu ? link_seconds_per_byte(trials) : 0;
  if (gpu)
    std::printf(
        "link ceiling (cudaMemcpy from pinned memory, 256 MiB): %.0f MB/s; a GPU load's ceiling is the slower "
        "of the %u-reader read and the link\n",
        1e-6 / link_s_per_byte, threads);
  // The host parser cannot beat the read plus the fresh pages of its output
  // (12 B per edge weighted), which it must fault in whatever it parses.
  const std::size_t output_bytes = g.num_edges() * (2 * sizeof(vertex_t) + sizeof(weight_t));
  const double pages_s = median_seconds(trials, [&] { fault_fresh_pages(output_bytes); });
  std::printf(
      "fresh pages for the host parser's output (%.0f MB): %.1f ms (%.0f MB/s); host parser floor, read + "
      "output pages: %.1f ms (%.0f MB/s of .mtx)\n\n",
      output_bytes / 1e6, pages_s * 1e3, output_bytes / 1e6 / pages_s, (all_s + pages_s) * 1e3, mb / (all_s + pages_s));
  std::printf(
      "| file | MB | device | what | ms | MB/s | %% of %u-reader ceiling | %% of GPU ceiling (read or link) | M "
      "edges/s "
      "| check |\n",
      threads);
  std::printf("|---|---|---|---|---|---|---|---|---|---|\n");
  bool all_ok = true;
  for (const std::string& f : files) {
    const double file_mb = std::filesystem::file_size(f) / 1e6;
    const double ceiling_s = all_s * file_mb / mb;  // the ceiling scaled to this file's bytes
    const double gpu_ceiling_s = std::max(ceiling_s, link_s_per_byte * file_mb * 1e6);
    const std::string name = std::filesystem::path(f).filename().string();
    auto row = [&](const char* device, const char* what, double s, bool ok) {
      all_ok = all_ok && ok;
      char gpu_share[16] = "-";
      if (std::string(device) == "gpu") std::snprintf(gpu_share, sizeof gpu_share, "%.0f%%", 100.0 * gpu_ceiling_s / s);
      std::printf("| %s | %.0f | %s | %s | %.1f | %.0f | %.0f%% | %s | %.1f | %s |\n", name.c_str(), file_mb, device,
                  what, s * 1e3, file_mb / s, 100.0 * ceiling_s / s, gpu_share, g.num_edges() / s / 1e6,
                  ok ? "same edges" : "DIFFERENT");
    };
    loaded_graph loaded;
    const double cpu_s = median_seconds(trials, [&] { loaded = load_graph(f); });
    const std::size_t copies = loaded.graph.num_edges() / std::max<std::size_t>(g.num_edges(), 1);
    row("cpu", "load", cpu_s, fingerprint(loaded.graph, loaded.format == file_format::edge_list) == copies * expected);
    if (!gpu) continue;
    // The host parser, then the edges uploaded and built on the GPU.
    load_options host_parse;
    host_parse.relabeler = [](auto src, auto dst, relabel_order order) { return relabel_on_gpu(src, dst, order); };
    device_csr csr;
    const double host_parse_s = median_seconds(trials, [&] {
      loaded_graph l = load_graph(f, host_parse);
      clean_stats stats;
      csr = build_csr_device(to_device(l.graph), rules, stats);
    });
    row("cpu parse, gpu build", "load + build", host_parse_s, csr.num_edges() == 2 * g.num_edges());
    // The GPU parser (where the file's lines allow; for .gkbin the GPU reader), then the build.
    gpu_load_options gpu_parse;
    gpu_parse.min_bytes = 0;
    std::optional<device_loaded> parsed = load_on_gpu(f, gpu_parse);
    if (!parsed) continue;
    coo_graph check;
    check.original_ids = parsed->original_ids;
    to_host(std::move(parsed->edges), check);
    const bool same = fingerprint(check, parsed->format == file_format::edge_list) == copies * expected;
    const double parse_s = median_seconds(trials, [&] { parsed = load_on_gpu(f, gpu_parse); });
    row("gpu", "load", parse_s, same);
    const double parse_build_s = median_seconds(trials, [&] {
      parsed = load_on_gpu(f, gpu_parse);
      clean_stats stats;
      csr = build_csr_device(std::move(parsed->edges), rules, stats);
    });
    row("gpu", "load + build", parse_build_s, same && csr.num_edges() == 2 * g.num_edges());
  }
  // --gen: the host generator against the GPU's, 8x this run's edges (R-MAT, scale + 3).
  const std::string gen = "rmat:" + std::to_string(scale + 3);
  const std::size_t gen_edges = std::size_t{16} << (scale + 3);
  const double gen_cpu_s = median_seconds(1, [&] { (void)generate(gen, 1); });
  std::printf("\n| --gen | device | ms | M edges/s |\n|---|---|---|---|\n");
  std::printf("| %s | cpu (%u threads) | %.1f | %.0f |\n", gen.c_str(), threads, gen_cpu_s * 1e3,
              gen_edges / gen_cpu_s / 1e6);
  if (gpu) {
    const double gen_gpu_s = median_seconds(trials, [&] { (void)generate_on_gpu(gen, 1); });
    std::printf("| %s | gpu (permutation on the host) | %.1f | %.0f |\n", gen.c_str(), gen_gpu_s * 1e3,
                gen_edges / gen_gpu_s / 1e6);
  }
  if (!keep)
    for (const std::string& f : files) std::filesystem::remove(f);
  return all_ok ? 0 : 1;
}
