// One reader and one writer per format, behind load_graph / write_graph.
#pragma once

#include <string>
#include <string_view>

#include "graph/io/detail/text_file.hpp"
#include "graph/io/load.hpp"

namespace graphkit::detail {

/// The text readers free the text once it is parsed, before the rest of their work.
loaded_graph read_edge_list(const std::string& path, text_buffer&& file_text, const load_options& options);
loaded_graph read_matrix_market(const std::string& path, text_buffer&& file_text);
loaded_graph read_dimacs(const std::string& path, text_buffer&& file_text);
loaded_graph read_binary(const std::string& path);

/// Text writers render into a string; write_graph sends it to a plain or gzip file.
std::string render_edge_list(const coo_graph& g);
std::string render_matrix_market(const coo_graph& g);
std::string render_dimacs(const coo_graph& g);
void write_binary(const coo_graph& g, const std::string& path);

}  // namespace graphkit::detail
