// GPU multisplit: stable bucketing of keys or key-value pairs into m buckets.
//
// Follows "GPU Multisplit" (Ashkiani, Davidson, Meyer, Owens, PPoPP 2016) and
// its extended study (ACM TOPC 2017): work is localized to warps or blocks,
// whose ranks come from warp votes; their histograms from votes (warp
// method) or shared-memory atomics (block method: faster on the H100); one
// global scan over the bucket-major histogram matrix gives every (bucket,
// warp-or-block) its output base; a post-scan reorders each warp's or block's
// keys by bucket in shared memory so the global writes coalesce.
//
//   pre-scan   read keys, histogram per unit    -> H[bucket][unit]
//   scan       exclusive sum over H             -> base[bucket][unit]
//   post-scan  read keys again, rank, reorder, scatter
//
// Methods (multisplit_method): `warp` (units are warps; ranks and counts in
// registers from ballots; m <= 32), `block` (units are blocks; warps rank by
// ballots or by peer masks (one shared-memory atomicOr an item), a
// shared-memory scan combines the warps; m <= 256; `block_votes` and
// `block_peers` force the warp rank, which `block` and `onesweep` choose by m),
// `block_wide` (m <= 256: the block method's pre-scan and scan on wider
// tiles, then a persistent post-scan that loads the next tile by cp.async
// while it splits the current one; see detail/wide_tile.cuh;
// `block_wide_digits_one` ranks its tiles by per-thread digit counters
// instead: one split of up to 6 bits, or past m = 64 a split on the low 2-3
// bits in registers and one of 5 bits, 8-bit keys on pairs of blocks
// (thread-block clusters, sm_90) that write neighbouring tiles together;
// detail/wide_digits_one.cuh;
// `block_wide_spread` counts once and lets the device pick between the two
// post-scans by how concentrated the ids are),
// `onesweep` (m <= 256, fewer than 2^30 items: a histogram pass, then one
// pass in which each tile ranks its items, gets its per-bucket offsets by
// decoupled look-back and scatters; see detail/onesweep.cuh), `radix_sort`
// (a stable CUB radix sort on the bucket-id bits; any m, the fallback past
// 256), and `automatic`: warp for m = 1, block for 2 <= m <= 256 (onesweep
// from tuning::kOnesweepMinBuckets up, which the H100 measurements put past
// 256: it loses or ties below; block_wide_digits_one for keys at 2 <= m <=
// 128 and for pairs at 2 <= m <= 64, block_wide_spread for keys past 128
// and pairs past 64, as measured), radix_sort beyond;
// all set in detail/dispatch.cuh.
// Offsets alone take the one-sweep histogram pass.
//
// Traffic: 12 bytes per 32-bit key (read twice, written once) for block and
// onesweep; 20 per pair of 32-bit key and value (values are read once). The
// block method adds an m x tiles histogram matrix (written, scanned, read
// back); onesweep adds m look-back words per tile of 4,096 keys or 2,048
// pairs (zeroed, published, read by the next tiles).
//
// Entry points: the device-level calls below; block_multisplit_tile
// (detail/block_rank.cuh) for a block that splits its own tile;
// warp_multisplit_reserve (warp_append.cuh) for warps appending to m <= 32
// lists.
//
// Host API: every call takes a multisplit_workspace that owns and reuses the
// temporary storage. `*_async` calls enqueue on the stream and return; the
// plain calls synchronize, check for out-of-range bucket ids (throwing
// graphkit::error naming the count), and return the m + 1 offsets. Bucket
// ids outside [0, m) are never written anywhere.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include <cuda_runtime_api.h>

#include "primitives/common/device_buffer.hpp"

namespace graphkit {

/// block_votes and block_peers are the block method with its warp rank
/// forced (see block_multisplit_tile's tile_rank); `block` takes the one
/// that dispatch.cuh's tuning sets for m. They are there to be measured
/// side by side (multisplit_bench). block_wide is the block method with
/// the wide post-scan (detail/wide_tile.cuh: persistent blocks, tiles of
/// 5,120 keys or 3,072 pairs arriving by cp.async while the previous tile
/// is split); m <= 256. block_wide_votes (counts first, then places by
/// votes) and block_wide_peers (peer-mask ranks) force its warp rank,
/// which block_wide chooses by m. block_wide_digits_one is block_wide with
/// the digit rank (detail/wide_digits_one.cuh): each tile ordered in place
/// by ONE stable split on a digit of ceil(log2 m) bits (at least 4) for m
/// <= 64, ranked by 16, 32 or 64 counters a thread (no votes, no peer
/// masks, no shared atomics), on tiles of 5,120 keys or 5,120 / 10,240 /
/// 10,240 pairs at 4 / 5 / 6 bits (pairs of 5 bits and more: one block of
/// 512 threads an SM); above 64 a stable split on the id's low 2 or 3 bits,
/// counted in registers, goes before a 5-bit split on the rest (6 bits'
/// tiles); m <= 256.
/// block_wide_spread runs block_wide_digits_one's pre-scan and matrix scan,
/// then the peer-mask post-scan where the ids are concentrated (few
/// effective buckets, from the offsets; each digit tile split as 1-4 tiles
/// of the peer masks' size) and the digit rank elsewhere, chosen on the
/// device so that the host never waits; m <= 256.
enum class multisplit_method {
  automatic,
  warp,
  block,
  radix_sort,
  onesweep,
  block_votes,
  block_peers,
  block_wide,
  block_wide_votes,
  block_wide_peers,
  block_wide_digits_one,
  block_wide_spread,
};

/// The method's name as written above ("automatic", "block_wide_peers", ...):
/// for benchmark rows, test traces and command-line choices.
constexpr const char* multisplit_method_name(multisplit_method method) {
  switch (method) {
    case multisplit_method::automatic: return "automatic";
    case multisplit_method::warp: return "warp";
    case multisplit_method::block: return "block";
    case multisplit_method::radix_sort: return "radix_sort";
    case multisplit_method::onesweep: return "onesweep";
    case multisplit_method::block_votes: return "block_votes";
    case multisplit_method::block_peers: return "block_peers";
    case multisplit_method::block_wide: return "block_wide";
    case multisplit_method::block_wide_votes: return "block_wide_votes";
    case multisplit_method::block_wide_peers: return "block_wide_peers";
    case multisplit_method::block_wide_digits_one: return "block_wide_digits_one";
    case multisplit_method::block_wide_spread: return "block_wide_spread";
  }
  return "unknown";
}

/// Largest m the warp and block methods take; radix_sort takes any m < 2^32.
inline constexpr std::uint32_t kMultisplitWarpMaxBuckets = 32;
inline constexpr std::uint32_t kMultisplitBlockMaxBuckets = 256;

/// Temporary device storage for multisplit calls, grown on demand and reused.
/// One workspace serves one stream at a time.
class multisplit_workspace {
 public:
  multisplit_workspace();

  /// Number of keys the last call found with a bucket id outside [0, m).
  /// Synchronizes the stream.
  [[nodiscard]] std::uint32_t out_of_range_count(cudaStream_t stream = nullptr) const;
  /// Throws graphkit::error if the last call met out-of-range bucket ids.
  void throw_if_out_of_range(std::uint32_t num_buckets, cudaStream_t stream = nullptr) const;

  // Used by the implementation.
  template <class T>
  T* scratch(device_buffer<T>& buffer, std::size_t count);
  device_buffer<std::uint32_t> histogram_;  ///< H, m * units + 1
  device_buffer<unsigned char> cub_temp_;
  device_buffer<std::uint32_t> ids_;  ///< radix_sort: bucket ids, sorted ids
  device_buffer<std::uint32_t> sorted_ids_;
  device_buffer<std::uint32_t> order_;  ///< radix_sort: permutation
  device_buffer<std::uint32_t> sorted_order_;
  device_buffer<std::uint32_t> out_of_range_;       ///< one counter
  device_buffer<std::uint32_t> onesweep_counters_;  ///< onesweep: bucket totals, block and tile counters
  device_buffer<std::uint32_t> lookback_;           ///< onesweep: m look-back words per tile
  device_buffer<std::uint32_t> spread_choice_;      ///< block_wide_spread: the post-scan chosen
  device_buffer<std::uint32_t> tile_claims_;        ///< the digit rank's post-scans: tiles claimed (direct, compacted)
  device_buffer<std::uint32_t> compact_tables_;     ///< block_wide_spread: compact ids of the occupied buckets
  device_buffer<std::uint32_t> compact_matrix_;     ///< block_wide_spread: the compacted split's matrix
};

/// Adapts precomputed bucket ids (one per key) to the bucket-functor slot:
/// pass `bucket_ids_of(d_ids)` where a functor is expected.
struct bucket_ids_of {
  const std::uint32_t* ids;
};

// ---- keys ------------------------------------------------------------------

/// Reorders n keys so that bucket 0 comes first, then 1, ...; stable.
/// `bucket_of` is a device callable Key -> uint32 in [0, m), or bucket_ids_of.
/// d_offsets receives m + 1 offsets (bucket b is [offsets[b], offsets[b+1])).
/// n must be below 2^32. d_keys_in and d_keys_out must not overlap.
template <class Key, class BucketOf>
void multisplit_keys_async(const Key* d_keys_in, Key* d_keys_out, std::size_t n, std::uint32_t num_buckets,
                           BucketOf bucket_of, std::uint32_t* d_offsets, multisplit_workspace& workspace,
                           cudaStream_t stream = nullptr, multisplit_method method = multisplit_method::automatic);

/// As multisplit_keys_async, then synchronizes, checks the bucket ids and
/// returns the offsets on the host.
template <class Key, class BucketOf>
std::vector<std::uint32_t> multisplit_keys(const Key* d_keys_in, Key* d_keys_out, std::size_t n,
                                           std::uint32_t num_buckets, BucketOf bucket_of,
                                           multisplit_workspace& workspace, cudaStream_t stream = nullptr,
                                           multisplit_method method = multisplit_method::automatic);

// ---- key-value pairs ---------------------------------------------------------

template <class Key, class Value, class BucketOf>
void multisplit_pairs_async(const Key* d_keys_in, const Value* d_values_in, Key* d_keys_out, Value* d_values_out,
                            std::size_t n, std::uint32_t num_buckets, BucketOf bucket_of, std::uint32_t* d_offsets,
                            multisplit_workspace& workspace, cudaStream_t stream = nullptr,
                            multisplit_method method = multisplit_method::automatic);

template <class Key, class Value, class BucketOf>
std::vector<std::uint32_t> multisplit_pairs(const Key* d_keys_in, const Value* d_values_in, Key* d_keys_out,
                                            Value* d_values_out, std::size_t n, std::uint32_t num_buckets,
                                            BucketOf bucket_of, multisplit_workspace& workspace,
                                            cudaStream_t stream = nullptr,
                                            multisplit_method method = multisplit_method::automatic);

// ---- offsets only -------------------------------------------------------------

/// Writes only the m + 1 bucket offsets (a histogram and its scan); no keys move.
template <class Key, class BucketOf>
void multisplit_offsets_async(const Key* d_keys_in, std::size_t n, std::uint32_t num_buckets, BucketOf bucket_of,
                              std::uint32_t* d_offsets, multisplit_workspace& workspace, cudaStream_t stream = nullptr);

template <class Key, class BucketOf>
std::vector<std::uint32_t> multisplit_offsets(const Key* d_keys_in, std::size_t n, std::uint32_t num_buckets,
                                              BucketOf bucket_of, multisplit_workspace& workspace,
                                              cudaStream_t stream = nullptr);

}  // namespace graphkit

#include "primitives/multisplit/detail/block_rank.cuh"
#include "primitives/multisplit/detail/dispatch.cuh"
