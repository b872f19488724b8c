// Edges as parsed from text, before the build: each part of the file writes
// its edges straight into the final arrays (see line_chunks.hpp). Edge lists
// keep 64-bit ids as spelled in the file (relabelled afterwards); Matrix
// Market and DIMACS ids, 1..n and checked by the parser, become 0-based
// vertex ids as they are stored.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "graph/host_array.hpp"
#include "graph/io/detail/line_chunks.hpp"
#include "graph/types.hpp"
#include "primitives/common/nvtx.hpp"

namespace graphkit::detail {

template <class Id>
struct raw_edges {
  host_array<Id> src, dst;
  host_array<weight_t> weights;          ///< empty, or one per edge
  std::size_t negative_weight_line = 0;  ///< file line of the first negative weight, 0 if none
  weight_t negative_weight = 0;
};

/// One part's view of the output: its first slot, and what the merge checks.
template <class Id>
struct edge_chunk : chunk_base {
  Id* src = nullptr;
  Id* dst = nullptr;
  weight_t* weights = nullptr;             ///< null when the file is unweighted
  std::uint64_t id_base = 0;               ///< subtracted from every id (1 for 1-based formats)
  std::size_t count = 0;                   ///< edges written
  std::size_t first_weighted = kNoLine;    ///< local index of the first line with a weight
  std::size_t first_unweighted = kNoLine;  ///< ... and without one
  std::size_t first_negative = kNoLine;    ///< ... and with a negative weight
  weight_t negative_value = 0;

  void add(std::uint64_t u, std::uint64_t v, std::size_t local_line) {
    put(u, v);
    if (first_unweighted == kNoLine) first_unweighted = local_line;
  }
  void add(std::uint64_t u, std::uint64_t v, weight_t w, std::size_t local_line) {
    if (weights != nullptr) weights[count] = w;
    put(u, v);
    if (first_weighted == kNoLine) first_weighted = local_line;
    if (w < 0 && first_negative == kNoLine) {
      first_negative = local_line;
      negative_value = w;
    }
  }

 private:
  void put(std::uint64_t u, std::uint64_t v) {
    src[count] = static_cast<Id>(u - id_base);
    dst[count] = static_cast<Id>(v - id_base);
    ++count;
  }
};

/// Parses `text` (its first line is file line `first_line`; a part of the
/// text_buffer whose counts `known` are) into edges: parse_parts with
/// edge_chunk<Id> states, then the checks that need every part (a weight on
/// some lines but not on others) and the closing up of skipped lines.
template <class Id, class FastLine, class SlowLine>
raw_edges<Id> parse_edges(std::string_view text, newline_counts known, std::size_t first_line, const std::string& file,
                          bool weighted, std::uint64_t id_base, FastLine&& fast_line, SlowLine&& slow_line) {
  const line_parts parts = [&] {
    nvtx_range range("graphkit::host parse: count lines");
    return split_lines(text, first_line, known);
  }();
  raw_edges<Id> out;
  {
    // Sized, not written: each parse thread faults in the pages of its own
    // slots as it writes them (host_array leaves them untouched), so the
    // faults overlap the parse and spread over every thread, where a
    // std::vector's resize() would zero-fill them all on one thread first.
    nvtx_range range("graphkit::host parse: output pages");
    const std::size_t n = parts.total_lines();
    out.src.resize(n);
    out.dst.resize(n);
    if (weighted) out.weights.resize(n);
  }
  std::vector<edge_chunk<Id>> chunks(parts.count());
  for (std::size_t p = 0; p < parts.count(); ++p) {
    chunks[p].src = out.src.data() + parts.first_slot[p];
    chunks[p].dst = out.dst.data() + parts.first_slot[p];
    chunks[p].weights = weighted ? out.weights.data() + parts.first_slot[p] : nullptr;
    chunks[p].id_base = id_base;
  }
  {
    nvtx_range range("graphkit::host parse: parse");
    parse_parts(text, parts, chunks, file, fast_line, slow_line);
  }

  // The first data line decides whether the file is weighted; the first line
  // of the other kind is the error.
  std::size_t first_weighted = kNoLine, first_unweighted = kNoLine;
  for (std::size_t p = 0; p < parts.count(); ++p) {
    const edge_chunk<Id>& c = chunks[p];
    const std::size_t line0 = parts.first_line[p];
    if (first_weighted == kNoLine && c.first_weighted != kNoLine) first_weighted = line0 + c.first_weighted;
    if (first_unweighted == kNoLine && c.first_unweighted != kNoLine) first_unweighted = line0 + c.first_unweighted;
    if (out.negative_weight_line == 0 && c.first_negative != kNoLine) {
      out.negative_weight_line = line0 + c.first_negative;
      out.negative_weight = c.negative_value;
    }
  }
  if (first_weighted != kNoLine && first_unweighted != kNoLine) {
    const bool weighted_first = first_weighted < first_unweighted;
    throw make_input_error(file, weighted_first ? first_unweighted : first_weighted,
                           weighted_first ? "missing weight: earlier lines have three fields (src dst weight)"
                                          : "unexpected weight: earlier lines have two fields (src dst)");
  }
  if (!weighted && first_weighted != kNoLine)
    throw error("parse_edges: a weighted line in a file parsed as unweighted");  // the readers decide up front

  // Close up the slots of skipped lines.
  std::size_t edges = 0;
  for (std::size_t p = 0; p < parts.count(); ++p) {
    const std::size_t from = parts.first_slot[p], n = chunks[p].count;
    if (from != edges && n > 0) {
      std::memmove(out.src.data() + edges, out.src.data() + from, n * sizeof(Id));
      std::memmove(out.dst.data() + edges, out.dst.data() + from, n * sizeof(Id));
      if (weighted) std::memmove(out.weights.data() + edges, out.weights.data() + from, n * sizeof(weight_t));
    }
    edges += n;
  }
  out.src.resize(edges);
  out.dst.resize(edges);
  if (weighted) out.weights.resize(edges);
  return out;
}

}  // namespace graphkit::detail
