#include "graph/host_transfer.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <future>
#include <memory>
#include <mutex>
#include <new>
#include <string>

#include <sys/mman.h>
#include <unistd.h>

#include "graph/detail/parallel.hpp"
#include "primitives/common/error.hpp"
#include "primitives/common/nvtx.hpp"

namespace graphkit {
namespace {

/// What one host thread works with: two pinned chunks (in the pool's
/// block), a stream, an event per chunk that says when the DMA last using it
/// has finished, and one that marks the end of the lane's part of a transfer
/// (for a caller's stream to wait on, transfer_options::wait_for_copies).
struct lane {
  char* chunk[2] = {nullptr, nullptr};
  cudaEvent_t done[2] = {nullptr, nullptr};
  cudaEvent_t finished = nullptr;
  cudaStream_t stream = nullptr;
};

/// 16 lanes: a page-cached file reached the device at 44.5 GB/s through 16
/// and 27.6 through 8 in one run on the H100 host (12.1 against 19.5 ms for
/// 512 MiB; 11.9 against 12.5 in another): each lane's memcpy from the page
/// cache sets its pace, so more lanes read faster.
unsigned default_lanes() { return std::min(16u, detail::host_threads()); }

/// The process's pinned chunks: one block of host memory, faulted in first
/// and then registered with CUDA. Pinning fresh memory (cudaHostAlloc) costs
/// ~0.75 ms per MiB on the H100 host, nearly all of it faulting the pages
/// in; memory already faulted registers in ~0.1 ms per MiB. The faulting
/// needs no CUDA context, so prepare_staging() can do it while the context
/// is being created. Grown, never shrunk; freed at exit, when a failure no
/// longer matters (the CUDA context may already be gone).
class staging_pool {
 public:
  ~staging_pool() {
    if (preparing_.valid()) preparing_.wait();
    drop_lanes();
  }

  /// Faults in the memory of `lanes` lanes of `chunk_bytes` on another thread.
  void prepare_async(unsigned lanes, std::size_t chunk_bytes) {
    const std::lock_guard<std::mutex> hold(mutex_);
    if (preparing_.valid() || block_bytes_ != 0) return;
    preparing_ = std::async(std::launch::async, [this, lanes, chunk_bytes] {
      const std::lock_guard<std::mutex> inner(mutex_);
      if (block_bytes_ == 0 && !discarded_) prepare_block(std::size_t{lanes} * 2 * chunk_bytes);
    });
  }

  /// Frees the memory of a pool no transfer has used (the run went to the CPU).
  void discard() noexcept {
    const std::lock_guard<std::mutex> hold(mutex_);
    discarded_ = true;
    if (lanes_.empty()) block_.reset(), block_bytes_ = 0;
  }

  /// Locks the pool for one transfer and makes sure it has `threads` lanes of `chunk_bytes`.
  std::unique_lock<std::mutex> reserve(unsigned threads, std::size_t chunk_bytes) {
    std::unique_lock<std::mutex> hold(mutex_);
    if (lanes_.size() >= threads && chunk_bytes == chunk_bytes_) return hold;
    const nvtx_range range("graphkit::pinned staging pool");
    drop_lanes();
    // Every lane a default transfer uses at once, so that the pool is seldom rebuilt.
    const unsigned lanes = std::max(threads, default_lanes());
    const std::size_t bytes = std::size_t{lanes} * 2 * chunk_bytes;
    if (block_bytes_ < bytes) prepare_block(bytes);  // a block prepared ahead is kept when it is large enough
    const cudaError_t status = cudaHostRegister(block_.get(), bytes, cudaHostRegisterDefault);
    if (status == cudaErrorMemoryAllocation) {
      (void)cudaGetLastError();
      throw resource_error("out of pinned host memory: asked to pin " + std::to_string(bytes) + " bytes");
    }
    GRAPHKIT_CUDA_TRY(status);
    registered_ = true;
    chunk_bytes_ = chunk_bytes;
    for (unsigned l = 0; l < lanes; ++l) {
      lane& added = lanes_.emplace_back();  // listed first, so that drop_lanes() frees a half-built lane
      for (int i = 0; i < 2; ++i) {
        added.chunk[i] = block_.get() + (std::size_t{l} * 2 + i) * chunk_bytes;
        GRAPHKIT_CUDA_TRY(cudaEventCreateWithFlags(&added.done[i], cudaEventDisableTiming));
      }
      GRAPHKIT_CUDA_TRY(cudaEventCreateWithFlags(&added.finished, cudaEventDisableTiming));
      GRAPHKIT_CUDA_TRY(cudaStreamCreateWithFlags(&added.stream, cudaStreamNonBlocking));
    }
    return hold;
  }
  lane& at(unsigned i) { return lanes_[i]; }

 private:
  /// A new block of at least `bytes`, faulted in (huge pages where granted).
  void prepare_block(std::size_t bytes) {
    block_.reset();
    block_bytes_ = 0;
    constexpr std::size_t kHuge = 2u << 20;
    const std::size_t rounded = (bytes + kHuge - 1) / kHuge * kHuge;
    block_.reset(static_cast<char*>(std::aligned_alloc(kHuge, rounded)));
    if (!block_) throw std::bad_alloc();
    prepare_host_pages(block_.get(), rounded);
    block_bytes_ = rounded;
  }

  void drop_lanes() noexcept {
    for (lane& l : lanes_) {
      for (int i = 0; i < 2; ++i)
        if (l.done[i] != nullptr) (void)cudaEventDestroy(l.done[i]);
      if (l.finished != nullptr) (void)cudaEventDestroy(l.finished);
      if (l.stream != nullptr) (void)cudaStreamDestroy(l.stream);
    }
    lanes_.clear();
    if (registered_) (void)cudaHostUnregister(block_.get());
    registered_ = false;
    chunk_bytes_ = 0;
  }

  struct free_block {
    void operator()(char* p) const noexcept { std::free(p); }
  };

  std::mutex mutex_;
  std::future<void> preparing_;
  std::unique_ptr<char, free_block> block_;
  std::size_t block_bytes_ = 0;
  bool registered_ = false;
  bool discarded_ = false;
  std::vector<lane> lanes_;
  std::size_t chunk_bytes_ = 0;
};

staging_pool& pool() {
  static staging_pool p;
  return p;
}

unsigned thread_count(const transfer_options& o, std::size_t bytes) {
  const unsigned wanted = o.threads != 0 ? o.threads : default_lanes();
  // Every thread gets at least two chunks' worth, or the pipelining has nothing to overlap.
  const std::size_t useful = std::max<std::size_t>(1, bytes / (2 * o.chunk_bytes));
  return static_cast<unsigned>(std::min<std::size_t>(wanted, useful));
}

/// The lanes' loop: each of `threads` host threads takes a contiguous share of
/// [0, bytes) and moves it chunk by chunk, two chunks in flight per lane.
/// The host touches a chunk only after its `done` event (the last copy that
/// used it, in this call or an earlier one, which may have left copies in
/// flight); a lane's own stream orders its copies. `drain`: return once
/// the lanes' copies are complete, else make o.stream wait for them.
template <class PerLane>
void run_lanes(std::size_t bytes, const transfer_options& o, bool drain, PerLane&& per_lane) {
  GRAPHKIT_EXPECTS(o.chunk_bytes > 0, "host transfer: chunk_bytes must be positive");
  const unsigned threads = thread_count(o, bytes);
  const auto hold = pool().reserve(threads, o.chunk_bytes);
  detail::parallel_parts(threads, [&](std::size_t t) {
    lane& l = pool().at(static_cast<unsigned>(t));
    const auto [lo, hi] = detail::part_range(bytes, threads, t);
    const std::size_t chunks = (hi - lo + o.chunk_bytes - 1) / o.chunk_bytes;
    auto span_of = [&](std::size_t c) {
      const std::size_t begin = lo + c * o.chunk_bytes;
      return std::pair{begin, std::min(o.chunk_bytes, hi - begin)};
    };
    per_lane(l, chunks, span_of);
    if (drain) {
      GRAPHKIT_CUDA_TRY(cudaStreamSynchronize(l.stream));
    } else {
      GRAPHKIT_CUDA_TRY(cudaEventRecord(l.finished, l.stream));
      GRAPHKIT_CUDA_TRY(cudaStreamWaitEvent(o.stream, l.finished, 0));
    }
  });
}

void staged_to_device(std::span<const device_piece> pieces, std::size_t bytes, const transfer_options& o,
                      const chunk_filler& fill) {
  run_lanes(bytes, o, o.wait_for_copies, [&](lane& l, std::size_t chunks, auto&& span_of) {
    for (std::size_t c = 0; c < chunks; ++c) {
      const auto [at, len] = span_of(c);
      const int b = static_cast<int>(c & 1);
      GRAPHKIT_CUDA_TRY(cudaEventSynchronize(l.done[b]));  // the last copy from it (chunk c - 2, or an earlier call's)
      char* const chunk = l.chunk[b];
      fill(chunk, at, len);
      // The chunk's share of each piece it overlaps (usually one).
      const auto first = std::upper_bound(pieces.begin(), pieces.end(), at,
                                          [](std::size_t x, const device_piece& p) { return x < p.at + p.bytes; });
      for (auto p = first; p != pieces.end() && p->at < at + len; ++p) {
        const std::size_t from = std::max(at, p->at), to = std::min(at + len, p->at + p->bytes);
        if (to <= from) continue;  // an empty piece
        GRAPHKIT_CUDA_TRY(cudaMemcpyAsync(static_cast<char*>(p->device_dst) + (from - p->at), chunk + (from - at),
                                          to - from, cudaMemcpyHostToDevice, l.stream));
      }
      GRAPHKIT_CUDA_TRY(cudaEventRecord(l.done[b], l.stream));
    }
  });
}

void staged_to_host(char* dst, const char* src, std::size_t bytes, const transfer_options& o) {
  run_lanes(bytes, o, true, [&](lane& l, std::size_t chunks, auto&& span_of) {
    auto fetch = [&](std::size_t c) {
      const auto [at, len] = span_of(c);
      const int b = static_cast<int>(c & 1);
      GRAPHKIT_CUDA_TRY(cudaMemcpyAsync(l.chunk[b], src + at, len, cudaMemcpyDeviceToHost, l.stream));
      GRAPHKIT_CUDA_TRY(cudaEventRecord(l.done[b], l.stream));
    };
    if (chunks > 0) fetch(0);
    for (std::size_t c = 0; c < chunks; ++c) {
      if (c + 1 < chunks) fetch(c + 1);  // its chunk held c - 1, already copied out
      const auto [at, len] = span_of(c);
      const int b = static_cast<int>(c & 1);
      GRAPHKIT_CUDA_TRY(cudaEventSynchronize(l.done[b]));
      std::memcpy(dst + at, l.chunk[b], len);
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

void prepare_staging(const transfer_options& options) {
  pool().prepare_async(options.threads != 0 ? options.threads : default_lanes(), options.chunk_bytes);
}

void discard_staging() noexcept { pool().discard(); }

void copy_to_device(void* device_dst, const void* host_src, std::size_t bytes, const transfer_options& options) {
  if (bytes == 0) return;
  // Work queued earlier (on any stream) may still use the destination.
  GRAPHKIT_CUDA_TRY(cudaDeviceSynchronize());
  if (bytes < kStagedMinBytes) {
    // On the caller's stream, and waited for: a plain cudaMemcpy from
    // pageable memory may return before the data lands, unordered with a
    // non-blocking stream.
    GRAPHKIT_CUDA_TRY(cudaMemcpyAsync(device_dst, host_src, bytes, cudaMemcpyHostToDevice, options.stream));
    GRAPHKIT_CUDA_TRY(cudaStreamSynchronize(options.stream));
    return;
  }
  const auto* src = static_cast<const char*>(host_src);
  const device_piece whole{0, bytes, device_dst};
  staged_to_device({&whole, 1}, bytes, options,
                   [src](char* chunk, std::size_t at, std::size_t len) { std::memcpy(chunk, src + at, len); });
}

void fill_device(void* device_dst, std::size_t bytes, const chunk_filler& fill, const transfer_options& options) {
  const device_piece whole{0, bytes, device_dst};
  fill_device(bytes, {&whole, 1}, fill, options);
}

void fill_device(std::size_t source_bytes, std::span<const device_piece> pieces, const chunk_filler& fill,
                 const transfer_options& options) {
  for (std::size_t i = 0; i < pieces.size(); ++i)
    GRAPHKIT_EXPECTS(pieces[i].at + pieces[i].bytes <= source_bytes &&
                         (i == 0 || pieces[i - 1].at + pieces[i - 1].bytes <= pieces[i].at),
                     "fill_device: pieces must be ascending, disjoint and inside the source");
  if (source_bytes == 0) return;
  if (options.wait_for_device) GRAPHKIT_CUDA_TRY(cudaDeviceSynchronize());
  staged_to_device(pieces, source_bytes, options, fill);
}

void copy_to_host(void* host_dst, const void* device_src, std::size_t bytes, const transfer_options& options) {
  if (bytes == 0) return;
  // The source may still be being written by earlier work.
  GRAPHKIT_CUDA_TRY(cudaDeviceSynchronize());
  if (bytes < kStagedMinBytes) {
    GRAPHKIT_CUDA_TRY(cudaMemcpyAsync(host_dst, device_src, bytes, cudaMemcpyDeviceToHost, options.stream));
    GRAPHKIT_CUDA_TRY(cudaStreamSynchronize(options.stream));
    return;
  }
  staged_to_host(static_cast<char*>(host_dst), static_cast<const char*>(device_src), bytes, options);
}

}  // namespace graphkit
