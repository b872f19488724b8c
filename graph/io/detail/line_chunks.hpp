// Parallel line parsing for the text formats, straight into the final edge
// arrays. The text is cut into parts at line boundaries; a first parallel pass
// counts each part's lines, which gives every part its first file line and
// its first slot in the output (a line holds at most one edge); a second pass
// parses each part into its slots. Parts that skipped lines (comments, blanks)
// are closed up afterwards, which moves nothing in the usual file whose
// comments all come first.
//
// Each line is tried by the format's fast path, which accepts only the common
// shape (unsigned decimal fields separated by blanks) and otherwise leaves the
// line to the field_reader path, which parses the rest and words every error.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "graph/detail/parallel.hpp"
#include "graph/io/detail/text_file.hpp"
#include "primitives/common/error.hpp"

namespace graphkit::detail {

inline constexpr std::size_t kNoLine = std::numeric_limits<std::size_t>::max();

/// What every part's state carries; parsers derive from it.
struct chunk_base {
  std::size_t lines = 0;           ///< lines seen in this part
  std::size_t bad_line = kNoLine;  ///< part-local index of the first bad line
  std::string why;                 ///< what was wrong with it
};

/// Lines in [p, end): newlines, plus one for a last line without one. The
/// whole blocks that `known` counted are taken from it, the rest read.
inline std::size_t count_lines(const char* p, const char* end, newline_counts known = {}) {
  std::size_t lines = 0;
  if (!known.blocks.empty() && p >= known.base) {
    const auto offset = [&](const char* q) { return static_cast<std::size_t>(q - known.base); };
    const std::size_t first = (offset(p) + kNewlineBlock - 1) / kNewlineBlock, last = offset(end) / kNewlineBlock;
    if (first < last && last <= known.blocks.size()) {
      for (std::size_t b = first; b < last; ++b) lines += known.blocks[b];
      lines += count_newlines(p, known.base + first * kNewlineBlock) +
               count_newlines(known.base + last * kNewlineBlock, end);
      return lines + (end[-1] != '\n' ? 1 : 0);
    }
  }
  lines = count_newlines(p, end);
  return lines + (end > p && end[-1] != '\n' ? 1 : 0);
}

/// Where each part of `text` starts (at a line start), with a last entry at
/// text.size(); about `host_threads() * 4` parts of at least 1 MiB.
inline std::vector<std::size_t> part_cuts(std::string_view text) {
  constexpr std::size_t kMinPartBytes = 1 << 20;
  const std::size_t parts =
      std::max<std::size_t>(1, std::min<std::size_t>(host_threads() * 4, text.size() / kMinPartBytes));
  std::vector<std::size_t> cuts(parts + 1, text.size());
  cuts[0] = 0;
  for (std::size_t p = 1; p < parts; ++p) {
    const std::size_t at = std::max(cuts[p - 1], text.size() * p / parts);
    const void* nl = at < text.size() ? std::memchr(text.data() + at, '\n', text.size() - at) : nullptr;
    cuts[p] = nl ? static_cast<std::size_t>(static_cast<const char*>(nl) - text.data()) + 1 : text.size();
  }
  return cuts;
}

/// The parts of `text` and their first file lines and line counts.
struct line_parts {
  std::vector<std::size_t> cuts;        ///< parts + 1 byte offsets
  std::vector<std::size_t> first_line;  ///< file line of each part's first line
  std::vector<std::size_t> first_slot;  ///< lines before each part, parts + 1 entries
  [[nodiscard]] std::size_t count() const noexcept { return first_line.size(); }
  [[nodiscard]] std::size_t total_lines() const noexcept { return first_slot.back(); }
};

/// The parts of `text` (within the buffer that `known` describes, if any).
inline line_parts split_lines(std::string_view text, std::size_t first_line, newline_counts known = {}) {
  line_parts out;
  out.cuts = part_cuts(text);
  const std::size_t parts = out.cuts.size() - 1;
  std::vector<std::size_t> lines(parts);
  parallel_parts(parts, [&](std::size_t p) {
    lines[p] = count_lines(text.data() + out.cuts[p], text.data() + out.cuts[p + 1], known);
  });
  out.first_line.resize(parts);
  out.first_slot.assign(parts + 1, 0);
  for (std::size_t p = 0; p < parts; ++p) {
    out.first_line[p] = first_line + out.first_slot[p];
    out.first_slot[p + 1] = out.first_slot[p] + lines[p];
  }
  return out;
}

/// Parses every part of `text` on its own thread with
///   fast_line(State&, const char* line, const char* end, std::size_t local) -> const char*
/// (the position after the line, or nullptr to leave the line to the slow path) and
///   slow_line(State&, std::string_view line, std::size_t local) -> bool
/// (false stops the part, with State::why saying why). `states[p]` must be ready
/// to take part p's lines. The first bad line in file order is thrown as
/// input_error naming `file` and the line.
template <class State, class FastLine, class SlowLine>
void parse_parts(std::string_view text, const line_parts& parts, std::vector<State>& states, const std::string& file,
                 FastLine&& fast_line, SlowLine&& slow_line) {
  parallel_parts(parts.count(), [&](std::size_t p) {
    State& state = states[p];
    const char* pos = text.data() + parts.cuts[p];
    const char* const end = text.data() + parts.cuts[p + 1];
    while (pos < end) {
      if (const char* next = fast_line(state, pos, end, state.lines)) {
        pos = next;
        ++state.lines;
        continue;
      }
      const char* nl = static_cast<const char*>(std::memchr(pos, '\n', static_cast<std::size_t>(end - pos)));
      const char* line_end = nl ? nl : end;
      std::string_view line(pos, static_cast<std::size_t>(line_end - pos));
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      if (!slow_line(state, line, state.lines)) {
        state.bad_line = state.lines;
        return;
      }
      ++state.lines;
      pos = line_end + 1;
    }
  });
  for (std::size_t p = 0; p < parts.count(); ++p)
    if (states[p].bad_line != kNoLine)
      throw make_input_error(file, parts.first_line[p] + states[p].bad_line, states[p].why);
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
