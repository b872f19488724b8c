// The host arrays of a graph's edges (coo_graph's src, dst and weights, and
// what fills them): std::vector, except that a new element is left
// uninitialized rather than zeroed, and a large array asks for huge pages.
//
// Why: a loader knows every element it will write. std::vector's resize(n)
// zero-fills first, on the one thread that calls it, which faults in every
// fresh page before the parse starts (R-MAT 21's 381 MB of output: 80-90 ms
// on the 16-core host, against a parse of about the same). Left
// uninitialized, the pages are faulted in by whichever thread writes them
// first: each parse thread its own slots, while it parses.
//
// So resize(n) and host_array<T>(n) leave the new elements' values
// unspecified: write them before reading them, or say the value
// (resize(n, T{}), assign(n, T{})). Everything else is std::vector's.
#pragma once

#include <algorithm>
#include <cstddef>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace graphkit {
namespace detail {

/// Arrays of at least this many bytes get huge-page advice (2 MiB aligned).
inline constexpr std::size_t kHugeArrayBytes = 4u << 20;

/// ::operator new below kHugeArrayBytes; above, 2 MiB-aligned memory with
/// MADV_HUGEPAGE (advice: refused, it changes only speed). Throws bad_alloc.
void* allocate_host_array(std::size_t bytes);
/// Frees what allocate_host_array(bytes) returned, given the same bytes.
void free_host_array(void* p, std::size_t bytes) noexcept;

}  // namespace detail

/// std::allocator's contract, but value-initialization (resize(n), the (n)
/// constructor) is default-initialization: no zeroes for scalars.
template <class T>
struct default_init_allocator {
  using value_type = T;

  default_init_allocator() noexcept = default;
  template <class U>
  default_init_allocator(const default_init_allocator<U>&) noexcept {}  // NOLINT: rebinding, as std::allocator

  T* allocate(std::size_t n) {
    if (n > std::size_t(-1) / sizeof(T)) throw std::bad_array_new_length();
    return static_cast<T*>(detail::allocate_host_array(n * sizeof(T)));
  }
  void deallocate(T* p, std::size_t n) noexcept { detail::free_host_array(p, n * sizeof(T)); }

  template <class U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }

  template <class U>
  friend bool operator==(const default_init_allocator&, const default_init_allocator<U>&) noexcept {
    return true;
  }
};

template <class T>
using host_array = std::vector<T, default_init_allocator<T>>;

/// Equal elements, as between two std::vectors (tests compare loaded arrays
/// with expected ones; found by argument-dependent lookup, both ways round).
template <class T>
bool operator==(const host_array<T>& a, const std::vector<T>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end());
}

}  // namespace graphkit
