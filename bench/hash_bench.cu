// Hash-map throughput against the random-gather and random-CAS ceilings and
// cuCollections' static_map, all measured in this run: insert, find (hits,
// misses), erase at loads 0.5..0.95 for 2^26 keys, for the linear-probing,
// the hopscotch and the bucketed cuckoo map; mixed insert / erase / find batches; and the seed
// article's experiment (4M-key batches into a 2^27-slot table up to load 0.95).
//
//   hash_bench [--cuco PATH] [--reps N] [--only linear|linear-erase|hopscotch|cuckoo|cuckoo-mixed]
//
// --cuco runs PATH (a copy of ../shared/anchors/cuco_bench) before anything
// else and prints its figures beside ours with the ratio; without it, the
// figures PERFORMANCE.md records for the H100 stand in, labelled as such.
// --only runs one map's rows (its sweep and mixed rows; the seed article's
// batches are linear probing's; cuckoo-mixed runs only the bucketed cuckoo
// map's mixed rows, the insert modes of steps 27-28; linear-erase runs only
// step 30's linear-probing rows). Linear probing's sweep runs once per walk:
// a thread per key, and tiles of 2, 4 and 8 lanes per key in every bulk kernel,
// then tile-4 inserts with the refill walk's finds and erases (step 22), then
// the default walks on the capped grid and on one resident wave and the refill
// walks on one resident wave (step 30). Every row also erases the first half
// of its keys, as cuco's erase does, twice: from the table one insert call
// made (the column of steps 22-25), and from a table whose first half went in
// by a call of its own before the second half (the half cuco's figure erases:
// the one placed first), then finds every key. The
// bucketed cuckoo map's sweep runs twice: whole-bucket and half-bucket bulk
// finds and erases (steps 23-24).
// Keys are fmix32(i), a bijection, so keys are distinct by construction; the
// linear-probing map's empty key is fmix32(2^32 - 1), the one value no
// i < 2^32 - 1 yields. Hopscotch and the bucketed cuckoo map take keys 1..n
// (their sentinels are the top two values; buckets come from the hash, so
// they are as good as random keys).
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench/common/gather_ceiling.cuh"
#include "bench/cuco_figures.hpp"
#include "primitives/common/launch.hpp"
#include "primitives/hash/bucketed_cuckoo_map.cuh"
#include "primitives/hash/hopscotch_map.cuh"
#include "primitives/hash/linear_probing_map.cuh"

namespace {

using namespace graphkit;
using lp_map = linear_probing_map<std::uint32_t, std::uint32_t>;
constexpr double kLoads[] = {0.5, 0.7, 0.8, 0.9, 0.95};

__global__ void hashed_keys(std::uint32_t* keys, std::uint32_t* values, std::size_t first, std::size_t n) {
  const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (i < n)
    keys[i] = murmur3_hash{}(static_cast<std::uint32_t>(first + i)), values[i] = static_cast<std::uint32_t>(first + i);
}
__global__ void sequential_keys(std::uint32_t* keys, std::uint32_t* values, std::uint32_t first, std::size_t n) {
  const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (i < n) keys[i] = first + static_cast<std::uint32_t>(i), values[i] = static_cast<std::uint32_t>(i);
}
__global__ void random_cas(unsigned long long* table, std::size_t size, std::size_t n) {
  const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (i < n) atomicCAS(&table[murmur3_hash{}(static_cast<std::uint64_t>(i)) % size], 0ull, i + 1);
}
/// Finds after the first `half` keys were erased: keys below `half` must find
/// the empty value, the others expected[i].
__global__ void count_half_erased_mismatches(const std::uint32_t* got, const std::uint32_t* expected,
                                             std::uint32_t missing, std::size_t half, std::size_t n,
                                             unsigned long long* bad) {
  const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (i < n && got[i] != (i < half ? missing : expected[i])) atomicAdd(bad, 1ull);
}
/// Finds that did not return expected[i] (or, for misses, the empty-value sentinel).
__global__ void count_mismatches(const std::uint32_t* got, const std::uint32_t* expected, std::uint32_t missing,
                                 std::size_t n, unsigned long long* bad) {
  const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (i < n && got[i] != (expected ? expected[i] : missing)) atomicAdd(bad, 1ull);
}

struct ceilings {
  double gather = 0, cas = 0;  // G/s
};

/// "X (Yx)": cuco's figure and our ratio to it, or n/a.
std::string beside_cuco(double ours, double cuco) {
  if (cuco <= 0) return "n/a | n/a";
  char text[64];
  std::snprintf(text, sizeof text, "%.2f | %.2fx", cuco, ours / cuco);
  return text;
}

/// Keys, values, misses and a result buffer for one key scheme, and the check of finds.
struct workload {
  std::size_t n;
  device_buffer<std::uint32_t> keys, values, misses, found;
  device_buffer<unsigned long long> bad{1};

  workload(std::size_t count, bool sequential) : n(count), keys(count), values(count), misses(count), found(count) {
    device_buffer<std::uint32_t> scratch(count);
    if (sequential) {
      sequential_keys<<<blocks_for(n), 256>>>(keys.data(), values.data(), 1, n);
      sequential_keys<<<blocks_for(n), 256>>>(misses.data(), scratch.data(), static_cast<std::uint32_t>(n + 1), n);
    } else {
      hashed_keys<<<blocks_for(n), 256>>>(keys.data(), values.data(), 0, n);
      hashed_keys<<<blocks_for(n), 256>>>(misses.data(), scratch.data(), n, n);
    }
    GRAPHKIT_CHECK_LAUNCH();
  }
  /// Finds in `found` that are wrong: values for hits, the empty value for misses.
  unsigned long long mismatches(bool hits) {
    bad.fill_bytes(0);
    count_mismatches<<<blocks_for(n), 256>>>(found.data(), hits ? values.data() : nullptr,
                                             empty_value<std::uint32_t>{}.value, n, bad.data());
    GRAPHKIT_CHECK_LAUNCH();
    return read_one(bad.data());
  }
  /// Finds in `found` that are wrong after the first `half` keys were erased.
  unsigned long long mismatches_after_erasing(std::size_t half) {
    bad.fill_bytes(0);
    count_half_erased_mismatches<<<blocks_for(n), 256>>>(found.data(), values.data(),
                                                         empty_value<std::uint32_t>{}.value, half, n, bad.data());
    GRAPHKIT_CHECK_LAUNCH();
    return read_one(bad.data());
  }
};

void print_header(const char* extra) {
  std::printf(
      "| map | load | insert G/s (%% of CAS) | cuco | ratio | find hits G/s (%% of gather) | cuco | ratio | "
      "find misses G/s | erase G/s (%% of CAS) | cuco | ratio | erase first half G/s | cuco | ratio | "
      "erase first-inserted half G/s | cuco | ratio | %s | check |\n",
      extra);
  std::printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
}

/// One row: insert (from empty), find hits, find misses, erase (all keys), checked.
template <class Map, class Extra>
void sweep_row(const char* name, Map& map, double load, workload& w, bench::gpu_timer& t, int reps, const ceilings& c,
               const bench::cuco_figures& cuco, Extra&& extra) {
  hash_counts counts;
  const std::size_t n = w.n;
  const double ins = t.median_ms(
      reps, [&] { map.insert_async(w.keys.data(), w.values.data(), n, counts); }, [&] { map.clear(); }, 1);
  const hash_result inserted = counts.result();
  const bool inserted_ok = inserted.failed == 0 && inserted.inserted == n && map.size() == n;
  const std::string extra_text = extra(map, inserted);
  const double hit = t.median_ms(reps, [&] { map.find_async(w.keys.data(), n, w.found.data()); });
  const bool hits_ok = w.mismatches(true) == 0;
  const double miss = t.median_ms(reps, [&] { map.find_async(w.misses.data(), n, w.found.data()); });
  const bool misses_ok = w.mismatches(false) == 0;
  const double er = t.median_ms(
      reps, [&] { map.erase_async(w.keys.data(), n, counts); },
      [&] { map.insert_async(w.keys.data(), w.values.data(), n, counts); }, 1);
  const bool erased_ok = counts.result().erased == n && map.size() == 0;
  // cuco's erase figure is of half its keys, the first half inserted (issue 18,
  // step 22): at load 0.9 their mean probe is ~1.4 slots, against 5.4 for all
  // keys. The same half of ours, for a like-for-like ratio; erased keys keep
  // their slots, so re-inserting them restores the table's layout.
  const std::size_t half = n / 2;
  const double er_half = t.median_ms(
      reps, [&] { map.erase_async(w.keys.data(), half, counts); },
      [&] { map.insert_async(w.keys.data(), w.values.data(), n, counts); }, 1);
  const bool half_ok = counts.result().erased == half && map.size() == n - half;
  // Issue 18, step 30: cuco's first half is also the half it inserted first
  // (one tile per key, blocks in index order), and a linear-probing key's
  // probe is set by the load when it was placed. A map whose bulk kernels do
  // not reach keys in index order (linear probing's capped grid: four waves
  // of blocks, each walking every index) placed a different half first. So
  // here the first half goes in by one call and the second half by another,
  // and the first half is erased: the keys cuco's figure erases, whatever
  // order a map's kernels take. Then every key is found: the first half
  // absent, the second with its value.
  const double er_first = t.median_ms(
      reps, [&] { map.erase_async(w.keys.data(), half, counts); },
      [&] {
        map.clear();
        map.insert_async(w.keys.data(), w.values.data(), half, counts);
        map.insert_async(w.keys.data() + half, w.values.data() + half, n - half, counts);
      },
      1);
  bool first_ok = counts.result().erased == half && map.size() == n - half;
  map.find_async(w.keys.data(), n, w.found.data());
  first_ok = first_ok && w.mismatches_after_erasing(half) == 0;
  const double ins_rate = n / ins / 1e6, hit_rate = n / hit / 1e6, miss_rate = n / miss / 1e6, er_rate = n / er / 1e6,
               half_rate = half / er_half / 1e6, first_rate = half / er_first / 1e6;
  const bench::cuco_row* peer = cuco.at(load);
  std::printf(
      "| %s | %.2f | %.2f (%.0f%%) | %s | %.2f (%.0f%%) | %s | %.2f | %.2f (%.0f%%) | %s | %.2f | %s | %.2f | %s | %s "
      "| "
      "%s |\n",
      name, load, ins_rate, 100 * ins_rate / c.cas, beside_cuco(ins_rate, peer ? peer->insert : 0).c_str(), hit_rate,
      100 * hit_rate / c.gather, beside_cuco(hit_rate, peer ? peer->find : 0).c_str(), miss_rate, er_rate,
      100 * er_rate / c.cas, beside_cuco(er_rate, peer ? peer->erase : 0).c_str(), half_rate,
      beside_cuco(half_rate, peer ? peer->erase : 0).c_str(), first_rate,
      beside_cuco(first_rate, peer ? peer->erase : 0).c_str(), extra_text.c_str(),
      inserted_ok && hits_ok && misses_ok && erased_ok && half_ok && first_ok ? "ok" : "WRONG");
  std::fflush(stdout);
}

/// Linear probing with Tile lanes per key in every bulk kernel (1: a thread
/// per key), so that each row times one walk for insert, find and erase.
template <unsigned Tile>
using lp_tile_map = linear_probing_map<std::uint32_t, std::uint32_t, murmur3_hash, Tile, Tile>;
template <unsigned Tile>
std::string lp_name() {
  return Tile == 1 ? "linear probing, thread per key" : "linear probing, tile " + std::to_string(Tile);
}

/// Issue 18, step 22: inserts by tiles of 4, finds and erases by the refill
/// walk (a thread per key that starts its next key as soon as one settles).
using lp_refill_map = linear_probing_map<std::uint32_t, std::uint32_t, murmur3_hash, 4, kLpRefill, kLpRefill>;

/// Issue 18, step 30: the map's default walks (tile-4 inserts and erases,
/// refill finds) on the capped grid (the default) and on one resident wave,
/// whose bulk insert places a batch about in index order as cuco's does; and
/// the refill finds and erases on one resident wave.
template <lp_grid Grid>
using lp_default_map = linear_probing_map<std::uint32_t, std::uint32_t, murmur3_hash, 4, kLpRefill, 4, Grid>;
using lp_refill_resident_map =
    linear_probing_map<std::uint32_t, std::uint32_t, murmur3_hash, 4, kLpRefill, kLpRefill, lp_grid::resident>;

template <class Map>
void linear_probing_rows(const std::string& name, std::size_t n, bench::gpu_timer& t, int reps, const ceilings& c,
                         const bench::cuco_figures& cuco) {
  using map_type = Map;
  workload w(n, false);
  const std::uint32_t sentinel = murmur3_hash{}(0xffffffffu);
  for (const double load : kLoads) {
    map_type map(static_cast<std::size_t>(n / load), empty_key<std::uint32_t>{sentinel});
    sweep_row(name.c_str(), map, load, w, t, reps, c, cuco, [](const map_type& m, const hash_result&) {
      const probe_statistics stats = m.probe_stats();
      char text[64];
      std::snprintf(text, sizeof text, "probe %.2f / %u", stats.mean, stats.max);
      return std::string(text);
    });
  }
}

template <int Tile>
void hopscotch_rows(std::size_t n, bench::gpu_timer& t, int reps, const ceilings& c, const bench::cuco_figures& cuco) {
  workload w(n, true);
  const std::string name = "hopscotch, tile " + std::to_string(Tile);
  for (const double load : kLoads) {
    hopscotch_map<Tile> map(static_cast<std::size_t>(n / load));
    sweep_row(name.c_str(), map, load, w, t, reps, c, cuco, [n](const hopscotch_map<Tile>&, const hash_result& r) {
      char text[96];
      std::snprintf(text, sizeof text, "%.2f moves per key, %llu stashed", static_cast<double>(r.displacements) / n,
                    static_cast<unsigned long long>(r.stashed));
      return std::string(text);
    });
  }
}

/// Issue 18, steps 23-24: at each load a row with whole-bucket bulk finds
/// and erases (the rows of steps 11-22) and one with half-bucket finds and
/// erases (the defaults since); the other columns time the same kernels twice.
void cuckoo_rows(std::size_t n, bench::gpu_timer& t, int reps, const ceilings& c, const bench::cuco_figures& cuco) {
  using map_type = bucketed_cuckoo_map<>;
  workload w(n, true);
  for (const double load : kLoads) {
    for (const cuckoo_find_read read : {cuckoo_find_read::whole, cuckoo_find_read::halves}) {
      map_type map(static_cast<std::size_t>(n / load));
      map.set_find_read(read);
      map.set_erase_read(read);
      const char* name = read == cuckoo_find_read::whole ? "bucketed cuckoo, whole-bucket finds and erases"
                                                         : "bucketed cuckoo, half-bucket finds and erases";
      sweep_row(name, map, load, w, t, reps, c, cuco, [n](const map_type& m, const hash_result& r) {
        char text[96];
        std::snprintf(text, sizeof text, "%.1f%% in 2nd bucket, %.3f moves per key",
                      100.0 * static_cast<double>(m.second_bucket_size()) / n,
                      static_cast<double>(r.displacements) / n);
        return std::string(text);
      });
    }
  }
}

/// GLHT's mixed workloads: a batch of insert / erase / find shares in one
/// kernel on a table filled to `load` first; every insert is of a new key and
/// every erase of a present one, so the counts are known.
template <class Map>
void mixed_rows(const char* name, std::size_t n, double load, bench::gpu_timer& t, int reps) {
  const std::size_t capacity = static_cast<std::size_t>(n / load);
  for (const auto& [ins, era] : {std::pair{20, 20}, std::pair{40, 40}}) {
    std::vector<hop_op> ops(n);
    std::uint32_t next_new = static_cast<std::uint32_t>(n + 1), next_old = 1;
    std::size_t inserts = 0, erases = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t r = (i * 2654435761u) % 100;
      if (r < static_cast<std::size_t>(ins)) ops[i] = {hash_op_kind::insert, next_new++, 7}, ++inserts;
      else if (r < static_cast<std::size_t>(ins + era)) ops[i] = {hash_op_kind::erase, next_old++, 0}, ++erases;
      else ops[i] = {hash_op_kind::find, static_cast<std::uint32_t>(1 + (i * 40503u) % n), 0};
    }
    device_buffer<hop_op> d_ops{std::span<const hop_op>(ops)};
    device_buffer<std::uint32_t> results(n), keys(n), values(n);
    sequential_keys<<<blocks_for(n), 256>>>(keys.data(), values.data(), 1, n);
    GRAPHKIT_CHECK_LAUNCH();
    Map map(capacity);
    hash_counts counts;
    const double ms = t.median_ms(
        reps, [&] { map.apply_async(d_ops.data(), n, results.data(), counts); },
        [&] {
          map.clear();
          (void)map.insert(keys.data(), values.data(), n);
        },
        1);
    const hash_result r = counts.result();
    const bool ok = r.failed == 0 && r.inserted == inserts && r.erased == erases;
    // A wrong row says which count was off (run 1 of the cuckoo rows printed a bare WRONG).
    char why[160] = "";
    if (!ok)
      std::snprintf(why, sizeof why, " (inserted %llu of %zu, failed %llu, erased %llu of %zu)",
                    static_cast<unsigned long long>(r.inserted), inserts, static_cast<unsigned long long>(r.failed),
                    static_cast<unsigned long long>(r.erased), erases);
    std::printf("| %s | mixed %d/%d/%d from load %.2f | %.2f G ops/s | %s%s |\n", name, ins, era, 100 - ins - era, load,
                n / ms / 1e6, ok ? "ok" : "WRONG", why);
    std::fflush(stdout);
  }
}

/// The seed article's experiment: 4M-key batches into 2^27 slots up to load 0.95.
template <unsigned Tile>
void seed_batches(bench::gpu_timer& t) {
  std::printf("\n| %s: 2^27 slots, 4M-key batch | load after | insert G/s | check |\n|---|---|---|---|\n",
              lp_name<Tile>().c_str());
  const std::size_t slots = std::size_t{1} << 27, batch = std::size_t{1} << 22;
  lp_tile_map<Tile> map(slots, empty_key<std::uint32_t>{murmur3_hash{}(0xffffffffu)});
  device_buffer<std::uint32_t> batch_keys(batch), batch_values(batch);
  hash_counts counts;
  for (std::size_t b = 0; (b + 1) * batch <= slots * 95 / 100; ++b) {
    hashed_keys<<<blocks_for(batch), 256>>>(batch_keys.data(), batch_values.data(), b * batch, batch);
    GRAPHKIT_CHECK_LAUNCH();
    // Timed once: a repeat would find its keys already placed. The kernel is warm from the sweep.
    const double ms = t.once_ms([&] { map.insert_async(batch_keys.data(), batch_values.data(), batch, counts); });
    const double load = static_cast<double>((b + 1) * batch) / slots;
    const hash_result r = counts.result();
    if (b % 4 == 3 || (b + 2) * batch > slots * 95 / 100)
      std::printf("| %zu | %.3f | %.2f | %s |\n", b + 1, load, batch / ms / 1e6,
                  r.failed == 0 && r.inserted == batch ? "ok" : "WRONG");
  }
}

ceilings measure_ceilings(bench::gpu_timer& t, int reps) {
  // Random 8-byte gathers and CASes over 1 GiB.
  const std::size_t words = std::size_t{1} << 27, ops = std::size_t{1} << 27;
  device_buffer<unsigned long long> big(words), sink(1);
  big.fill_bytes(0);
  const double gather_ms = t.median_ms(reps, [&] {
    bench::random_gather<<<blocks_for(ops), 256>>>(big.data(), words, ops, sink.data());
    GRAPHKIT_CHECK_LAUNCH();
  });
  const double cas_ms = t.median_ms(reps, [&] {
    random_cas<<<blocks_for(ops), 256>>>(big.data(), words, ops);
    GRAPHKIT_CHECK_LAUNCH();
  });
  return {ops / gather_ms / 1e6, ops / cas_ms / 1e6};
}

int usage(const char* why) {
  std::fprintf(stderr,
               "hash_bench: %s\nusage: hash_bench [--cuco PATH] [--reps N] [--only "
               "linear|linear-erase|hopscotch|cuckoo|cuckoo-mixed]\n",
               why);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string cuco_path, only;
  int reps = 5;
  for (int a = 1; a < argc; ++a) {
    const std::string arg = argv[a];
    if (arg == "--cuco" && a + 1 < argc) cuco_path = argv[++a];
    else if (arg == "--reps" && a + 1 < argc) reps = std::atoi(argv[++a]);
    else if (arg == "--only" && a + 1 < argc) only = argv[++a];
    else return usage(("unknown or incomplete argument '" + arg + "'").c_str());
  }
  if (reps < 1) return usage("--reps takes a count of at least 1");
  if (!only.empty() && only != "linear" && only != "linear-erase" && only != "hopscotch" && only != "cuckoo" &&
      only != "cuckoo-mixed")
    return usage(("--only takes linear, linear-erase, hopscotch, cuckoo or cuckoo-mixed, not '" + only + "'").c_str());
  const auto runs = [&](const char* map) { return only.empty() || only == map; };
  try {
    // cuco first, while this process holds no GPU memory yet.
    const bench::cuco_figures cuco = cuco_path.empty() ? bench::cuco_recorded() : bench::cuco_measured(cuco_path);
    bench::gpu_timer t;
    const ceilings c = measure_ceilings(t, reps);
    std::printf(
        "hash maps on the GPU, 2^26 keys; ceilings: random 8-byte gather %.1f G/s, random 8-byte CAS %.1f G/s "
        "(1 GiB); cuco static_map (linear probing, tile 4; its erase removes half the keys): %s\n\n",
        c.gather, c.cas, cuco.source.c_str());
    const std::size_t n = std::size_t{1} << 26;
    print_header("probe mean / max, moves and stash, or second-bucket share and moves");
    // Thread per key and tiles of 2, 4 and 8 lanes (issue 18, step 21); the
    // map's default takes tiles of 4 for inserts and erases, threads for finds.
    if (runs("linear")) linear_probing_rows<lp_tile_map<1>>(lp_name<1>(), n, t, reps, c, cuco);
    if (runs("linear")) linear_probing_rows<lp_tile_map<2>>(lp_name<2>(), n, t, reps, c, cuco);
    if (runs("linear")) linear_probing_rows<lp_tile_map<4>>(lp_name<4>(), n, t, reps, c, cuco);
    if (runs("linear")) linear_probing_rows<lp_tile_map<8>>(lp_name<8>(), n, t, reps, c, cuco);
    // Step 22: tile-4 inserts, refill finds and erases.
    if (runs("linear"))
      linear_probing_rows<lp_refill_map>("linear probing, insert tile 4, find and erase refill", n, t, reps, c, cuco);
    // Step 30: the default walks on both grids, and the refill walks on one resident wave.
    const bool lp_grids = runs("linear") || only == "linear-erase";
    if (lp_grids)
      linear_probing_rows<lp_default_map<lp_grid::capped>>(
          "linear probing, default walks (tile 4 insert and erase, refill find), capped grid", n, t, reps, c, cuco);
    if (lp_grids)
      linear_probing_rows<lp_default_map<lp_grid::resident>>(
          "linear probing, default walks (tile 4 insert and erase, refill find), one resident wave", n, t, reps, c,
          cuco);
    if (lp_grids)
      linear_probing_rows<lp_refill_resident_map>(
          "linear probing, insert tile 4, find and erase refill, one resident wave", n, t, reps, c, cuco);
    if (runs("hopscotch")) hopscotch_rows<4>(n, t, reps, c, cuco);
    if (runs("hopscotch")) hopscotch_rows<8>(n, t, reps, c, cuco);
    if (runs("cuckoo")) cuckoo_rows(n, t, reps, c, cuco);

    std::printf(
        "\nMixed batches of 2^24 operations (session 5, hopscotch tile 32: 1.65 and 1.14 G ops/s)\n\n"
        "| map | batch | throughput | check |\n|---|---|---|---|\n");
    if (runs("hopscotch")) mixed_rows<hopscotch_map<4>>("hopscotch, tile 4", n / 4, 0.9, t, reps);
    if (runs("hopscotch")) mixed_rows<hopscotch_map<32>>("hopscotch, tile 32", n / 4, 0.9, t, reps);
    // The cuckoo map keeps erased keys in their slots too: the batch's first pass runs every find and erase
    // and the inserts that claim or update, the inserts with both buckets full are settled after it
    // (steps 27-28; the one-kernel two_locks and per-chunk two_pass modes were removed in step 28).
    if (runs("cuckoo") || only == "cuckoo-mixed")
      mixed_rows<bucketed_cuckoo_map<>>("bucketed cuckoo, two passes, whole batch", n / 4, 0.9, t, reps);
    // Linear probing keeps erased keys in their slots: from 0.9 a 40% insert share would fill the table.
    if (runs("linear")) mixed_rows<lp_map>("linear probing", n / 4, 0.5, t, reps);

    if (runs("linear")) seed_batches<1>(t);
    if (runs("linear")) seed_batches<4>(t);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "hash_bench: %s\n", e.what());
    return 2;
  }
}
