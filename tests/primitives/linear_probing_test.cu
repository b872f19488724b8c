// The linear-probing map against std::unordered_map: random batches with
// fresh seeds (sizes 0 and 1 too), duplicates in a batch, skewed keys, missing
// keys, load 0.95, a full table, rehash, 64-bit keys, sentinels in the data,
// mixed insert / erase / find batches, per-call counts, and concurrent use
// through ref(); the same for every tile size of the bulk kernels and for the
// refill walk of finds and erases (LinearProbingTiles). The contract's compile-time rules are checked here too.
#include <gtest/gtest.h>

#include <algorithm>
#include <concepts>
#include <type_traits>
#include <utility>
#include <random>
#include <unordered_map>
#include <unordered_set>

#include "primitives/common/launch.hpp"
#include "primitives/hash/linear_probing_map.cuh"
#include "tests/common/gpu_support.hpp"
#include "tests/common/test_support.hpp"

namespace graphkit {
namespace {

template <class T>
device_buffer<T> upload(const std::vector<T>& v) {
  return device_buffer<T>{std::span<const T>(v)};
}

// Distinct random keys avoiding the sentinel.
template <class Key>
std::vector<Key> distinct_keys(std::mt19937_64& rng, std::size_t n, std::unordered_set<Key>* taken = nullptr) {
  std::unordered_set<Key> local;
  std::unordered_set<Key>& seen = taken ? *taken : local;
  std::vector<Key> out;
  while (out.size() < n) {
    const Key k = static_cast<Key>(rng());
    if (k != std::numeric_limits<Key>::max() && seen.insert(k).second) out.push_back(k);
  }
  return out;
}

// Finds and contains of the model's keys and of `absent`, size, retrieve_all.
template <class Key, class Map>
void check_against_model(const Map& map, const std::unordered_map<Key, std::uint32_t>& model,
                         const std::vector<Key>& absent) {
  std::vector<Key> keys;
  for (const auto& [k, v] : model) keys.push_back(k);
  keys.insert(keys.end(), absent.begin(), absent.end());
  auto d_keys = upload(keys);
  device_buffer<std::uint32_t> d_values(std::max<std::size_t>(keys.size(), 1));
  d_values.fill_bytes(0x5a);
  map.find_async(d_keys.data(), keys.size(), d_values.data());
  device_buffer<std::uint8_t> d_found(std::max<std::size_t>(keys.size(), 1));
  d_found.fill_bytes(0x5a);
  map.contains_async(d_keys.data(), keys.size(), d_found.data());
  const auto values = d_values.to_host();
  const auto found = d_found.to_host();
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const auto it = model.find(keys[i]);
    ASSERT_EQ(values[i], it == model.end() ? map.empty_value_sentinel() : it->second) << "key " << keys[i];
    ASSERT_EQ(found[i], it == model.end() ? 0 : 1) << "key " << keys[i];
  }
  ASSERT_EQ(map.size(), model.size());
  device_buffer<Key> out_keys(std::max<std::size_t>(model.size(), 1));
  device_buffer<std::uint32_t> out_values(std::max<std::size_t>(model.size(), 1));
  ASSERT_EQ(map.retrieve_all(out_keys.data(), out_values.data()), model.size());
  const auto hk = out_keys.to_host();
  const auto hv = out_values.to_host();
  for (std::size_t i = 0; i < model.size(); ++i) ASSERT_EQ(model.at(hk[i]), hv[i]);
}

template <class Key, unsigned WriteTile = 4, unsigned FindTile = 1, unsigned EraseTile = WriteTile,
          lp_grid Grid = lp_grid::capped>
void random_batches(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  for (const std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{31}, std::size_t{20000}}) {
    SCOPED_TRACE("n " + std::to_string(n));
    linear_probing_map<Key, std::uint32_t, murmur3_hash, WriteTile, FindTile, EraseTile, Grid> map(n * 2 + 7);
    std::unordered_set<Key> taken;
    const auto keys = distinct_keys<Key>(rng, n, &taken);
    std::vector<std::uint32_t> values(n);
    for (auto& v : values) v = static_cast<std::uint32_t>(rng() % 1000000);
    auto dk = upload(keys);
    auto dv = upload(values);
    EXPECT_EQ(map.insert(dk.data(), dv.data(), n), n);
    std::unordered_map<Key, std::uint32_t> model;
    for (std::size_t i = 0; i < n; ++i) model[keys[i]] = values[i];
    const auto absent = distinct_keys<Key>(rng, 500, &taken);
    check_against_model(map, model, absent);
    // erase a random half (plus absent keys, which erase nothing)
    std::vector<Key> gone;
    for (std::size_t i = 0; i < n; ++i)
      if (rng() % 2) gone.push_back(keys[i]), model.erase(keys[i]);
    const std::size_t live_erased = gone.size();
    gone.insert(gone.end(), absent.begin(), absent.begin() + 100);
    auto dg = upload(gone);
    EXPECT_EQ(map.erase(dg.data(), gone.size()), live_erased);
    check_against_model(map, model, absent);
    // re-insert some erased keys with new values: their slots come back
    std::vector<Key> again(gone.begin(), gone.begin() + live_erased / 2);
    std::vector<std::uint32_t> again_values(again.size(), 7);
    for (const auto k : again) model[k] = 7;
    auto da = upload(again);
    auto dav = upload(again_values);
    EXPECT_EQ(map.insert(da.data(), dav.data(), again.size()), again.size()) << "erased keys come back as added";
    EXPECT_EQ(map.insert(da.data(), dav.data(), again.size()), 0u) << "a second insert only updates";
    check_against_model(map, model, absent);
    map.clear();
    check_against_model<Key>(map, {}, keys);
  }
}

TEST(LinearProbingMap, RandomBatches32BitKeys) {
  GRAPHKIT_REQUIRE_GPU();
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  random_batches<std::uint32_t>(seed);
}

TEST(LinearProbingMap, RandomBatches64BitKeys) {
  GRAPHKIT_REQUIRE_GPU();
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  random_batches<std::uint64_t>(seed);
}

TEST(LinearProbingMap, DuplicatesInOneBatchKeepOneOfTheirValues) {
  GRAPHKIT_REQUIRE_GPU();
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  std::mt19937_64 rng(seed);
  const auto distinct = distinct_keys<std::uint32_t>(rng, 1000);
  std::vector<std::uint32_t> keys, values;
  std::unordered_map<std::uint32_t, std::unordered_set<std::uint32_t>> offered;
  for (int copy = 0; copy < 8; ++copy)
    for (const auto k : distinct) {
      keys.push_back(k);
      values.push_back(static_cast<std::uint32_t>(rng() % 100));
      offered[k].insert(values.back());
    }
  linear_probing_map<std::uint32_t, std::uint32_t> map(4096);
  auto dk = upload(keys);
  auto dv = upload(values);
  EXPECT_EQ(map.insert(dk.data(), dv.data(), keys.size()), distinct.size()) << "each key counted once";
  EXPECT_EQ(map.size(), distinct.size());
  auto dd = upload(distinct);
  device_buffer<std::uint32_t> found(distinct.size());
  map.find_async(dd.data(), distinct.size(), found.data());
  const auto got = found.to_host();
  for (std::size_t i = 0; i < distinct.size(); ++i) EXPECT_TRUE(offered[distinct[i]].count(got[i])) << distinct[i];
}

TEST(LinearProbingMap, LoadNinetyFivePercentAndProbeStatistics) {
  GRAPHKIT_REQUIRE_GPU();
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  std::mt19937_64 rng(seed);
  const std::size_t capacity = 1 << 20, n = capacity * 95 / 100;
  const auto keys = distinct_keys<std::uint32_t>(rng, n);
  std::vector<std::uint32_t> values(n);
  for (std::size_t i = 0; i < n; ++i) values[i] = static_cast<std::uint32_t>(i);
  linear_probing_map<std::uint32_t, std::uint32_t> map(capacity);
  auto dk = upload(keys);
  auto dv = upload(values);
  map.insert(dk.data(), dv.data(), n);
  device_buffer<std::uint32_t> found(n);
  map.find_async(dk.data(), n, found.data());
  EXPECT_EQ(found.to_host(), values);
  const probe_statistics stats = map.probe_stats();
  EXPECT_EQ(stats.keys, n);
  EXPECT_GE(stats.mean, 1.0);
  EXPECT_GE(stats.max, 1u);
  std::uint64_t histogram_total = 0;
  for (const auto h : stats.histogram) histogram_total += h;
  EXPECT_EQ(histogram_total, n);
  EXPECT_LT(stats.max, 1u << stats.histogram.size());
}

TEST(LinearProbingMap, FullTableReportsFailuresWithoutHanging) {
  GRAPHKIT_REQUIRE_GPU();
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  std::mt19937_64 rng(seed);
  const std::size_t capacity = 1000;
  const auto keys = distinct_keys<std::uint32_t>(rng, capacity + 137);
  const std::vector<std::uint32_t> values(keys.size(), 1);
  linear_probing_map<std::uint32_t, std::uint32_t> map(capacity);
  auto dk = upload(keys);
  auto dv = upload(values);
  try {
    map.insert(dk.data(), dv.data(), keys.size());
    FAIL() << "no error for a full table";
  } catch (const resource_error& e) {
    EXPECT_NE(std::string(e.what()).find("table full: 137 of 1137 inserts found no free slot among 1000"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(map.size(), capacity);
  map.clear();
  hash_counts counts;
  map.insert_async(dk.data(), dv.data(), keys.size(), counts);
  const hash_result result = counts.result();
  EXPECT_EQ(result.failed, 137u);
  EXPECT_EQ(result.inserted, capacity);
  // A missing key in a full table is still answered (after one full lap).
  const std::vector<std::uint32_t> missing = {static_cast<std::uint32_t>(rng() | 1)};
  auto dm = upload(missing);
  device_buffer<std::uint8_t> found(1);
  map.contains_async(dm.data(), 1, found.data());
  (void)found.to_host();
}

TEST(LinearProbingMap, RehashKeepsLiveEntriesAndDropsErasedOnes) {
  GRAPHKIT_REQUIRE_GPU();
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  std::mt19937_64 rng(seed);
  const auto keys = distinct_keys<std::uint64_t>(rng, 5000);
  std::vector<std::uint32_t> values(keys.size());
  for (auto& v : values) v = static_cast<std::uint32_t>(rng() % 1000);
  linear_probing_map<std::uint64_t, std::uint32_t> map(6000);
  auto dk = upload(keys);
  auto dv = upload(values);
  map.insert(dk.data(), dv.data(), keys.size());
  const std::vector<std::uint64_t> gone(keys.begin(), keys.begin() + 2000);
  auto dg = upload(gone);
  EXPECT_EQ(map.erase(dg.data(), gone.size()), 2000u);
  map.rehash(20000);
  EXPECT_EQ(map.capacity(), 20000u);
  std::unordered_map<std::uint64_t, std::uint32_t> model;
  for (std::size_t i = 2000; i < keys.size(); ++i) model[keys[i]] = values[i];
  check_against_model(map, model, gone);
  EXPECT_THROW(map.rehash(10), error);
}

TEST(LinearProbingMap, SentinelsInTheDataAreRefused) {
  GRAPHKIT_REQUIRE_GPU();
  linear_probing_map<std::uint32_t, std::uint32_t> map(100, empty_key<std::uint32_t>{0}, empty_value<std::uint32_t>{7});
  const std::vector<std::uint32_t> keys = {0, 5, 6, 9}, values = {1, 7, 2, 3};
  auto dk = upload(keys);
  auto dv = upload(values);
  try {
    map.insert(dk.data(), dv.data(), keys.size());
    FAIL() << "no error for sentinels";
  } catch (const error& e) {
    EXPECT_NE(std::string(e.what()).find("2 of 4 pairs hold a sentinel"), std::string::npos) << e.what();
  }
  check_against_model<std::uint32_t>(map, {{6, 2}, {9, 3}}, {5, 1});
}

// Concurrency through ref(): half the threads insert new keys while the other
// half look up keys inserted before the launch; every old key must be found.
__global__ void insert_while_finding(linear_probing_ref<std::uint32_t, std::uint32_t> table, const std::uint32_t* fresh,
                                     const std::uint32_t* old, std::size_t n, unsigned* misses) {
  const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (i >= 2 * n) return;
  if (i % 2 == 0) {
    table.insert(fresh[i / 2], 1);
  } else if (table.find(old[i / 2]) != 2) {
    atomicAdd(misses, 1u);
  }
}

TEST(LinearProbingMap, FindsNeverMissPresentKeysDuringConcurrentInserts) {
  GRAPHKIT_REQUIRE_GPU();
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  std::mt19937_64 rng(seed);
  const std::size_t n = 200000;
  std::unordered_set<std::uint32_t> taken;
  const auto old = distinct_keys<std::uint32_t>(rng, n, &taken);
  const auto fresh = distinct_keys<std::uint32_t>(rng, n, &taken);
  linear_probing_map<std::uint32_t, std::uint32_t> map(2 * n + n / 10);  // ends at load ~0.95
  auto d_old = upload(old);
  auto d_fresh = upload(fresh);
  const std::vector<std::uint32_t> twos(n, 2);
  auto d_twos = upload(twos);
  map.insert(d_old.data(), d_twos.data(), n);
  device_buffer<unsigned> misses(1);
  misses.fill_bytes(0);
  insert_while_finding<<<blocks_for(2 * n), 256>>>(map.ref(), d_fresh.data(), d_old.data(), n, misses.data());
  GRAPHKIT_CHECK_LAUNCH();
  EXPECT_EQ(misses.to_host()[0], 0u);
  EXPECT_EQ(map.size(), 2 * n);
}

// Every window of the table as the walks read it: out[0] by load_window,
// out[1] by load_window_cached (one slot per thread of a window's start).
template <class Ref>
__global__ void read_windows(Ref table, typename Ref::slot* out0, typename Ref::slot* out1) {
  const std::size_t first = (std::size_t{blockIdx.x} * blockDim.x + threadIdx.x) * Ref::kWindow;
  if (first >= table.capacity) return;
  const auto a = table.load_window(first), b = table.load_window_cached(first);
  for (std::size_t j = 0; j < Ref::kWindow; ++j) {
    out0[first + j] = a.s[j];
    out1[first + j] = b.s[j];
  }
}

// Each window read whole, every slot of it, by every ref's loads: step 22's
// 4-slot windows (32-bit keys) lost slot 3 to nvcc (to_window says how), so
// thread finds and the refill walk took it for the end of their probe.
template <class Key, hash_ops Ops>
void windows_read_whole(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  linear_probing_map<Key, std::uint32_t> map(1000);
  const std::size_t n = map.capacity() * 3 / 4;
  const auto keys = distinct_keys<Key>(rng, n);
  std::vector<std::uint32_t> values(n);
  for (auto& v : values) v = static_cast<std::uint32_t>(rng() >> 40);
  auto dk = upload(keys);
  auto dv = upload(values);
  ASSERT_EQ(map.insert(dk.data(), dv.data(), n), n);
  using slot = typename decltype(map)::slot;
  const std::size_t capacity = map.capacity();
  std::vector<slot> table(capacity);
  GRAPHKIT_CUDA_TRY(cudaMemcpy(table.data(), map.ref().slots, capacity * sizeof(slot), cudaMemcpyDeviceToHost));
  device_buffer<slot> out0(capacity), out1(capacity);
  out0.fill_bytes(0x5a);
  out1.fill_bytes(0x5a);
  read_windows<<<blocks_for(capacity), 256>>>(map.template ref<Ops>(), out0.data(), out1.data());
  GRAPHKIT_CHECK_LAUNCH();
  const auto read0 = out0.to_host(), read1 = out1.to_host();
  for (std::size_t i = 0; i < capacity; ++i) {
    ASSERT_EQ(read0[i].key, table[i].key) << "load_window, slot " << i;
    ASSERT_EQ(read0[i].value, table[i].value) << "load_window, slot " << i;
    ASSERT_EQ(read1[i].key, table[i].key) << "load_window_cached, slot " << i;
    ASSERT_EQ(read1[i].value, table[i].value) << "load_window_cached, slot " << i;
  }
}

TEST(LinearProbingMap, WindowsAreReadWhole) {
  GRAPHKIT_REQUIRE_GPU();
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  windows_read_whole<std::uint32_t, hash_ops::find>(seed);
  windows_read_whole<std::uint32_t, hash_ops::erase>(seed);
  windows_read_whole<std::uint32_t, hash_ops::all>(seed);
  windows_read_whole<std::uint64_t, hash_ops::find>(seed + 1);
  windows_read_whole<std::uint64_t, hash_ops::erase>(seed + 1);
  windows_read_whole<std::uint64_t, hash_ops::all>(seed + 1);
}

// ---- the contract ------------------------------------------------------------

using map32 = linear_probing_map<std::uint32_t, std::uint32_t>;
template <class Ref>
concept can_insert = requires(const Ref& r) {
  r.insert(1u, 1u);
};
template <class Ref>
concept can_erase = requires(const Ref& r) {
  r.erase(1u);
};
template <class Ref>
concept can_find = requires(const Ref& r) {
  r.find(1u);
};
// A const map hands out read-only refs; refs carry only the operations asked for.
static_assert(std::is_same_v<decltype(std::declval<const map32&>().ref()), map32::const_ref_type>);
static_assert(std::is_same_v<decltype(map32::const_ref_type::slots), const map32::slot*>);
static_assert(can_find<map32::const_ref_type> && !can_insert<map32::const_ref_type> &&
              !can_erase<map32::const_ref_type>);
static_assert(can_insert<map32::ref_with<hash_ops::insert>> && !can_find<map32::ref_with<hash_ops::insert>>);
static_assert(can_erase<map32::ref_with<hash_ops::erase>> && !can_insert<map32::ref_with<hash_ops::erase>>);
static_assert(can_insert<map32::ref_type> && can_erase<map32::ref_type> && can_find<map32::ref_type>);

TEST(LinearProbingMap, CapacityIsRoundedUpToWholeWindows) {
  GRAPHKIT_REQUIRE_GPU();
  EXPECT_EQ(map32(0).capacity(), 4u);
  EXPECT_EQ(map32(1).capacity(), 4u);
  EXPECT_EQ(map32(1001).capacity(), 1004u);
  EXPECT_EQ((linear_probing_map<std::uint64_t, std::uint32_t>(7).capacity()), 8u);
  // A table of one window, filled to the last slot, from every home.
  map32 map(1);
  const std::vector<std::uint32_t> keys = {11, 22, 33, 44}, values = {1, 2, 3, 4};
  auto dk = upload(keys);
  auto dv = upload(values);
  EXPECT_EQ(map.insert(dk.data(), dv.data(), keys.size()), 4u);
  check_against_model<std::uint32_t>(map, {{11, 1}, {22, 2}, {33, 3}, {44, 4}}, {55, 66});
}

TEST(LinearProbingMap, SkewedKeysCountEachDistinctKeyOnce) {
  GRAPHKIT_REQUIRE_GPU();
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  std::mt19937_64 rng(seed);
  // A few hot keys take most of the batch: key = r mod (1 + r' mod 1000).
  std::vector<std::uint32_t> keys(200000), values(keys.size());
  std::unordered_map<std::uint32_t, std::unordered_set<std::uint32_t>> offered;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    keys[i] = static_cast<std::uint32_t>(rng() % (1 + rng() % 1000));
    values[i] = static_cast<std::uint32_t>(i);
    offered[keys[i]].insert(values[i]);
  }
  map32 map(4096);
  auto dk = upload(keys);
  auto dv = upload(values);
  EXPECT_EQ(map.insert(dk.data(), dv.data(), keys.size()), offered.size());
  EXPECT_EQ(map.size(), offered.size());
  device_buffer<std::uint32_t> found(keys.size());
  map.find_async(dk.data(), keys.size(), found.data());
  const auto got = found.to_host();
  for (std::size_t i = 0; i < keys.size(); ++i) ASSERT_TRUE(offered[keys[i]].count(got[i])) << keys[i];
  // Erasing the whole skewed batch removes each key once.
  EXPECT_EQ(map.erase(dk.data(), keys.size()), offered.size());
  EXPECT_EQ(map.size(), 0u);
}

TEST(LinearProbingMap, MixedBatchesAgreeWithTheModel) {
  GRAPHKIT_REQUIRE_GPU();
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  std::mt19937_64 rng(seed);
  for (const double load : {0.5, 0.9, 0.95}) {
    SCOPED_TRACE(testing::Message() << "load " << load);
    const std::size_t capacity = 1 << 16, live = static_cast<std::size_t>(capacity * load * 0.8);
    std::unordered_set<std::uint32_t> taken;
    const auto old = distinct_keys<std::uint32_t>(rng, live, &taken);
    const auto fresh = distinct_keys<std::uint32_t>(rng, static_cast<std::size_t>(capacity * load) - live, &taken);
    const auto absent = distinct_keys<std::uint32_t>(rng, 1000, &taken);
    map32 map(capacity);
    std::vector<std::uint32_t> old_values(old.size());
    for (std::size_t i = 0; i < old.size(); ++i) old_values[i] = static_cast<std::uint32_t>(i);
    auto d_old = upload(old);
    auto d_old_values = upload(old_values);
    ASSERT_EQ(map.insert(d_old.data(), d_old_values.data(), old.size()), old.size());
    // The first fifth of the old keys are erased, the rest looked up; fresh
    // keys are inserted and looked up while they go in; absent keys are looked
    // up and erased. Each key has one kind of change, so the outcome is fixed.
    std::vector<hash_op<std::uint32_t, std::uint32_t>> ops;
    const std::size_t gone = old.size() / 5;
    for (std::size_t i = 0; i < old.size(); ++i)
      ops.push_back({i < gone ? hash_op_kind::erase : hash_op_kind::find, old[i], 0});
    for (std::size_t i = 0; i < fresh.size(); ++i) {
      ops.push_back({hash_op_kind::insert, fresh[i], static_cast<std::uint32_t>(i + 7)});
      ops.push_back({hash_op_kind::find, fresh[i], 0});
    }
    for (const auto k : absent) ops.push_back({hash_op_kind::find, k, 0}), ops.push_back({hash_op_kind::erase, k, 0});
    std::shuffle(ops.begin(), ops.end(), rng);
    device_buffer<hash_op<std::uint32_t, std::uint32_t>> d_ops{
        std::span<const hash_op<std::uint32_t, std::uint32_t>>(ops)};
    device_buffer<std::uint32_t> d_results(ops.size());
    hash_counts counts;
    map.apply_async(d_ops.data(), ops.size(), d_results.data(), counts);
    const hash_result result = counts.result();
    EXPECT_EQ(result.inserted, fresh.size());
    EXPECT_EQ(result.erased, gone);
    EXPECT_EQ(result.failed, 0u);
    const auto results = d_results.to_host();
    std::unordered_map<std::uint32_t, std::uint32_t> model;
    std::unordered_map<std::uint32_t, std::size_t> old_index, fresh_index;
    for (std::size_t i = 0; i < old.size(); ++i) old_index[old[i]] = i;
    for (std::size_t i = 0; i < fresh.size(); ++i) fresh_index[fresh[i]] = i;
    for (std::size_t i = gone; i < old.size(); ++i) model[old[i]] = old_values[i];
    for (std::size_t i = 0; i < fresh.size(); ++i) model[fresh[i]] = static_cast<std::uint32_t>(i + 7);
    for (std::size_t o = 0; o < ops.size(); ++o) {
      const auto& op = ops[o];
      const std::uint32_t got = results[o];
      if (op.kind == hash_op_kind::insert) {
        ASSERT_EQ(got, kHashInserted) << op.key;
      } else if (op.kind == hash_op_kind::erase) {
        ASSERT_EQ(got, old_index.count(op.key) ? kHashErased : kHashAbsent) << op.key;
      } else if (old_index.count(op.key)) {
        ASSERT_EQ(got, old_values[old_index[op.key]]) << "an old key was missed: " << op.key;
      } else if (fresh_index.count(op.key)) {
        ASSERT_TRUE(got == fresh_index[op.key] + 7 || got == map.empty_value_sentinel()) << op.key;
      } else {
        ASSERT_EQ(got, map.empty_value_sentinel()) << op.key;
      }
    }
    check_against_model(map, model, absent);
  }
}

TEST(LinearProbingMap, CountsArePerCall) {
  GRAPHKIT_REQUIRE_GPU();
  const std::vector<std::uint32_t> a = {1, 2, 3}, b = {3, 4}, values = {5, 6, 7};
  auto da = upload(a);
  auto db = upload(b);
  auto dv = upload(values);
  map32 map(64);
  hash_counts first, second;
  map.insert_async(da.data(), dv.data(), a.size(), first);
  map.insert_async(db.data(), dv.data(), b.size(), second);
  EXPECT_EQ(first.result().inserted, 3u);
  EXPECT_EQ(second.result().inserted, 1u);  // 3 was there: an update
  hash_counts erased;
  map.erase_async(da.data(), a.size(), erased);
  EXPECT_EQ(erased.result().erased, 3u);
  EXPECT_EQ(first.result().inserted, 3u) << "a later call leaves an earlier call's counts alone";
  map.insert_async(da.data(), dv.data(), 0, first);
  EXPECT_EQ(first.result().inserted, 0u) << "an empty call still resets its counts";
}

// ---- tiles of lanes per key in the bulk kernels (issue 18, step 21) ------------
//
// Every tile size the bench measures, and mixed choices (a table written by
// tiles of 8 and read by threads, and the other way round: both walks must
// visit the slots in the same order). Capacities that are not whole groups of
// 8 slots cut the last group short.

template <unsigned W, unsigned F, unsigned E = W, lp_grid G = lp_grid::capped>
struct tiles {
  static constexpr unsigned write = W, find = F, erase = E;
  static constexpr lp_grid grid = G;
};
template <class Tiles>
class LinearProbingTiles : public testing::Test {
 public:
  template <class Key = std::uint32_t>
  using map_type =
      linear_probing_map<Key, std::uint32_t, murmur3_hash, Tiles::write, Tiles::find, Tiles::erase, Tiles::grid>;
};
struct tile_names {
  static std::string walk(unsigned lanes) { return lanes == kLpRefill ? "refill" : std::to_string(lanes); }
  template <class Tiles>
  static std::string GetName(int) {
    return "write" + walk(Tiles::write) + "_find" + walk(Tiles::find) + "_erase" + walk(Tiles::erase) +
           (Tiles::grid == lp_grid::resident ? "_resident" : "");
  }
};
// The refill walk (step 22) for finds and erases, on tables written by tiles
// of 4 (as the bench runs it), by threads and by tiles of 8, and erases by
// refill beside finds by threads. Step 30: the bulk kernels on one resident
// wave (lp_grid::resident) for the default walks (tile-4 inserts and erases,
// refill finds), the refill finds and erases, and a thread per key.
using tile_choices =
    testing::Types<tiles<1, 1>, tiles<2, 2>, tiles<4, 4>, tiles<8, 8>, tiles<8, 1>, tiles<1, 8>,
                   tiles<4, kLpRefill, kLpRefill>, tiles<1, kLpRefill, kLpRefill>, tiles<8, kLpRefill, 8>,
                   tiles<4, 1, kLpRefill>, tiles<4, kLpRefill, 4, lp_grid::resident>,
                   tiles<4, kLpRefill, kLpRefill, lp_grid::resident>, tiles<1, 1, 1, lp_grid::resident>>;
TYPED_TEST_SUITE(LinearProbingTiles, tile_choices, tile_names);

TYPED_TEST(LinearProbingTiles, RandomBatchesOfSizesZeroOneAndMore) {
  GRAPHKIT_REQUIRE_GPU();
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  random_batches<std::uint32_t, TypeParam::write, TypeParam::find, TypeParam::erase, TypeParam::grid>(seed);
  random_batches<std::uint64_t, TypeParam::write, TypeParam::find, TypeParam::erase, TypeParam::grid>(seed + 1);
}

// Each key 3 times in one shuffled batch, at loads 0.5 to 0.95: stored once,
// counted once, holding one of its values; erased once; added again.
TYPED_TEST(LinearProbingTiles, DuplicatesInOneBatchAtLoadsUpTo95Percent) {
  GRAPHKIT_REQUIRE_GPU();
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  std::mt19937_64 rng(seed);
  for (const double load : {0.5, 0.9, 0.95}) {
    SCOPED_TRACE(testing::Message() << "load " << load);
    typename TestFixture::template map_type<> map(4099);  // 4100 slots: 512 groups of 8 and a half
    const auto distinct = distinct_keys<std::uint32_t>(rng, static_cast<std::size_t>(map.capacity() * load));
    std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs;
    std::unordered_map<std::uint32_t, std::unordered_set<std::uint32_t>> offered;
    for (int copy = 0; copy < 3; ++copy)
      for (const auto k : distinct) {
        pairs.emplace_back(k, static_cast<std::uint32_t>(rng() % 1000));
        offered[k].insert(pairs.back().second);
      }
    std::shuffle(pairs.begin(), pairs.end(), rng);
    std::vector<std::uint32_t> keys, values;
    for (const auto& [k, v] : pairs) keys.push_back(k), values.push_back(v);
    auto dk = upload(keys);
    auto dv = upload(values);
    EXPECT_EQ(map.insert(dk.data(), dv.data(), keys.size()), distinct.size()) << "each key counted once";
    EXPECT_EQ(map.size(), distinct.size()) << "each key stored once";
    auto dd = upload(distinct);
    device_buffer<std::uint32_t> found(distinct.size());
    map.find_async(dd.data(), distinct.size(), found.data());
    const auto got = found.to_host();
    for (std::size_t i = 0; i < distinct.size(); ++i) ASSERT_TRUE(offered[distinct[i]].count(got[i])) << distinct[i];
    EXPECT_EQ(map.erase(dk.data(), keys.size()), distinct.size()) << "each key erased once";
    EXPECT_EQ(map.size(), 0u);
    EXPECT_EQ(map.insert(dk.data(), dv.data(), keys.size()), distinct.size()) << "erased keys come back as added";
  }
}

// Batches filling a table to 0.5, 0.7, 0.9 and 0.95, each checked against the
// model with absent keys; then erases of a random half and of absent keys.
TYPED_TEST(LinearProbingTiles, LoadsUpTo95PercentAgreeWithTheModel) {
  GRAPHKIT_REQUIRE_GPU();
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  std::mt19937_64 rng(seed);
  typename TestFixture::template map_type<> map((1 << 16) + 4);  // not whole groups of 8
  std::unordered_set<std::uint32_t> taken;
  std::unordered_map<std::uint32_t, std::uint32_t> model;
  const auto absent = distinct_keys<std::uint32_t>(rng, 2000, &taken);
  for (const double load : {0.5, 0.7, 0.9, 0.95}) {
    SCOPED_TRACE(testing::Message() << "load " << load);
    const auto keys =
        distinct_keys<std::uint32_t>(rng, static_cast<std::size_t>(map.capacity() * load) - model.size(), &taken);
    std::vector<std::uint32_t> values(keys.size());
    for (std::size_t i = 0; i < keys.size(); ++i) model[keys[i]] = values[i] = static_cast<std::uint32_t>(rng() >> 40);
    auto dk = upload(keys);
    auto dv = upload(values);
    hash_counts counts;
    map.insert_async(dk.data(), dv.data(), keys.size(), counts);
    const hash_result r = counts.result();
    EXPECT_EQ(r.inserted, keys.size());
    EXPECT_EQ(r.failed, 0u);
    check_against_model(map, model, absent);
  }
  std::vector<std::uint32_t> gone;
  for (auto it = model.begin(); it != model.end();)
    if (rng() % 2) gone.push_back(it->first), it = model.erase(it);
    else ++it;
  const std::size_t live_erased = gone.size();
  gone.insert(gone.end(), absent.begin(), absent.end());
  std::shuffle(gone.begin(), gone.end(), rng);
  auto dg = upload(gone);
  EXPECT_EQ(map.erase(dg.data(), gone.size()), live_erased);
  check_against_model(map, model, absent);
}

// More keys than slots: exactly the surplus fails, every call ends (a miss,
// an erase of an absent key and a failing insert each walk one whole lap).
TYPED_TEST(LinearProbingTiles, AFullTableReportsFailuresWithoutHanging) {
  GRAPHKIT_REQUIRE_GPU();
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  std::mt19937_64 rng(seed);
  typename TestFixture::template map_type<> map(1001);  // 1004 slots: 125 groups of 8 and a half
  ASSERT_EQ(map.capacity(), 1004u);
  std::unordered_set<std::uint32_t> taken;
  const auto keys = distinct_keys<std::uint32_t>(rng, map.capacity() + 137, &taken);
  const auto absent = distinct_keys<std::uint32_t>(rng, 50, &taken);
  std::vector<std::uint32_t> values(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) values[i] = static_cast<std::uint32_t>(i);
  auto dk = upload(keys);
  auto dv = upload(values);
  hash_counts counts;
  map.insert_async(dk.data(), dv.data(), keys.size(), counts);
  hash_result r = counts.result();
  EXPECT_EQ(r.inserted, map.capacity());
  EXPECT_EQ(r.failed, 137u);
  // The keys that got in hold their values; the model is what the table says it kept.
  device_buffer<std::uint32_t> found(keys.size());
  map.find_async(dk.data(), keys.size(), found.data());
  const auto got = found.to_host();
  std::unordered_map<std::uint32_t, std::uint32_t> model;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    if (got[i] == map.empty_value_sentinel()) continue;
    ASSERT_EQ(got[i], values[i]) << keys[i];
    model[keys[i]] = values[i];
  }
  ASSERT_EQ(model.size(), map.capacity());
  check_against_model(map, model, absent);
  // The same batch again: the stored keys are updated, the others fail again.
  map.insert_async(dk.data(), dv.data(), keys.size(), counts);
  r = counts.result();
  EXPECT_EQ(r.inserted, 0u);
  EXPECT_EQ(r.failed, 137u);
  auto da = upload(absent);
  EXPECT_EQ(map.erase(da.data(), absent.size()), 0u);
  EXPECT_EQ(map.size(), map.capacity());
}

// A table of one window (4 slots, fewer than a tile of 8), filled from every
// home; a fifth key fails; each erased and found again.
TYPED_TEST(LinearProbingTiles, ATableOfOneWindow) {
  GRAPHKIT_REQUIRE_GPU();
  typename TestFixture::template map_type<> map(1);
  ASSERT_EQ(map.capacity(), 4u);
  const std::vector<std::uint32_t> keys = {11, 22, 33, 44, 55}, values = {1, 2, 3, 4, 5};
  auto dk = upload(keys);
  auto dv = upload(values);
  hash_counts counts;
  map.insert_async(dk.data(), dv.data(), 4, counts);
  EXPECT_EQ(counts.result().inserted, 4u);
  check_against_model<std::uint32_t>(map, {{11, 1}, {22, 2}, {33, 3}, {44, 4}}, {55, 66});
  map.insert_async(dk.data() + 4, dv.data() + 4, 1, counts);
  EXPECT_EQ(counts.result().failed, 1u);
  EXPECT_EQ(map.erase(dk.data() + 1, 1), 1u);
  check_against_model<std::uint32_t>(map, {{11, 1}, {33, 3}, {44, 4}}, {22, 55});
  map.insert_async(dk.data() + 1, dv.data() + 1, 1, counts);
  EXPECT_EQ(counts.result().inserted, 1u) << "an erased key's slot comes back";
  check_against_model<std::uint32_t>(map, {{11, 1}, {22, 2}, {33, 3}, {44, 4}}, {55});
}

// More keys than the capped grid has threads (32 blocks of 256 per SM), so
// that each thread walks several keys: the refill walk's next key, read one
// ahead, and its hand-over from a settled key. Load 0.9, finds of present and
// absent keys, an erase batch of a random half in two copies each plus absent
// keys, then the rest erased and a half inserted again.
TYPED_TEST(LinearProbingTiles, SeveralKeysPerThreadAtLoad90) {
  GRAPHKIT_REQUIRE_GPU();
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  std::mt19937_64 rng(seed);
  int sms = 0;
  GRAPHKIT_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const std::size_t n = std::size_t{32} * 256 * static_cast<std::size_t>(sms) * 5 / 2 + 17;
  typename TestFixture::template map_type<> map(static_cast<std::size_t>(n / 0.9));
  std::unordered_set<std::uint32_t> taken;
  const auto keys = distinct_keys<std::uint32_t>(rng, n, &taken);
  const auto absent = distinct_keys<std::uint32_t>(rng, n / 4, &taken);
  std::vector<std::uint32_t> values(n);
  std::unordered_map<std::uint32_t, std::uint32_t> model;
  for (std::size_t i = 0; i < n; ++i) model[keys[i]] = values[i] = static_cast<std::uint32_t>(rng() >> 40);
  auto dk = upload(keys);
  auto dv = upload(values);
  EXPECT_EQ(map.insert(dk.data(), dv.data(), n), n);
  check_against_model(map, model, absent);
  std::vector<std::uint32_t> gone;
  for (const auto k : keys)
    if (rng() % 2) gone.push_back(k), gone.push_back(k), model.erase(k);
  const std::size_t live_erased = gone.size() / 2;
  gone.insert(gone.end(), absent.begin(), absent.end());
  std::shuffle(gone.begin(), gone.end(), rng);
  auto dg = upload(gone);
  hash_counts counts;
  map.erase_async(dg.data(), gone.size(), counts);
  EXPECT_EQ(counts.result().erased, live_erased) << "each live key erased once, absent keys not at all";
  check_against_model(map, model, absent);
  EXPECT_EQ(map.erase(dk.data(), n), model.size()) << "the rest";
  check_against_model<std::uint32_t>(map, {}, keys);
  EXPECT_EQ(map.insert(dk.data(), dv.data(), n / 2), n / 2) << "erased keys come back as added";
  model.clear();
  for (std::size_t i = 0; i < n / 2; ++i) model[keys[i]] = values[i];
  check_against_model(map, model, absent);
}

// The bench's erase of the first-inserted half (step 30), at loads 0.5 to
// 0.95: the first half of random keys goes in by one call, the second half by
// another, then one erase batch holds the first half twice over and absent
// keys, shuffled. Each first-half key is erased once and counted once, absent
// keys erase nothing, every key is then found as the model says; the batch
// again erases nothing; the first half comes back as added. 32- and 64-bit keys.
template <class Map>
void erase_first_inserted_half(std::mt19937_64& rng, double load) {
  using Key = decltype(typename Map::slot{}.key);
  Map map((1 << 14) + 4);  // not whole groups of 8
  std::unordered_set<Key> taken;
  const auto keys = distinct_keys<Key>(rng, static_cast<std::size_t>(map.capacity() * load), &taken);
  const auto absent = distinct_keys<Key>(rng, 700, &taken);
  const std::size_t half = keys.size() / 2;
  std::vector<std::uint32_t> values(keys.size());
  std::unordered_map<Key, std::uint32_t> model;
  for (std::size_t i = 0; i < keys.size(); ++i) model[keys[i]] = values[i] = static_cast<std::uint32_t>(rng() >> 40);
  auto dk = upload(keys);
  auto dv = upload(values);
  EXPECT_EQ(map.insert(dk.data(), dv.data(), half), half);
  EXPECT_EQ(map.insert(dk.data() + half, dv.data() + half, keys.size() - half), keys.size() - half);
  check_against_model(map, model, absent);
  std::vector<Key> gone;
  for (std::size_t i = 0; i < half; ++i) gone.push_back(keys[i]), gone.push_back(keys[i]), model.erase(keys[i]);
  gone.insert(gone.end(), absent.begin(), absent.end());
  std::shuffle(gone.begin(), gone.end(), rng);
  auto dg = upload(gone);
  hash_counts counts;
  map.erase_async(dg.data(), gone.size(), counts);
  EXPECT_EQ(counts.result().erased, half) << "each first-half key erased once, absent keys not at all";
  check_against_model(map, model, absent);
  EXPECT_EQ(map.erase(dg.data(), gone.size()), 0u) << "erased keys stay erased";
  EXPECT_EQ(map.insert(dk.data(), dv.data(), half), half) << "erased keys come back as added";
  for (std::size_t i = 0; i < half; ++i) model[keys[i]] = values[i];
  check_against_model(map, model, absent);
}

TYPED_TEST(LinearProbingTiles, FirstInsertedHalfErasedAtLoadsUpTo95Percent) {
  GRAPHKIT_REQUIRE_GPU();
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  std::mt19937_64 rng(seed);
  for (const double load : {0.5, 0.7, 0.8, 0.9, 0.95}) {
    SCOPED_TRACE(testing::Message() << "load " << load);
    erase_first_inserted_half<typename TestFixture::template map_type<std::uint32_t>>(rng, load);
    erase_first_inserted_half<typename TestFixture::template map_type<std::uint64_t>>(rng, load);
  }
}

// The empty key in find, contains and erase batches (every walk): found as
// the empty value, contained nowhere, erasing nothing, beside live keys.
TYPED_TEST(LinearProbingTiles, TheEmptyKeyInFindAndEraseBatches) {
  GRAPHKIT_REQUIRE_GPU();
  typename TestFixture::template map_type<> map(64);
  const std::uint32_t empty = map.empty_key_sentinel();
  const std::vector<std::uint32_t> keys = {5, 6, 7}, values = {50, 60, 70};
  auto dk = upload(keys);
  auto dv = upload(values);
  EXPECT_EQ(map.insert(dk.data(), dv.data(), keys.size()), keys.size());
  const std::vector<std::uint32_t> mixed = {empty, 6, empty, 8, 5};
  check_against_model<std::uint32_t>(map, {{5, 50}, {6, 60}, {7, 70}}, {empty, 8});
  auto dm = upload(mixed);
  EXPECT_EQ(map.erase(dm.data(), mixed.size()), 2u);
  check_against_model<std::uint32_t>(map, {{7, 70}}, {empty, 5, 6, 8});
}

}  // namespace
}  // namespace graphkit
