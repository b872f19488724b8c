// Dense bitmap throughput: set algebra on 2^32-bit universes against the copy
// ceiling, clustered sets (time should follow the non-empty chunks), the
// intersection of sets in a 10-million universe against
// thrust::set_intersection on sorted arrays, and conversions. Every figure is
// checked in the same run (counts against independent counts).
#include <thrust/device_ptr.h>
#include <thrust/execution_policy.h>
#include <thrust/set_operations.h>
#include <thrust/sort.h>
#include <thrust/unique.h>

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <vector>

#include "bench/common/gpu_timer.cuh"
#include "primitives/bitmap/batch_intersection.cuh"
#include "primitives/bitmap/chunked_set.cuh"
#include "primitives/bitmap/dense_bitmap.cuh"

namespace {

using namespace graphkit;

__device__ std::uint32_t hash32(std::uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  return static_cast<std::uint32_t>(x ^ (x >> 33));
}

/// Random words of density ~1/2 in the chunks whose id hashes below `chunk_keep`
/// (out of 1000), zeros elsewhere; chunk counts written to match.
__global__ void random_chunks(dense_bitmap_ref set, std::uint32_t seed, std::uint32_t chunk_keep) {
  __shared__ unsigned total;
  if (threadIdx.x == 0) total = 0;
  __syncthreads();
  const std::uint64_t c = blockIdx.x;
  const bool keep = hash32(c * 7919 + seed) % 1000 < chunk_keep;
  unsigned mine = 0;
  for (std::uint32_t k = threadIdx.x; k < kBitmapWordsPerChunk; k += blockDim.x) {
    const std::uint64_t w = c * kBitmapWordsPerChunk + k;
    const std::uint32_t word = keep ? hash32(w * 2654435761u + seed) : 0;
    set.words[w] = word;
    mine += __popc(word);
  }
  atomicAdd(&total, mine);
  __syncthreads();
  if (threadIdx.x == 0) set.chunk_counts[c] = total;
}

const char* op_name(set_op op) {
  switch (op) {
    case set_op::intersection: return "and";
    case set_op::union_: return "or";
    case set_op::difference: return "and-not";
    default: return "xor";
  }
}

std::uint64_t host_op_count(std::uint64_t na, std::uint64_t nb, std::uint64_t both, set_op op) {
  switch (op) {
    case set_op::intersection: return both;
    case set_op::union_: return na + nb - both;
    case set_op::difference: return na - both;
    default: return na + nb - 2 * both;
  }
}

}  // namespace

int main() {
  try {
    constexpr int kReps = 10;
    bench::gpu_timer t;
    const std::uint64_t universe = kBitmapMaxUniverse;
    dense_bitmap a(universe), b(universe), out(universe);
    const unsigned chunks = static_cast<unsigned>(a.num_chunks());
    const double bitmap_gb = a.num_words() * 4.0 / 1e9;
    const double copy_ms = t.median_ms(kReps, [&] {
      GRAPHKIT_CUDA_TRY(cudaMemcpyAsync(out.ref().words, a.words(), a.num_words() * 4, cudaMemcpyDeviceToDevice));
    });
    const double copy_gbs = 2 * bitmap_gb / copy_ms * 1e3;
    std::printf("dense bitmaps on the GPU; copy ceiling %.0f GB/s (read + written), median of %d\n\n", copy_gbs, kReps);

    // 1. dense algebra: all chunks partial, ~50% density
    random_chunks<<<chunks, 256>>>(a.ref(), 1, 1000);
    random_chunks<<<chunks, 256>>>(b.ref(), 2, 1000);
    GRAPHKIT_CHECK_LAUNCH();
    const std::uint64_t na = a.count(), nb = b.count(), both = set_algebra_count(a, b, set_op::intersection);
    std::printf(
        "| 2^32-bit universes, density 1/2 | time (ms) | GB/s | %% of copy bw | check |\n|---|---|---|---|---|\n");
    for (const set_op op : {set_op::intersection, set_op::union_, set_op::difference, set_op::symmetric}) {
      const double ms = t.median_ms(kReps, [&] { set_algebra_async(a, b, op, out); });
      const bool ok = out.count() == host_op_count(na, nb, both, op);
      std::printf("| %s, out of place (read 2, write 1) | %.3f | %.0f | %.0f%% | %s |\n", op_name(op), ms,
                  3 * bitmap_gb / ms * 1e3, 100 * 3 * bitmap_gb / ms * 1e3 / copy_gbs, ok ? "ok" : "WRONG");
      std::uint64_t counted = 0;
      const double cms = t.median_ms(kReps, [&] { counted = set_algebra_count(a, b, op); });
      std::printf("| %s, count only (read 2) | %.3f | %.0f | %.0f%% | %s |\n", op_name(op), cms,
                  2 * bitmap_gb / cms * 1e3, 100 * 2 * bitmap_gb / cms * 1e3 / copy_gbs,
                  counted == host_op_count(na, nb, both, op) ? "ok" : "WRONG");
    }
    {
      set_algebra_async(a, b, set_op::union_, out);  // out = a | b; out &= b gives b back
      const double ms = t.median_ms(kReps, [&] { set_algebra_async(out, b, set_op::intersection, out); });
      std::printf("| and, in place (out &= b) | %.3f | %.0f | %.0f%% | %s |\n", ms, 3 * bitmap_gb / ms * 1e3,
                  100 * 3 * bitmap_gb / ms * 1e3 / copy_gbs, out.count() == nb ? "ok" : "WRONG");
    }

    // 2. clustered sets: time should follow the non-empty chunks
    std::printf(
        "\n| 2^32-bit universes, clustered: non-empty chunks | and in place (ms) | and count only (ms) | vs dense "
        "count only | check |\n|---|---|---|---|---|\n");
    double dense_count_ms = 0;
    for (const unsigned keep : {1000u, 100u, 10u, 1u}) {
      random_chunks<<<chunks, 256>>>(a.ref(), 3, keep);
      random_chunks<<<chunks, 256>>>(b.ref(), 4, keep);
      GRAPHKIT_CHECK_LAUNCH();
      const std::uint64_t expected = set_algebra_count(a, b, set_op::intersection);
      std::uint64_t counted = 0;
      const double cms = t.median_ms(kReps, [&] { counted = set_algebra_count(a, b, set_op::intersection); });
      if (keep == 1000) dense_count_ms = cms;
      const double ims = t.median_ms(kReps, [&] { set_algebra_async(a, b, set_op::intersection, a); });
      std::printf("| %.1f%% | %.3f | %.3f | %.3fx | %s |\n", keep / 10.0, ims, cms, cms / dense_count_ms,
                  counted == expected && a.count() == expected ? "ok" : "WRONG");
    }

    // 3. intersections in a 10M universe: sorted arrays vs bitmaps
    // One call at a time (each timed alone, launch latency included), and 100
    // calls back to back (ms per call): thrust returns the output's end, so
    // each of its calls waits for the device; the bitmap AND does not.
    std::printf(
        "\n| 10M universe, density | thrust::set_intersection (ms) | bitmap and, count only (ms) | bitmap and (ms) | "
        "vs thrust | thrust, back to back (ms per call) | bitmap and, back to back (ms per call) | vs thrust, back to "
        "back | check |\n|---|---|---|---|---|---|---|---|---|\n");
    constexpr int kBackToBack = 100;
    const std::uint32_t small_universe = 10'000'000;
    for (const double density : {0.01, 0.10, 0.50}) {
      const std::size_t n = static_cast<std::size_t>(density * small_universe);
      std::vector<std::uint32_t> ha(n), hb(n);
      std::uint64_t s = 88172645463325252ULL;
      auto next = [&] {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        return static_cast<std::uint32_t>(s % small_universe);
      };
      for (auto& x : ha) x = next();
      for (auto& x : hb) x = next();
      device_buffer<std::uint32_t> da{std::span<const std::uint32_t>(ha)}, db{std::span<const std::uint32_t>(hb)},
          dout(n);
      thrust::sort(thrust::device, da.data(), da.data() + n);
      thrust::sort(thrust::device, db.data(), db.data() + n);
      const std::size_t ua = thrust::unique(thrust::device, da.data(), da.data() + n) - da.data();
      const std::size_t ub = thrust::unique(thrust::device, db.data(), db.data() + n) - db.data();
      std::size_t merged = 0;
      const double tms = t.median_ms(kReps, [&] {
        merged = thrust::set_intersection(thrust::device, da.data(), da.data() + ua, db.data(), db.data() + ub,
                                          dout.data()) -
                 dout.data();
      });
      dense_bitmap ba = dense_bitmap::from_array(da.data(), ua, small_universe);
      dense_bitmap bb = dense_bitmap::from_array(db.data(), ub, small_universe);
      dense_bitmap bo(small_universe);
      std::uint64_t counted = 0;
      const double cms = t.median_ms(kReps, [&] { counted = set_algebra_count(ba, bb, set_op::intersection); });
      const double bms = t.median_ms(kReps, [&] { set_algebra_async(ba, bb, set_op::intersection, bo); });
      const double tms_run = t.median_ms(kReps, [&] {
        for (int r = 0; r < kBackToBack; ++r)
          merged = thrust::set_intersection(thrust::device, da.data(), da.data() + ua, db.data(), db.data() + ub,
                                            dout.data()) -
                   dout.data();
      }) / kBackToBack;
      const double bms_run = t.median_ms(kReps, [&] {
        for (int r = 0; r < kBackToBack; ++r) set_algebra_async(ba, bb, set_op::intersection, bo);
      }) / kBackToBack;
      std::printf("| %.0f%% | %.3f | %.3f | %.3f | %.1fx | %.4f | %.4f | %.1fx | %s |\n", density * 100, tms, cms, bms,
                  tms / bms, tms_run, bms_run, tms_run / bms_run,
                  counted == merged && bo.count() == merged ? "ok" : "WRONG");
    }

    // 4. conversions
    std::printf("\n| conversion | elements | time (ms) | G elements/s | check |\n|---|---|---|---|---|\n");
    {
      const std::size_t n = std::size_t{1} << 26;
      std::vector<std::uint32_t> h(n);
      std::uint64_t s = 12345;
      for (auto& x : h)
        s = s * 6364136223846793005ULL + 1442695040888963407ULL, x = static_cast<std::uint32_t>(s >> 32);
      device_buffer<std::uint32_t> d{std::span<const std::uint32_t>(h)};
      dense_bitmap set(universe);
      const double ims = t.median_ms(kReps, [&] {
        set.clear_async();
        set.insert_async(d.data(), n);
      });
      std::sort(h.begin(), h.end());
      const std::size_t unique = std::unique(h.begin(), h.end()) - h.begin();
      std::printf("| unsorted array -> bitmap (2^32 universe, incl. clearing 512 MB) | %zu | %.3f | %.2f | %s |\n", n,
                  ims, n / ims / 1e6, set.count() == unique ? "ok" : "WRONG");
      device_buffer<std::uint32_t> sorted(unique);
      std::uint64_t written = 0;
      const double sms = t.median_ms(kReps, [&] { written = set.to_sorted_array(sorted.data()); });
      const auto back = sorted.to_host();
      std::printf("| bitmap -> sorted array (2^32 universe) | %zu | %.3f | %.2f | %s |\n", unique, sms,
                  unique / sms / 1e6,
                  written == unique && std::equal(back.begin(), back.end(), h.begin()) ? "ok" : "WRONG");
    }

    // 5. the chunked set: memory by density, and its algebra against the dense form's
    std::printf(
        "\n| 2^32 universe, clustered: non-empty chunks | dense MB | chunked MB (pool in use) | chunked and, "
        "count only (ms) | dense and, count only (ms) | check |\n|---|---|---|---|---|---|\n");
    for (const std::uint32_t keep : {1000u, 100u, 10u, 1u}) {
      dense_bitmap da(universe), db(universe);
      random_chunks<<<static_cast<unsigned>(da.num_chunks()), 256>>>(da.ref(), 3, keep);
      random_chunks<<<static_cast<unsigned>(db.num_chunks()), 256>>>(db.ref(), 4, keep);
      GRAPHKIT_CHECK_LAUNCH();
      const auto pool = static_cast<std::uint32_t>(da.num_chunks() * keep / 1000 * 12 / 10 + 16);
      chunked_set ca(universe, pool), cb(universe, pool);
      ca.assign(da);
      cb.assign(db);
      std::uint64_t chunked = 0, dense = 0;
      const double cms = t.median_ms(kReps, [&] { chunked = set_algebra_count(ca, cb, set_op::intersection); });
      const double dms = t.median_ms(kReps, [&] { dense = set_algebra_count(da, db, set_op::intersection); });
      const double used_mb = (ca.memory_bytes() - (pool - ca.blocks_in_use()) * 8192.0) / 1e6;
      std::printf("| %.1f%% | %.0f | %.1f | %.3f | %.3f | %s |\n", keep / 10.0,
                  (da.num_words() + da.num_chunks()) * 4.0 / 1e6, used_mb, cms, dms, chunked == dense ? "ok" : "WRONG");
    }

    // 6. many small intersections in one launch
    {
      std::vector<std::uint32_t> values;
      std::vector<set_pair> pairs;
      std::uint64_t s = 99;
      auto next = [&] {
        return s = s * 6364136223846793005ULL + 1442695040888963407ULL, static_cast<std::uint32_t>(s >> 33);
      };
      for (int i = 0; i < 100000; ++i) {
        set_pair p{};
        for (int side = 0; side < 2; ++side) {
          std::vector<std::uint32_t> set(64 + next() % 64);
          for (auto& x : set) x = next() % 100000;
          std::sort(set.begin(), set.end());
          set.erase(std::unique(set.begin(), set.end()), set.end());
          (side == 0 ? p.a_begin : p.b_begin) = values.size();
          values.insert(values.end(), set.begin(), set.end());
          (side == 0 ? p.a_end : p.b_end) = values.size();
        }
        pairs.push_back(p);
      }
      device_buffer<std::uint32_t> d_values{std::span<const std::uint32_t>(values)};
      device_buffer<set_pair> d_pairs{std::span<const set_pair>(pairs)};
      device_buffer<unsigned long long> counts(pairs.size());
      const double ms = t.median_ms(
          kReps, [&] { batch_intersection_count(d_values.data(), d_pairs.data(), pairs.size(), counts.data()); });
      const auto got = counts.to_host();
      bool ok = true;
      for (std::size_t i = 0; i < pairs.size(); i += 997) {
        std::vector<std::uint32_t> common;
        std::set_intersection(values.begin() + pairs[i].a_begin, values.begin() + pairs[i].a_end,
                              values.begin() + pairs[i].b_begin, values.begin() + pairs[i].b_end,
                              std::back_inserter(common));
        ok = ok && got[i] == common.size();
      }
      std::printf(
          "\n| batch of small intersections | pairs | time (ms) | M pairs/s | check |\n|---|---|---|---|---|\n"
          "| 64-127 elements each, 100K universe, one launch | %zu | %.3f | %.1f | %s |\n",
          pairs.size(), ms, pairs.size() / ms / 1e3, ok ? "ok (every 997th pair)" : "WRONG");
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bitmap_bench: %s\n", e.what());
    return 2;
  }
}
