// Triangle counting kernels: a vertex u walks the out-lists of the vertices
// v its walk list names (orient.cuh: its out-neighbours, or under
// shorter_side its neighbours of either direction with the shorter
// out-lists), and each w on them closes a triangle exactly when w is also an
// out-neighbour of u. The kernels walk those two-hop paths u - v -> w and ask
// a membership set built from u's out-neighbours; the set is the method:
//   sorted_list_set   binary search in u's sorted list, staged in shared
//                     memory (the merge method); heavy vertices' lists get
//                     a bucket index over their id range (indexed_list_set);
//   hash_set          the project's linear-probing table (shared memory, or
//                     a per-block slice of global memory for large lists);
//   bitmap_set        a per-block n-bit bitmap in global memory (bit_span).
// The walk is the same for all: a warp takes 32 walk-list entries v at a time,
// scans their out-degrees, and goes through the concatenated lists 32 paths
// at a time, each lane finding its v by a 5-step search over the lanes'
// offsets. Light vertices get a warp each; heavy ones a block, whose warps
// share the set and split the v's.
#pragma once

#include <cstdint>

#include "apps/tricount/gpu/orient.cuh"
#include "primitives/bitmap/bit_span.cuh"
#include "primitives/common/sorted_search.cuh"
#include "primitives/hash/linear_probing_map.cuh"

namespace graphkit::tricount::detail {

constexpr unsigned kAll = 0xffffffffu;
inline constexpr int kCountWarps = 8;
inline constexpr int kCountThreads = kCountWarps * 32;
/// Shared-memory hash slots: per warp in the light kernel, per block in the heavy one.
inline constexpr std::uint32_t kWarpSetSlots = 2 * kWarpMaxOutDegree;
inline constexpr std::uint32_t kBlockSetSlots = kCountWarps * kWarpSetSlots;
/// Longest out-list the heavy kernel's merge method copies to shared memory (32 KB).
inline constexpr std::uint32_t kStagedListMax = 4096;

using set_ref = linear_probing_ref<std::uint32_t, std::uint32_t>;
using set_slot = set_ref::slot;
inline constexpr std::uint32_t kEmptySlot = 0xffffffffu;  // vertex ids are below 2^32 - 1

/// Where found triangles go: a running count per thread, and per-vertex
/// counts when asked for.
struct triangle_sink {
  unsigned long long* per_vertex;  // nullptr unless --per-vertex
  __device__ void found(vertex_t u, vertex_t v, vertex_t w, unsigned long long& count) const {
    ++count;
    if (per_vertex) {
      atomicAdd(&per_vertex[u], 1ull);
      atomicAdd(&per_vertex[v], 1ull);
      atomicAdd(&per_vertex[w], 1ull);
    }
  }
};

/// Calls visit(v, w) for every two-hop path u - v -> w that u's walk takes (v in
/// `list`, w in v's out-list), with this warp taking the chunks of 32 list
/// entries first_chunk, first_chunk + chunk_stride, ...
template <class Visit>
__device__ void for_each_two_hop(const oriented_view& g, const walk_list& list, unsigned first_chunk,
                                 unsigned chunk_stride, Visit&& visit) {
  const unsigned lane = threadIdx.x & 31;
  for (std::uint32_t chunk = first_chunk * 32; chunk < list.size(); chunk += chunk_stride * 32) {
    vertex_t v = 0;
    edge_t v_begin = 0;
    std::uint32_t v_degree = 0;
    if (chunk + lane < list.size()) {
      v = list[chunk + lane];
      v_begin = g.offsets[v];
      v_degree = static_cast<std::uint32_t>(g.offsets[v + 1] - v_begin);
      if (!list.walks(v, v_degree)) v_degree = 0;  // v walks u's list instead
    }
    std::uint32_t inclusive = v_degree;
    for (int o = 1; o < 32; o *= 2) {
      const std::uint32_t y = __shfl_up_sync(kAll, inclusive, o);
      if (lane >= o) inclusive += y;
    }
    const std::uint32_t total = __shfl_sync(kAll, inclusive, 31);
    const std::uint32_t exclusive = inclusive - v_degree;
    for (std::uint32_t base = 0; base < total; base += 32) {
      const std::uint32_t k = base + lane;
      int owner = 0;
      for (int step = 16; step > 0; step /= 2)
        if (__shfl_sync(kAll, exclusive, owner + step) <= k) owner += step;
      const vertex_t owner_v = __shfl_sync(kAll, v, owner);
      const edge_t owner_begin = __shfl_sync(kAll, v_begin, owner);
      const std::uint32_t owner_start = __shfl_sync(kAll, exclusive, owner);
      if (k < total) visit(owner_v, g.targets[owner_begin + (k - owner_start)]);
    }
  }
}

// ---- membership sets ----------------------------------------------------------

/// Binary search in u's sorted out-list.
struct sorted_list_set {
  const vertex_t* list;
  std::uint32_t size;
  __device__ bool contains(vertex_t w) const { return sorted_contains(list, std::uint32_t{0}, size, w); }
};

/// A sorted list with a bucket index over its id range: bucket b of 2^shift
/// ids starts at index[b], so a search runs inside one bucket. A heavy
/// vertex's list spans about the whole id range with up to 8192 entries; in
/// 1024 buckets a search takes ~3 steps instead of 13, and the steps are
/// dependent shared-memory loads, which bound the heavy kernel (rmat:21:
/// 83 -> 57 ms). Light lists (<= 256 entries, 8 steps) gained nothing from
/// 64 buckets per warp: the light kernel is bound by its walk, not its search.
template <std::uint32_t Buckets>
struct indexed_list_set {
  static_assert((Buckets & (Buckets - 1)) == 0, "a power of two");
  static constexpr std::uint32_t kBuckets = Buckets;
  static constexpr int kBucketBits = __builtin_ctz(Buckets);
  const vertex_t* list;        ///< sorted, size >= 1
  const std::uint32_t* index;  ///< Buckets + 1 entries (the used ones and one past)
  vertex_t first;
  std::uint32_t span;   ///< last - first
  std::uint32_t shift;  ///< span >> shift < Buckets

  /// Members rank 0..group-1 of a group (a warp or a block) write index from
  /// the list; the caller synchronizes the group before searching.
  __device__ static indexed_list_set build(const vertex_t* list, std::uint32_t size, std::uint32_t* index,
                                           unsigned rank, unsigned group) {
    const vertex_t first = list[0];
    const std::uint32_t span = list[size - 1] - first;
    const int bits = 32 - __clz(span);  // bits of span; 0 for span 0
    const std::uint32_t shift = bits > kBucketBits ? bits - kBucketBits : 0;
    const std::uint32_t used = (span >> shift) + 1;
    for (std::uint32_t k = rank; k <= size; k += group) {
      // Buckets (bucket of list[k - 1], bucket of list[k]] start at k; past the end, at size.
      const std::int64_t from = k == 0 ? -1 : std::int64_t{(list[k - 1] - first) >> shift};
      const std::int64_t to = k == size ? std::int64_t{used} : std::int64_t{(list[k] - first) >> shift};
      for (std::int64_t b = from + 1; b <= to; ++b) index[b] = k;
    }
    return {list, index, first, span, shift};
  }
  __device__ bool contains(vertex_t w) const {
    const std::uint32_t offset = w - first;  // wraps for w < first
    if (offset > span) return false;
    const std::uint32_t b = offset >> shift;
    return sorted_contains(list, index[b], index[b + 1], w);
  }
};
using heavy_list_set = indexed_list_set<1024>;

/// u's out-list in a linear-probing table of twice its size (load at most 0.5,
/// rounded up to the table's whole windows), looked up through a read-only ref
/// once the table is filled (plain loads: no writer runs beside the lookups).
struct hash_set {
  linear_probing_ref<std::uint32_t, std::uint32_t, murmur3_hash, hash_ops::find> table;
  explicit __device__ hash_set(const set_ref& filled)
      : table{filled.slots, filled.capacity, filled.empty_key, filled.empty_value} {}
  __device__ bool contains(vertex_t w) const { return table.find(w) != kEmptySlot; }
};

__device__ inline set_ref make_table(set_slot* slots, std::uint32_t out_degree) {
  return {slots, set_ref::capacity_for(std::size_t{2} * out_degree), kEmptySlot, kEmptySlot};
}

/// Members of a `group`-thread group (a warp or a block) fill or empty the table.
__device__ inline void fill_table(const set_ref& t, const vertex_t* list, std::uint32_t size, unsigned rank,
                                  unsigned group) {
  for (std::uint32_t i = rank; i < size; i += group) t.insert(list[i], 1);
}
__device__ inline void empty_table(const set_ref& t, unsigned rank, unsigned group) {
  for (std::size_t i = rank; i < t.capacity; i += group) t.slots[i] = {kEmptySlot, kEmptySlot};
}

struct bitmap_set {
  bit_span_ref bits;
  __device__ bool contains(vertex_t w) const { return bits.test(w); }
};

// ---- kernels -------------------------------------------------------------------

enum class set_kind { sorted_list, hash, bitmap };

/// Block-wide sum of per-thread counts into *total.
__device__ inline void add_warp_count(unsigned long long count, unsigned long long* total) {
  for (int o = 16; o > 0; o /= 2) count += __shfl_down_sync(kAll, count, o);
  if ((threadIdx.x & 31) == 0 && count > 0) atomicAdd(total, count);
}

/// A warp per light vertex. Kind is sorted_list or hash.
template <set_kind Kind>
__global__ void __launch_bounds__(kCountThreads)
    count_light_kernel(oriented_view g, pull_lists pull, const vertex_t* vertices, std::uint32_t count,
                       triangle_sink sink, unsigned long long* total) {
  static_assert(Kind != set_kind::bitmap, "the bitmap method runs block-wide");
  // 16-byte aligned: the table reads its slots in 16-byte loads.
  __shared__ alignas(16) set_slot slots[Kind == set_kind::hash ? kBlockSetSlots : 1];
  __shared__ vertex_t staged[Kind == set_kind::sorted_list ? kCountWarps * kWarpMaxOutDegree : 1];
  const unsigned warp = threadIdx.x / 32, lane = threadIdx.x & 31;
  const std::uint32_t i = blockIdx.x * kCountWarps + warp;
  if (i >= count) return;  // whole warps leave together
  const vertex_t u = vertices[i];
  const walk_list u_walk = pull.walk_of(g, u);
  const vertex_t* list = u_walk.out;
  const std::uint32_t size = u_walk.out_size;
  unsigned long long found = 0;
  auto walk = [&](const auto& set) {
    for_each_two_hop(g, u_walk, 0, 1, [&](vertex_t v, vertex_t w) {
      if (set.contains(w)) sink.found(u, v, w, found);
    });
  };
  if constexpr (Kind == set_kind::hash) {
    const set_ref table = make_table(slots + warp * kWarpSetSlots, size);
    empty_table(table, lane, 32);
    __syncwarp();
    fill_table(table, list, size, lane, 32);
    __syncwarp();
    walk(hash_set{table});
  } else {
    // The search runs in shared memory: a light list has at most kWarpMaxOutDegree entries.
    vertex_t* mine = staged + warp * kWarpMaxOutDegree;
    for (std::uint32_t k = lane; k < size; k += 32) mine[k] = list[k];
    __syncwarp();
    walk(sorted_list_set{mine, size});
  }
  add_warp_count(found, total);
}

/// Scratch a heavy-vertex block may use: its slice of a global slot pool
/// (hash sets too large for shared memory) and of a bitmap pool (n bits each).
struct block_scratch {
  set_slot* slots;  // gridDim.x * slots_per_block
  std::size_t slots_per_block;
  std::uint32_t* bitmaps;  // gridDim.x * words_per_block, all zero between vertices
  std::size_t words_per_block;
};

/// A block per heavy vertex; blocks take the next vertex from *next, in the
/// order of the heavy classes: longest walks first (orient.cuh).
template <set_kind Kind>
__global__ void __launch_bounds__(kCountThreads)
    count_heavy_kernel(oriented_view g, pull_lists pull, const vertex_t* vertices, std::uint32_t count,
                       triangle_sink sink, block_scratch scratch, std::uint32_t* next, unsigned long long* total) {
  __shared__ alignas(16) set_slot shared_slots[Kind == set_kind::hash ? kBlockSetSlots : 1];
  __shared__ vertex_t staged[Kind == set_kind::sorted_list ? kStagedListMax : 1];
  __shared__ std::uint32_t bucket_index[Kind == set_kind::sorted_list ? heavy_list_set::kBuckets + 1 : 1];
  __shared__ std::uint32_t current;
  const unsigned warp = threadIdx.x / 32;
  unsigned long long found = 0;
  for (;;) {
    if (threadIdx.x == 0) current = atomicAdd(next, 1u);
    __syncthreads();
    const std::uint32_t i = current;
    __syncthreads();  // everyone has read `current` before thread 0 may move on
    if (i >= count) break;
    const vertex_t u = vertices[i];
    const walk_list u_walk = pull.walk_of(g, u);
    const vertex_t* list = u_walk.out;
    const std::uint32_t size = u_walk.out_size;
    auto walk = [&](const auto& set) {
      for_each_two_hop(g, u_walk, warp, kCountWarps, [&](vertex_t v, vertex_t w) {
        if (set.contains(w)) sink.found(u, v, w, found);
      });
    };
    if constexpr (Kind == set_kind::sorted_list) {
      // Binary search steps are dependent loads: from shared memory where the list fits.
      if (size <= kStagedListMax) {
        for (std::uint32_t k = threadIdx.x; k < size; k += kCountThreads) staged[k] = list[k];
        __syncthreads();
        const heavy_list_set set = heavy_list_set::build(staged, size, bucket_index, threadIdx.x, kCountThreads);
        __syncthreads();
        walk(set);
        __syncthreads();
      } else {
        walk(sorted_list_set{list, size});
      }
    } else if constexpr (Kind == set_kind::hash) {
      set_slot* slots =
          2 * size <= kBlockSetSlots ? shared_slots : scratch.slots + blockIdx.x * scratch.slots_per_block;
      const set_ref table = make_table(slots, size);
      empty_table(table, threadIdx.x, kCountThreads);
      __syncthreads();
      fill_table(table, list, size, threadIdx.x, kCountThreads);
      __syncthreads();
      walk(hash_set{table});
      __syncthreads();
    } else {
      const bit_span_ref bits{scratch.bitmaps + blockIdx.x * scratch.words_per_block};
      for (std::uint32_t k = threadIdx.x; k < size; k += kCountThreads) bits.set(list[k]);
      __syncthreads();
      walk(bitmap_set{bits});
      __syncthreads();
      for (std::uint32_t k = threadIdx.x; k < size; k += kCountThreads) bits.clear_word_of(list[k]);
    }
  }
  add_warp_count(found, total);
}

}  // namespace graphkit::tricount::detail
