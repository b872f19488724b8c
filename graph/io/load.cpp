#include "graph/io/load.hpp"

#include <zlib.h>

#include <cstdio>
#include <memory>

#include "graph/io/detail/readers.hpp"
#include "graph/io/detail/text_file.hpp"
#include "primitives/common/error.hpp"
#include "primitives/common/nvtx.hpp"

namespace graphkit {
namespace {

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && std::string_view(s).substr(s.size() - suffix.size()) == suffix;
}

void write_text(const std::string& path, const std::string& text) {
  if (ends_with(path, ".gz")) {
    gzFile gz = gzopen(path.c_str(), "wb6");
    if (gz == nullptr) throw make_input_error(path, 0, "cannot create file");
    std::size_t done = 0;
    while (done < text.size()) {
      const unsigned chunk = static_cast<unsigned>(std::min<std::size_t>(text.size() - done, 1u << 30));
      if (gzwrite(gz, text.data() + done, chunk) != static_cast<int>(chunk)) {
        gzclose(gz);
        throw make_input_error(path, 0, "write failed");
      }
      done += chunk;
    }
    if (gzclose(gz) != Z_OK) throw make_input_error(path, 0, "write failed");
    return;
  }
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "wb"), &std::fclose);
  if (!f) throw make_input_error(path, 0, "cannot create file");
  if (std::fwrite(text.data(), 1, text.size(), f.get()) != text.size() || std::fflush(f.get()) != 0)
    throw make_input_error(path, 0, "write failed");
}

}  // namespace

loaded_graph load_graph(const std::string& path, const load_options& options) {
  nvtx_range range("graphkit::load_graph");
  const file_format format = options.format ? *options.format : detect_format(path);
  if (format == file_format::binary) return detail::read_binary(path);
  detail::text_buffer text = detail::read_text_file(path);
  switch (format) {
    case file_format::edge_list: return detail::read_edge_list(path, std::move(text), options);
    case file_format::matrix_market: return detail::read_matrix_market(path, std::move(text));
    case file_format::dimacs: return detail::read_dimacs(path, std::move(text));
    case file_format::binary: break;
  }
  throw error("load_graph: unhandled format");
}

std::optional<text_body> describe_text_body(const std::string& path, file_format format, std::string_view head) {
  switch (format) {
    case file_format::edge_list: return detail::describe_edge_list(head);
    case file_format::matrix_market: return detail::describe_matrix_market(path, head);
    case file_format::dimacs: return detail::describe_dimacs(path, head);
    case file_format::binary: break;
  }
  return std::nullopt;
}

void write_graph(const coo_graph& g, const std::string& path, std::optional<file_format> format) {
  nvtx_range range("graphkit::write_graph");
  const file_format f = format ? *format : detect_format(path);
  switch (f) {
    case file_format::edge_list: return write_text(path, detail::render_edge_list(g));
    case file_format::matrix_market: return write_text(path, detail::render_matrix_market(g));
    case file_format::dimacs: return write_text(path, detail::render_dimacs(g));
    case file_format::binary: return detail::write_binary(g, path);
  }
}

}  // namespace graphkit
