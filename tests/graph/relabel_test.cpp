// Vertex-id compaction against a std::map model, on dense and sparse ids.
#include <gtest/gtest.h>

#include <map>
#include <random>

#include "graph/relabel.hpp"
#include "tests/common/test_support.hpp"

namespace graphkit {
namespace {

// Model: ids in sorted order, or in order of first appearance (src then dst).
std::map<std::uint64_t, vertex_t> model(const std::vector<std::uint64_t>& src, const std::vector<std::uint64_t>& dst,
                                        relabel_order order) {
  std::map<std::uint64_t, vertex_t> ids;
  if (order == relabel_order::first_seen) {
    for (std::size_t i = 0; i < src.size(); ++i)
      for (const auto id : {src[i], dst[i]}) ids.emplace(id, static_cast<vertex_t>(ids.size()));
    return ids;
  }
  for (std::size_t i = 0; i < src.size(); ++i) ids.emplace(src[i], 0), ids.emplace(dst[i], 0);
  vertex_t next = 0;
  for (auto& [id, v] : ids) v = next++;
  return ids;
}

void check(const std::vector<std::uint64_t>& src, const std::vector<std::uint64_t>& dst, relabel_order order) {
  const auto expected = model(src, dst, order);
  const relabeled_edges got = relabel(src, dst, order);
  ASSERT_EQ(got.num_vertices, expected.size());
  for (std::size_t i = 0; i < src.size(); ++i) {
    ASSERT_EQ(got.src[i], expected.at(src[i])) << "edge " << i;
    ASSERT_EQ(got.dst[i], expected.at(dst[i])) << "edge " << i;
  }
  for (const auto& [id, v] : expected) {
    const original_id_t back = got.original_ids.empty() ? v : got.original_ids[v];
    ASSERT_EQ(back, id);
  }
}

TEST(Relabel, EmptyAndSingleEdge) {
  for (const auto order : {relabel_order::sorted, relabel_order::first_seen}) {
    check({}, {}, order);
    check({42}, {42}, order);
    check({std::uint64_t{1} << 63}, {0}, order);
  }
}

TEST(Relabel, IdentityNeedsNoMapping) {
  const relabeled_edges got =
      relabel(std::vector<std::uint64_t>{0, 1, 2}, std::vector<std::uint64_t>{1, 2, 0}, relabel_order::sorted);
  EXPECT_TRUE(got.original_ids.empty());
  EXPECT_EQ(got.num_vertices, 3u);
}

TEST(Relabel, RandomDenseAndSparseIdsMatchTheModel) {
  const std::uint64_t seed = test::fresh_seed();
  GRAPHKIT_SEED_TRACE(seed);
  std::mt19937_64 rng(seed);
  for (const std::uint64_t universe : {std::uint64_t{50}, std::uint64_t{1} << 20, ~std::uint64_t{0}}) {
    for (const std::size_t m : {std::size_t{1}, std::size_t{31}, std::size_t{5000}}) {
      std::vector<std::uint64_t> src(m), dst(m);
      for (std::size_t i = 0; i < m; ++i) src[i] = rng() % universe, dst[i] = rng() % universe;
      SCOPED_TRACE("universe " + std::to_string(universe) + ", m " + std::to_string(m));
      check(src, dst, relabel_order::sorted);
      check(src, dst, relabel_order::first_seen);
    }
  }
}

}  // namespace
}  // namespace graphkit
