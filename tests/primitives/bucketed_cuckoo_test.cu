// The bucketed cuckoo map against std::unordered_map: bulk insert / find /
// erase at loads up to 0.97, sizes 0 and 1, duplicates in a batch, missing
// keys, a full table (and keys confined to two buckets), sentinels, the bulk
// insert's deferred path (big tables to 0.97, updates and duplicates racing
// its moves, skewed keys on few buckets, a full table's failures, one-key
// batches, every lock of its parallel pass forced busy), its passes and chunks (batches on chunk boundaries, a second
// pass doing most of a batch, an overfull batch of many chunks), mixed
// batches checked against the documented semantics, inserts and erases of one
// key in one batch, a stress test at load 0.95 whose moves must never hide
// a present key from a concurrent find, and the fast settle pass (copies of
// keys in one batch with exact reports; half of its inserts handed to the
// locked pass by a test hook, at loads to 0.97 and in mixed batches). The bucket arithmetic is checked on
// the host too (it is __host__ __device__), and the raw table's invariants
// after the kernels that write at high load (expect_table_invariants).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <concepts>
#include <random>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "primitives/common/error.hpp"
#include "primitives/hash/bucketed_cuckoo_map.cuh"
#include "tests/common/gpu_support.hpp"
#include "tests/primitives/hash_test_support.cuh"
#include "tests/common/test_support.hpp"

namespace graphkit {
namespace {

using cuckoo = bucketed_cuckoo_map<>;
using op = cuckoo::op_type;
using test::distinct_keys;
using test::find_all;
using test::kEmptyValue;

/// The table's own invariants, read from its raw slots after a kernel: no
/// tombstone is left, every key (live or dead) is stored once, a key that
/// sits in its second bucket has a full first bucket (no empty slot), and a
/// bucket's non-empty slots are a prefix of it (no slot filled after an
/// empty one: half-bucket finds stop at an empty slot of slots 0-3). Round 2
/// broke the third one (a path emptied a bucket that was not full) and lost
/// keys; a find only noticed while the first bucket still had an empty slot.
template <class Map>
void expect_table_invariants(Map& map) {
  const auto r = map.ref();
  std::vector<hash_slot<std::uint32_t, std::uint32_t>> slots(map.capacity());
  ASSERT_EQ(cudaMemcpy(slots.data(), r.slots, slots.size() * sizeof(slots[0]), cudaMemcpyDeviceToHost), cudaSuccess);
  std::unordered_set<std::uint32_t> seen;
  std::size_t tombstones = 0, twice = 0, misplaced = 0, second_without_full_first = 0, after_an_empty = 0;
  for (std::size_t i = 0; i < slots.size(); ++i) {
    const std::uint32_t k = slots[i].key;
    const bool empty = k == r.empty_key && slots[i].value == r.empty_value;
    after_an_empty +=
        !empty && i % kCuckooBucketSlots != 0 && slots[i - 1].key == r.empty_key && slots[i - 1].value == r.empty_value;
    if (k == r.empty_key) continue;
    if (k == r.tombstone_key()) {
      ++tombstones;
      continue;
    }
    twice += !seen.insert(k).second;
    const auto b = static_cast<std::uint32_t>(i / kCuckooBucketSlots);
    const std::uint32_t b1 = r.first_bucket(k), b2 = r.second_bucket(k, b1);
    if (b != b1 && b != b2) {
      ++misplaced;
      continue;
    }
    if (b == b2) {
      bool first_full = true;
      for (std::size_t j = 0; j < kCuckooBucketSlots; ++j)
        first_full = first_full && slots[std::size_t{b1} * kCuckooBucketSlots + j].key != r.empty_key;
      second_without_full_first += !first_full;
    }
  }
  EXPECT_EQ(tombstones, 0u) << "tombstones left after the kernel";
  EXPECT_EQ(twice, 0u) << "keys stored twice";
  EXPECT_EQ(misplaced, 0u) << "keys outside both of their buckets";
  EXPECT_EQ(second_without_full_first, 0u) << "keys in their second bucket while the first has an empty slot";
  EXPECT_EQ(after_an_empty, 0u) << "non-empty slots right after an empty slot of their bucket";
}

// ---- host-side checks of the bucket arithmetic --------------------------------------

TEST(BucketedCuckoo, SecondBucketDiffersFromTheFirstAndBothAreInRange) {
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  std::mt19937_64 rng(seed);
  for (const std::uint32_t buckets : {2u, 3u, 7u, 128u, 1000003u}) {
    cuckoo::ref_type r{};
    r.buckets = buckets;
    r.empty_key = 0xffffffffu;
    for (int i = 0; i < 20000; ++i) {
      const auto k = static_cast<std::uint32_t>(rng());
      const std::uint32_t b1 = r.first_bucket(k), b2 = r.second_bucket(k, b1);
      ASSERT_LT(b1, buckets);
      ASSERT_LT(b2, buckets);
      ASSERT_NE(b1, b2) << "key " << k << " with " << buckets << " buckets";
    }
  }
  EXPECT_EQ(cuckoo_detail::spread4(0xfu), 0x55u);
  EXPECT_EQ(cuckoo_detail::spread4(0x5u), 0x11u);
  EXPECT_EQ(cuckoo::ref_type::key_of(cuckoo::ref_type::pack(7, 9)), 7u);
  EXPECT_EQ(cuckoo::ref_type::value_of(cuckoo::ref_type::pack(7, 9)), 9u);
  // The word's halves are the contract's slot fields: key at offset 0.
  const hash_slot<std::uint32_t, std::uint32_t> s{7, 9};
  unsigned long long w = 0;
  std::memcpy(&w, &s, 8);
  EXPECT_EQ(w, cuckoo::ref_type::pack(7, 9));
}

// ---- bulk operations ------------------------------------------------------------------

void bulk_round_trip(double load, std::uint64_t seed) {
  SCOPED_TRACE(testing::Message() << "load " << load);
  const std::size_t capacity = 1 << 16;
  const auto n = static_cast<std::size_t>(load * capacity);
  const std::vector<std::uint32_t> keys = distinct_keys(n + 1000, seed);
  std::vector<std::uint32_t> present(keys.begin(), keys.begin() + n), missing(keys.begin() + n, keys.end());
  std::vector<std::uint32_t> values(n);
  std::unordered_map<std::uint32_t, std::uint32_t> model;
  for (std::size_t i = 0; i < n; ++i) values[i] = static_cast<std::uint32_t>(i * 7 + 1), model[present[i]] = values[i];
  cuckoo map(capacity);
  ASSERT_EQ(map.capacity(), capacity);
  device_buffer<std::uint32_t> d_keys{std::span<const std::uint32_t>(present)},
      d_values{std::span<const std::uint32_t>(values)};
  hash_counts counts;
  map.insert_async(d_keys.data(), d_values.data(), n, counts);
  const hash_result inserted = counts.result();
  EXPECT_EQ(inserted.inserted, n);
  EXPECT_EQ(inserted.failed, 0u);
  EXPECT_EQ(map.size(), n);
  if (load >= 0.9) EXPECT_GT(inserted.displacements, 0u) << "no key moved at load " << load;
  if (load >= 0.5) EXPECT_GT(map.second_bucket_size(), 0u);
  expect_table_invariants(map);
  const std::vector<std::uint32_t> got = find_all(map, present);
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(got[i], model[present[i]]) << "key " << present[i];
  for (const std::uint32_t v : find_all(map, missing)) ASSERT_EQ(v, kEmptyValue);

  // retrieve_all gives the model back.
  device_buffer<std::uint32_t> out_keys(std::max<std::size_t>(n, 1)), out_values(std::max<std::size_t>(n, 1));
  ASSERT_EQ(map.retrieve_all(out_keys.data(), out_values.data()), n);
  const std::vector<std::uint32_t> ok = out_keys.to_host(), ov = out_values.to_host();
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(model.at(ok[i]), ov[i]);

  // Erase every other key; the rest stay. Erased keys come back by insert.
  std::vector<std::uint32_t> gone, gone_values;
  for (std::size_t i = 0; i < n; i += 2) gone.push_back(present[i]), gone_values.push_back(values[i] + 1);
  device_buffer<std::uint32_t> d_gone{std::span<const std::uint32_t>(gone)},
      d_gone_values{std::span<const std::uint32_t>(gone_values)};
  EXPECT_EQ(map.erase(d_gone.data(), gone.size()), gone.size());
  EXPECT_EQ(map.erase(d_gone.data(), gone.size()), 0u) << "a second erase removes nothing";
  const std::vector<std::uint32_t> after = find_all(map, present);
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(after[i], i % 2 == 0 ? kEmptyValue : values[i]);
  EXPECT_EQ(map.size(), n - gone.size());
  EXPECT_EQ(map.insert(d_gone.data(), d_gone_values.data(), gone.size()), gone.size()) << "erased keys come back";
  EXPECT_EQ(find_all(map, gone), gone_values);
  EXPECT_EQ(map.size(), n);
}

TEST(BucketedCuckoo, BulkOperationsAtLoadsUpTo97Percent) {
  GRAPHKIT_REQUIRE_GPU();
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  for (const double load : {0.0, 0.5, 0.7, 0.9, 0.95, 0.97})
    bulk_round_trip(load, seed + static_cast<std::uint64_t>(load * 100));
}

TEST(BucketedCuckoo, SmallTablesFilledTo95PercentInOneBatchKeepEveryKey) {
  GRAPHKIT_REQUIRE_GPU();
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  // 2^13 slots (1024 buckets) and 7782 keys in one launch: many tiles per
  // bucket, so paths often meet locks other inserts hold, the case in which
  // round 2's search moved keys out of buckets that still had empty slots.
  for (int rep = 0; rep < 8; ++rep) {
    SCOPED_TRACE(testing::Message() << "table " << rep);
    const std::size_t capacity = 1 << 13, n = capacity * 95 / 100;
    const std::vector<std::uint32_t> keys = distinct_keys(n, seed + rep);
    std::vector<std::uint32_t> values(n);
    for (std::size_t i = 0; i < n; ++i) values[i] = keys[i] ^ 0x5a5a5a5au;
    cuckoo map(capacity);
    device_buffer<std::uint32_t> d_keys{std::span<const std::uint32_t>(keys)},
        d_values{std::span<const std::uint32_t>(values)};
    ASSERT_EQ(map.insert(d_keys.data(), d_values.data(), n), n);
    expect_table_invariants(map);
    ASSERT_EQ(find_all(map, keys), values) << "a present key was lost";
  }
}

TEST(BucketedCuckoo, DuplicatesInABatchKeepOneOfTheirValues) {
  GRAPHKIT_REQUIRE_GPU();
  std::vector<std::uint32_t> keys, values;
  for (std::uint32_t r = 0; r < 50; ++r)
    for (std::uint32_t k = 0; k < 100; ++k) keys.push_back(k), values.push_back(1000 * k + r);
  cuckoo map(1024);
  device_buffer<std::uint32_t> d_keys{std::span<const std::uint32_t>(keys)},
      d_values{std::span<const std::uint32_t>(values)};
  EXPECT_EQ(map.insert(d_keys.data(), d_values.data(), keys.size()), 100u) << "each key counted once";
  EXPECT_EQ(map.size(), 100u);
  std::vector<std::uint32_t> probe(100);
  for (std::uint32_t k = 0; k < 100; ++k) probe[k] = k;
  const std::vector<std::uint32_t> got = find_all(map, probe);
  for (std::uint32_t k = 0; k < 100; ++k) {
    EXPECT_EQ(got[k] / 1000, k);
    EXPECT_LT(got[k] % 1000, 50u);
  }
}

TEST(BucketedCuckoo, DuplicatesAtHighLoadAreNeverStoredTwice) {
  GRAPHKIT_REQUIRE_GPU();
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  // 0.93 of the table in distinct keys, each sent 4 times in one batch: the
  // copies race through bucket 1, bucket 2 and the locked path alike.
  const std::size_t capacity = 1 << 15, distinct = capacity * 93 / 100;
  const std::vector<std::uint32_t> base = distinct_keys(distinct, seed);
  std::vector<std::uint32_t> keys, values;
  for (int r = 0; r < 4; ++r)
    for (const std::uint32_t k : base) keys.push_back(k), values.push_back(k ^ 0x5a5a5a5au);
  std::shuffle(keys.begin(), keys.end(), std::mt19937_64(seed));
  for (std::size_t i = 0; i < keys.size(); ++i) values[i] = keys[i] ^ 0x5a5a5a5au;
  cuckoo map(capacity);
  device_buffer<std::uint32_t> d_keys{std::span<const std::uint32_t>(keys)},
      d_values{std::span<const std::uint32_t>(values)};
  EXPECT_EQ(map.insert(d_keys.data(), d_values.data(), keys.size()), distinct);
  EXPECT_EQ(map.size(), distinct) << "a key was stored twice";
  expect_table_invariants(map);
  std::vector<std::uint32_t> expected(distinct);
  for (std::size_t i = 0; i < distinct; ++i) expected[i] = base[i] ^ 0x5a5a5a5au;
  EXPECT_EQ(find_all(map, base), expected);
}

TEST(BucketedCuckoo, AFullTableReportsFailuresWithoutHanging) {
  GRAPHKIT_REQUIRE_GPU();
  // Run 1 (before the give-up flag): this test did not finish in 120 s. Each
  // failing insert searched up to 585 buckets per try, 1024 tries, on 125
  // buckets that 3000 tiles kept locked. Now it takes well under a second.
  // The bound is relative, to hold under compute-sanitizer (racecheck took
  // 19.7 s for it): the same calls into a table with room for every key,
  // timed first, times 20, plus 10 s.
  const auto baseline = [] {
    const auto t0 = std::chrono::steady_clock::now();
    const std::vector<std::uint32_t> all = distinct_keys((1 << 20) + 3000, test::fresh_seed());
    const std::vector<std::uint32_t> ones(all.size(), 5);
    cuckoo roomy(std::size_t{1} << 22);
    device_buffer<std::uint32_t> d_all{std::span<const std::uint32_t>(all)},
        d_ones{std::span<const std::uint32_t>(ones)};
    (void)roomy.insert(d_all.data(), d_ones.data(), 3000);
    roomy.clear();
    (void)roomy.insert(d_all.data(), d_ones.data(), 3000);
    roomy.clear();
    (void)roomy.insert(d_all.data() + 3000, d_ones.data(), 1 << 20);
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }();
  const auto started = std::chrono::steady_clock::now();
  const std::vector<std::uint32_t> keys = distinct_keys(3000, test::fresh_seed());
  const std::vector<std::uint32_t> values(keys.size(), 5);
  cuckoo map(1000);
  device_buffer<std::uint32_t> d_keys{std::span<const std::uint32_t>(keys)},
      d_values{std::span<const std::uint32_t>(values)};
  try {
    map.insert(d_keys.data(), d_values.data(), keys.size());
    ADD_FAILURE() << "no resource_error";
  } catch (const resource_error& e) {
    EXPECT_NE(std::string(e.what()).find("table full"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(std::to_string(map.capacity())), std::string::npos) << e.what();
  }
  map.clear();
  hash_counts counts;
  map.insert_async(d_keys.data(), d_values.data(), keys.size(), counts);
  const hash_result r = counts.result();
  EXPECT_GT(r.failed, 0u);
  EXPECT_EQ(r.inserted + r.failed, keys.size());
  EXPECT_EQ(map.size() + r.failed, keys.size());
  EXPECT_LE(map.size(), map.capacity());
  EXPECT_GT(map.size(), map.capacity() * 9 / 10) << "the table should fill almost completely first";
  // The same with more keys than tiles can hold in flight, and a mixed batch into a full table.
  const std::vector<std::uint32_t> many = distinct_keys(1 << 20, test::fresh_seed());
  const std::vector<std::uint32_t> many_values(many.size(), 5);
  device_buffer<std::uint32_t> d_many{std::span<const std::uint32_t>(many)},
      d_many_values{std::span<const std::uint32_t>(many_values)};
  map.clear();
  map.insert_async(d_many.data(), d_many_values.data(), many.size(), counts);
  const hash_result big = counts.result();
  EXPECT_EQ(big.inserted + big.failed, many.size());
  EXPECT_EQ(map.size(), big.inserted);
  std::vector<op> ops;
  for (std::size_t i = 0; i < 4096; ++i) ops.push_back({hash_op_kind::insert, many[many.size() - 1 - i], 9});
  device_buffer<op> d_ops{std::span<const op>(ops)};
  device_buffer<std::uint32_t> d_results(ops.size());
  map.apply_async(d_ops.data(), ops.size(), d_results.data(), counts);
  EXPECT_LE(map.size(), map.capacity());
  (void)counts.result();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  EXPECT_LT(seconds, 10.0 + 20.0 * baseline)
      << "a full table must fail fast (the same calls with room: " << baseline << " s)";
}

// ---- the bulk insert's deferred path ("inserts alone" in the header) ----------------------

/// Values 1, 2, ... for `keys`, entered in the model (later entries win).
std::vector<std::uint32_t> numbered(const std::vector<std::uint32_t>& keys, std::uint32_t first,
                                    std::unordered_map<std::uint32_t, std::uint32_t>& model) {
  std::vector<std::uint32_t> values(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i)
    values[i] = first + static_cast<std::uint32_t>(i), model[keys[i]] = values[i];
  return values;
}

/// One batch of distinct random keys filling 2^20 slots to `load`, checked
/// against a std::unordered_map; then a tenth erased and as many new keys
/// inserted, which at these loads need the erased keys' slots (reused by
/// deferred inserts, whose moves may use them too).
template <class Map = cuckoo>
void fill_then_churn(double load, std::uint64_t seed) {
  SCOPED_TRACE(testing::Message() << "load " << load);
  GRAPHKIT_SEED_TRACE(seed);
  const std::size_t capacity = std::size_t{1} << 20, n = static_cast<std::size_t>(load * capacity);
  const std::vector<std::uint32_t> all = distinct_keys(n + n / 10, seed);
  const std::vector<std::uint32_t> keys(all.begin(), all.begin() + n), fresh(all.begin() + n, all.end());
  std::unordered_map<std::uint32_t, std::uint32_t> model;
  Map map(capacity);
  const hash_result filled = test::insert_batch(map, keys, numbered(keys, 1, model));
  EXPECT_EQ(filled.inserted, n);
  EXPECT_EQ(filled.failed, 0u);
  EXPECT_GT(filled.displacements, 0u) << "no insert was deferred and moved a key";
  expect_table_invariants(map);
  test::expect_same_as(map, model);
  for (const std::uint32_t v : find_all(map, fresh)) ASSERT_EQ(v, kEmptyValue) << "a key never inserted was found";

  const std::vector<std::uint32_t> gone(keys.begin(), keys.begin() + fresh.size());
  device_buffer<std::uint32_t> d_gone{std::span<const std::uint32_t>(gone)};
  EXPECT_EQ(map.erase(d_gone.data(), gone.size()), gone.size());
  for (const std::uint32_t k : gone) model.erase(k);
  const hash_result churned = test::insert_batch(map, fresh, numbered(fresh, 1u << 30, model));
  EXPECT_EQ(churned.inserted, fresh.size());
  EXPECT_EQ(churned.failed, 0u);
  expect_table_invariants(map);
  test::expect_same_as(map, model);
  for (const std::uint32_t v : find_all(map, gone)) ASSERT_EQ(v, kEmptyValue) << "an erased key came back";
}

TEST(BucketedCuckoo, OneBatchFillsABigTableTo97PercentAsAStdMapWould) {
  GRAPHKIT_REQUIRE_GPU();
  for (const double load : {0.9, 0.95, 0.97}) fill_then_churn(load, test::fresh_seed());
}

/// The map's hash, with the test hook that makes every lock the bulk
/// insert's parallel second pass tries look held by another tile
/// (cuckoo_detail::kForceBlocked): a legal schedule, the one compute-sanitizer
/// racecheck came near by serialising tiles.
struct contended_hash : murmur3_hash {
  static constexpr bool kCuckooForceBlocked = true;
};

/// Under racecheck, round 3 (81c39cd) gave up on 3,744 of 101,711 inserts
/// that a sequential insert places (the churn at 0.97 below): a deferred
/// insert blocked 64 times failed and set the give-up flag, and the inserts
/// after it failed at once. Here no lock of a path's second bucket or deeper
/// is ever free in the parallel pass, so those inserts rely on the last pass:
/// none may fail, and the table must hold what a std::unordered_map would.
TEST(BucketedCuckoo, InsertsBlockedByEveryOtherLockStillFillTo97Percent) {
  GRAPHKIT_REQUIRE_GPU();
  for (const double load : {0.95, 0.97})
    fill_then_churn<bucketed_cuckoo_map<std::uint32_t, std::uint32_t, contended_hash>>(load, test::fresh_seed());
}

/// Keys present before the batch get new values while deferred inserts of
/// new keys move them (a move must carry an update of its key to the copy),
/// and every key comes 1 to 3 times with different values: each key ends
/// once, with one of its batch's values, and only new keys count as added.
template <class Map = cuckoo>
void updates_and_duplicates_racing_moves(std::uint64_t seed) {
  GRAPHKIT_SEED_TRACE(seed);
  const std::size_t capacity = std::size_t{1} << 18, old_count = capacity / 2, distinct = capacity * 97 / 100;
  const std::vector<std::uint32_t> keys = distinct_keys(distinct, seed);
  const std::vector<std::uint32_t> old(keys.begin(), keys.begin() + old_count);
  std::unordered_map<std::uint32_t, std::uint32_t> ignored;
  Map map(capacity);
  ASSERT_EQ(test::insert_batch(map, old, numbered(old, 1, ignored)).inserted, old_count);

  std::mt19937_64 rng(seed);
  std::vector<std::uint32_t> batch, values;
  std::unordered_map<std::uint32_t, std::unordered_set<std::uint32_t>> allowed;  // key -> its values in the batch
  for (const std::uint32_t k : keys)
    for (std::uint64_t copies = 1 + rng() % 3, c = 0; c < copies; ++c) {
      const auto v = static_cast<std::uint32_t>(batch.size()) + (1u << 24);
      batch.push_back(k), values.push_back(v), allowed[k].insert(v);
    }
  std::vector<std::size_t> order(batch.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::shuffle(order.begin(), order.end(), rng);
  std::vector<std::uint32_t> shuffled_keys, shuffled_values;
  for (const std::size_t i : order) shuffled_keys.push_back(batch[i]), shuffled_values.push_back(values[i]);

  const hash_result r = test::insert_batch(map, shuffled_keys, shuffled_values);
  EXPECT_EQ(r.inserted, distinct - old_count) << "only new keys count as added";
  EXPECT_EQ(r.failed, 0u);
  EXPECT_GT(r.displacements, 0u);
  EXPECT_EQ(map.size(), distinct) << "a key was lost or stored twice";
  expect_table_invariants(map);
  const std::vector<std::uint32_t> got = find_all(map, keys);
  for (std::size_t i = 0; i < keys.size(); ++i)
    ASSERT_TRUE(allowed[keys[i]].contains(got[i]))
        << "key " << keys[i] << " has value " << got[i] << ", none of its batch's (index " << i << ")";
}

TEST(BucketedCuckoo, UpdatesAndDuplicatesRacingMovesKeepOneValueOfTheBatch) {
  GRAPHKIT_REQUIRE_GPU();
  updates_and_duplicates_racing_moves(test::fresh_seed());
}

/// Hashes into the lowest sixteenth of the range: every key's two buckets lie
/// in the first sixteenth of the table, which fills far past the table's
/// load, so nearly every insert there is deferred, on few, contended locks.
struct skewed_hash {
  __host__ __device__ std::uint32_t operator()(std::uint32_t k) const { return murmur3_hash{}(k) >> 4; }
};

TEST(BucketedCuckoo, SkewedKeysOnASixteenthOfTheBucketsFillItAndThenFailWithoutLosingAny) {
  GRAPHKIT_REQUIRE_GPU();
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  using skewed = bucketed_cuckoo_map<std::uint32_t, std::uint32_t, skewed_hash>;
  const std::size_t capacity = std::size_t{1} << 16, used = capacity / 16;
  skewed map(capacity);
  // Fill the used sixteenth to 0.9 in one batch, each key twice (the second copy's value wins or loses).
  const std::vector<std::uint32_t> keys = distinct_keys(used * 9 / 10, seed);
  std::vector<std::uint32_t> twice(keys), values;
  twice.insert(twice.end(), keys.begin(), keys.end());
  std::unordered_map<std::uint32_t, std::uint32_t> model;
  values = numbered(twice, 1, model);
  const hash_result r = test::insert_batch(map, twice, values);
  EXPECT_EQ(r.inserted, keys.size());
  EXPECT_EQ(r.failed, 0u);
  expect_table_invariants(map);
  ASSERT_EQ(map.size(), keys.size());
  const std::vector<std::uint32_t> got = find_all(map, keys);
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const auto first = static_cast<std::uint32_t>(1 + i), second = static_cast<std::uint32_t>(1 + keys.size() + i);
    ASSERT_TRUE(got[i] == first || got[i] == second) << "key " << keys[i] << " has value " << got[i];
    model[keys[i]] = got[i];
  }
  // As many keys again: the sixteenth overflows. Some fail (reported, and
  // insert() throws); none of the keys already there is lost or changed,
  // and each key reported added is there once.
  const std::vector<std::uint32_t> more = distinct_keys(2 * keys.size(), seed + 1);
  std::vector<std::uint32_t> extra;
  for (const std::uint32_t k : more)
    if (!model.contains(k) && extra.size() < keys.size()) extra.push_back(k);
  const std::vector<std::uint32_t> extra_values(extra.size(), 77);
  const hash_result over = test::insert_batch(map, extra, extra_values);
  EXPECT_GT(over.failed, 0u) << "the sixteenth should overflow";
  EXPECT_EQ(over.inserted + over.failed, extra.size());
  expect_table_invariants(map);
  std::size_t placed = 0;
  for (const std::uint32_t v : find_all(map, extra)) {
    ASSERT_TRUE(v == 77u || v == kEmptyValue) << v;
    placed += v == 77u;
  }
  EXPECT_EQ(placed, over.inserted);
  EXPECT_EQ(map.size(), keys.size() + over.inserted);
  const std::vector<std::uint32_t> still = find_all(map, keys);
  for (std::size_t i = 0; i < keys.size(); ++i) ASSERT_EQ(still[i], model[keys[i]]) << "key " << keys[i] << " lost";
  device_buffer<std::uint32_t> d_extra{std::span<const std::uint32_t>(extra)},
      d_extra_values{std::span<const std::uint32_t>(extra_values)};
  EXPECT_THROW(map.insert(d_extra.data(), d_extra_values.data(), extra.size()), resource_error);
}

/// A full table: the batch's updates of present keys all land, its new keys
/// fill what room is left and the rest fail with the give-up flag, and no
/// key present before is lost.
TEST(BucketedCuckoo, AFullTableUpdatesItsKeysAndLosesNoneWhenNewOnesFail) {
  GRAPHKIT_REQUIRE_GPU();
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  const std::size_t capacity = std::size_t{1} << 16, n = capacity * 96 / 100;
  const std::vector<std::uint32_t> all = distinct_keys(n + capacity / 10, seed);
  const std::vector<std::uint32_t> keys(all.begin(), all.begin() + n), fresh(all.begin() + n, all.end());
  std::unordered_map<std::uint32_t, std::uint32_t> model;
  cuckoo map(capacity);
  ASSERT_EQ(test::insert_batch(map, keys, numbered(keys, 1, model)).inserted, n);
  std::vector<std::uint32_t> batch(keys), values(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) values[i] = keys[i] ^ 0x5a5a5a5au, model[keys[i]] = values[i];
  batch.insert(batch.end(), fresh.begin(), fresh.end());
  values.insert(values.end(), fresh.size(), 3);
  std::vector<std::size_t> order(batch.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::shuffle(order.begin(), order.end(), std::mt19937_64(seed));
  std::vector<std::uint32_t> shuffled_keys, shuffled_values;
  for (const std::size_t i : order) shuffled_keys.push_back(batch[i]), shuffled_values.push_back(values[i]);
  const hash_result r = test::insert_batch(map, shuffled_keys, shuffled_values);
  EXPECT_GT(r.failed, 0u) << "6% free slots cannot take 10% more keys";
  EXPECT_EQ(r.inserted + r.failed, fresh.size()) << "updates count as neither";
  expect_table_invariants(map);
  const std::vector<std::uint32_t> got = find_all(map, keys);
  for (std::size_t i = 0; i < keys.size(); ++i) ASSERT_EQ(got[i], model[keys[i]]) << "key " << keys[i];
  std::size_t placed = 0;
  for (const std::uint32_t v : find_all(map, fresh)) placed += v == 3u;
  EXPECT_EQ(placed, r.inserted);
  EXPECT_EQ(map.size(), n + r.inserted);
}

/// Batches of one key into a table up to 0.95: each deferred insert is the
/// only one in its second pass (one warp's segment holds it). (At 0.97
/// a sequential model of the insert fails 1 fill in 1500 of a table this
/// small; in 5000 it failed none at 0.95.)
TEST(BucketedCuckoo, SingleKeyBatchesFillASmallTableTo95Percent) {
  GRAPHKIT_REQUIRE_GPU();
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  const std::size_t capacity = 512, n = capacity * 95 / 100;
  const std::vector<std::uint32_t> keys = distinct_keys(n, seed);
  std::unordered_map<std::uint32_t, std::uint32_t> model;
  const std::vector<std::uint32_t> values = numbered(keys, 1, model);
  cuckoo map(capacity);
  std::uint64_t moves = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const hash_result r = test::insert_batch(map, {keys[i]}, {values[i]});
    ASSERT_EQ(r.inserted, 1u) << "key index " << i;
    moves += r.displacements;
  }
  EXPECT_GT(moves, 0u);
  expect_table_invariants(map);
  test::expect_same_as(map, model);
  // And a one-key batch of a present key is an update.
  EXPECT_EQ(test::insert_batch(map, {keys[0]}, {12345u}).inserted, 0u);
  EXPECT_EQ(find_all(map, {keys[0]}), std::vector<std::uint32_t>{12345u});
}

// ---- the bulk insert's two passes and its chunks (the header's "Bulk insert in two passes") ----

TEST(BucketedCuckoo, TheBulkInsertChunkIsAQuarterOfTheSlotsAndAtLeast4096) {
  GRAPHKIT_REQUIRE_GPU();
  EXPECT_EQ(cuckoo(1 << 20).insert_chunk(), std::size_t{1} << 18);
  EXPECT_EQ(cuckoo(1 << 14).insert_chunk(), kCuckooInsertChunkMin);
  EXPECT_EQ(cuckoo(1).insert_chunk(), kCuckooInsertChunkMin);
}

/// A table filled to 0.88, then one batch that updates every key in it and
/// brings new keys up to 0.95, each new key 1 to 3 times with different
/// values, shuffled, in batches whose sizes sit on a chunk boundary (one
/// short of, at, one past whole chunks). Most new keys find both buckets full
/// and go to the second pass; copies of one key land in one chunk (both
/// deferred: they meet under bucket 1's lock) or in different ones (a later
/// chunk's first pass updates what an earlier second pass placed). Each key
/// ends once with one of its batch's values; only new keys count as added.
void chunk_boundary_batch(std::ptrdiff_t off_by, std::uint64_t seed) {
  SCOPED_TRACE(testing::Message() << "batch of whole chunks " << (off_by < 0 ? "" : "+") << off_by);
  GRAPHKIT_SEED_TRACE(seed);
  const std::size_t capacity = std::size_t{1} << 15, old_count = capacity * 88 / 100, distinct = capacity * 95 / 100;
  cuckoo map(capacity);
  const std::size_t chunk = map.insert_chunk();
  const std::vector<std::uint32_t> keys = distinct_keys(distinct, seed);
  const std::vector<std::uint32_t> old(keys.begin(), keys.begin() + old_count);
  std::unordered_map<std::uint32_t, std::uint32_t> old_values;
  ASSERT_EQ(test::insert_batch(map, old, numbered(old, 1, old_values)).inserted, old_count);

  std::mt19937_64 rng(seed);
  std::vector<std::pair<std::uint32_t, std::uint32_t>> batch;  // (key, value)
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const std::uint64_t copies = i < old_count ? 1 : 1 + rng() % 3;
    for (std::uint64_t c = 0; c < copies; ++c) batch.emplace_back(keys[i], static_cast<std::uint32_t>(batch.size()));
  }
  std::shuffle(batch.begin(), batch.end(), rng);
  // Trim or pad (with more updates of old keys) to whole chunks + off_by, keeping every new key.
  const std::size_t target = (batch.size() + chunk / 2) / chunk * chunk + off_by;
  std::stable_partition(batch.begin(), batch.end(), [&](const auto& e) { return !old_values.contains(e.first); });
  while (batch.size() > target && old_values.contains(batch.back().first)) batch.pop_back();
  while (batch.size() < target) batch.emplace_back(old[rng() % old_count], static_cast<std::uint32_t>(batch.size()));
  ASSERT_EQ(batch.size(), target) << "too few old keys to trim";
  std::shuffle(batch.begin(), batch.end(), rng);
  std::vector<std::uint32_t> batch_keys, batch_values;
  std::unordered_map<std::uint32_t, std::unordered_set<std::uint32_t>> allowed;
  for (std::size_t i = 0; i < batch.size(); ++i) {
    batch[i].second = static_cast<std::uint32_t>(i) + (1u << 24);  // distinct values, so a value names its input
    batch_keys.push_back(batch[i].first), batch_values.push_back(batch[i].second);
    allowed[batch[i].first].insert(batch[i].second);
  }
  const hash_result r = test::insert_batch(map, batch_keys, batch_values);
  EXPECT_EQ(r.inserted, distinct - old_count) << "only new keys count as added, each once";
  EXPECT_EQ(r.failed, 0u);
  EXPECT_GT(r.displacements, 0u) << "no deferred insert moved a key";
  EXPECT_EQ(map.size(), distinct) << "a key was lost or stored twice";
  expect_table_invariants(map);
  const std::vector<std::uint32_t> got = find_all(map, keys);
  for (std::size_t i = 0; i < keys.size(); ++i) {
    if (!allowed.contains(keys[i])) {
      ASSERT_EQ(got[i], old_values.at(keys[i])) << "an old key left out of the batch changed";
      continue;
    }
    ASSERT_TRUE(allowed[keys[i]].contains(got[i]))
        << "key " << keys[i] << " has value " << got[i] << ", none of its batch's (index " << i << ")";
  }
}

TEST(BucketedCuckoo, BatchesOnChunkBoundariesLoseAndDoubleNoKey) {
  GRAPHKIT_REQUIRE_GPU();
  const std::uint64_t seed = test::fresh_seed();
  for (const std::ptrdiff_t off_by : {-1, 0, 1}) chunk_boundary_batch(off_by, seed + 3 * off_by);
}

/// Hashes into the lower half of the range: every key's two buckets lie in
/// the first half of the table.
struct half_hash {
  __host__ __device__ std::uint32_t operator()(std::uint32_t k) const { return murmur3_hash{}(k) >> 1; }
};

/// The used half filled to 0.95 of its slots in one batch of 4 chunks, each
/// key twice with different values: past load 0.8 of the half nearly every
/// insert defers, so the second passes do a large share of the work, and the
/// values (one per input) show that each came from its own input.
TEST(BucketedCuckoo, ASecondPassOfMostOfABatchKeepsEveryKeyAndValue) {
  GRAPHKIT_REQUIRE_GPU();
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  using half = bucketed_cuckoo_map<std::uint32_t, std::uint32_t, half_hash>;
  const std::size_t capacity = std::size_t{1} << 16, distinct = capacity / 2 * 95 / 100;
  half map(capacity);
  const std::vector<std::uint32_t> keys = distinct_keys(distinct, seed);
  std::vector<std::uint32_t> twice(keys);
  twice.insert(twice.end(), keys.begin(), keys.end());
  std::shuffle(twice.begin(), twice.end(), std::mt19937_64(seed));
  ASSERT_GE(twice.size(), 3 * map.insert_chunk());
  std::vector<std::uint32_t> values(twice.size());
  std::unordered_map<std::uint32_t, std::unordered_set<std::uint32_t>> allowed;
  for (std::size_t i = 0; i < twice.size(); ++i)
    values[i] = static_cast<std::uint32_t>(i + 1), allowed[twice[i]].insert(values[i]);
  const hash_result r = test::insert_batch(map, twice, values);
  EXPECT_EQ(r.inserted, distinct);
  EXPECT_EQ(r.failed, 0u);
  EXPECT_GT(r.displacements, distinct / 50) << "the second pass should have moved many keys";
  EXPECT_EQ(map.size(), distinct);
  expect_table_invariants(map);
  const std::vector<std::uint32_t> got = find_all(map, keys);
  for (std::size_t i = 0; i < keys.size(); ++i)
    ASSERT_TRUE(allowed[keys[i]].contains(got[i])) << "key " << keys[i] << " has value " << got[i];
}

/// Four times a small table's slots in distinct keys, one call of 16 chunks:
/// the table fills, the first failure's give-up flag carries over to the
/// later chunks' second passes, and the report is exact: every key counted
/// added or failed, the added ones present once with their own values, the
/// failed ones absent.
TEST(BucketedCuckoo, AnOverfullBatchOfManyChunksReportsEveryKeyExactly) {
  GRAPHKIT_REQUIRE_GPU();
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  const std::size_t capacity = std::size_t{1} << 14;
  cuckoo map(capacity);
  const std::vector<std::uint32_t> keys = distinct_keys(4 * capacity, seed);
  std::vector<std::uint32_t> values(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) values[i] = keys[i] ^ 0x5a5a5a5au;
  ASSERT_GE(keys.size(), 16 * map.insert_chunk());
  const auto started = std::chrono::steady_clock::now();
  const hash_result r = test::insert_batch(map, keys, values);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(), 10.0);
  EXPECT_GT(r.failed, 0u);
  EXPECT_EQ(r.inserted + r.failed, keys.size());
  EXPECT_EQ(map.size(), r.inserted);
  EXPECT_GT(map.size(), capacity * 9 / 10) << "the table should fill almost completely first";
  expect_table_invariants(map);
  std::size_t found = 0;
  const std::vector<std::uint32_t> got = find_all(map, keys);
  for (std::size_t i = 0; i < keys.size(); ++i) {
    if (got[i] == kEmptyValue) continue;
    ASSERT_EQ(got[i], values[i]) << "key " << keys[i];
    ++found;
  }
  EXPECT_EQ(found, r.inserted);
}

/// Every key has the same first bucket (0), hence the same second bucket (1).
struct one_bucket_hash {
  __host__ __device__ std::uint32_t operator()(std::uint32_t) const { return 0; }
};

TEST(BucketedCuckoo, KeysConfinedToTwoBucketsFillThemThenFail) {
  GRAPHKIT_REQUIRE_GPU();
  bucketed_cuckoo_map<std::uint32_t, std::uint32_t, one_bucket_hash> map(256);
  const std::size_t fits = 2 * kCuckooBucketSlots;
  std::vector<std::uint32_t> keys(fits), values(fits);
  for (std::uint32_t i = 0; i < fits; ++i) keys[i] = 10 + 3 * i, values[i] = i;
  device_buffer<std::uint32_t> d_keys{std::span<const std::uint32_t>(keys)},
      d_values{std::span<const std::uint32_t>(values)};
  EXPECT_EQ(map.insert(d_keys.data(), d_values.data(), fits), fits);
  EXPECT_EQ(map.second_bucket_size(), kCuckooBucketSlots);
  EXPECT_EQ(find_all(map, keys), values);
  // One more key has nowhere to go: a reported failure, not a hang.
  const std::vector<std::uint32_t> extra{99}, extra_value{1};
  device_buffer<std::uint32_t> d_extra{std::span<const std::uint32_t>(extra)},
      d_extra_value{std::span<const std::uint32_t>(extra_value)};
  hash_counts counts;
  map.insert_async(d_extra.data(), d_extra_value.data(), 1, counts);
  EXPECT_EQ(counts.result().failed, 1u);
  EXPECT_THROW(map.insert(d_extra.data(), d_extra_value.data(), 1), resource_error);
  // Erase one: its dead slot is reused by the locked path.
  device_buffer<std::uint32_t> d_first{std::span<const std::uint32_t>(keys.data(), 1)};
  EXPECT_EQ(map.erase(d_first.data(), 1), 1u);
  EXPECT_EQ(map.insert(d_extra.data(), d_extra_value.data(), 1), 1u);
  EXPECT_EQ(find_all(map, extra), extra_value);
  EXPECT_EQ(find_all(map, std::vector<std::uint32_t>{keys[0]}), std::vector<std::uint32_t>{kEmptyValue});
  EXPECT_EQ(map.size(), fits);
}

TEST(BucketedCuckoo, SentinelsAreRefusedAndCounted) {
  GRAPHKIT_REQUIRE_GPU();
  const std::vector<std::uint32_t> keys{1, 0xffffffffu, 0xfffffffeu, 4}, values{1, 2, 3, kEmptyValue};
  cuckoo map(64);
  device_buffer<std::uint32_t> d_keys{std::span<const std::uint32_t>(keys)},
      d_values{std::span<const std::uint32_t>(values)};
  EXPECT_THROW(map.insert(d_keys.data(), d_values.data(), keys.size()), error);
  hash_counts counts;
  map.clear();
  map.insert_async(d_keys.data(), d_values.data(), keys.size(), counts);
  EXPECT_EQ(counts.result().sentinel, 3u);
  EXPECT_EQ(map.size(), 1u);
  EXPECT_EQ(find_all(map, keys), (std::vector<std::uint32_t>{1, kEmptyValue, kEmptyValue, kEmptyValue}));
}

// ---- mixed batches ----------------------------------------------------------------------

TEST(BucketedCuckoo, MixedBatchFollowsTheDocumentedSemantics) {
  GRAPHKIT_REQUIRE_GPU();
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  cuckoo map(1 << 15);
  test::expect_mixed_batch_semantics(map, 1 << 15, seed);
}

/// The bench's mixed batch (hash_bench, 40/40/20 from load 0.9: the row that
/// printed WRONG in run 1), scaled down and checked op by op: every insert is
/// of a new key, every erase of a key of the fill, so each result, the counts
/// and the final table are known exactly. Inserts must reuse erased keys'
/// slots (the table stays at 0.9 live, nearly full counting dead keys), while
/// those erases run in the same batch. `load` is the starting load, and each
/// new key is inserted `copies` times in the batch (duplicates racing each
/// other: one result kHashInserted, the others kHashUpdated, one copy stored).
///
/// Above load 0.9 the test asks only what the map promises: an insert fails
/// only where no path of up to kMaxEvictionDepth + 1 moves is found, and
/// from 0.97 the batch leaves more live keys than that allows (20/20: 99.4%
/// of the slots; 40/40: more keys than slots), so inserts must fail there,
/// and even the fill may fail a key (one of 65536 did at 0.97). Then every
/// failure must be reported (kHashFailed) and counted, a key whose inserts
/// all failed must be absent and every other new key present once, and the
/// batch starts from the keys the fill placed. At 0.9 nothing may fail.
template <class Map = cuckoo>
void mixed_from_full(int insert_share, int erase_share, std::uint64_t seed, double load = 0.9, int copies = 1) {
  SCOPED_TRACE(testing::Message() << "mixed " << insert_share << "/" << erase_share << " from " << load << ", "
                                  << copies << " copies of each insert");
  const bool may_fail = load > 0.9;
  const std::size_t n = 1 << 16, capacity = static_cast<std::size_t>(n / load);
  Map map(capacity);
  const std::vector<std::uint32_t> keys = distinct_keys(3 * n, seed);
  std::vector<std::uint32_t> old_keys(keys.begin(), keys.begin() + n), old_values(n);
  for (std::size_t i = 0; i < n; ++i) old_values[i] = static_cast<std::uint32_t>(i);
  device_buffer<std::uint32_t> d_old{std::span<const std::uint32_t>(old_keys)},
      d_old_values{std::span<const std::uint32_t>(old_values)};
  hash_counts fill_counts;
  map.insert_async(d_old.data(), d_old_values.data(), n, fill_counts);
  const hash_result filled = fill_counts.result();
  if (!may_fail) ASSERT_EQ(filled.failed, 0u);
  ASSERT_EQ(filled.inserted + filled.failed, n);
  // Which keys of the fill the table holds (each with its own value, or absent).
  std::vector<bool> held(n);
  const std::vector<std::uint32_t> got_fill = find_all(map, old_keys);
  for (std::size_t i = 0; i < n; ++i) {
    held[i] = got_fill[i] == static_cast<std::uint32_t>(i);
    ASSERT_TRUE(held[i] || got_fill[i] == kEmptyValue) << "old key index " << i;
  }
  ASSERT_EQ(static_cast<std::size_t>(std::count(held.begin(), held.end(), true)), filled.inserted);
  std::mt19937_64 rng(seed);
  std::vector<op> ops;
  // Keys [2n, 3n) are never inserted: one erase in 8 and one find in 4 ask
  // for one of them (absent: first buckets are mostly full at 0.9, so these
  // read both buckets while moves run, and the erases take the locked look).
  std::size_t next_new = n, next_old = 0, inserts = 0, erases = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const auto pick = static_cast<int>(rng() % 100);
    const bool absent = rng() % 8 == 0;
    const std::uint32_t never = keys[2 * n + rng() % n];
    if (pick < insert_share) {
      for (int c = 0; c < copies; ++c) ops.push_back({hash_op_kind::insert, keys[next_new], 7});
      ++next_new, ++inserts;
    } else if (pick < insert_share + erase_share && absent) {
      ops.push_back({hash_op_kind::erase, never, 0});
    } else if (pick < insert_share + erase_share) {
      erases += held[next_old];
      ops.push_back({hash_op_kind::erase, old_keys[next_old++], 0});
    } else if (rng() % 4 == 0) {
      ops.push_back({hash_op_kind::find, never, 0});
    } else {
      ops.push_back({hash_op_kind::find, old_keys[rng() % n], 0});
    }
  }
  if (copies > 1) std::shuffle(ops.begin(), ops.end(), rng);  // copies apart, in no order
  std::unordered_map<std::uint32_t, std::size_t> old_index;
  for (std::size_t i = 0; i < n; ++i) old_index[old_keys[i]] = i;
  const auto [r, results] = test::apply_batch(map, ops);
  std::size_t bad_inserts = 0, bad_erases = 0, bad_absent_erases = 0, missed_finds = 0, bad_absent_finds = 0;
  std::uint64_t failed_results = 0;
  // New key -> inserts that reported it added, and that reported it updated.
  std::unordered_map<std::uint32_t, std::pair<int, int>> added;
  for (std::size_t o = 0; o < ops.size(); ++o) {
    const auto old = old_index.find(ops[o].key);
    const bool is_old = old != old_index.end(), was_held = is_old && held[old->second];
    if (ops[o].kind == hash_op_kind::insert) {
      added[ops[o].key].first += results[o] == kHashInserted;
      added[ops[o].key].second += results[o] == kHashUpdated;
      failed_results += results[o] == kHashFailed;
      bad_inserts +=
          results[o] != kHashInserted && results[o] != kHashUpdated && !(may_fail && results[o] == kHashFailed);
    }
    if (ops[o].kind == hash_op_kind::erase) {
      if (was_held) bad_erases += results[o] != kHashErased;
      else bad_absent_erases += results[o] != kHashAbsent;
    }
    if (ops[o].kind == hash_op_kind::find && !was_held) bad_absent_finds += results[o] != kEmptyValue;
    if (ops[o].kind == hash_op_kind::find && was_held) {
      const auto i = static_cast<std::uint32_t>(old->second);
      // Erased in this batch: its value or absent; otherwise present throughout.
      missed_finds += old->second < next_old ? results[o] != i && results[o] != kEmptyValue : results[o] != i;
    }
  }
  // Every new key added once (or, where failures are allowed, at most once, and updated only once added).
  std::size_t wrongly_added = 0, new_keys_stored = 0;
  for (const auto& [k, times] : added) {
    wrongly_added += may_fail ? times.first > 1 || (times.first == 0 && times.second > 0) : times.first != 1;
    new_keys_stored += times.first == 1;
  }
  EXPECT_EQ(r.failed, failed_results) << "failures counted as reported";
  if (!may_fail) EXPECT_EQ(r.failed, 0u);
  EXPECT_EQ(bad_inserts, 0u) << "inserts of new keys that reported neither added nor updated (nor failed)";
  EXPECT_EQ(wrongly_added, 0u) << "new keys added twice, or not as their results say";
  EXPECT_EQ(bad_erases, 0u) << "erases of present keys that did not return kHashErased";
  EXPECT_EQ(bad_absent_erases, 0u) << "erases of absent keys that did not return kHashAbsent";
  EXPECT_EQ(missed_finds, 0u) << "finds of present keys that missed (or read a wrong value)";
  EXPECT_EQ(bad_absent_finds, 0u) << "finds of absent keys that found something";
  EXPECT_EQ(r.inserted, new_keys_stored);
  EXPECT_EQ(r.erased, erases);
  EXPECT_EQ(map.size(), filled.inserted - erases + new_keys_stored);
  expect_table_invariants(map);
  // The final table: erased and unplaced keys absent, the other old keys and every added new key present.
  const std::vector<std::uint32_t> got_old = find_all(map, old_keys);
  for (std::size_t i = 0; i < n; ++i)
    ASSERT_EQ(got_old[i], i < next_old || !held[i] ? kEmptyValue : static_cast<std::uint32_t>(i))
        << "old key index " << i;
  const std::vector<std::uint32_t> fresh(keys.begin() + n, keys.begin() + next_new);
  const std::vector<std::uint32_t> got_fresh = find_all(map, fresh);
  for (std::size_t j = 0; j < fresh.size(); ++j)
    ASSERT_EQ(got_fresh[j], added[fresh[j]].first == 1 ? 7u : kEmptyValue) << "new key " << j;
}

TEST(BucketedCuckoo, MixedBatchesFromLoad90KeepExactCounts) {
  GRAPHKIT_REQUIRE_GPU();
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  mixed_from_full(20, 20, seed);
  mixed_from_full(40, 40, seed + 1);
  mixed_from_full(45, 45, seed + 2);
}

// Duplicates, skew and a full table: each new key inserted 4 times in the
// shuffled batch (copies racing in the lock-free claims and the later passes;
// step 28's one-kernel and per-chunk modes failed tens of thousands of these
// inserts, as their orders put most first copies before most erases), keys on a sixteenth of the buckets (that part
// at 0.9: few, contended locks), and a table filled to 0.97, where inserts
// must fail (mixed_from_full says what is then checked).
TEST(BucketedCuckoo, MixedBatchesWithDuplicatesSkewAndLoad97KeepExactCounts) {
  GRAPHKIT_REQUIRE_GPU();
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  mixed_from_full(40, 40, seed, 0.9, 4);
  mixed_from_full<bucketed_cuckoo_map<std::uint32_t, std::uint32_t, skewed_hash>>(40, 40, seed + 1, 0.9 / 16);
  mixed_from_full(20, 20, seed + 2, 0.97);
  mixed_from_full(40, 40, seed + 3, 0.97, 2);
}

/// Step 28: batches of one map, smaller than, larger than (apply_async's
/// lists grow) and again smaller than one chunk of
/// insert_chunk() operations, from load 0.9 with a tenth of the keys erased:
/// a third of each batch inserts new keys (into dead slots, or by moves), a
/// third erases live keys, a third finds untouched ones; every result, the
/// counts and the table after each batch must match a std::unordered_map.
/// With contended_hash every lock of a path's later buckets looks held in
/// the parallel pass, so inserts that need moves are left to the last pass
/// (apply_async's own leftover list).
template <class Map>
void whole_and_chunked_batches(std::uint64_t seed) {
  GRAPHKIT_SEED_TRACE(seed);
  const std::size_t capacity = 1 << 15, n = capacity * 9 / 10, dead = n / 10;
  const std::vector<std::size_t> sizes{600, 3 * (capacity / 4), 3000};  // the chunk: capacity / 4
  std::size_t fresh_needed = 0;
  for (const std::size_t b : sizes) fresh_needed += b / 3;
  const std::vector<std::uint32_t> keys = distinct_keys(n + fresh_needed, seed);
  Map map(capacity);
  ASSERT_EQ(map.insert_chunk(), capacity / 4);
  std::unordered_map<std::uint32_t, std::uint32_t> model;
  const std::vector<std::uint32_t> filling(keys.begin(), keys.begin() + n);
  ASSERT_EQ(test::insert_batch(map, filling, numbered(filling, 1, model)).inserted, n);
  device_buffer<std::uint32_t> d_keys{std::span<const std::uint32_t>(keys)};
  ASSERT_EQ(map.erase(d_keys.data(), dead), dead);
  for (std::size_t i = 0; i < dead; ++i) model.erase(keys[i]);
  std::vector<std::uint32_t> live(keys.begin() + dead, keys.begin() + n);
  std::size_t next_fresh = n;
  std::mt19937_64 rng(seed);
  for (const std::size_t b : sizes) {
    SCOPED_TRACE(testing::Message() << "batch of " << b);
    std::shuffle(live.begin(), live.end(), rng);
    std::vector<op> ops;
    std::vector<std::uint32_t> want;
    for (std::size_t j = 0; j < b / 3; ++j, ++next_fresh) {
      const std::uint32_t k = keys[next_fresh], v = (1u << 30) + static_cast<std::uint32_t>(next_fresh);
      ops.push_back({hash_op_kind::insert, k, v}), want.push_back(kHashInserted);
      ops.push_back({hash_op_kind::erase, live[j], 0}), want.push_back(kHashErased);
      ops.push_back({hash_op_kind::find, live[b / 3 + j], 0}), want.push_back(model.at(live[b / 3 + j]));
    }
    std::vector<std::size_t> order(ops.size());
    for (std::size_t o = 0; o < order.size(); ++o) order[o] = o;
    std::shuffle(order.begin(), order.end(), rng);
    std::vector<op> shuffled;
    for (const std::size_t o : order) shuffled.push_back(ops[o]);
    const auto [r, results] = test::apply_batch(map, shuffled);
    std::size_t wrong = 0;
    for (std::size_t o = 0; o < order.size(); ++o) wrong += results[o] != want[order[o]];
    EXPECT_EQ(wrong, 0u) << "results that differ from the model's";
    EXPECT_EQ(r.inserted, b / 3);
    EXPECT_EQ(r.erased, b / 3);
    EXPECT_EQ(r.failed, 0u);
    for (std::size_t j = 0; j < b / 3; ++j) {
      const op& insert = ops[3 * j];
      model[insert.key] = insert.value;
      model.erase(live[j]);
      live[j] = insert.key;  // live now; the erased key is gone
    }
    expect_table_invariants(map);
    test::expect_same_as(map, model);
  }
}

TEST(BucketedCuckoo, MixedBatchesAroundTheChunkSizeKeepEveryKey) {
  GRAPHKIT_REQUIRE_GPU();
  whole_and_chunked_batches<cuckoo>(test::fresh_seed());
  whole_and_chunked_batches<bucketed_cuckoo_map<std::uint32_t, std::uint32_t, contended_hash>>(test::fresh_seed());
}

/// Every key of a table at 0.8 gets an insert and an erase in one batch
/// (half of them present before): each pair must follow one of the two
/// orders, and the counts and size must agree.
void insert_and_erase_of_one_key() {
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  const std::size_t capacity = 1 << 14, n = capacity * 8 / 10;
  const std::vector<std::uint32_t> keys = distinct_keys(n, seed);
  // Even keys start present with value 1; every key gets an insert (value 2) and an erase.
  cuckoo map(capacity);
  std::vector<std::uint32_t> even;
  for (std::size_t i = 0; i < n; i += 2) even.push_back(keys[i]);
  const std::vector<std::uint32_t> ones(even.size(), 1);
  device_buffer<std::uint32_t> d_even{std::span<const std::uint32_t>(even)},
      d_ones{std::span<const std::uint32_t>(ones)};
  map.insert(d_even.data(), d_ones.data(), even.size());
  std::vector<op> ops;
  for (const std::uint32_t k : keys)
    ops.push_back({hash_op_kind::insert, k, 2}), ops.push_back({hash_op_kind::erase, k, 0});
  std::shuffle(ops.begin(), ops.end(), std::mt19937_64(seed + 1));
  const test::applied batch = test::apply_batch(map, ops);
  const std::vector<std::uint32_t> results = batch.results;
  std::unordered_map<std::uint32_t, std::pair<std::uint32_t, std::uint32_t>> outcome;  // key -> (insert, erase)
  for (std::size_t o = 0; o < ops.size(); ++o)
    (ops[o].kind == hash_op_kind::insert ? outcome[ops[o].key].first : outcome[ops[o].key].second) = results[o];
  const std::vector<std::uint32_t> got = find_all(map, keys);
  std::uint64_t inserted = 0, erased = 0, live = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const bool was_present = i % 2 == 0;
    const auto [ins, era] = outcome[keys[i]];
    inserted += ins == kHashInserted;
    erased += era == kHashErased;
    live += got[i] != kEmptyValue;
    if (got[i] != kEmptyValue) {
      // Erase first, then insert.
      ASSERT_EQ(got[i], 2u);
      ASSERT_EQ(era, was_present ? kHashErased : kHashAbsent) << "key index " << i;
      ASSERT_EQ(ins, kHashInserted) << "key index " << i;
    } else {
      // Insert first, then erase.
      ASSERT_EQ(ins, was_present ? kHashUpdated : kHashInserted) << "key index " << i;
      ASSERT_EQ(era, kHashErased) << "key index " << i;
    }
  }
  const hash_result r = batch.counts;
  EXPECT_EQ(r.inserted, inserted);
  EXPECT_EQ(r.erased, erased);
  EXPECT_EQ(map.size(), live);
}

TEST(BucketedCuckoo, InsertAndEraseOfOneKeyInOneBatchApplyInSomeOrder) {
  GRAPHKIT_REQUIRE_GPU();
  insert_and_erase_of_one_key();
}

/// Whether some order of one key's operations (indices into ops) explains
/// their results and the key's value after the batch (`after`; kEmptyValue:
/// absent), from its value before it (`before`): the header's batch
/// semantics, under which the operations on one key apply in some order.
bool some_order_explains(std::vector<std::size_t> mine, const std::vector<op>& ops,
                         const std::vector<std::uint32_t>& results, std::uint32_t before, std::uint32_t after) {
  std::sort(mine.begin(), mine.end());
  do {
    std::uint32_t value = before;
    bool matches = true;
    for (const std::size_t o : mine) {
      const bool present = value != kEmptyValue;
      std::uint32_t expected = value;  // a find
      if (ops[o].kind == hash_op_kind::insert) {
        expected = present ? kHashUpdated : kHashInserted;
        value = ops[o].value;
      } else if (ops[o].kind == hash_op_kind::erase) {
        expected = present ? kHashErased : kHashAbsent;
        value = kEmptyValue;
      }
      matches = matches && results[o] == expected;
    }
    if (matches && value == after) return true;
  } while (std::next_permutation(mine.begin(), mine.end()));
  return false;
}

// Step 27: a key inserted (once or twice), found and erased in one batch,
// from a table at load 0.95 with a tenth of its keys erased first: most
// buckets are full (dead keys keep their slots), so inserts of new keys reuse
// dead slots or need moves, i.e. are deferred, and apply after the batch's
// finds and erases. New keys,
// erased (dead) keys and live keys each get the three operations; every key's
// results and final value must follow some order of its operations, and the
// counts, the size and the table's invariants must agree.
TEST(BucketedCuckoo, InsertFindAndEraseOfOneKeyInOneBatchApplyInSomeOrder) {
  GRAPHKIT_REQUIRE_GPU();
  {
    const std::uint64_t seed = test::fresh_seed();
    GRAPHKIT_SEED_TRACE(seed);
    const std::size_t capacity = 1 << 15, n = capacity * 95 / 100, m = capacity / 32, dead = n / 10;
    const std::vector<std::uint32_t> keys = distinct_keys(n + m, seed);
    cuckoo map(capacity);
    std::vector<std::uint32_t> values(n);
    for (std::size_t i = 0; i < n; ++i) values[i] = static_cast<std::uint32_t>(i);
    const device_buffer<std::uint32_t> d_keys{std::span<const std::uint32_t>(keys)},
        d_values{std::span<const std::uint32_t>(values)};
    ASSERT_EQ(map.insert(d_keys.data(), d_values.data(), n), n);
    ASSERT_EQ(map.erase(d_keys.data(), dead), dead);  // keys 0 .. dead - 1: dead slots to reuse
    std::mt19937_64 rng(seed + 1);
    std::vector<op> ops;
    std::unordered_map<std::uint32_t, std::uint32_t> before;  // key -> value before the batch
    const auto all_three = [&](std::uint32_t k, std::uint32_t value, int inserts, std::uint32_t was) {
      before[k] = was;
      for (int c = 0; c < inserts; ++c) ops.push_back({hash_op_kind::insert, k, value + static_cast<std::uint32_t>(c)});
      ops.push_back({hash_op_kind::find, k, 0});
      ops.push_back({hash_op_kind::erase, k, 0});
    };
    for (std::size_t j = 0; j < m; ++j) all_three(keys[n + j], 1u << 30, 1 + static_cast<int>(j % 2), kEmptyValue);
    for (std::size_t j = 0; j < m / 2; ++j) all_three(keys[j], 1u << 29, 1, kEmptyValue);
    for (std::size_t j = dead; j < dead + m / 2; ++j) all_three(keys[j], 1u << 28, 1, static_cast<std::uint32_t>(j));
    std::shuffle(ops.begin(), ops.end(), rng);
    const auto [r, results] = test::apply_batch(map, ops);
    expect_table_invariants(map);

    std::unordered_map<std::uint32_t, std::vector<std::size_t>> of_key;
    std::uint64_t inserted = 0, erased = 0;
    for (std::size_t o = 0; o < ops.size(); ++o) {
      of_key[ops[o].key].push_back(o);
      inserted += ops[o].kind == hash_op_kind::insert && results[o] == kHashInserted;
      erased += ops[o].kind == hash_op_kind::erase && results[o] == kHashErased;
    }
    std::vector<std::uint32_t> batch_keys;
    for (const auto& [k, was] : before) batch_keys.push_back(k);
    const std::vector<std::uint32_t> after = find_all(map, batch_keys);
    std::size_t unexplained = 0;
    std::int64_t live_change = 0;
    for (std::size_t b = 0; b < batch_keys.size(); ++b) {
      const std::uint32_t was = before[batch_keys[b]];
      unexplained += !some_order_explains(of_key[batch_keys[b]], ops, results, was, after[b]);
      live_change += (after[b] != kEmptyValue) - (was != kEmptyValue);
    }
    EXPECT_EQ(unexplained, 0u) << "keys whose results and final value follow no order of their operations";
    EXPECT_EQ(r.failed, 0u);
    EXPECT_EQ(r.inserted, inserted);
    EXPECT_EQ(r.erased, erased);
    EXPECT_EQ(static_cast<std::int64_t>(map.size()), static_cast<std::int64_t>(n - dead) + live_change);
    // The other keys are untouched: the rest of the dead ones absent, the live ones with their values.
    const std::vector<std::uint32_t> rest_dead(keys.begin() + m / 2, keys.begin() + dead),
        rest_live(keys.begin() + dead + m / 2, keys.begin() + n);
    for (const std::uint32_t v : find_all(map, rest_dead)) ASSERT_EQ(v, kEmptyValue);
    const std::vector<std::uint32_t> got = find_all(map, rest_live);
    for (std::size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i], dead + m / 2 + i) << "live key index " << i;
  }
}

TEST(BucketedCuckoo, MovesAtLoad95NeverHideAPresentKey) {
  GRAPHKIT_REQUIRE_GPU();
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  const std::size_t capacity = 1 << 16;
  cuckoo map(capacity);
  std::uint64_t moves = 0;
  const std::vector<std::uint32_t> live = test::churn_at_load_95(map, capacity, seed, moves);
  EXPECT_GT(moves, 0u) << "the stress test never moved a key";
  expect_table_invariants(map);
  EXPECT_EQ(map.size(), live.size());
  std::vector<std::uint32_t> expected(live.size());
  for (std::size_t i = 0; i < live.size(); ++i) expected[i] = live[i] ^ 0x5a5a5a5au;
  EXPECT_EQ(find_all(map, live), expected);
}

// ---- the contract ------------------------------------------------------------------

using tile4 = cooperative_groups::thread_block_tile<kCuckooTile>;
template <class Ref>
concept cuckoo_can_insert = requires(const Ref& r, const tile4& t) {
  r.insert(t, 1u, 1u);
};
template <class Ref>
concept cuckoo_can_find = requires(const Ref& r, const tile4& t) {
  r.find(t, 1u);
};
template <class Ref>
concept cuckoo_can_erase = requires(const Ref& r, const tile4& t) {
  r.erase(t, 1u);
};
static_assert(std::is_same_v<decltype(std::declval<const cuckoo&>().ref()), cuckoo::const_ref_type>);
static_assert(std::is_same_v<decltype(cuckoo::const_ref_type::slots), const hash_slot<std::uint32_t, std::uint32_t>*>);
static_assert(cuckoo_can_find<cuckoo::const_ref_type> && !cuckoo_can_insert<cuckoo::const_ref_type> &&
              !cuckoo_can_erase<cuckoo::const_ref_type>);
static_assert(cuckoo_can_insert<cuckoo::ref_type> && cuckoo_can_find<cuckoo::ref_type> &&
              cuckoo_can_erase<cuckoo::ref_type>);
using erase_only = cuckoo::ref_with<hash_ops::erase>;
static_assert(cuckoo_can_erase<erase_only> && !cuckoo_can_find<erase_only> && !cuckoo_can_insert<erase_only>);

TEST(BucketedCuckoo, EmptyAndSingleBatchesAndConstLookups) {
  GRAPHKIT_REQUIRE_GPU();
  cuckoo map(64);
  hash_counts counts;
  map.insert_async(nullptr, nullptr, 0, counts);
  EXPECT_EQ(counts.result().inserted, 0u);
  EXPECT_EQ(map.insert(nullptr, nullptr, 0), 0u);
  EXPECT_EQ(map.erase(nullptr, 0), 0u);
  map.apply_async(nullptr, 0, nullptr, counts);
  EXPECT_EQ(counts.result().inserted, 0u);
  EXPECT_EQ(map.size(), 0u);
  const std::vector<std::uint32_t> one{42}, value{7}, other{8};
  device_buffer<std::uint32_t> d_one{std::span<const std::uint32_t>(one)},
      d_value{std::span<const std::uint32_t>(value)}, d_other{std::span<const std::uint32_t>(other)};
  EXPECT_EQ(map.insert(d_one.data(), d_value.data(), 1), 1u);
  EXPECT_EQ(map.insert(d_one.data(), d_other.data(), 1), 0u) << "an update adds no key";
  const cuckoo& read_only = map;
  EXPECT_EQ(find_all(read_only, one), other);
  const std::vector<std::uint32_t> probes{42, 43};
  device_buffer<std::uint32_t> d_probes{std::span<const std::uint32_t>(probes)};
  device_buffer<std::uint8_t> found(2);
  read_only.contains_async(d_probes.data(), 2, found.data());
  EXPECT_EQ(found.to_host(), (std::vector<std::uint8_t>{1, 0}));
  EXPECT_EQ(map.erase(d_one.data(), 1), 1u);
  EXPECT_EQ(map.size(), 0u);
  // A table of one requested slot still has two buckets.
  cuckoo tiny(1);
  EXPECT_EQ(tiny.capacity(), 2u * kCuckooBucketSlots);
  EXPECT_EQ(tiny.insert(d_one.data(), d_value.data(), 1), 1u);
  EXPECT_EQ(find_all(tiny, one), value);
}

// ---- finds by half buckets (issue 18, step 23) --------------------------------------------

/// The slot of every key in the table (live or dead), read back from the device.
std::unordered_map<std::uint32_t, std::size_t> slot_of_each_key(const cuckoo& map) {
  const auto r = map.ref();
  std::vector<hash_slot<std::uint32_t, std::uint32_t>> slots(map.capacity());
  EXPECT_EQ(cudaMemcpy(slots.data(), r.slots, slots.size() * sizeof(slots[0]), cudaMemcpyDeviceToHost), cudaSuccess);
  std::unordered_map<std::uint32_t, std::size_t> at;
  for (std::size_t i = 0; i < slots.size(); ++i)
    if (slots[i].key != r.empty_key) at.emplace(slots[i].key, i);
  return at;
}

/// Where the probe keys sit in the raw table: in slots 0-3 or 4-7 of their
/// first bucket, or of their second (live or dead), or nowhere.
struct placement {
  std::size_t first_low = 0, first_high = 0, second_low = 0, second_high = 0;
};
placement place_keys(const cuckoo& map, const std::vector<std::uint32_t>& probes) {
  const auto r = map.ref();
  const std::unordered_map<std::uint32_t, std::size_t> at = slot_of_each_key(map);
  placement p;
  for (const std::uint32_t k : probes) {
    const auto it = at.find(k);
    if (it == at.end()) continue;
    const bool first = it->second / kCuckooBucketSlots == r.first_bucket(k);
    const bool low = it->second % kCuckooBucketSlots < static_cast<std::size_t>(kCuckooHalfSlots);
    (first ? (low ? p.first_low : p.first_high) : (low ? p.second_low : p.second_high)) += 1;
  }
  return p;
}

/// find_async and contains_async of `probes` by both bucket reads, against
/// the model (a key not in it, or erased from it, must read as absent).
void expect_both_reads_match(cuckoo& map, const std::vector<std::uint32_t>& probes,
                             const std::unordered_map<std::uint32_t, std::uint32_t>& model) {
  device_buffer<std::uint32_t> d_probes{std::span<const std::uint32_t>(probes)};
  device_buffer<std::uint8_t> found(std::max<std::size_t>(probes.size(), 1));
  for (const cuckoo_find_read read : {cuckoo_find_read::halves, cuckoo_find_read::whole}) {
    SCOPED_TRACE(read == cuckoo_find_read::halves ? "half-bucket finds" : "whole-bucket finds");
    map.set_find_read(read);
    const cuckoo& read_only = map;
    const std::vector<std::uint32_t> got = find_all(read_only, probes);
    read_only.contains_async(d_probes.data(), probes.size(), found.data());
    std::vector<std::uint8_t> has = found.to_host();
    has.resize(probes.size());
    std::size_t wrong_values = 0, wrong_contains = 0;
    for (std::size_t i = 0; i < probes.size(); ++i) {
      const auto it = model.find(probes[i]);
      const std::uint32_t expected = it == model.end() ? kEmptyValue : it->second;
      wrong_values += got[i] != expected;
      wrong_contains += has[i] != (it == model.end() ? 0 : 1);
      if (got[i] != expected) ADD_FAILURE() << "key " << probes[i] << ": found " << got[i] << ", expected " << expected;
      if (wrong_values > 5) break;
    }
    EXPECT_EQ(wrong_values, 0u);
    EXPECT_EQ(wrong_contains, 0u) << "contains_async disagrees with the model";
  }
  map.set_find_read(kCuckooFindRead);
}

TEST(BucketedCuckoo, HalfBucketFindsMatchAStdMapAtLoadsUpTo97Percent) {
  GRAPHKIT_REQUIRE_GPU();
  EXPECT_EQ(cuckoo(64).find_read(), kCuckooFindRead);
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  for (const double load : {0.5, 0.7, 0.8, 0.9, 0.95, 0.97}) {
    SCOPED_TRACE(testing::Message() << "load " << load);
    const std::size_t capacity = std::size_t{1} << 18, n = static_cast<std::size_t>(load * capacity);
    const std::vector<std::uint32_t> all = distinct_keys(n + n / 4, seed + static_cast<std::uint64_t>(load * 100));
    const std::vector<std::uint32_t> keys(all.begin(), all.begin() + n), never(all.begin() + n, all.end());
    std::unordered_map<std::uint32_t, std::uint32_t> model;
    cuckoo map(capacity);
    const hash_result filled = test::insert_batch(map, keys, numbered(keys, 1, model));
    ASSERT_EQ(filled.inserted, n);
    ASSERT_EQ(filled.failed, 0u);
    expect_table_invariants(map);
    // Every case a half read meets: keys in slots 4-7 of either bucket, in slots 0-3 of the second.
    const placement p = place_keys(map, keys);
    EXPECT_GT(p.first_low, 0u);
    EXPECT_GT(p.first_high, 0u);
    EXPECT_GT(p.second_low, 0u);
    if (load >= 0.7) EXPECT_GT(p.second_high, 0u);
    std::vector<std::uint32_t> probes(keys);
    probes.insert(probes.end(), never.begin(), never.end());
    expect_both_reads_match(map, probes, model);

    // Erase a third (dead keys keep their slots, read as absent, never end a find early).
    std::vector<std::uint32_t> gone;
    for (std::size_t i = 0; i < n; i += 3) gone.push_back(keys[i]), model.erase(keys[i]);
    device_buffer<std::uint32_t> d_gone{std::span<const std::uint32_t>(gone)};
    ASSERT_EQ(map.erase(d_gone.data(), gone.size()), gone.size());
    expect_both_reads_match(map, probes, model);
  }
}

TEST(BucketedCuckoo, HalfBucketFindsAfterChurnThatReusesDeadSlots) {
  GRAPHKIT_REQUIRE_GPU();
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  // Load 0.95, a fifth erased, then new keys by mixed batches (the locked
  // path reuses the dead slots, with tombstones for its moves) and by the
  // bulk insert (the insert-only path reuses them too), three rounds.
  const std::size_t capacity = std::size_t{1} << 16, n = capacity * 95 / 100, churn = n / 5;
  const std::vector<std::uint32_t> all = distinct_keys(n + 6 * churn + 1000, seed);
  std::vector<std::uint32_t> live(all.begin(), all.begin() + n), erased;
  const std::vector<std::uint32_t> never(all.end() - 1000, all.end());
  std::unordered_map<std::uint32_t, std::uint32_t> model;
  cuckoo map(capacity);
  ASSERT_EQ(test::insert_batch(map, live, numbered(live, 1, model)).inserted, n);
  std::mt19937_64 rng(seed);
  std::size_t next = n;
  for (int round = 0; round < 3; ++round) {
    SCOPED_TRACE(testing::Message() << "round " << round);
    std::shuffle(live.begin(), live.end(), rng);
    const std::vector<std::uint32_t> gone(live.end() - static_cast<std::ptrdiff_t>(churn), live.end());
    live.resize(live.size() - churn);
    device_buffer<std::uint32_t> d_gone{std::span<const std::uint32_t>(gone)};
    ASSERT_EQ(map.erase(d_gone.data(), gone.size()), gone.size());
    for (const std::uint32_t k : gone) model.erase(k), erased.push_back(k);
    // Half the new keys in a mixed batch (with finds of live keys), half by the bulk insert.
    std::vector<op> ops;
    for (std::size_t i = 0; i < churn / 2; ++i) {
      const std::uint32_t k = all[next++];
      ops.push_back({hash_op_kind::insert, k, k ^ 0x1234u});
      model[k] = k ^ 0x1234u;
      live.push_back(k);
      ops.push_back({hash_op_kind::find, live[rng() % (live.size() - 1)], 0});
    }
    const hash_result mixed = test::apply_batch(map, ops).counts;
    EXPECT_EQ(mixed.failed, 0u);
    EXPECT_EQ(mixed.inserted, churn / 2);
    std::vector<std::uint32_t> bulk(all.begin() + static_cast<std::ptrdiff_t>(next),
                                    all.begin() + static_cast<std::ptrdiff_t>(next + churn - churn / 2));
    next += bulk.size();
    const hash_result added = test::insert_batch(map, bulk, numbered(bulk, 1u << 28, model));
    EXPECT_EQ(added.inserted, bulk.size());
    EXPECT_EQ(added.failed, 0u);
    live.insert(live.end(), bulk.begin(), bulk.end());
    EXPECT_EQ(map.size(), model.size());
    expect_table_invariants(map);
    std::vector<std::uint32_t> probes(live);
    probes.insert(probes.end(), erased.begin(), erased.end());
    probes.insert(probes.end(), never.begin(), never.end());
    expect_both_reads_match(map, probes, model);
  }
}

/// Keys 100, 101, ... (`count` of them) inserted into `tiny`, a table of two
/// buckets, so every key shares both buckets; values from 1000, noted in `model`.
std::vector<std::uint32_t> fill_two_buckets(cuckoo& tiny, std::size_t count,
                                            std::unordered_map<std::uint32_t, std::uint32_t>& model) {
  std::vector<std::uint32_t> keys(count);
  for (std::size_t i = 0; i < count; ++i) keys[i] = static_cast<std::uint32_t>(100 + i);
  EXPECT_EQ(test::insert_batch(tiny, keys, numbered(keys, 1000, model)).inserted, count);
  return keys;
}

/// `keys`, then the absent keys 1..39.
std::vector<std::uint32_t> with_absent_probes(std::vector<std::uint32_t> keys) {
  for (std::uint32_t k = 1; k < 40; ++k) keys.push_back(k);
  return keys;
}

TEST(BucketedCuckoo, HalfBucketFindsOfEmptyAndOneKeyTables) {
  GRAPHKIT_REQUIRE_GPU();
  std::unordered_map<std::uint32_t, std::uint32_t> model;
  cuckoo map(1);
  map.set_find_read(cuckoo_find_read::halves);
  map.find_async(nullptr, 0, nullptr);  // size 0: nothing launched
  map.contains_async(nullptr, 0, nullptr);
  expect_both_reads_match(map, {}, model);
  const std::vector<std::uint32_t> probes{42, 43, 0, 0xfffffffeu, 0xffffffffu};
  expect_both_reads_match(map, probes, model);  // an empty table: all absent (sentinels too)
  const std::vector<std::uint32_t> one{42}, value{7};
  ASSERT_EQ(test::insert_batch(map, one, value).inserted, 1u);
  model[42] = 7;
  expect_both_reads_match(map, probes, model);
  device_buffer<std::uint32_t> d_one{std::span<const std::uint32_t>(one)};
  ASSERT_EQ(map.erase(d_one.data(), 1), 1u);
  model.erase(42);
  expect_both_reads_match(map, probes, model);  // a dead key alone in slot 0
  // A bucket filled to exactly 4, 5 and 8 keys (all keys sharing both buckets
  // of a two-bucket table): the half read's boundary, then bucket 2.
  for (const std::size_t count : {4u, 5u, 8u, 9u, 12u, 16u}) {
    SCOPED_TRACE(testing::Message() << count << " keys in a two-bucket table");
    cuckoo tiny(1);
    std::unordered_map<std::uint32_t, std::uint32_t> m;
    const std::vector<std::uint32_t> keys = fill_two_buckets(tiny, count, m);
    const std::vector<std::uint32_t> probes_t = with_absent_probes(keys);
    expect_both_reads_match(tiny, probes_t, m);
    const std::vector<std::uint32_t> half(keys.begin(), keys.begin() + static_cast<std::ptrdiff_t>(count / 2));
    device_buffer<std::uint32_t> d_half{std::span<const std::uint32_t>(half)};
    ASSERT_EQ(tiny.erase(d_half.data(), half.size()), half.size());
    for (const std::uint32_t k : half) m.erase(k);
    expect_both_reads_match(tiny, probes_t, m);
  }
}

/// Where each of `keys` sits: 0 slots 0-3 of its first bucket, 1 slots 4-7
/// of it, 2 slots 0-3 of its second, 3 slots 4-7 of it; -1 not in the table.
std::vector<int> key_places(const cuckoo& map, const std::vector<std::uint32_t>& keys) {
  const auto r = map.ref();
  const std::unordered_map<std::uint32_t, std::size_t> at = slot_of_each_key(map);
  std::vector<int> places;
  for (const std::uint32_t k : keys) {
    const auto it = at.find(k);
    if (it == at.end()) {
      places.push_back(-1);
      continue;
    }
    const bool first = it->second / kCuckooBucketSlots == r.first_bucket(k);
    const bool high = it->second % kCuckooBucketSlots >= static_cast<std::size_t>(kCuckooHalfSlots);
    places.push_back((first ? 0 : 2) + (high ? 1 : 0));
  }
  return places;
}

/// erase_async of `batch` by `read`, against the model: the count is the
/// number of distinct keys live in the model (absent, dead and repeated keys
/// count nothing); then both reads, size and invariants.
void erase_and_check(cuckoo& map, cuckoo_find_read read, const std::vector<std::uint32_t>& batch,
                     const std::vector<std::uint32_t>& probes,
                     std::unordered_map<std::uint32_t, std::uint32_t>& model) {
  std::uint64_t expected = 0;
  for (const std::uint32_t k : batch) expected += model.erase(k);
  map.set_erase_read(read);
  device_buffer<std::uint32_t> d_batch{std::span<const std::uint32_t>(batch)};
  EXPECT_EQ(map.erase(d_batch.data(), batch.size()), expected);
  map.set_erase_read(kCuckooEraseRead);
  EXPECT_EQ(map.size(), model.size());
  expect_table_invariants(map);
  expect_both_reads_match(map, probes, model);
}

TEST(BucketedCuckoo, HalfBucketErasesMatchAStdMapThroughBothModes) {
  GRAPHKIT_REQUIRE_GPU();
  EXPECT_EQ(cuckoo(64).erase_read(), kCuckooEraseRead);
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  for (const cuckoo_find_read read : {cuckoo_find_read::halves, cuckoo_find_read::whole}) {
    SCOPED_TRACE(read == cuckoo_find_read::halves ? "half-bucket erases" : "whole-bucket erases");
    for (const double load : {0.5, 0.8, 0.9, 0.97}) {
      SCOPED_TRACE(testing::Message() << "load " << load);
      const std::size_t capacity = std::size_t{1} << 17, n = static_cast<std::size_t>(load * capacity);
      const std::vector<std::uint32_t> all = distinct_keys(n + n / 4, seed + static_cast<std::uint64_t>(load * 100));
      const std::vector<std::uint32_t> keys(all.begin(), all.begin() + n), never(all.begin() + n, all.end());
      std::unordered_map<std::uint32_t, std::uint32_t> model;
      cuckoo map(capacity);
      ASSERT_EQ(test::insert_batch(map, keys, numbered(keys, 1, model)).inserted, n);
      const std::vector<int> places = key_places(map, keys);
      std::size_t in_place[4] = {};
      for (const int p : places) {
        ASSERT_GE(p, 0);
        ++in_place[p];
      }
      EXPECT_GT(in_place[1], 0u);
      EXPECT_GT(in_place[2], 0u);
      if (load >= 0.7) EXPECT_GT(in_place[3], 0u);
      std::vector<std::uint32_t> probes(keys);
      probes.insert(probes.end(), never.begin(), never.end());

      // 1: a third of the keys (every place), a quarter of the absent ones, a few twice.
      std::vector<std::uint32_t> first;
      for (std::size_t i = 0; i < n; i += 3) first.push_back(keys[i]);
      for (std::size_t i = 0; i < never.size(); i += 4) first.push_back(never[i]);
      for (std::size_t i = 0; i < n; i += 301) first.push_back(keys[i - i % 3]);
      erase_and_check(map, read, first, probes, model);
      // 2: every key still live in slots 4-7 or in its second bucket, the
      // first batch again (dead keys: nothing counted), absent keys, repeats.
      std::vector<std::uint32_t> second(first);
      for (std::size_t i = 0; i < n; ++i)
        if (places[i] != 0 && model.count(keys[i]) != 0) second.push_back(keys[i]), second.push_back(keys[i]);
      second.insert(second.end(), never.begin(), never.end());
      std::shuffle(second.begin(), second.end(), std::mt19937_64(seed));
      erase_and_check(map, read, second, probes, model);
      for (std::size_t i = 0; i < n; ++i)
        if (places[i] != 0) EXPECT_EQ(model.count(keys[i]), 0u);
      // 3: the rest (slots 0-3 of first buckets), and all of it again: an empty map.
      std::vector<std::uint32_t> rest(keys);
      rest.insert(rest.end(), keys.begin(), keys.end());
      erase_and_check(map, read, rest, probes, model);
      EXPECT_EQ(map.size(), 0u);
    }
    // Two-bucket tables with 4, 5, 8, 9, 12 and 16 keys (every key sharing
    // both buckets): erased one at a time from the last inserted, each
    // erase read through the half boundary and bucket 2.
    for (const std::size_t count : {4u, 5u, 8u, 9u, 12u, 16u}) {
      SCOPED_TRACE(testing::Message() << count << " keys in a two-bucket table");
      cuckoo tiny(1);
      std::unordered_map<std::uint32_t, std::uint32_t> m;
      const std::vector<std::uint32_t> keys = fill_two_buckets(tiny, count, m);
      const std::vector<std::uint32_t> probes = with_absent_probes(keys);
      for (std::size_t j = count; j-- > 0;) erase_and_check(tiny, read, {keys[j], keys[j], 7u}, probes, m);
      EXPECT_EQ(tiny.size(), 0u);
    }
  }
}

// ---- the fast settle pass (bench/NOTES.md step 29) ----------------------------------------

/// The map's hash with the kForceLeave test hook: the fast settle pass leaves
/// every insert of an odd input index to the locked settle_kernel untried, so
/// every batch runs both, and copies of one key (at different indices) are
/// split between them: the fast pass places a key that the locked pass then
/// finds and updates, or the other way round within one pass.
struct leaving_hash : murmur3_hash {
  static constexpr bool kCuckooForceLeave = true;
};
using leaving_cuckoo = bucketed_cuckoo_map<std::uint32_t, std::uint32_t, leaving_hash>;

/// Random keys (fresh seeds) filled to 0.9 / 0.95 / 0.97 in one batch, then a
/// tenth churned, against a std::unordered_map (fill_then_churn), with half
/// of the deferred inserts handed to the locked pass: nothing may fail, and
/// the table, its invariants and the counts must be a std::map's.
TEST(BucketedCuckoo, FastSettleHandingHalfToTheLockedPassFillsTo97PercentAsAStdMapWould) {
  GRAPHKIT_REQUIRE_GPU();
  for (const double load : {0.9, 0.95, 0.97}) fill_then_churn<leaving_cuckoo>(load, test::fresh_seed());
}

TEST(BucketedCuckoo, FastSettleHandingHalfToTheLockedPassKeepsOneValueOfEachKeysCopies) {
  GRAPHKIT_REQUIRE_GPU();
  updates_and_duplicates_racing_moves<leaving_cuckoo>(test::fresh_seed());
}

/// A batch of inserts alone through apply_async (so each reports its own
/// outcome) into a table holding 0.8 of its capacity: new keys up to `load`,
/// each 1 to 4 times with different values, and a quarter of the old keys 1
/// to 3 times, shuffled. Most new keys' inserts are deferred (both buckets
/// full) and settle in the fast pass or the locked ones. Per key: exactly one
/// copy of a new key reports kHashInserted, all its others and every copy of
/// an old key kHashUpdated; the key ends with one of its copies' values;
/// counts exact (inserted = new keys, failed 0), size and invariants kept.
template <class Map>
void copies_in_one_batch(double load, std::uint64_t seed) {
  SCOPED_TRACE(testing::Message() << "copies in one batch to load " << load);
  GRAPHKIT_SEED_TRACE(seed);
  const std::size_t capacity = std::size_t{1} << 18, old_count = capacity * 8 / 10;
  const auto fresh_count = static_cast<std::size_t>(load * static_cast<double>(capacity)) - old_count;
  const std::vector<std::uint32_t> keys = distinct_keys(old_count + fresh_count, seed);
  const std::vector<std::uint32_t> old(keys.begin(), keys.begin() + old_count);
  std::unordered_map<std::uint32_t, std::uint32_t> old_values;
  Map map(capacity);
  ASSERT_EQ(test::insert_batch(map, old, numbered(old, 1, old_values)).inserted, old_count);

  std::mt19937_64 rng(seed);
  std::vector<op> ops;
  std::unordered_map<std::uint32_t, std::unordered_set<std::uint32_t>> allowed;  // key -> its values in the batch
  const auto add_copies = [&](std::uint32_t k, std::uint64_t copies) {
    for (std::uint64_t c = 0; c < copies; ++c) {
      const auto v = static_cast<std::uint32_t>(ops.size()) + (1u << 24);
      ops.push_back({hash_op_kind::insert, k, v});
      allowed[k].insert(v);
    }
  };
  for (std::size_t i = old_count; i < keys.size(); ++i) add_copies(keys[i], 1 + rng() % 4);
  for (std::size_t i = 0; i < old_count; i += 4) add_copies(keys[i], 1 + rng() % 3);
  std::shuffle(ops.begin(), ops.end(), rng);

  const auto [r, results] = test::apply_batch(map, ops);
  std::unordered_map<std::uint32_t, int> added, updated;
  std::size_t other_outcomes = 0;
  for (std::size_t o = 0; o < ops.size(); ++o) {
    added[ops[o].key] += results[o] == kHashInserted;
    updated[ops[o].key] += results[o] == kHashUpdated;
    other_outcomes += results[o] != kHashInserted && results[o] != kHashUpdated;
  }
  EXPECT_EQ(other_outcomes, 0u) << "inserts that reported neither added nor updated";
  std::size_t wrong_new = 0, wrong_old = 0;
  for (const auto& [k, values] : allowed) {
    const auto copies = static_cast<int>(values.size());
    if (old_values.contains(k)) wrong_old += added[k] != 0 || updated[k] != copies;
    else wrong_new += added[k] != 1 || updated[k] != copies - 1;
  }
  EXPECT_EQ(wrong_new, 0u) << "new keys not added by exactly one copy (the others updating)";
  EXPECT_EQ(wrong_old, 0u) << "old keys whose copies did not all report updated";
  EXPECT_EQ(r.inserted, fresh_count);
  EXPECT_EQ(r.failed, 0u);
  EXPECT_EQ(map.size(), old_count + fresh_count) << "a key was lost or stored twice";
  expect_table_invariants(map);
  const std::vector<std::uint32_t> got = find_all(map, keys);
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const auto batch = allowed.find(keys[i]);
    if (batch == allowed.end()) ASSERT_EQ(got[i], old_values[keys[i]]) << "untouched old key " << i;
    else ASSERT_TRUE(batch->second.contains(got[i])) << "key " << keys[i] << " has value " << got[i];
  }
}

TEST(BucketedCuckoo, CopiesOfKeysInOneBatchAddOnceAndKeepOneOfTheirValues) {
  GRAPHKIT_REQUIRE_GPU();
  // Not 0.97: a fill there may fail a key now and then (bench/NOTES.md step 28), and this test counts exactly.
  for (const double load : {0.9, 0.95}) {
    copies_in_one_batch<cuckoo>(load, test::fresh_seed());
    copies_in_one_batch<leaving_cuckoo>(load, test::fresh_seed());
  }
}

/// Mixed batches from load 0.9 (mixed_from_full's checks) with half of the
/// deferred inserts handed to the locked pass: the fast pass reuses the
/// batch's dead slots and moves keys beside the locked pass's later work.
TEST(BucketedCuckoo, FastSettleHandingHalfToTheLockedPassKeepsMixedBatchesExact) {
  GRAPHKIT_REQUIRE_GPU();
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  mixed_from_full<leaving_cuckoo>(20, 20, seed);
  mixed_from_full<leaving_cuckoo>(40, 40, seed + 1);
  mixed_from_full<leaving_cuckoo>(40, 40, seed + 2, 0.9, 4);
}

}  // namespace
}  // namespace graphkit
