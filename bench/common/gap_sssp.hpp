// GAP's delta-stepping (gap-sssp from ../shared/anchors, see its README) on
// the bench's own graph file, in the same run, for the figure beside ours.
// GAP's text reader is serial, so the file is first converted to GAP's
// serialized .wsg with gap-converter. GAP reads a DIMACS .gr as ids 1..N less
// one, so graphkit's vertex v (written as v + 1) is GAP's source v.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <sys/wait.h>

#include "apps/common/report.hpp"
#include "graph/types.hpp"

namespace graphkit::bench {

struct gap_anchor {
  std::string dir;   ///< holds gap-sssp and gap-converter
  int threads = 16;  ///< OMP_NUM_THREADS, as PERFORMANCE.md measured GAP

  [[nodiscard]] std::string binary(const char* name) const { return (std::filesystem::path(dir) / name).string(); }
  /// Both binaries are there (else the bench prints n/a).
  [[nodiscard]] bool available() const {
    return !dir.empty() && std::filesystem::exists(binary("gap-sssp")) &&
           std::filesystem::exists(binary("gap-converter"));
  }
};

namespace detail {

// A path quoted for sh: inside single quotes, each ' becomes '\''.
inline std::string shell_quoted(const std::string& text) {
  std::string out = "'";
  for (const char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// Runs `command` under sh with stderr folded in; its output, or nullopt (with
// the output's tail on stderr) when it exits other than 0.
inline std::optional<std::string> run_command(const std::string& command) {
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) {
    std::fprintf(stderr, "gap: cannot start: %s\n", command.c_str());
    return std::nullopt;
  }
  std::string output;
  char buffer[4096];
  for (std::size_t got; (got = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) output.append(buffer, got);
  const int status = pclose(pipe);
  if (status != 0) {
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;  // -1: killed by a signal
    std::fprintf(stderr, "gap: exit code %d from: %s\n%s\n", code, command.c_str(),
                 output.substr(output.size() > 2000 ? output.size() - 2000 : 0).c_str());
    return std::nullopt;
  }
  return output;
}

}  // namespace detail

/// Converts a weighted .gr to GAP's .wsg beside it; the .wsg path, or nullopt
/// (said on stderr) when the converter fails.
inline std::optional<std::string> gap_serialize(const gap_anchor& gap, const std::string& gr_path) {
  const std::string wsg = std::filesystem::path(gr_path).replace_extension(".wsg").string();
  const std::string command = detail::shell_quoted(gap.binary("gap-converter")) + " -f " +
                              detail::shell_quoted(gr_path) + " -w -b " + detail::shell_quoted(wsg);
  if (!detail::run_command(command)) return std::nullopt;
  return wsg;
}

/// GAP's `Average Time:` over `trials` runs from `source`, in ms; nullopt
/// (said on stderr) when it fails or prints no average.
inline std::optional<double> gap_sssp_ms(const gap_anchor& gap, const std::string& file, vertex_t source, int trials,
                                         std::uint64_t delta) {
  const std::string command = "OMP_NUM_THREADS=" + std::to_string(gap.threads) + " " +
                              detail::shell_quoted(gap.binary("gap-sssp")) + " -f " + detail::shell_quoted(file) +
                              " -r " + std::to_string(source) + " -n " + std::to_string(trials) + " -d " +
                              std::to_string(delta);
  const std::optional<std::string> output = detail::run_command(command);
  if (!output) return std::nullopt;
  const std::size_t at = output->rfind("Average Time:");
  double seconds = 0;
  if (at == std::string::npos || std::sscanf(output->c_str() + at, "Average Time: %lf", &seconds) != 1) {
    std::fprintf(stderr, "gap: no 'Average Time:' in the output of: %s\n", command.c_str());
    return std::nullopt;
  }
  return seconds * 1e3;
}

struct gap_result {
  double ms = 0;            ///< median over the sources at the best delta
  std::uint64_t delta = 0;  ///< GAP's best of the deltas tried
  std::string sweep;        ///< "delta=ms ..." on the sweep's sources
};

/// GAP at its best delta, as its authors tune it: each delta once from the
/// first `sweep_sources` sources (the slow deltas take seconds a run on road
/// graphs), then the best one `trials` times from every source; the median
/// over the sources. nullopt when GAP failed (said on stderr).
inline std::optional<gap_result> gap_best(const gap_anchor& gap, const std::string& file,
                                          const std::vector<vertex_t>& sources,
                                          const std::vector<std::uint64_t>& deltas, int trials,
                                          std::size_t sweep_sources = 2) {
  if (deltas.empty() || sources.empty()) return std::nullopt;
  gap_result best;
  double best_sweep_ms = 0;
  for (const std::uint64_t delta : deltas) {
    std::vector<double> ms;
    for (std::size_t i = 0; i < std::min(sweep_sources, sources.size()); ++i) {
      const std::optional<double> t = gap_sssp_ms(gap, file, sources[i], 1, delta);
      if (!t) return std::nullopt;
      ms.push_back(*t);
    }
    const double typical = apps::median(ms);
    char buf[48];
    std::snprintf(buf, sizeof buf, "%s%lu=%.1f", best.sweep.empty() ? "" : " ", static_cast<unsigned long>(delta),
                  typical);
    best.sweep += buf;
    if (best.delta == 0 || typical < best_sweep_ms) best.delta = delta, best_sweep_ms = typical;
  }
  std::vector<double> ms;
  for (const vertex_t s : sources) {
    const std::optional<double> t = gap_sssp_ms(gap, file, s, trials, best.delta);
    if (!t) return std::nullopt;
    ms.push_back(*t);
  }
  best.ms = apps::median(ms);
  return best;
}

}  // namespace graphkit::bench
