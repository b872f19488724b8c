// The one contract every graphkit hash map follows (linear_probing_map,
// hopscotch_map, bucketed_cuckoo_map): the sentinels, the slot type, the operations a ref may
// carry, a mixed batch's operation, and the per-call result.
//
//   * Host calls take a cudaStream_t (defaulted). `insert(...)` synchronizes
//     and returns how many keys it added (updates of present keys do not
//     count); it throws when an insert found no room (resource_error, naming
//     the capacity) or met a sentinel (error). `insert_async`, `erase_async`
//     and `apply_async` take a caller-owned `hash_counts` that receives that
//     call's counts, read with `hash_counts::result()` once the stream has
//     passed the call: no map keeps a "last report" that calls share.
//   * `find_async` and `contains_async` are const; a const map hands out
//     read-only refs (find / contains only).
//   * Refs carry only the operations asked for (`map.ref<hash_ops::find>()`):
//     the others do not compile, and a ref without insert or erase holds a
//     pointer to const slots.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>

#include <cuda_runtime_api.h>

#include "primitives/common/device_buffer.hpp"
#include "primitives/common/error.hpp"

namespace graphkit {

/// Strong types for the sentinels, so that an argument list cannot swap them.
template <class Key>
struct empty_key {
  Key value = std::numeric_limits<Key>::max();
};
template <class Value>
struct empty_value {
  Value value = std::numeric_limits<Value>::max();
};

/// A {key, value} slot, aligned to its size so that one load (and, for 8-byte
/// slots, one CAS) takes it whole.
template <class Key, class Value>
struct alignas(sizeof(Key) + sizeof(Value) <= 8 ? 8 : 16) hash_slot {
  Key key;
  Value value;
};

/// Operations a ref carries, as flags (combine with |).
enum class hash_ops : unsigned { insert = 1, find = 2, erase = 4, all = 7 };
__host__ __device__ constexpr hash_ops operator|(hash_ops a, hash_ops b) {
  return static_cast<hash_ops>(static_cast<unsigned>(a) | static_cast<unsigned>(b));
}
__host__ __device__ constexpr bool has_op(hash_ops set, hash_ops op) {
  return (static_cast<unsigned>(set) & static_cast<unsigned>(op)) != 0;
}
/// Whether a ref with these operations writes the table.
__host__ __device__ constexpr bool writes_table(hash_ops set) {
  return has_op(set, hash_ops::insert) || has_op(set, hash_ops::erase);
}

/// One operation of a mixed batch (apply_async).
enum class hash_op_kind : std::uint32_t { insert = 0, erase = 1, find = 2 };
template <class Key, class Value>
struct hash_op {
  hash_op_kind kind;
  Key key;
  Value value;  // insert only
};
/// Per-operation outcomes of a mixed batch (a find's result is the value, or
/// the empty-value sentinel).
enum hash_outcome : std::uint32_t {
  kHashFailed = 0,
  kHashInserted = 1,
  kHashUpdated = 2,
  kHashErased = 1,
  kHashAbsent = 0,
};

/// What one bulk call did.
struct hash_result {
  std::uint64_t inserted = 0;       ///< keys added (absent before the call)
  std::uint64_t failed = 0;         ///< inserts that found no room (table full)
  std::uint64_t sentinel = 0;       ///< keys or values equal to a sentinel, refused
  std::uint64_t erased = 0;         ///< erases that removed a live entry
  std::uint64_t displacements = 0;  ///< keys moved to make room (hopscotch, cuckoo)
  std::uint64_t stashed = 0;        ///< inserts that went to an overflow stash (hopscotch)
};

namespace hash_detail {
/// Fields of a hash_counts buffer, in hash_result's order.
enum count_field : int { kInserted = 0, kFailed, kSentinel, kErased, kDisplacements, kStashed, kCountFields };
}  // namespace hash_detail

/// Device-side counts of one bulk call, owned by the caller: the *_async
/// calls zero them on their stream and add to them; result() waits for the
/// stream and reads them. One hash_counts per call in flight.
class hash_counts {
 public:
  hash_counts() : counts_(hash_detail::kCountFields) { counts_.fill_bytes(0); }
  [[nodiscard]] unsigned long long* data() noexcept { return counts_.data(); }
  void reset(cudaStream_t stream) {
    GRAPHKIT_CUDA_TRY(cudaMemsetAsync(counts_.data(), 0, counts_.size() * sizeof(unsigned long long), stream));
  }
  [[nodiscard]] hash_result result(cudaStream_t stream = nullptr) const {
    unsigned long long c[hash_detail::kCountFields] = {};
    GRAPHKIT_CUDA_TRY(cudaMemcpyAsync(c, counts_.data(), sizeof c, cudaMemcpyDeviceToHost, stream));
    GRAPHKIT_CUDA_TRY(cudaStreamSynchronize(stream));
    using namespace hash_detail;
    return {c[kInserted], c[kFailed], c[kSentinel], c[kErased], c[kDisplacements], c[kStashed]};
  }

 private:
  device_buffer<unsigned long long> counts_;
};

namespace hash_detail {

/// Adds every thread's mine[f] to base[fields[f]] with one atomic per count
/// and block: warp sums by shuffles, the warps' sums in shared memory.
/// Counting every operation with its own atomic (or one per warp, 2M of them
/// on one address for 2^26 keys) serializes on that address; one per block
/// does not. A kernel calls it once, after its loop, with every thread of the
/// block (blockDim.x a multiple of 32, at most 1024) and all its counts: one
/// shared array written once, so no shared word is reused between calls (a
/// word reused by back-to-back calls is what racecheck reported in the
/// hopscotch and cuckoo kernels).
template <int N>
__device__ void block_add(const unsigned long long (&mine)[N], const int (&fields)[N], unsigned long long* base) {
  static_assert(N <= 32, "block_add: one thread of the first warp per count");
  __shared__ unsigned long long sums[N];
  if (threadIdx.x < N) sums[threadIdx.x] = 0;
  __syncthreads();
#pragma unroll
  for (int f = 0; f < N; ++f) {
    unsigned long long v = mine[f];
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
    if ((threadIdx.x & 31) == 0 && v != 0) atomicAdd(&sums[f], v);
  }
  __syncthreads();
  if (threadIdx.x < N && sums[threadIdx.x] != 0) atomicAdd(base + fields[threadIdx.x], sums[threadIdx.x]);
}

}  // namespace hash_detail
}  // namespace graphkit
