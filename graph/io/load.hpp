// Loading and writing graph files. One entry point for every format; gzip is
// read directly. Errors are graphkit::input_error naming the file and line.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "graph/coo.hpp"
#include "graph/io/format.hpp"
#include "graph/relabel.hpp"

namespace graphkit {

struct load_options {
  /// Overrides detection by extension.
  std::optional<file_format> format;
  /// How edge-list ids (arbitrary 64-bit values) become 0..n-1. Matrix Market
  /// and DIMACS ids are 1..n and map to id - 1 with every vertex kept.
  relabel_order relabel = relabel_order::sorted;
  /// Replaces relabel() for edge lists (the GPU pipeline passes relabel_on_gpu);
  /// it must keep relabel()'s contract.
  std::function<relabeled_edges(std::span<const std::uint64_t>, std::span<const std::uint64_t>, relabel_order)>
      relabeler;
};

struct loaded_graph {
  coo_graph graph;
  file_format format = file_format::edge_list;
  /// Bytes of text parsed (after decompression), for the load rate.
  std::size_t bytes = 0;
  /// Things the loader did that the user should hear about (e.g. real-valued
  /// Matrix Market weights that are not integers were ignored).
  std::vector<std::string> warnings;
  /// File line of the first negative weight (0: none, or a binary file).
  std::size_t negative_weight_line = 0;
  weight_t negative_weight = 0;
};

loaded_graph load_graph(const std::string& path, const load_options& options = {});

/// Writes `g` in the format given or told by the extension; ".gz" compresses
/// the text formats. Edge lists carry original ids; Matrix Market and DIMACS
/// carry dense ids + 1 (their formats demand 1..n); binary carries both.
void write_graph(const coo_graph& g, const std::string& path, std::optional<file_format> format = {});

}  // namespace graphkit
