// What the bucketed cuckoo map's passes (claim_kernel, settle_kernel,
// settle_alone_kernel) run over: the bulk insert's keys and values, or a
// mixed batch's operations (apply_async, issue 18 steps 27-28). The kernels own the stepping, the overflow list and the
// counts, so both callers share them; an input owns one element: its first
// pass (true when it is an insert deferred to the later passes), its key and
// value for those passes, and where a settled insert's outcome goes.
#pragma once

#include <cstddef>
#include <cstdint>

namespace graphkit::cuckoo_detail {

template <class Ref, class Key, class Value>
__device__ bool refused(const Ref& t, Key key, Value value, bool has_value) {
  return key == t.empty_key || key == t.tombstone_key() || (has_value && value == t.empty_value);
}

/// A first pass's counts per thread (the tile's first thread counts).
struct first_pass_counts {
  unsigned inserted = 0, sentinel = 0, erased = 0;
};

/// The bulk insert's pairs (insert_async): counts only, no outcome per key.
template <class Key, class Value>
struct insert_input {
  const Key* keys;
  const Value* values;

  /// The same input from element `done` on (a chunk's first element).
  [[nodiscard]] insert_input from(std::size_t done) const { return {keys + done, values + done}; }
  [[nodiscard]] __device__ Key key(std::uint32_t i) const { return keys[i]; }
  [[nodiscard]] __device__ Value value(std::uint32_t i) const { return values[i]; }
  __device__ void report(std::uint32_t, std::uint32_t) const {}
  /// Element i's first pass, by the whole tile: an update or a claim
  /// (insert_claim_only); true when both buckets were full without the key.
  template <class Ref, class Tile>
  __device__ bool first_pass(const Ref& t, const Tile& tile, std::uint32_t i, first_pass_counts& c) const {
    const Key k = keys[i];
    const Value v = values[i];
    const bool lead = tile.thread_rank() == 0;
    if (refused(t, k, v, true)) {
      c.sentinel += lead;
      return false;
    }
    const std::uint32_t outcome = t.insert_claim_only(tile, k, v);
    c.inserted += lead && outcome == kHashInserted;
    return outcome == kDeferred;
  }
  __device__ static void add(const first_pass_counts& c, unsigned long long* counts) {
    hash_detail::block_add({c.inserted, c.sentinel}, {hash_detail::kInserted, hash_detail::kSentinel}, counts);
  }
};

/// A mixed batch in two passes (apply_async):
/// the first pass runs every find and erase and every insert that updates
/// its key or claims an empty slot, with no lock; an insert whose buckets are
/// both full without its key is deferred, and the later passes write its
/// outcome. The header's "Mixed batches in two passes" says why this is a
/// legal order of the batch and why nothing in the first pass needs a lock.
template <class Key, class Value>
struct mixed_input {
  const hash_op<Key, Value>* ops;
  Value* results;

  [[nodiscard]] mixed_input from(std::size_t done) const { return {ops + done, results + done}; }
  [[nodiscard]] __device__ Key key(std::uint32_t i) const { return ops[i].key; }
  [[nodiscard]] __device__ Value value(std::uint32_t i) const { return ops[i].value; }
  /// A deferred insert's outcome (kHashInserted, kHashUpdated or kHashFailed), first thread only.
  __device__ void report(std::uint32_t i, std::uint32_t outcome) const { results[i] = static_cast<Value>(outcome); }
  template <class Ref, class Tile>
  __device__ bool first_pass(const Ref& t, const Tile& tile, std::uint32_t i, first_pass_counts& c) const {
    const hash_op<Key, Value> op = ops[i];
    const bool lead = tile.thread_rank() == 0;
    Value result = 0;
    if (refused(t, op.key, op.value, op.kind == hash_op_kind::insert)) {
      c.sentinel += lead;
      result = op.kind == hash_op_kind::find ? t.empty_value : Value{kHashFailed};
    } else if (op.kind == hash_op_kind::insert) {
      const std::uint32_t outcome = t.insert_claim_only(tile, op.key, op.value);
      if (outcome == kDeferred) return true;  // its result comes from the later passes
      c.inserted += lead && outcome == kHashInserted;
      result = static_cast<Value>(outcome);
    } else if (op.kind == hash_op_kind::erase) {
      // Half-bucket reads, as the bulk erase: in this pass no slot empties and no key changes its slot.
      const bool removed = t.template erase_alone<cuckoo_find_read::halves>(tile, op.key);
      c.erased += lead && removed;
      result = removed ? Value{kHashErased} : Value{kHashAbsent};
    } else {
      result = t.find_halves(tile, op.key);
    }
    if (lead) results[i] = result;
    return false;
  }
  __device__ static void add(const first_pass_counts& c, unsigned long long* counts) {
    hash_detail::block_add({c.inserted, c.sentinel, c.erased},
                           {hash_detail::kInserted, hash_detail::kSentinel, hash_detail::kErased}, counts);
  }
};

}  // namespace graphkit::cuckoo_detail
