// --delta's text to a delta_choice (apps/sssp/sssp.hpp).
#include <charconv>
#include <cstdint>
#include <string>

#include "apps/sssp/sssp.hpp"
#include "primitives/common/error.hpp"

namespace graphkit::sssp {

delta_choice delta_choice::parse(const std::string& text) {
  if (text == "auto") return {mode::adaptive, 0};
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end != text.data() + text.size() || value == 0)
    throw input_error("--delta '" + text + "': expected a positive integer or 'auto'");
  return {mode::fixed, value};
}

}  // namespace graphkit::sssp
