// Kernels and host side of bucketed_cuckoo_map. The bulk find, erase and
// insert kernels give each tile of kCuckooTile threads a group of
// kCuckooTile operations: lane r loads key r of the group (one coalesced
// load), the tile issues the group's kCuckooTile first-bucket reads together
// (each lane holds kCuckooTile 16-byte loads in flight instead of one), and
// lane r then does key r's CAS, so a tile's CASes are in flight together too.
// Only keys whose first bucket settles nothing (full, without the key) or
// whose CAS lost a race go through the ref's general per-key path, one at a
// time for the whole tile. The mixed-batch kernel takes one operation per
// tile. Counts are kept per thread in registers and the block adds them with
// one atomic (hash_detail::block_add). Moves are counted where they happen.
#pragma once

#include <algorithm>
#include <string>

#include "primitives/common/error.hpp"
#include "primitives/common/launch.hpp"

namespace graphkit {
namespace cuckoo_detail {

namespace cg = cooperative_groups;
inline constexpr int kBlock = 256;
inline constexpr int kInsertBlocksPerSm = 4;
inline constexpr int kFindBlocksPerSm = 4;

/// Calls op(tile, i) for this tile's operations i < n.
template <class Op>
__device__ void for_each_op(std::size_t n, Op&& op) {
  const auto tile = cg::tiled_partition<kCuckooTile>(cg::this_thread_block());
  const std::size_t tiles = std::size_t{gridDim.x} * (blockDim.x / kCuckooTile);
  for (std::size_t i = std::size_t{blockIdx.x} * (blockDim.x / kCuckooTile) + threadIdx.x / kCuckooTile; i < n;
       i += tiles)
    op(tile, i);
}

/// Calls op(tile, first) for this tile's groups of kCuckooTile operations
/// [first, first + kCuckooTile) (the last group may end past n).
template <class Op>
__device__ void for_each_group(std::size_t n, Op&& op) {
  const auto tile = cg::tiled_partition<kCuckooTile>(cg::this_thread_block());
  const std::size_t groups = (n + kCuckooTile - 1) / kCuckooTile;
  const std::size_t tiles = std::size_t{gridDim.x} * (blockDim.x / kCuckooTile);
  for (std::size_t g = std::size_t{blockIdx.x} * (blockDim.x / kCuckooTile) + threadIdx.x / kCuckooTile; g < groups;
       g += tiles)
    op(tile, g * kCuckooTile);
}

template <class Ref, class Key, class Value>
__device__ bool refused(const Ref& t, Key key, Value value, bool has_value) {
  return key == t.empty_key || key == t.tombstone_key() || (has_value && value == t.empty_value);
}

template <class Ref, class Key, class Value>
__global__ void __launch_bounds__(kBlock, kInsertBlocksPerSm)
    insert_kernel(Ref t, const Key* keys, const Value* values, std::size_t n, unsigned long long* counts) {
  using word = typename Ref::word;
  unsigned long long inserted = 0, failed = 0, sentinel = 0;
  for_each_group(n, [&](const auto& tile, std::size_t first) {
    const unsigned r = tile.thread_rank();
    const bool mine_valid = first + r < n;
    const Key mine = mine_valid ? keys[first + r] : t.empty_key;
    const Value mine_value = mine_valid ? values[first + r] : t.empty_value;
    const bool mine_refused = mine_valid && refused(t, mine, mine_value, true);
    sentinel += mine_refused;
    // Lane r acts for key r; `skip` keys (padding, sentinels) need nothing.
    const unsigned skip = tile.ballot(!mine_valid || mine_refused);
    Key k[kCuckooTile];
    std::uint32_t b1[kCuckooTile];
    ulonglong2 q[kCuckooTile];
#pragma unroll
    for (int j = 0; j < kCuckooTile; ++j) {
      k[j] = tile.shfl(mine, j);
      b1[j] = t.first_bucket(k[j]);
      q[j] = t.load_quarter(b1[j], r);
    }
    // Key r's plan, from its first bucket: update its slot, claim an empty one, or the general path.
    std::uint32_t my_b1 = 0;
    unsigned my_slot = 0, my_empties = 0;
    word my_seen = 0;
    int plan = 0;  // 0: general path, 1: update, 2: claim
#pragma unroll
    for (int j = 0; j < kCuckooTile; ++j) {
      const typename Ref::view v = t.make_view(tile, q[j], k[j]);
      const unsigned i = v.match != 0 ? Ref::lowest(v.match) : 0u;
      const word w = Ref::word_of(tile, v, i);
      if (r == static_cast<unsigned>(j)) {
        my_b1 = b1[j];
        my_slot = i;
        my_seen = w;
        my_empties = v.empty;
        plan = v.match != 0 ? 1 : v.empty != 0 ? 2 : 0;
      }
    }
    std::uint32_t outcome = cuckoo_detail::kRestart;
    if (((skip >> r) & 1u) == 0) {
      if (plan == 1) outcome = t.set_value(my_b1, my_slot, my_seen, mine, mine_value);
      else if (plan == 2) outcome = t.claim(my_b1, my_empties, mine, mine_value, true);
    }
    // The rest, one key at a time for the whole tile.
    for (unsigned rest = tile.ballot(((skip >> r) & 1u) == 0 && outcome == cuckoo_detail::kRestart); rest != 0;
         rest &= rest - 1) {
      const int j = __ffs(rest) - 1;
      const std::uint32_t o = t.insert_out_of_line(tile, k[j], tile.shfl(mine_value, j));
      if (r == static_cast<unsigned>(j)) outcome = o;
    }
    if (((skip >> r) & 1u) == 0) {
      inserted += outcome == kHashInserted;
      failed += outcome == kHashFailed;
    }
  });
  hash_detail::block_add(inserted, counts + hash_detail::kInserted);
  hash_detail::block_add(failed, counts + hash_detail::kFailed);
  hash_detail::block_add(sentinel, counts + hash_detail::kSentinel);
}

/// Values of a group's keys, lane r's result for key r: the first buckets read
/// together, then the second buckets of the keys that need them, together.
/// A read-only ref: no writer runs in the kernel, so one read of a bucket is
/// the table's state (no confirming reads, no fences).
template <class Ref, class Key>
__device__ typename Ref::value_type find_group(const Ref& t, const typename Ref::tile_type& tile, Key mine) {
  using Value = typename Ref::value_type;
  const unsigned r = tile.thread_rank();
  Key k[kCuckooTile];
  std::uint32_t b[kCuckooTile];
  ulonglong2 q[kCuckooTile];
#pragma unroll
  for (int j = 0; j < kCuckooTile; ++j) {
    k[j] = tile.shfl(mine, j);
    b[j] = t.first_bucket(k[j]);
    q[j] = t.load_quarter(b[j], r);
  }
  Value result = t.empty_value;
  unsigned second = 0;  // keys whose first bucket is full and lacks them
#pragma unroll
  for (int j = 0; j < kCuckooTile; ++j) {
    const typename Ref::view v = t.make_view(tile, q[j], k[j]);
    const Value found = Ref::value_of(Ref::word_of(tile, v, v.match != 0 ? Ref::lowest(v.match) : 0u));
    if (v.match != 0 && r == static_cast<unsigned>(j)) result = found;
    if (v.match == 0 && v.empty == 0) second |= 1u << j;
  }
  if (second != 0) {
#pragma unroll
    for (int j = 0; j < kCuckooTile; ++j)
      if ((second >> j) & 1u) {
        b[j] = t.second_bucket(k[j], b[j]);
        q[j] = t.load_quarter(b[j], r);
      }
#pragma unroll
    for (int j = 0; j < kCuckooTile; ++j)
      if ((second >> j) & 1u) {
        const typename Ref::view v = t.make_view(tile, q[j], k[j]);
        const Value found = Ref::value_of(Ref::word_of(tile, v, v.match != 0 ? Ref::lowest(v.match) : 0u));
        if (v.match != 0 && r == static_cast<unsigned>(j)) result = found;
      }
  }
  return result;
}

template <class Ref, class Key, class Value>
__global__ void __launch_bounds__(kBlock, kFindBlocksPerSm)
    find_kernel(Ref t, const Key* keys, std::size_t n, Value* out) {
  for_each_group(n, [&](const auto& tile, std::size_t first) {
    const std::size_t i = first + tile.thread_rank();
    const Key k = i < n ? keys[i] : t.empty_key;
    const Value value = find_group(t, tile, k);  // the whole tile takes part
    if (i < n) out[i] = refused(t, k, Value{}, false) ? t.empty_value : value;
  });
}

template <class Ref, class Key>
__global__ void __launch_bounds__(kBlock) contains_kernel(Ref t, const Key* keys, std::size_t n, std::uint8_t* out) {
  for_each_group(n, [&](const auto& tile, std::size_t first) {
    const std::size_t i = first + tile.thread_rank();
    const Key k = i < n ? keys[i] : t.empty_key;
    const bool found = find_group(t, tile, k) != t.empty_value;
    if (i < n) out[i] = found && !refused(t, k, 0u, false) ? 1 : 0;
  });
}

template <class Ref, class Key>
__global__ void __launch_bounds__(kBlock)
    erase_kernel(Ref t, const Key* keys, std::size_t n, unsigned long long* counts) {
  using word = typename Ref::word;
  unsigned long long erased = 0;
  for_each_group(n, [&](const auto& tile, std::size_t first) {
    const unsigned r = tile.thread_rank();
    const bool mine_valid = first + r < n;
    const Key mine = mine_valid ? keys[first + r] : t.empty_key;
    const bool mine_skip = !mine_valid || refused(t, mine, 0u, false);
    Key k[kCuckooTile];
    std::uint32_t b1[kCuckooTile];
    ulonglong2 q[kCuckooTile];
#pragma unroll
    for (int j = 0; j < kCuckooTile; ++j) {
      k[j] = tile.shfl(mine, j);
      b1[j] = t.first_bucket(k[j]);
      q[j] = t.load_quarter(b1[j], r);
    }
    // Key r's plan from its first bucket: kill its slot, absent (an empty slot
    // and no match: only erases run in this kernel, so no insert can be adding
    // k or moving it, and one read is the bucket's state), or the general path.
    std::uint32_t my_b1 = 0;
    unsigned my_slot = 0;
    word my_seen = 0;
    int plan = 0;  // 0: general path, 1: kill, 2: absent
#pragma unroll
    for (int j = 0; j < kCuckooTile; ++j) {
      const typename Ref::view v = t.make_view(tile, q[j], k[j]);
      const unsigned i = v.match != 0 ? Ref::lowest(v.match) : 0u;
      const word w = Ref::word_of(tile, v, i);
      if (r == static_cast<unsigned>(j)) {
        my_b1 = b1[j];
        my_slot = i;
        my_seen = w;
        plan = v.match != 0 ? 1 : v.empty != 0 ? 2 : 0;
      }
    }
    std::uint32_t outcome = cuckoo_detail::kRestart;
    if (!mine_skip) {
      if (plan == 1) outcome = t.kill(my_b1, my_slot, my_seen, mine);
      else if (plan == 2) outcome = kHashAbsent;
    }
    for (unsigned rest = tile.ballot(!mine_skip && outcome == cuckoo_detail::kRestart); rest != 0; rest &= rest - 1) {
      const int j = __ffs(rest) - 1;
      const bool removed = t.erase_out_of_line(tile, k[j]);
      if (r == static_cast<unsigned>(j)) outcome = removed ? kHashErased : kHashAbsent;
    }
    erased += !mine_skip && outcome == kHashErased;
  });
  hash_detail::block_add(erased, counts + hash_detail::kErased);
}

template <class Ref, class Key, class Value>
__global__ void __launch_bounds__(kBlock, kInsertBlocksPerSm)
    apply_kernel(Ref t, const hash_op<Key, Value>* ops, std::size_t n, Value* results, unsigned long long* counts) {
  unsigned long long inserted = 0, failed = 0, sentinel = 0, erased = 0;
  for_each_op(n, [&](const auto& tile, std::size_t i) {
    const hash_op<Key, Value> op = ops[i];
    const bool lead = tile.thread_rank() == 0;
    Value result = 0;
    if (refused(t, op.key, op.value, op.kind == hash_op_kind::insert)) {
      sentinel += lead;
      result = op.kind == hash_op_kind::find ? t.empty_value : Value{kHashFailed};
    } else if (op.kind == hash_op_kind::insert) {
      const std::uint32_t outcome = t.insert(tile, op.key, op.value);
      inserted += lead && outcome == kHashInserted;
      failed += lead && outcome == kHashFailed;
      result = static_cast<Value>(outcome);
    } else if (op.kind == hash_op_kind::erase) {
      const bool removed = t.erase(tile, op.key);
      erased += lead && removed;
      result = removed ? Value{kHashErased} : Value{kHashAbsent};
    } else {
      result = t.find(tile, op.key);
    }
    if (lead) results[i] = result;
  });
  hash_detail::block_add(inserted, counts + hash_detail::kInserted);
  hash_detail::block_add(failed, counts + hash_detail::kFailed);
  hash_detail::block_add(sentinel, counts + hash_detail::kSentinel);
  hash_detail::block_add(erased, counts + hash_detail::kErased);
}

/// Live slots (a value other than the empty value: empty slots and
/// tombstones carry the empty value, dead keys too); `second` counts only
/// those outside their key's first bucket. Out: keys and values when given.
template <class Ref, class Key, class Value>
__global__ void __launch_bounds__(kBlock)
    live_kernel(Ref t, bool second, Key* keys, Value* values, unsigned long long* count) {
  const std::size_t slots = std::size_t{t.buckets} * kCuckooBucketSlots;
  const std::size_t end = (slots + 31) / 32 * 32;  // whole warps vote
  unsigned long long mine = 0;
  for (std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x; i < end;
       i += std::size_t{gridDim.x} * blockDim.x) {
    bool live = false;
    typename Ref::slot s{};
    if (i < slots) {
      s = t.slots[i];
      live = s.value != t.empty_value;
      if (live && second) live = t.first_bucket(s.key) != static_cast<std::uint32_t>(i / kCuckooBucketSlots);
    }
    if (keys == nullptr) {
      mine += live;
      continue;
    }
    // Copies out: one atomic per warp for the place.
    const unsigned votes = __ballot_sync(0xffffffffu, live);
    unsigned long long base = 0;
    if ((threadIdx.x & 31) == 0 && votes != 0) base = atomicAdd(count, static_cast<unsigned long long>(__popc(votes)));
    base = __shfl_sync(0xffffffffu, base, 0);
    if (live) {
      const auto at = base + __popc(votes & ((1u << (threadIdx.x & 31)) - 1));
      keys[at] = s.key;
      values[at] = s.value;
    }
  }
  if (keys == nullptr) hash_detail::block_add(mine, count);
}

/// Every slot {empty key, empty value}, every lock free.
template <class Ref>
__global__ void clear_kernel(Ref t) {
  const std::size_t slots = std::size_t{t.buckets} * kCuckooBucketSlots;
  for (std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x; i < slots;
       i += std::size_t{gridDim.x} * blockDim.x) {
    t.slots[i] = {t.empty_key, t.empty_value};
    if (i <= t.buckets) t.locks[i] = 0;  // the locks and the give-up flag
  }
}

inline unsigned grid_for(std::size_t ops) {
  return std::clamp(graphkit::blocks_for(ops * kCuckooTile, kBlock), 1u, 1u << 16);
}
inline unsigned grid_for_slots(std::size_t slots) { return graphkit::grid_stride_blocks(slots, kBlock); }

/// Buckets for a capacity of `capacity` slots: whole buckets, at least 2.
inline std::size_t bucket_count_for(std::size_t capacity) {
  return std::max<std::size_t>(2, (capacity + kCuckooBucketSlots - 1) / kCuckooBucketSlots);
}

}  // namespace cuckoo_detail

template <class Key, class Value, class Hash>
bucketed_cuckoo_map<Key, Value, Hash>::bucketed_cuckoo_map(std::size_t capacity, graphkit::empty_key<Key> key_sentinel,
                                                           graphkit::empty_value<Value> value_sentinel,
                                                           cudaStream_t stream)
    : empty_key_(key_sentinel.value), empty_value_(value_sentinel.value), scratch_(1) {
  const std::size_t buckets = cuckoo_detail::bucket_count_for(capacity);
  if (buckets > (std::size_t{1} << 31))
    throw error("bucketed_cuckoo_map: " + std::to_string(capacity) + " slots exceed 2^34");
  if (empty_key_ == 0)
    throw error("bucketed_cuckoo_map: the empty key must not be 0 (the key below it marks tombstones)");
  slots_ = device_buffer<slot>(buckets * kCuckooBucketSlots);
  locks_ = device_buffer<unsigned>(buckets + 1);  // the locks, then the give-up flag
  clear(stream);
}

template <class Key, class Value, class Hash>
void bucketed_cuckoo_map<Key, Value, Hash>::insert_async(const Key* d_keys, const Value* d_values, std::size_t n,
                                                         hash_counts& counts, cudaStream_t stream) {
  counts.reset(stream);
  if (n == 0) return;
  reset_give_up(stream);
  cuckoo_detail::insert_kernel<<<cuckoo_detail::grid_for(n), cuckoo_detail::kBlock, 0, stream>>>(
      counting_ref(counts), d_keys, d_values, n, counts.data());
  GRAPHKIT_CHECK_LAUNCH();
}

template <class Key, class Value, class Hash>
std::uint64_t bucketed_cuckoo_map<Key, Value, Hash>::insert(const Key* d_keys, const Value* d_values, std::size_t n,
                                                            cudaStream_t stream) {
  insert_async(d_keys, d_values, n, sync_counts_, stream);
  const hash_result r = sync_counts_.result(stream);
  if (r.sentinel != 0)
    throw error("bucketed_cuckoo_map::insert: " + std::to_string(r.sentinel) + " of " + std::to_string(n) +
                " pairs hold a sentinel (empty key " + std::to_string(empty_key_) +
                ", the tombstone key below it, or empty value " + std::to_string(empty_value_) +
                ") and were not inserted");
  if (r.failed != 0)
    throw resource_error("bucketed_cuckoo_map::insert: table full: " + std::to_string(r.failed) + " of " +
                         std::to_string(n) + " keys found no room in their two buckets, nor by a path of up to " +
                         std::to_string(kMaxEvictionDepth + 1) + " moves (the table holds " +
                         std::to_string(capacity()) + " slots in " + std::to_string(bucket_count()) + " buckets of " +
                         std::to_string(kCuckooBucketSlots) + "; erased keys keep theirs until " +
                         "reused or clear())");
  return r.inserted;
}

template <class Key, class Value, class Hash>
void bucketed_cuckoo_map<Key, Value, Hash>::find_async(const Key* d_keys, std::size_t n, Value* d_values_out,
                                                       cudaStream_t stream) const {
  if (n == 0) return;
  cuckoo_detail::find_kernel<<<cuckoo_detail::grid_for(n), cuckoo_detail::kBlock, 0, stream>>>(ref(), d_keys, n,
                                                                                               d_values_out);
  GRAPHKIT_CHECK_LAUNCH();
}

template <class Key, class Value, class Hash>
void bucketed_cuckoo_map<Key, Value, Hash>::contains_async(const Key* d_keys, std::size_t n, std::uint8_t* d_found,
                                                           cudaStream_t stream) const {
  if (n == 0) return;
  cuckoo_detail::contains_kernel<<<cuckoo_detail::grid_for(n), cuckoo_detail::kBlock, 0, stream>>>(ref(), d_keys, n,
                                                                                                   d_found);
  GRAPHKIT_CHECK_LAUNCH();
}

template <class Key, class Value, class Hash>
void bucketed_cuckoo_map<Key, Value, Hash>::erase_async(const Key* d_keys, std::size_t n, hash_counts& counts,
                                                        cudaStream_t stream) {
  counts.reset(stream);
  if (n == 0) return;
  cuckoo_detail::erase_kernel<<<cuckoo_detail::grid_for(n), cuckoo_detail::kBlock, 0, stream>>>(
      ref<hash_ops::erase>(), d_keys, n, counts.data());
  GRAPHKIT_CHECK_LAUNCH();
}

template <class Key, class Value, class Hash>
std::uint64_t bucketed_cuckoo_map<Key, Value, Hash>::erase(const Key* d_keys, std::size_t n, cudaStream_t stream) {
  erase_async(d_keys, n, sync_counts_, stream);
  return sync_counts_.result(stream).erased;
}

template <class Key, class Value, class Hash>
void bucketed_cuckoo_map<Key, Value, Hash>::apply_async(const op_type* d_ops, std::size_t n, Value* d_results,
                                                        hash_counts& counts, cudaStream_t stream) {
  counts.reset(stream);
  if (n == 0) return;
  reset_give_up(stream);
  cuckoo_detail::apply_kernel<<<cuckoo_detail::grid_for(n), cuckoo_detail::kBlock, 0, stream>>>(
      counting_ref(counts), d_ops, n, d_results, counts.data());
  GRAPHKIT_CHECK_LAUNCH();
}

template <class Key, class Value, class Hash>
std::uint64_t bucketed_cuckoo_map<Key, Value, Hash>::size(cudaStream_t stream) const {
  GRAPHKIT_CUDA_TRY(cudaMemsetAsync(scratch_.data(), 0, sizeof(unsigned long long), stream));
  cuckoo_detail::live_kernel<<<cuckoo_detail::grid_for_slots(capacity()), cuckoo_detail::kBlock, 0, stream>>>(
      ref(), false, static_cast<Key*>(nullptr), static_cast<Value*>(nullptr), scratch_.data());
  GRAPHKIT_CHECK_LAUNCH();
  return read_one(scratch_.data(), stream);
}

template <class Key, class Value, class Hash>
std::uint64_t bucketed_cuckoo_map<Key, Value, Hash>::second_bucket_size(cudaStream_t stream) const {
  GRAPHKIT_CUDA_TRY(cudaMemsetAsync(scratch_.data(), 0, sizeof(unsigned long long), stream));
  cuckoo_detail::live_kernel<<<cuckoo_detail::grid_for_slots(capacity()), cuckoo_detail::kBlock, 0, stream>>>(
      ref(), true, static_cast<Key*>(nullptr), static_cast<Value*>(nullptr), scratch_.data());
  GRAPHKIT_CHECK_LAUNCH();
  return read_one(scratch_.data(), stream);
}

template <class Key, class Value, class Hash>
std::uint64_t bucketed_cuckoo_map<Key, Value, Hash>::retrieve_all(Key* d_keys_out, Value* d_values_out,
                                                                  cudaStream_t stream) const {
  if (d_keys_out == nullptr || d_values_out == nullptr) return size(stream);
  GRAPHKIT_CUDA_TRY(cudaMemsetAsync(scratch_.data(), 0, sizeof(unsigned long long), stream));
  cuckoo_detail::live_kernel<<<cuckoo_detail::grid_for_slots(capacity()), cuckoo_detail::kBlock, 0, stream>>>(
      ref(), false, d_keys_out, d_values_out, scratch_.data());
  GRAPHKIT_CHECK_LAUNCH();
  return read_one(scratch_.data(), stream);
}

template <class Key, class Value, class Hash>
void bucketed_cuckoo_map<Key, Value, Hash>::clear(cudaStream_t stream) {
  cuckoo_detail::clear_kernel<<<cuckoo_detail::grid_for_slots(capacity()), cuckoo_detail::kBlock, 0, stream>>>(ref());
  GRAPHKIT_CHECK_LAUNCH();
}

}  // namespace graphkit
