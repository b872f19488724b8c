// Thread-block cluster steps (sm_90) for wide_digits_pair_loop
// (detail/wide_digits.cuh): a block's rank in its cluster, the cluster
// barrier with memory order or as timing only, a store into another
// block's shared memory and the load that polls for it. Inline PTX rather than cooperative_groups' cluster
// group, which exists only in the sm_90 passes of a portable build: these
// compile to nothing below sm_90, where the host never launches clusters
// (device_launches_clusters).
#pragma once

#include <nv/target>

namespace graphkit::multisplit_detail {

/// This block's rank in its cluster (blockIdx.x % cluster size, for the
/// one-dimensional clusters used here).
__device__ __forceinline__ unsigned cluster_block_rank() {
  unsigned rank = 0;
  NV_IF_TARGET(NV_PROVIDES_SM_90, (asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));));
  return rank;
}

/// The whole cluster barrier, release and acquire: every block of the
/// cluster is running (its shared memory takes remote stores) and sees what
/// the others stored before it.
__device__ __forceinline__ void cluster_sync() {
  NV_IF_TARGET(NV_PROVIDES_SM_90, (asm volatile("barrier.cluster.arrive.aligned;\n\t"
                                                "barrier.cluster.wait.aligned;" ::
                                                    : "memory");));
}

/// The cluster barrier as a timing device only: arrive without ordering any
/// memory. With the default (release) arrive, pairs of blocks ran keys at m
/// = 32 in 1.30 ms against 1.19 unpaired and 1.20 relaxed (H100,
/// bench/NOTES.md multisplit step 29; likely the release waiting for the
/// block's outstanding memory operations, the next tile's cp.async among
/// them).
__device__ __forceinline__ void cluster_meet_relaxed() {
  NV_IF_TARGET(NV_PROVIDES_SM_90, (asm volatile("barrier.cluster.arrive.relaxed.aligned;\n\t"
                                                "barrier.cluster.wait.aligned;" ::
                                                    : "memory");));
}

/// Stores `value` at `local`'s place in the shared memory of the cluster's
/// block `rank` (the same variable of that block's copy of the storage), by
/// an atomic exchange at cluster scope, and returns the value it replaced.
/// Why an exchange: racecheck reported a plain relaxed store against
/// load_fresh's polling as a race (the memory model has none there), and
/// the exchange runs as fast (H100: keys m = 256 1.822 / 1.674 ms uniform /
/// skewed, exchange 1.820 / 1.677). Polling by an atomic too (lane 0 a warp)
/// cost 4% with skewed ids (bench/NOTES.md multisplit step 29).
__device__ __forceinline__ unsigned long long store_in_block(unsigned long long* local, unsigned rank,
                                                             unsigned long long value) {
  unsigned long long replaced = 0;
  NV_IF_TARGET(NV_PROVIDES_SM_90, (const auto address = static_cast<unsigned>(__cvta_generic_to_shared(local));
                                   unsigned remote; asm volatile("mapa.shared::cluster.u32 %0, %1, %2;"
                                                                 : "=r"(remote)
                                                                 : "r"(address), "r"(rank));
                                   asm volatile("atom.relaxed.cluster.shared::cluster.exch.b64 %0, [%1], %2;"
                                                : "=l"(replaced)
                                                : "r"(remote), "l"(value)
                                                : "memory");));
  return replaced;
}

/// This block's own copy of a variable that store_in_block writes, read
/// afresh each time by a relaxed load at cluster scope (the store lands
/// whenever it lands).
__device__ __forceinline__ unsigned long long load_fresh(const unsigned long long* local) {
  unsigned long long value = 0;
  NV_IF_TARGET(NV_PROVIDES_SM_90, (asm volatile("ld.relaxed.cluster.shared::cta.u64 %0, [%1];"
                                                : "=l"(value)
                                                : "r"(static_cast<unsigned>(__cvta_generic_to_shared(local)))
                                                : "memory");));
  return value;
}

}  // namespace graphkit::multisplit_detail
