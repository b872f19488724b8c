#include "graph/io/detail/text_file.hpp"

#include <zlib.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include "primitives/common/error.hpp"

namespace graphkit::detail {
namespace {

struct file_closer {
  void operator()(std::FILE* f) const noexcept { std::fclose(f); }
};
using file_ptr = std::unique_ptr<std::FILE, file_closer>;

file_ptr open_or_throw(const std::string& path) {
  file_ptr f(std::fopen(path.c_str(), "rb"));
  if (!f) throw make_input_error(path, 0, std::string("cannot open: ") + std::strerror(errno));
  return f;
}

std::string read_plain(const std::string& path) {
  file_ptr f = open_or_throw(path);
  std::string bytes;
  if (std::fseek(f.get(), 0, SEEK_END) == 0) {
    const long size = std::ftell(f.get());
    if (size > 0) bytes.resize(static_cast<std::size_t>(size));
    std::rewind(f.get());
  }
  std::size_t got = bytes.empty() ? 0 : std::fread(bytes.data(), 1, bytes.size(), f.get());
  if (got != bytes.size()) throw make_input_error(path, 0, "read error after " + std::to_string(got) + " bytes");
  // Pipes and special files report no size: read them in blocks.
  char block[1 << 16];
  while ((got = std::fread(block, 1, sizeof block, f.get())) > 0) bytes.append(block, got);
  if (std::ferror(f.get())) throw make_input_error(path, 0, "read error");
  return bytes;
}

// zlib's messages start with the path; ours already name the file.
std::string gzip_reason(gzFile gz, const std::string& path, int& code) {
  std::string why = gzerror(gz, &code);
  if (why.rfind(path + ": ", 0) == 0) why.erase(0, path.size() + 2);
  return why;
}

std::string read_gzip(const std::string& path) {
  gzFile gz = gzopen(path.c_str(), "rb");
  if (gz == nullptr) throw make_input_error(path, 0, std::string("cannot open: ") + std::strerror(errno));
  gzbuffer(gz, 1 << 20);
  std::string bytes;
  std::size_t used = 0;
  for (;;) {
    if (bytes.size() - used < (1 << 20)) bytes.resize(std::max<std::size_t>(bytes.size() * 2, 1 << 22));
    const int got = gzread(gz, bytes.data() + used, static_cast<unsigned>(std::min<std::size_t>(bytes.size() - used, 1u << 30)));
    if (got < 0) {
      int code = 0;
      const std::string why = gzip_reason(gz, path, code);
      gzclose(gz);
      throw make_input_error(path, 0, "gzip stream is corrupt or truncated: " + why);
    }
    if (got == 0) break;
    used += static_cast<std::size_t>(got);
  }
  // zlib reports a stream that ends early only through gzerror at the end.
  int code = Z_OK;
  const std::string why = gzip_reason(gz, path, code);
  gzclose(gz);
  if (code != Z_OK && code != Z_STREAM_END)
    throw make_input_error(path, 0, "gzip stream is corrupt or truncated: " + why);
  bytes.resize(used);
  return bytes;
}

}  // namespace

bool is_gzip_file(const std::string& path) {
  file_ptr f = open_or_throw(path);
  unsigned char magic[2] = {0, 0};
  return std::fread(magic, 1, 2, f.get()) == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
}

std::string read_text_file(const std::string& path) {
  return is_gzip_file(path) ? read_gzip(path) : read_plain(path);
}

}  // namespace graphkit::detail
