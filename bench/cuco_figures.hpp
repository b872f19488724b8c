// cuCollections' static_map figures for hash_bench to print beside its own:
// measured in the same run by running the anchor binary (`--cuco PATH`, a
// copy of ../shared/anchors/cuco_bench) and reading its lines, or, without a
// path, the figures ../shared/PERFORMANCE.md records for the same GPU,
// labelled as such.
#pragma once

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace graphkit::bench {

/// cuco at one load factor, G ops/s (0 where its output had no figure).
struct cuco_row {
  double load = 0, insert = 0, find = 0, erase = 0;
};

struct cuco_figures {
  std::vector<cuco_row> rows;
  std::string source;  ///< where the figures come from, printed with them

  /// The row at `load` (within 0.005), or nullptr.
  [[nodiscard]] const cuco_row* at(double load) const {
    for (const cuco_row& r : rows)
      if (std::fabs(r.load - load) < 0.005) return &r;
    return nullptr;
  }
};

/// PERFORMANCE.md's "Peers on the same machine" table (H100, 2^26 random 32-bit pairs).
inline cuco_figures cuco_recorded() {
  return {{{0.50, 10.47, 21.60, 11.37},
           {0.70, 9.35, 19.45, 11.47},
           {0.80, 8.15, 16.75, 11.46},
           {0.90, 6.23, 12.03, 11.25},
           {0.95, 4.22, 7.60, 10.10}},
          "recorded in PERFORMANCE.md (no --cuco given)"};
}

/// One line of cuco_bench's output, e.g. "cuco static_map linear_probing<4>
/// load 0.50 (capacity 134217728): insert 10470 M/s, find 21600 M/s, erase
/// half 11370 M/s"; false for any other line. Figures it cannot read stay 0.
inline bool parse_cuco_line(const std::string& line, cuco_row& row) {
  const std::size_t at = line.find(" load ");
  if (line.find("cuco") == std::string::npos || at == std::string::npos) return false;
  if (std::sscanf(line.c_str() + at, " load %lf", &row.load) != 1) return false;
  auto figure = [&](const char* label, double& out) {
    const std::size_t p = line.find(label);
    double m = 0;
    if (p != std::string::npos && std::sscanf(line.c_str() + p + std::string(label).size(), " %lf", &m) == 1)
      out = m / 1e3;
  };
  figure("insert", row.insert);
  figure("find", row.find);
  figure("erase half", row.erase);
  if (row.erase == 0) figure("erase", row.erase);
  return true;
}

/// Runs `path` and reads its rows; the rows are empty (and `source` says
/// why) when it cannot run or prints nothing readable.
inline cuco_figures cuco_measured(const std::string& path) {
  cuco_figures out;
  FILE* pipe = popen(("'" + path + "' 2>&1").c_str(), "r");
  if (pipe == nullptr) {
    out.source = "n/a: could not start " + path;
    return out;
  }
  char buffer[1024];
  while (std::fgets(buffer, sizeof buffer, pipe) != nullptr) {
    cuco_row row;
    if (parse_cuco_line(buffer, row)) out.rows.push_back(row);
  }
  const int status = pclose(pipe);
  if (out.rows.empty())
    out.source = "n/a: " + path + " printed no readable row (exit status " + std::to_string(status) + ")";
  else out.source = "measured in this run by " + path;
  return out;
}

}  // namespace graphkit::bench
