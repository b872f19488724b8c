// Loader throughput: writes an R-MAT edge list (and its binary twin), then
// times load_graph on each, median of several runs, against the rate of a
// plain read of the same bytes (the ceiling a parser cannot beat).
//
//   load_bench [--scale 22] [--edge-factor 16] [--trials 3] [--dir /tmp]
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <vector>

#include "graph/detail/parallel.hpp"
#include "graph/generate/generators.hpp"
#include "graph/io/detail/text_file.hpp"
#include "graph/io/load.hpp"

namespace {

template <class Fn>
double median_seconds(int trials, Fn&& fn) {
  std::vector<double> times;
  for (int t = 0; t < trials; ++t) {
    const auto start = std::chrono::steady_clock::now();
    fn();
    times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  using namespace graphkit;
  CLI::App app{"load_bench: graph loader throughput on a generated R-MAT edge list"};
  unsigned scale = 22, edge_factor = 16;
  int trials = 3;
  std::string dir = std::filesystem::temp_directory_path().string();
  app.add_option("--scale", scale)->capture_default_str();
  app.add_option("--edge-factor", edge_factor)->capture_default_str();
  app.add_option("--trials", trials)->capture_default_str();
  app.add_option("--dir", dir, "Where to write the scratch files")->capture_default_str();
  CLI11_PARSE(app, argc, argv);

  const coo_graph g = generate_rmat(scale, edge_factor, 1);
  const std::string text_path = dir + "/graphkit_load_bench.el";
  const std::string binary_path = dir + "/graphkit_load_bench.gkbin";
  write_graph(g, text_path);
  write_graph(g, binary_path);
  const double text_mb = std::filesystem::file_size(text_path) / 1e6;
  const double binary_mb = std::filesystem::file_size(binary_path) / 1e6;

  // Warm the page cache, then time a plain read: the ceiling.
  std::size_t checksum = detail::read_text_file(text_path).size();
  const double read_s = median_seconds(trials, [&] { checksum += detail::read_text_file(text_path).size(); });
  std::size_t edges = 0;
  const double text_s = median_seconds(trials, [&] {
    const loaded_graph loaded = load_graph(text_path);
    edges = loaded.graph.num_edges();
  });
  if (edges != g.num_edges()) {
    std::cerr << "load_bench: loaded " << edges << " edges, wrote " << g.num_edges() << "\n";
    return 1;
  }
  const double binary_s = median_seconds(trials, [&] { edges = load_graph(binary_path).graph.num_edges(); });
  if (edges != g.num_edges()) return 1;

  std::printf("graph loading, R-MAT scale %u edge factor %u (%zu edges), %u host threads, median of %d\n", scale,
              edge_factor, g.num_edges(), detail::host_threads(), trials);
  std::printf("| what | size (MB) | time (s) | MB/s | M edges/s | %% of plain read |\n|---|---|---|---|---|---|\n");
  std::printf("| plain read of the text (ceiling) | %.0f | %.3f | %.0f | - | 100%% |\n", text_mb, read_s, text_mb / read_s);
  std::printf("| edge list parse + relabel | %.0f | %.3f | %.0f | %.1f | %.0f%% |\n", text_mb, text_s, text_mb / text_s,
              edges / text_s / 1e6, 100.0 * read_s / text_s);
  std::printf("| binary .gkbin reload | %.0f | %.3f | %.0f | %.1f | - |\n", binary_mb, binary_s, binary_mb / binary_s,
              edges / binary_s / 1e6);
  std::filesystem::remove(text_path);
  std::filesystem::remove(binary_path);
  return checksum == 0;  // keeps the reads from being optimized away
}
