// Kernels and host side of bucketed_cuckoo_map: one tile of kCuckooTile
// threads per operation, tiles taking operations in a grid-stride loop (round
// 2's 4-keys-per-tile bulk kernels were slower for finds, 15.6 against 17.2
// G/s at load 0.5, and were dropped; the bulk insert steps a warp's tiles
// together, for its queue of deferred inserts). Each tile's first thread
// counts outcomes in registers and the block adds all of a kernel's counts
// in one shared reduction (hash_detail::block_add); the bulk insert counts
// its moves so too, the mixed kernel's locked path where they happen.
#pragma once

#include <algorithm>
#include <string>

#include "primitives/common/error.hpp"
#include "primitives/common/launch.hpp"

namespace graphkit {
namespace cuckoo_detail {

namespace cg = cooperative_groups;
inline constexpr int kBlock = 256;

/// Calls op(tile, i) for this tile's operations i < n.
template <class Op>
__device__ void for_each_op(std::size_t n, Op&& op) {
  const auto tile = cg::tiled_partition<kCuckooTile>(cg::this_thread_block());
  const std::size_t tiles = std::size_t{gridDim.x} * (blockDim.x / kCuckooTile);
  for (std::size_t i = std::size_t{blockIdx.x} * (blockDim.x / kCuckooTile) + threadIdx.x / kCuckooTile; i < n;
       i += tiles)
    op(tile, i);
}

template <class Ref, class Key, class Value>
__device__ bool refused(const Ref& t, Key key, Value value, bool has_value) {
  return key == t.empty_key || key == t.tombstone_key() || (has_value && value == t.empty_value);
}

/// Blocks of the bulk insert kernel per multiprocessor. Its registers are
/// capped at 40 for 6 (1536 threads): the lock-free part needs 39 (ptxas,
/// sm_90), so it keeps them all while the rare deferred path spills. Uncapped,
/// that path's 80 registers held the kernel to 768 threads.
inline constexpr int kInsertBlocksPerSm = 6;
/// Tiles per warp, and the deferred inserts a warp's queue holds (up to 7
/// waiting plus one from each tile).
inline constexpr int kWarpTiles = 32 / kCuckooTile;
inline constexpr int kWarpQueue = 2 * kWarpTiles;

/// Bulk insert: only inserts run in this kernel, so an insert whose two
/// buckets are full takes the insert-only path (insert_alone_deferred). A
/// warp's tiles queue those inserts in shared memory and take them up
/// kWarpTiles at a time, one per tile: one deferred insert costs several
/// times a common one, and taken where met it would hold the warp's other
/// tiles idle at the reconvergence point after it (at load 0.9, one warp
/// step in five has one). The warps take kWarpTiles keys per step in a
/// grid-stride loop, so that the queue's steps are the same for all lanes;
/// the grid is at most the resident blocks, so each warp takes many steps.
template <class Ref, class Key, class Value>
__global__ void __launch_bounds__(kBlock, kInsertBlocksPerSm)
    insert_kernel(Ref t, const Key* keys, const Value* values, std::size_t n, unsigned long long* counts) {
  __shared__ typename Ref::word queues[kBlock / 32][kWarpQueue];
  const auto warp = cg::tiled_partition<32>(cg::this_thread_block());
  const auto tile = cg::tiled_partition<kCuckooTile>(warp);
  typename Ref::word* queue = queues[warp.meta_group_rank()];
  const bool lead = tile.thread_rank() == 0;
  unsigned inserted = 0, failed = 0, sentinel = 0, moves = 0;
  const auto count = [&](std::uint32_t outcome) {
    inserted += lead && outcome == kHashInserted;
    failed += lead && outcome == kHashFailed;
  };
  const auto settle = [&](typename Ref::word pair) {
    unsigned moved = 0;  // the same in every thread of the tile: the first one counts it
    count(t.insert_alone_deferred(tile, Ref::key_of(pair), Ref::value_of(pair), moved));
    moves += lead ? moved : 0;
  };
  unsigned queued = 0;  // the same in every lane of the warp
  const std::size_t warps = std::size_t{gridDim.x} * (blockDim.x / 32);
  for (std::size_t first = (std::size_t{blockIdx.x} * (blockDim.x / 32) + warp.meta_group_rank()) * kWarpTiles;
       first < n; first += warps * kWarpTiles) {
    const std::size_t i = first + tile.meta_group_rank();
    bool deferred = false;
    Key k{};
    Value v{};
    if (i < n) {
      k = keys[i];
      v = values[i];
      if (refused(t, k, v, true)) {
        sentinel += lead;
      } else {
        const std::uint32_t outcome = t.insert_lock_free(tile, k, v);  // the whole tile takes part
        deferred = outcome == cuckoo_detail::kDeferred;
        if (!deferred) count(outcome);
      }
    }
    const unsigned votes = warp.ballot(lead && deferred);
    if (lead && deferred) queue[queued + __popc(votes & ((1u << warp.thread_rank()) - 1))] = Ref::pack(k, v);
    queued += __popc(votes);
    if (queued >= kWarpTiles) {
      warp.sync();
      queued -= kWarpTiles;
      settle(queue[queued + tile.meta_group_rank()]);
      warp.sync();  // before the next step's entries overwrite these
    }
  }
  warp.sync();
  if (tile.meta_group_rank() < queued) settle(queue[tile.meta_group_rank()]);
  hash_detail::block_add(
      {inserted, failed, sentinel, moves},
      {hash_detail::kInserted, hash_detail::kFailed, hash_detail::kSentinel, hash_detail::kDisplacements}, counts);
}

template <class Ref, class Key, class Value>
__global__ void __launch_bounds__(kBlock) find_kernel(Ref t, const Key* keys, std::size_t n, Value* out) {
  for_each_op(n, [&](const auto& tile, std::size_t i) {
    const Key k = keys[i];
    const Value value = refused(t, k, Value{}, false) ? t.empty_value : t.find(tile, k);
    if (tile.thread_rank() == 0) out[i] = value;
  });
}

template <class Ref, class Key>
__global__ void __launch_bounds__(kBlock) contains_kernel(Ref t, const Key* keys, std::size_t n, std::uint8_t* out) {
  for_each_op(n, [&](const auto& tile, std::size_t i) {
    const Key k = keys[i];
    const bool found = !refused(t, k, 0u, false) && t.contains(tile, k);
    if (tile.thread_rank() == 0) out[i] = found ? 1 : 0;
  });
}

/// Bulk erase: only erases run in this kernel, so it uses erase_alone (no
/// insert can add, move or reuse anything while it runs).
template <class Ref, class Key>
__global__ void __launch_bounds__(kBlock)
    erase_kernel(Ref t, const Key* keys, std::size_t n, unsigned long long* counts) {
  unsigned long long erased = 0;
  for_each_op(n, [&](const auto& tile, std::size_t i) {
    const Key k = keys[i];
    if (!refused(t, k, 0u, false) && t.erase_alone(tile, k)) erased += tile.thread_rank() == 0;
  });
  hash_detail::block_add({erased}, {hash_detail::kErased}, counts);
}

template <class Ref, class Key, class Value>
__global__ void __launch_bounds__(kBlock)
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
  hash_detail::block_add({inserted, failed, sentinel, erased},
                         {hash_detail::kInserted, hash_detail::kFailed, hash_detail::kSentinel, hash_detail::kErased},
                         counts);
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
  if (keys == nullptr) hash_detail::block_add({mine}, {0}, count);
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
/// The bulk insert's grid: no more blocks than are resident at once.
inline unsigned insert_grid_for(std::size_t ops) {
  return graphkit::grid_stride_blocks(ops * kCuckooTile, kBlock, kInsertBlocksPerSm);
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
  cuckoo_detail::insert_kernel<<<cuckoo_detail::insert_grid_for(n), cuckoo_detail::kBlock, 0, stream>>>(
      ref(), d_keys, d_values, n, counts.data());
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
