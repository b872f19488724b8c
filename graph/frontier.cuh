// A frontier of vertex ids in two forms: a vector (sparse: good when few
// vertices are active) and a bitmap (dense: constant-time membership, and
// duplicates vanish). Converting vector -> bitmap -> vector deduplicates and
// sorts, which is how SSSP cleans a bucket's vertex list.
#pragma once

#include <algorithm>

#include "graph/types.hpp"
#include "primitives/bitmap/bit_span.cuh"
#include "primitives/bitmap/dense_bitmap.cuh"
#include "primitives/common/device_buffer.hpp"

namespace graphkit {

/// What a kernel takes to deduplicate a frontier as it is built: one bit per
/// vertex, set by the first thread that adds the vertex (bit_span_ref::set).
using frontier_mask_ref = bit_span_ref;

/// The storage behind frontier_mask_ref: n bits, cleared with one memset.
class frontier_mask {
 public:
  explicit frontier_mask(vertex_t num_vertices, cudaStream_t stream = nullptr)
      : words_((std::size_t{num_vertices} + 31) / 32) {
    clear_async(stream);
  }
  [[nodiscard]] frontier_mask_ref ref() noexcept { return {words_.data()}; }
  void clear_async(cudaStream_t stream = nullptr) { words_.fill_bytes(0, stream); }

 private:
  device_buffer<std::uint32_t> words_;
};

class vertex_frontier {
 public:
  explicit vertex_frontier(vertex_t num_vertices, cudaStream_t stream = nullptr)
      : num_vertices_(num_vertices), bitmap_(num_vertices, stream) {}

  [[nodiscard]] vertex_t num_vertices() const noexcept { return num_vertices_; }
  [[nodiscard]] bool is_dense() const noexcept { return dense_; }
  /// Vertices in the sparse form (possibly with duplicates until deduplicated).
  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  [[nodiscard]] const vertex_t* vertices() const noexcept { return vertices_.data(); }
  [[nodiscard]] dense_bitmap& bitmap() noexcept { return bitmap_; }

  /// Sparse form from n device vertex ids (copied). Ids must be < num_vertices:
  /// the next to_dense() reports those that are not.
  void assign(const vertex_t* d_vertices, std::size_t n, cudaStream_t stream = nullptr) {
    reserve(n);
    if (n > 0)
      GRAPHKIT_CUDA_TRY(
          cudaMemcpyAsync(vertices_.data(), d_vertices, n * sizeof(vertex_t), cudaMemcpyDeviceToDevice, stream));
    size_ = n;
    dense_ = false;
  }

  /// Sparse -> dense: the bitmap of the vertices. Throws graphkit::error on ids out of range.
  void to_dense(cudaStream_t stream = nullptr) {
    if (dense_) return;
    bitmap_.clear_async(stream);
    bitmap_.insert(vertices_.data(), size_, stream);
    dense_ = true;
  }

  /// Dense -> sparse: the bitmap's vertices, sorted and unique.
  void to_sparse(cudaStream_t stream = nullptr) {
    if (!dense_) return;
    reserve(static_cast<std::size_t>(bitmap_.count(stream)));
    size_ = static_cast<std::size_t>(bitmap_.to_sorted_array(vertices_.data(), stream));
    dense_ = false;
  }

  /// Sorts the sparse form and drops duplicate vertices, through the bitmap.
  void deduplicate(cudaStream_t stream = nullptr) {
    to_dense(stream);
    to_sparse(stream);
  }

 private:
  void reserve(std::size_t n) {
    if (vertices_.size() < n) vertices_ = device_buffer<vertex_t>(std::max<std::size_t>(n, vertices_.size() * 3 / 2));
  }

  vertex_t num_vertices_;
  dense_bitmap bitmap_;
  device_buffer<vertex_t> vertices_;
  std::size_t size_ = 0;
  bool dense_ = false;
};

}  // namespace graphkit
