// The one-sweep method's kernels: a histogram pass, then one pass that ranks
// each tile, gets the tile's per-bucket output offsets by decoupled look-back
// (Merrill and Garland's single-pass scan, one look-back per bucket as in
// Adinets and Merrill's Onesweep radix sort) and scatters the tile staged in
// shared memory, sorted by bucket, so the writes coalesce.
//
// Why two passes and not one: an item's output place is the global start of
// its bucket (the totals of all smaller buckets over the WHOLE input) plus
// the items of its bucket in earlier tiles. Look-back gives the second term
// while the tiles stream; the first needs every tile counted before any
// tile writes, and the input does not fit on the chip. So the keys are read
// by a histogram pass (4 B/key, m counters per block, no per-tile matrix)
// and once more by the one-sweep pass (read 4 + write 4): 12 B/key, 20 B
// per pair of 32-bit key and value (the histogram reads keys only). The
// previous method moves the same bytes, but ranks twice and writes, scans
// and reads back an m x tiles matrix; here the per-tile state is the
// look-back words: m x 4 B per tile, zeroed by the histogram pass,
// published by the tile (aggregate, then inclusive, one L2 line each) and
// read by the next tiles mostly from L2.
#pragma once

#include <cub/block/block_scan.cuh>
#include <cuda/atomic>

#include <cstddef>
#include <cstdint>

#include "primitives/multisplit/detail/kernels.cuh"

namespace graphkit::multisplit_detail {

/// Look-back words: 2 flag bits over a 30-bit count, so the one-sweep method
/// takes fewer than 2^30 items per call (dispatch.cuh checks).
inline constexpr std::uint32_t kAggregateFlag = 1u << 30;  ///< the tile's own count
inline constexpr std::uint32_t kInclusiveFlag = 2u << 30;  ///< count of all tiles up to this one
inline constexpr std::uint32_t kCountMask = kAggregateFlag - 1;
inline constexpr std::size_t kOnesweepMaxItems = std::size_t{kCountMask};

/// Small counters the two passes share, zeroed by one memset per call.
struct onesweep_counters {
  std::uint32_t totals[kMultisplitTileMaxBuckets];  ///< items per bucket
  std::uint32_t blocks_done;                        ///< histogram blocks finished
  std::uint32_t next_tile;                          ///< tiles taken by the one-sweep pass
};

/// Histogram pass: every block counts tiles tile_stride apart into per-warp
/// counters, adds its block's counts to counters->totals, and zeroes its
/// share of the look-back words. The last block to finish writes the m + 1
/// offsets (exclusive scan of the totals), which the one-sweep pass reads as
/// the buckets' global starts. m <= 256 <= Warps * 32 (one bucket a thread
/// in the scan).
template <int Warps, int Items, class Key, class BucketOf>
__global__ void __launch_bounds__(Warps * 32)
    onesweep_histogram(const Key* keys, std::size_t n, std::uint32_t m, BucketOf bucket_of, bool vectorized,
                       onesweep_counters* counters, std::uint32_t* lookback, std::size_t lookback_words,
                       std::uint32_t* offsets, std::uint32_t* out_of_range) {
  static_assert(Warps * 32 >= kMultisplitTileMaxBuckets, "the scan takes one bucket per thread");
  using block_scan = cub::BlockScan<std::uint32_t, Warps * 32>;
  __shared__ std::uint32_t warp_counts[Warps][kMultisplitTileMaxBuckets];
  __shared__ typename block_scan::TempStorage scan;
  __shared__ bool last_block;
  constexpr std::size_t kTile = std::size_t{Warps} * 32 * Items;

  for (std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x; i < lookback_words;
       i += std::size_t{gridDim.x} * blockDim.x)
    lookback[i] = 0;

  const unsigned warp = threadIdx.x / 32;
  const int bits = m <= 1 ? 0 : 32 - __clz(m - 1);
  for (unsigned b = lane_id(); b < kMultisplitTileMaxBuckets; b += 32) warp_counts[warp][b] = 0;
  __syncwarp();
  ballot_ranker ranker;
  std::uint32_t bad = 0;
  for (std::size_t tile_first = blockIdx.x * kTile; tile_first < n; tile_first += gridDim.x * kTile)
    count_tile<Warps, Items>(keys, n, tile_first, m, bits, bucket_of, vectorized, ranker, warp_counts[warp], bad);
  report_out_of_range(bad, out_of_range);
  block_counts(warp_counts, ranker, m, [&](unsigned b, std::uint32_t sum) {
    if (sum != 0) atomicAdd(&counters->totals[b], sum);
  });
  // The last block sees every block's totals (classic threadfence reduction).
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) last_block = atomicAdd(&counters->blocks_done, 1u) == gridDim.x - 1;
  __syncthreads();
  if (!last_block) return;
  __threadfence();
  const std::uint32_t total = threadIdx.x < m ? __ldcg(&counters->totals[threadIdx.x]) : 0;
  std::uint32_t start = 0, all = 0;
  block_scan(scan).ExclusiveSum(total, start, all);
  if (threadIdx.x < m) offsets[threadIdx.x] = start;
  if (threadIdx.x == 0) offsets[m] = all;
}

/// The one-sweep pass: one block per tile, tiles taken in launch order from
/// counters->next_tile (a tile only waits on tiles whose blocks are running
/// already, so look-back cannot deadlock). `offsets` holds the buckets'
/// global starts from the histogram pass; lookback has m words per tile,
/// zeroed.
template <int Warps, int Items, class Key, class Value, class BucketOf>
__global__ void __launch_bounds__(Warps * 32)
    onesweep_scatter(const Key* keys_in, const Value* values_in, Key* keys_out, Value* values_out, std::size_t n,
                     std::uint32_t m, BucketOf bucket_of, const std::uint32_t* offsets, onesweep_counters* counters,
                     std::uint32_t* lookback) {
  __shared__ split_tile_storage<Warps, Items, Key, Value> s;
  __shared__ std::uint32_t tile_index;

  if (threadIdx.x == 0) tile_index = atomicAdd(&counters->next_tile, 1u);
  __syncthreads();
  const std::size_t t = tile_index;
  const unsigned warp = threadIdx.x / 32;
  const std::size_t first = (t * Warps + warp) * 32 * Items + lane_id();
  Key key[Items];
  value_tile<Value, Items> value;
  std::uint32_t bucket[Items], position[Items];
  bool valid[Items];
  std::uint32_t bad = 0;  // counted by the histogram pass already
  load_items(keys_in, n, first, m, bucket_of, key, bucket, valid, bad);
  load_values<Items>(values_in, n, first, value);
  block_multisplit_tile<Warps, Items>::rank(s.rank, bucket, valid, m, position);

  // Thread b publishes and looks back for bucket b.
  for (unsigned b = threadIdx.x; b < m; b += Warps * 32) {
    const std::uint32_t count = s.rank.bucket_start[b + 1] - s.rank.bucket_start[b];
    cuda::atomic_ref<std::uint32_t, cuda::thread_scope_device> own(lookback[t * m + b]);
    std::uint32_t before = 0;  // bucket b's items in tiles 0 .. t - 1
    if (t != 0) {
      own.store(kAggregateFlag | count, cuda::std::memory_order_relaxed);
      for (std::size_t p = t - 1;; --p) {
        cuda::atomic_ref<std::uint32_t, cuda::thread_scope_device> word_of(lookback[p * m + b]);
        std::uint32_t word;
        do {
          word = word_of.load(cuda::std::memory_order_relaxed);
        } while ((word & ~kCountMask) == 0);
        before += word & kCountMask;
        if (word & kInclusiveFlag) break;
      }
    }
    own.store(kInclusiveFlag | (before + count), cuda::std::memory_order_relaxed);
    // Output place of the tile's i-th item of bucket b = base[b] + i.
    s.base[b] = offsets[b] + before - s.rank.bucket_start[b];
  }

  stage_and_scatter(s, m, key, value, bucket, valid, position, keys_out, values_out,
                    [&](std::uint32_t i, std::uint32_t b) { return s.base[b] + i; });
}

}  // namespace graphkit::multisplit_detail
