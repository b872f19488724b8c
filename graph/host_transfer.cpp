#include "graph/host_transfer.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstring>
#include <mutex>
#include <optional>

#include <sys/mman.h>
#include <unistd.h>

#include "graph/detail/parallel.hpp"
#include "primitives/common/error.hpp"
#include "primitives/common/nvtx.hpp"
#include "primitives/common/pinned_buffer.hpp"

namespace graphkit {
namespace {

/// What one host thread works with: two pinned chunks, a stream, and an
/// event per chunk that says when the DMA last using it has finished.
struct lane {
  pinned_buffer<char> chunk[2];
  cudaEvent_t done[2] = {nullptr, nullptr};
  cudaStream_t stream = nullptr;
};

/// The process's pinned chunks. Grown, never shrunk; freed at exit, when a
/// failure no longer matters (the CUDA context may already be gone).
class staging_pool {
 public:
  ~staging_pool() { release(); }

  /// Locks the pool for one transfer and makes sure it has `threads` lanes of `chunk_bytes`.
  std::unique_lock<std::mutex> reserve(unsigned threads, std::size_t chunk_bytes) {
    std::unique_lock<std::mutex> hold(mutex_);
    if (chunk_bytes != chunk_bytes_) release();
    chunk_bytes_ = chunk_bytes;
    std::optional<nvtx_range> growing;  // pinning is slow (see transfer_options): worth a range
    if (lanes_.size() < threads) growing.emplace("graphkit::pinned staging pool");
    while (lanes_.size() < threads) {
      lane& added = lanes_.emplace_back();  // listed first, so that release() frees a half-built lane
      for (int i = 0; i < 2; ++i) {
        added.chunk[i] = pinned_buffer<char>(chunk_bytes);
        GRAPHKIT_CUDA_TRY(cudaEventCreateWithFlags(&added.done[i], cudaEventDisableTiming));
      }
      GRAPHKIT_CUDA_TRY(cudaStreamCreateWithFlags(&added.stream, cudaStreamNonBlocking));
    }
    return hold;
  }
  lane& at(unsigned i) { return lanes_[i]; }

 private:
  void release() noexcept {
    for (lane& l : lanes_) {
      for (int i = 0; i < 2; ++i)
        if (l.done[i] != nullptr) (void)cudaEventDestroy(l.done[i]);
      if (l.stream != nullptr) (void)cudaStreamDestroy(l.stream);
    }
    lanes_.clear();  // and with them their pinned chunks
  }

  std::mutex mutex_;
  std::vector<lane> lanes_;
  std::size_t chunk_bytes_ = 0;
};

staging_pool& pool() {
  static staging_pool p;
  return p;
}

unsigned thread_count(const transfer_options& o, std::size_t bytes) {
  const unsigned wanted = o.threads != 0 ? o.threads : std::min(8u, detail::host_threads());
  // Every thread gets at least two chunks' worth, or the pipelining has nothing to overlap.
  const std::size_t useful = std::max<std::size_t>(1, bytes / (2 * o.chunk_bytes));
  return static_cast<unsigned>(std::min<std::size_t>(wanted, useful));
}

/// The lanes' loop: each of `threads` host threads takes a contiguous share of
/// [0, bytes) and moves it chunk by chunk, two chunks in flight per lane.
template <class PerLane>
void run_lanes(std::size_t bytes, const transfer_options& o, PerLane&& per_lane) {
  GRAPHKIT_EXPECTS(o.chunk_bytes > 0, "host transfer: chunk_bytes must be positive");
  const unsigned threads = thread_count(o, bytes);
  const auto hold = pool().reserve(threads, o.chunk_bytes);
  detail::parallel_parts(threads, [&](std::size_t t) {
    lane& l = pool().at(static_cast<unsigned>(t));
    // A call that failed midway may have left copies in flight on this lane's chunks.
    GRAPHKIT_CUDA_TRY(cudaStreamSynchronize(l.stream));
    const auto [lo, hi] = detail::part_range(bytes, threads, t);
    const std::size_t chunks = (hi - lo + o.chunk_bytes - 1) / o.chunk_bytes;
    auto span_of = [&](std::size_t c) {
      const std::size_t begin = lo + c * o.chunk_bytes;
      return std::pair{begin, std::min(o.chunk_bytes, hi - begin)};
    };
    per_lane(l, chunks, span_of);
    GRAPHKIT_CUDA_TRY(cudaStreamSynchronize(l.stream));
  });
}

void staged_to_device(char* dst, std::size_t bytes, const transfer_options& o, const chunk_filler& fill) {
  run_lanes(bytes, o, [&](lane& l, std::size_t chunks, auto&& span_of) {
    for (std::size_t c = 0; c < chunks; ++c) {
      const auto [at, len] = span_of(c);
      const int b = static_cast<int>(c & 1);
      if (c >= 2) GRAPHKIT_CUDA_TRY(cudaEventSynchronize(l.done[b]));  // chunk c - 2 has left it
      fill(l.chunk[b].data(), at, len);
      GRAPHKIT_CUDA_TRY(cudaMemcpyAsync(dst + at, l.chunk[b].data(), len, cudaMemcpyHostToDevice, l.stream));
      GRAPHKIT_CUDA_TRY(cudaEventRecord(l.done[b], l.stream));
    }
  });
}

void staged_to_host(char* dst, const char* src, std::size_t bytes, const transfer_options& o) {
  run_lanes(bytes, o, [&](lane& l, std::size_t chunks, auto&& span_of) {
    auto fetch = [&](std::size_t c) {
      const auto [at, len] = span_of(c);
      const int b = static_cast<int>(c & 1);
      GRAPHKIT_CUDA_TRY(cudaMemcpyAsync(l.chunk[b].data(), src + at, len, cudaMemcpyDeviceToHost, l.stream));
      GRAPHKIT_CUDA_TRY(cudaEventRecord(l.done[b], l.stream));
    };
    if (chunks > 0) fetch(0);
    for (std::size_t c = 0; c < chunks; ++c) {
      if (c + 1 < chunks) fetch(c + 1);  // its chunk held c - 1, already copied out
      const auto [at, len] = span_of(c);
      const int b = static_cast<int>(c & 1);
      GRAPHKIT_CUDA_TRY(cudaEventSynchronize(l.done[b]));
      std::memcpy(dst + at, l.chunk[b].data(), len);
    }
  });
}

}  // namespace

void prepare_host_pages(void* p, std::size_t bytes, const transfer_options& options) {
  if (p == nullptr || bytes < kStagedMinBytes) return;
  // madvise wants page-aligned ranges: keep to the whole pages inside [p, p + bytes).
  const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  const std::uintptr_t begin = (reinterpret_cast<std::uintptr_t>(p) + page - 1) / page * page;
  const std::uintptr_t end = (reinterpret_cast<std::uintptr_t>(p) + bytes) / page * page;
  if (end <= begin) return;
  // Return values ignored on purpose: both calls are advice (EINVAL where THP
  // or MADV_POPULATE_WRITE, Linux 5.14, is missing), and the first write
  // faults in whatever they did not.
  (void)madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#ifdef MADV_POPULATE_WRITE
  // Parts split at 2 MiB boundaries, so that no huge page is shared by two threads.
  constexpr std::uintptr_t kHuge = 2u << 20;
  const std::uintptr_t base = begin / kHuge * kHuge;
  const std::size_t units = (end - base + kHuge - 1) / kHuge;
  const unsigned threads = static_cast<unsigned>(
      std::min<std::size_t>(units, options.threads != 0 ? options.threads : std::min(8u, detail::host_threads())));
  detail::parallel_parts(threads, [&](std::size_t t) {
    const auto [lo, hi] = detail::part_range(units, threads, t);
    const std::uintptr_t from = std::max(begin, base + lo * kHuge), to = std::min(end, base + hi * kHuge);
    if (to > from) (void)madvise(reinterpret_cast<void*>(from), to - from, MADV_POPULATE_WRITE);
  });
#else
  (void)options;
#endif
}

void copy_to_device(void* device_dst, const void* host_src, std::size_t bytes, const transfer_options& options) {
  if (bytes == 0) return;
  // Work queued earlier on the legacy stream may still use the destination.
  GRAPHKIT_CUDA_TRY(cudaDeviceSynchronize());
  if (bytes < kStagedMinBytes) {
    GRAPHKIT_CUDA_TRY(cudaMemcpy(device_dst, host_src, bytes, cudaMemcpyHostToDevice));
    return;
  }
  const auto* src = static_cast<const char*>(host_src);
  staged_to_device(static_cast<char*>(device_dst), bytes, options,
                   [src](char* chunk, std::size_t at, std::size_t len) { std::memcpy(chunk, src + at, len); });
}

void fill_device(void* device_dst, std::size_t bytes, const chunk_filler& fill, const transfer_options& options) {
  if (bytes == 0) return;
  GRAPHKIT_CUDA_TRY(cudaDeviceSynchronize());
  staged_to_device(static_cast<char*>(device_dst), bytes, options, fill);
}

void copy_to_host(void* host_dst, const void* device_src, std::size_t bytes, const transfer_options& options) {
  if (bytes == 0) return;
  // The source may still be being written by earlier work.
  GRAPHKIT_CUDA_TRY(cudaDeviceSynchronize());
  if (bytes < kStagedMinBytes) {
    GRAPHKIT_CUDA_TRY(cudaMemcpy(host_dst, device_src, bytes, cudaMemcpyDeviceToHost));
    return;
  }
  staged_to_host(static_cast<char*>(host_dst), static_cast<const char*>(device_src), bytes, options);
}

}  // namespace graphkit
