// Kernels and host side of bucketed_cuckoo_map: one tile of kCuckooTile
// threads per operation, tiles taking operations in a grid-stride loop (round
// 2's 4-keys-per-tile bulk kernels were slower for finds, 15.6 against 17.2
// G/s at load 0.5, and were dropped). The bulk insert is four kernels per
// chunk of keys (claim_kernel, then settle_fast_kernel over the inserts it
// deferred, settle_kernel over those the fast pass left, then
// settle_alone_kernel, one tile, over those the third left;
// the header's "Bulk insert in passes"); apply_async runs the same kernels
// over a mixed batch's operations, the whole batch as one chunk (the inputs
// in bucketed_cuckoo_inputs.cuh). The first pass steps
// a warp's tiles together, for one ballot per step. Each tile's first thread
// counts outcomes in registers and the block adds all of a kernel's counts
// in one shared reduction (hash_detail::block_add); the bulk insert counts
// its moves so too, the mixed kernel's locked path where they happen.
#pragma once

#include <algorithm>
#include <string>

#include "primitives/common/error.hpp"
#include "primitives/common/launch.hpp"
#include "primitives/hash/detail/bucketed_cuckoo_inputs.cuh"

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

/// Blocks per multiprocessor of the bulk insert's first pass (claim_kernel):
/// its registers are capped at 32 for 8 (2048 threads, as finds run). It
/// holds no path that moves keys: it needs 40 uncapped, and at 32 spills 12
/// bytes (ptxas, sm_90) into an 8-byte frame, 16 KB per multiprocessor.
inline constexpr int kClaimBlocksPerSm = 8;
/// Blocks per multiprocessor of the second pass (settle_kernel), which runs
/// the insert-only path alone: 3 leave it 80 registers (ptxas, sm_90: 272
/// bytes of spill stores in its code, a 232-byte stack frame, 174 KB per
/// multiprocessor, which the L1 can hold; 2 would give 128 registers and no
/// spills at two thirds of the tiles). Capped at 40 inside step 18's one-pass
/// kernel, the path spilled 1.4 KB of stores and 5.6 KB of loads into a
/// 448-byte frame, 672 KB per multiprocessor: past the L1, so a deferred
/// insert waited on the L2 for its own spills.
inline constexpr int kSettleBlocksPerSm = 3;
/// Blocks per multiprocessor of the fast settle pass (settle_fast_kernel):
/// 4 leave it 64 registers (ptxas, sm_90: see bench/NOTES.md step 29) and
/// 256 tiles per multiprocessor, all stepping with their warps.
inline constexpr int kFastBlocksPerSm = 4;
inline constexpr int kWarpTiles = 32 / kCuckooTile;

/// The overflow list of one chunk of a bulk insert: the input indices of the
/// inserts that the first pass deferred, in one segment of `segment` entries
/// per warp of the first pass (a warp takes at most that many keys, so its
/// segment cannot overflow), and how many each segment holds.
struct overflow_list {
  std::uint32_t* entries;
  unsigned* counts;
  unsigned segment;
};
/// The inserts the second pass left to the last (blocked by other tiles'
/// locks, or no path found while other tiles ran): input indices, in no
/// order, and how many (zeroed again by the last pass).
struct leftover_list {
  std::uint32_t* entries;
  unsigned* count;
};

/// The first pass over one chunk of an input (bucketed_cuckoo_inputs.cuh:
/// the bulk insert's keys, or a mixed batch's operations): every insert is
/// updated where its key is or claims an empty slot of bucket 1, else of
/// bucket 2 (insert_claim_only: nothing in this kernel moves a key or reuses
/// a slot), and a mixed batch's finds and erases run beside them. An insert
/// whose two buckets are full is not settled here: its index goes to its
/// warp's segment of the overflow list, for settle_kernel. So no tile waits
/// for a costly insert, and this kernel's registers stay few. The warps take
/// kWarpTiles elements per step in a grid-stride loop (the steps are the
/// same for all lanes: one ballot per step places the warp's deferred inserts).
template <class Ref, class Input>
__global__ void __launch_bounds__(kBlock, kClaimBlocksPerSm)
    claim_kernel(Ref t, Input in, unsigned n, overflow_list deferred, unsigned long long* counts) {
  const auto warp = cg::tiled_partition<32>(cg::this_thread_block());
  const auto tile = cg::tiled_partition<kCuckooTile>(warp);
  const bool lead = tile.thread_rank() == 0;
  const unsigned warp_id = blockIdx.x * (kBlock / 32) + warp.meta_group_rank();
  first_pass_counts c;
  unsigned queued = 0;  // the same in every lane of the warp
  // 32-bit indices: a chunk is at most kCuckooInsertChunkMax keys, and 64-bit ones spill at 32 registers.
  const unsigned step = gridDim.x * (kBlock / 32) * kWarpTiles;
  for (unsigned first = warp_id * kWarpTiles; first < n; first += step) {
    const unsigned i = first + tile.meta_group_rank();
    const bool deferred_here = i < n && in.first_pass(t, tile, i, c);  // the whole tile takes part
    const unsigned votes = warp.ballot(lead && deferred_here);
    if (lead && deferred_here)
      deferred.entries[std::size_t{warp_id} * deferred.segment + queued +
                       __popc(votes & ((1u << warp.thread_rank()) - 1))] = i;
    queued += __popc(votes);
  }
  if (warp.thread_rank() == 0) deferred.counts[warp_id] = queued;
  Input::add(c, counts);
}

/// The fast settle pass, run between claim_kernel and settle_kernel over
/// what the first deferred: each insert by settle_fast (bucket 1's lock
/// tried, both buckets read, an update / reuse, or one move; the header's
/// "Fast settle pass"). A warp works through a segment, its 8 tiles in step:
/// in each step every tile without an insert takes the segment's next entry
/// (one ballot hands them out in order), all run settle_fast together, and a
/// tile blocked on bucket 1's lock keeps its insert for the next step (at
/// most kCuckooFastTries tries). What the pass does not settle (no room
/// within one move, a lost race, a lock held for every try) is written back
/// to the front of its own segment, behind the entries already taken, and
/// the segment's count becomes theirs: settle_kernel then runs over the
/// same list, unchanged. Nothing fails here.
template <class Ref, class Input>
__global__ void __launch_bounds__(kBlock, kFastBlocksPerSm)
    settle_fast_kernel(Ref t, Input in, overflow_list deferred, unsigned segments, unsigned long long* counts) {
  const auto warp = cg::tiled_partition<32>(cg::this_thread_block());
  const auto tile = cg::tiled_partition<kCuckooTile>(warp);
  const bool lead = tile.thread_rank() == 0;
  const unsigned before_me = (1u << (tile.meta_group_rank() * kCuckooTile)) - 1u;  // lanes of earlier tiles
  const unsigned warps = gridDim.x * (kBlock / 32);
  unsigned inserted = 0, moves = 0;
  for (unsigned s = blockIdx.x * (kBlock / 32) + warp.meta_group_rank(); s < segments; s += warps) {
    std::uint32_t* const segment = deferred.entries + std::size_t{s} * deferred.segment;
    const unsigned count = deferred.counts[s];
    unsigned taken = 0, kept = 0;  // the same in every lane: entries handed out, entries left for settle_kernel
    std::uint32_t i = 0;           // this tile's input (valid while `has`)
    unsigned tries = 0;
    bool has = false;
    for (;;) {
      const unsigned wanting = warp.ballot(lead && !has);
      const unsigned mine = taken + __popc(wanting & before_me);
      if (!has && mine < count) i = segment[mine], has = true, tries = 0;
      taken = min(count, taken + __popc(wanting));
      if (!warp.any(has)) break;
      const bool skip = Ref::kFastLeavesOdd && (i & 1u) != 0;  // the kForceLeave test hook
      const auto r = t.settle_fast(tile, in.key(i), in.value(i), has && !skip);
      const bool settled = has && !skip && (r.outcome == kHashInserted || r.outcome == kHashUpdated);
      tries += has && r.outcome == kBlocked;
      const bool leave = has && !settled && (skip || r.outcome != kBlocked || tries >= kCuckooFastTries);
      inserted += lead && settled && r.outcome == kHashInserted;
      moves += lead && settled && r.moved;
      if (lead && settled) in.report(i, r.outcome);
      // Left entries go to positions below `taken`, all read already (this step's reads before the writes).
      const unsigned leaving = warp.ballot(lead && leave);
      warp.sync();
      if (lead && leave) segment[kept + __popc(leaving & before_me)] = i;
      kept += __popc(leaving);
      if (settled || leave) has = false;
    }
    if (warp.thread_rank() == 0) deferred.counts[s] = kept;
  }
  hash_detail::block_add({inserted, moves}, {hash_detail::kInserted, hash_detail::kDisplacements}, counts);
}

/// The second pass: the inserts claim_kernel deferred that settle_fast_kernel
/// left (the segments it compacted), by the insert-only
/// path (insert_alone_deferred: bucket 1's lock, copy-first moves). Only
/// these run in this kernel. A warp takes a segment at a time, each of its
/// tiles every kWarpTiles-th entry; tiles do not wait for each other. No
/// insert fails here: one that other tiles blocked, or that found no path
/// while they ran, goes to the leftover list for the last pass.
template <class Ref, class Input>
__global__ void __launch_bounds__(kBlock, kSettleBlocksPerSm)
    settle_kernel(Ref t, Input in, overflow_list deferred, unsigned segments, leftover_list left,
                  unsigned long long* counts) {
  const auto tile = cg::tiled_partition<kCuckooTile>(cg::this_thread_block());
  const bool lead = tile.thread_rank() == 0;
  const unsigned lane_tile = (threadIdx.x % 32) / kCuckooTile;
  const unsigned warps = gridDim.x * (kBlock / 32);
  unsigned inserted = 0, failed = 0, moves = 0;
  for (unsigned s = blockIdx.x * (kBlock / 32) + threadIdx.x / 32; s < segments; s += warps) {
    const unsigned count = deferred.counts[s];
    const std::uint32_t* segment = deferred.entries + std::size_t{s} * deferred.segment;
    for (unsigned e = lane_tile; e < count; e += kWarpTiles) {
      const std::uint32_t i = segment[e];
      unsigned moved = 0;  // the same in every thread of the tile: the first one counts it
      const std::uint32_t outcome = t.insert_alone_deferred(tile, in.key(i), in.value(i), moved, false);
      inserted += lead && outcome == kHashInserted;
      failed += lead && outcome == kHashFailed;
      moves += lead ? moved : 0;
      if (lead && outcome == cuckoo_detail::kDeferred) left.entries[atomicAdd(left.count, 1u)] = i;
      else if (lead) in.report(i, outcome);
    }
  }
  hash_detail::block_add({inserted, failed, moves},
                         {hash_detail::kInserted, hash_detail::kFailed, hash_detail::kDisplacements}, counts);
}

/// The last pass over a chunk: the second pass's leftovers,
/// one after the other by one tile, the only one running (one warp; its
/// other tiles only join the count). No lock is held by another tile and no
/// slot changes but by this tile, so each insert ends as a sequential insert
/// of the same key into this table would: whether a key fails does not
/// depend on the schedule of the passes before. Almost always empty: an
/// insert needs kCuckooSettleTries blocked tries or a lost race to get here.
template <class Ref, class Input>
__global__ void __launch_bounds__(32)
    settle_alone_kernel(Ref t, Input in, leftover_list left, unsigned long long* counts) {
  const auto tile = cg::tiled_partition<kCuckooTile>(cg::this_thread_block());
  const bool lead = tile.thread_rank() == 0;
  unsigned inserted = 0, failed = 0, moves = 0;
  if (threadIdx.x < kCuckooTile) {
    const unsigned count = *left.count;
    for (unsigned e = 0; e < count; ++e) {
      const std::uint32_t i = left.entries[e];
      unsigned moved = 0;
      const std::uint32_t outcome = t.insert_alone_deferred(tile, in.key(i), in.value(i), moved, true);
      inserted += lead && outcome == kHashInserted;
      failed += lead && outcome == kHashFailed;
      moves += lead ? moved : 0;
      if (lead) in.report(i, outcome);
    }
  }
  __syncwarp();
  if (threadIdx.x == 0) *left.count = 0;  // for the next chunk
  hash_detail::block_add({inserted, failed, moves},
                         {hash_detail::kInserted, hash_detail::kFailed, hash_detail::kDisplacements}, counts);
}

/// A find by a read-only ref (nothing writes in the bulk find kernels), reading buckets as Read says.
template <cuckoo_find_read Read, class Ref, class Tile, class Key>
__device__ auto find_read_only(const Ref& t, const Tile& tile, Key k) {
  static_assert(!Ref::kWrites, "finds by half buckets need a kernel without writers");
  if constexpr (Read == cuckoo_find_read::halves) return t.find_halves(tile, k);
  else return t.find_whole(tile, k);
}

template <cuckoo_find_read Read, class Ref, class Key, class Value>
__global__ void __launch_bounds__(kBlock) find_kernel(Ref t, const Key* keys, std::size_t n, Value* out) {
  for_each_op(n, [&](const auto& tile, std::size_t i) {
    const Key k = keys[i];
    const Value value = refused(t, k, Value{}, false) ? t.empty_value : find_read_only<Read>(t, tile, k);
    if (tile.thread_rank() == 0) out[i] = value;
  });
}

template <cuckoo_find_read Read, class Ref, class Key>
__global__ void __launch_bounds__(kBlock) contains_kernel(Ref t, const Key* keys, std::size_t n, std::uint8_t* out) {
  for_each_op(n, [&](const auto& tile, std::size_t i) {
    const Key k = keys[i];
    const bool found = !refused(t, k, 0u, false) && find_read_only<Read>(t, tile, k) != t.empty_value;
    if (tile.thread_rank() == 0) out[i] = found ? 1 : 0;
  });
}

/// Bulk erase: only erases run in this kernel, so it uses erase_alone (no
/// insert can add, move or reuse anything while it runs), reading buckets as
/// Read says (whole, or half by half: step 24).
template <cuckoo_find_read Read, class Ref, class Key>
__global__ void __launch_bounds__(kBlock)
    erase_kernel(Ref t, const Key* keys, std::size_t n, unsigned long long* counts) {
  unsigned long long erased = 0;
  for_each_op(n, [&](const auto& tile, std::size_t i) {
    const Key k = keys[i];
    if (!refused(t, k, 0u, false) && t.template erase_alone<Read>(tile, k)) erased += tile.thread_rank() == 0;
  });
  hash_detail::block_add({erased}, {hash_detail::kErased}, counts);
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
/// The bulk insert's first pass: no more blocks than are resident at once.
inline unsigned claim_grid_for(std::size_t ops) {
  return graphkit::grid_stride_blocks(ops * kCuckooTile, kBlock, kClaimBlocksPerSm);
}
/// The second pass over `segments` segments: a warp per segment, at most the resident blocks.
inline unsigned settle_grid_for(unsigned segments) {
  return graphkit::grid_stride_blocks(std::size_t{segments} * 32, kBlock, kSettleBlocksPerSm);
}
/// The fast settle pass over `segments` segments: the same, at its own blocks per multiprocessor.
inline unsigned settle_fast_grid_for(unsigned segments) {
  return graphkit::grid_stride_blocks(std::size_t{segments} * 32, kBlock, kFastBlocksPerSm);
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
  // The bulk insert's overflow list: a segment per warp of the first pass's
  // largest grid, together at least a chunk (each warp's rounded up to whole steps).
  insert_chunk_ =
      std::clamp<std::size_t>(slots_.size() / kCuckooInsertChunkDivisor, kCuckooInsertChunkMin, kCuckooInsertChunkMax);
  overflow_warps_ = cuckoo_detail::claim_grid_for(insert_chunk_) * (cuckoo_detail::kBlock / 32);
  overflow_ = device_buffer<std::uint32_t>(insert_chunk_ + std::size_t{overflow_warps_} * cuckoo_detail::kWarpTiles);
  overflow_counts_ = device_buffer<unsigned>(overflow_warps_);
  leftovers_ = device_buffer<std::uint32_t>(insert_chunk_ + 1);  // the entries, then their count
  GRAPHKIT_CUDA_TRY(cudaMemsetAsync(leftovers_.data() + insert_chunk_, 0, sizeof(std::uint32_t), stream));
  clear(stream);
}

template <class Key, class Value, class Hash>
template <class Input>
void bucketed_cuckoo_map<Key, Value, Hash>::run_passes(Input in, std::size_t n, const pass_lists& lists,
                                                       hash_counts& counts, cudaStream_t stream) {
  using cuckoo_detail::kBlock;
  for (std::size_t done = 0; done < n; done += lists.chunk) {
    const std::size_t chunk = std::min(lists.chunk, n - done);
    const Input part = in.from(done);
    const unsigned grid = std::min(cuckoo_detail::claim_grid_for(chunk), lists.warps / (kBlock / 32));
    const unsigned warps = grid * (kBlock / 32);
    const std::size_t per_step = std::size_t{warps} * cuckoo_detail::kWarpTiles;
    // A warp's elements: at most one whole step per grid-wide step (warps * segment <= chunk + per_step).
    const auto segment = static_cast<unsigned>((chunk + per_step - 1) / per_step * cuckoo_detail::kWarpTiles);
    const cuckoo_detail::overflow_list deferred{lists.overflow, lists.counts, segment};
    cuckoo_detail::claim_kernel<<<grid, kBlock, 0, stream>>>(ref(), part, static_cast<unsigned>(chunk), deferred,
                                                             counts.data());
    GRAPHKIT_CHECK_LAUNCH();
    cuckoo_detail::settle_fast_kernel<<<cuckoo_detail::settle_fast_grid_for(warps), kBlock, 0, stream>>>(
        ref(), part, deferred, warps, counts.data());
    GRAPHKIT_CHECK_LAUNCH();
    const cuckoo_detail::leftover_list left{lists.leftovers, lists.leftover_count};
    cuckoo_detail::settle_kernel<<<cuckoo_detail::settle_grid_for(warps), kBlock, 0, stream>>>(
        ref(), part, deferred, warps, left, counts.data());
    GRAPHKIT_CHECK_LAUNCH();
    cuckoo_detail::settle_alone_kernel<<<1, 32, 0, stream>>>(ref(), part, left, counts.data());
    GRAPHKIT_CHECK_LAUNCH();
  }
}

template <class Key, class Value, class Hash>
typename bucketed_cuckoo_map<Key, Value, Hash>::pass_lists bucketed_cuckoo_map<Key, Value, Hash>::batch_lists(
    std::size_t n, cudaStream_t stream) {
  if (batch_chunk_ < n) {
    // The leftover count, n leftovers, and the overflow list: n entries plus
    // a step's worth (a warp's segment is whole steps). The segments' counts
    // are the per-chunk list's: each is written by its warp's first pass.
    batch_lists_ = device_buffer<std::uint32_t>(1 + 2 * n + std::size_t{overflow_warps_} * cuckoo_detail::kWarpTiles);
    batch_chunk_ = n;
    GRAPHKIT_CUDA_TRY(cudaMemsetAsync(batch_lists_.data(), 0, sizeof(std::uint32_t), stream));
  }
  std::uint32_t* const base = batch_lists_.data();
  return {n, overflow_warps_, base + 1 + batch_chunk_, overflow_counts_.data(), base + 1, base};
}

template <class Key, class Value, class Hash>
void bucketed_cuckoo_map<Key, Value, Hash>::insert_async(const Key* d_keys, const Value* d_values, std::size_t n,
                                                         hash_counts& counts, cudaStream_t stream) {
  counts.reset(stream);
  if (n == 0) return;
  reset_give_up(stream);  // once per call: after a failure, the later chunks' full-bucket inserts fail fast
  run_passes(cuckoo_detail::insert_input<Key, Value>{d_keys, d_values}, n, chunk_lists(), counts, stream);
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
  using cuckoo_detail::find_kernel;
  const auto kernel = find_read_ == cuckoo_find_read::halves
                          ? find_kernel<cuckoo_find_read::halves, const_ref_type, Key, Value>
                          : find_kernel<cuckoo_find_read::whole, const_ref_type, Key, Value>;
  kernel<<<cuckoo_detail::grid_for(n), cuckoo_detail::kBlock, 0, stream>>>(ref(), d_keys, n, d_values_out);
  GRAPHKIT_CHECK_LAUNCH();
}

template <class Key, class Value, class Hash>
void bucketed_cuckoo_map<Key, Value, Hash>::contains_async(const Key* d_keys, std::size_t n, std::uint8_t* d_found,
                                                           cudaStream_t stream) const {
  if (n == 0) return;
  using cuckoo_detail::contains_kernel;
  const auto kernel = find_read_ == cuckoo_find_read::halves
                          ? contains_kernel<cuckoo_find_read::halves, const_ref_type, Key>
                          : contains_kernel<cuckoo_find_read::whole, const_ref_type, Key>;
  kernel<<<cuckoo_detail::grid_for(n), cuckoo_detail::kBlock, 0, stream>>>(ref(), d_keys, n, d_found);
  GRAPHKIT_CHECK_LAUNCH();
}

template <class Key, class Value, class Hash>
void bucketed_cuckoo_map<Key, Value, Hash>::erase_async(const Key* d_keys, std::size_t n, hash_counts& counts,
                                                        cudaStream_t stream) {
  counts.reset(stream);
  if (n == 0) return;
  using cuckoo_detail::erase_kernel;
  using erase_ref = decltype(ref<hash_ops::erase>());
  const auto kernel = erase_read_ == cuckoo_find_read::halves ? erase_kernel<cuckoo_find_read::halves, erase_ref, Key>
                                                              : erase_kernel<cuckoo_find_read::whole, erase_ref, Key>;
  kernel<<<cuckoo_detail::grid_for(n), cuckoo_detail::kBlock, 0, stream>>>(ref<hash_ops::erase>(), d_keys, n,
                                                                           counts.data());
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
  // One first pass over the whole batch, then one settling of what it
  // deferred (the header's "Mixed batches in two passes"; batches past
  // kCuckooInsertChunkMax go in parts of that size, each settled after its own).
  const std::size_t chunk = std::min(n, kCuckooInsertChunkMax);
  run_passes(cuckoo_detail::mixed_input<Key, Value>{d_ops, d_results}, n, batch_lists(chunk, stream), counts, stream);
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
