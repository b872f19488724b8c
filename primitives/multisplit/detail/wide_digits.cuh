// The pieces of the digit-ranked wide post-scan (method
// `block_wide_digits_one`, detail/wide_digits_one.cuh): the tile buffer, an
// item's word between its count and its place, the chunk classifiers, the
// per-thread digit count, and the persistent loop (alone, or with blocks
// in pairs that write consecutive tiles together), which is wide_postscan's
// (detail/wide_tile.cuh): a resident grid whose blocks take tile after tile
// while the next one arrives by cp.async into the other buffer. Session 14's
// `block_wide_digits` ordered each tile here by two 4-bit counter splits in
// a third buffer; the register split on the low bits that replaced its
// first split (session 16) tied it for keys and beat it for pairs, so it was
// removed (bench/NOTES.md multisplit steps 19 and 23).
//
// Bucket bases and counts per tile come from the scanned matrix (bucket-major,
// or tile-major for 8-bit keys: column_scan.cuh's tile_cell), so the bucket
// starts and the tile's item count are known before any item is ranked.
#pragma once

#include <cuda_pipeline_primitives.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "primitives/multisplit/detail/cluster_sync.cuh"
#include "primitives/multisplit/detail/column_scan.cuh"
#include "primitives/multisplit/detail/digit_rank.cuh"
#include "primitives/multisplit/detail/kernels.cuh"
#include "primitives/multisplit/detail/wide_tile.cuh"

namespace graphkit::multisplit_detail {

/// A tile of the digit-ranked post-scan, as loaded by cp.async and then
/// ordered in place. StageBuckets: bucket ids travel with the items
/// (bucket_ids_of reads them by input position).
template <int Warps, int Items, class Key, class Value, bool StageBuckets>
struct digit_tile {
  static constexpr int kTile = Warps * 32 * Items;
  /// The last split stores each pair side by side (packed_pair) over both arrays.
  static constexpr bool kPacked = kPackedPairs<Key, Value>;
  alignas(16) Key keys[kTile];
  alignas(16) value_tile<Value, kTile> values;
  alignas(16) std::uint8_t buckets[StageBuckets ? kTile : 1];
  /// The tile's pairs, packed, in the bytes of `keys` and then `values`.
  __device__ __forceinline__ packed_pair<Key, Value>* packed() {
    static_assert(offsetof(digit_tile, values) == sizeof(keys), "the packed pairs fill keys, then values");
    return reinterpret_cast<packed_pair<Key, Value>*>(keys);
  }
  __device__ __forceinline__ const packed_pair<Key, Value>* packed() const {
    return reinterpret_cast<const packed_pair<Key, Value>*>(keys);
  }
};

/// The bucket of an item in a register: its id when bucket_ids_of stages
/// ids (`staged`), else the functor's.
template <class BucketOf, class Key>
__device__ __forceinline__ std::uint32_t staged_bucket(const BucketOf& bucket_of, const Key& key,
                                                       std::uint32_t staged) {
  if constexpr (std::is_same_v<BucketOf, bucket_ids_of>) return staged;
  else return static_cast<std::uint32_t>(bucket_of(key));
}

/// An item's word between its count and its place: bits 0-8 its bucket
/// (kNoBucket: not in the tile's output), bits 25-31 its rank among the
/// chunk's items of its digit (a chunk has fewer than 128), and for the
/// counter split (count_digits) bits 9-24 the offset in its thread's
/// counter column (digit_counters::column) of the counter that the scan
/// turns into the chunk's first place of its digit. The store then reads
/// that place with one 16-bit load and one shift and mask, where it had
/// recomputed the counter's address from the bucket: 16 -> 9 instructions
/// an item (SASS of 6-bit keys, session 20; bench/NOTES.md multisplit
/// step 27 has the times).
inline constexpr std::uint32_t kNoBucket = 1u << 8;
inline constexpr std::uint32_t kItemBucketMask = 2 * kNoBucket - 1;
inline constexpr int kOffsetShift = 9;
inline constexpr int kRankShift = 25;

/// The buckets of this thread's chunk, its keys in registers (`chunk_first`:
/// the chunk's input index), into `item`. Items past n and out-of-range ids
/// are left out (kNoBucket: the pre-scan counted the latter); the matrix
/// counts only the rest, so the tile places are 0 .. total - 1.
template <int Items, class Key, class BucketOf>
__device__ __forceinline__ void classify_keys(const Key (&key)[Items], std::size_t chunk_first, std::size_t n,
                                              std::uint32_t m, const BucketOf& bucket_of,
                                              std::uint32_t (&item)[Items]) {
  const auto classify = [&](int r) {
    const std::uint32_t b = bucket_of_item(bucket_of, key[r], chunk_first + r);
    return b < m ? b : kNoBucket;
  };
  // The chunk's items below n: one 64-bit compare a chunk, not one an item.
  const unsigned in_range = n <= chunk_first ? 0u : n - chunk_first < Items ? unsigned(n - chunk_first) : Items;
  if (in_range == Items) {
    // Every chunk but the last tile's: no test an item. Behind one, a
    // functor of more than one instruction (the bench's skewed ids: clz,
    // min) was branched around, not predicated: 9% more instructions in
    // the pairs' post-scan at m = 32 (ncu, session 19).
#pragma unroll
    for (int r = 0; r < Items; ++r) item[r] = classify(r);
  } else {
#pragma unroll
    for (int r = 0; r < Items; ++r) item[r] = r < static_cast<int>(in_range) ? classify(r) : kNoBucket;
  }
}

/// classify_keys on this thread's chunk of a tile as loaded (`first`: the
/// chunk's first tile index), read from shared memory here.
template <int Items, class Tile, class BucketOf>
__device__ __forceinline__ void classify_chunk(const Tile& in, unsigned first, std::size_t chunk_first, std::size_t n,
                                               std::uint32_t m, const BucketOf& bucket_of,
                                               std::uint32_t (&item)[Items]) {
  using Key = std::remove_cv_t<std::remove_extent_t<decltype(in.keys)>>;
  Key key[Items];
  load_chunk<Items>(in.keys + first, key);
  classify_keys(key, chunk_first, n, m, bucket_of, item);
}

/// The buckets of this thread's chunk of a tile that an earlier split has
/// ordered (`first`: the chunk's first tile index; `key`: its keys in
/// registers): the valid items are places 0 .. total - 1, and their buckets
/// come from the functor again or, for bucket_ids_of, from the staged bytes.
template <int Items, class Tile, class Key, class BucketOf>
__device__ __forceinline__ void classify_placed(const Tile& from, unsigned first, std::uint32_t total,
                                                const BucketOf& bucket_of, const Key (&key)[Items],
                                                std::uint32_t (&item)[Items]) {
  const auto classify = [&](int r) {
    std::uint32_t staged = 0;
    if constexpr (std::is_same_v<BucketOf, bucket_ids_of>) staged = from.buckets[first + r];
    return staged_bucket(bucket_of, key[r], staged);
  };
  if (first + Items <= total) {  // no test an item (classify_keys says why)
#pragma unroll
    for (int r = 0; r < Items; ++r) item[r] = classify(r);
  } else {
#pragma unroll
    for (int r = 0; r < Items; ++r) item[r] = first + r < total ? classify(r) : kNoBucket;
  }
}

/// Counts a chunk's items by digit `(bucket >> Shift) & (2^Bits - 1)` into
/// the column of `thread` (the caller's threadIdx.x; zeroed first) and
/// records each valid item's counter offset and rank in its word (kNoBucket
/// items keep offset 0).
template <int Shift, int Items, class Counters>
__host__ __device__ __forceinline__ void count_digits(Counters& counters, unsigned thread,
                                                      std::uint32_t (&item)[Items]) {
  constexpr unsigned kMask = Counters::kDigits - 1;
  counters.zero_column(thread);
  std::uint16_t* column = counters.column(thread);
  for (int r = 0; r < Items; ++r) {
    if (item[r] != kNoBucket) {
      const std::uint32_t offset = Counters::offset_of((item[r] >> Shift) & kMask);
      item[r] |= offset << kOffsetShift | bump_counter(column, offset) << kRankShift;
    }
  }
}

/// A valid item's tile place after the counters' scan: its chunk's first
/// place of its digit (the counter at the offset that count_digits put in
/// its word, in `column`: the counting thread's) plus its rank there.
__host__ __device__ __forceinline__ std::uint32_t counted_place(const std::uint16_t* column, std::uint32_t word) {
  return read_counter(column, (word >> kOffsetShift) & 0xffffu) + (word >> kRankShift);
}

/// The persistent loop of the digit-ranked wide post-scan: block b takes
/// tile b first, then tiles in the order the blocks claim them from
/// `claims` (zeroed before the launch; tile gridDim.x + the count before
/// the claim), each claimed a tile ahead. The next tile arrives by cp.async
/// into the other buffer while `order_tile(in, t, cell)` puts tile t (in
/// `in`, visible to every thread) in bucket order and returns that order,
/// which is then written out; the next tile's matrix cells are read a tile
/// ahead. `order_tile` may leave the order in `in` itself: the buffer is
/// reloaded only after the next tile's first barrier.
///
/// Why claims, rather than tiles b + gridDim.x, b + 2 gridDim.x, ... (H100,
/// same runs, ms; the likely reason, not measured: with a fixed order the
/// blocks drift apart over their ~130 tiles each and the tiles in flight
/// spread over the input, where claimed ones stay a window). Session 19:
/// keys m = 2 / 16 / 64 / 128 uniform 1.150 / 1.183 / 1.364 / 1.576 ->
/// 1.110 / 1.166 / 1.323 / 1.539, pairs m = 16 / 64 / 256 0.972 / 1.034 /
/// 1.301 -> 0.965 / 1.028 / 1.265. 8-bit keys then kept the fixed order (m
/// = 256 uniform 1.868 -> 1.992); since session 20's faster counter-split
/// store they claim too: skewed m = 192 / 256 1.688 / 1.745 -> 1.603 /
/// 1.658, uniform m = 192 1.754 -> 1.764, and uniform m = 248-256, where a
/// tile writes ~20 keys a bucket, 2.35-2.54 -> 1.97-2.08 (bench/NOTES.md
/// multisplit step 27: the partial 32-byte sectors of those short runs).
template <int Threads, int Items, class Storage, class Key, class Value, class BucketOf, class OrderTile>
__device__ __forceinline__ void wide_digits_loop(Storage& s, const Key* keys_in, const Value* values_in, Key* keys_out,
                                                 Value* values_out, std::size_t n, std::uint32_t m,
                                                 const BucketOf& bucket_of, const std::uint32_t* scanned,
                                                 std::size_t tiles, std::uint32_t* claims, OrderTile order_tile) {
  if constexpr (Storage::kTileMajor) copy_bucket_starts(scanned, tiles, m, s.start);
  const auto cell_of = [&](std::size_t t) { return tile_cell<Storage::kTileMajor>(scanned, tiles, m, s.start, t); };

  std::size_t t = blockIdx.x;
  load_wide_tile<Threads>(s.in[0], keys_in, values_in, n, t);
  __pipeline_commit();
  uint2 cell = cell_of(t);
  const bool claimer = threadIdx.x == 0;  // thread 0 claims for its block
  if (claimer) s.next_tile = gridDim.x + atomicAdd(claims, 1u);
  __syncthreads();  // the second tile's claim is in
  for (int k = 0; t < tiles; k ^= 1) {
    const std::size_t next = s.next_tile;  // claimed before the last barrier
    const uint2 next_cell = next < tiles ? cell_of(next) : make_uint2(0u, 0u);
    __pipeline_wait_prior(0);
    __syncthreads();  // tile t is in for every thread; the previous tile's writes have read its bucket order
    // The claim after next: its answer is needed only at the barrier below, so the atomic's latency hides
    // behind the split (only thread 0 waits for it, at its store to s.next_tile).
    std::uint32_t claim = 0;
    if (claimer && next < tiles) claim = atomicAdd(claims, 1u);
    // Buffer k ^ 1 held the previous tile (in bucket order, or the input of its last split): loaded only now.
    if (next < tiles) load_wide_tile<Threads>(s.in[k ^ 1], keys_in, values_in, n, next);
    __pipeline_commit();
    const auto& ordered = order_tile(s.in[k], t, cell);
    if (claimer && next < tiles) s.next_tile = gridDim.x + claim;
    __syncthreads();  // the tile is in bucket order; the next claim is in
    write_in_bucket_order<Threads, Items>(ordered, s.shift, s.total, bucket_of, keys_out, values_out);
    cell = next_cell;
    t = next;
  }
}

/// wide_digits_loop for blocks in clusters of Cluster (sm_90; the grid a
/// whole number of clusters): the cluster's blocks take Cluster consecutive
/// tiles at a time, block rank r tile Cluster g + r of group g (group
/// blockIdx.x / Cluster first, then the groups that rank 0 claims from
/// `claims`), and each tile's write-out starts when every tile of its group
/// is in bucket order. So a bucket's 32-byte sector that ends one tile's run
/// and starts the next tile's gets both its parts at about the same time.
/// Why (H100, bench/NOTES.md multisplit step 29): with ~20 keys a bucket a
/// tile (8-bit ids, uniform) most such sectors are partial, and their parts
/// reaching L2 a few microseconds apart is what made those rows slow (step
/// 28). Keys at m = 224 / 256, uniform: 1.93 / 2.02 ms unpaired, 1.78 / 1.83
/// in pairs; skewed level (wide_digits_one_cluster has the rows). The
/// barrier is relaxed (cluster_sync.cuh says why) and must be tight: blocks
/// arriving after their register split and waiting only before the
/// write-out ran m = 256 in 2.00 ms. Clusters of 3 and 4 keep fewer blocks
/// resident (372 and 368 of 396) and ran m = 256 in 1.85 ms.
///
/// The claims: rank 0 claims the group of iteration j + 2 during iteration
/// j and stores its tile into slot (j + 2) % 4 of every block, tagged with
/// the iteration; a block reads slot (j + 1) % 4 at iteration j's start and
/// waits for the tag, which the relaxed barrier does not order (published
/// before the barrier that ends iteration j - 1, it is there or soon is).
/// Rank 0 rewrites a slot three barriers after every block read it. Two
/// ahead rather than three brings a group's tiles closer in time to their
/// neighbours' (step 34: uniform keys m = 256 1.727-1.746 -> 1.704-1.719 ms,
/// m = 224 1-1.5% faster, other rows level). The slots start cleared: a
/// short launch's tags repeat in the next launch's early iterations, and a
/// stale tile read there left the blocks of a cluster in different
/// iterations (a hang). A claim past the tiles ends every block of the
/// cluster in the same iteration; blocks whose tile of the last group is
/// past the tiles still meet the others.
template <int Threads, int Items, int Cluster, class Storage, class Key, class Value, class BucketOf, class OrderTile>
__device__ __forceinline__ void wide_digits_pair_loop(Storage& s, const Key* keys_in, const Value* values_in,
                                                      Key* keys_out, Value* values_out, std::size_t n, std::uint32_t m,
                                                      const BucketOf& bucket_of, const std::uint32_t* scanned,
                                                      std::size_t tiles, std::uint32_t* claims, OrderTile order_tile) {
  static_assert(sizeof(s.group_tiles) / sizeof(s.group_tiles[0]) == 4, "four slots: claims two iterations ahead");
  constexpr unsigned long long kTileBits = 40;
  const unsigned rank = cluster_block_rank();
  const bool claimer = rank == 0 && threadIdx.x == 0;
  const std::size_t first_claimed_group = gridDim.x / Cluster;
  const auto publish = [&](unsigned iteration, std::uint32_t claim) {
    const unsigned long long tag = static_cast<unsigned long long>(iteration) << kTileBits;
    for (unsigned r = 0; r < Cluster; ++r)
      store_in_block(&s.group_tiles[iteration % 4], r, tag | ((first_claimed_group + claim) * Cluster + r));
  };
  const auto tile_of_iteration = [&](unsigned iteration) {
    const unsigned long long tag = static_cast<unsigned long long>(iteration) << kTileBits;
    unsigned long long slot;
    do slot = load_fresh(&s.group_tiles[iteration % 4]);
    while ((slot & ~((1ull << kTileBits) - 1)) != tag);
    return static_cast<std::size_t>(slot & ((1ull << kTileBits) - 1));
  };

  std::size_t t = blockIdx.x;  // group blockIdx.x / Cluster, rank blockIdx.x % Cluster
  if (t < tiles) load_wide_tile<Threads>(s.in[0], keys_in, values_in, n, t);
  __pipeline_commit();
  if constexpr (Storage::kTileMajor) copy_bucket_starts(scanned, tiles, m, s.start);
  const auto cell_of = [&](std::size_t t) { return tile_cell<Storage::kTileMajor>(scanned, tiles, m, s.start, t); };
  uint2 cell = t < tiles ? cell_of(t) : make_uint2(0u, 0u);
  // Shared memory keeps an earlier launch's slots, whose tags a short launch repeats: cleared before the
  // barrier, after which rank 0 publishes.
  if (threadIdx.x < 4) s.group_tiles[threadIdx.x] = ~0ull;
  cluster_sync();  // every block of the cluster runs: its shared memory takes remote stores
  if (claimer) publish(1, atomicAdd(claims, 1u));
  for (unsigned j = 0; t - rank < tiles; ++j) {
    const std::size_t next = tile_of_iteration(j + 1);
    const uint2 next_cell = next < tiles ? cell_of(next) : make_uint2(0u, 0u);
    __pipeline_wait_prior(0);
    __syncthreads();  // tile t is in for every thread; the previous tile's writes have read its bucket order
    std::uint32_t claim = 0;
    if (claimer) claim = atomicAdd(claims, 1u);  // its answer is needed only at the meeting below
    if (next < tiles) load_wide_tile<Threads>(s.in[(j & 1) ^ 1], keys_in, values_in, n, next);
    __pipeline_commit();
    const auto meet = [&] {
      if (claimer) publish(j + 2, claim);
      __syncthreads();  // this block's tile is in bucket order
      cluster_meet_relaxed();
    };
    if (t < tiles) {
      const auto& ordered = order_tile(s.in[j & 1], t, cell);
      meet();
      write_in_bucket_order<Threads, Items>(ordered, s.shift, s.total, bucket_of, keys_out, values_out);
    } else {
      meet();  // the last group ends before this block's tile
    }
    cell = next_cell;
    t = next;
  }
  cluster_sync();  // rank 0's last stores into the other blocks have landed before any block exits
}

}  // namespace graphkit::multisplit_detail
