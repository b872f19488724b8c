// The set operations of the bitmaps (dense_bitmap.cuh, chunked_set.cuh) and
// what each does to one word of bits: written once for both.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace graphkit {

enum class set_op {
  intersection,  ///< a AND b
  union_,        ///< a OR b
  difference,    ///< a AND NOT b
  symmetric,     ///< a XOR b
};

namespace bitmap_detail {

/// `op` on 32 elements at once.
__device__ inline std::uint32_t apply(set_op op, std::uint32_t a, std::uint32_t b) {
  switch (op) {
    case set_op::intersection: return a & b;
    case set_op::union_: return a | b;
    case set_op::difference: return a & ~b;
    case set_op::symmetric: return a ^ b;
  }
  return 0;
}

/// `op` on 128 elements (a 16-byte load) at once.
__device__ inline uint4 apply(set_op op, uint4 a, uint4 b) {
  return {apply(op, a.x, b.x), apply(op, a.y, b.y), apply(op, a.z, b.z), apply(op, a.w, b.w)};
}

}  // namespace bitmap_detail
}  // namespace graphkit
