// A lock-free GPU hopscotch hash map with warp-cooperative operations, after
// GLHT (Zhang and Sun, "GPU lock-free hopscotch hash table"): 32-bit keys and
// values in 64-bit slot words, every key within H = 31 slots after its home
// slot, and per home slot a hop bitmap that says which of those 32 slots hold
// its keys. A find reads the home's bitmap and then only the slots it names,
// one lane each: at most a few sectors, at any load factor, where linear
// probing reads ever longer runs as the table fills.
//
// Concurrency (inserts, erases and finds in one kernel):
//   * Each home slot has an info word: bits 0..31 the hop bitmap, bit 32 a
//     lock, bit 33 "some key of this home lives in the stash", bits 34..63 a
//     version bumped by every bitmap change.
//   * insert and erase first try a lock-free path: an absent key takes an
//     empty slot of its neighbourhood (CAS) and is listed by one CAS of the
//     home's info word from the value its lookup read, so any concurrent
//     change to the home (another insert of the key, a move, a lock) makes
//     it roll back; a listed key is unlisted the same way. Otherwise (key
//     present for an update, no empty slot in reach, home locked, stashed
//     keys, or a lost CAS) they hold the lock of the key's home, so two
//     inserts of one key cannot both add it. An insert that finds no empty slot within its
//     neighbourhood claims the nearest empty slot (marked "reserved") and
//     moves it closer: a key of a bucket B between is copied into the free
//     slot (a temporary duplicate), B's bitmap gains the new position and
//     loses the old one in one atomic step, and the old slot becomes the free
//     one. B's lock is only tried, never waited for, so no lock cycle forms.
//   * Overflow stash. With H = 32, a table at load 0.9 has a few keys in ten
//     thousand whose free slot cannot be brought into reach: every key in the
//     31 slots before it belongs to a home farther back (a sequential model
//     of this insert fails 7 to 17 of 58,982 keys at 0.9 and about 150 of
//     62,259 at 0.95). Such keys go to a small linear-probing stash
//     (capacity / 64 slots, at least 64), under their home's lock, after the
//     home's stash bit is set; finds and erases of a home with the bit set
//     look there after the neighbourhood. Stash erases leave tombstones that
//     inserts reuse, so a stash probe stops at the first empty slot. An insert
//     fails only when the stash too is full.
//   * find takes no lock. It reads the bitmap and the home slot in one
//     16-byte load (the two arrays are interleaved), then the other slots the
//     bitmap names; a key in a slot that the bitmap names is a hit. A miss is confirmed by reading the
//     version again: if a displacement touched the bucket in between, the
//     find looks again. Finds therefore never miss a key that is present for
//     their whole duration; they retry only when a move races them.
//
// Semantics of concurrent operations on one key: an insert racing an insert
// leaves one of the two values; a find racing an insert of its key returns
// either the new value or "absent"; a find racing an erase returns the old
// value or "absent"; insert and erase of the same key apply in some order.
//
// Operations run on a tile of Tile threads (32: a warp, as in GLHT; 4, 8 and
// 16 are there to be measured): the neighbourhood's 32 slots are read in
// 32 / Tile steps.
//
// The host API follows primitives/hash/contract.cuh (per-call hash_counts,
// insert returning the keys added, const finds, refs with only the
// operations asked for).
#pragma once

#include <cooperative_groups.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

#include <cuda_runtime_api.h>

#include "primitives/common/device_buffer.hpp"
#include "primitives/hash/hash_functions.cuh"
#include "primitives/hash/contract.cuh"

namespace graphkit {

inline constexpr std::uint32_t kHopNeighbourhood = 32;
/// Restarts an insert may make while neighbours it must move are locked.
inline constexpr unsigned kMaxInsertAttempts = 4096;

/// What a mixed batch asks (contract.cuh's hash_op); see hopscotch_map::apply_async.
using hop_op_kind = hash_op_kind;
using hop_op = hash_op<std::uint32_t, std::uint32_t>;
/// Per-operation outcomes of a batch (finds return the value, or the empty-value sentinel).
inline constexpr std::uint32_t kHopFailed = kHashFailed, kHopInserted = kHashInserted, kHopUpdated = kHashUpdated;

namespace hop_detail {
inline constexpr unsigned long long kLock = 1ull << 32;
inline constexpr unsigned long long kStashed = 1ull << 33;
inline constexpr int kVersionShift = 34;
inline constexpr unsigned long long kVersionOne = 1ull << kVersionShift;
inline constexpr unsigned long long kBitmap = 0xffffffffull;
/// Stash slots for a table of `capacity` slots.
inline std::size_t stash_slots(std::size_t capacity) { return std::max<std::size_t>(64, capacity / 64); }
}  // namespace hop_detail

template <int Tile = 32, class Hash = murmur3_hash, hash_ops Ops = hash_ops::all>
struct hopscotch_ref {
  static_assert(Tile == 4 || Tile == 8 || Tile == 16 || Tile == 32, "tiles of 4, 8, 16 or 32 threads");
  /// Slot i's two words side by side, entries[2i] and entries[2i + 1]: the
  /// info word of home i (bitmap | lock | version), then the slot word
  /// (key << 32 | value). A find's first 16-byte load brings its home's bitmap
  /// and the slot most of its keys live in, one sector where separate arrays
  /// took two.
  using word_pointer = std::conditional_t<writes_table(Ops), unsigned long long*, const unsigned long long*>;
  word_pointer entries;
  std::uint32_t capacity;  ///< slots, at least kHopNeighbourhood
  word_pointer stash;      ///< overflow slots, linear probing; key reserved_key() marks a tombstone
  std::uint32_t stash_capacity;
  std::uint32_t empty_key;
  std::uint32_t empty_value;
  /// Where this launch counts its rare events (hash_detail::count_field:
  /// failures, displacements, stashed keys), or nullptr not to count them.
  unsigned long long* stats;

  [[nodiscard]] __device__ std::uint32_t reserved_key() const { return empty_key - 1; }
  [[nodiscard]] __device__ unsigned long long empty_word() const {
    return (static_cast<unsigned long long>(empty_key) << 32) | empty_value;
  }
  [[nodiscard]] __device__ unsigned long long reserved_word() const {
    return (static_cast<unsigned long long>(reserved_key()) << 32) | empty_value;
  }
  [[nodiscard]] __device__ std::uint32_t home(std::uint32_t k) const {
    return static_cast<std::uint32_t>((std::uint64_t{Hash{}(k)} * capacity) >> 32);
  }
  /// Slot index at distance d from slot h (the table wraps around).
  [[nodiscard]] __device__ std::uint32_t at(std::uint32_t h, std::uint32_t d) const {
    const std::uint64_t i = std::uint64_t{h} + d;
    return static_cast<std::uint32_t>(i >= capacity ? i - capacity : i);
  }
  [[nodiscard]] __device__ word_pointer info_at(std::uint32_t i) const { return entries + 2 * std::size_t{i}; }
  [[nodiscard]] __device__ word_pointer slot_at(std::uint32_t i) const { return entries + 2 * std::size_t{i} + 1; }
  /// Adds one to a rare-event count of this launch, if it counts.
  __device__ void note(int field) const {
    if (stats) atomicAdd(&stats[field], 1ull);
  }
  /// Home h's info and slot words in one 16-byte load (each word read whole).
  __device__ void load_home(std::uint32_t h, unsigned long long& info_word, unsigned long long& slot_word) const {
    asm volatile("ld.volatile.global.v2.u64 {%0, %1}, [%2];" : "=l"(info_word), "=l"(slot_word) : "l"(info_at(h)));
  }
  __device__ static unsigned long long load(const unsigned long long* p) {
    return *reinterpret_cast<const volatile unsigned long long*>(p);
  }

  /// The offset (0..31) of k among h's bitmap `bits`, or -1. All tile threads call it.
  template <class Group>
  __device__ int locate(const Group& tile, std::uint32_t h, std::uint32_t bits, std::uint32_t k,
                        std::uint32_t& value) const {
    for (std::uint32_t base = 0; base < kHopNeighbourhood && (bits >> base) != 0; base += Tile) {
      const std::uint32_t i = base + tile.thread_rank();
      bool hit = false;
      std::uint32_t v = 0;
      if ((bits >> i) & 1u) {
        const unsigned long long w = load(slot_at(at(h, i)));
        hit = static_cast<std::uint32_t>(w >> 32) == k;
        v = static_cast<std::uint32_t>(w);
      }
      const unsigned hits = tile.ballot(hit);
      if (hits != 0) {
        const int src = __ffs(hits) - 1;
        value = tile.shfl(v, src);
        return static_cast<int>(base) + src;
      }
    }
    return -1;
  }

  template <class Group>
  __device__ std::uint32_t find(const Group& tile, std::uint32_t k) const requires(has_op(Ops, hash_ops::find)) {
    const std::uint32_t h = home(k);
    for (;;) {
      unsigned long long before = 0, home_word = 0;
      if (tile.thread_rank() == 0) load_home(h, before, home_word);
      before = tile.shfl(before, 0);
      std::uint32_t bits = static_cast<std::uint32_t>(before);
      if (bits & 1u) {  // the home slot came with the bitmap
        home_word = tile.shfl(home_word, 0);
        if (static_cast<std::uint32_t>(home_word >> 32) == k) return static_cast<std::uint32_t>(home_word);
        bits &= ~1u;
      }
      std::uint32_t value = empty_value;
      if (locate(tile, h, bits, k, value) >= 0) return value;
      if ((before & hop_detail::kStashed) && stash_locate(tile, k, value) < stash_capacity) return value;
      __threadfence();
      unsigned long long after = 0;
      if (tile.thread_rank() == 0) after = load(info_at(h));
      after = tile.shfl(after, 0);
      if ((after >> hop_detail::kVersionShift) == (before >> hop_detail::kVersionShift))
        return empty_value;  // nothing moved: truly absent
    }
  }

  // ---- the overflow stash (linear probing, tile-wide reads) ------------------

  [[nodiscard]] __device__ std::uint32_t stash_start(std::uint32_t k) const {
    return static_cast<std::uint32_t>((std::uint64_t{Hash{}(k ^ 0x9e3779b9u)} * stash_capacity) >> 32);
  }
  /// k's stash slot (its value in `value`), or stash_capacity when absent.
  template <class Group>
  __device__ std::uint32_t stash_locate(const Group& tile, std::uint32_t k, std::uint32_t& value) const {
    const std::uint32_t start = stash_start(k);
    for (std::uint32_t base = 0; base < stash_capacity; base += Tile) {
      const std::uint32_t d = base + tile.thread_rank();
      std::uint32_t key = empty_key, v = 0, s = 0;
      if (d < stash_capacity) {
        s = start + d >= stash_capacity ? start + d - stash_capacity : start + d;
        const unsigned long long w = load(&stash[s]);
        key = static_cast<std::uint32_t>(w >> 32);
        v = static_cast<std::uint32_t>(w);
      }
      const unsigned hits = tile.ballot(d < stash_capacity && key == k);
      if (hits != 0) {
        const int src = __ffs(hits) - 1;
        value = tile.shfl(v, src);
        return tile.shfl(s, src);
      }
      const unsigned empties = tile.ballot(d < stash_capacity && key == empty_key);
      if (empties != 0) return stash_capacity;  // probes stop at the first empty slot
    }
    return stash_capacity;
  }
  /// Puts k (absent from the stash; its home's lock held) in the first empty
  /// or tombstone slot of its probe sequence; false when the stash is full.
  template <class Group>
  __device__ bool stash_insert(const Group& tile, std::uint32_t k, unsigned long long word) const {
    const std::uint32_t start = stash_start(k);
    for (std::uint32_t base = 0; base < stash_capacity; base += Tile) {
      const std::uint32_t d = base + tile.thread_rank();
      bool open = false;
      std::uint32_t s = 0;
      if (d < stash_capacity) {
        s = start + d >= stash_capacity ? start + d - stash_capacity : start + d;
        const auto key = static_cast<std::uint32_t>(load(&stash[s]) >> 32);
        open = key == empty_key || key == reserved_key();
      }
      for (unsigned candidates = tile.ballot(open); candidates != 0; candidates &= candidates - 1) {
        const std::uint32_t slot = tile.shfl(s, __ffs(candidates) - 1);
        bool won = false;
        if (tile.thread_rank() == 0) {
          const unsigned long long seen = load(&stash[slot]);
          const auto key = static_cast<std::uint32_t>(seen >> 32);
          won = (key == empty_key || key == reserved_key()) && atomicCAS(&stash[slot], seen, word) == seen;
        }
        if (tile.shfl(won, 0)) return true;
      }
    }
    return false;
  }

  // ---- locks (the tile's first thread acts, the others wait for it) -----------

  template <class Group>
  __device__ void lock(const Group& tile, std::uint32_t h) const {
    if (tile.thread_rank() == 0) {
      for (;;) {
        const unsigned long long seen = load(info_at(h)) & ~hop_detail::kLock;
        if (atomicCAS(info_at(h), seen, seen | hop_detail::kLock) == seen) break;
      }
      __threadfence();
    }
    tile.sync();
  }
  template <class Group>
  __device__ bool try_lock(const Group& tile, std::uint32_t b) const {
    bool got = false;
    if (tile.thread_rank() == 0) {
      const unsigned long long seen = load(info_at(b));
      got = !(seen & hop_detail::kLock) && atomicCAS(info_at(b), seen, seen | hop_detail::kLock) == seen;
      if (got) __threadfence();
    }
    return tile.shfl(got, 0);
  }
  template <class Group>
  __device__ void unlock(const Group& tile, std::uint32_t h) const {
    tile.sync();
    if (tile.thread_rank() == 0) {
      __threadfence();
      atomicAnd(info_at(h), ~hop_detail::kLock);
    }
  }

  /// Home b's info word: set bit `set_bit` (if < 32), clear bit `clear_bit` (if < 32), version + 1. Lock held.
  __device__ void change_bits(std::uint32_t b, std::uint32_t set_bit, std::uint32_t clear_bit) const {
    unsigned long long seen = load(info_at(b));
    for (;;) {
      unsigned long long next = seen + hop_detail::kVersionOne;
      if (set_bit < 32) next |= 1ull << set_bit;
      if (clear_bit < 32) next &= ~(1ull << clear_bit);
      const unsigned long long old = atomicCAS(info_at(b), seen, next);
      if (old == seen) return;
      seen = old;  // only the lock holder changes bits; a racing lock attempt may retry us
    }
  }

  /// Claims the nearest empty slot at or after h; returns its distance, or capacity.
  template <class Group>
  __device__ std::uint32_t claim_empty(const Group& tile, std::uint32_t h) const {
    for (std::uint32_t base = 0; base < capacity; base += Tile) {
      const std::uint32_t d = base + tile.thread_rank();
      bool empty = false;
      if (d < capacity) empty = static_cast<std::uint32_t>(load(slot_at(at(h, d))) >> 32) == empty_key;
      for (unsigned candidates = tile.ballot(empty); candidates != 0; candidates &= candidates - 1) {
        const std::uint32_t pick = base + __ffs(candidates) - 1;
        bool won = false;
        if (tile.thread_rank() == 0)
          won = atomicCAS(slot_at(at(h, pick)), empty_word(), reserved_word()) == empty_word();
        if (tile.shfl(won, 0)) return pick;
      }
    }
    return capacity;
  }

  /// Moves the reserved slot at distance e from h closer to h by one hop:
  /// some bucket's key between moves into it. Returns the new distance, or e
  /// when nothing could move; `blocked` then says whether a candidate bucket
  /// was locked by another tile (so a later attempt may succeed).
  template <class Group>
  __device__ std::uint32_t move_closer(const Group& tile, std::uint32_t h, std::uint32_t e, bool& blocked) const {
    const std::uint32_t free_slot = at(h, e);
    blocked = false;
    for (std::uint32_t x = kHopNeighbourhood - 1; x >= 1; --x) {  // bucket e - x, farthest first
      const std::uint32_t b = at(h, e - x);
      const bool own = e - x == 0;  // our home: its lock is ours already
      unsigned long long seen = 0;
      if (tile.thread_rank() == 0) seen = load(info_at(b));
      seen = tile.shfl(seen, 0);
      if ((static_cast<std::uint32_t>(seen) & ((1u << x) - 1)) == 0) continue;
      if (!own && !try_lock(tile, b)) {
        blocked = true;
        continue;
      }
      unsigned long long now = 0;
      if (tile.thread_rank() == 0) now = load(info_at(b));
      const std::uint32_t movable = static_cast<std::uint32_t>(tile.shfl(now, 0)) & ((1u << x) - 1);
      if (movable == 0) {
        if (!own) unlock(tile, b);
        continue;
      }
      const std::uint32_t i = __ffs(movable) - 1;  // the key farthest from the free slot
      if (tile.thread_rank() == 0) {
        const std::uint32_t from = at(b, i);
        atomicExch(slot_at(free_slot), load(slot_at(from)));  // the temporary duplicate
        __threadfence();
        change_bits(b, x, i);
        __threadfence();
        atomicExch(slot_at(from), reserved_word());
        note(hash_detail::kDisplacements);
      }
      if (!own) unlock(tile, b);
      else tile.sync();
      return e - x + i;
    }
    return e;
  }

  /// Whether a slot in the 31 before distance e from h is reserved: another
  /// tile's insert is moving a free slot through there, so a move that is
  /// impossible now may become possible once that insert finishes.
  template <class Group>
  __device__ bool reserved_before(const Group& tile, std::uint32_t h, std::uint32_t e) const {
    bool reserved = false;
    for (std::uint32_t base = 1; base < kHopNeighbourhood; base += Tile) {
      const std::uint32_t x = base + tile.thread_rank();
      if (x < kHopNeighbourhood)
        reserved |= static_cast<std::uint32_t>(load(slot_at(at(h, e - x))) >> 32) == reserved_key();
    }
    return tile.any(reserved);
  }

  /// The home's info word as the tile's first thread reads it.
  template <class Group>
  __device__ unsigned long long read_info(const Group& tile, std::uint32_t h) const {
    unsigned long long seen = 0;
    if (tile.thread_rank() == 0) seen = load(info_at(h));
    return tile.shfl(seen, 0);
  }

  /// The lock-free path of an insert: k absent from an unlocked home with no
  /// stashed keys, and an empty slot within the neighbourhood. The slot is
  /// claimed by a CAS, then listed by a CAS of the home's info word from the
  /// value read at the start: it succeeds only if nothing touched the home
  /// since (no other insert of k, listed or locked, no move, no erase), and is
  /// rolled back otherwise. Returns kHopInserted, or 0 to take the locked path.
  template <class Group>
  __device__ std::uint32_t insert_unlocked(const Group& tile, std::uint32_t h, std::uint32_t k,
                                           unsigned long long word) const {
    const unsigned long long seen = read_info(tile, h);
    if (seen & (hop_detail::kLock | hop_detail::kStashed)) return 0;
    std::uint32_t old = 0;
    if (locate(tile, h, static_cast<std::uint32_t>(seen), k, old) >= 0) return 0;  // updates take the lock
    for (std::uint32_t base = 0; base < kHopNeighbourhood; base += Tile) {
      const bool empty = static_cast<std::uint32_t>(load(slot_at(at(h, base + tile.thread_rank()))) >> 32) == empty_key;
      for (unsigned candidates = tile.ballot(empty); candidates != 0; candidates &= candidates - 1) {
        const std::uint32_t pick = base + __ffs(candidates) - 1;  // a listed slot is never empty: bit pick is clear
        bool claimed = false, listed = false;
        if (tile.thread_rank() == 0) {
          claimed = atomicCAS(slot_at(at(h, pick)), empty_word(), word) == empty_word();
          if (claimed) {
            __threadfence();
            listed = atomicCAS(info_at(h), seen, seen + (1ull << pick) + hop_detail::kVersionOne) == seen;
            if (!listed) atomicExch(slot_at(at(h, pick)), empty_word());
          }
        }
        if (tile.shfl(claimed, 0)) return tile.shfl(listed, 0) ? kHopInserted : 0u;
      }
    }
    return 0;
  }

  /// The lock-free path of an erase: k listed in an unlocked home; its bit is
  /// cleared by a CAS of the info word from the value its lookup used, then
  /// its slot emptied. Returns false to take the locked path.
  template <class Group>
  __device__ bool erase_unlocked(const Group& tile, std::uint32_t h, std::uint32_t k) const {
    const unsigned long long seen = read_info(tile, h);
    if (seen & hop_detail::kLock) return false;
    std::uint32_t old = 0;
    const int present = locate(tile, h, static_cast<std::uint32_t>(seen), k, old);
    if (present < 0) return false;  // absent, or stashed: the locked path decides
    bool done = false;
    if (tile.thread_rank() == 0) {
      const unsigned long long next = (seen & ~(1ull << present)) + hop_detail::kVersionOne;
      done = atomicCAS(info_at(h), seen, next) == seen;
      if (done) {
        __threadfence();
        atomicExch(slot_at(at(h, present)), empty_word());
      }
    }
    return tile.shfl(done, 0);
  }

  /// Inserts or overwrites; kHopInserted, kHopUpdated or kHopFailed (no free
  /// slot could be brought into the neighbourhood, and the stash is full).
  template <class Group>
  __device__ std::uint32_t insert(const Group& tile, std::uint32_t k, std::uint32_t v) const
      requires(has_op(Ops, hash_ops::insert)) {
    const std::uint32_t h = home(k);
    const unsigned long long word = (static_cast<unsigned long long>(k) << 32) | v;
    if (const std::uint32_t fast = insert_unlocked(tile, h, k, word)) return fast;
    for (unsigned attempt = 0;; ++attempt) {
      lock(tile, h);
      std::uint32_t old = 0;
      unsigned long long info_h = 0;
      if (tile.thread_rank() == 0) info_h = load(info_at(h));
      info_h = tile.shfl(info_h, 0);
      const int present = locate(tile, h, static_cast<std::uint32_t>(info_h), k, old);
      if (present >= 0) {
        if (tile.thread_rank() == 0) atomicExch(slot_at(at(h, present)), word);
        unlock(tile, h);
        return kHopUpdated;
      }
      if (info_h & hop_detail::kStashed) {
        const std::uint32_t s = stash_locate(tile, k, old);
        if (s < stash_capacity) {
          if (tile.thread_rank() == 0) atomicExch(&stash[s], word);
          unlock(tile, h);
          return kHopUpdated;
        }
      }
      std::uint32_t e = claim_empty(tile, h);
      bool blocked = false;
      while (e < capacity && e >= kHopNeighbourhood) {
        const std::uint32_t closer = move_closer(tile, h, e, blocked);
        if (closer == e) {  // stuck: give the slot back
          blocked = blocked || reserved_before(tile, h, e);
          if (tile.thread_rank() == 0) atomicExch(slot_at(at(h, e)), empty_word());
          e = capacity;
        } else {
          e = closer;
        }
      }
      if (e < capacity) {
        if (tile.thread_rank() == 0) {
          atomicExch(slot_at(at(h, e)), word);
          __threadfence();
          atomicAdd(info_at(h), (1ull << e) + hop_detail::kVersionOne);  // bit e is clear: the add sets it
        }
        unlock(tile, h);
        return kHopInserted;
      }
      // Locked neighbours and reserved slots may free up: let go of our own
      // lock and slot (two inserts may each hold what the other needs), back
      // off, start over. With no movable key within reach and no other insert
      // in the way, the key goes to the stash at once.
      if (!blocked || attempt == kMaxInsertAttempts) {
        if (tile.thread_rank() == 0) {
          atomicOr(info_at(h), hop_detail::kStashed);  // before the key lands: a find must know to look
          __threadfence();
        }
        tile.sync();
        const bool stashed = stash_insert(tile, k, word);
        unlock(tile, h);
        if (tile.thread_rank() == 0) note(stashed ? hash_detail::kStashed : hash_detail::kFailed);
        return stashed ? kHopInserted : kHopFailed;
      }
      unlock(tile, h);
      __nanosleep(64u << min(attempt, 8u));
    }
  }

  /// Removes k; true if it was present.
  template <class Group>
  __device__ bool erase(const Group& tile, std::uint32_t k) const requires(has_op(Ops, hash_ops::erase)) {
    const std::uint32_t h = home(k);
    if (erase_unlocked(tile, h, k)) return true;
    lock(tile, h);
    unsigned long long info_h = 0;
    if (tile.thread_rank() == 0) info_h = load(info_at(h));
    info_h = tile.shfl(info_h, 0);
    std::uint32_t old = 0;
    const int present = locate(tile, h, static_cast<std::uint32_t>(info_h), k, old);
    if (present >= 0 && tile.thread_rank() == 0) {
      change_bits(h, 32, static_cast<std::uint32_t>(present));  // unlisted first, so no find sees it half-gone
      __threadfence();
      atomicExch(slot_at(at(h, present)), empty_word());
    }
    bool stashed = false;
    if (present < 0 && (info_h & hop_detail::kStashed)) {
      const std::uint32_t s = stash_locate(tile, k, old);
      stashed = s < stash_capacity;
      if (stashed && tile.thread_rank() == 0) atomicExch(&stash[s], reserved_word());  // a tombstone
    }
    unlock(tile, h);
    return present >= 0 || stashed;
  }
};

template <int Tile = 32, class Hash = murmur3_hash>
class hopscotch_map {
 public:
  template <hash_ops Ops>
  using ref_with = hopscotch_ref<Tile, Hash, Ops>;
  using ref_type = ref_with<hash_ops::all>;
  using const_ref_type = ref_with<hash_ops::find>;

  /// A table of `capacity` slots (at least 32), all empty. Keys must differ
  /// from the empty key and the one below it (the reserved mark); values
  /// from the empty value.
  explicit hopscotch_map(std::size_t capacity, graphkit::empty_key<std::uint32_t> key_sentinel = {},
                         graphkit::empty_value<std::uint32_t> value_sentinel = {}, cudaStream_t stream = nullptr);

  /// Slots of the hopscotch array; the stash adds stash_capacity() more.
  [[nodiscard]] std::size_t capacity() const noexcept { return entries_.size() / 2; }
  [[nodiscard]] std::size_t stash_capacity() const noexcept { return stash_.size(); }
  /// A ref with the operations asked for (all by default); it counts no rare events.
  template <hash_ops Ops = hash_ops::all>
  [[nodiscard]] ref_with<Ops> ref() noexcept {
    return {entries_.data(), static_cast<std::uint32_t>(capacity()),
            stash_.data(),   static_cast<std::uint32_t>(stash_.size()),
            empty_key_,      empty_value_,
            nullptr};
  }
  /// A const map hands out read-only refs.
  template <hash_ops Ops = hash_ops::find>
  requires(!writes_table(Ops)) [[nodiscard]] ref_with<Ops> ref() const noexcept {
    return {entries_.data(), static_cast<std::uint32_t>(capacity()),
            stash_.data(),   static_cast<std::uint32_t>(stash_.size()),
            empty_key_,      empty_value_,
            nullptr};
  }

  /// Inserts or overwrites; `counts` receives this call's inserted / failed /
  /// sentinel / displacement / stash counts.
  void insert_async(const std::uint32_t* d_keys, const std::uint32_t* d_values, std::size_t n, hash_counts& counts,
                    cudaStream_t stream = nullptr);
  /// Returns how many keys were added; throws resource_error if any insert
  /// found no slot, graphkit::error if a key or value is a sentinel.
  std::uint64_t insert(const std::uint32_t* d_keys, const std::uint32_t* d_values, std::size_t n,
                       cudaStream_t stream = nullptr);
  /// d_values_out[i] = the value of d_keys[i], or the empty-value sentinel.
  void find_async(const std::uint32_t* d_keys, std::size_t n, std::uint32_t* d_values_out,
                  cudaStream_t stream = nullptr) const;
  void contains_async(const std::uint32_t* d_keys, std::size_t n, std::uint8_t* d_found,
                      cudaStream_t stream = nullptr) const;
  /// `counts` receives how many keys were removed.
  void erase_async(const std::uint32_t* d_keys, std::size_t n, hash_counts& counts, cudaStream_t stream = nullptr);
  /// Returns how many keys were removed.
  std::uint64_t erase(const std::uint32_t* d_keys, std::size_t n, cudaStream_t stream = nullptr);
  /// Applies a mixed batch concurrently (see the semantics above); d_results[i]
  /// is the find's value (or the empty value), an insert's hash_outcome, or an
  /// erase's kHashErased / kHashAbsent.
  void apply_async(const hop_op* d_ops, std::size_t n, std::uint32_t* d_results, hash_counts& counts,
                   cudaStream_t stream = nullptr);

  [[nodiscard]] std::uint64_t size(cudaStream_t stream = nullptr) const;
  /// Copies the entries out (d_keys_out and d_values_out hold size()); returns how many.
  std::uint64_t retrieve_all(std::uint32_t* d_keys_out, std::uint32_t* d_values_out,
                             cudaStream_t stream = nullptr) const;
  void clear(cudaStream_t stream = nullptr);

 private:
  /// The ref a bulk call's kernel uses: all operations, counting into `counts`.
  ref_type counting_ref(hash_counts& counts) noexcept {
    ref_type r = ref();
    r.stats = counts.data();
    return r;
  }

  std::uint32_t empty_key_, empty_value_;
  device_buffer<unsigned long long> entries_;  ///< per slot: info word, slot word (hopscotch_ref::entries)
  device_buffer<unsigned long long> stash_;
  /// The synchronous calls' own counts (they read them before returning).
  hash_counts sync_counts_;
  mutable device_buffer<unsigned long long> size_count_;
};

}  // namespace graphkit

#include "primitives/hash/detail/hopscotch_impl.cuh"
