// Text graph files parsed on the GPU. The host reads the header off the
// file's head (graph/io/text_body.hpp) and streams the data lines by several
// pread threads straight into pinned chunks and on to the device; there one
// pass counts the lines of each 8 KiB tile, a scan turns the counts into line
// numbers, and a second pass parses every line into its slot. Edge-list ids
// are then compacted by relabel_device, so the edges reach the build without
// coming back to the host.
//
// The GPU takes only the common line shape, exactly as the host readers'
// fast path does (unsigned decimal fields, spaces or tabs, LF or CR LF, ids
// in range, weights that fit). When any line has another shape (a comment in
// the middle, a sign, a real value, an error) load_on_gpu says so and the
// host reader takes the whole file: it accepts the rest and words every
// error, so results and messages are the host's in every case.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "graph/gpu/pipeline.hpp"
#include "graph/io/format.hpp"
#include "graph/relabel.hpp"

namespace graphkit {

/// The edges of a file, on the device, with dense ids.
struct device_loaded {
  device_edges edges;
  std::vector<original_id_t> original_ids;  ///< as load_graph gives them
  file_format format = file_format::edge_list;
  std::size_t bytes = 0;  ///< text bytes (after decompression), for the load rate
};

struct gpu_load_options {
  std::optional<file_format> format;  ///< overrides detection by extension
  relabel_order relabel = relabel_order::sorted;
  /// Smaller files are left to the host reader, which is as fast there.
  std::size_t min_bytes = 8u << 20;
};

/// The file parsed on the GPU, equal to what load_graph gives; nullopt when
/// the host reader must take it (a version 1 .gkbin, small, a pipe, or a line the GPU
/// does not take). Throws input_error for a file that cannot be opened or
/// read, device_memory_error when the text does not fit on the device.
std::optional<device_loaded> load_on_gpu(const std::string& path, const gpu_load_options& options = {});

/// A .gkbin version 2 file read straight to the device and checked there
/// (graph/gpu/binary_gpu.cu), equal to what load_graph gives, with the same
/// input_error for a damaged file; nullopt for version 1 (the host reader's).
std::optional<device_loaded> load_binary_on_gpu(const std::string& path);

}  // namespace graphkit
