// A lock-free-read GPU hash map by bucketed cuckoo hashing, after the design
// BGHT published (Awad et al., "Analyzing and implementing GPU hash tables"):
// 32-bit keys and values in 8-byte slots, buckets of 8 slots (64 bytes, one
// DRAM burst), two buckets per key, an operation per tile of 4 threads that
// reads a bucket with one 16-byte load each and votes on the slots. A find
// reads its first bucket, and its second only when the first is full and
// lacks the key: one 64-byte read for most keys at any load.
//
// Why 8 slots and 2 choices (bench/NOTES.md, issue 18 step 11): a sequential
// model of this insert (two choices, moves out of first buckets only, a
// path of up to 3 moves) places every key up to load 0.97 with 8-slot buckets,
// with 13% of keys in their second bucket at load 0.9 and 17% at 0.95. A
// 16-slot bucket halves that share but doubles the bytes of every read (128
// bytes: four sectors against two), and finds are bound by the bytes they
// fetch from random places; a third choice adds a bucket to every miss.
//
// Slot states (key, value): empty {E, Ev}; live {k, v}; dead {k, Ev} (erased:
// the key keeps its slot, as in linear_probing_map); tombstone {T, Ev} with T =
// the empty key - 1 (a slot a move has just vacated, held by a locked insert).
//
// The invariant everything rests on: a slot, once non-empty, is never empty
// again (until clear()). Erase leaves the key dead in its slot; only locked
// inserts reuse dead slots and tombstones, by CAS. Hence "bucket b has an empty
// slot now" proves b has never been full, and nothing ever left b for a second
// bucket: no key whose first bucket is b lives in its second bucket, so a find,
// an erase or an insert that sees an empty slot in its first bucket need not
// read the second.
//
// Operations (each on a tile; the tile's first thread does the atomics):
//   * find: read bucket 1; a key match returns its value (a dead key: absent);
//     else an empty slot there means absent; else read bucket 2. In a kernel
//     with writers, a miss in both buckets waits for each bucket's lock to be
//     seen free and reads both once more (find_again).
//   * insert of a present key (live or dead): one CAS of its slot's value.
//     Of an absent key: the empty slots of bucket 1 are tried by CAS in
//     ascending slot order; when bucket 1 is full, those of bucket 2 (after
//     reading it for the key). One 64-bit CAS per new key in the common case.
//   * erase: one CAS {k, v} -> {k, Ev} (no tombstone to clean up, no count
//     atomic: counts go per block). In a kernel with writers, an erase that
//     misses in both buckets takes both buckets' locks, under which nothing
//     moves in or out of them, and looks again (erase_locked). The bulk erase
//     kernel runs alone and needs one read per bucket (erase_alone).
//   * When neither bucket has an empty slot, the insert locks both buckets
//     (a lock word per bucket, in a separate array that only this path and
//     the last looks of erase and find touch, taken in index order), reuses a dead slot of either, or else
//     makes room: a key living in its first bucket X moves to its second
//     bucket Y (trying Y's lock, never waiting for it, so no lock cycle can
//     form), which may first move one of Y's keys, up to kMaxEvictionDepth + 1
//     moves in a path. Keys only move from their first bucket to their second
//     (a key in its second bucket never moves), and only out of a bucket that
//     was read full: a deeper bucket with an empty slot gives that slot
//     instead (make_room), which keeps the invariant below. An insert that
//     finds no path fails: counted in hash_result::failed, and insert() throws resource_error
//     naming the capacity. Paths blocked by other inserts' locks are retried
//     (at most kCuckooMaxInsertAttempts times, with a back-off), never spun on;
//     a try reads at most kCuckooSearchBudget buckets, and the first failure
//     sets a give-up flag after which the launch's locked inserts fail at once.
//
// Correctness of concurrent operations (one kernel may mix them all):
//   * Two inserts of one absent key never both add it. Both try empty slots of
//     a bucket in ascending order by CAS, and empty slots only fill: if A took
//     slot a and B slot b < a, then b was empty when B took it, so A's read of
//     b (before its own CAS) saw it empty and A would have tried b first. A
//     failed CAS returns the slot: if it now holds the key, the insert updates
//     it there. Bucket 2 is only claimed from when bucket 1 is full, which is
//     permanent, so the inserts agree on the bucket; the locked path re-reads
//     both buckets under both locks and sees any key a lock-free insert placed
//     (that insert's empty slot filled before the lock holder found none).
//   * A find never misses a key present throughout: a move copies the key into
//     its second bucket first and only then (after a fence) overwrites its old
//     slot with a tombstone. Finds read bucket 1, then (after a fence, in
//     kernels that write) bucket 2: a find that no longer sees the old slot
//     sees the copy. A key in its second bucket never moves.
//   * While a key is in both buckets, operations that change it act on the
//     bucket-1 slot (the original): one that sees it only in bucket 2 reads
//     bucket 1 again and acts on the copy only once the original is gone. The
//     mover propagates any value change of the original to the copy before its
//     CAS that vacates the original succeeds, so the copy leaves with the
//     latest value (an erase that hit the original: the copy leaves dead).
//   * In kernels that write, "bucket 1 has an empty slot" ends a find or an
//     erase only when a second read of bucket 1 after a fence still shows an
//     empty slot: the slots of one 64-byte read need not be seen at one
//     instant, and the second read orders the empty slot after the search.
//     An insert's successful CAS on an empty slot is that proof already.
//
// Semantics of concurrent operations on one key (as hopscotch_map): an insert
// racing an insert leaves one of the two values and counts one key added; a
// find racing an insert returns the new value or "absent"; a find racing an
// erase returns the old value or "absent"; an insert and an erase of one key
// in one batch apply in some order (insert first: the key ends absent and the
// erase reports it removed; erase first: the erase reports it absent (or the
// older entry removed) and the key ends present).
//
// The host API follows primitives/hash/contract.cuh (per-call hash_counts,
// insert returning the keys added and throwing when full, const finds, refs
// with only the operations asked for, a stream argument throughout).
#pragma once

#include <cooperative_groups.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <cuda_runtime_api.h>

#include "primitives/common/device_buffer.hpp"
#include "primitives/hash/contract.cuh"
#include "primitives/hash/hash_functions.cuh"

namespace graphkit {

/// Slots per bucket (64 bytes) and threads per operation (16 bytes each).
inline constexpr int kCuckooBucketSlots = 8;
inline constexpr int kCuckooTile = 4;
/// An insert's path of moves holds at most kMaxEvictionDepth + 1 moves.
inline constexpr int kMaxEvictionDepth = 2;
/// Tries of a locked insert whose path was blocked by other inserts' locks;
/// after the last one it fails and sets the launch's give-up flag.
inline constexpr unsigned kCuckooMaxInsertAttempts = 64;
/// Bucket reads one locked try may spend looking for a path (the first two
/// levels of the breadth-first-per-level search take 1 + 8 + 8 * 9 = 81).
inline constexpr int kCuckooSearchBudget = 128;
/// Sleeps a find that missed in both buckets (in a kernel with writers) waits
/// at most for each bucket's lock to be seen free before it reads them again.
inline constexpr unsigned kCuckooRecheckSpins = 256;

namespace cuckoo_detail {
/// Bits 0..3 of m spread to the even bits 0, 2, 4, 6.
__host__ __device__ constexpr unsigned spread4(unsigned m) {
  return (m & 1u) | ((m & 2u) << 1) | ((m & 4u) << 2) | ((m & 8u) << 3);
}
/// The second hash's seed (key ^ seed, then the map's hash).
inline constexpr std::uint32_t kSecondSeed = 0x9e3779b9u;
/// Outcomes inside the map (the contract's hash_outcome values plus these).
inline constexpr std::uint32_t kRestart = 0xfffffff0u;  ///< a slot changed under us: read again
inline constexpr std::uint32_t kBlocked = 0xfffffff1u;  ///< a path needed a lock another insert held
}  // namespace cuckoo_detail

template <class Key, class Value, class Hash = murmur3_hash, hash_ops Ops = hash_ops::all>
struct bucketed_cuckoo_ref {
  static_assert(sizeof(Key) == 4 && std::is_integral_v<Key> && std::is_unsigned_v<Key>, "32-bit unsigned keys");
  static_assert(sizeof(Value) == 4 && std::is_integral_v<Value>, "32-bit integer values");
  using slot = hash_slot<Key, Value>;
  using value_type = Value;
  static_assert(sizeof(slot) == 8 && alignof(slot) == 8, "a slot is one 64-bit word");
  using slot_pointer = std::conditional_t<writes_table(Ops), slot*, const slot*>;
  using lock_pointer = std::conditional_t<writes_table(Ops), unsigned*, const unsigned*>;
  using tile_type = cooperative_groups::thread_block_tile<kCuckooTile>;
  using word = unsigned long long;
  static constexpr bool kWrites = writes_table(Ops);

  /// buckets * 8 slots, 64-byte aligned (cudaMalloc gives 256).
  slot_pointer slots;
  std::uint32_t buckets;  ///< at least 2
  /// One lock word per bucket (0 free, 1 held); locked inserts and
  /// erase_locked take them, find_again reads them. locks[buckets] is the give-up flag: set when an insert found no
  /// room (or its tries ran out), so that every later locked insert fails at
  /// once instead of searching a full table; cleared by clear() and at the
  /// start of every insert_async / apply_async.
  lock_pointer locks;
  Key empty_key;
  Value empty_value;
  /// Where this launch counts moves (hash_detail::kDisplacements), or nullptr.
  unsigned long long* stats;

  // ---- words and buckets -------------------------------------------------------

  [[nodiscard]] __host__ __device__ static word pack(Key k, Value v) {
    return (static_cast<word>(static_cast<std::uint32_t>(v)) << 32) | static_cast<std::uint32_t>(k);
  }
  [[nodiscard]] __host__ __device__ static Key key_of(word w) {
    return static_cast<Key>(static_cast<std::uint32_t>(w));
  }
  [[nodiscard]] __host__ __device__ static Value value_of(word w) {
    return static_cast<Value>(static_cast<std::uint32_t>(w >> 32));
  }
  [[nodiscard]] __host__ __device__ Key tombstone_key() const { return static_cast<Key>(empty_key - 1); }
  [[nodiscard]] __host__ __device__ word empty_word() const { return pack(empty_key, empty_value); }
  [[nodiscard]] __host__ __device__ word tombstone_word() const { return pack(tombstone_key(), empty_value); }

  /// The key's first bucket (multiply-high range reduction of its hash).
  [[nodiscard]] __host__ __device__ std::uint32_t first_bucket(Key k) const {
    return static_cast<std::uint32_t>((std::uint64_t{Hash{}(static_cast<std::uint32_t>(k))} * buckets) >> 32);
  }
  /// The key's second bucket, never its first: a second hash over the other buckets.
  [[nodiscard]] __host__ __device__ std::uint32_t second_bucket(Key k, std::uint32_t first) const {
    const std::uint32_t h = Hash{}(static_cast<std::uint32_t>(k) ^ cuckoo_detail::kSecondSeed);
    const auto b = static_cast<std::uint32_t>((std::uint64_t{h} * (buckets - 1)) >> 32);
    return b >= first ? b + 1 : b;
  }
  [[nodiscard]] __device__ word* word_at(std::uint32_t bucket, unsigned i) const requires(kWrites) {
    return reinterpret_cast<word*>(slots) + std::size_t{bucket} * kCuckooBucketSlots + i;
  }

  /// What a tile read of one bucket saw: each lane's two slots, and masks of
  /// the bucket's 8 slots (bit i: slot i), the same in every lane.
  struct view {
    word w[2];
    unsigned match;  ///< slots holding the key (live or dead)
    unsigned empty;  ///< empty slots
  };
  /// Reads bucket b, lane r taking slots 2r and 2r + 1 in one 16-byte load. A
  /// read-only ref (no writer in its kernel) loads plainly; a writing ref's
  /// loads are relaxed at GPU scope, ordered with the atomics in the model.
  [[nodiscard]] __device__ view read_bucket(const tile_type& tile, std::uint32_t b, Key k) const {
    return make_view(tile, load_quarter(b, tile.thread_rank()), k);
  }
  /// Lane `rank`'s 16 bytes of bucket b (slots 2 rank, 2 rank + 1).
  [[nodiscard]] __device__ ulonglong2 load_quarter(std::uint32_t b, unsigned rank) const {
    const auto* p = reinterpret_cast<const ulonglong2*>(slots + std::size_t{b} * kCuckooBucketSlots) + rank;
    if constexpr (kWrites) {
      ulonglong2 q;
      asm volatile("ld.relaxed.gpu.global.v2.u64 {%0, %1}, [%2];" : "=l"(q.x), "=l"(q.y) : "l"(p));
      return q;
    } else {
      return *p;
    }
  }
  /// The votes of a tile's quarters of one bucket, for key k.
  [[nodiscard]] __device__ view make_view(const tile_type& tile, ulonglong2 q, Key k) const {
    view v;
    v.w[0] = q.x;
    v.w[1] = q.y;
    const word e = empty_word();
    v.match = cuckoo_detail::spread4(tile.ballot(key_of(v.w[0]) == k)) |
              (cuckoo_detail::spread4(tile.ballot(key_of(v.w[1]) == k)) << 1);
    v.empty =
        cuckoo_detail::spread4(tile.ballot(v.w[0] == e)) | (cuckoo_detail::spread4(tile.ballot(v.w[1] == e)) << 1);
    return v;
  }
  /// Slot i's word as the read saw it, in every lane (i the same in all).
  [[nodiscard]] __device__ static word word_of(const tile_type& tile, const view& v, unsigned i) {
    return tile.shfl((i & 1u) ? v.w[1] : v.w[0], static_cast<int>(i >> 1));
  }
  [[nodiscard]] __device__ static unsigned lowest(unsigned mask) { return static_cast<unsigned>(__ffs(mask) - 1); }
  /// Orders this thread's earlier loads before its later ones (and its writes
  /// before its later writes), at GPU scope.
  __device__ static void fence() { __threadfence(); }

  // ---- find ------------------------------------------------------------------------

  /// The value of k, or empty_value when k is absent (or erased). All tile threads call it.
  [[nodiscard]] __device__ Value find(const tile_type& tile, Key k) const requires(has_op(Ops, hash_ops::find)) {
    const std::uint32_t b1 = first_bucket(k);
    view v = read_bucket(tile, b1, k);
    if (v.match != 0) return value_of(word_of(tile, v, lowest(v.match)));
    if (v.empty != 0) {
      if constexpr (!kWrites) return empty_value;
      // Writers in this kernel: confirm the empty slot after the search (see the header).
      fence();
      v = read_bucket(tile, b1, k);
      if (v.match != 0) return value_of(word_of(tile, v, lowest(v.match)));
      if (v.empty != 0) return empty_value;
    }
    if constexpr (kWrites) fence();  // bucket 1 before bucket 2: a move's copy is seen if its old slot was not
    const std::uint32_t b2 = second_bucket(k, b1);
    const view v2 = read_bucket(tile, b2, k);
    if (v2.match != 0) return value_of(word_of(tile, v2, lowest(v2.match)));
    if constexpr (kWrites) return find_again(tile, k, b1, b2);
    return empty_value;
  }
  [[nodiscard]] __device__ bool contains(const tile_type& tile, Key k) const requires(has_op(Ops, hash_ops::find)) {
    return find(tile, k) != empty_value;
  }

  // ---- atomics of the tile's first thread ------------------------------------------

  [[nodiscard]] __device__ word cas(std::uint32_t b, unsigned i, word expected, word desired) const requires(kWrites) {
    return atomicCAS(word_at(b, i), expected, desired);
  }
  /// Sets the value of k's slot (b, i), which was seen as `seen`: kHashInserted
  /// (it was dead), kHashUpdated, or kRestart when the slot no longer holds k.
  [[nodiscard]] __device__ std::uint32_t set_value(std::uint32_t b, unsigned i, word seen, Key k, Value v) const
      requires(kWrites) {
    for (;;) {
      const word old = cas(b, i, seen, pack(k, v));
      if (old == seen) return value_of(seen) == empty_value ? kHashInserted : kHashUpdated;
      if (key_of(old) != k) return cuckoo_detail::kRestart;
      seen = old;  // another insert or an erase changed the value: again from what is there
    }
  }
  /// Empties the value of k's slot (b, i), seen as `seen`: kHashErased, kHashAbsent
  /// (dead already), or kRestart when the slot no longer holds k.
  [[nodiscard]] __device__ std::uint32_t kill(std::uint32_t b, unsigned i, word seen, Key k) const requires(kWrites) {
    for (;;) {
      if (value_of(seen) == empty_value) return kHashAbsent;
      const word old = cas(b, i, seen, pack(k, empty_value));
      if (old == seen) return kHashErased;
      if (key_of(old) != k) return cuckoo_detail::kRestart;
      seen = old;
    }
  }
  /// Tries the empty slots in `empties` in ascending order for {k, v}: kHashInserted,
  /// kHashUpdated / kHashInserted when a CAS found k there (first bucket only: in the
  /// second, k may be a move's copy, so the caller reads again), or kRestart.
  [[nodiscard]] __device__ std::uint32_t claim(std::uint32_t b, unsigned empties, Key k, Value v, bool first) const
      requires(kWrites) {
    for (; empties != 0; empties &= empties - 1) {
      const unsigned i = lowest(empties);
      const word old = cas(b, i, empty_word(), pack(k, v));
      if (old == empty_word()) return kHashInserted;
      if (key_of(old) == k) return first ? set_value(b, i, old, k, v) : cuckoo_detail::kRestart;
    }
    return cuckoo_detail::kRestart;  // all taken by other keys: the bucket is read again
  }
  /// Reuses one of the slots in `open` (dead keys of others, tombstones) for {k, v}.
  [[nodiscard]] __device__ bool reuse(std::uint32_t b, unsigned open, const word* seen, Key k, Value v) const
      requires(kWrites) {
    for (; open != 0; open &= open - 1) {
      const unsigned i = lowest(open);
      if (cas(b, i, seen[i], pack(k, v)) == seen[i]) return true;  // else revived meanwhile: next
    }
    return false;
  }

  /// All tile threads: the tile's first thread computes `f()`; every thread gets it.
  template <class F>
  __device__ static std::uint32_t lead(const tile_type& tile, F&& f) {
    std::uint32_t out = 0;
    if (tile.thread_rank() == 0) out = f();
    return tile.shfl(out, 0);
  }

  /// Whether k is gone from bucket b1 (read again after a fence): an operation
  /// that found k only in its second bucket acts there only then.
  [[nodiscard]] __device__ bool gone_from_first(const tile_type& tile, std::uint32_t b1, Key k) const {
    fence();
    return read_bucket(tile, b1, k).match == 0;
  }

  // ---- insert ----------------------------------------------------------------------

  /// Inserts or overwrites: kHashInserted (k had no live value), kHashUpdated, or
  /// kHashFailed (no room could be made). All tile threads call it.
  __device__ std::uint32_t insert(const tile_type& tile, Key k, Value v) const requires(has_op(Ops, hash_ops::insert)) {
    const std::uint32_t b1 = first_bucket(k), b2 = second_bucket(k, b1);
    for (;;) {
      const view x = read_bucket(tile, b1, k);
      std::uint32_t r = cuckoo_detail::kRestart;
      if (x.match != 0) {
        const unsigned i = lowest(x.match);
        const word seen = word_of(tile, x, i);
        r = lead(tile, [&] { return set_value(b1, i, seen, k, v); });
      } else if (x.empty != 0) {
        r = lead(tile, [&] { return claim(b1, x.empty, k, v, true); });
      } else {
        fence();
        const view y = read_bucket(tile, b2, k);
        if (y.match != 0) {
          if (gone_from_first(tile, b1, k)) {
            const unsigned i = lowest(y.match);
            const word seen = word_of(tile, y, i);
            r = lead(tile, [&] { return set_value(b2, i, seen, k, v); });
          }
        } else if (y.empty != 0) {
          r = lead(tile, [&] { return claim(b2, y.empty, k, v, false); });
        } else {
          return insert_locked(tile, k, v, b1, b2);
        }
      }
      if (r != cuckoo_detail::kRestart) return r;
    }
  }

  // ---- erase -----------------------------------------------------------------------

  /// Removes k's value (the key stays, dead, in its slot); true if a live value was removed.
  __device__ bool erase(const tile_type& tile, Key k) const requires(has_op(Ops, hash_ops::erase)) {
    const std::uint32_t b1 = first_bucket(k), b2 = second_bucket(k, b1);
    for (;;) {
      view x = read_bucket(tile, b1, k);
      if (x.empty != 0 && x.match == 0) {
        fence();  // confirm the empty slot after the search (see the header)
        x = read_bucket(tile, b1, k);
        if (x.empty != 0 && x.match == 0) return false;
      }
      std::uint32_t r = cuckoo_detail::kRestart;
      if (x.match != 0) {
        const unsigned i = lowest(x.match);
        const word seen = word_of(tile, x, i);
        r = lead(tile, [&] { return kill(b1, i, seen, k); });
      } else {
        fence();
        const view y = read_bucket(tile, b2, k);
        if (y.match == 0) return erase_locked(tile, k, b1, b2);
        if (gone_from_first(tile, b1, k)) {
          const unsigned i = lowest(y.match);
          const word seen = word_of(tile, y, i);
          r = lead(tile, [&] { return kill(b2, i, seen, k); });
        }
      }
      if (r != cuckoo_detail::kRestart) return r == kHashErased;
    }
  }

  /// Erase in a kernel where only erases run (the bulk erase_kernel): no
  /// insert adds, moves or reuses anything meanwhile, and erases only turn live
  /// values dead, so one read of a bucket is its state for k: no fences, no
  /// confirming reads.
  __device__ bool erase_alone(const tile_type& tile, Key k) const requires(has_op(Ops, hash_ops::erase)) {
    const std::uint32_t b1 = first_bucket(k);
    const view x = read_bucket(tile, b1, k);
    std::uint32_t b = b1;
    word seen = 0;
    unsigned i = 0;
    if (x.match != 0) {
      i = lowest(x.match);
      seen = word_of(tile, x, i);
    } else {
      if (x.empty != 0) return false;
      b = second_bucket(k, b1);
      const view y = read_bucket(tile, b, k);
      if (y.match == 0) return false;
      i = lowest(y.match);
      seen = word_of(tile, y, i);
    }
    return lead(tile, [&] { return kill(b, i, seen, k); }) == kHashErased;
  }

  /// The last word on a find that missed k in both buckets while writers run
  /// (kWrites): wait until each bucket's lock has been seen free once (any move
  /// of k holds both locks, so one in flight at the miss is over, and a key in
  /// its second bucket never moves again), then read both buckets once more.
  /// Bounded: after kCuckooRecheckSpins sleeps it reads again anyway.
  __device__ __noinline__ Value find_again(const tile_type& tile, Key k, std::uint32_t b1, std::uint32_t b2) const
      requires(kWrites) {
    (void)lead(tile, [&]() -> std::uint32_t {
      for (const std::uint32_t b : {b1, b2})
        for (unsigned spin = 0; lock_word(b) != 0u && spin < kCuckooRecheckSpins; ++spin)
          __nanosleep(32u << min(spin, 5u));
      fence();
      return 0u;
    });
    fence();
    const view x = read_bucket(tile, b1, k);
    if (x.match != 0) return value_of(word_of(tile, x, lowest(x.match)));
    if (x.empty != 0) return empty_value;
    fence();
    const view y = read_bucket(tile, b2, k);
    return y.match != 0 ? value_of(word_of(tile, y, lowest(y.match))) : empty_value;
  }

  /// The last word on an erase (in a kernel with writers) that missed k in
  /// both buckets: take both buckets' locks (index order, waiting; no insert
  /// of the launch holds one for long, and a holder of both never waits), so
  /// that nothing moves into or out of them or reuses their slots, read both
  /// again and kill k where it is. An erase of an absent key whose first
  /// bucket is full pays this; an erase of a present key almost never does.
  __device__ __noinline__ bool erase_locked(const tile_type& tile, Key k, std::uint32_t b1, std::uint32_t b2) const
      requires(has_op(Ops, hash_ops::erase)) {
    (void)lock_pair(tile, b1, b2, false);
    std::uint32_t r = cuckoo_detail::kRestart;
    while (r == cuckoo_detail::kRestart) {
      const view x = read_bucket(tile, b1, k);
      if (x.match != 0) {
        const unsigned i = lowest(x.match);
        const word seen = word_of(tile, x, i);
        r = lead(tile, [&] { return kill(b1, i, seen, k); });
        continue;
      }
      fence();
      const view y = read_bucket(tile, b2, k);
      if (y.match == 0) {
        r = kHashAbsent;
        break;
      }
      const unsigned i = lowest(y.match);
      const word seen = word_of(tile, y, i);
      r = lead(tile, [&] { return kill(b2, i, seen, k); });
    }
    unlock(tile, b2);
    unlock(tile, b1);
    return r == kHashErased;
  }

  // ---- the locked path: reuse and moves ------------------------------------------------

  /// The give-up flag (locks[buckets]): whether some insert of this launch found the table full.
  [[nodiscard]] __device__ bool gave_up_now() const requires(kWrites) {
    return *reinterpret_cast<const volatile unsigned*>(locks + buckets) != 0u;
  }
  [[nodiscard]] __device__ bool gave_up(const tile_type& tile) const requires(kWrites) {
    return lead(tile, [&]() -> std::uint32_t { return gave_up_now(); }) != 0;
  }
  __device__ void give_up(const tile_type& tile) const requires(kWrites) {
    if (tile.thread_rank() == 0) atomicExch(&locks[buckets], 1u);
  }

  /// A bucket's lock word, read at GPU scope.
  [[nodiscard]] __device__ unsigned lock_word(std::uint32_t b) const requires(kWrites) {
    return *reinterpret_cast<const volatile unsigned*>(locks + b);
  }
  /// Takes the locks of b1 and b2 in index order; when `may_give_up`, false
  /// (holding neither) if the give-up flag is set while it waits.
  [[nodiscard]] __device__ bool lock_pair(const tile_type& tile, std::uint32_t b1, std::uint32_t b2,
                                          bool may_give_up) const requires(kWrites) {
    return lead(tile, [&]() -> std::uint32_t {
             const std::uint32_t lo = b1 < b2 ? b1 : b2, hi = b1 < b2 ? b2 : b1;
             // The holder of both locks only tries further locks, never waits: it always finishes.
             for (unsigned spin = 0; atomicCAS(&locks[lo], 0u, 1u) != 0u; ++spin) {
               if (may_give_up && gave_up_now()) return 0u;
               __nanosleep(32u << min(spin, 6u));
             }
             for (unsigned spin = 0; atomicCAS(&locks[hi], 0u, 1u) != 0u; ++spin) {
               if (may_give_up && gave_up_now()) {
                 atomicExch(&locks[lo], 0u);
                 return 0u;
               }
               __nanosleep(32u << min(spin, 6u));
             }
             fence();
             return 1u;
           }) != 0;
  }
  __device__ bool try_lock(const tile_type& tile, std::uint32_t b) const requires(kWrites) {
    return lead(tile, [&]() -> std::uint32_t {
             const bool got = atomicCAS(&locks[b], 0u, 1u) == 0u;
             if (got) fence();
             return got;
           }) != 0;
  }
  __device__ void unlock(const tile_type& tile, std::uint32_t b) const requires(kWrites) {
    tile.sync();
    if (tile.thread_rank() == 0) {
      fence();
      atomicExch(&locks[b], 0u);
    }
  }
  /// Adds one to a rare-event count of this launch, if it counts.
  __device__ void note(int field) const {
    if (stats != nullptr) atomicAdd(&stats[field], 1ull);
  }

  /// Slots of a read that another key may take under the lock: dead keys of
  /// others and tombstones; and every slot's word, in the first thread.
  __device__ unsigned reusable(const tile_type& tile, const view& v, Key k, word* all) const {
    const auto open = [&](word w) { return key_of(w) != k && key_of(w) != empty_key && value_of(w) == empty_value; };
    for (unsigned i = 0; i < kCuckooBucketSlots; ++i) {
      const word w = word_of(tile, v, i);
      if (all != nullptr) all[i] = w;
    }
    return cuckoo_detail::spread4(tile.ballot(open(v.w[0]))) | (cuckoo_detail::spread4(tile.ballot(open(v.w[1]))) << 1);
  }

  /// Places `moving` (key j) in bucket y (locked by this tile): an empty slot
  /// (ascending, racing lock-free claims), else a reusable one. The slot, or -1.
  __device__ int place_in(const tile_type& tile, std::uint32_t y, Key j, word moving) const requires(kWrites) {
    const view yv = read_bucket(tile, y, j);
    int placed = static_cast<int>(lead(tile, [&]() -> std::uint32_t {
      for (unsigned e = yv.empty; e != 0; e &= e - 1)
        if (cas(y, lowest(e), empty_word(), moving) == empty_word()) return lowest(e);
      return 0xffffffffu;
    }));
    if (placed < 0) {
      word seen[kCuckooBucketSlots];
      const unsigned open = reusable(tile, yv, j, seen);
      if (open != 0)
        placed = static_cast<int>(lead(tile, [&]() -> std::uint32_t {
          for (unsigned o = open; o != 0; o &= o - 1)
            if (cas(y, lowest(o), seen[lowest(o)], moving) == seen[lowest(o)]) return lowest(o);
          return 0xffffffffu;
        }));
    }
    return placed;
  }

  /// Frees a slot of bucket x (locked by this tile) by moving one of its keys
  /// that lives in its first bucket to its second. Breadth first within the
  /// level: every candidate's second bucket is tried for a direct move before
  /// any is emptied deeper (Depth more levels), so paths stay short. Buckets in
  /// held[0..n) are locked by this tile and not moved into. Each bucket read
  /// spends one of `budget`. Returns the freed slot (now a tombstone that only
  /// this tile may take) or -1; `blocked` is set when a lock another tile held
  /// was in the way.
  template <int Depth>
  __device__ int make_room(const tile_type& tile, std::uint32_t x, std::uint32_t* held, int n, bool& blocked,
                           unsigned start, int& budget) const requires(kWrites) {
    if (budget <= 0) return -1;
    --budget;
    const view xv = read_bucket(tile, x, empty_key);
    if (xv.empty != 0) {
      // x (a deeper level's bucket, locked by us) has an empty slot: take it
      // (a tombstone under our lock) rather than move a key out of x. Moving
      // one out of a bucket that is not full would put it in its second
      // bucket while its first has an empty slot, and every find, erase and
      // insert that sees that empty slot would miss it (round 2's lost keys:
      // pass 1 emptied a bucket that pass 0 had not read, its lock being held).
      return static_cast<int>(lead(tile, [&]() -> std::uint32_t {
        for (unsigned e = xv.empty; e != 0; e &= e - 1)
          if (cas(x, lowest(e), empty_word(), tombstone_word()) == empty_word()) return lowest(e);
        return 0xffffffffu;  // all claimed meanwhile: x is full now, but this read is spent
      }));
    }
    const auto movable = [&](word w) {
      const Key j = key_of(w);
      if (j == empty_key || j == tombstone_key() || value_of(w) == empty_value || first_bucket(j) != x) return false;
      const std::uint32_t y = second_bucket(j, x);
      for (int h = 0; h < n; ++h)
        if (held[h] == y) return false;
      return true;
    };
    unsigned candidates = cuckoo_detail::spread4(tile.ballot(movable(xv.w[0]))) |
                          (cuckoo_detail::spread4(tile.ballot(movable(xv.w[1]))) << 1);
    // Start at a varying slot so that repeated paths spread their moves.
    start &= kCuckooBucketSlots - 1;
    candidates = ((candidates >> start) | (candidates << (kCuckooBucketSlots - start))) & 0xffu;
    constexpr int kPasses = Depth > 0 ? 2 : 1;
    for (int pass = 0; pass < kPasses; ++pass) {
      for (unsigned left = candidates; left != 0; left &= left - 1) {
        if (budget <= 0) return -1;
        const unsigned c = (lowest(left) + start) & (kCuckooBucketSlots - 1);
        word moving = word_of(tile, xv, c);
        const Key j = key_of(moving);
        const std::uint32_t y = second_bucket(j, x);
        if (!try_lock(tile, y)) {
          blocked = true;
          continue;
        }
        int placed = -1;
        if (pass == 0) {
          --budget;
          placed = place_in(tile, y, j, moving);
        } else if constexpr (Depth > 0) {
          held[n] = y;
          const int freed = make_room<Depth - 1>(tile, y, held, n + 1, blocked, start + 3, budget);
          if (freed >= 0) {
            // A tombstone under our lock of y: no other tile takes it.
            if (tile.thread_rank() == 0) (void)cas(y, static_cast<unsigned>(freed), tombstone_word(), moving);
            placed = freed;
          }
        }
        if (placed >= 0) {
          // The copy is in y; vacate the original. Operations that change j act
          // on the original while it is there, so a failed CAS means its value
          // changed: carry the change to the copy, then try again.
          if (tile.thread_rank() == 0) {
            fence();
            for (;;) {
              const word old = cas(x, c, moving, tombstone_word());
              if (old == moving || key_of(old) != j) break;  // vacated (a key change cannot happen: x is locked)
              (void)cas(y, static_cast<unsigned>(placed), moving, old);
              fence();
              moving = old;
            }
            note(hash_detail::kDisplacements);
          }
          unlock(tile, y);
          return static_cast<int>(c);
        }
        unlock(tile, y);
      }
    }
    return -1;
  }

  /// The insert's path when neither bucket has an empty slot: under the locks
  /// of both buckets, look again, reuse a dead slot or tombstone, or make room.
  /// Out of line: the lock-free fast path keeps its registers and code small.
  /// Bounded: a try spends at most kCuckooSearchBudget bucket reads, a
  /// blocked insert tries at most kCuckooMaxInsertAttempts times, and the
  /// first insert that fails sets the give-up flag, after which every locked
  /// insert of the launch fails at once (a full table fails fast).
  __device__ __noinline__ std::uint32_t insert_locked(const tile_type& tile, Key k, Value v, std::uint32_t b1,
                                                      std::uint32_t b2) const requires(kWrites) {
    for (unsigned attempt = 0;; ++attempt) {
      if (gave_up(tile) || !lock_pair(tile, b1, b2, true)) return kHashFailed;
      std::uint32_t r = cuckoo_detail::kRestart;
      while (r == cuckoo_detail::kRestart) {  // restarts here: lock-free claims took our empty slots
        const view x = read_bucket(tile, b1, k);
        if (x.match != 0) {
          const unsigned i = lowest(x.match);
          const word seen = word_of(tile, x, i);
          r = lead(tile, [&] { return set_value(b1, i, seen, k, v); });
          continue;
        }
        if (x.empty != 0) {
          r = lead(tile, [&] { return claim(b1, x.empty, k, v, true); });
          continue;
        }
        fence();
        const view y = read_bucket(tile, b2, k);
        if (y.match != 0) {  // no move of k can run: it would need our lock of b1
          const unsigned i = lowest(y.match);
          const word seen = word_of(tile, y, i);
          r = lead(tile, [&] { return set_value(b2, i, seen, k, v); });
          continue;
        }
        if (y.empty != 0) {
          r = lead(tile, [&] { return claim(b2, y.empty, k, v, true); });  // b2 locked: a k found is not a copy
          continue;
        }
        word seen[kCuckooBucketSlots];
        unsigned open = reusable(tile, x, k, seen);
        if (open != 0 && lead(tile, [&]() -> std::uint32_t { return reuse(b1, open, seen, k, v); })) {
          r = kHashInserted;
          break;
        }
        open = reusable(tile, y, k, seen);
        if (open != 0 && lead(tile, [&]() -> std::uint32_t { return reuse(b2, open, seen, k, v); })) {
          r = kHashInserted;
          break;
        }
        if (open != 0) continue;  // revived under us: look again
        bool blocked = false;
        int budget = kCuckooSearchBudget;
        std::uint32_t held[kMaxEvictionDepth + 3] = {b1, b2};
        const unsigned start = static_cast<unsigned>(Hash{}(static_cast<std::uint32_t>(k) + attempt));
        std::uint32_t target = b1;
        int freed = make_room<kMaxEvictionDepth>(tile, b1, held, 2, blocked, start, budget);
        if (freed < 0) {
          target = b2;
          freed = make_room<kMaxEvictionDepth>(tile, b2, held, 2, blocked, start + 1, budget);
        }
        if (freed >= 0) {
          if (tile.thread_rank() == 0) (void)cas(target, static_cast<unsigned>(freed), tombstone_word(), pack(k, v));
          r = kHashInserted;
        } else {
          r = blocked ? cuckoo_detail::kBlocked : kHashFailed;
        }
      }
      unlock(tile, b2);
      unlock(tile, b1);
      if (r == cuckoo_detail::kBlocked && attempt + 1 >= kCuckooMaxInsertAttempts) r = kHashFailed;
      if (r == kHashFailed) give_up(tile);
      if (r != cuckoo_detail::kBlocked) return r;
      __nanosleep(64u << min(attempt, 6u));
    }
  }
};

template <class Key = std::uint32_t, class Value = std::uint32_t, class Hash = murmur3_hash>
class bucketed_cuckoo_map {
 public:
  template <hash_ops Ops>
  using ref_with = bucketed_cuckoo_ref<Key, Value, Hash, Ops>;
  using ref_type = ref_with<hash_ops::all>;
  using const_ref_type = ref_with<hash_ops::find>;
  using slot = hash_slot<Key, Value>;
  using op_type = hash_op<Key, Value>;

  /// A table of at least `capacity` slots (whole buckets of 8, at least 2
  /// buckets), all empty. Keys must differ from the empty key and the one
  /// below it (the tombstone); values from the empty value.
  explicit bucketed_cuckoo_map(std::size_t capacity, graphkit::empty_key<Key> key_sentinel = {},
                               graphkit::empty_value<Value> value_sentinel = {}, cudaStream_t stream = nullptr);

  [[nodiscard]] std::size_t capacity() const noexcept { return slots_.size(); }
  [[nodiscard]] std::size_t bucket_count() const noexcept { return slots_.size() / kCuckooBucketSlots; }
  /// A ref with the operations asked for (all by default); it counts no moves.
  template <hash_ops Ops = hash_ops::all>
  [[nodiscard]] ref_with<Ops> ref() noexcept {
    return {slots_.data(), static_cast<std::uint32_t>(bucket_count()), locks_.data(), empty_key_, empty_value_,
            nullptr};
  }
  /// A const map hands out read-only refs.
  template <hash_ops Ops = hash_ops::find>
  requires(!writes_table(Ops)) [[nodiscard]] ref_with<Ops> ref() const noexcept {
    return {slots_.data(), static_cast<std::uint32_t>(bucket_count()), locks_.data(), empty_key_, empty_value_,
            nullptr};
  }
  [[nodiscard]] Key empty_key_sentinel() const noexcept { return empty_key_; }
  [[nodiscard]] Value empty_value_sentinel() const noexcept { return empty_value_; }

  /// Inserts or overwrites; `counts` receives this call's inserted / failed /
  /// sentinel / displacement counts.
  void insert_async(const Key* d_keys, const Value* d_values, std::size_t n, hash_counts& counts,
                    cudaStream_t stream = nullptr);
  /// Returns how many keys were added; throws resource_error if any insert
  /// found no room, graphkit::error if a key or value is a sentinel.
  std::uint64_t insert(const Key* d_keys, const Value* d_values, std::size_t n, cudaStream_t stream = nullptr);
  /// d_values_out[i] = the value of d_keys[i], or the empty-value sentinel.
  void find_async(const Key* d_keys, std::size_t n, Value* d_values_out, cudaStream_t stream = nullptr) const;
  void contains_async(const Key* d_keys, std::size_t n, std::uint8_t* d_found, cudaStream_t stream = nullptr) const;
  /// `counts` receives how many live values were removed.
  void erase_async(const Key* d_keys, std::size_t n, hash_counts& counts, cudaStream_t stream = nullptr);
  /// Returns how many live values were removed.
  std::uint64_t erase(const Key* d_keys, std::size_t n, cudaStream_t stream = nullptr);
  /// A mixed batch in one kernel, in no fixed order (semantics in the header
  /// comment). d_results[i]: a find's value (or the empty value), an insert's
  /// hash_outcome, an erase's kHashErased / kHashAbsent.
  void apply_async(const op_type* d_ops, std::size_t n, Value* d_results, hash_counts& counts,
                   cudaStream_t stream = nullptr);

  /// Live entries.
  [[nodiscard]] std::uint64_t size(cudaStream_t stream = nullptr) const;
  /// Live entries that sit in their second bucket.
  [[nodiscard]] std::uint64_t second_bucket_size(cudaStream_t stream = nullptr) const;
  /// Copies the live entries out (d_keys_out and d_values_out hold size()); returns how many.
  std::uint64_t retrieve_all(Key* d_keys_out, Value* d_values_out, cudaStream_t stream = nullptr) const;
  /// Empties every slot (dead keys too).
  void clear(cudaStream_t stream = nullptr);

 private:
  /// Clears the give-up flag (locks_[bucket_count()]) for the next launch.
  void reset_give_up(cudaStream_t stream) {
    GRAPHKIT_CUDA_TRY(cudaMemsetAsync(locks_.data() + bucket_count(), 0, sizeof(unsigned), stream));
  }
  ref_type counting_ref(hash_counts& counts) noexcept {
    ref_type r = ref();
    r.stats = counts.data();
    return r;
  }

  Key empty_key_;
  Value empty_value_;
  device_buffer<slot> slots_;
  device_buffer<unsigned> locks_;
  /// The synchronous calls' own counts (they read them before returning).
  hash_counts sync_counts_;
  mutable device_buffer<unsigned long long> scratch_;
};

}  // namespace graphkit

#include "primitives/hash/detail/bucketed_cuckoo_impl.cuh"
