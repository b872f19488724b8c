// The graph file formats graphkit reads and writes, and how a file's format is
// told from its name.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace graphkit {

enum class file_format {
  edge_list,      ///< SNAP / whitespace "src dst [weight]" lines; # and % comments
  matrix_market,  ///< Matrix Market coordinate (pattern, integer, real; general, symmetric)
  dimacs,         ///< DIMACS shortest-path .gr: c, p sp N M, a U V W
  binary,         ///< graphkit's own versioned, checksummed binary (.gkbin)
};

/// "edge-list", "mtx", "gr", "gkbin" (and a few aliases); nullopt if unknown.
std::optional<file_format> parse_format_name(std::string_view name);
std::string_view format_name(file_format format);

/// By extension, after stripping a trailing ".gz": .txt .el .wel .edges .snap,
/// .mtx, .gr, .gkbin. Throws input_error naming the file when none matches.
file_format detect_format(const std::string& path);

/// Choices accepted by parse_format_name, for help texts.
std::string_view format_choices();

}  // namespace graphkit
