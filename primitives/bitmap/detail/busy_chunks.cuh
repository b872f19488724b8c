// The chunk loop of the set-algebra kernels. A block per chunk made a 2^32
// universe cost 65,536 block launches even when a handful of chunks needed
// work (0.048 ms flat from 10% of chunks down to 0.1%). Here each block
// takes groups of up to 32 chunks, grid-stride: one warp reads the group's
// chunk counts or states at once and votes on which need work, and the block
// works only on those. A chunk that needs nothing costs a lane's read, so
// time follows the chunks that need work.
#pragma once

#include <algorithm>
#include <cstdint>

#include <cuda_runtime_api.h>

namespace graphkit::bitmap_detail {

/// Chunks per group and blocks for `chunks` chunks: groups of one chunk while
/// there are too few chunks to fill the GPU, up to 32 when there are many.
struct busy_chunk_grid {
  std::uint32_t group = 1;
  unsigned blocks = 1;
};

inline busy_chunk_grid plan_busy_chunks(std::uint64_t chunks) {
  constexpr std::uint64_t kTargetBlocks = 2048;  // about 16 per SM on an H100
  busy_chunk_grid g;
  g.group = static_cast<std::uint32_t>(std::min<std::uint64_t>(32, std::max<std::uint64_t>(1, chunks / kTargetBlocks)));
  g.blocks = static_cast<unsigned>(std::max<std::uint64_t>(1, (chunks + g.group - 1) / g.group));
  return g;
}

/// For every chunk c < chunks with needs(c, lane), the whole block calls
/// work(c, lane), where lane (0..31) is the chunk's place in its group: needs
/// runs on that lane of warp 0 and may act (write a decided result, stash
/// what it read in shared memory at [lane] for work). work must be called by
/// every thread of the block. With SyncEachChunk the block synchronizes after
/// every work call (for work that reuses shared memory); without it warps run
/// ahead into the next chunk, which hides the loads' latency.
template <bool SyncEachChunk, class Needs, class Work>
__device__ void for_each_busy_chunk(std::uint64_t chunks, std::uint32_t group, Needs&& needs, Work&& work) {
  __shared__ unsigned busy;
  for (std::uint64_t base = std::uint64_t{blockIdx.x} * group; base < chunks;
       base += std::uint64_t{gridDim.x} * group) {
    if (threadIdx.x < 32) {
      const std::uint64_t c = base + threadIdx.x;
      const bool mine = threadIdx.x < group && c < chunks && needs(c, threadIdx.x);
      const unsigned mask = __ballot_sync(~0u, mine);
      if (threadIdx.x == 0) busy = mask;
    }
    __syncthreads();
    for (unsigned m = busy; m != 0; m &= m - 1) {
      const unsigned lane = __ffs(m) - 1;
      work(base + lane, lane);
      if constexpr (SyncEachChunk) __syncthreads();
    }
    __syncthreads();  // every thread is done with this group's busy mask and stash
  }
}

}  // namespace graphkit::bitmap_detail
