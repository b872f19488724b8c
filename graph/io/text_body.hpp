// The data lines of a text graph file, as a parser that sees only their bytes
// (the GPU's, graph/gpu/load_gpu.hpp) needs to know them: where they start,
// how many numbers each holds and what the ids must be. Each format's reader
// reads it off the file's head with the same header code it parses with.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "graph/io/format.hpp"
#include "graph/types.hpp"

namespace graphkit {

struct text_body {
  file_format format = file_format::edge_list;
  std::size_t offset = 0;    ///< byte where the data lines begin (header and leading comments skipped)
  int fields = 2;            ///< unsigned numbers per line: 2, or 3 with the weight last
  bool arc_prefix = false;   ///< DIMACS: every line reads "a U V W"
  std::uint64_t max_id = 0;  ///< ids are 1..max_id, stored as id - 1; 0: edge-list ids, any 64-bit value
  std::uint64_t lines = 0;   ///< data lines the header promises (0: edge lists promise none)
  bool directed = true;
};

/// The body of a text file in `format` whose first bytes are `head` (cut at a
/// line end). nullopt when the head does not show the common shape (real
/// values, no data line within the head, a header error): the file is then
/// the host reader's, which words any error.
std::optional<text_body> describe_text_body(const std::string& path, file_format format, std::string_view head);

}  // namespace graphkit
