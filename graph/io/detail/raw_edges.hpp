// Edges as parsed from text, before vertex ids are made dense: 64-bit ids as
// spelled in the file, per-chunk, merged in file order.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "graph/io/detail/line_chunks.hpp"
#include "graph/types.hpp"

namespace graphkit::detail {

struct raw_chunk : chunk_base {
  std::vector<std::uint64_t> src, dst;
  std::vector<weight_t> weights;
  std::size_t first_weighted = kNoLine;    ///< local index of the first line with a weight
  std::size_t first_unweighted = kNoLine;  ///< ... and without one
  std::size_t first_negative = kNoLine;    ///< ... and with a negative weight
  weight_t negative_value = 0;

  std::size_t expected_lines = 0;

  void reserve_lines(std::size_t lines) {
    expected_lines = lines;
    src.reserve(lines);
    dst.reserve(lines);
  }
  void add(std::uint64_t u, std::uint64_t v, std::size_t local_line) {
    src.push_back(u);
    dst.push_back(v);
    if (first_unweighted == kNoLine) first_unweighted = local_line;
  }
  void add(std::uint64_t u, std::uint64_t v, weight_t w, std::size_t local_line) {
    src.push_back(u);
    dst.push_back(v);
    if (first_weighted == kNoLine) {
      first_weighted = local_line;
      weights.reserve(expected_lines);
    }
    weights.push_back(w);
    if (w < 0 && first_negative == kNoLine) {
      first_negative = local_line;
      negative_value = w;
    }
  }
};

struct raw_edges {
  std::vector<std::uint64_t> src, dst;
  std::vector<weight_t> weights;  ///< empty, or one per edge
  std::size_t negative_weight_line = 0;  ///< file line of the first negative weight, 0 if none
  weight_t negative_weight = 0;
};

/// Concatenates the chunks in file order. Throws input_error (naming the line)
/// when some lines carry a weight and others do not.
raw_edges merge_chunks(parsed_chunks<raw_chunk>&& parsed, const std::string& file);

/// Converts 1-based ids in [1, n] (Matrix Market, DIMACS; already checked) to 0-based.
std::vector<vertex_t> to_zero_based(const std::vector<std::uint64_t>& ids);

}  // namespace graphkit::detail
