// What a solve reached, counted where the distances are. The report needs
// only the reached vertices and the edges they hold (for GTEPS); fetching
// every distance to count them on the host cost more than the solve itself
// (R-MAT 21: 16 ms of fresh host pages and widening, and 19 ms of counting,
// against a 3.6 ms solve).
#pragma once

#include <cub/block/block_reduce.cuh>

#include "apps/sssp/sssp.hpp"
#include "graph/types.hpp"
#include "primitives/common/device_buffer.hpp"
#include "primitives/common/error.hpp"
#include "primitives/common/launch.hpp"

namespace graphkit::sssp::detail {

inline constexpr unsigned kReachThreads = 256;

/// Adds the vertices with a distance and the sum of their out-degrees to
/// totals[0] and totals[1].
template <class Dist>
__global__ void reach_kernel(const Dist* dist, Dist unreached, const edge_t* offsets, std::size_t n,
                             unsigned long long* totals) {
  using reduce = cub::BlockReduce<unsigned long long, kReachThreads>;
  __shared__ typename reduce::TempStorage scratch;
  unsigned long long vertices = 0, edges = 0;
  for (std::size_t v = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x; v < n;
       v += std::size_t{gridDim.x} * blockDim.x) {
    if (dist[v] != unreached) {
      ++vertices;
      edges += offsets[v + 1] - offsets[v];
    }
  }
  vertices = reduce(scratch).Sum(vertices);
  __syncthreads();  // the scratch is reused
  edges = reduce(scratch).Sum(edges);
  if (threadIdx.x == 0) {
    atomicAdd(totals, vertices);
    atomicAdd(totals + 1, edges);
  }
}

/// The reach of distances `dist` of `n` vertices (unreached ones hold `unreached`).
template <class Dist>
reach_summary reach_on_device(const Dist* dist, Dist unreached, const edge_t* offsets, std::size_t n,
                              cudaStream_t stream) {
  device_buffer<unsigned long long> totals(2);
  totals.fill_bytes(0, stream);
  if (n > 0) {
    reach_kernel<<<grid_stride_blocks(n, kReachThreads), kReachThreads, 0, stream>>>(dist, unreached, offsets, n,
                                                                                     totals.data());
    GRAPHKIT_CHECK_LAUNCH();
  }
  unsigned long long host[2] = {0, 0};
  GRAPHKIT_CUDA_TRY(cudaMemcpyAsync(host, totals.data(), sizeof host, cudaMemcpyDeviceToHost, stream));
  GRAPHKIT_CUDA_TRY(cudaStreamSynchronize(stream));
  return {host[0], host[1]};
}

}  // namespace graphkit::sssp::detail
