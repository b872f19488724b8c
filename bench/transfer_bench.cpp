// Host <-> device copies of one large array in pageable memory: the plain
// cudaMemcpy that most code uses, against graph/host_transfer's staged
// copies with 1 to 16 host threads, beside the link's ceiling (cudaMemcpy
// from pinned memory); and a page-cached file to the device by fill_device
// per lane count and chunk size, beside the 16-reader read of the file. Host clock around each synchronous call (the
// host memcpy's are part of the cost), median of 5 after a warm-up; every method's result is compared byte for byte
// with the source.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "apps/common/trial_loop.hpp"
#include "graph/detail/parallel.hpp"
#include "graph/host_transfer.hpp"
#include "graph/io/detail/posix_file.hpp"
#include "primitives/common/median.hpp"
#include "primitives/common/pinned_buffer.hpp"

namespace {

using namespace graphkit;

/// The apps' trial loop: a warm-up (first-use allocations, the staging pool,
/// are not what we measure) where more than one trial, then the median.
double median_ms(int trials, const std::function<void()>& run) {
  return apps::median_host_seconds(apps::trial_settings{trials}, run) * 1e3;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"transfer_bench: pageable host <-> device copies, plain and staged, against the pinned ceiling"};
  unsigned log_bytes = 30;
  int trials = 5;
  app.add_option("--log-bytes", log_bytes, "Array size as a power of two")->capture_default_str();
  app.add_option("--trials", trials)->capture_default_str();
  std::string file_dir = "/tmp";
  app.add_option("--dir", file_dir, "Where to write the file for the file -> device rows")->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  try {
    const std::size_t bytes = std::size_t{1} << log_bytes;
    const std::size_t words = bytes / sizeof(std::uint64_t);
    std::vector<std::uint64_t> source(words), back(words);
    std::iota(source.begin(), source.end(), std::uint64_t{0x9e3779b97f4a7c15ull});
    device_buffer<std::uint64_t> device(words);
    pinned_buffer<std::uint64_t> pinned(words);
    std::copy(source.begin(), source.end(), pinned.begin());

    // Checks the device copy (to_device) or `back` (to_host) against the source.
    auto device_matches = [&] {
      GRAPHKIT_CUDA_TRY(cudaMemcpy(back.data(), device.data(), bytes, cudaMemcpyDeviceToHost));
      return back == source;
    };
    auto reset_device = [&] { GRAPHKIT_CUDA_TRY(cudaMemset(device.data(), 0, bytes)); };

    std::printf(
        "| %zu MiB, pageable host memory | host -> device ms (GB/s, %% of pinned) | device -> host ms (GB/s, "
        "%% of pinned) | check |\n|---|---|---|---|\n",
        bytes >> 20);
    const double pinned_up = median_ms(
        trials, [&] { GRAPHKIT_CUDA_TRY(cudaMemcpy(device.data(), pinned.data(), bytes, cudaMemcpyHostToDevice)); });
    const double pinned_down = median_ms(
        trials, [&] { GRAPHKIT_CUDA_TRY(cudaMemcpy(pinned.data(), device.data(), bytes, cudaMemcpyDeviceToHost)); });
    auto cell = [&](double ms, double ceiling_ms) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.1f (%.1f, %.0f%%)", ms, bytes / ms / 1e6, 100 * ceiling_ms / ms);
      return std::string(buf);
    };
    auto row = [&](const std::string& name, double up, double down, bool ok) {
      std::printf("| %s | %s | %s | %s |\n", name.c_str(), cell(up, pinned_up).c_str(), cell(down, pinned_down).c_str(),
                  ok ? "ok" : "MISMATCH");
      std::fflush(stdout);
    };
    row("cudaMemcpy from/to pinned memory (the link's ceiling)", pinned_up, pinned_down, true);

    reset_device();
    const double plain_up = median_ms(
        trials, [&] { GRAPHKIT_CUDA_TRY(cudaMemcpy(device.data(), source.data(), bytes, cudaMemcpyHostToDevice)); });
    bool ok = device_matches();
    std::fill(back.begin(), back.end(), 0);
    const double plain_down = median_ms(
        trials, [&] { GRAPHKIT_CUDA_TRY(cudaMemcpy(back.data(), device.data(), bytes, cudaMemcpyDeviceToHost)); });
    row("cudaMemcpy, pageable", plain_up, plain_down, ok && back == source);

    for (const unsigned threads : {1u, 2u, 4u, 8u, 16u}) {
      transfer_options o;
      o.threads = threads;
      reset_device();
      const double up = median_ms(trials, [&] { copy_to_device(device.data(), source.data(), bytes, o); });
      ok = device_matches();
      std::fill(back.begin(), back.end(), 0);
      const double down = median_ms(trials, [&] { copy_to_host(back.data(), device.data(), bytes, o); });
      row("staged, " + std::to_string(threads) + " host threads", up, down, ok && back == source);
    }

    // A page-cached file to the device through fill_device (pread straight
    // into the pinned chunks: what the GPU loaders do), per lane count and
    // chunk size, beside reading the file by 16 threads into reused buffers.
    // "first call" includes pinning the pool for that shape.
    {
      const std::string path = file_dir + "/graphkit_transfer_bench.bin";
      {
        std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "wb"), &std::fclose);
        if (!f || std::fwrite(source.data(), 1, bytes, f.get()) != bytes || std::fflush(f.get()) != 0)
          throw std::runtime_error("cannot write " + path);
      }
      const detail::posix_file file(path);
      std::vector<std::vector<char>> buffers(16, std::vector<char>(8u << 20));
      const double ceiling = median_ms(trials, [&] {
        detail::parallel_parts(16, [&](std::size_t r) {
          const auto [lo, hi] = detail::part_range(bytes, 16, r);
          for (std::size_t at = lo; at < hi; at += buffers[r].size())
            (void)file.read_at(buffers[r].data(), std::min(buffers[r].size(), hi - at), at);
        });
      });
      std::printf(
          "\n| page-cached file -> device, %zu MiB | lanes | chunk MiB | ms | GB/s | %% of 16-reader read | first call "
          "ms | check |\n|---|---|---|---|---|---|---|---|\n",
          bytes >> 20);
      std::printf("| 16 readers into reused 8 MiB buffers (the ceiling) | - | - | %.1f | %.1f | 100%% | - | - |\n",
                  ceiling, bytes / ceiling / 1e6);
      const chunk_filler from_file = [&](char* chunk, std::size_t at, std::size_t len) {
        if (file.read_at(chunk, len, at) != len) throw std::runtime_error("short read");
      };
      for (const unsigned lanes : {8u, 16u}) {
        for (const std::size_t mib : {2u, 4u, 8u}) {
          const transfer_options o{lanes, mib << 20};
          reset_device();
          const auto start = std::chrono::steady_clock::now();
          fill_device(device.data(), bytes, from_file, o);
          const double first =
              std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
          const double ms = median_ms(trials, [&] { fill_device(device.data(), bytes, from_file, o); });
          std::printf("| fill_device | %u | %zu | %.1f | %.1f | %.0f%% | %.1f | %s |\n", lanes, mib, ms,
                      bytes / ms / 1e6, 100 * ceiling / ms, first, device_matches() ? "ok" : "MISMATCH");
          std::fflush(stdout);
        }
      }
      std::remove(path.c_str());
    }

    // What a caller pays for a new std::vector too: its pages are zeroed and
    // faulted in by one thread before the copy writes them.
    std::vector<std::uint64_t> fresh;
    const double plain_fresh = median_ms(trials, [&] {
      fresh = std::vector<std::uint64_t>();
      fresh = std::vector<std::uint64_t>(words);
      GRAPHKIT_CUDA_TRY(cudaMemcpy(fresh.data(), device.data(), bytes, cudaMemcpyDeviceToHost));
    });
    ok = fresh == source;
    const double staged_fresh = median_ms(trials, [&] {
      fresh = std::vector<std::uint64_t>();
      fresh = download(device);
    });
    ok = ok && fresh == source;
    std::printf(
        "\n| into a new std::vector (allocation included) | device -> host ms (GB/s) | check |\n|---|---|---|\n"
        "| cudaMemcpy, pageable | %.1f (%.1f) | %s |\n| staged (download), default threads | %.1f (%.1f) | %s |\n",
        plain_fresh, bytes / plain_fresh / 1e6, ok ? "ok" : "MISMATCH", staged_fresh, bytes / staged_fresh / 1e6,
        ok ? "ok" : "MISMATCH");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  }
  return 0;
}
