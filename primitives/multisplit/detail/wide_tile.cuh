// The block method's wide post-scan (methods `block_wide`, `block_wide_votes`
// and `block_wide_peers`, m <= 256): the pre-scan, the scan of the bucket x
// tile matrix and the offsets are the block method's (with this kernel's
// tile size); this kernel replaces block_postscan. Why it differs from block_postscan (bench/NOTES.md
// multisplit step 17):
//
// * Bytes in flight. block_postscan loads 2,048 keys a block into registers
//   and then ranks them with no load in flight, so an SM has its loads
//   outstanding only while a block is between tiles: 8 KB a block, 4 blocks.
//   Here the blocks are persistent and each tile's items arrive by cp.async
//   into one of two shared-memory buffers while the tile before is split, so
//   every resident block always has a whole tile (20 KB of keys, 24 KB of
//   pairs) in flight.
// * Wider tiles: 5,120 keys or 3,072 pairs of 32-bit words (2,048 in
//   block_postscan; tuning_sm90::wide_items), so a bucket's run per tile is
//   2.5x (1.5x) longer at m = 256 (20 keys, 12 pairs: fewer partly written
//   sectors), the matrix is 40% (two thirds) of the size, and the per-tile
//   work (zeroing the rows, the scan over buckets) is spread over more items.
// * Fewer shared-memory accesses per item, most of which meet 3-4-way bank
//   conflicts at m = 256 (32 lanes on 256 words): an item's place is one
//   load after the peer-mask rank (the warps' exclusive counts are folded
//   into the tile's bucket starts; two loads in block_postscan), or none
//   with the votes rank, which counts first and places each item by ballots
//   and one atomicAdd by the lowest lane of its group (no mask word to set,
//   read and clear); the staged tile carries no bucket bytes, as the scatter
//   applies the bucket functor again to the staged key (bucket_ids_of, which
//   reads ids by input position, stages them); and the scatter reads one
//   output shift per item (three loads in block_postscan).
//
// A tile's path: its keys (and values) in shared memory; bucket of each
// item; per warp, a row of counters: peer masks rank into it (peer_rank)
// and, per bucket, the warps' counts become each warp's first tile place of
// the bucket (start of the bucket in the tile + earlier warps' counts),
// added to the ranks; or the votes count into it first, the counts become
// the first places, and vote_place hands out the places; the tile staged
// in bucket order over the rank's rows; coalesced writes at the tile's
// matrix base of each bucket.
#pragma once

#include <cub/block/block_scan.cuh>

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "primitives/common/chained_launch.cuh"
#include "primitives/multisplit/detail/block_rank.cuh"
#include "primitives/multisplit/detail/column_scan.cuh"
#include "primitives/multisplit/detail/choice_gate.cuh"
#include "primitives/multisplit/detail/kept_stores.cuh"
#include "primitives/multisplit/detail/kernels.cuh"
#include "primitives/multisplit/detail/tile_load.cuh"
#include "primitives/multisplit/detail/warp_rank.cuh"

namespace graphkit::multisplit_detail {

/// Shared memory of wide_postscan, for tiles of Warps * 32 * Items items:
/// two tiles as read (the cp.async double buffer), the tile in bucket order
/// over the rank's rows (the rows are dead once every item has its place),
/// and per bucket the output shift (output index minus tile place).
/// StageBuckets: the bucket ids travel with the staged tile (bucket_ids_of).
/// TileMajor: the bases come from a tile-major matrix (tile_cell).
template <int Warps, int Items, class Key, class Value, bool StageBuckets, bool TileMajor>
struct wide_storage {
  static constexpr int kTile = Warps * 32 * Items;
  struct input_tile {
    alignas(16) Key keys[kTile];
    alignas(16) value_tile<Value, kTile> values;
  };
  struct rank_rows {
    /// Per warp and bucket: the warp's count (peer_rank counts as it
    /// ranks; the votes rank counts first), then the tile place of the
    /// warp's first item of the bucket (the votes advance it as they place).
    std::uint32_t next[Warps][kMultisplitTileMaxBuckets];
    std::uint32_t masks[Warps][kMultisplitTileMaxBuckets];  ///< peer_rank's masks
  };
  struct staged_tile {
    Key keys[kTile];
    value_tile<Value, kTile> values;
    std::uint8_t buckets[StageBuckets ? kTile : 1];
  };
  input_tile in[2];
  union {
    rank_rows rank;
    staged_tile staged;
  } u;
  /// Output index of bucket b's tile place 0 (mod 2^32: base - tile start).
  std::uint32_t shift[kMultisplitTileMaxBuckets];
  /// The buckets' global starts, read from a tile-major matrix (copy_bucket_starts).
  std::uint32_t start[TileMajor ? kMultisplitTileMaxBuckets : 1];
  std::uint32_t total;  ///< the tile's valid items
  typename cub::BlockScan<std::uint32_t, Warps * 32>::TempStorage scan;
};

/// Starts the copy of tile t (its keys, and values for pairs) into `in`.
template <int Threads, class Tile, class Key, class Value>
__device__ __forceinline__ void load_wide_tile(Tile& in, const Key* keys, const Value* values, std::size_t n,
                                               std::size_t t) {
  constexpr int kTile = static_cast<int>(sizeof(in.keys) / sizeof(Key));
  load_tile_async<Threads, kTile>(keys, n, t * kTile, in.keys);
  if constexpr (kHasValues<Value>) load_tile_async<Threads, kTile>(values, n, t * kTile, in.values);
}

/// After the warps' ranks (rows.next holds each warp's counts): per bucket b
/// (thread b), the tile's start of b by a block scan of the buckets' totals;
/// rows.next[w][b] becomes the tile place of warp w's first item of b, and
/// shift[b] = base - start, where `base` is the bucket's output index for
/// this tile (the scanned matrix). Returns bucket b's count in the tile (0
/// for threads >= m). All threads call; m <= Warps * 32.
template <int Warps, class Storage>
__device__ __forceinline__ std::uint32_t wide_bucket_starts(Storage& s, std::uint32_t m, std::uint32_t base) {
  std::uint32_t before[Warps];  // earlier warps' items of bucket threadIdx.x
  std::uint32_t total = 0;
  if (threadIdx.x < m) {
#pragma unroll
    for (int w = 0; w < Warps; ++w) {
      before[w] = total;
      total += s.u.rank.next[w][threadIdx.x];
    }
  }
  std::uint32_t start = 0, all = 0;
  cub::BlockScan<std::uint32_t, Warps * 32>(s.scan).ExclusiveSum(total, start, all);
  if (threadIdx.x < m) {
#pragma unroll
    for (int w = 0; w < Warps; ++w) s.u.rank.next[w][threadIdx.x] = start + before[w];
    s.shift[threadIdx.x] = base - start;
  }
  if (threadIdx.x == 0) s.total = all;
  return total;
}

/// Writes a tile staged in bucket order (`staged`: keys, values for pairs
/// (packed pairs where packed_staging says so), and bucket bytes where StageBuckets-style storage carries them, else
/// the functor is applied again to the staged key): item i goes to shift[b] + i. Consecutive threads take consecutive
/// places of one bucket's run (mostly): the writes coalesce, and ask the L2 to keep their lines (kept_stores.cuh says
/// why). After the barrier that ends the staging.
template <int Threads, int Items, class Staged, class BucketOf, class Key, class Value>
__device__ __forceinline__ void write_in_bucket_order(const Staged& staged, const std::uint32_t* shift,
                                                      std::uint32_t total, const BucketOf& bucket_of, Key* keys_out,
                                                      Value* values_out) {
  constexpr bool kStageBuckets = std::is_same_v<BucketOf, bucket_ids_of>;
  const kept_stores out;  // the runs' partly written end sectors wait in the L2 for their other parts
  const auto write = [&](std::uint32_t i) {
    Key key;
    Value value{};
    if constexpr (packed_staging<Staged>) {
      const auto pair = staged.packed()[i];
      key = pair.key;
      value = pair.value;
    } else {
      key = staged.keys[i];
      if constexpr (kHasValues<Value>) value = staged.values[i];
    }
    std::uint32_t b;
    if constexpr (kStageBuckets) b = staged.buckets[i];
    else b = static_cast<std::uint32_t>(bucket_of(key));
    const std::uint32_t dst = shift[b] + i;
    out.store(keys_out + dst, key);
    if constexpr (kHasValues<Value>) out.store(values_out + dst, value);
  };
  // Keys: a whole tile without a test an item (classify_keys says why),
  // ~5% at every m with skewed ids (session 19). Pairs lost 1-3% with the
  // loop twice in their kernels (at 128 registers), so they test always.
  if (!kHasValues<Value> && total == Threads * Items) {
#pragma unroll 4  // fully unrolled, the hoisted loads of 16 items spilled at 64 registers
    for (int r = 0; r < Items; ++r) write(r * Threads + threadIdx.x);
  } else {
#pragma unroll 4
    for (int r = 0; r < Items; ++r)
      if (r * Threads + threadIdx.x < total) write(r * Threads + threadIdx.x);
  }
}

/// Splits tile t, already in `in` (and visible to every thread): rank,
/// stage in bucket order, write. `base`: this thread's bucket's output index
/// for the tile (threads < m). How: tile_rank::peer_masks ranks by
/// peer_rank, then adds each warp's first places; tile_rank::votes counts
/// first and places by vote_place. Returns this thread's bucket's count in
/// the tile. All threads call.
template <int Warps, int Items, tile_rank How, class Storage, class Tile, class Key, class Value, class BucketOf>
__device__ __forceinline__ std::uint32_t split_wide_tile(Storage& s, const Tile& in, std::size_t t, std::size_t n,
                                                         std::uint32_t m, const BucketOf& bucket_of, std::uint32_t base,
                                                         Key* keys_out, Value* values_out) {
  constexpr bool kStageBuckets = std::is_same_v<BucketOf, bucket_ids_of>;
  constexpr int kThreads = Warps * 32, kTile = Warps * 32 * Items;
  const unsigned warp = threadIdx.x / 32;
  // An item is valid when its bucket is below m: items past n and
  // out-of-range ids (counted by the pre-scan, dropped here) get bucket m.
  // After its rank an item's word is (tile place << 9) | bucket: one
  // register an item, no flags (with flags beside them, 16 items spilled
  // 8-24 bytes at 64 registers; now 0-20).
  constexpr int kBucketBits = 9;  // buckets 0..256
  constexpr std::uint32_t kBucketMask = (1u << kBucketBits) - 1;
  static_assert(std::size_t{kTile} << kBucketBits <= std::size_t{1} << 32, "tile places fit the item word");
  std::uint32_t item[Items];
  const std::size_t tile_first = t * kTile;
#pragma unroll
  for (int r = 0; r < Items; ++r) {
    const unsigned at = (warp * Items + r) * 32 + lane_id();  // warp-contiguous, as peer_rank's stability needs
    item[r] = m;
    if (tile_first + at < n) item[r] = min(bucket_of_item(bucket_of, in.keys[at], tile_first + at), m);
  }
  std::uint32_t* next = s.u.rank.next[warp];
  std::uint32_t count;  // of this thread's bucket in the tile
  if constexpr (How == tile_rank::peer_masks) {
    // Rank first (peer_rank counts as it ranks), then add the warp's first places.
    std::uint32_t* masks = s.u.rank.masks[warp];
    for (unsigned b = lane_id(); b < m; b += 32) next[b] = 0, masks[b] = 0;
    __syncwarp();
#pragma unroll
    for (int r = 0; r < Items; ++r) item[r] |= peer_rank(next, masks, item[r], item[r] < m) << kBucketBits;
    __syncthreads();  // every warp's counts are in
    count = wide_bucket_starts<Warps>(s, m, base);
    __syncthreads();  // warps' first places and shifts are in
#pragma unroll
    for (int r = 0; r < Items; ++r)
      if ((item[r] & kBucketMask) < m) item[r] += next[item[r] & kBucketMask] << kBucketBits;
  } else {
    // Count first (one shared atomic an item), then place by votes straight
    // from the warps' first places.
    for (unsigned b = lane_id(); b < m; b += 32) next[b] = 0;
    __syncwarp();
#pragma unroll
    for (int r = 0; r < Items; ++r)
      if (item[r] < m) atomicAdd(&next[item[r]], 1u);
    __syncthreads();  // every warp's counts are in
    count = wide_bucket_starts<Warps>(s, m, base);
    __syncthreads();  // warps' first places and shifts are in
#pragma unroll
    for (int r = 0; r < Items; ++r)
      item[r] |= vote_place(next, item[r] & kBucketMask, (item[r] & kBucketMask) < m) << kBucketBits;
  }
  __syncthreads();  // every place is read: the rows become the staged tile
#pragma unroll
  for (int r = 0; r < Items; ++r) {
    const std::uint32_t b = item[r] & kBucketMask, place = item[r] >> kBucketBits;
    if (b < m) {
      const unsigned at = (warp * Items + r) * 32 + lane_id();
      s.u.staged.keys[place] = in.keys[at];
      if constexpr (kHasValues<Value>) s.u.staged.values[place] = in.values[at];
      if constexpr (kStageBuckets) s.u.staged.buckets[place] = static_cast<std::uint8_t>(b);
    }
  }
  __syncthreads();
  write_in_bucket_order<kThreads, Items>(s.u.staged, s.shift, s.total, bucket_of, keys_out, values_out);
  return count;
}

/// The wide post-scan: a persistent grid (at most `tiles` blocks); block
/// `blockIdx.x` splits matrix tiles blockIdx.x, + gridDim.x, ... while the
/// next one's items arrive by cp.async into the other buffer, and its bucket
/// bases (read from the scanned matrix, tile-major where TileMajor:
/// column_scan.cuh's tile_cell) are read a tile ahead too. A matrix tile is
/// Sub tiles of Warps * 32 * Items items, split in turn, each one's bases its predecessor's plus its
/// counts: so the matrix of a method with larger tiles (block_wide_spread's
/// digit rank) serves this one. Tiles never wait on each other: every
/// matrix tile's bases come from the matrix. Dynamic shared memory:
/// sizeof(wide_storage). One kernel per warp rank (How): with both ranks
/// behind a runtime switch, the 64-register cap spilled 36-44 bytes for keys.
template <int Warps, int Items, int Sub, int MinBlocks, tile_rank How, bool TileMajor, class Key, class Value,
          class BucketOf>
__global__ void __launch_bounds__(Warps * 32, MinBlocks)
    wide_postscan(const Key* keys_in, const Value* values_in, Key* keys_out, Value* values_out, std::size_t n,
                  std::uint32_t m, BucketOf bucket_of, const std::uint32_t* scanned, std::size_t tiles,
                  choice_gate gate) {
  static_assert(Warps * 32 >= kMultisplitTileMaxBuckets, "wide_bucket_starts takes one bucket a thread");
  wait_for_prior_grid();      // not let_next_grid_start: see chained_launch.cuh
  if (gate.closed()) return;  // every block alike: before any barrier
  using storage = wide_storage<Warps, Items, Key, Value, std::is_same_v<BucketOf, bucket_ids_of>, TileMajor>;
  constexpr int kThreads = Warps * 32;
  constexpr std::size_t kTile = std::size_t{kThreads} * Items;
  extern __shared__ uint4 wide_shared[];
  storage& s = *reinterpret_cast<storage*>(wide_shared);
  if constexpr (TileMajor) copy_bucket_starts(scanned, tiles, m, s.start);
  const auto base_of = [&](std::size_t t) { return tile_cell<TileMajor>(scanned, tiles, m, s.start, t).x; };

  std::size_t t = blockIdx.x;  // the matrix tile
  int k = 0;                   // its tile being split
  load_wide_tile<kThreads>(s.in[0], keys_in, values_in, n, t * Sub);
  __pipeline_commit();
  std::uint32_t base = base_of(t);
  for (int buffer = 0; t < tiles; buffer ^= 1) {
    // The next tile in this block's order; buffer ^ 1 was last read before
    // the previous tile's final barrier. A matrix tile's last tiles may lie
    // past n (nothing to load, nothing valid to split).
    const bool next_column = k + 1 == Sub;
    const std::size_t next_t = next_column ? t + gridDim.x : t;
    const int next_k = next_column ? 0 : k + 1;
    const std::size_t next = next_t * Sub + next_k;
    if (next_t < tiles && next * kTile < n) load_wide_tile<kThreads>(s.in[buffer ^ 1], keys_in, values_in, n, next);
    __pipeline_commit();  // possibly empty: the wait below always leaves the newest group pending
    const std::uint32_t next_base = next_column && next_t < tiles ? base_of(next_t) : 0u;
    __pipeline_wait_prior(1);
    __syncthreads();  // the tile is in for every thread; the previous tile's writes have read the staging
    const std::uint32_t count =
        split_wide_tile<Warps, Items, How>(s, s.in[buffer], t * Sub + k, n, m, bucket_of, base, keys_out, values_out);
    base = next_column ? next_base : base + count;
    t = next_t;
    k = next_k;
  }
}

}  // namespace graphkit::multisplit_detail
