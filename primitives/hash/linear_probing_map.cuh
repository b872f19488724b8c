// A lock-free GPU hash map by linear probing, after the seed article's design
// ("a simple GPU hash table"): an open-addressing array of {key, value} slots,
// one thread per key; a lookup walks from the key's home slot and stops at
// the key or at an empty key; erase keeps the key and empties the value, so no
// tombstones are needed and a later insert of the key reuses its slot.
// Inserts, finds and erases may run concurrently in one kernel (through
// `ref()` or `apply_async`).
//
// Where the costs go (bench/NOTES.md, "Linear-probing map", step 3):
//   * A thread reads its probe sequence a 32-byte window (one sector: 4 slots
//     of 8 bytes, 2 of 16) at a time, window-aligned, in two 16-byte loads,
//     (plain loads through the L1 for read-only refs, relaxed GPU-scope loads
//     for refs that write): most finds read one sector, and long runs at high
//     load take a quarter of the steps.
//   * An 8-byte slot (32-bit key and value) is claimed with one 64-bit CAS
//     from {empty, empty} to {key, value}: one atomic per new key, and a
//     racing find sees the pair whole or not at all. 16-byte slots claim the
//     key by CAS, then exchange the value.
//   * A value changes only by atomic exchange, so counts are exact without
//     extra atomics: an insert added its key iff the value it replaced was
//     empty, an erase removed one iff the value it emptied was not.
//   * Counts go to one atomic per block (hash_detail::block_add), never one
//     per key or per warp: 2^26 erases counted per warp were 2M atomics on one
//     address, and erase ran at 35% of the CAS ceiling at every load.
// A slot's key never changes inside a kernel once set and a CAS returns the
// slot as it is, so a racing operation that reads a slot before another
// thread's claim only tries its CAS there and learns.
//
// Also: probing bounded by the capacity, so a full table reports the inserts
// that failed instead of spinning; sentinels refused in user data;
// probe-length statistics; rehash (which drops erased keys), size,
// retrieve_all and clear. Any capacity is allowed, rounded up to whole
// windows: home slots come from a multiply-high range reduction.
//
// The host API follows primitives/hash/contract.cuh.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include <cuda_runtime_api.h>

#include "primitives/common/device_buffer.hpp"
#include "primitives/hash/contract.cuh"
#include "primitives/hash/hash_functions.cuh"

namespace graphkit {

/// Probe lengths of the stored keys: how many slots a successful find reads.
struct probe_statistics {
  std::uint64_t keys = 0;
  double mean = 0;
  std::uint32_t max = 0;
  /// histogram[k]: keys whose probe length is in [2^k, 2^(k+1)).
  std::vector<std::uint64_t> histogram;
};

template <class Key, class Value, class Hash = murmur3_hash, hash_ops Ops = hash_ops::all>
struct linear_probing_ref {
  static_assert(sizeof(Key) == 4 || sizeof(Key) == 8, "32- or 64-bit keys");
  static_assert(std::is_integral_v<Key> && std::is_unsigned_v<Key>, "unsigned integer keys");
  static_assert(sizeof(Value) == 4 || sizeof(Value) == 8, "32- or 64-bit values");
  using slot = hash_slot<Key, Value>;
  using slot_pointer = std::conditional_t<writes_table(Ops), slot*, const slot*>;
  /// Slots read per step: one 32-byte sector.
  static constexpr std::size_t kWindow = 32 / sizeof(slot);
  static_assert(kWindow == 2 || kWindow == 4, "8- or 16-byte slots");
  /// The smallest valid capacity holding n slots (whole windows, at least one).
  __host__ __device__ static constexpr std::size_t capacity_for(std::size_t n) {
    return n <= kWindow ? kWindow : (n + kWindow - 1) / kWindow * kWindow;
  }

  /// 16-byte aligned, `capacity` slots, capacity a multiple of kWindow.
  slot_pointer slots;
  std::size_t capacity;
  Key empty_key;
  Value empty_value;

  [[nodiscard]] __device__ std::size_t home(Key k) const {
    const auto h = Hash{}(k);
    if constexpr (sizeof(h) == 4) return static_cast<std::size_t>((std::uint64_t{h} * capacity) >> 32);
    else return static_cast<std::size_t>(__umul64hi(h, capacity));
  }

  struct window {
    slot s[kWindow];
  };
  /// The window starting at slot `first` (a multiple of kWindow): two 16-byte
  /// loads. A read-only ref (no writer in its kernel) reads through the L1; a
  /// writing ref's loads are relaxed at GPU scope, so that they are ordered
  /// with the other threads' atomics in the memory model, not by luck.
  [[nodiscard]] __device__ window load_window(std::size_t first) const {
    const auto* p = reinterpret_cast<const ulonglong2*>(slots + first);
    ulonglong2 a, b;
    if constexpr (writes_table(Ops)) {
      asm volatile("ld.relaxed.gpu.v2.u64 {%0, %1}, [%2];" : "=l"(a.x), "=l"(a.y) : "l"(p));
      asm volatile("ld.relaxed.gpu.v2.u64 {%0, %1}, [%2];" : "=l"(b.x), "=l"(b.y) : "l"(p + 1));
    } else {
      a = p[0];
      b = p[1];
    }
    window w;
    std::memcpy(&w, &a, sizeof a);
    std::memcpy(reinterpret_cast<char*>(&w) + sizeof a, &b, sizeof b);
    return w;
  }

  /// Calls visit(index, slot) for the slots of k's probe sequence in order, a
  /// window per load, until it returns true (then true) or the whole table
  /// has been seen (false).
  template <class Visit>
  __device__ bool probe(Key k, Visit&& visit) const {
    const std::size_t h = home(k);
    const auto offset = static_cast<unsigned>(h % kWindow);
    std::size_t first = h - offset;
    const std::size_t windows = capacity / kWindow;
    // One more window than the table has: the lap ends with the home
    // window's slots before home.
    for (std::size_t w = 0; w <= windows; ++w) {
      const window seen = load_window(first);
      const unsigned from = w == 0 ? offset : 0u, to = w == windows ? offset : static_cast<unsigned>(kWindow);
#pragma unroll
      for (unsigned j = 0; j < kWindow; ++j)
        if (j >= from && j < to && visit(first + j, seen.s[j])) return true;
      first += kWindow;
      if (first == capacity) first = 0;
    }
    return false;
  }

  /// The value of k, or empty_value when k is absent (or erased).
  [[nodiscard]] __device__ Value find(Key k) const requires(has_op(Ops, hash_ops::find)) {
    Value out = empty_value;
    probe(k, [&](std::size_t, const slot& s) {
      if (s.key == k) out = s.value;
      return s.key == k || s.key == empty_key;
    });
    return out;
  }
  [[nodiscard]] __device__ bool contains(Key k) const requires(has_op(Ops, hash_ops::find)) {
    return find(k) != empty_value;
  }

  /// Inserts or overwrites: kHashInserted (k had no live value),
  /// kHashUpdated, or kHashFailed when every slot was probed in vain.
  __device__ std::uint32_t insert(Key k, Value v) const requires(has_op(Ops, hash_ops::insert)) {
    std::uint32_t outcome = kHashFailed;
    probe(k, [&](std::size_t i, slot s) {
      for (;;) {
        if (s.key == k) {
          outcome = exchange_value(i, v) == empty_value ? kHashInserted : kHashUpdated;
          return true;
        }
        if (s.key != empty_key) return false;  // another key's slot
        if constexpr (sizeof(slot) == 8) {
          const slot before = cas_slot(i, slot{empty_key, empty_value}, slot{k, v});
          if (before.key == empty_key) {
            if (before.value == empty_value) {
              outcome = kHashInserted;
              return true;
            }
            return false;  // never made by this map: an empty key with a value; skip it
          }
          s = before;  // taken meanwhile: by k (update it) or another key (go on)
        } else {
          const Key before = claim_key(i, k);
          if (before == empty_key) {
            outcome = exchange_value(i, v) == empty_value ? kHashInserted : kHashUpdated;
            return true;
          }
          s.key = before;
        }
      }
    });
    return outcome;
  }

  /// The slot that holds k, claiming an empty one if k is absent; the value is
  /// left alone. Returns `capacity` when every slot was probed in vain. Lets a
  /// caller keep per-key aggregates (minimum, sum, first position) in its own
  /// arrays indexed by slot, with the atomics it needs.
  __device__ std::size_t insert_slot(Key k) const requires(has_op(Ops, hash_ops::insert)) {
    std::size_t at = capacity;
    probe(k, [&](std::size_t i, const slot& s) {
      if (s.key != k) {
        if (s.key != empty_key) return false;
        const Key before = claim_key(i, k);
        if (before != empty_key && before != k) return false;
      }
      at = i;
      return true;
    });
    return at;
  }

  /// Empties k's value (the key keeps its slot); true if a live value was removed.
  __device__ bool erase(Key k) const requires(has_op(Ops, hash_ops::erase)) {
    bool removed = false;
    probe(k, [&](std::size_t i, const slot& s) {
      // A value read empty was erased already: no atomic for it.
      if (s.key == k && s.value != empty_value) removed = exchange_value(i, empty_value) != empty_value;
      return s.key == k || s.key == empty_key;
    });
    return removed;
  }

  // ---- atomics (writing refs only) --------------------------------------------

  __device__ Key claim_key(std::size_t i, Key k) const {
    if constexpr (sizeof(Key) == 4)
      return static_cast<Key>(atomicCAS(reinterpret_cast<unsigned int*>(&slots[i].key),
                                        static_cast<unsigned int>(empty_key), static_cast<unsigned int>(k)));
    else
      return static_cast<Key>(atomicCAS(reinterpret_cast<unsigned long long*>(&slots[i].key),
                                        static_cast<unsigned long long>(empty_key),
                                        static_cast<unsigned long long>(k)));
  }
  __device__ Value exchange_value(std::size_t i, Value v) const {
    if constexpr (sizeof(Value) == 4)
      return static_cast<Value>(
          atomicExch(reinterpret_cast<unsigned int*>(&slots[i].value), static_cast<unsigned int>(v)));
    else
      return static_cast<Value>(
          atomicExch(reinterpret_cast<unsigned long long*>(&slots[i].value), static_cast<unsigned long long>(v)));
  }
  /// The whole 8-byte slot by one CAS; returns what was there.
  __device__ slot cas_slot(std::size_t i, slot expected, slot desired) const {
    static_assert(sizeof(slot) == 8);
    unsigned long long e = 0, d = 0;
    std::memcpy(&e, &expected, 8);
    std::memcpy(&d, &desired, 8);
    const unsigned long long old = atomicCAS(reinterpret_cast<unsigned long long*>(&slots[i]), e, d);
    slot out;
    std::memcpy(&out, &old, 8);
    return out;
  }
};

template <class Key, class Value, class Hash = murmur3_hash>
class linear_probing_map {
 public:
  template <hash_ops Ops>
  using ref_with = linear_probing_ref<Key, Value, Hash, Ops>;
  using ref_type = ref_with<hash_ops::all>;
  using const_ref_type = ref_with<hash_ops::find>;
  using slot = hash_slot<Key, Value>;
  using op_type = hash_op<Key, Value>;

  /// A table of at least `capacity` slots (rounded up to whole 32-byte windows), all empty.
  explicit linear_probing_map(std::size_t capacity, graphkit::empty_key<Key> key_sentinel = {},
                              graphkit::empty_value<Value> value_sentinel = {}, cudaStream_t stream = nullptr);

  [[nodiscard]] std::size_t capacity() const noexcept { return slots_.size(); }
  /// A ref with the operations asked for (all by default).
  template <hash_ops Ops = hash_ops::all>
  [[nodiscard]] ref_with<Ops> ref() noexcept {
    return {slots_.data(), slots_.size(), empty_key_, empty_value_};
  }
  /// A const map hands out read-only refs.
  template <hash_ops Ops = hash_ops::find>
  requires(!writes_table(Ops)) [[nodiscard]] ref_with<Ops> ref() const noexcept {
    return {slots_.data(), slots_.size(), empty_key_, empty_value_};
  }
  [[nodiscard]] Key empty_key_sentinel() const noexcept { return empty_key_; }
  [[nodiscard]] Value empty_value_sentinel() const noexcept { return empty_value_; }

  /// Inserts or overwrites; `counts` receives this call's inserted / failed / sentinel counts.
  void insert_async(const Key* d_keys, const Value* d_values, std::size_t n, hash_counts& counts,
                    cudaStream_t stream = nullptr);
  /// Returns how many keys were added; throws resource_error if the table is
  /// full, graphkit::error if a key or value is a sentinel (counts in the message).
  std::uint64_t insert(const Key* d_keys, const Value* d_values, std::size_t n, cudaStream_t stream = nullptr);
  /// d_values_out[i] = value of d_keys[i], or the empty-value sentinel.
  void find_async(const Key* d_keys, std::size_t n, Value* d_values_out, cudaStream_t stream = nullptr) const;
  void contains_async(const Key* d_keys, std::size_t n, std::uint8_t* d_found, cudaStream_t stream = nullptr) const;
  /// `counts` receives how many live values were removed.
  void erase_async(const Key* d_keys, std::size_t n, hash_counts& counts, cudaStream_t stream = nullptr);
  /// Returns how many live values were removed.
  std::uint64_t erase(const Key* d_keys, std::size_t n, cudaStream_t stream = nullptr);
  /// A mixed batch of inserts, erases and finds in one kernel, one thread per
  /// operation, in no fixed order. d_results[i]: a find's value (or the empty
  /// value), an insert's hash_outcome, an erase's kHashErased / kHashAbsent.
  void apply_async(const op_type* d_ops, std::size_t n, Value* d_results, hash_counts& counts,
                   cudaStream_t stream = nullptr);

  /// Live entries (key present, value not empty).
  [[nodiscard]] std::uint64_t size(cudaStream_t stream = nullptr) const;
  /// Copies the live entries out (d_keys_out and d_values_out hold size()); returns how many.
  std::uint64_t retrieve_all(Key* d_keys_out, Value* d_values_out, cudaStream_t stream = nullptr) const;
  void clear(cudaStream_t stream = nullptr);
  /// Moves the live entries into a table of new_capacity slots; erased keys are dropped.
  void rehash(std::size_t new_capacity, cudaStream_t stream = nullptr);
  [[nodiscard]] probe_statistics probe_stats(cudaStream_t stream = nullptr) const;

 private:
  /// Zeroes the scratch counter, runs `launch` (which adds to it), returns the count.
  template <class Launch>
  std::uint64_t counted(Launch&& launch, cudaStream_t stream) const;

  Key empty_key_;
  Value empty_value_;
  device_buffer<slot> slots_;
  /// The synchronous calls' own counts (they read them before returning).
  hash_counts sync_counts_;
  /// [0] a count, [1] max probe, [2] probe sum, [3..] histogram (size, retrieve_all, probe_stats)
  mutable device_buffer<unsigned long long> scratch_;
};

}  // namespace graphkit

#include "primitives/hash/detail/linear_probing_impl.cuh"
