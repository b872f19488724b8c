// The bucket side of GPU delta-stepping: which bucket a vertex belongs in,
// the storage of pending buckets, and the kernels that turn a stored bucket
// back into a clean frontier.
//
// Buckets are counted from an epoch base: bucket k holds distances in
// [base + k*delta, base + (k+1)*delta). An epoch keeps kEpochBuckets buckets
// in their own lists and everything farther in one "far" list. Vertices are
// distributed with multisplit, kEpochBuckets + 2 ways: one per epoch bucket,
// far, and "stale" (a distance below the base was settled in an earlier
// epoch, so the entry is dropped). When the epoch's buckets are done, the
// next base is the smallest live distance in the far list and the far list is
// split again. Lists may hold stale copies of a vertex (it improved and was
// pushed again); filter_bucket_kernel drops them when a bucket is opened.
#pragma once

#include <cstdint>

#include "apps/sssp/gpu/relax.cuh"

namespace graphkit::sssp::detail {

inline constexpr std::uint32_t kEpochBuckets = 16;
inline constexpr std::uint32_t kFarGroup = kEpochBuckets;
inline constexpr std::uint32_t kStaleGroup = kEpochBuckets + 1;
inline constexpr std::uint32_t kGroups = kEpochBuckets + 2;

/// The multisplit bucket functor: vertex -> epoch bucket, far or stale.
struct bucket_of_vertex {
  const gpu_distance* dist;
  gpu_distance base;
  gpu_distance delta;

  __device__ std::uint32_t operator()(vertex_t v) const {
    const gpu_distance d = dist[v];
    if (d < base) return kStaleGroup;
    const gpu_distance k = (d - base) / delta;
    return k < kEpochBuckets ? static_cast<std::uint32_t>(k) : kFarGroup;
  }
};

/// Keeps the vertices whose distance lies in [low, high) (the rest are stale
/// copies), each once.
static __global__ void filter_bucket_kernel(const vertex_t* in, std::uint32_t n, const gpu_distance* dist, gpu_distance low,
                                     gpu_distance high, frontier_mask_ref mask, vertex_t* out,
                                     round_counters* counters) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const vertex_t v = in[i];
  const gpu_distance d = dist[v];
  if (d >= low && d < high && mask.set(v)) push_vertex(out, &counters->kept, v);
}

/// counters->far_min = the smallest dist[v] >= threshold over the list (stays
/// kGpuUnreachable when every entry is stale).
static __global__ void min_live_distance_kernel(const vertex_t* list, std::uint32_t n, const gpu_distance* dist,
                                         gpu_distance threshold, round_counters* counters) {
  gpu_distance best = kGpuUnreachable;
  for (std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const gpu_distance d = dist[list[i]];
    if (d >= threshold && d < best) best = d;
  }
  for (int o = 16; o > 0; o /= 2) best = min(best, __shfl_down_sync(0xffffffffu, best, o));
  if ((threadIdx.x & 31) == 0 && best != kGpuUnreachable) atomicMin(&counters->far_min, best);
}

/// A growable device list of vertex ids with its length kept on the host
/// (the driver learns every length from a round's counters anyway).
class vertex_list {
 public:
  [[nodiscard]] std::uint32_t size() const noexcept { return size_; }
  [[nodiscard]] vertex_t* data() noexcept { return storage_.data(); }
  void clear() noexcept { size_ = 0; }

  /// Appends n ids from device memory, growing by half again when full.
  void append(const vertex_t* d_ids, std::uint32_t n, cudaStream_t stream) {
    if (n == 0) return;
    if (std::size_t{size_} + n > UINT32_MAX) throw error("sssp: a bucket list outgrew 2^32 entries");
    reserve(std::size_t{size_} + n, stream);
    GRAPHKIT_CUDA_TRY(
        cudaMemcpyAsync(storage_.data() + size_, d_ids, n * sizeof(vertex_t), cudaMemcpyDeviceToDevice, stream));
    size_ += n;
  }

  void reserve(std::size_t n, cudaStream_t stream) {
    if (n <= storage_.size()) return;
    device_buffer<vertex_t> bigger(std::max(n, storage_.size() + storage_.size() / 2));
    if (size_ > 0)
      GRAPHKIT_CUDA_TRY(cudaMemcpyAsync(bigger.data(), storage_.data(), size_ * sizeof(vertex_t),
                                        cudaMemcpyDeviceToDevice, stream));
    storage_ = std::move(bigger);
  }

 private:
  device_buffer<vertex_t> storage_;
  std::uint32_t size_ = 0;
};

}  // namespace graphkit::sssp::detail
