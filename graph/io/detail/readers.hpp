// One reader and one writer per format, behind load_graph / write_graph.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "graph/io/detail/line_chunks.hpp"
#include "graph/io/detail/text_file.hpp"
#include "graph/io/load.hpp"
#include "graph/io/text_body.hpp"
#include "primitives/common/error.hpp"

namespace graphkit::detail {

/// The text readers free the text once it is parsed, before the rest of their work.
loaded_graph read_edge_list(const std::string& path, text_buffer&& file_text, const load_options& options);
loaded_graph read_matrix_market(const std::string& path, text_buffer&& file_text);
loaded_graph read_dimacs(const std::string& path, text_buffer&& file_text);
/// .gkbin version 2 (and version 1 through read_binary_v1).
loaded_graph read_binary(const std::string& path);
loaded_graph read_binary_v1(const std::string& path);

/// describe_text_body for each text format (same contract).
std::optional<text_body> describe_edge_list(std::string_view head);
std::optional<text_body> describe_matrix_market(const std::string& path, std::string_view head);
std::optional<text_body> describe_dimacs(const std::string& path, std::string_view head);

/// A header read off a file's head for describe_*: nullopt where the reader
/// throws input_error (the host reader will say what is wrong, with the file).
template <class Read>
auto header_or_nothing(Read&& read) -> std::optional<decltype(read())> {
  try {
    return read();
  } catch (const input_error&) {
    return std::nullopt;
  }
}

/// Takes off the front of `text` the lines `skip(line)` says to, returning how many.
template <class Skip>
std::size_t skip_lines(std::string_view& text, Skip&& skip) {
  std::size_t lines = 0;
  for (std::string_view rest = text; !rest.empty(); ++lines) {
    std::string_view probe = rest;
    if (!skip(take_line(probe))) break;
    rest = probe;
    text = rest;
  }
  return lines;
}

/// Text writers render into a string; write_graph sends it to a plain or gzip file.
std::string render_edge_list(const coo_graph& g);
std::string render_matrix_market(const coo_graph& g);
std::string render_dimacs(const coo_graph& g);
/// .gkbin version 2 with blocks of `block_bytes` (0: the default, 1 MiB).
void write_binary(const coo_graph& g, const std::string& path, std::uint64_t block_bytes = 0);
/// .gkbin version 1, as older builds wrote it: for tests of the reader's fallback.
void write_binary_v1(const coo_graph& g, const std::string& path);

}  // namespace graphkit::detail
