// Field-level parsing for the text formats: whitespace-separated integers and
// reals, with messages that quote the offending token.
#pragma once

#include <charconv>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>

namespace graphkit::detail {

inline bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

/// Reads whitespace-separated fields off a line, left to right.
class field_reader {
 public:
  explicit field_reader(std::string_view line) : pos_(line.data()), end_(line.data() + line.size()) {}

  /// Skips blanks; true when nothing but blanks is left.
  bool at_end() {
    while (pos_ < end_ && is_blank(*pos_)) ++pos_;
    return pos_ == end_;
  }
  [[nodiscard]] char peek() const { return pos_ < end_ ? *pos_ : '\0'; }

  /// The next token, for messages (at most 40 characters).
  [[nodiscard]] std::string next_token() const {
    const char* p = pos_;
    while (p < end_ && !is_blank(*p)) ++p;
    return std::string(pos_, std::min<std::size_t>(static_cast<std::size_t>(p - pos_), 40));
  }

  /// Parses an integer of type T as the next field. On failure fills `why`
  /// with what was expected and found, naming the field by `what`.
  template <class T>
  bool integer(T& value, const char* what, std::string& why) {
    if (at_end()) {
      why = std::string("expected ") + what + ", found end of line";
      return false;
    }
    if constexpr (std::is_unsigned_v<T> && sizeof(T) == 8) {
      // Fast path for the common case, ids of up to 19 digits that end at a
      // blank or the line's end; anything else goes to from_chars below,
      // which also words the errors.
      const char* p = pos_;
      std::uint64_t v = 0;
      while (p < end_ && p - pos_ < 19 && static_cast<unsigned char>(*p - '0') < 10) v = v * 10 + (*p++ - '0');
      if (p > pos_ && (p == end_ || is_blank(*p))) {
        value = v;
        pos_ = p;
        return true;
      }
    }
    const auto [ptr, ec] = std::from_chars(pos_, end_, value);
    if (ec == std::errc::result_out_of_range) {
      why = std::string(what) + " '" + next_token() + "' does not fit in " + std::to_string(sizeof(T) * 8) + " bits";
      return false;
    }
    if (ec != std::errc() || (ptr < end_ && !is_blank(*ptr))) {
      why = std::string("expected ") + what + ", found '" + next_token() + "'";
      return false;
    }
    pos_ = ptr;
    return true;
  }

  bool real(double& value, const char* what, std::string& why) {
    if (at_end()) {
      why = std::string("expected ") + what + ", found end of line";
      return false;
    }
    const auto [ptr, ec] = std::from_chars(pos_, end_, value);
    if (ec != std::errc() || (ptr < end_ && !is_blank(*ptr))) {
      why = std::string("expected ") + what + ", found '" + next_token() + "'";
      return false;
    }
    pos_ = ptr;
    return true;
  }

  /// True when the line is done; otherwise fills `why`.
  bool expect_end(const char* expected, std::string& why) {
    if (at_end()) return true;
    why = std::string("unexpected extra field '") + next_token() + "' (expected " + expected + ")";
    return false;
  }

 private:
  const char* pos_;
  const char* end_;
};

/// The fast path's line shape: up to MaxFields unsigned decimal fields of at
/// most 19 digits (so no overflow), blanks (space, tab) around them, an
/// optional CR, then LF or the end. Returns how many fields it read and sets
/// `next` past the line; returns 0 for any other line (comments, signs, long
/// numbers, a field too many, stray characters), which the caller hands to
/// field_reader: it accepts every line this one does, with the same values.
template <int MaxFields>
inline int scan_unsigned_fields(const char* p, const char* end, std::uint64_t (&values)[MaxFields], const char*& next) {
  int fields = 0;
  for (;;) {
    while (p < end && (*p == ' ' || *p == '\t')) ++p;
    if (p == end || *p == '\n' || *p == '\r') break;
    if (fields == MaxFields) return 0;
    const char* start = p;
    std::uint64_t v = 0;
    while (p < end && static_cast<unsigned char>(*p - '0') < 10) v = v * 10 + static_cast<unsigned>(*p++ - '0');
    if (p == start || p - start > 19) return 0;
    if (p < end && *p != ' ' && *p != '\t' && *p != '\n' && *p != '\r') return 0;
    values[fields++] = v;
  }
  if (p < end && *p == '\r') ++p;
  if (p < end && *p != '\n') return 0;
  next = p < end ? p + 1 : p;
  return fields;
}

/// Weights the fast path may take as they are (larger ones go to the checks).
inline constexpr std::uint64_t kFastMaxWeight = std::numeric_limits<std::int32_t>::max();

/// Narrows a parsed 64-bit weight to weight_t range, or explains why not.
inline bool narrow_weight(std::int64_t wide, std::int32_t& out, std::string& why) {
  if (wide < std::numeric_limits<std::int32_t>::min() || wide > std::numeric_limits<std::int32_t>::max()) {
    why = "weight " + std::to_string(wide) + " does not fit in 32 bits";
    return false;
  }
  out = static_cast<std::int32_t>(wide);
  return true;
}

}  // namespace graphkit::detail
