// The GPU load and build's memory rule (the "time to answer" target,
// docs/performance.md): beyond the CSR they return, they hold at most
// kBytesPerInputEdge bytes per input edge, plus kFixedAllowance, at any one
// time. The input edges themselves (8 B, 12 B weighted) count against it.
//
// Why 16 B: a weighted undirected CSR is 16 B per input edge (two arcs of a
// 4-byte target and a 4-byte weight), so the peak is at most twice the CSR
// (plus its offsets): R-MAT 27 (2.1 billion edges, ~69 GB at 32 B per edge)
// then loads and builds on one 80 GB H100. What is left after the input pays
// for the build's source ranges (graph/gpu/build_gpu.cu) and the text
// parser's window (graph/gpu/load_gpu.cu); both take their size from it.
//
// kFixedAllowance: the part that does not grow with the edges: CUB's fixed
// scratch and the counters (kSmallScratch, held back from the rule), and a
// floor under the build's range and the parser's window (kMinWorkspace), so
// that a small graph is still built and parsed in pieces of a useful size. A
// large graph does not use it: its pieces take their size from the 16 B.
#pragma once

#include <algorithm>
#include <cstddef>

namespace graphkit::detail {

inline constexpr std::size_t kBytesPerInputEdge = 16;
inline constexpr std::size_t kFixedAllowance = std::size_t{16} << 20;

/// Held back from the rule by the load and the build for what does not grow
/// with the items: CUB's histograms and tile states, counters, flags.
inline constexpr std::size_t kSmallScratch = std::size_t{1} << 20;
/// The least workspace a step gets, whatever the rule leaves.
inline constexpr std::size_t kMinWorkspace = std::size_t{8} << 20;
static_assert(kSmallScratch + kMinWorkspace <= kFixedAllowance);

/// The most bytes the load or the build of `input_edges` edges holds beyond the CSR.
inline std::size_t memory_budget(std::size_t input_edges) { return kBytesPerInputEdge * input_edges + kFixedAllowance; }

/// The bytes a step may use for its workspace (a build pass's arcs, the
/// parser's text window) once `held` bytes are taken (the input edges, the
/// bookkeeping, kSmallScratch): what the 16 B per input edge leave, at least
/// kMinWorkspace.
inline std::size_t workspace_bytes(std::size_t input_edges, std::size_t held) {
  const std::size_t rule = kBytesPerInputEdge * input_edges;
  return std::max(rule > held ? rule - held : 0, kMinWorkspace);
}

}  // namespace graphkit::detail
