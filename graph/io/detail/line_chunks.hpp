// Parallel line parsing for the text formats. The text is cut into chunks at
// line boundaries, each chunk is parsed on its own thread into its own state,
// and line numbers are made global afterwards from each chunk's line count, so
// errors still name the exact file line.
#pragma once

#include <cstddef>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "graph/detail/parallel.hpp"
#include "primitives/common/error.hpp"

namespace graphkit::detail {

inline constexpr std::size_t kNoLine = std::numeric_limits<std::size_t>::max();

/// What every chunk state carries; parsers derive from it.
struct chunk_base {
  std::size_t lines = 0;          ///< lines seen in this chunk
  std::size_t bad_line = kNoLine; ///< chunk-local index of the first bad line
  std::string why;                ///< what was wrong with it
};

template <class State>
struct parsed_chunks {
  std::vector<State> chunks;
  /// File line number (1-based) of each chunk's first line.
  std::vector<std::size_t> first_line;

  [[nodiscard]] std::size_t file_line(std::size_t chunk, std::size_t local) const {
    return first_line[chunk] + local;
  }
  [[nodiscard]] std::size_t total_lines() const {
    return chunks.empty() ? 0 : first_line.back() + chunks.back().lines - first_line.front();
  }
};

/// Parses `text` (whose first line is file line `first_line`) with
/// parse_line(State&, std::string_view line, std::size_t local_index) -> bool.
/// A false return stops that chunk; the first bad line in file order is thrown
/// as input_error naming `file` and the line.
template <class State, class ParseLine>
parsed_chunks<State> parse_lines(std::string_view text, std::size_t first_line, const std::string& file,
                                 ParseLine&& parse_line) {
  constexpr std::size_t kMinChunkBytes = 1 << 20;
  const std::size_t parts = std::max<std::size_t>(
      1, std::min<std::size_t>(host_threads() * 4, text.size() / kMinChunkBytes));
  std::vector<std::size_t> cuts(parts + 1, text.size());
  cuts[0] = 0;
  for (std::size_t p = 1; p < parts; ++p) {
    std::size_t at = std::max(cuts[p - 1], text.size() * p / parts);
    const void* nl = at < text.size() ? std::memchr(text.data() + at, '\n', text.size() - at) : nullptr;
    cuts[p] = nl ? static_cast<std::size_t>(static_cast<const char*>(nl) - text.data()) + 1 : text.size();
  }

  parsed_chunks<State> result;
  result.chunks.resize(parts);
  parallel_parts(parts, [&](std::size_t p) {
    State& state = result.chunks[p];
    const char* pos = text.data() + cuts[p];
    const char* const end = text.data() + cuts[p + 1];
    if constexpr (requires { state.reserve_lines(std::size_t{}); }) {
      // One memchr pass is far cheaper than regrowing the output vectors.
      std::size_t lines = 1;
      for (const char* q = pos; (q = static_cast<const char*>(std::memchr(q, '\n', static_cast<std::size_t>(end - q)))); ++q)
        ++lines;
      state.reserve_lines(lines);
    }
    while (pos < end) {
      const char* nl = static_cast<const char*>(std::memchr(pos, '\n', static_cast<std::size_t>(end - pos)));
      const char* line_end = nl ? nl : end;
      std::string_view line(pos, static_cast<std::size_t>(line_end - pos));
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      if (!parse_line(state, line, state.lines)) {
        state.bad_line = state.lines;
        return;
      }
      ++state.lines;
      pos = line_end + 1;
    }
  });

  result.first_line.resize(parts);
  std::size_t line = first_line;
  for (std::size_t p = 0; p < parts; ++p) {
    result.first_line[p] = line;
    const State& state = result.chunks[p];
    if (state.bad_line != kNoLine) throw make_input_error(file, line + state.bad_line, state.why);
    line += state.lines;
  }
  return result;
}

/// Splits off the first line of `text`; returns it without its line ending.
inline std::string_view take_line(std::string_view& text) {
  const std::size_t nl = text.find('\n');
  std::string_view line = text.substr(0, nl);
  text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return line;
}

}  // namespace graphkit::detail
