// relabel_on_gpu: vertex-id compaction through the linear-probing table.
#include <algorithm>
#include <limits>
#include <utility>

#include "graph/gpu/detail/memory.hpp"
#include "graph/gpu/detail/sort.hpp"
#include "graph/host_transfer.hpp"
#include "graph/gpu/pipeline.hpp"
#include "primitives/common/error.hpp"
#include "primitives/common/launch.hpp"
#include "primitives/hash/linear_probing_map.cuh"

namespace graphkit {
namespace {

using id_map = linear_probing_map<std::uint64_t, std::uint32_t>;
/// Claims slots and writes their values (ranks) in place.
using id_ref = id_map::ref_with<hash_ops::insert>;
/// Looks ids up only.
using id_find_ref = id_map::const_ref_type;
// The table's empty key. An id may equal it (ids are any 64-bit value), so
// that one id bypasses the table: it is counted apart and ranked apart.
constexpr std::uint64_t kEmptyId = std::numeric_limits<std::uint64_t>::max();
constexpr std::uint32_t kNoRank = std::numeric_limits<std::uint32_t>::max();

/// Endpoint i of the 2E laid out as [src..., dst...]; its first-seen position
/// interleaves them (src of edge e at 2e, dst at 2e + 1), as relabel() scans.
__device__ std::uint64_t position_of(std::size_t i, std::size_t edges) {
  return i < edges ? 2 * i : 2 * (i - edges) + 1;
}

__global__ void insert_ids_kernel(id_ref table, const std::uint64_t* ids, std::size_t n, unsigned long long* failures,
                                  unsigned* saw_empty_id) {
  const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const std::uint64_t id = ids[i];
  if (id == kEmptyId) *saw_empty_id = 1;
  else if (table.insert_slot(id) == table.capacity) atomicAdd(failures, 1ull);
}

/// Distinct ids out of the occupied slots, in slot order; each slot's value
/// becomes the id's index in that list.
__global__ void gather_ids_kernel(id_ref table, std::uint64_t* distinct, unsigned long long* count) {
  const std::size_t s = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (s >= table.capacity) return;
  const std::uint64_t key = table.slots[s].key;
  if (key == kEmptyId) return;
  const auto index = atomicAdd(count, 1ull);
  distinct[index] = key;
  table.slots[s].value = static_cast<std::uint32_t>(index);
}

__device__ std::uint32_t index_of(const id_find_ref& table, std::uint64_t id, std::uint32_t empty_id_index) {
  return id == kEmptyId ? empty_id_index : table.find(id);
}

/// first[index of id] = the smallest position at which id appears.
__global__ void first_positions_kernel(id_find_ref table, const std::uint64_t* ids, std::size_t n, std::size_t edges,
                                       std::uint32_t empty_id_index, unsigned long long* first) {
  const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (i < n) atomicMin(&first[index_of(table, ids[i], empty_id_index)], position_of(i, edges));
}

/// The table's value for ordered[r] becomes r, its dense id.
__global__ void write_ranks_kernel(id_ref table, const std::uint64_t* ordered, std::size_t n) {
  const std::size_t r = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (r < n && ordered[r] != kEmptyId) table.slots[table.insert_slot(ordered[r])].value = static_cast<std::uint32_t>(r);
}

/// Endpoint i (of [src..., dst...]) gets its dense id.
__global__ void translate_kernel(id_find_ref table, const std::uint64_t* ids, std::size_t n,
                                 std::uint32_t empty_id_rank, std::uint32_t* src, std::uint32_t* dst) {
  const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const std::uint32_t dense = index_of(table, ids[i], empty_id_rank);
  if (i < n / 2) src[i] = dense;
  else dst[i - n / 2] = dense;
}

__global__ void find_rank_kernel(const std::uint64_t* ordered, std::size_t n, std::uint32_t* rank) {
  const std::size_t r = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (r < n && ordered[r] == kEmptyId) *rank = static_cast<std::uint32_t>(r);
}

}  // namespace

device_edges relabel_device(const device_buffer<std::uint64_t>& ids, relabel_order order,
                            std::vector<original_id_t>& original_ids, cudaStream_t stream) {
  const std::size_t n = ids.size(), edges = n / 2;
  device_edges out;
  original_ids.clear();
  if (edges == 0) return out;

  // Peak per edge: the table 64 B (4 slots of 16 B: load at most 0.5, as every
  // endpoint could be distinct), distinct ids and their sorted copy 32, sort
  // scratch ~16, dense ids 8.
  detail::require_device_memory("relabel_on_gpu", edges, 120 * edges);
  id_map table(2 * n, empty_key<std::uint64_t>{kEmptyId}, empty_value<std::uint32_t>{kNoRank}, stream);
  const id_ref ref = table.ref<hash_ops::insert>();
  const id_find_ref find_ref = std::as_const(table).ref();
  device_buffer<unsigned long long> counters(2);  // [0] failures, then distinct count; [1] saw the empty id
  counters.fill_bytes(0, stream);
  auto* saw_empty_id = reinterpret_cast<unsigned*>(counters.data() + 1);
  insert_ids_kernel<<<blocks_for(n), 256, 0, stream>>>(ref, ids.data(), n, counters.data(), saw_empty_id);
  GRAPHKIT_CHECK_LAUNCH();
  if (const auto failed = read_one(counters.data(), stream); failed != 0)
    throw resource_error("relabel_on_gpu: " + std::to_string(failed) + " ids found the table full (" +
                         std::to_string(table.capacity()) + " slots for " + std::to_string(n) + " endpoints)");
  const bool has_empty_id = read_one(saw_empty_id, stream) != 0;

  // Distinct ids, the table's values pointing at them.
  counters.fill_bytes(0, stream);
  device_buffer<std::uint64_t> distinct(n + 1);
  gather_ids_kernel<<<blocks_for(table.capacity()), 256, 0, stream>>>(ref, distinct.data(), counters.data());
  GRAPHKIT_CHECK_LAUNCH();
  std::size_t count = read_one(counters.data(), stream);
  if (has_empty_id) {
    GRAPHKIT_CUDA_TRY(
        cudaMemcpyAsync(distinct.data() + count, &kEmptyId, sizeof kEmptyId, cudaMemcpyHostToDevice, stream));
    ++count;
  }
  if (count > std::numeric_limits<vertex_t>::max())
    throw input_error("the edge list has " + std::to_string(count) + " distinct vertex ids; at most 2^32 - 1 fit");
  const auto empty_id_index = static_cast<std::uint32_t>(count - 1);  // meaningful only with has_empty_id

  if (order == relabel_order::sorted) {
    detail::sort_keys(distinct, count, 64, stream);
  } else {
    // Order by first appearance: sort (first position -> id).
    device_buffer<unsigned long long> first(count);
    first.fill_bytes(0xff, stream);
    first_positions_kernel<<<blocks_for(n), 256, 0, stream>>>(find_ref, ids.data(), n, edges, empty_id_index,
                                                              first.data());
    GRAPHKIT_CHECK_LAUNCH();
    device_buffer<std::uint64_t> keys(count);
    GRAPHKIT_CUDA_TRY(
        cudaMemcpyAsync(keys.data(), first.data(), count * sizeof(std::uint64_t), cudaMemcpyDeviceToDevice, stream));
    device_buffer<std::uint64_t> order_values(count);
    GRAPHKIT_CUDA_TRY(cudaMemcpyAsync(order_values.data(), distinct.data(), count * sizeof(std::uint64_t),
                                      cudaMemcpyDeviceToDevice, stream));
    detail::sort_pairs(keys, order_values, count, detail::bits_for(n), stream);
    distinct = std::move(order_values);
  }
  write_ranks_kernel<<<blocks_for(count), 256, 0, stream>>>(ref, distinct.data(), count);
  GRAPHKIT_CHECK_LAUNCH();
  std::uint32_t empty_id_rank = kNoRank;
  if (has_empty_id) {
    device_buffer<std::uint32_t> rank(1);
    find_rank_kernel<<<blocks_for(count), 256, 0, stream>>>(distinct.data(), count, rank.data());
    GRAPHKIT_CHECK_LAUNCH();
    empty_id_rank = read_one(rank.data(), stream);
  }

  out.num_vertices = static_cast<vertex_t>(count);
  out.src = device_buffer<vertex_t>(edges);
  out.dst = device_buffer<vertex_t>(edges);
  translate_kernel<<<blocks_for(n), 256, 0, stream>>>(find_ref, ids.data(), n, empty_id_rank, out.src.data(),
                                                      out.dst.data());
  GRAPHKIT_CHECK_LAUNCH();
  original_ids.resize(count);  // only the distinct ids come back, not the whole buffer
  copy_to_host(original_ids.data(), distinct.data(), count * sizeof(original_id_t), on_stream(stream));
  bool identity = true;
  for (std::size_t v = 0; v < count && identity; ++v) identity = original_ids[v] == v;
  if (identity) original_ids.clear();
  return out;
}

relabeled_edges relabel_on_gpu(std::span<const std::uint64_t> src, std::span<const std::uint64_t> dst,
                               relabel_order order, cudaStream_t stream) {
  GRAPHKIT_EXPECTS(src.size() == dst.size(), "relabel_on_gpu: src and dst differ in length");
  const std::size_t edges = src.size();
  relabeled_edges out;
  if (edges == 0) return out;
  detail::require_device_memory("relabel_on_gpu", edges, 136 * edges);  // the device step's 120 B, and the ids
  device_buffer<std::uint64_t> ids(2 * edges);
  const transfer_options copies = on_stream(stream);
  copy_to_device(ids.data(), src.data(), src.size_bytes(), copies);
  copy_to_device(ids.data() + edges, dst.data(), dst.size_bytes(), copies);
  device_edges dense = relabel_device(ids, order, out.original_ids, stream);
  out.num_vertices = dense.num_vertices;
  out.src = download_as<host_array<vertex_t>>(dense.src, copies);
  out.dst = download_as<host_array<vertex_t>>(dense.dst, copies);
  return out;
}

}  // namespace graphkit
