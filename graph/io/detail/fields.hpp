// Field-level parsing for the text formats: whitespace-separated integers and
// reals, with messages that quote the offending token.
#pragma once

#include <bit>
#include <charconv>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>

#include "graph/io/detail/line_masks.hpp"
#include "graph/io/detail/swar_digits.hpp"

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

/// scan_unsigned_fields for the usual line: its LF within 32 bytes and at
/// most MaxFields fields of at most 8 digits, all found from one line_masks.
/// Returns -1 for any other line, which scan_fields_by_words then decides.
template <int MaxFields>
[[gnu::always_inline]] inline int scan_short_line(const char* p, std::uint64_t (&values)[MaxFields],
                                                  const char*& next) {
  const line_masks m = read_line_masks(p);
  if (m.newline == 0) return -1;
  const int lf = std::countr_zero(m.newline);
  std::uint32_t body = (1u << lf) - 1;
  if (const std::uint32_t other = body & ~m.fielded; other != 0) {
    // Only a CR right before the LF may be neither a digit nor a blank.
    const std::uint32_t last = (1u << lf) >> 1;
    if (other != last || p[lf - 1] != '\r') return -1;
    body &= ~last;
  }
  const std::uint32_t digits = m.digits & body;
  std::uint32_t starts = digits & ~(digits << 1), ends = digits & ~(digits >> 1);
  int fields = 0;
  for (; starts != 0; starts &= starts - 1, ends &= ends - 1) {
    const int at = std::countr_zero(starts), length = std::countr_zero(ends) - at + 1;
    if (fields == MaxFields || length > 8) return -1;
    values[fields++] = digits_value(load_word(p + at), length);
  }
  next = p + lf + 1;
  return fields;
}

/// The fast path's line shape: up to MaxFields unsigned decimal fields of at
/// most 19 digits (so no overflow), blanks (space, tab) around them, an
/// optional CR, then LF or the end. Returns how many fields it read and sets
/// `next` past the line; returns 0 for any other line (comments, signs, long
/// numbers, a field too many, stray characters), which the caller hands to
/// field_reader: it accepts every line this one does, with the same values.
///
/// `p` starts a line before `end`, where the text ends or a part of it ends
/// after a newline; kTextPadding zero bytes follow the text (text_file.hpp),
/// so the scan reads words and stops at a non-digit, with no end checks.
template <int MaxFields>
[[gnu::noinline]] int scan_fields_by_words(const char* p, const char* end, std::uint64_t (&values)[MaxFields],
                                           const char*& next);

template <int MaxFields>
[[gnu::always_inline]] inline int scan_unsigned_fields(const char* p, const char* end,
                                                       std::uint64_t (&values)[MaxFields], const char*& next) {
  // The short-line path inlined into the readers' loops; the rest out of line.
  if constexpr (kHaveLineMasks) {
    const int fields = scan_short_line(p, values, next);
    if (fields >= 0) return fields;
  }
  return scan_fields_by_words(p, end, values, next);
}

/// scan_unsigned_fields field by field, a word at a time: any line length.
template <int MaxFields>
int scan_fields_by_words(const char* p, const char* end, std::uint64_t (&values)[MaxFields], const char*& next) {
  constexpr std::uint64_t kPow10[9] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000};
  // Space, tab, LF and CR end a field; so does the end of the text.
  constexpr std::uint64_t kFieldEnds = 1ull << ' ' | 1ull << '\t' | 1ull << '\n' | 1ull << '\r';
  int fields = 0;
  for (;;) {
    while (*p == ' ' || *p == '\t') ++p;
    std::uint64_t word = load_word(p);
    int digits = leading_digits(word);
    if (digits == 0) break;  // the line's end, or what the checks below refuse
    if (fields == MaxFields) return 0;
    const char* const start = p;
    std::uint64_t v = digits_value(word, digits);
    p += digits;
    while (digits == 8) {  // a long number: 8 more digits at a time
      word = load_word(p);
      digits = leading_digits(word);
      if (digits == 0) break;
      if (p - start + digits > 19) return 0;
      v = v * kPow10[digits] + digits_value(word, digits);
      p += digits;
    }
    const auto c = static_cast<unsigned char>(*p);
    if (p != end && (c > ' ' || (kFieldEnds >> c & 1) == 0)) return 0;
    values[fields++] = v;
  }
  if (*p == '\r') ++p;
  if (*p == '\n') {
    next = p + 1;
    return fields;
  }
  if (p != end) return 0;
  next = p;
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
