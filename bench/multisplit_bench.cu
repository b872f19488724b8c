// Multisplit throughput against the copy ceiling, CUB's radix sort on the
// bucket ids (ceil(log2 m) bits) and, for m = 2, thrust::stable_partition,
// all measured in this run. One row per method (warp for m <= 32,
// block_votes and block_peers (the block method with each warp rank),
// block_wide_votes and block_wide_peers (the block method with the wide,
// persistent post-scan, with each warp rank), block_wide_digits_one (the
// wide post-scan ranking tiles by per-thread digit counters: one split of
// up to 6 bits for m <= 64; above, a register split on the low 2-3 bits,
// then one of 5 bits), block_wide_spread (one count, then the device picks
// block_wide_peers' or the digit rank's post-scan by the ids' spread),
// onesweep (ranking as `block` does at that m); `(auto)` marks the one
// `automatic` takes at this m and size. --methods picks some of them.
// Every row's output is checked against the radix sort's (all are
// stable), so no figure comes from a wrong answer.
//
// Bytes a method moves (the "% of copy bw" column; n items, m buckets):
//   data: a key is read twice (histogram or pre-scan, then the split) and
//   written once, 12 B; a pair's value is read once, so 20 B per pair (not
//   24: counting the values twice put pairs above the copy ceiling);
//   per-tile state, 4 B words: warp and block write an m x units histogram
//   matrix, scan it in and out and read it back (16 m B per unit; units of
//   256 items for warp, 2,048 for block, 5,120 keys or 3,072 pairs for
//   block_wide_votes / _peers, 5,120 keys or 10,240 pairs for
//   block_wide_digits_one and block_wide_spread); onesweep zeroes,
//   publishes and reads m look-back words per tile (12 m B per tile of 4,096 keys or
//   2,048 pairs).
// "bound vs CUB": CUB's time over the data bytes alone (12 B a key, 20 a
// pair) at the copy ceiling, the most any stable multisplit that reads its
// input twice could gain on CUB in this run.
//
//   multisplit_bench [--log-keys 28] [--log-pairs 27] [--reps 10] [--buckets 2 4 ... 256]
//                    [--methods warp block_votes block_peers block_wide_votes block_wide_peers
//                               block_wide_digits_one block_wide_spread onesweep]
#include <CLI/CLI.hpp>

#include <thrust/device_ptr.h>
#include <thrust/equal.h>
#include <thrust/execution_policy.h>
#include <thrust/partition.h>

#include <algorithm>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "bench/common/gpu_timer.cuh"
#include "primitives/common/launch.hpp"
#include "primitives/multisplit/multisplit.cuh"

namespace {

using namespace graphkit;

// Keys are random, so their low bits (power-of-2 m) or key * m / 2^32 are
// uniform ids: one instruction either way, as CUB sorts ids computed before
// its clock starts. key % m (an integer division, 20-30 instructions) made
// the digit rank, which applies the functor three times, look slower than
// the ids make it (bench/NOTES.md multisplit step 24).
struct uniform_bucket {
  std::uint32_t m;
  __host__ __device__ std::uint32_t operator()(std::uint32_t key) const {
    return (m & (m - 1)) == 0 ? key & (m - 1) : static_cast<std::uint32_t>((std::uint64_t{key} * m) >> 32);
  }
};
struct skewed_bucket {  // leading zeros of a random key: bucket b has probability 2^-(b+1)
  std::uint32_t m;
  __device__ std::uint32_t operator()(std::uint32_t key) const {
    return min(static_cast<std::uint32_t>(__clz(key)), m - 1);
  }
};
struct is_bucket_zero {
  skewed_bucket skewed;
  bool use_skewed;
  std::uint32_t m;
  __device__ bool operator()(std::uint32_t key) const {
    return (use_skewed ? skewed(key) : uniform_bucket{m}(key)) == 0;
  }
};
template <class F>
__global__ void compute_ids(const std::uint32_t* keys, std::size_t n, F f, std::uint32_t* ids) {
  const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (i < n) ids[i] = f(keys[i]);
}
__global__ void pack_pairs(const std::uint32_t* keys, const std::uint32_t* values, std::size_t n, std::uint64_t* out) {
  const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (i < n) out[i] = (std::uint64_t{keys[i]} << 32) | values[i];
}
__global__ void unpack_pairs(const std::uint64_t* in, std::size_t n, std::uint32_t* keys, std::uint32_t* values) {
  const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (i < n) keys[i] = static_cast<std::uint32_t>(in[i] >> 32), values[i] = static_cast<std::uint32_t>(in[i]);
}

int bits_for(std::uint32_t m) { return m <= 1 ? 1 : 32 - __builtin_clz(m - 1); }

/// The methods a row can show, by their multisplit_method_name.
constexpr multisplit_method kBenchMethods[] = {multisplit_method::warp,
                                               multisplit_method::block_votes,
                                               multisplit_method::block_peers,
                                               multisplit_method::block_wide_votes,
                                               multisplit_method::block_wide_peers,
                                               multisplit_method::block_wide_digits_one,
                                               multisplit_method::block_wide_spread,
                                               multisplit_method::onesweep};

/// Bytes `method` moves for n 32-bit keys (or pairs of 32-bit key and value)
/// into m buckets: the formula in the header comment, with the tile sizes
/// the dispatch uses.
template <class Value>
double bytes_moved(multisplit_method method, std::size_t n, std::uint32_t m) {
  using namespace multisplit_detail;
  const double data = (kHasValues<Value> ? 20.0 : 12.0) * n;
  const auto tiles = [&](std::size_t tile) { return static_cast<double>((n + tile - 1) / tile); };
  switch (method) {
    case multisplit_method::warp: return data + 16.0 * m * tiles(32 * tuning::kWarpItems);
    case multisplit_method::block:
    case multisplit_method::block_votes:
    case multisplit_method::block_peers:
      return data + 16.0 * m * tiles(32 * tuning::kWarps * tuning::block_items<std::uint32_t, Value>());
    case multisplit_method::block_wide:
    case multisplit_method::block_wide_votes:
    case multisplit_method::block_wide_peers:
      return data + 16.0 * m * tiles(32 * tuning::kWarps * tuning::wide_items<std::uint32_t, Value>());
    case multisplit_method::block_wide_digits_one:
      return data + 16.0 * m * tiles(digits_one_tile<std::uint32_t, Value>(m));
    case multisplit_method::block_wide_spread:  // the digit rank's matrix
      return bytes_moved<Value>(multisplit_method::block_wide_digits_one, n, m);
    case multisplit_method::onesweep:
      return data + 12.0 * m * tiles(32 * tuning::kWarps * tuning::onesweep_items<std::uint32_t, Value>());
    default: return data;
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"multisplit_bench: GPU multisplit against copy bandwidth, CUB radix sort and stable_partition"};
  int log_keys = 28, log_pairs = 27, reps = 10;
  std::vector<std::uint32_t> bucket_counts{2, 4, 8, 16, 32, 64, 128, 256};
  app.add_option("--log-keys", log_keys)->capture_default_str();
  app.add_option("--buckets", bucket_counts, "the m values to run, 1..256")
      ->check(CLI::Range(1u, kMultisplitBlockMaxBuckets))
      ->capture_default_str();
  app.add_option("--log-pairs", log_pairs)->capture_default_str();
  app.add_option("--reps", reps)->capture_default_str();
  std::vector<std::string> wanted;
  for (const multisplit_method method : kBenchMethods) wanted.push_back(multisplit_method_name(method));
  const std::vector<std::string> names = wanted;
  app.add_option("--methods", wanted, "the methods to run (warp only where m <= 32)")
      ->check(CLI::IsMember(names))
      ->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  try {
    const std::size_t n = std::size_t{1} << log_keys, np = std::size_t{1} << log_pairs;
    // The pairs rows use the keys' buffers too (their first np keys).
    const std::size_t most = std::max(n, np);
    std::vector<std::uint32_t> host(most);
    std::mt19937_64 rng(12345);
    for (auto& k : host) k = static_cast<std::uint32_t>(rng());
    device_buffer<std::uint32_t> keys{std::span<const std::uint32_t>(host)}, out(most), ids(most), sorted_ids(most),
        ref(most), work(most), values(np), values_out(np);
    device_buffer<std::uint64_t> packed(np), packed_out(np);
    std::vector<std::uint32_t> iota(np);
    for (std::size_t i = 0; i < np; ++i) iota[i] = static_cast<std::uint32_t>(i);
    values.copy_from_host(iota);
    device_buffer<std::uint32_t> d_offsets(257);
    device_buffer<unsigned char> cub_temp;
    multisplit_workspace ws;
    bench::gpu_timer t;

    const double copy_ms = t.median_ms(
        reps, [&] { GRAPHKIT_CUDA_TRY(cudaMemcpyAsync(out.data(), keys.data(), n * 4, cudaMemcpyDeviceToDevice)); });
    const double copy_gbs = 2.0 * n * 4 / copy_ms / 1e6;
    std::printf("multisplit on %s; copy ceiling %.0f GB/s (bytes read + written), median of %d\n", "the GPU", copy_gbs,
                reps);
    std::printf(
        "| items | m | ids | method | ms | G items/s | %% of copy bw (bytes moved: see the formula above) | CUB radix "
        "ms | vs CUB | bound vs CUB (12 B a key, 20 a pair, at copy bw) | check |\n");
    std::printf("|---|---|---|---|---|---|---|---|---|---|---|\n");
    // The most any stable multisplit could gain on CUB here: its data bytes
    // (bytes_moved without per-tile state) at the copy ceiling.
    const auto bound_vs = [&](double cub_ms, std::size_t count, bool pairs) {
      return cub_ms / ((pairs ? 20.0 : 12.0) * count / copy_gbs / 1e6);
    };

    auto radix_ms = [&](std::size_t count, auto* in_values, auto* out_values, int bits) {
      std::size_t bytes = 0;
      GRAPHKIT_CUDA_TRY(cub::DeviceRadixSort::SortPairs(nullptr, bytes, ids.data(), sorted_ids.data(), in_values,
                                                        out_values, count, 0, bits));
      if (cub_temp.size() < bytes) cub_temp = device_buffer<unsigned char>(bytes);
      return t.median_ms(reps, [&] {
        GRAPHKIT_CUDA_TRY(cub::DeviceRadixSort::SortPairs(cub_temp.data(), bytes, ids.data(), sorted_ids.data(),
                                                          in_values, out_values, count, 0, bits));
      });
    };
    bool all_ok = true;
    for (const bool skewed : {false, true}) {
      for (const std::uint32_t m : bucket_counts) {
        const uniform_bucket ub{m};
        const skewed_bucket sb{m};
        const char* id_kind = skewed ? "skewed" : "uniform";
        std::vector<multisplit_method> methods;
        for (const multisplit_method method : kBenchMethods)
          if (std::find(wanted.begin(), wanted.end(), multisplit_method_name(method)) != wanted.end() &&
              (method != multisplit_method::warp || m <= kMultisplitWarpMaxBuckets))
            methods.push_back(method);

        // keys: CUB first, as the reference every method is checked against
        if (skewed) compute_ids<<<blocks_for(n), 256>>>(keys.data(), n, sb, ids.data());
        else compute_ids<<<blocks_for(n), 256>>>(keys.data(), n, ub, ids.data());
        GRAPHKIT_CHECK_LAUNCH();
        const double cub = radix_ms(n, keys.data(), ref.data(), bits_for(m));
        const multisplit_method chosen = multisplit_detail::resolve(multisplit_method::automatic, m, n, false);
        for (const multisplit_method method : methods) {
          const double ms = t.median_ms(reps, [&] {
            if (skewed) multisplit_keys_async(keys.data(), out.data(), n, m, sb, d_offsets.data(), ws, nullptr, method);
            else multisplit_keys_async(keys.data(), out.data(), n, m, ub, d_offsets.data(), ws, nullptr, method);
          });
          const bool ok =
              thrust::equal(thrust::device, out.data(), out.data() + n, ref.data()) && ws.out_of_range_count() == 0;
          all_ok = all_ok && ok;
          std::printf("| 2^%d keys | %u | %s | %s%s | %.3f | %.1f | %.0f%% | %.3f | %.2fx | %.2fx | %s |\n", log_keys,
                      m, id_kind, multisplit_method_name(method), method == chosen ? " (auto)" : "", ms, n / ms / 1e6,
                      100.0 * (bytes_moved<multisplit_detail::no_value>(method, n, m) / ms / 1e6) / copy_gbs, cub,
                      cub / ms, bound_vs(cub, n, false), ok ? "ok" : "WRONG");
        }
        if (m == 2) {
          const is_bucket_zero pred{sb, skewed, m};
          const double pms = t.median_ms(
              reps, [&] { thrust::stable_partition(thrust::device, work.data(), work.data() + n, pred); },
              [&] { GRAPHKIT_CUDA_TRY(cudaMemcpy(work.data(), keys.data(), n * 4, cudaMemcpyDeviceToDevice)); });
          const bool ok = thrust::equal(thrust::device, work.data(), work.data() + n, ref.data());
          all_ok = all_ok && ok;
          std::printf("| 2^%d keys | %u | %s | thrust::stable_partition | %.3f | %.1f | - | %.3f | %.2fx | - | %s |\n",
                      log_keys, m, id_kind, pms, n / pms / 1e6, cub, cub / pms, ok ? "ok" : "WRONG");
        }

        // pairs: 32-bit keys with 32-bit values; CUB carries them packed in 64 bits
        if (skewed) compute_ids<<<blocks_for(np), 256>>>(keys.data(), np, sb, ids.data());
        else compute_ids<<<blocks_for(np), 256>>>(keys.data(), np, ub, ids.data());
        GRAPHKIT_CHECK_LAUNCH();
        pack_pairs<<<blocks_for(np), 256>>>(keys.data(), values.data(), np, packed.data());
        GRAPHKIT_CHECK_LAUNCH();
        const double pcub = radix_ms(np, packed.data(), packed_out.data(), bits_for(m));
        unpack_pairs<<<blocks_for(np), 256>>>(packed_out.data(), np, ref.data(), work.data());
        GRAPHKIT_CHECK_LAUNCH();
        const multisplit_method pair_chosen = multisplit_detail::resolve(multisplit_method::automatic, m, np, true);
        for (const multisplit_method method : methods) {
          const double pms = t.median_ms(reps, [&] {
            if (skewed)
              multisplit_pairs_async(keys.data(), values.data(), out.data(), values_out.data(), np, m, sb,
                                     d_offsets.data(), ws, nullptr, method);
            else
              multisplit_pairs_async(keys.data(), values.data(), out.data(), values_out.data(), np, m, ub,
                                     d_offsets.data(), ws, nullptr, method);
          });
          const bool pok = thrust::equal(thrust::device, out.data(), out.data() + np, ref.data()) &&
                           thrust::equal(thrust::device, values_out.data(), values_out.data() + np, work.data());
          all_ok = all_ok && pok;
          std::printf("| 2^%d pairs | %u | %s | %s%s | %.3f | %.1f | %.0f%% | %.3f | %.2fx | %.2fx | %s |\n", log_pairs,
                      m, id_kind, multisplit_method_name(method), method == pair_chosen ? " (auto)" : "", pms,
                      np / pms / 1e6, 100.0 * (bytes_moved<std::uint32_t>(method, np, m) / pms / 1e6) / copy_gbs, pcub,
                      pcub / pms, bound_vs(pcub, np, true), pok ? "ok" : "WRONG");
        }
      }
    }
    return all_ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "multisplit_bench: %s\n", e.what());
    return 2;
  }
}
