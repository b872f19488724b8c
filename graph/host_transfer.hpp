// Host <-> device copies of large arrays in ordinary (pageable) host memory,
// staged through pinned buffers by several host threads.
//
// Why: cudaMemcpy from pageable memory runs at ~9 GB/s on our H100 host (the
// driver stages it through its own pinned buffer on one thread), a third of
// what the link moves from pinned memory. Here each of up to `threads` host
// threads owns a contiguous share of the array and two pinned chunks: while
// the DMA engine moves one chunk, the thread memcpy's the next into (or out
// of) the other, so the host-side copies run in parallel and overlap the
// transfers. bench/transfer_bench measures each against the pinned ceiling.
//
// The pinned chunks are allocated on first use and kept for the process (one
// pool, held for the whole of a call: concurrent calls from several host
// threads take turns). Copies below kStagedMinBytes are one cudaMemcpyAsync
// on transfer_options::stream, then a wait for it. The calls return when
// the data is in place, except uploads asked not to wait for their copies
// (transfer_options::wait_for_copies).
#pragma once

#include <cstddef>
#include <functional>
#include <span>
#include <vector>

#include "primitives/common/device_buffer.hpp"

namespace graphkit {

struct transfer_options {
  unsigned threads = 0;  ///< host threads; 0: min(16, hardware threads)
  /// Per pinned chunk; two per thread. Fresh pinned memory costs ~0.75 ms
  /// per MiB on the H100 host (mostly faulting the pages in; 256 MiB took
  /// 140 ms of a 0.7 s run), so the pool stays small: 2 MiB chunks still
  /// keep the link busy.
  std::size_t chunk_bytes = 2u << 20;
  /// Uploads first wait for all work queued on the device, which may still
  /// use the destination; false leaves that to the caller (a parse of one
  /// buffer running while the next is filled: graph/gpu/load_gpu.cu).
  bool wait_for_device = true;
  /// The stream the caller's device work runs on: copies below
  /// kStagedMinBytes go on it, and every copy is complete on return either
  /// way (but see wait_for_copies), so work enqueued on it afterwards sees
  /// the data.
  cudaStream_t stream = nullptr;
  /// Staged uploads (fill_device, copy_to_device) return once their copies
  /// are complete; false returns once they are queued, with `stream` made to
  /// wait for them, so that the lanes go on reading the next upload while
  /// the last chunks cross the link (the GPU parser's windows: with 2 chunks
  /// per lane a window, draining the lanes cost a third of each window).
  bool wait_for_copies = true;
};

/// Options for copies that belong to work on `stream`.
inline transfer_options on_stream(cudaStream_t stream) {
  transfer_options o;
  o.stream = stream;
  return o;
}

/// Starts faulting in the pinned pool's host memory (for `options`' lanes
/// and chunks) on another thread, without a CUDA call: call it before the
/// CUDA context exists, and the first transfer only registers the memory
/// (~3 ms per 32 MiB on the H100 host, against ~25 ms to pin it
/// fresh).
void prepare_staging(const transfer_options& options = {});

/// Frees the pool's memory if no transfer has used it (a run that went to
/// the CPU after prepare_staging()).
void discard_staging() noexcept;

/// Smaller copies are not worth the threads.
inline constexpr std::size_t kStagedMinBytes = 4u << 20;

/// Copies `bytes` from pageable host memory to the device; waits for it.
void copy_to_device(void* device_dst, const void* host_src, std::size_t bytes, const transfer_options& options = {});
/// Writes bytes [at, at + len) of a source into `chunk` (pinned); called from
/// the lanes' threads at once, for disjoint ranges. Throws to stop the transfer.
using chunk_filler = std::function<void(char* chunk, std::size_t at, std::size_t len)>;

/// Fills `bytes` of device memory from a source that writes pinned chunks
/// itself (a file read straight into them: no pageable copy in between), on
/// the same lanes as copy_to_device; waits for it.
void fill_device(void* device_dst, std::size_t bytes, const chunk_filler& fill, const transfer_options& options = {});

/// Bytes [at, at + bytes) of a source, bound for `device_dst`.
struct device_piece {
  std::size_t at;
  std::size_t bytes;
  void* device_dst;
};

/// fill_device for a source whose bytes go to several device arrays (a
/// file's arrays, read in one pass of the lanes rather than one per array,
/// each of which pays the pipeline's start and drain): `source_bytes` bytes
/// are read through `fill`; each piece's go to its array; bytes outside
/// every piece (padding between arrays) are read and dropped. Pieces are
/// ascending and disjoint.
void fill_device(std::size_t source_bytes, std::span<const device_piece> pieces, const chunk_filler& fill,
                 const transfer_options& options = {});

/// Copies `bytes` from the device to pageable host memory; waits for it.
void copy_to_host(void* host_dst, const void* device_src, std::size_t bytes, const transfer_options& options = {});

/// A device copy of `host`.
template <class T>
device_buffer<T> upload(std::span<const T> host, const transfer_options& options = {}) {
  device_buffer<T> out(host.size());
  copy_to_device(out.data(), host.data(), host.size_bytes(), options);
  return out;
}

/// Asks the kernel for the pages of [p, p + bytes), which the caller owns but
/// has not touched, ahead of their first write: huge pages where the system
/// grants them on request, faulted in by several threads. Only advice: the
/// contents and the caller's objects are not touched, and a kernel that
/// refuses changes nothing but speed.
void prepare_host_pages(void* p, std::size_t bytes, const transfer_options& options = {});

/// A vector of `n` elements whose pages are faulted in by several threads
/// (huge pages where granted) before resize() writes them: a plain resize
/// faults them one at a time on one thread, the larger part of its cost.
template <class T>
std::vector<T> prepared_vector(std::size_t n) {
  std::vector<T> v;
  v.reserve(n);
  prepare_host_pages(v.data(), n * sizeof(T));
  v.resize(n);
  return v;
}

/// A host copy of `device` in `Array`, a std::vector<T> or host_array<T>. A
/// new array's pages cost more than the copy itself (the H100 host faults
/// fresh 4 KiB pages in at ~1.6 GB/s on one thread), so they are prepared
/// first; a std::vector's resize() then zeroes resident memory, a
/// host_array's writes nothing.
template <class Array, class T>
Array download_as(const device_buffer<T>& device, const transfer_options& options = {}) {
  Array out;
  out.reserve(device.size());
  prepare_host_pages(out.data(), device.bytes(), options);
  out.resize(device.size());
  copy_to_host(out.data(), device.data(), device.bytes(), options);
  return out;
}

template <class T>
std::vector<T> download(const device_buffer<T>& device, const transfer_options& options = {}) {
  return download_as<std::vector<T>>(device, options);
}

}  // namespace graphkit
