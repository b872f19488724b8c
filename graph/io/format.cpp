#include "graph/io/format.hpp"

#include <algorithm>
#include <array>
#include <utility>

#include "primitives/common/error.hpp"

namespace graphkit {
namespace {

constexpr std::array<std::pair<std::string_view, file_format>, 10> kNames{{
    {"edge-list", file_format::edge_list},
    {"el", file_format::edge_list},
    {"snap", file_format::edge_list},
    {"mtx", file_format::matrix_market},
    {"matrix-market", file_format::matrix_market},
    {"gr", file_format::dimacs},
    {"dimacs", file_format::dimacs},
    {"gkbin", file_format::binary},
    {"binary", file_format::binary},
    {"txt", file_format::edge_list},
}};

constexpr std::array<std::pair<std::string_view, file_format>, 8> kExtensions{{
    {".txt", file_format::edge_list},
    {".el", file_format::edge_list},
    {".wel", file_format::edge_list},
    {".edges", file_format::edge_list},
    {".snap", file_format::edge_list},
    {".mtx", file_format::matrix_market},
    {".gr", file_format::dimacs},
    {".gkbin", file_format::binary},
}};

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

}  // namespace

std::optional<file_format> parse_format_name(std::string_view name) {
  for (const auto& [n, f] : kNames)
    if (n == name) return f;
  return std::nullopt;
}

std::string_view format_name(file_format format) {
  switch (format) {
    case file_format::edge_list: return "edge-list";
    case file_format::matrix_market: return "mtx";
    case file_format::dimacs: return "gr";
    case file_format::binary: return "gkbin";
  }
  return "?";
}

std::string_view format_choices() { return "edge-list, mtx, gr, gkbin"; }

file_format detect_format(const std::string& path) {
  std::string_view name = path;
  if (ends_with(name, ".gz")) name.remove_suffix(3);
  for (const auto& [ext, f] : kExtensions)
    if (ends_with(name, ext)) return f;
  throw make_input_error(path, 0,
                         "cannot tell the format from the file name (expected .txt, .el, .wel, "
                         ".edges, .snap, .mtx, .gr or .gkbin, optionally .gz); use --format");
}

}  // namespace graphkit
