// The GPU dedup pipeline against a thrust sort + unique pipeline, measured in
// the same run: R-MAT edges (2^26 and 2^28 by default) with 30% duplicates
// (earlier edges repeated, half of them reversed) over random 64-bit ids,
// symmetrized, self-loops dropped. Every pipeline starts from the raw ids on
// the host and ends with the clean edge list on the host; each phase is timed
// (host clock around synchronous calls; the median of 3 trials after a
// warm-up, by the apps' trial loop) and the outputs are compared edge by edge. A third row
// runs the thrust pipeline with graphkit's host transfers.
#include <thrust/binary_search.h>
#include <thrust/device_vector.h>
#include <thrust/sort.h>
#include <thrust/transform.h>
#include <thrust/unique.h>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>

#include "apps/common/trial_loop.hpp"
#include "graph/detail/parallel.hpp"
#include "graph/generate/generators.hpp"
#include "graph/host_transfer.hpp"
#include "graph/gpu/pipeline.hpp"

namespace {

using namespace graphkit;

struct raw_list {
  std::vector<std::uint64_t> src, dst;
};

raw_list dirty_rmat(unsigned scale, std::size_t edges, double duplicate_rate, std::uint64_t seed) {
  const unsigned factor = static_cast<unsigned>(std::max<std::size_t>(1, edges >> scale));
  const coo_graph g = generate_rmat(scale, factor, seed);
  raw_list r;
  r.src.resize(edges);
  r.dst.resize(edges);
  std::mt19937_64 rng(seed);
  const std::size_t fresh = g.num_edges();
  for (std::size_t e = 0; e < edges; ++e) {
    const bool repeat = e > 0 && (e >= fresh || std::uniform_real_distribution<>(0, 1)(rng) < duplicate_rate);
    if (repeat) {
      const std::size_t earlier = rng() % e;
      const bool flip = rng() & 1;
      r.src[e] = flip ? r.dst[earlier] : r.src[earlier];
      r.dst[e] = flip ? r.src[earlier] : r.dst[earlier];
    } else {
      r.src[e] = detail::mix64(g.src[e] ^ seed);  // a random 64-bit id per vertex
      r.dst[e] = detail::mix64(g.dst[e] ^ seed);
    }
  }
  return r;
}

struct clean_list {
  std::vector<vertex_t> src, dst;
  std::vector<original_id_t> ids;
};

/// Host clock around synchronous calls: every phase ends with its results
/// where the next phase wants them.
struct phase_times {
  double upload = 0, relabel = 0, dedup = 0, download = 0;
  [[nodiscard]] double gpu() const { return relabel + dedup; }
  [[nodiscard]] double total() const { return upload + gpu() + download; }
};

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// Times each phase: the clock restarts at every call of next(field).
struct phase_clock {
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  void next(double& field) {
    GRAPHKIT_CUDA_TRY(cudaDeviceSynchronize());
    field = seconds_since(start);
    start = std::chrono::steady_clock::now();
  }
};

clean_list run_pipeline(const raw_list& r, phase_times& t) {
  phase_clock clock;
  const std::size_t m = r.src.size();
  device_buffer<std::uint64_t> ids(2 * m);
  copy_to_device(ids.data(), r.src.data(), m * sizeof(std::uint64_t));
  copy_to_device(ids.data() + m, r.dst.data(), m * sizeof(std::uint64_t));
  clock.next(t.upload);
  clean_list out;
  device_edges g = relabel_device(ids, relabel_order::sorted, out.ids);
  ids = {};
  clock.next(t.relabel);
  clean_options o;
  o.symmetrize = o.drop_self_loops = o.drop_duplicates = true;
  clean_device(g, o);
  clock.next(t.dedup);
  out.src = download(g.src);
  out.dst = download(g.dst);
  clock.next(t.download);
  return out;
}

struct canonical_key {
  __device__ std::uint64_t operator()(const thrust::tuple<std::uint32_t, std::uint32_t>& e) const {
    const std::uint32_t u = thrust::get<0>(e), v = thrust::get<1>(e);
    return u == v ? ~0ull : (std::uint64_t{min(u, v)} << 32) | max(u, v);
  }
};
struct high_half {
  __device__ std::uint32_t operator()(std::uint64_t k) const { return static_cast<std::uint32_t>(k >> 32); }
};
struct low_half {
  __device__ std::uint32_t operator()(std::uint64_t k) const { return static_cast<std::uint32_t>(k); }
};

/// Copies a host vector into a device_vector: with thrust's own copy (pageable
/// cudaMemcpy), or with graphkit's staged transfers.
template <class T>
void to_device_vector(const std::vector<T>& host, thrust::device_vector<T>& device, bool staged) {
  if (!staged) {
    device.assign(host.begin(), host.end());
    return;
  }
  device.resize(host.size());
  copy_to_device(thrust::raw_pointer_cast(device.data()), host.data(), host.size() * sizeof(T));
}
template <class T>
void to_host_vector(const thrust::device_vector<T>& device, std::vector<T>& host, bool staged) {
  if (!staged) {
    host.resize(device.size());
    thrust::copy(device.begin(), device.end(), host.begin());
    return;
  }
  host.reserve(device.size());
  prepare_host_pages(host.data(), device.size() * sizeof(T));
  host.resize(device.size());
  copy_to_host(host.data(), thrust::raw_pointer_cast(device.data()), device.size() * sizeof(T));
}

/// The sort-based pipeline a user would write with thrust; `staged` swaps
/// thrust's host copies for graphkit's, to separate the GPU work from the transfers.
clean_list run_thrust(const raw_list& r, phase_times& t, bool staged) {
  phase_clock clock;
  const std::size_t m = r.src.size();
  thrust::device_vector<std::uint64_t> src, dst;
  to_device_vector(r.src, src, staged);
  to_device_vector(r.dst, dst, staged);
  clock.next(t.upload);
  thrust::device_vector<std::uint64_t> ids(2 * m);
  thrust::copy(src.begin(), src.end(), ids.begin());
  thrust::copy(dst.begin(), dst.end(), ids.begin() + m);
  thrust::sort(ids.begin(), ids.end());
  ids.erase(thrust::unique(ids.begin(), ids.end()), ids.end());
  thrust::device_vector<std::uint32_t> dense_src(m), dense_dst(m);
  thrust::lower_bound(ids.begin(), ids.end(), src.begin(), src.end(), dense_src.begin());
  thrust::lower_bound(ids.begin(), ids.end(), dst.begin(), dst.end(), dense_dst.begin());
  clean_list out;
  to_host_vector(ids, out.ids, staged);
  clock.next(t.relabel);
  thrust::device_vector<std::uint64_t> keys(m);
  auto pairs = thrust::make_zip_iterator(thrust::make_tuple(dense_src.begin(), dense_dst.begin()));
  thrust::transform(pairs, pairs + m, keys.begin(), canonical_key{});
  thrust::sort(keys.begin(), keys.end());
  keys.erase(thrust::unique(keys.begin(), keys.end()), keys.end());
  if (!keys.empty() && keys.back() == ~0ull) keys.pop_back();  // the self-loops sorted last
  thrust::device_vector<std::uint32_t> clean_src(keys.size()), clean_dst(keys.size());
  thrust::transform(keys.begin(), keys.end(), clean_src.begin(), high_half{});
  thrust::transform(keys.begin(), keys.end(), clean_dst.begin(), low_half{});
  clock.next(t.dedup);
  to_host_vector(clean_src, out.src, staged);
  to_host_vector(clean_dst, out.dst, staged);
  clock.next(t.download);
  return out;
}

/// Each phase's median over the trials, after a warm-up (the apps' trial
/// loop, apps/common/trial_loop.hpp); `result` is the last run's output.
template <class Run>
phase_times median_of(int trials, const raw_list& r, Run&& run, clean_list& result) {
  const apps::trial_times times = apps::measure_trials(apps::trial_settings{trials}, 4, true, [&] {
    phase_times t;
    result = run(r, t);
    return std::vector<double>{t.upload, t.relabel, t.dedup, t.download};
  });
  return {times.median_phase(0), times.median_phase(1), times.median_phase(2), times.median_phase(3)};
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"dedup_bench: the GPU dedup pipeline against thrust sort + unique"};
  std::vector<unsigned> log_edges{26, 28};
  double duplicates = 0.3;
  int trials = 3;
  app.add_option("--log-edges", log_edges, "Edge counts as powers of two")->capture_default_str();
  app.add_option("--duplicates", duplicates)->capture_default_str();
  app.add_option("--trials", trials)->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  try {
    std::printf(
        "Every pipeline moves the same bytes (raw 64-bit ids in, clean 32-bit ids out, pageable host memory).\n"
        "graphkit stages its copies through pinned memory on several host threads (graph/host_transfer.hpp);\n"
        "the third row gives thrust's pipeline the same copies, to compare the GPU phases alone.\n\n"
        "| edges | duplicates | pipeline | upload ms (GB/s) | relabel ms (M edges/s) | dedup ms (M edges/s) | "
        "GPU ms | vs thrust | download ms | end to end ms (vs thrust) | vertices | edges out | check |\n"
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (const unsigned lg : log_edges) {
      const std::size_t edges = std::size_t{1} << lg;
      const raw_list r = dirty_rmat(lg - 4, edges, duplicates, 7);
      clean_list ours, theirs;
      const phase_times mine = median_of(trials, r, run_pipeline, ours);
      const phase_times base = median_of(
          trials, r, [](auto& raw, auto& t) { return run_thrust(raw, t, false); }, theirs);
      clean_list theirs_staged;
      const phase_times staged = median_of(
          trials, r, [](auto& raw, auto& t) { return run_thrust(raw, t, true); }, theirs_staged);
      auto same_as_ours = [&](const clean_list& other) {
        return ours.src == other.src && ours.dst == other.dst && (ours.ids.empty() || ours.ids == other.ids);
      };
      auto row = [&](const char* name, const phase_times& t, const clean_list& out) {
        std::printf(
            "| 2^%u | %.0f%% | %s | %.1f (%.1f) | %.1f (%.0f) | %.1f (%.0f) | %.1f | %.2fx | %.1f | %.1f (%.2fx) | %zu "
            "| %zu | %s |\n",
            lg, 100 * duplicates, name, t.upload * 1e3, 16.0 * edges / t.upload / 1e9, t.relabel * 1e3,
            edges / t.relabel / 1e6, t.dedup * 1e3, edges / t.dedup / 1e6, t.gpu() * 1e3, base.gpu() / t.gpu(),
            t.download * 1e3, t.total() * 1e3, base.total() / t.total(), out.ids.size(), out.src.size(),
            same_as_ours(out) ? "same edges" : "DIFFER");
      };
      row("graphkit (hash tables)", mine, ours);
      row("thrust sort + unique", base, theirs);
      row("thrust sort + unique, graphkit's transfers", staged, theirs_staged);
      std::fflush(stdout);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  }
  return 0;
}
