// What the hash map tests share: keys that no map takes for a sentinel, a
// bulk insert and a bulk find from and to the host, and the check of a map
// against a std::unordered_map model.
#pragma once

#include <algorithm>
#include <cstdint>
#include <random>
#include <span>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <gtest/gtest.h>

#include "primitives/common/device_buffer.hpp"
#include "primitives/hash/contract.cuh"

namespace graphkit::test {

/// The maps' default empty value (finds of absent keys return it).
inline constexpr std::uint32_t kEmptyValue = 0xffffffffu;

/// `count` distinct keys, none a sentinel (the empty key and the one below it,
/// a tombstone for some maps), nor the key whose stress-test value
/// (key ^ 0x5a5a5a5a) is the empty value.
inline std::vector<std::uint32_t> distinct_keys(std::size_t count, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::unordered_set<std::uint32_t> seen;
  std::vector<std::uint32_t> keys;
  while (keys.size() < count) {
    const auto k = static_cast<std::uint32_t>(rng());
    if (k >= 0xfffffffeu || k == 0xa5a5a5a5u || !seen.insert(k).second) continue;
    keys.push_back(k);
  }
  return keys;
}

/// find_async of every key, back on the host.
template <class Map>
std::vector<std::uint32_t> find_all(Map& map, const std::vector<std::uint32_t>& keys) {
  device_buffer<std::uint32_t> d_keys{std::span<const std::uint32_t>(keys)}, out(std::max<std::size_t>(keys.size(), 1));
  map.find_async(d_keys.data(), keys.size(), out.data());
  std::vector<std::uint32_t> got = out.to_host();
  got.resize(keys.size());
  return got;
}

/// insert_async of host keys and values: the call's counts.
template <class Map>
hash_result insert_batch(Map& map, const std::vector<std::uint32_t>& keys, const std::vector<std::uint32_t>& values) {
  device_buffer<std::uint32_t> d_keys{std::span<const std::uint32_t>(keys)},
      d_values{std::span<const std::uint32_t>(values)};
  hash_counts counts;
  map.insert_async(d_keys.data(), d_values.data(), keys.size(), counts);
  return counts.result();
}

/// A mixed batch through apply_async, from the host: the call's counts and
/// each operation's result, in the batch's order.
struct applied {
  hash_result counts;
  std::vector<std::uint32_t> results;
};
template <class Map, class Op>
applied apply_batch(Map& map, const std::vector<Op>& ops) {
  const device_buffer<Op> d_ops{std::span<const Op>(ops)};
  device_buffer<std::uint32_t> d_results(ops.size());
  hash_counts counts;
  map.apply_async(d_ops.data(), ops.size(), d_results.data(), counts);
  return {counts.result(), d_results.to_host()};
}

/// The map holds exactly the model: its size, each live entry once with the
/// model's value (retrieve_all), and the model's value from a find of every key.
template <class Map>
void expect_same_as(Map& map, const std::unordered_map<std::uint32_t, std::uint32_t>& model) {
  ASSERT_EQ(map.size(), model.size());
  device_buffer<std::uint32_t> out_keys(std::max<std::size_t>(model.size(), 1)),
      out_values(std::max<std::size_t>(model.size(), 1));
  ASSERT_EQ(map.retrieve_all(out_keys.data(), out_values.data()), model.size());
  const std::vector<std::uint32_t> keys = out_keys.to_host(), values = out_values.to_host();
  std::unordered_set<std::uint32_t> seen;
  for (std::size_t i = 0; i < model.size(); ++i) {
    ASSERT_TRUE(seen.insert(keys[i]).second) << "key " << keys[i] << " stored twice";
    const auto it = model.find(keys[i]);
    ASSERT_NE(it, model.end()) << "key " << keys[i] << " was never inserted";
    ASSERT_EQ(values[i], it->second) << "key " << keys[i];
  }
  std::vector<std::uint32_t> model_keys;
  for (const auto& entry : model) model_keys.push_back(entry.first);
  const std::vector<std::uint32_t> found = find_all(map, model_keys);
  for (std::size_t i = 0; i < model_keys.size(); ++i)
    ASSERT_EQ(found[i], model.at(model_keys[i])) << "find of key " << model_keys[i];
}

/// A mixed batch checked against the contract's semantics: keys [0, 2 third)
/// start in a table of `capacity` at load 0.9; then in one kernel [0, third)
/// are erased, [third, 2 third) looked up, and [2 third, end) inserted and
/// looked up while they are being inserted. A find racing its key's erase or
/// insert may see either side; afterwards exactly keys [third, end) remain.
template <class Map>
void expect_mixed_batch_semantics(Map& map, std::size_t capacity, std::uint64_t seed) {
  using op = hash_op<std::uint32_t, std::uint32_t>;
  const std::vector<std::uint32_t> keys = distinct_keys(capacity * 9 / 10, seed);
  const std::size_t third = keys.size() / 3;
  std::vector<std::uint32_t> first(keys.begin(), keys.begin() + 2 * third), first_values(2 * third);
  for (std::size_t i = 0; i < first_values.size(); ++i) first_values[i] = static_cast<std::uint32_t>(i);
  device_buffer<std::uint32_t> d_first{std::span<const std::uint32_t>(first)},
      d_first_values{std::span<const std::uint32_t>(first_values)};
  map.insert(d_first.data(), d_first_values.data(), first.size());

  std::vector<op> ops;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    if (i < third) ops.push_back({hash_op_kind::erase, keys[i], 0});
    else if (i < 2 * third) ops.push_back({hash_op_kind::find, keys[i], 0});
    else
      ops.push_back({hash_op_kind::insert, keys[i], static_cast<std::uint32_t>(i)}),
          ops.push_back({hash_op_kind::find, keys[i], 0});
  }
  std::shuffle(ops.begin(), ops.end(), std::mt19937_64(seed));
  const auto [r, results] = apply_batch(map, ops);
  EXPECT_EQ(r.erased, third);
  EXPECT_EQ(r.inserted, keys.size() - 2 * third);
  std::unordered_map<std::uint32_t, std::size_t> index;
  for (std::size_t i = 0; i < keys.size(); ++i) index[keys[i]] = i;
  for (std::size_t o = 0; o < ops.size(); ++o) {
    const std::size_t i = index[ops[o].key];
    const auto mine = static_cast<std::uint32_t>(i);
    switch (ops[o].kind) {
      case hash_op_kind::erase: ASSERT_EQ(results[o], kHashErased) << "erase of a present key"; break;
      case hash_op_kind::insert: ASSERT_EQ(results[o], kHashInserted); break;
      case hash_op_kind::find:
        if (i < third) ASSERT_TRUE(results[o] == kEmptyValue || results[o] == mine) << "find racing its erase";
        else if (i < 2 * third) ASSERT_EQ(results[o], mine) << "an untouched key was missed";
        else ASSERT_TRUE(results[o] == kEmptyValue || results[o] == mine) << "racing find";
        break;
    }
  }
  const std::vector<std::uint32_t> got = find_all(map, keys);
  for (std::size_t i = 0; i < keys.size(); ++i)
    ASSERT_EQ(got[i], i < third ? kEmptyValue : static_cast<std::uint32_t>(i)) << "key index " << i;
}

/// Ten rounds of churn at load 0.95 in one mixed batch each: `churn` new
/// keys inserted, `churn` live keys erased and every other live key found,
/// all at once, so that the map's moves (displacements, evictions) race
/// finds. Every result is checked; returns the live keys at the end and adds
/// the moves to `moves`.
template <class Map>
std::vector<std::uint32_t> churn_at_load_95(Map& map, std::size_t capacity, std::uint64_t seed, std::uint64_t& moves) {
  using op = hash_op<std::uint32_t, std::uint32_t>;
  const std::size_t resident = capacity * 95 / 100, churn = capacity / 50;
  const std::vector<std::uint32_t> keys = distinct_keys(resident + 20 * churn, seed);
  std::vector<std::uint32_t> live(keys.begin(), keys.begin() + resident - churn);
  std::vector<std::uint32_t> values(live.size());
  for (std::size_t i = 0; i < live.size(); ++i) values[i] = live[i] ^ 0x5a5a5a5au;
  device_buffer<std::uint32_t> d_live{std::span<const std::uint32_t>(live)},
      d_values{std::span<const std::uint32_t>(values)};
  map.insert(d_live.data(), d_values.data(), live.size());
  std::size_t next = resident - churn;
  std::mt19937_64 rng(seed);
  for (int round = 0; round < 10; ++round) {
    std::shuffle(live.begin(), live.end(), rng);
    std::vector<op> ops;
    for (std::size_t j = 0; j < churn; ++j, ++next)
      ops.push_back({hash_op_kind::insert, keys[next], keys[next] ^ 0x5a5a5a5au});
    for (std::size_t j = 0; j < churn; ++j) ops.push_back({hash_op_kind::erase, live[j], 0});
    for (std::size_t j = churn; j < live.size(); ++j) ops.push_back({hash_op_kind::find, live[j], 0});
    std::shuffle(ops.begin(), ops.end(), rng);
    const auto [r, results] = apply_batch(map, ops);
    EXPECT_EQ(r.inserted, churn) << "round " << round;
    EXPECT_EQ(r.erased, churn) << "round " << round;
    EXPECT_EQ(r.failed, 0u) << "round " << round;
    moves += r.displacements;
    std::size_t wrong = 0, first_wrong = ops.size();
    for (std::size_t o = 0; o < ops.size(); ++o) {
      const std::uint32_t want = ops[o].kind == hash_op_kind::find     ? ops[o].key ^ 0x5a5a5a5au
                                 : ops[o].kind == hash_op_kind::insert ? std::uint32_t{kHashInserted}
                                                                       : std::uint32_t{kHashErased};
      if (results[o] != want && wrong++ == 0) first_wrong = o;
    }
    EXPECT_EQ(wrong, 0u) << "round " << round << ": the first wrong result is op " << first_wrong
                         << " (a missed find is a present key hidden by a move)";
    live.erase(live.begin(), live.begin() + churn);
    for (std::size_t j = next - churn; j < next; ++j) live.push_back(keys[j]);
  }
  return live;
}

}  // namespace graphkit::test
