#include "graph/host_array.hpp"

#include <cstdlib>

#include <sys/mman.h>

namespace graphkit::detail {
namespace {

constexpr std::size_t kHugePage = 2u << 20;

std::size_t huge_rounded(std::size_t bytes) { return (bytes + kHugePage - 1) / kHugePage * kHugePage; }

}  // namespace

void* allocate_host_array(std::size_t bytes) {
  if (bytes < kHugeArrayBytes) return ::operator new(bytes);
  // Whole huge pages, so that the kernel can back all of it with them when
  // it first faults them in (a 4 KiB fault per page costs several times more).
  const std::size_t rounded = huge_rounded(bytes);
  void* p = std::aligned_alloc(kHugePage, rounded);
  if (p == nullptr) throw std::bad_alloc();
  (void)madvise(p, rounded, MADV_HUGEPAGE);
  return p;
}

void free_host_array(void* p, std::size_t bytes) noexcept {
  if (bytes < kHugeArrayBytes) ::operator delete(p);
  else std::free(p);
}

}  // namespace graphkit::detail
