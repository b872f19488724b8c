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
// The bulk calls can instead give each key a tile of T lanes (issue 18, step
// 21; the map's WriteTile for insert / erase, FindTile for find / contains;
// 1 = one thread per key): the tile reads T consecutive slots per step, lane
// r slot r, in one coalesced request (T = 4, 8-byte slots: one sector), and
// decides by ballot. A writing ref's relaxed loads bypass the L1, so a
// thread's two 16-byte loads per window are two L2 requests where the tile's
// are one, and a long probe is walked by 4 lanes of a warp holding 8 keys,
// not by one lane of a warp holding 32 (step 8's diagnosis). Both walks visit
// the slots in the same order, so either reads what the other wrote.
//
// Finds and erases can instead take the refill walk (kLpRefill, step 22): a
// thread per key that starts its next key as soon as one settles, so a warp
// does not wait on the longest probe among its keys (at load 0.9 the longest
// of 32 is ~4x the mean); the bulk erase's refill reads through the L1, as no
// insert runs in its kernel (erase_refill_kernel says why that is safe).
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
    if constexpr (!writes_table(Ops)) {
      return load_window_cached(first);
    } else {
      const auto* p = reinterpret_cast<const ulonglong2*>(slots + first);
      ulonglong2 a, b;
      asm volatile("ld.relaxed.gpu.v2.u64 {%0, %1}, [%2];" : "=l"(a.x), "=l"(a.y) : "l"(p));
      asm volatile("ld.relaxed.gpu.v2.u64 {%0, %1}, [%2];" : "=l"(b.x), "=l"(b.y) : "l"(p + 1));
      return to_window(a, b);
    }
  }
  /// The window by plain loads through the L1 (the two 16-byte loads of a
  /// sector make one L2 request): for kernels with no writer, and for the bulk
  /// erase's refill walk (erase_refill_kernel says why that is safe there).
  [[nodiscard]] __device__ window load_window_cached(std::size_t first) const {
    const auto* p = reinterpret_cast<const ulonglong2*>(slots + first);
    const ulonglong2 a = p[0], b = p[1];
    return to_window(a, b);
  }
  /// By value, from registers: with const references bound to the global
  /// loads (p[0], p[1]), nvcc 13.0 -O3 copied the window byte by byte and
  /// left out its last 8 bytes (slot 3 of a 4-slot window, then undefined:
  /// the thread walks took it for the probe's end, step 22's failing finds).
  [[nodiscard]] __device__ static window to_window(ulonglong2 a, ulonglong2 b) {
    window w;
    std::memcpy(&w, &a, sizeof a);
    std::memcpy(reinterpret_cast<char*>(&w) + sizeof a, &b, sizeof b);
    return w;
  }

  /// Where one key's walk stands: the window read next and how many were read
  /// before it. Lets a walk hold a key across iterations of a loop that is
  /// not the key's own (the refill walk of the bulk kernels).
  struct cursor {
    std::size_t first;  ///< the next window's first slot (a multiple of kWindow)
    std::size_t step;   ///< windows read before it
    Key key;
    unsigned offset;  ///< home's place in its window
  };
  [[nodiscard]] __device__ cursor start(Key k) const {
    const std::size_t h = home(k);
    const auto offset = static_cast<unsigned>(h % kWindow);
    return {h - offset, 0, k, offset};
  }
  /// Calls visit(index, slot) for the slots of `seen` (the window at c.first)
  /// that lie in c's lap, in order, until it returns true (then true). The lap
  /// is one window more than the table has: it ends with the home window's
  /// slots before home.
  template <class Visit>
  __device__ bool visit_window(const cursor& c, const window& seen, Visit&& visit) const {
    const std::size_t windows = capacity / kWindow;
    const unsigned from = c.step == 0 ? c.offset : 0u,
                   to = c.step == windows ? c.offset : static_cast<unsigned>(kWindow);
#pragma unroll
    for (unsigned j = 0; j < kWindow; ++j)
      if (j >= from && j < to && visit(c.first + j, seen.s[j])) return true;
    return false;
  }
  /// Moves c to its next window; false when the whole table has been seen.
  __device__ bool advance(cursor& c) const {
    if (c.step == capacity / kWindow) return false;
    ++c.step;
    c.first += kWindow;
    if (c.first == capacity) c.first = 0;
    return true;
  }

  /// Calls visit(index, slot) for the slots of k's probe sequence in order, a
  /// window per load, until it returns true (then true) or the whole table
  /// has been seen (false).
  template <class Visit>
  __device__ bool probe(Key k, Visit&& visit) const {
    cursor c = start(k);
    do {
      if (visit_window(c, load_window(c.first), visit)) return true;
    } while (advance(c));
    return false;
  }

  /// The value of k, or empty_value when k is absent (or erased).
  [[nodiscard]] __device__ Value find(Key k) const requires(has_op(Ops, hash_ops::find)) {
    Value out = empty_value;
    probe(k, [&](std::size_t, const slot& s) { return find_at(k, s, out); });
    return out;
  }
  /// A find's decision at slot s: k's value (then true), or k absent at an
  /// empty key (true), or read on (false).
  __device__ bool find_at(Key k, const slot& s, Value& out) const {
    if (s.key == k) out = s.value;
    return s.key == k || s.key == empty_key;
  }
  [[nodiscard]] __device__ bool contains(Key k) const requires(has_op(Ops, hash_ops::find)) {
    return find(k) != empty_value;
  }

  /// Inserts or overwrites: kHashInserted (k had no live value),
  /// kHashUpdated, or kHashFailed when every slot was probed in vain.
  __device__ std::uint32_t insert(Key k, Value v) const requires(has_op(Ops, hash_ops::insert)) {
    std::uint32_t outcome = kHashFailed;
    probe(k, [&](std::size_t i, const slot& s) {
      if (s.key == k) outcome = update(i, v);
      // kHashFailed: another key took it (or it is {empty, v}, never made by this map): go on
      else if (s.key == empty_key) outcome = claim(i, k, v);
      return outcome != kHashFailed;
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
    probe(k, [&](std::size_t i, const slot& s) { return erase_at(k, i, s, removed); });
    return removed;
  }
  /// An erase's decision at slot i, read as s: k found (then true; `removed`
  /// says whether this call emptied a live value), k absent at an empty key
  /// (true), or read on (false).
  __device__ bool erase_at(Key k, std::size_t i, const slot& s, bool& removed) const
      requires(has_op(Ops, hash_ops::erase)) {
    // A value read empty was erased already: no atomic for it.
    if (s.key == k && s.value != empty_value) removed = exchange_value(i, empty_value) != empty_value;
    return s.key == k || s.key == empty_key;
  }

  // ---- a tile of lanes per key (the bulk kernels) ------------------------------
  //
  // A Tile is a cooperative_groups::thread_block_tile<T>; every lane of it
  // calls with the same key. A tile of one lane takes the thread's path above.

  /// Slot i in one load, ordered as load_window's are.
  [[nodiscard]] __device__ slot load_slot(std::size_t i) const {
    slot s;
    if constexpr (sizeof(slot) == 8) {
      unsigned long long w;
      if constexpr (writes_table(Ops)) asm volatile("ld.relaxed.gpu.u64 %0, [%1];" : "=l"(w) : "l"(slots + i));
      else w = *reinterpret_cast<const unsigned long long*>(slots + i);
      std::memcpy(&s, &w, sizeof w);
    } else {
      ulonglong2 w;
      if constexpr (writes_table(Ops))
        asm volatile("ld.relaxed.gpu.v2.u64 {%0, %1}, [%2];" : "=l"(w.x), "=l"(w.y) : "l"(slots + i));
      else w = *reinterpret_cast<const ulonglong2*>(slots + i);
      std::memcpy(&s, &w, sizeof w);
    }
    return s;
  }

  /// What a tile does after deciding on one group of slots.
  enum class tile_step { next, done, again };

  /// The tile's walk of k's probe sequence: groups of T slots, T-aligned (so
  /// that a group is whole sectors), lane r reading slot r of each; every lane
  /// calls visit(index, slot, in_lap) for the same group and returns the
  /// tile's common decision (taken from ballots): the next group, done (then
  /// true), or this group again (after a lost claim: a slot seen empty is
  /// taken, so a group is read again at most T times). False when the whole
  /// table was seen. Lanes outside the lap (before home in the first group,
  /// from home on in the last, past the end of the table) load nothing.
  template <class Tile, class Visit>
  __device__ bool probe_tile(const Tile& tile, Key k, Visit&& visit) const {
    constexpr std::size_t T = Tile::num_threads();
    const std::size_t h = home(k);
    const std::size_t groups = (capacity + T - 1) / T;  // the last may be cut short by the table's end
    std::size_t first = h - h % T;
    for (std::size_t g = 0; g <= groups;) {
      const std::size_t i = first + tile.thread_rank();
      const bool in_lap = i < capacity && (g != 0 || i >= h) && (g != groups || i < h);
      const slot s = in_lap ? load_slot(i) : slot{empty_key, empty_value};
      const tile_step step = visit(i, s, in_lap);
      if (step == tile_step::done) return true;
      if (step == tile_step::again) continue;
      ++g;
      first += T;
      if (first >= capacity) first = 0;
    }
    return false;
  }

  /// act() run by the tile's lowest lane in `lanes` (a ballot), its result
  /// handed to every lane: the one atomic of a decision, or the value found.
  template <class Tile, class Act>
  __device__ static auto lowest_lane(const Tile& tile, unsigned lanes, Act&& act) {
    const int lane = __ffs(static_cast<int>(lanes)) - 1;
    decltype(act()) result{};
    if (tile.thread_rank() == static_cast<unsigned>(lane)) result = act();
    return tile.shfl(result, lane);
  }

  template <class Tile>
  [[nodiscard]] __device__ Value find(const Tile& tile, Key k) const requires(has_op(Ops, hash_ops::find)) {
    if constexpr (Tile::num_threads() == 1) {
      return find(k);
    } else {
      Value out = empty_value;
      probe_tile(tile, k, [&](std::size_t, const slot& s, bool in_lap) {
        // k after an empty slot of the same group only where a concurrent
        // insert ran between the lanes' loads: k is there, so taking it is right.
        if (const unsigned hits = tile.ballot(in_lap && s.key == k)) {
          out = lowest_lane(tile, hits, [&] { return s.value; });
          return tile_step::done;
        }
        return tile.any(in_lap && s.key == empty_key) ? tile_step::done : tile_step::next;
      });
      return out;
    }
  }
  template <class Tile>
  [[nodiscard]] __device__ bool contains(const Tile& tile, Key k) const requires(has_op(Ops, hash_ops::find)) {
    return find(tile, k) != empty_value;
  }

  template <class Tile>
  __device__ std::uint32_t insert(const Tile& tile, Key k, Value v) const requires(has_op(Ops, hash_ops::insert)) {
    if constexpr (Tile::num_threads() == 1) {
      return insert(k, v);
    } else {
      std::uint32_t outcome = kHashFailed;
      probe_tile(tile, k, [&](std::size_t i, const slot& s, bool in_lap) {
        if (const unsigned hits = tile.ballot(in_lap && s.key == k)) {
          outcome = lowest_lane(tile, hits, [&] { return update(i, v); });
          return tile_step::done;
        }
        // The first open slot in probe order: every slot before it held
        // another key when read, and keys stay, so k is in none of them.
        const unsigned open = tile.ballot(in_lap && is_open(s));
        if (open == 0) return tile_step::next;
        outcome = lowest_lane(tile, open, [&] { return claim(i, k, v); });
        return outcome == kHashFailed ? tile_step::again : tile_step::done;
      });
      return outcome;
    }
  }

  template <class Tile>
  __device__ bool erase(const Tile& tile, Key k) const requires(has_op(Ops, hash_ops::erase)) {
    if constexpr (Tile::num_threads() == 1) {
      return erase(k);
    } else {
      bool removed = false;
      probe_tile(tile, k, [&](std::size_t i, const slot& s, bool in_lap) {
        if (const unsigned hits = tile.ballot(in_lap && s.key == k)) {
          // A value read empty was erased already: no atomic for it.
          removed = lowest_lane(tile, hits, [&] {
                      return s.value != empty_value && exchange_value(i, empty_value) != empty_value ? 1u : 0u;
                    }) != 0;
          return tile_step::done;
        }
        return tile.any(in_lap && s.key == empty_key) ? tile_step::done : tile_step::next;
      });
      return removed;
    }
  }

  // ---- atomics (writing refs only) --------------------------------------------

  /// Whether an insert may claim s: an empty key (and, for 8-byte slots, an
  /// empty value: {empty, v} is never made by this map, and the CAS from
  /// {empty, empty} would only fail on it).
  [[nodiscard]] __device__ bool is_open(const slot& s) const {
    return s.key == empty_key && (sizeof(slot) != 8 || s.value == empty_value);
  }
  /// k's slot i gets v: kHashInserted where its value was empty, else kHashUpdated.
  __device__ std::uint32_t update(std::size_t i, Value v) const {
    return exchange_value(i, v) == empty_value ? kHashInserted : kHashUpdated;
  }
  /// Slot i, read open, claimed for {k, v}: kHashInserted, kHashUpdated where
  /// k took it meanwhile, or kHashFailed where another key did (read on).
  __device__ std::uint32_t claim(std::size_t i, Key k, Value v) const {
    if constexpr (sizeof(slot) == 8) {
      const slot before = cas_slot(i, slot{empty_key, empty_value}, slot{k, v});
      if (before.key == empty_key && before.value == empty_value) return kHashInserted;
      return before.key == k ? update(i, v) : kHashFailed;
    } else {
      const Key before = claim_key(i, k);
      return before == empty_key || before == k ? update(i, v) : kHashFailed;
    }
  }

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

/// A bulk kernel's walk (issue 18, step 22): a thread per key, each thread
/// starting its next key as soon as its current one settles, where a
/// lockstep walk (1, 2, ..., 32 lanes per key) holds a warp's keys together
/// until the longest probe among them ends. For finds, contains and erases.
inline constexpr unsigned kLpRefill = 0;

/// The grid of the bulk insert, find, contains and erase kernels (issue 18,
/// step 30). Both loop grid-stride; what differs is the order in which a
/// batch's keys are reached:
///   * capped: up to 32 blocks per multiprocessor (lp_detail::grid_for), four
///     times what is resident at 32 registers, so the blocks run in four
///     waves and each block walks the whole batch: a bulk insert places its
///     keys wave by wave, every wave spread over all indices. The first half
///     of a batch is then not the first half placed (at load 0.9 its keys'
///     mean probe is 3.2 slots, 1.54 groups of 4, against 1.4 slots and 1.10
///     groups for the first half placed), which is what step 22-25's
///     "erase first half" column compared with cuco's first half.
///   * resident: one resident wave (the kernel's occupancy times the
///     multiprocessors), so every tile or thread steps through the batch
///     together and keys are reached about in index order, as cuco's bulk
///     kernels (one tile per key, blocks in index order) reach them.
/// Other kernels (apply_async, size, retrieve_all, clear, probe_stats) keep
/// the capped grid either way.
enum class lp_grid { capped, resident };

/// WriteTile, FindTile and EraseTile: lanes per key in the bulk insert, find /
/// contains and erase kernels (1, 2, 4, 8, 16 or 32; 1 = one thread per key
/// reading 32-byte windows), or kLpRefill for finds and erases. apply_async
/// and ref() users take one thread per operation.
/// Defaults (issue 18, steps 21-22, measured on an H100): inserts and erases
/// read through relaxed loads, one L2 request per window with a tile of 4
/// where a thread makes two, so they take tiles (inserts 1.12-1.30x cuco at
/// loads 0.5-0.9; the refill erase was no faster); bulk finds take the refill
/// walk, whose lanes never wait on another key's probe (at 0.9 12.5 -> 15.1
/// G/s against one thread per key in lockstep, 1.27x cuco; the same at 0.5).
/// Grid: the bulk kernels' grid, one resident wave (step 30, H100, same run
/// as cuco: erasing the first half of the keys 1.06-1.08x cuco at loads
/// 0.5-0.9, where the capped grid gave 0.91-0.99x at 0.8-0.9; finds at 0.9
/// 15.2 -> 16.7 G/s; inserts within 5%).
template <class Key, class Value, class Hash = murmur3_hash, unsigned WriteTile = 4, unsigned FindTile = kLpRefill,
          unsigned EraseTile = WriteTile, lp_grid Grid = lp_grid::resident>
class linear_probing_map {
  static constexpr bool warp_tile(unsigned t) { return t >= 1 && t <= 32 && (t & (t - 1)) == 0; }
  static_assert(warp_tile(WriteTile), "inserts: a warp tile, 1, 2, ..., 32");
  static_assert(FindTile == kLpRefill || warp_tile(FindTile), "finds: kLpRefill or a warp tile, 1, 2, ..., 32");
  static_assert(EraseTile == kLpRefill || warp_tile(EraseTile), "erases: kLpRefill or a warp tile, 1, 2, ..., 32");

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
