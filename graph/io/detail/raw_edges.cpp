#include "graph/io/detail/raw_edges.hpp"

#include <algorithm>
#include <cstring>

namespace graphkit::detail {
namespace {

template <class T>
void concat(std::vector<T>& out, std::vector<std::vector<T>*> parts) {
  std::vector<std::size_t> at(parts.size() + 1, 0);
  for (std::size_t p = 0; p < parts.size(); ++p) at[p + 1] = at[p] + parts[p]->size();
  out.resize(at.back());
  parallel_parts(parts.size(), [&](std::size_t p) {
    if (!parts[p]->empty()) std::memcpy(out.data() + at[p], parts[p]->data(), parts[p]->size() * sizeof(T));
    std::vector<T>().swap(*parts[p]);
  });
}

}  // namespace

raw_edges merge_chunks(parsed_chunks<raw_chunk>&& parsed, const std::string& file) {
  // The first data line decides whether the file is weighted; the first line
  // of the other kind is the error.
  std::size_t first_weighted = kNoLine, first_unweighted = kNoLine;
  raw_edges out;
  for (std::size_t c = 0; c < parsed.chunks.size(); ++c) {
    const raw_chunk& chunk = parsed.chunks[c];
    if (first_weighted == kNoLine && chunk.first_weighted != kNoLine)
      first_weighted = parsed.file_line(c, chunk.first_weighted);
    if (first_unweighted == kNoLine && chunk.first_unweighted != kNoLine)
      first_unweighted = parsed.file_line(c, chunk.first_unweighted);
    if (out.negative_weight_line == 0 && chunk.first_negative != kNoLine) {
      out.negative_weight_line = parsed.file_line(c, chunk.first_negative);
      out.negative_weight = chunk.negative_value;
    }
  }
  if (first_weighted != kNoLine && first_unweighted != kNoLine) {
    const bool weighted_first = first_weighted < first_unweighted;
    throw make_input_error(file, weighted_first ? first_unweighted : first_weighted,
                           weighted_first ? "missing weight: earlier lines have three fields (src dst weight)"
                                          : "unexpected weight: earlier lines have two fields (src dst)");
  }
  std::vector<std::vector<std::uint64_t>*> src, dst;
  std::vector<std::vector<weight_t>*> weights;
  for (raw_chunk& chunk : parsed.chunks) {
    src.push_back(&chunk.src);
    dst.push_back(&chunk.dst);
    weights.push_back(&chunk.weights);
  }
  concat(out.src, src);
  concat(out.dst, dst);
  concat(out.weights, weights);
  return out;
}

std::vector<vertex_t> to_zero_based(const std::vector<std::uint64_t>& ids) {
  std::vector<vertex_t> out(ids.size());
  const std::size_t parts = ids.size() < (1 << 20) ? 1 : host_threads();
  parallel_parts(parts, [&](std::size_t p) {
    auto [lo, hi] = part_range(ids.size(), parts, p);
    for (std::size_t i = lo; i < hi; ++i) out[i] = static_cast<vertex_t>(ids[i] - 1);
  });
  return out;
}

}  // namespace graphkit::detail
