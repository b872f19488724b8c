// The in-phase pool of GPU delta-stepping on sparse, even graphs (meshes,
// roads). There a round holds a few thousand vertices whose chains of hops a
// warp follows on its own (local_queue, up to control::relax_depth hops); a
// chain that outgrows its warp's queue or depth used to wait for the next
// round: a grid barrier, a re-read of the frontier, and the round's slowest
// warp. With the pool, such a vertex is published to a global array instead,
// and warps whose own work is done take published vertices in turn until
// none is left and no warp can publish more; so a bucket takes one phase
// where it took dozens of rounds, and no warp waits for the slowest.
//
// Protocol (counters in phase_counters, cleared for every phase):
//   * publish: reserve slots by pool_tail (one atomic per warp), write the
//     vertex ids; slots at or past the pool's room are not written, and
//     their vertices go to the next frontier as before;
//   * take: a waiting lane holds a ticket, a slot index from pool_head (one
//     atomic per warp, never failing: a first version claimed by CAS, and
//     every item set thousands of waiting warps on one word, ~10 ms a
//     bucket), and looks at its own slot until a vertex is there; it takes
//     the vertex and empties the slot for the next phase;
//   * a warp adds 1 to pool_idle once its frontier work is done, and adds k
//     to pool_done once the k vertices it took are relaxed, both after a
//     fence that orders its publishing before them;
//   * the phase ends when pool_idle is every warp and pool_done equals the
//     published count (pool_tail, capped at the room). Read in that order:
//     if so, no taken vertex was still being relaxed (each was published,
//     so below the tail), nobody could publish more, and every published
//     vertex was relaxed; tickets still held are past the tail and lapse.
// A vertex is published once while waiting (the next frontier's mask bit,
// cleared when it is taken, fenced before its distance is read), and is
// relaxed from its distance read through L2 when taken: the atomic that
// lowered it was performed there before it was published.
#pragma once

#include <cuda/atomic>

#include <cstdint>

#include "apps/sssp/gpu/control.cuh"

namespace graphkit::sssp::detail {

/// Lanes of a warp (row slots with edge rows) that hold tickets: a warp takes
/// up to this many vertices at a time. Fewer spread a burst of published
/// vertices over more warps (H100, road:22, 1 / 2 / 4 / 8 / 32: 6.96 / 6.99 /
/// 6.89 / 7.49 / 15.5 ms; 32 puts a flush's whole burst on one warp; with
/// edge rows, 2 / 4 / 8 row slots: grid:22 6.39 / 6.23 / 6.96 ms).
inline constexpr std::uint32_t kPoolTake = 4;
/// The longest wait between a warp's looks at its empty slots, ns: shorter
/// waits crowd the memory system with looks, longer ones leave published
/// vertices waiting (road:22, 4 tickets, 64 / 128 / 256: 7.39 / 7.11 / 6.89
/// ms; 8 tickets, 256 / 1024 / 4096: 7.49 / 7.83 / 10.7). Session 14, with
/// the road delta x 16: 256 / 512 / 1024 / 2048: road:22 5.22-5.26 / 5.16-5.19
/// / 4.97-4.98 / 5.22-5.24 ms, grid:22 6.18-6.22 / 6.19 / 6.28-6.30 /
/// 6.68-6.75 (bench/NOTES.md SSSP step 44).
inline constexpr unsigned kPoolSleepNs = 1024;
/// The first wait after a look that found nothing; it doubles up to kPoolSleepNs.
inline constexpr unsigned kPoolFirstSleepNs = 32;
/// A warp checks whether the phase is over every this many empty looks: the
/// check reads words that every waiting warp would otherwise crowd.
inline constexpr std::uint32_t kPoolLooksPerCheck = 8;

/// A pool slot nobody has written since it was last taken.
inline constexpr vertex_t kEmptySlot = ~vertex_t{0};

/// A device-scope acquire load: what the writer did before its release (or
/// fence) is visible after it.
__device__ inline std::uint32_t load_acquire(const std::uint32_t& word) {
  return cuda::atomic_ref<const std::uint32_t, cuda::thread_scope_device>(word).load(cuda::memory_order_acquire);
}

/// Writes a vertex id into its reserved slot, past the L1.
__device__ inline void publish(vertex_t* slot, vertex_t v) { __stcg(slot, v); }

/// A lane's ticket when it holds none.
inline constexpr std::uint32_t kNoTicket = ~std::uint32_t{0};

/// Whether the phase's work is done (see the protocol above). `room`: the
/// pool's capacity; `warps`: every warp of the grid.
__device__ inline bool pool_finished(const phase_counters& out, std::uint32_t room, std::uint32_t warps) {
  if (load_acquire(out.pool_idle) != warps) return false;
  const std::uint32_t done = load_acquire(out.pool_done);
  return done == min(load_acquire(out.pool_tail), room);
}

}  // namespace graphkit::sssp::detail
