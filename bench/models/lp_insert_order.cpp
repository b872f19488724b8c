// Issue 18, step 30 (bench/NOTES.md): which keys hash_bench's "erase first
// half" erases, by a sequential model of the linear-probing map's bulk insert
// of 2^26 keys fmix32(i) (the bench's keys and home function). A key's probe
// is fixed when it is placed (linear probing never moves keys), so the half
// erased costs what its keys' placement loads made it. Two insertion orders:
//   * index order: cuco's bulk insert (one tile per key, blocks dispatched in
//     index order), and one resident wave of a grid-stride loop (lp_grid::resident);
//   * the capped grid (lp_grid::capped): 132 SMs x 32 blocks of 64 tiles, 8
//     blocks resident per SM, so 4 waves of blocks, each block walking the
//     whole batch: keys are placed wave by wave, every wave across all indices.
// Prints, for the first half of the keys and for all keys: mean probe (slots),
// groups of 4 aligned slots read per key (tile 4's reads), and the mean over
// warps of the longest of 8 consecutive keys' groups (tile 4's lockstep).
//   g++ -O2 -o lp_insert_order bench/models/lp_insert_order.cpp && ./lp_insert_order 0.9
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <vector>

namespace {

std::uint32_t fmix32(std::uint32_t h) {
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  h *= 0xc2b2ae35u;
  h ^= h >> 16;
  return h;
}

struct placed {
  std::uint32_t slots;   // probe length: slots read by a thread's find
  std::uint32_t groups;  // aligned groups of 4 read by a tile of 4
};

/// Places keys fmix32(order[q]) in that order; returns each key's probe, by index.
std::vector<placed> place(std::size_t n, std::size_t capacity, const std::vector<std::uint64_t>& order) {
  const std::uint32_t empty = fmix32(0xffffffffu);
  std::vector<std::uint32_t> table(capacity, empty);
  std::vector<placed> out(n);
  for (const std::uint64_t i : order) {
    const std::uint32_t k = fmix32(static_cast<std::uint32_t>(i));
    const std::size_t home = static_cast<std::size_t>((std::uint64_t{fmix32(k)} * capacity) >> 32);
    std::size_t p = home, d = 0;
    while (table[p] != empty) p = p + 1 == capacity ? 0 : p + 1, ++d;
    table[p] = k;
    out[i] = {static_cast<std::uint32_t>(d + 1), static_cast<std::uint32_t>((home % 4 + d) / 4 + 1)};
  }
  return out;
}

/// The capped grid's order: wave, then iteration, then block, then tile.
std::vector<std::uint64_t> capped_order(std::size_t n) {
  const std::size_t blocks = 132 * 32, tiles = 64, resident = 132 * 8, stride = blocks * tiles;
  std::vector<std::uint64_t> rank(n), order(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t r = i % stride, j = i / stride, b = r / tiles, wave = b / resident;
    rank[i] = ((wave * 4096 + j) * blocks + b) * tiles + r % tiles;
  }
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](std::uint64_t a, std::uint64_t b) { return rank[a] < rank[b]; });
  return order;
}

void report(const char* name, double load, const std::vector<placed>& p) {
  const std::size_t n = p.size(), half = n / 2;
  double slots = 0, groups = 0, all_slots = 0, all_groups = 0, lockstep = 0;
  for (std::size_t i = 0; i < n; ++i) {
    all_slots += p[i].slots, all_groups += p[i].groups;
    if (i < half) slots += p[i].slots, groups += p[i].groups;
  }
  for (std::size_t i = 0; i + 8 <= half; i += 8) {
    std::uint32_t longest = 0;
    for (std::size_t t = 0; t < 8; ++t) longest = std::max(longest, p[i + t].groups);
    lockstep += longest;
  }
  std::printf("%s, load %.2f: first half %.2f slots, %.3f groups, lockstep %.2f; all keys %.2f slots, %.3f groups\n",
              name, load, slots / half, groups / half, lockstep / (half / 8), all_slots / n, all_groups / n);
}

}  // namespace

int main(int argc, char** argv) {
  const double load = argc > 1 ? std::atof(argv[1]) : 0.9;
  const std::size_t n = std::size_t{1} << 26;
  const std::size_t capacity = (static_cast<std::size_t>(n / load) + 3) / 4 * 4;
  std::vector<std::uint64_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  report("index order (cuco, one resident wave)", load, place(n, capacity, order));
  report("capped grid (4 waves of blocks)      ", load, place(n, capacity, capped_order(n)));
  return 0;
}
