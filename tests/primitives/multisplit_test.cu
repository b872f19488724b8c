// Multisplit against a host model (a stable counting sort by bucket), for
// every m in 1..300, every method, edge sizes, adversarial id patterns,
// out-of-range ids, and 2^27 items.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <utility>

#include "primitives/multisplit/multisplit.cuh"
#include "tests/common/gpu_support.hpp"
#include "tests/common/test_support.hpp"

namespace graphkit {
namespace {

// Keys carry their bucket in the top 12 bits and their input position in the
// low 20, so that stability shows in the keys themselves.
constexpr int kIndexBits = 20;
struct top_bits_bucket {
  __host__ __device__ std::uint32_t operator()(std::uint32_t key) const { return key >> kIndexBits; }
};
struct mod_bucket {
  std::uint32_t m;
  __host__ __device__ std::uint32_t operator()(std::uint32_t key) const { return key % m; }
};
struct u64_bucket {
  std::uint32_t m;
  __host__ __device__ std::uint32_t operator()(std::uint64_t key) const {
    return static_cast<std::uint32_t>(key >> 40) % m;
  }
};

constexpr multisplit_method kAllMethods[] = {multisplit_method::warp,
                                             multisplit_method::block,
                                             multisplit_method::block_votes,
                                             multisplit_method::block_peers,
                                             multisplit_method::block_wide,
                                             multisplit_method::block_wide_votes,
                                             multisplit_method::block_wide_peers,
                                             multisplit_method::block_wide_digits_one,
                                             multisplit_method::block_wide_spread,
                                             multisplit_method::onesweep,
                                             multisplit_method::radix_sort,
                                             multisplit_method::automatic};
// The methods that rank tiles with block_multisplit_tile, each warp rank
// forced or chosen by m, and the wide post-scan with each of its ranks.
constexpr multisplit_method kTileMethods[] = {multisplit_method::block_votes,
                                              multisplit_method::block_peers,
                                              multisplit_method::block,
                                              multisplit_method::block_wide,
                                              multisplit_method::block_wide_votes,
                                              multisplit_method::block_wide_peers,
                                              multisplit_method::block_wide_digits_one,
                                              multisplit_method::block_wide_spread,
                                              multisplit_method::onesweep};
// The wide post-scan's two warp ranks, forced, the wide post-scan with the
// digit rank, and the one that chooses between peer masks and digits.
constexpr multisplit_method kWideMethods[] = {multisplit_method::block_wide_votes, multisplit_method::block_wide_peers,
                                              multisplit_method::block_wide_digits_one,
                                              multisplit_method::block_wide_spread};

// A wide method's tile size at m for 32-bit keys, or pairs of 32-bit words
// (block_wide_digits_one's depends on m: its digit width; block_wide_spread
// counts on the same tiles).
std::size_t wide_tile_of(multisplit_method method, std::uint32_t m, bool pairs) {
  using multisplit_detail::no_value;
  using multisplit_detail::tuning;
  const bool digits =
      method == multisplit_method::block_wide_digits_one || method == multisplit_method::block_wide_spread;
  if (digits)
    return pairs ? multisplit_detail::digits_one_tile<std::uint32_t, std::uint32_t>(m)
                 : multisplit_detail::digits_one_tile<std::uint32_t, no_value>(m);
  const int items =
      pairs ? tuning::wide_items<std::uint32_t, std::uint32_t>() : tuning::wide_items<std::uint32_t, no_value>();
  return std::size_t{tuning::kWarps} * 32 * items;
}

bool method_takes(multisplit_method method, std::uint32_t m) {
  switch (method) {
    case multisplit_method::warp: return m <= kMultisplitWarpMaxBuckets;
    case multisplit_method::block:
    case multisplit_method::block_votes:
    case multisplit_method::block_peers:
    case multisplit_method::block_wide:
    case multisplit_method::block_wide_votes:
    case multisplit_method::block_wide_peers:
    case multisplit_method::block_wide_digits_one:
    case multisplit_method::block_wide_spread:
    case multisplit_method::onesweep: return m <= kMultisplitBlockMaxBuckets;
    default: return true;
  }
}

struct model {
  std::vector<std::uint32_t> order;    // input positions, bucket by bucket, stable
  std::vector<std::uint32_t> offsets;  // m + 1
};

// Ids outside [0, m) are dropped, as multisplit drops them.
model stable_split(const std::vector<std::uint32_t>& ids, std::uint32_t m) {
  model out;
  out.offsets.assign(std::size_t{m} + 1, 0);
  for (const std::uint32_t b : ids)
    if (b < m) ++out.offsets[b + 1];
  std::partial_sum(out.offsets.begin(), out.offsets.end(), out.offsets.begin());
  out.order.resize(out.offsets[m]);
  std::vector<std::uint32_t> cursor(out.offsets.begin(), out.offsets.end() - 1);
  for (std::uint32_t i = 0; i < ids.size(); ++i)
    if (ids[i] < m) out.order[cursor[ids[i]]++] = i;
  return out;
}

// Makes about one id in `every` out of range (>= m), at random places, so
// that invalid items fall inside warps; returns how many.
std::size_t spoil_ids(std::vector<std::uint32_t>& ids, std::uint32_t m, std::uint32_t every, std::mt19937_64& rng) {
  std::size_t bad = 0;
  for (auto& id : ids)
    if (rng() % every == 0) id = m + static_cast<std::uint32_t>(rng() % 100), ++bad;
  return bad;
}

enum class pattern { uniform, skewed, alternating, sorted, reversed, one_bucket, two_ends, zipf };

std::vector<std::uint32_t> make_ids(std::size_t n, std::uint32_t m, pattern p, std::mt19937_64& rng) {
  std::vector<std::uint32_t> ids(n);
  for (std::size_t i = 0; i < n; ++i) {
    switch (p) {
      case pattern::uniform: ids[i] = static_cast<std::uint32_t>(rng() % m); break;
      case pattern::skewed:
        ids[i] = std::min<std::uint32_t>(m - 1, static_cast<std::uint32_t>(__builtin_clzll(rng() | 1)));
        break;
      case pattern::alternating: ids[i] = static_cast<std::uint32_t>(i % 2 ? m - 1 : 0); break;
      case pattern::sorted: ids[i] = static_cast<std::uint32_t>(i * m / std::max<std::size_t>(n, 1)); break;
      case pattern::reversed: ids[i] = m - 1 - static_cast<std::uint32_t>(i * m / std::max<std::size_t>(n, 1)); break;
      case pattern::one_bucket: ids[i] = m / 2; break;
      case pattern::two_ends: ids[i] = rng() % 2 ? m - 1 : 0; break;
      case pattern::zipf: break;
    }
  }
  if (p == pattern::zipf) {  // P(bucket b) proportional to 1 / (b + 1), ids shuffled so bucket 0 is not special
    std::vector<double> weights(m);
    for (std::uint32_t b = 0; b < m; ++b) weights[b] = 1.0 / (b + 1);
    std::discrete_distribution<std::uint32_t> zipf(weights.begin(), weights.end());
    std::vector<std::uint32_t> relabel(m);
    std::iota(relabel.begin(), relabel.end(), 0u);
    std::shuffle(relabel.begin(), relabel.end(), rng);
    for (auto& id : ids) id = relabel[zipf(rng)];
  }
  return ids;
}

std::vector<std::uint32_t> encode(const std::vector<std::uint32_t>& ids) {
  std::vector<std::uint32_t> keys(ids.size());
  for (std::size_t i = 0; i < ids.size(); ++i) keys[i] = (ids[i] << kIndexBits) | (i & ((1u << kIndexBits) - 1));
  return keys;
}

// The offsets of an async call, once the stream is done; out-of-range ids
// are left for the caller to check (the synchronous calls would throw).
template <class Split>
std::vector<std::uint32_t> offsets_of_async(std::uint32_t m, Split split) {
  device_buffer<std::uint32_t> d_offsets(std::size_t{m} + 1);
  split(d_offsets.data());
  return d_offsets.to_host();
}

// Runs one configuration and compares keys (and values = input positions),
// offsets, and that nothing past the output was written. Ids outside
// [0, m) go through the async calls, which must count and drop them.
void check_split(const std::vector<std::uint32_t>& ids, std::uint32_t m, multisplit_method method, bool pairs,
                 bool precomputed, multisplit_workspace& ws) {
  SCOPED_TRACE(std::string(multisplit_method_name(method)) + (pairs ? " pairs" : " keys") +
               (precomputed ? " precomputed ids" : "") + ", m " + std::to_string(m) + ", n " +
               std::to_string(ids.size()));
  const std::size_t n = ids.size();
  const std::vector<std::uint32_t> keys = encode(ids);
  std::vector<std::uint32_t> values(n);
  std::iota(values.begin(), values.end(), 0u);
  constexpr std::size_t kGuard = 64;
  device_buffer<std::uint32_t> d_keys{std::span<const std::uint32_t>(keys)},
      d_values{std::span<const std::uint32_t>(values)}, d_ids{std::span<const std::uint32_t>(ids)},
      d_keys_out(n + kGuard), d_values_out(n + kGuard);
  d_keys_out.fill_bytes(0xab);
  d_values_out.fill_bytes(0xab);
  const auto bad = static_cast<std::size_t>(std::count_if(ids.begin(), ids.end(), [&](auto b) { return b >= m; }));
  std::vector<std::uint32_t> offsets;
  if (bad != 0) {
    const auto split = [&](auto bucket_of) {
      return offsets_of_async(m, [&](std::uint32_t* d_offsets) {
        if (pairs)
          multisplit_pairs_async(d_keys.data(), d_values.data(), d_keys_out.data(), d_values_out.data(), n, m,
                                 bucket_of, d_offsets, ws, nullptr, method);
        else multisplit_keys_async(d_keys.data(), d_keys_out.data(), n, m, bucket_of, d_offsets, ws, nullptr, method);
      });
    };
    offsets = precomputed ? split(bucket_ids_of{d_ids.data()}) : split(top_bits_bucket{});
    EXPECT_EQ(ws.out_of_range_count(), bad);
  } else if (pairs) {
    offsets = precomputed ? multisplit_pairs(d_keys.data(), d_values.data(), d_keys_out.data(), d_values_out.data(), n,
                                             m, bucket_ids_of{d_ids.data()}, ws, nullptr, method)
                          : multisplit_pairs(d_keys.data(), d_values.data(), d_keys_out.data(), d_values_out.data(), n,
                                             m, top_bits_bucket{}, ws, nullptr, method);
  } else {
    offsets =
        precomputed
            ? multisplit_keys(d_keys.data(), d_keys_out.data(), n, m, bucket_ids_of{d_ids.data()}, ws, nullptr, method)
            : multisplit_keys(d_keys.data(), d_keys_out.data(), n, m, top_bits_bucket{}, ws, nullptr, method);
  }
  const model expected = stable_split(ids, m);
  ASSERT_EQ(offsets, expected.offsets);
  const std::vector<std::uint32_t> got_keys = d_keys_out.to_host(), got_values = d_values_out.to_host();
  const std::size_t written = n - bad;
  for (std::size_t i = 0; i < written; ++i) {
    ASSERT_EQ(got_keys[i], keys[expected.order[i]]) << "output " << i;
    if (pairs) ASSERT_EQ(got_values[i], expected.order[i]) << "output " << i;
  }
  for (std::size_t i = written; i < n + kGuard; ++i) {
    ASSERT_EQ(got_keys[i], 0xabababab) << "place " << i << " (of " << written << " written) overwritten";
    ASSERT_EQ(got_values[i], 0xabababab) << "place " << i << " (of " << written << " written) overwritten";
  }
}

TEST(Multisplit, EveryBucketCountFrom1To300) {
  GRAPHKIT_REQUIRE_GPU();
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  std::mt19937_64 rng(seed);
  multisplit_workspace ws;
  for (std::uint32_t m = 1; m <= 300; ++m) {
    const auto ids = make_ids(rng() % 6000, m, m % 5 == 0 ? pattern::skewed : pattern::uniform, rng);
    check_split(ids, m, multisplit_method::automatic, m % 3 == 0, m % 7 == 0, ws);
    if (HasFatalFailure()) return;
  }
}

TEST(Multisplit, EveryMethodOnEdgeSizesAndPatterns) {
  GRAPHKIT_REQUIRE_GPU();
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  std::mt19937_64 rng(seed);
  multisplit_workspace ws;
  for (const std::uint32_t m : {1u, 2u, 3u, 31u, 32u, 33u, 255u, 256u, 257u, 1000u}) {
    for (const std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{31}, std::size_t{33}, std::size_t{2047},
                                std::size_t{2049}, std::size_t{40001}}) {
      for (const pattern p : {pattern::uniform, pattern::skewed, pattern::alternating, pattern::sorted,
                              pattern::reversed, pattern::one_bucket, pattern::two_ends}) {
        const auto ids = make_ids(n, m, p, rng);
        for (const multisplit_method method : kAllMethods) {
          if (!method_takes(method, m)) continue;
          check_split(ids, m, method, (n + m) % 2 == 0, false, ws);
          if (HasFatalFailure()) return;
        }
      }
    }
  }
}

// The block method's two warp ranks (votes, peer masks), `block` with the
// rank it picks by m, and onesweep, at bucket counts on either side of each
// rank's thresholds (9: votes become peers by default; 33: shared_rank),
// uniform and skewed ids, tails of partial warps and tiles (a pair tile and
// a key tile are 2,048 items for the block method), and invalid items
// inside warps (out-of-range ids).
TEST(Multisplit, TileRanksOnBucketCountsTailsAndInvalidItems) {
  GRAPHKIT_REQUIRE_GPU();
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  std::mt19937_64 rng(seed);
  multisplit_workspace ws;
  for (const std::uint32_t m : {2u, 9u, 16u, 32u, 33u, 64u, 200u, 256u}) {
    for (const std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{45}, std::size_t{2048},
                                std::size_t{2049} + rng() % 2000, std::size_t{9 * 2048 + 7}}) {
      for (const pattern p : {pattern::uniform, pattern::skewed}) {
        for (const bool spoiled : {false, true}) {
          auto ids = make_ids(n, m, p, rng);
          if (spoiled) spoil_ids(ids, m, 7, rng);
          for (const multisplit_method method : kTileMethods) {
            check_split(ids, m, method, rng() % 2 == 0, rng() % 4 == 0, ws);
            if (HasFatalFailure()) return;
          }
        }
      }
    }
  }
}

// Many tiles and every bucket in each warp at once (uniform m = 256 puts
// up to 8 lanes of a warp on one bank of the peer masks).
TEST(Multisplit, TileRanksOnManyTiles) {
  GRAPHKIT_REQUIRE_GPU();
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  std::mt19937_64 rng(seed);
  multisplit_workspace ws;
  const std::size_t n = (std::size_t{1} << 19) + rng() % 10000;
  for (const std::uint32_t m : {9u, 33u, 256u}) {
    for (const pattern p : {pattern::uniform, pattern::zipf}) {
      const auto ids = make_ids(n, m, p, rng);
      for (const multisplit_method method : {multisplit_method::block_votes, multisplit_method::block_peers}) {
        check_split(ids, m, method, p == pattern::zipf, false, ws);
        if (HasFatalFailure()) return;
      }
    }
  }
}

// The wide post-scans (block_wide with each warp rank forced, and
// block_wide_digits_one), at every m from 2 to 256,
// keys and pairs, uniform and skewed ids: sizes 0 and 1, the method's tile
// size at m (5,120 keys; 3,072 pairs, and 5,120 / 10,240 for
// block_wide_digits_one at 4 / 5-8 bits: 512 threads from 5 bits) and one either
// side, several tiles plus a tail, and ids out of range inside warps; functor and precomputed ids (the
// staged tile carries the ids of bucket_ids_of, and the functor is applied
// again otherwise).
TEST(Multisplit, BlockWideEveryBucketCountAroundTileSizes) {
  GRAPHKIT_REQUIRE_GPU();
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  std::mt19937_64 rng(seed);
  multisplit_workspace ws;
  using multisplit_detail::tuning;
  for (std::uint32_t m = 2; m <= 256; ++m) {
    for (const bool pairs : {false, true}) {
      for (const multisplit_method method : kWideMethods) {
        const std::size_t tile = wide_tile_of(method, m, pairs);
        // Every m: one size drawn from the edges, one of several tiles and a tail.
        const std::size_t edges[] = {0, 1, 31, tile - 1, tile, tile + 1};
        for (const std::size_t n : {edges[rng() % 6], 3 * tile + 1 + rng() % (tile - 1)}) {
          for (const pattern p : {pattern::uniform, pattern::skewed}) {
            auto ids = make_ids(n, m, p, rng);
            if (m % 3 == 0) spoil_ids(ids, m, 11, rng);
            check_split(ids, m, method, pairs, m % 4 == 1, ws);
            if (HasFatalFailure()) return;
          }
        }
      }
    }
  }
  // And every edge size of every wide tile at the m where automatic first
  // hands to block_wide_digits_one and to block_wide (256 where tuning turns it off), where
  // block_wide_digits_one widens its digit (16 / 17: 4 -> 5 bits, 32 / 33:
  // 5 -> 6, 64 / 65: 6 bits -> a 1-bit register split first, 128 / 129: 1
  // -> 2 bits), and at the last (both ranks are forced: where block_wide
  // switches ranks needs no m of its own).
  for (const std::uint32_t m : {tuning::kDigitsMinBuckets, std::min(tuning::kWideMinBuckets, 256u), 16u, 17u, 32u, 33u,
                                64u, 65u, 128u, 129u, 256u}) {
    // The tile sizes at m (block_wide_digits_one's follow its digit width).
    std::vector<std::size_t> sizes{0, 1, 2047};
    for (const multisplit_method method : kWideMethods)
      for (const bool pairs : {false, true}) {
        const std::size_t tile = wide_tile_of(method, m, pairs);
        sizes.insert(sizes.end(), {tile - 1, tile, tile + 1});
      }
    for (const bool pairs : {false, true}) {
      for (const std::size_t n : sizes) {
        for (const pattern p : {pattern::uniform, pattern::skewed, pattern::one_bucket}) {
          const auto ids = make_ids(n, m, p, rng);
          for (const multisplit_method method : kWideMethods) {
            check_split(ids, m, method, pairs, n % 2 == 0, ws);
            if (HasFatalFailure()) return;
          }
        }
      }
    }
  }
}

// The wide post-scans' persistent blocks split several tiles each, through
// both cp.async buffers in turn: inputs of several resident waves (a wave is
// about 132 SMs x 3 blocks x 5,120 keys on an H100), uniform, skewed and
// Zipf ids, with out-of-range ids; m = 16 / 17 / 32 / 33 / 64 / 65 / 128 / 256 for
// block_wide_digits_one's 4-, 5- and 6-bit digits and its register split
// on 1 and 2 low bits.
TEST(Multisplit, BlockWideManyTilesPerBlock) {
  GRAPHKIT_REQUIRE_GPU();
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  std::mt19937_64 rng(seed);
  multisplit_workspace ws;
  const std::size_t n = (std::size_t{1} << 23) + rng() % 100000;
  for (const std::uint32_t m : {16u, 17u, 32u, 33u, 64u, 65u, 128u, 256u}) {
    for (const pattern p : {pattern::uniform, pattern::skewed, pattern::zipf}) {
      auto ids = make_ids(n, m, p, rng);
      if (p == pattern::zipf) spoil_ids(ids, m, 1000, rng);
      for (const multisplit_method method : kWideMethods) {
        check_split(ids, m, method, p != pattern::uniform, p == pattern::skewed, ws);
        if (HasFatalFailure()) return;
      }
    }
  }
}

// block_wide_digits_one at every width: one counter split of 4, 5 or 6
// bits, and past 64 buckets the register split on the low 2 or 3 bits,
// then the 5-bit counter split; pairs of 5 bits and more on blocks of 512
// threads: a few tiles and a tail, keys and pairs, functor and staged ids,
// ids out of range inside warps. Small enough to run under
// compute-sanitizer's memcheck and racecheck.
TEST(Multisplit, DigitsOneEveryWidthOnAFewTiles) {
  GRAPHKIT_REQUIRE_GPU();
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  std::mt19937_64 rng(seed);
  multisplit_workspace ws;
  for (const std::uint32_t m : {16u, 17u, 32u, 33u, 64u, 65u, 128u, 129u, 256u}) {
    for (const bool pairs : {false, true}) {
      const std::size_t tile = wide_tile_of(multisplit_method::block_wide_digits_one, m, pairs);
      const std::size_t n = 3 * tile + rng() % tile;
      for (const pattern p : {pattern::uniform, pattern::skewed, pattern::zipf}) {
        auto ids = make_ids(n, m, p, rng);
        if (p != pattern::uniform) spoil_ids(ids, m, 500, rng);
        check_split(ids, m, multisplit_method::block_wide_digits_one, pairs, p == pattern::skewed, ws);
        if (HasFatalFailure()) return;
      }
    }
  }
}

// block_wide_digits_one's persistent blocks on three or four tiles each
// (at most 3 blocks an SM): the tiles claimed in order across blocks, each
// block's next tile loaded while it splits the current one, a tail; ids
// out of range. Small enough for compute-sanitizer's racecheck.
TEST(Multisplit, DigitsOneBlocksTakeSeveralTilesEach) {
  GRAPHKIT_REQUIRE_GPU();
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  std::mt19937_64 rng(seed);
  multisplit_workspace ws;
  for (const std::uint32_t m : {16u, 128u, 256u}) {
    for (const bool pairs : {false, true}) {
      const std::size_t tile = wide_tile_of(multisplit_method::block_wide_digits_one, m, pairs);
      const std::size_t n = (3 * 3 * std::size_t{device_sm_count()} + rng() % 3) * tile + rng() % tile;
      const pattern p = rng() % 2 == 0 ? pattern::uniform : pattern::skewed;
      auto ids = make_ids(n, m, p, rng);
      spoil_ids(ids, m, 200, rng);
      check_split(ids, m, multisplit_method::block_wide_digits_one, pairs, p == pattern::skewed, ws);
      if (HasFatalFailure()) return;
    }
  }
}

// 8-bit keys run block_wide_digits_one's blocks in pairs where the GPU has
// clusters (wide_digits_pair_loop): a pair takes two consecutive tiles, and
// when the tiles are odd in number the last pair's second block only meets
// the first. Tile counts of 1 (one pair, its second block idle), 2 and 3,
// each with a tail and without, then more pairs than stay resident, back to
// back: each launch starts on the shared memory that the last one left,
// whose tags a short launch repeats (a stale one hung the pair). Ids out
// of range, functor and staged ids. Small enough for racecheck.
TEST(Multisplit, DigitsOnePairedBlocksOnShortAndOddTileCounts) {
  GRAPHKIT_REQUIRE_GPU();
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  std::mt19937_64 rng(seed);
  multisplit_workspace ws;
  for (const std::uint32_t m : {129u, 256u}) {
    const std::size_t tile = wide_tile_of(multisplit_method::block_wide_digits_one, m, false);
    const std::size_t many = (2 * 3 * std::size_t{device_sm_count()} + 1) * tile + rng() % tile;
    for (const std::size_t n : {std::size_t{1}, tile - 1, tile, tile + 1 + rng() % tile, 2 * tile,
                                2 * tile + 1 + rng() % tile, 3 * tile, many}) {
      for (const bool precomputed : {false, true}) {
        const pattern p = rng() % 2 == 0 ? pattern::uniform : pattern::skewed;
        auto ids = make_ids(n, m, p, rng);
        spoil_ids(ids, m, 300, rng);
        check_split(ids, m, multisplit_method::block_wide_digits_one, false, precomputed, ws);
        if (HasFatalFailure()) return;
      }
    }
  }
}

// 8-bit keys count into a tile-major matrix whose columns scan_columns
// scans by chunks of kColumnScanRows tiles with a decoupled look-back
// (kColumnScanWindow chunks a step): tile counts at a chunk's edges (31,
// 32, 33), past one look-back step (window + 1 chunks) and over many
// steps, each with a tail, so that the last chunk is partial or whole and
// the walks stop inside a step or at its end; uniform and skewed ids (a
// column mostly zero), functor and staged ids, ids out of range, both
// methods that read the matrix (block_wide_spread's peer masks too).
TEST(Multisplit, DigitsOneTileMajorMatrixOnChunkEdges) {
  GRAPHKIT_REQUIRE_GPU();
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  std::mt19937_64 rng(seed);
  multisplit_workspace ws;
  constexpr std::size_t kRows = multisplit_detail::kColumnScanRows;
  constexpr std::size_t kWindow = multisplit_detail::kColumnScanWindow;
  for (const std::uint32_t m : {129u, 200u, 256u}) {
    const std::size_t tile = wide_tile_of(multisplit_method::block_wide_digits_one, m, false);
    for (const std::size_t tiles : {kRows - 1, kRows, kRows + 1, (kWindow + 1) * kRows + 1, 3 * kWindow * kRows}) {
      const std::size_t n = (tiles - 1) * tile + 1 + rng() % tile;
      const pattern p = rng() % 2 == 0 ? pattern::uniform : pattern::skewed;
      auto ids = make_ids(n, m, p, rng);
      spoil_ids(ids, m, 100, rng);
      for (const multisplit_method method :
           {multisplit_method::block_wide_digits_one, multisplit_method::block_wide_spread}) {
        check_split(ids, m, method, false, rng() % 2 == 0, ws);
        if (HasFatalFailure()) return;
      }
    }
  }
}

// The effective bucket count of the valid ids among `ids`: n^2 over the
// sum of the squared bucket counts.
double effective_buckets(const std::vector<std::uint32_t>& ids, std::uint32_t m) {
  std::vector<double> counts(m);
  for (const std::uint32_t id : ids)
    if (id < m) ++counts[id];
  double total = 0, squares = 0;
  for (const double c : counts) total += c, squares += c * c;
  return total * total / squares;
}

// The valid ids' occupied buckets.
std::size_t occupied_buckets(const std::vector<std::uint32_t>& ids, std::uint32_t m) {
  std::vector<bool> seen(m);
  for (const std::uint32_t id : ids)
    if (id < m) seen[id] = true;
  return static_cast<std::size_t>(std::count(seen.begin(), seen.end(), true));
}

// Whether block_wide_spread takes its compacted split (detail/compact_ids.cuh):
// past 6-bit ids, for a bucket functor, where at most 64 buckets hold items.
static_assert(multisplit_detail::compacts_ids<8, std::uint32_t, multisplit_detail::no_value, top_bits_bucket>() &&
                  multisplit_detail::compacts_ids<7, std::uint32_t, std::uint32_t, top_bits_bucket>() &&
                  !multisplit_detail::compacts_ids<8, std::uint32_t, std::uint32_t, bucket_ids_of>(),
              "the rule below is the dispatch's for these tests' functor");
bool compacts(std::uint32_t m, bool precomputed, const std::vector<std::uint32_t>& ids) {
  return !precomputed && multisplit_detail::digits_one_bits(m) > multisplit_detail::kCompactIdBits &&
         occupied_buckets(ids, m) <= multisplit_detail::kCompactBuckets;
}

// block_wide_spread chooses its post-scan on the device, from the counted
// offsets: the peer masks below tuning's kSpreadPeersBelow (keys) or
// kSpreadPairsPeersBelow (pairs) effective buckets, the digit rank from
// there up. The word it wrote is compared with the same rule on the host,
// and the output with the model, for uniform, skewed, Zipf and one-bucket
// ids and for mixtures of uniform ids and bucket 0 in a random proportion
// (either side of the thresholds), on a few tiles (the peer masks split
// each digit tile as 1, 2 or 4 of their own, the last ones often past the
// input's end), functor and precomputed ids, ids out of range.
TEST(Multisplit, SpreadChoosesItsPostScanByHowConcentratedTheIdsAre) {
  GRAPHKIT_REQUIRE_GPU();
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  std::mt19937_64 rng(seed);
  multisplit_workspace ws;
  using multisplit_detail::tuning;
  int chosen[2][2] = {};  // [pairs][peer masks]
  for (const std::uint32_t m : {2u, 17u, 65u, 128u, 129u, 256u}) {
    for (const bool pairs : {false, true}) {
      const std::size_t tile = wide_tile_of(multisplit_method::block_wide_spread, m, pairs);
      const std::size_t n = 3 * tile + rng() % tile;
      bool pure_uniform = true;  // the first uniform ids stay whole, so both choices are met at every seed
      for (const pattern p : {pattern::uniform, pattern::skewed, pattern::zipf, pattern::one_bucket, pattern::uniform,
                              pattern::uniform}) {
        auto ids = make_ids(n, m, p, rng);
        if (p == pattern::uniform && !std::exchange(pure_uniform, false) &&
            rng() % 2 == 0) {  // a share of the ids moved to bucket 0
          const std::uint64_t moved = rng() % 1000;
          for (auto& id : ids)
            if (rng() % 1000 < moved) id = 0;
        }
        spoil_ids(ids, m, 400, rng);
        check_split(ids, m, multisplit_method::block_wide_spread, pairs, p == pattern::skewed, ws);
        if (HasFatalFailure()) return;
        const std::uint32_t choice = ws.spread_choice_.to_host()[0];
        if (compacts(m, p == pattern::skewed, ids)) {
          EXPECT_EQ(choice, multisplit_detail::kCompactIdsChosen) << "m " << m << (pairs ? " pairs" : " keys");
          continue;
        }
        const double effective = effective_buckets(ids, m);
        const double peers_below = pairs ? tuning::kSpreadPairsPeersBelow : tuning::kSpreadPeersBelow;
        if (std::abs(effective - peers_below) < 0.01) continue;  // rounding decides
        const bool peer_masks = effective < peers_below;
        EXPECT_EQ(choice, peer_masks ? multisplit_detail::kPeerMasksChosen : multisplit_detail::kDigitRankChosen)
            << "m " << m << (pairs ? " pairs, " : " keys, ") << effective << " effective buckets";
        ++chosen[pairs][peer_masks];
      }
    }
  }
  for (const bool pairs : {false, true})
    for (const bool peer_masks : {false, true})
      EXPECT_GT(chosen[pairs][peer_masks], 0) << (pairs ? "pairs" : "keys") << (peer_masks ? ", peer masks" : "");
}

// The compacted split (ids past 6 bits that fill at most 64 buckets): 1,
// 2, 33 and 63-65 occupied buckets drawn at random among m (bucket 0 and m
// - 1 among them at times), uniform over those or skewed, with ids out of
// range; tile counts around the column scan's chunks and the tile-major
// matrix's prefix stride (keys) or a few tiles (pairs); the choice word
// and the output against the model.
TEST(Multisplit, SpreadCompactsIdsOfFewOccupiedBuckets) {
  GRAPHKIT_REQUIRE_GPU();
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  std::mt19937_64 rng(seed);
  multisplit_workspace ws;
  constexpr std::size_t kRows = multisplit_detail::kColumnScanRows;
  constexpr std::size_t kStride = multisplit_detail::kPrefixStride;
  int compacted = 0;
  for (const std::uint32_t m : {65u, 128u, 129u, 200u, 256u}) {
    for (const bool pairs : {false, true}) {
      const std::size_t tile = wide_tile_of(multisplit_method::block_wide_spread, m, pairs);
      for (const std::size_t occupied : {1u, 2u, 33u, 63u, 64u, 65u}) {
        std::vector<std::uint32_t> buckets(m);
        std::iota(buckets.begin(), buckets.end(), 0u);
        std::shuffle(buckets.begin(), buckets.end(), rng);
        buckets.resize(occupied);
        if (rng() % 3 == 0) buckets[0] = 0, buckets[occupied - 1] = m - 1;
        const std::size_t tiles =
            pairs ? 1 + rng() % 5
                  : std::vector<std::size_t>{1, kStride + 1, kRows - 1, kRows + 1, 2 * kRows + kStride - 1}[rng() % 5];
        const std::size_t n = (tiles - 1) * tile + 1 + rng() % tile;
        const pattern p = rng() % 2 == 0 ? pattern::uniform : pattern::skewed;
        std::vector<std::uint32_t> ids = make_ids(n, static_cast<std::uint32_t>(occupied), p, rng);
        for (auto& id : ids) id = buckets[id];
        spoil_ids(ids, m, 300, rng);
        check_split(ids, m, multisplit_method::block_wide_spread, pairs, false, ws);
        if (HasFatalFailure()) return;
        const bool compact = occupied_buckets(ids, m) <= multisplit_detail::kCompactBuckets;
        EXPECT_EQ(ws.spread_choice_.to_host()[0] == multisplit_detail::kCompactIdsChosen, compact)
            << "m " << m << (pairs ? " pairs, " : " keys, ") << occupied_buckets(ids, m) << " occupied";
        compacted += compact;
      }
    }
  }
  EXPECT_GT(compacted, 0);
}

TEST(Multisplit, PrecomputedIdsAndOffsetsOnly) {
  GRAPHKIT_REQUIRE_GPU();
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  std::mt19937_64 rng(seed);
  multisplit_workspace ws;
  for (const std::uint32_t m : {5u, 32u, 100u, 600u}) {
    const auto ids = make_ids(30000, m, pattern::uniform, rng);
    for (const multisplit_method method : kAllMethods)
      if (method_takes(method, m)) check_split(ids, m, method, true, true, ws);
    const std::vector<std::uint32_t> keys = encode(ids);
    device_buffer<std::uint32_t> d_keys{std::span<const std::uint32_t>(keys)};
    EXPECT_EQ(multisplit_offsets(d_keys.data(), keys.size(), m, top_bits_bucket{}, ws), stable_split(ids, m).offsets);
  }
}

TEST(Multisplit, OutOfRangeIdsAreReportedAndNeverWritten) {
  GRAPHKIT_REQUIRE_GPU();
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  std::mt19937_64 rng(seed);
  multisplit_workspace ws;
  for (const std::uint32_t m : {4u, 32u, 200u, 300u}) {
    std::vector<std::uint32_t> ids = make_ids(10000, m, pattern::uniform, rng);
    std::size_t bad = 0;
    for (std::size_t i = 0; i < ids.size(); i += 97, ++bad) ids[i] = m + static_cast<std::uint32_t>(rng() % 3000);
    const std::vector<std::uint32_t> keys = encode(ids);
    for (const multisplit_method method : kAllMethods) {
      if (!method_takes(method, m)) continue;
      SCOPED_TRACE(std::string(multisplit_method_name(method)) + ", m " + std::to_string(m));
      constexpr std::size_t kGuard = 256;
      device_buffer<std::uint32_t> d_keys{std::span<const std::uint32_t>(keys)}, d_out(keys.size() + kGuard);
      d_out.fill_bytes(0xcd);
      try {
        (void)multisplit_keys(d_keys.data(), d_out.data(), keys.size(), m, top_bits_bucket{}, ws, nullptr, method);
        ADD_FAILURE() << "no error for out-of-range bucket ids";
      } catch (const error& e) {
        EXPECT_NE(std::string(e.what()).find(std::to_string(bad) + " keys have bucket ids outside [0, " +
                                             std::to_string(m) + ")"),
                  std::string::npos)
            << e.what();
      }
      // The valid items fill the first n - bad places; nothing lands after them.
      const std::vector<std::uint32_t> out = d_out.to_host();
      for (std::size_t i = keys.size() - bad; i < out.size(); ++i) ASSERT_EQ(out[i], 0xcdcdcdcd) << "position " << i;
    }
  }
}

TEST(Multisplit, UnalignedInputEveryMethod) {
  GRAPHKIT_REQUIRE_GPU();
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  std::mt19937_64 rng(seed);
  multisplit_workspace ws;
  for (const std::uint32_t m : {2u, 40u, 256u}) {
    const auto ids = make_ids(20001, m, pattern::uniform, rng);
    const std::vector<std::uint32_t> keys = encode(ids);
    // One element in: the keys are 4-byte but not 16-byte aligned.
    std::vector<std::uint32_t> shifted(keys.size() + 1, 0);
    std::copy(keys.begin(), keys.end(), shifted.begin() + 1);
    device_buffer<std::uint32_t> d_keys{std::span<const std::uint32_t>(shifted)}, d_out(keys.size());
    const model expected = stable_split(ids, m);
    // Every method: the one-sweep pass copies whole aligned tiles in 16-byte
    // chunks and any other tile item by item.
    for (const multisplit_method method : kAllMethods) {
      if (!method_takes(method, m)) continue;
      SCOPED_TRACE(std::string(multisplit_method_name(method)) + ", m " + std::to_string(m));
      const auto offsets =
          multisplit_keys(d_keys.data() + 1, d_out.data(), keys.size(), m, top_bits_bucket{}, ws, nullptr, method);
      EXPECT_EQ(offsets, expected.offsets);
      const auto got = d_out.to_host();
      for (std::size_t i = 0; i < keys.size(); ++i) ASSERT_EQ(got[i], keys[expected.order[i]]) << "output " << i;
    }
  }
}

// Values of 8 bytes aligned to 4 (a struct of two words), at an address
// that is 4 but not 8 bytes aligned: the one-sweep pass must not copy them
// with 8-byte cp.async, nor the digit rank its whole tiles (two and more of
// 10,240 pairs here) with 16-byte ones. Every method, checked against the
// stable model.
struct word_pair {
  std::uint32_t first, second;
};
TEST(Multisplit, UnalignedPairsOfWordStructsEveryMethod) {
  GRAPHKIT_REQUIRE_GPU();
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  std::mt19937_64 rng(seed);
  multisplit_workspace ws;
  const std::size_t n = 25000 + rng() % 100;
  for (const std::uint32_t m : {2u, 40u, 256u}) {
    const auto ids = make_ids(n, m, pattern::uniform, rng);
    const std::vector<std::uint32_t> keys = encode(ids);
    std::vector<std::uint32_t> words(2 * n + 1, 0);  // word 0 pads: the pairs start 4 bytes in
    for (std::size_t i = 0; i < n; ++i) words[1 + 2 * i] = static_cast<std::uint32_t>(i), words[2 + 2 * i] = ~keys[i];
    device_buffer<std::uint32_t> d_keys{std::span<const std::uint32_t>(keys)},
        d_words{std::span<const std::uint32_t>(words)}, d_keys_out(n), d_words_out(2 * n + 1);
    const auto* values = reinterpret_cast<const word_pair*>(d_words.data() + 1);
    auto* values_out = reinterpret_cast<word_pair*>(d_words_out.data() + 1);
    const model expected = stable_split(ids, m);
    for (const multisplit_method method : kAllMethods) {
      if (!method_takes(method, m)) continue;
      SCOPED_TRACE(std::string(multisplit_method_name(method)) + ", m " + std::to_string(m));
      EXPECT_EQ(multisplit_pairs(d_keys.data(), values, d_keys_out.data(), values_out, n, m, top_bits_bucket{}, ws,
                                 nullptr, method),
                expected.offsets);
      const auto got_keys = d_keys_out.to_host();
      const auto got_words = d_words_out.to_host();
      for (std::size_t i = 0; i < n; ++i) {
        const std::uint32_t from = expected.order[i];
        ASSERT_EQ(got_keys[i], keys[from]) << "output " << i;
        ASSERT_EQ(got_words[1 + 2 * i], from) << "output " << i;
        ASSERT_EQ(got_words[2 + 2 * i], ~keys[from]) << "output " << i;
      }
    }
  }
}

TEST(Multisplit, SixtyFourBitKeysWithValues) {
  GRAPHKIT_REQUIRE_GPU();
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  std::mt19937_64 rng(seed);
  multisplit_workspace ws;
  for (const std::uint32_t m : {7u, 50u, 256u}) {
    const std::size_t n = 50000;
    std::vector<std::uint64_t> keys(n);
    std::vector<std::uint32_t> values(n), ids(n);
    for (std::size_t i = 0; i < n; ++i) {
      keys[i] = rng();
      values[i] = static_cast<std::uint32_t>(i);
      ids[i] = u64_bucket{m}(keys[i]);
    }
    for (const multisplit_method method : kAllMethods) {
      if (!method_takes(method, m)) continue;
      SCOPED_TRACE(std::string(multisplit_method_name(method)) + ", m " + std::to_string(m));
      device_buffer<std::uint64_t> d_keys{std::span<const std::uint64_t>(keys)}, d_keys_out(n);
      device_buffer<std::uint32_t> d_values{std::span<const std::uint32_t>(values)}, d_values_out(n);
      const auto offsets = multisplit_pairs(d_keys.data(), d_values.data(), d_keys_out.data(), d_values_out.data(), n,
                                            m, u64_bucket{m}, ws, nullptr, method);
      const model expected = stable_split(ids, m);
      EXPECT_EQ(offsets, expected.offsets);
      const auto got_keys = d_keys_out.to_host();
      const auto got_values = d_values_out.to_host();
      for (std::size_t i = 0; i < n; ++i) {
        ASSERT_EQ(got_values[i], expected.order[i]);
        ASSERT_EQ(got_keys[i], keys[expected.order[i]]);
      }
    }
  }
}

TEST(Multisplit, TwoToThe27Items) {
  GRAPHKIT_REQUIRE_GPU();
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  std::mt19937_64 rng(seed);
  const std::size_t n = std::size_t{1} << 27;
  std::vector<std::uint32_t> keys(n), values(n), ids(n);
  for (std::size_t i = 0; i < n; ++i)
    keys[i] = static_cast<std::uint32_t>(rng()), values[i] = static_cast<std::uint32_t>(i);
  multisplit_workspace ws;
  device_buffer<std::uint32_t> d_keys{std::span<const std::uint32_t>(keys)},
      d_values{std::span<const std::uint32_t>(values)}, d_keys_out(n), d_values_out(n);
  for (const std::uint32_t m : {32u, 256u}) {
    SCOPED_TRACE("m " + std::to_string(m));
    for (std::size_t i = 0; i < n; ++i) ids[i] = keys[i] % m;
    d_values_out.fill_bytes(0xff);
    const auto offsets = multisplit_pairs(d_keys.data(), d_values.data(), d_keys_out.data(), d_values_out.data(), n, m,
                                          mod_bucket{m}, ws);
    const model expected = stable_split(ids, m);
    EXPECT_EQ(offsets, expected.offsets);
    EXPECT_EQ(d_values_out.to_host(), expected.order);
  }
}

// The device building block on its own, in a kernel of the test's making:
// ids >= m are invalid items; `how` as rank() takes it, or the votes
// through the overload without scratch when `scratch` is false.
template <int Warps, int Items>
__global__ void tile_kernel(const std::uint32_t* buckets, std::uint32_t n, std::uint32_t m, bool scratch, tile_rank how,
                            std::uint32_t* positions, std::uint32_t* starts) {
  using tile = block_multisplit_tile<Warps, Items>;
  __shared__ typename tile::storage storage;
  __shared__ typename tile::peer_scratch peers;
  std::uint32_t bucket[Items], position[Items];
  bool valid[Items];
  const unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  for (int r = 0; r < Items; ++r) {
    const std::uint32_t i = (warp * Items + r) * 32 + lane;
    bucket[r] = i < n ? buckets[i] : 0;
    valid[r] = i < n && bucket[r] < m;
  }
  if (scratch) tile::rank(storage, peers, how, bucket, valid, m, position);
  else tile::rank(storage, bucket, valid, m, position);
  for (int r = 0; r < Items; ++r) {
    const std::uint32_t i = (warp * Items + r) * 32 + lane;
    if (valid[r]) positions[i] = position[r];
  }
  for (std::uint32_t b = threadIdx.x; b <= m; b += blockDim.x) starts[b] = storage.bucket_start[b];
}

TEST(BlockMultisplitTile, RanksATileStably) {
  GRAPHKIT_REQUIRE_GPU();
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  std::mt19937_64 rng(seed);
  constexpr int kWarps = 4, kItems = 3, kTile = kWarps * 32 * kItems;
  struct variant {
    bool scratch;
    tile_rank how;
    const char* name;
  };
  constexpr variant kVariants[] = {{false, tile_rank::votes, "votes, no scratch"},
                                   {true, tile_rank::votes, "votes"},
                                   {true, tile_rank::peer_masks, "peer masks"}};
  for (const std::uint32_t m : {1u, 2u, 9u, 33u, 64u, 200u, 256u}) {
    for (const std::uint32_t n : {0u, 1u, 100u, static_cast<std::uint32_t>(kTile)}) {
      for (const pattern p : {pattern::uniform, pattern::skewed, pattern::one_bucket}) {
        for (const bool spoiled : {false, true}) {
          auto ids = make_ids(n, m, p, rng);
          if (spoiled) spoil_ids(ids, m, 5, rng);
          const model expected = stable_split(ids, m);
          for (const variant v : kVariants) {
            SCOPED_TRACE(std::string(v.name) + ", m " + std::to_string(m) + ", n " + std::to_string(n) +
                         (spoiled ? ", invalid items" : ""));
            device_buffer<std::uint32_t> d_ids{std::span<const std::uint32_t>(ids)}, d_positions(std::max(n, 1u)),
                d_starts(m + 1);
            d_positions.fill_bytes(0xff);
            tile_kernel<kWarps, kItems>
                <<<1, kWarps * 32>>>(d_ids.data(), n, m, v.scratch, v.how, d_positions.data(), d_starts.data());
            GRAPHKIT_CHECK_LAUNCH();
            EXPECT_EQ(d_starts.to_host(), expected.offsets);
            const auto positions = d_positions.to_host();
            for (std::uint32_t k = 0; k < expected.order.size(); ++k) ASSERT_EQ(positions[expected.order[k]], k);
          }
        }
      }
    }
  }
}

// The one-sweep method around its tile sizes (4,096 keys, 2,048 pairs of
// 32-bit words with today's tuning): sizes that end a tile early, fill it, or spill one item
// into the next, and inputs of many tiles whose look-back chains span
// hundreds of tiles, with uniform, one-bucket and Zipf ids.
TEST(Multisplit, OnesweepAroundTileSizes) {
  GRAPHKIT_REQUIRE_GPU();
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  std::mt19937_64 rng(seed);
  multisplit_workspace ws;
  for (const std::uint32_t m : {1u, 2u, 3u, 8u, 31u, 32u, 33u, 64u, 255u, 256u}) {
    for (const bool pairs : {false, true}) {
      using multisplit_detail::tuning;
      const std::size_t tile = std::size_t{tuning::kWarps} * 32 *
                               (pairs ? tuning::onesweep_items<std::uint32_t, std::uint32_t>()
                                      : tuning::onesweep_items<std::uint32_t, multisplit_detail::no_value>());
      for (const std::size_t n :
           {std::size_t{0}, std::size_t{1}, tile - 1, tile, tile + 1, 3 * tile + 5, std::size_t{1} << 20}) {
        for (const pattern p : {pattern::uniform, pattern::one_bucket, pattern::zipf, pattern::skewed}) {
          check_split(make_ids(n, m, p, rng), m, multisplit_method::onesweep, pairs, n % 2 == 1, ws);
          if (HasFatalFailure()) return;
        }
      }
    }
  }
}

TEST(Multisplit, OnesweepLargeRandomAndOffsetsOnly) {
  GRAPHKIT_REQUIRE_GPU();
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  std::mt19937_64 rng(seed);
  multisplit_workspace ws;
  const std::size_t n = (std::size_t{1} << 22) + rng() % 100000;  // encode() keeps the low 20 bits of the position
  for (const std::uint32_t m : {2u, 33u, 256u}) {
    for (const pattern p : {pattern::uniform, pattern::zipf}) {
      const auto ids = make_ids(n, m, p, rng);
      check_split(ids, m, multisplit_method::onesweep, p == pattern::zipf, false, ws);
      if (HasFatalFailure()) return;
      const std::vector<std::uint32_t> keys = encode(ids);
      device_buffer<std::uint32_t> d_keys{std::span<const std::uint32_t>(keys)};
      EXPECT_EQ(multisplit_offsets(d_keys.data(), n, m, top_bits_bucket{}, ws), stable_split(ids, m).offsets);
    }
  }
}

TEST(Multisplit, BadArgumentsAreErrors) {
  GRAPHKIT_REQUIRE_GPU();
  multisplit_workspace ws;
  device_buffer<std::uint32_t> d(16);
  EXPECT_THROW((void)multisplit_keys(d.data(), d.data(), 0, 0, mod_bucket{1}, ws), error);
  EXPECT_THROW((void)multisplit_keys(d.data(), d.data(), 0, 33, mod_bucket{33}, ws, nullptr, multisplit_method::warp),
               error);
  EXPECT_THROW(
      (void)multisplit_keys(d.data(), d.data(), 0, 257, mod_bucket{257}, ws, nullptr, multisplit_method::block), error);
  EXPECT_THROW(
      (void)multisplit_keys(d.data(), d.data(), 0, 257, mod_bucket{257}, ws, nullptr, multisplit_method::onesweep),
      error);
  for (const multisplit_method wide :
       {multisplit_method::block_wide, multisplit_method::block_wide_votes, multisplit_method::block_wide_peers,
        multisplit_method::block_wide_digits_one, multisplit_method::block_wide_spread})
    EXPECT_THROW((void)multisplit_keys(d.data(), d.data(), 0, 257, mod_bucket{257}, ws, nullptr, wide), error);
  // 30-bit look-back counts: refused before anything is read.
  EXPECT_THROW((void)multisplit_keys(d.data(), d.data(), std::size_t{1} << 30, 4, mod_bucket{4}, ws, nullptr,
                                     multisplit_method::onesweep),
               error);
}

}  // namespace
}  // namespace graphkit
