// Whole-file reads for the text loaders: plain files in one read, gzip streams
// (told by their magic bytes, not their name) through zlib.
#pragma once

#include <string>

namespace graphkit::detail {

/// The file's bytes, decompressed if it is gzip. Throws input_error naming the
/// file when it is missing, unreadable, or a truncated/corrupt gzip stream.
std::string read_text_file(const std::string& path);

/// True when the file starts with the gzip magic bytes.
bool is_gzip_file(const std::string& path);

}  // namespace graphkit::detail
