// A short line's shape from one 32-byte look (SSE2): bit masks of its digits,
// blanks and line end, from which the fast path finds every field at once.
//
// Why: a scan field by field makes each field's start wait for the previous
// field's end (a load, then its digits), ~12 cycles a field; from the masks,
// the next line's start waits only for one load and a compare, and the
// fields' loads and conversions overlap.
#pragma once

#include <cstdint>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace graphkit::detail {

/// Bit i describes byte i of the 32 at the line's start.
struct line_masks {
  std::uint32_t digits = 0;   ///< '0'..'9'
  std::uint32_t fielded = 0;  ///< digits, space and tab: what a line's fields and blanks are made of
  std::uint32_t newline = 0;
};

/// Whether line_masks can be had on this target (else the callers scan bytes).
#if defined(__SSE2__)
inline constexpr bool kHaveLineMasks = true;

/// The masks of the 32 bytes at p, which must be readable.
inline line_masks read_line_masks(const char* p) noexcept {
  const auto half = [](const char* q, line_masks& m, int shift) {
    const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(q));
    // (byte - '0') < 10 unsigned, as a signed compare after flipping the top bit.
    const __m128i flipped = _mm_xor_si128(_mm_sub_epi8(bytes, _mm_set1_epi8('0')), _mm_set1_epi8(-128));
    const __m128i digit = _mm_cmplt_epi8(flipped, _mm_set1_epi8(-128 + 10));
    const __m128i blank =
        _mm_or_si128(_mm_cmpeq_epi8(bytes, _mm_set1_epi8(' ')), _mm_cmpeq_epi8(bytes, _mm_set1_epi8('\t')));
    const auto bits = [shift](__m128i v) { return static_cast<std::uint32_t>(_mm_movemask_epi8(v)) << shift; };
    m.digits |= bits(digit);
    m.fielded |= bits(_mm_or_si128(digit, blank));
    m.newline |= bits(_mm_cmpeq_epi8(bytes, _mm_set1_epi8('\n')));
  };
  line_masks m;
  half(p, m, 0);
  half(p + 16, m, 16);
  return m;
}
#else
inline constexpr bool kHaveLineMasks = false;
inline line_masks read_line_masks(const char*) noexcept { return {}; }
#endif

}  // namespace graphkit::detail
