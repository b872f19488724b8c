// Decimal digits eight at a time in a 64-bit word (SWAR: SIMD within a
// register), for the text parsers' fast paths: a field of up to 8 digits
// costs one load, a handful of ALU operations and three multiplies, with no
// branch on its length (the per-byte loop mispredicts where lengths vary,
// as vertex ids do).
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>

namespace graphkit::detail {

static_assert(std::endian::native == std::endian::little, "swar_digits.hpp reads the first byte as the lowest");

/// The 8 bytes at p (the first as the lowest byte); the caller makes sure they
/// are readable.
inline std::uint64_t load_word(const char* p) noexcept {
  std::uint64_t word = 0;
  std::memcpy(&word, p, sizeof word);
  return word;
}

/// How many of the word's bytes, from the first, are the digits '0'..'9' (0..8).
inline int leading_digits(std::uint64_t word) noexcept {
  constexpr std::uint64_t kHigh = 0xF0F0F0F0F0F0F0F0ull, kThrees = 0x3030303030303030ull;
  // A byte is a digit when its high nibble is 3 and stays 3 after adding 6.
  // The addition carries out of a byte only above 0xF9, a non-digit, and only
  // into later bytes, so the bytes up to the first non-digit come out exact.
  const std::uint64_t not_digit = ((word & kHigh) ^ kThrees) | (((word + 0x0606060606060606ull) & kHigh) ^ kThrees);
  return not_digit == 0 ? 8 : std::countr_zero(not_digit) / 8;
}

/// The value of the word's first `digits` bytes (1..8, all digits) read as a
/// decimal number.
inline std::uint64_t digits_value(std::uint64_t word, int digits) noexcept {
  // Moving the digits to the top leaves zero bytes below them: leading zeros.
  std::uint64_t v = (word & 0x0F0F0F0F0F0F0F0Full) << (8 * (8 - digits));
  v = (v * 10 + (v >> 8)) & 0x00FF00FF00FF00FFull;         // pairs of digits, 0..99
  v = (v * 100 + (v >> 16)) & 0x0000FFFF0000FFFFull;       // fours, 0..9999
  return (v * 10000 + (v >> 32)) & 0x00000000FFFFFFFFull;  // all eight
}

}  // namespace graphkit::detail
