// Global stores that ask the L2 to keep their lines ahead of others
// (createpolicy's evict_last, sm_80 and up; plain stores below): the
// post-scans' write-out (write_in_bucket_order, detail/wide_tile.cuh).
//
// Why: a tile writes each bucket's run between the run of the tile before
// and the run of the tile after, so the 32-byte sectors at a run's two ends
// are completed by other blocks, some microseconds later. Input lines are
// read once at the default priority; output lines marked to be kept are
// evicted after them, so more of the partly written ones are whole before
// they go (ncu, uniform keys m = 256: DRAM writes 1.149 -> 1.125 GB, reads
// 1.194 -> 1.212, post-scan 1,449 -> 1,420 us). Measured (H100,
// bench/NOTES.md multisplit step 35, same run, ms): uniform keys m = 129 /
// 192 / 256 1.634 / 1.668 / 1.706 -> 1.619 / 1.647 / 1.673, uniform pairs
// m = 64 1.011 -> 0.990, other rows level; evict_first and streaming
// stores helped less, L1::no_allocate not at all.
#pragma once

#include <cstdint>
#include <cstring>
#include <nv/target>

namespace graphkit::multisplit_detail {

/// A cache policy made once per write-out, then one store an item.
class kept_stores {
 public:
  __device__ __forceinline__ kept_stores() {
    NV_IF_TARGET(NV_PROVIDES_SM_80, (asm("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(policy_));));
  }

  /// *to = value, with the policy for 4- and 8-byte values aligned to their
  /// size (a plain store for others: a struct of two 32-bit words may sit at
  /// an odd word, where a 64-bit store is misaligned).
  template <class T>
  __device__ __forceinline__ void store(T* to, const T& value) const {
    if constexpr ((sizeof(T) == 4 || sizeof(T) == 8) && alignof(T) >= sizeof(T)) {
      NV_IF_ELSE_TARGET(NV_PROVIDES_SM_80, (store_bits(to, value);), (*to = value;));
    } else {
      *to = value;
    }
  }

 private:
  template <class T>
  __device__ __forceinline__ void store_bits(T* to, const T& value) const {
    if constexpr (sizeof(T) == 4) {
      std::uint32_t bits;
      std::memcpy(&bits, &value, 4);
      asm volatile("st.global.L2::cache_hint.b32 [%0], %1, %2;" ::"l"(to), "r"(bits), "l"(policy_) : "memory");
    } else {
      std::uint64_t bits;
      std::memcpy(&bits, &value, 8);
      asm volatile("st.global.L2::cache_hint.b64 [%0], %1, %2;" ::"l"(to), "l"(bits), "l"(policy_) : "memory");
    }
  }

  std::uint64_t policy_ = 0;
};

}  // namespace graphkit::multisplit_detail
