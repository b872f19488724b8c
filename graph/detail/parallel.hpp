// A minimal fork-join over std::thread for the host-side loaders and
// generators (no TBB/OpenMP dependency; the work items are coarse).
#pragma once

#include <algorithm>
#include <cstddef>
#include <exception>
#include <thread>
#include <vector>

namespace graphkit::detail {

inline unsigned host_threads() noexcept { return std::max(1u, std::thread::hardware_concurrency()); }

/// Calls fn(part) for part in [0, parts) on up to host_threads() threads and
/// rethrows the first exception (by part order) after all have finished.
template <class Fn>
void parallel_parts(std::size_t parts, Fn&& fn) {
  if (parts <= 1) {
    if (parts == 1) fn(std::size_t{0});
    return;
  }
  std::vector<std::exception_ptr> errors(parts);
  std::vector<std::thread> threads;
  threads.reserve(parts);
  for (std::size_t p = 0; p < parts; ++p) {
    threads.emplace_back([&, p] {
      try {
        fn(p);
      } catch (...) {
        errors[p] = std::current_exception();
      }
    });
  }
  for (auto& t : threads) t.join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
}

/// Splits [0, n) into `parts` near-equal ranges; returns range p.
inline std::pair<std::size_t, std::size_t> part_range(std::size_t n, std::size_t parts, std::size_t p) {
  return {n * p / parts, n * (p + 1) / parts};
}

/// splitmix64: a counter-based generator step, good enough for graph generation
/// and weights, and parallel-friendly (value depends only on its input).
constexpr std::uint64_t mix64(std::uint64_t x) noexcept {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace graphkit::detail
