// The bucket phases of GPU delta-stepping (see control.cuh for the lists and
// their invariants): opening a bucket, spilling an epoch's lists back to the
// far list when delta changes, and starting a new epoch from the far list
// (its smallest live distance, then a multisplit of its vertices into the new
// epoch's lists). All loops are warp-converged grid-stride loops, so lists are
// appended to with the warp multisplit.
#pragma once

#include <cstdint>

#include "apps/sssp/gpu/relax.cuh"

namespace graphkit::sssp::detail {

/// Calls f(valid, v) for every entry of list[0, size), warp-converged.
template <class F>
__device__ inline void for_each_entry(const vertex_t* list, std::uint32_t size, F&& f) {
  for (std::uint32_t tile = warp_index() * 32; tile < size; tile += warp_count() * 32) {
    const std::uint32_t i = tile + lane();
    f(i < size, i < size ? list[i] : vertex_t{0});
  }
}

/// Phase kOpenBucket: list `bucket`'s live entries (distance still in the
/// bucket; the rest moved lower since) become the frontier.
template <class View>
__device__ inline void open_bucket(const View& s, const control& c, phase_counters& out) {
  const gpu_distance low = c.base + c.bucket * c.delta;
  const gpu_distance high = low + c.delta;
  for_each_entry(c.lists[c.bucket], c.sizes[c.bucket], [&](bool valid, vertex_t v) {
    const gpu_distance d = valid ? s.distance(v) : kGpuUnreachable;
    const bool live = d >= low && d < high;
    const std::uint32_t at = warp_multisplit_reserve(0, live, 1, &out.kept);
    if (!live) return;
    if (at < s.capacity(0)) c.frontier[at] = v;
    else atomicOr(&out.overflow, 1u);
  });
}

/// Phase kSpill: the live entries of the lists after the current bucket go
/// to the far list (delta is about to change, and with it every boundary).
template <class View>
__device__ inline void spill(const View& s, const control& c, phase_counters& out) {
  for (std::uint32_t j = c.bucket + 1; j < kEpochBuckets; ++j) {
    const gpu_distance low = c.base + j * c.delta;
    const gpu_distance high = low + c.delta;
    for_each_entry(c.lists[j], c.sizes[j], [&](bool valid, vertex_t v) {
      const gpu_distance d = valid ? s.distance(v) : kGpuUnreachable;
      append(s, c, out, d >= low && d < high, kFarGroup, v);
    });
  }
}

/// Phase kFarMinimum: the smallest distance at or above `settled` among the
/// far list's vertices (kGpuUnreachable when every entry is stale).
template <class View>
__device__ inline void far_minimum(const View& s, const control& c, phase_counters& out) {
  gpu_distance best = kGpuUnreachable;
  for_each_entry(c.lists[kFarGroup], c.sizes[kFarGroup], [&](bool valid, vertex_t v) {
    const gpu_distance d = valid ? s.distance(v) : kGpuUnreachable;
    if (d >= c.settled && d < best) best = d;
  });
  for (int o = 16; o > 0; o /= 2) best = min(best, __shfl_down_sync(kAllLanes, best, o));
  if (lane() == 0 && best != kGpuUnreachable) atomicMin(&out.far_min, best);
}

/// Phase kResplit: the old far list's live vertices into the new epoch's
/// bucket lists and the new far list. Entries below the new base are stale.
template <class View>
__device__ inline void resplit(const View& s, const control& c, phase_counters& out) {
  for_each_entry(c.far_in, c.far_in_size, [&](bool valid, vertex_t v) {
    const gpu_distance d = valid ? s.distance(v) : 0;
    const bool live = valid && d >= c.base && (c.dedup == 0 || s.resplit_mask.set(v));
    append(s, c, out, live, live ? group_of(d, c.base, c.delta) : 0, v);
  });
}

/// Phase kClearResplitMask: clears the deduplication bits by their own
/// vertices (every vertex resplit marked was in its input).
template <class View>
__device__ inline void clear_resplit_mask(const View& s, const control& c) {
  for_each_entry(c.far_in, c.far_in_size, [&](bool valid, vertex_t v) {
    if (valid) s.resplit_mask.clear_word_of(v);
  });
}

}  // namespace graphkit::sssp::detail
