// Edge relaxation for GPU delta-stepping: the frontier's out-edges, balanced
// by edges rather than vertices, inside the persistent kernel.
//
// Warps take the frontier up to 32 vertices at a time; a vertex's edges go
// to one of two workers, by degree:
//   degree < kHeavyDegree
//                        the warp gathers every such vertex's edges into one
//                        list (a warp prefix sum of degrees) and walks it 32
//                        edges at a time, each lane finding its vertex by a
//                        5-step search over the lanes' offsets, so every
//                        step but the last uses all 32 lanes (a warp per
//                        vertex of degree 33 would leave 31 idle in its
//                        second step);
//   degree >= kHeavyDegree
//                        the list is cut into kChunkEdges-edge chunks queued
//                        for the next phase, where warps take chunks in turn,
//                        so hubs of power-law graphs spread over the whole GPU.
// The thresholds are low because a round lasts as long as its slowest warp:
// with 4096 (one warp walking up to 128 steps of dependent loads) R-MAT
// rounds had tails of hundreds of microseconds.
// Every step walks 32 edges with the warp converged. The vertices whose
// distance fell go to the warp's own queue (local_queue) or are posted to
// their lists through the warp's outbox, which appends them 32 at a time by
// one warp multisplit (primitives/multisplit/warp_append.cuh).
// On meshes the solver reads each vertex's first 4 edges from rows instead
// (edge_rows.cuh): a lane per edge, no gathering.
#pragma once

#include <cstdint>
#include <type_traits>

#include "apps/sssp/gpu/control.cuh"
#include "apps/sssp/gpu/edge_rows.cuh"
#include "apps/sssp/gpu/pool.cuh"
#include "graph/device_csr.hpp"
#include "primitives/bitmap/bit_span.cuh"
#include "primitives/multisplit/warp_append.cuh"

namespace graphkit::sssp::detail {

inline constexpr std::uint32_t kHeavyDegree = 128;
inline constexpr std::uint32_t kChunkEdges = 256;
inline constexpr int kBlock = 256;
inline constexpr unsigned kAllLanes = 0xffffffffu;

struct heavy_chunk {
  vertex_t vertex;
  std::uint32_t count;
  edge_t begin;
};

/// Chunks one round can queue: each vertex is in the frontier at most once
/// and its chunks cover its edges, so m / kChunkEdges + m / kHeavyDegree + 1 do.
inline std::size_t chunk_capacity(edge_t num_edges) { return num_edges / kChunkEdges + num_edges / kHeavyDegree + 1; }

/// What the persistent kernel takes, by value. Dist is the width of the
/// distance array: 32 bits where every finite distance fits (max weight x
/// (n - 1) < 2^32 - 1; half the bytes per gather and atomic), else 64. Its
/// largest value means unreached; loads widen it to gpu_distance.
/// Rows: the kernel relaxes from edge rows (edge_rows.cuh); a template
/// parameter, so that the CSR kernel keeps its registers.
template <class Dist, bool Rows>
struct solver_view {
  static constexpr bool kRows = Rows;
  device_csr_view graph;
  edge_rows_view rows;  ///< null unless Rows
  Dist* dist;
  bit_span_ref masks[2];      ///< next-frontier membership, by round parity
  bit_span_ref resplit_mask;  ///< resplit's deduplication
  heavy_chunk* chunks;        ///< room for every chunk of one round
  std::uint32_t chunk_room;   ///< chunk_capacity(m)
  control* ctl;               ///< the initial control block; the final one after the solve
  phase_counters* counters;   ///< three rotating slots
  vertex_t* pool;             ///< pool.cuh: kEmptySlot between phases
  std::uint32_t pool_room;

  /// Bucket lists and the frontier hold n entries, far lists 2n (a spill
  /// may add every live vertex to a far list that already names it).
  [[nodiscard]] __device__ std::uint32_t capacity(std::uint32_t group) const {
    return group == kFarGroup ? 2 * graph.num_vertices : graph.num_vertices;
  }
  [[nodiscard]] __device__ gpu_distance distance(vertex_t v) const { return widen(dist[v]); }
  [[nodiscard]] __device__ static gpu_distance widen(Dist d) {
    return d == static_cast<Dist>(~Dist{0}) ? kGpuUnreachable : gpu_distance{d};
  }
};

/// The global index of the calling warp, and the number of warps.
__device__ inline std::uint32_t warp_index() { return (blockIdx.x * blockDim.x + threadIdx.x) / 32; }
__device__ inline std::uint32_t warp_count() { return gridDim.x * blockDim.x / 32; }
__device__ inline std::uint32_t lane() { return threadIdx.x & 31u; }

/// Appends each valid lane's v to list `group` (warp-converged): after the
/// c.sizes[group] entries the list had when the phase began.
template <class View>
__device__ inline void append(const View& s, const control& c, phase_counters& out, bool valid, std::uint32_t group,
                              vertex_t v) {
  const std::uint32_t at = c.sizes[group] + warp_multisplit_reserve(group, valid, kGroups, out.sizes);
  if (!valid) return;
  if (at < s.capacity(group)) c.lists[group][at] = v;
  else atomicOr(&out.overflow, 1u);
}

/// Room per warp, in shared memory, for vertices the warp relaxes again
/// itself later in the same round (see local_queue).
inline constexpr std::uint32_t kLocalRoom = 128;

/// A warp's own worklist for the current bucket. A target whose distance
/// fell into the current bucket would wait for the next round (a grid
/// barrier and a re-read of the frontier, ~7 us on an H100); on meshes and
/// roads, whose rounds hold a few thousand vertices, that wait is the whole
/// cost, and rounds follow the hop depth of the shortest-path tree. Relaxing
/// such a target's edges at once, up to control::relax_depth hops past the
/// frontier, covers several hops per round. It stays correct because every
/// fall of dist[t] still leads to one relaxation of t's edges from a distance
/// read afterwards (here, or in the next frontier when the queue is full or
/// the depth used up). Every lane holds the same `size`.
struct local_queue {
  vertex_t* items;
  std::uint8_t* depths;  ///< hops past the frontier of each item
  std::uint32_t size;

  /// The calling warp's queue (shared memory; kBlock / 32 warps per block).
  __device__ static local_queue of_this_warp() {
    __shared__ vertex_t items[kBlock / 32][kLocalRoom];
    __shared__ std::uint8_t depths[kBlock / 32][kLocalRoom];
    const unsigned w = threadIdx.x / 32;
    return {items[w], depths[w], 0};
  }
};

/// Room per warp, in shared memory, for the sends it defers (see outbox).
inline constexpr std::uint32_t kOutboxRoom = 64;

/// A warp's deferred sends: targets bound for a later bucket's list, or for
/// the next frontier (group == the current bucket). Appended at once, each
/// step with a send paid a ballot rank and a global atomic whose result the
/// list write waits for, and on a road's chain of hops every hop waited for
/// them; here the warp appends 32 at a time when the box fills and when its
/// work for the phase is done. Deferring is safe: the lists are read only
/// after the phase's barrier, and a next-frontier bit set late costs at most
/// a repeated relaxation. Every lane holds the same `size`.
struct outbox {
  vertex_t* items;
  std::uint8_t* groups;
  std::uint32_t size;

  __device__ static outbox of_this_warp() {
    __shared__ vertex_t items[kBlock / 32][kOutboxRoom];
    __shared__ std::uint8_t groups[kBlock / 32][kOutboxRoom];
    const unsigned w = threadIdx.x / 32;
    return {items[w], groups[w], 0};
  }
};

/// What the relax routines of one phase share: the solver, the state, the
/// phase's counters, the next frontier's mask, and the warp's queue and outbox.
template <class View>
struct relax_context {
  const View& s;
  const control& c;
  phase_counters& out;
  bit_span_ref next_mask;
  gpu_distance bucket_end;  ///< distances below it stay in the current bucket
  bool pooled;              ///< the current bucket's sends go to the pool (pool.cuh)
  local_queue q;
  outbox box;

  __device__ relax_context(const View& view, const control& state, phase_counters& counters, bool pool)
      : s(view),
        c(state),
        out(counters),
        next_mask(view.masks[state.round & 1]),
        bucket_end(state.base + (state.bucket + 1) * state.delta),
        pooled(pool),
        q(local_queue::of_this_warp()),
        box(outbox::of_this_warp()) {}

  /// Whether v waits in the next frontier (or the pool), to be relaxed
  /// there. With the pool, bits are cleared as vertices are taken, so an
  /// older L1 line could say "waiting" of a vertex already taken, and the
  /// fall that came since would be lost; the bits are read through L2.
  [[nodiscard]] __device__ bool pending(vertex_t v) const {
    return pooled ? next_mask.test_in_l2(v) : next_mask.test(v);
  }
};

/// The lanes below the calling one.
__device__ inline unsigned lanes_below() { return (1u << lane()) - 1u; }

/// Appends the outbox's sends to their lists, 32 at a time; a next-frontier
/// send only if its mask bit was clear. Warp-converged.
template <class View>
__device__ inline void flush(relax_context<View>& x) {
  __syncwarp();  // the lanes' outbox writes are visible to the whole warp
  for (std::uint32_t base = 0; base < x.box.size; base += 32) {
    const std::uint32_t i = base + lane();
    bool valid = i < x.box.size;
    vertex_t t = 0;
    std::uint32_t group = 0;
    bool to_pool = false;
    if (valid) {
      t = x.box.items[i];
      group = x.box.groups[i];
      if (group == x.c.bucket) valid = x.next_mask.set(t);
      to_pool = x.pooled && group == x.c.bucket && valid;
    }
    if (x.pooled) {  // past the pool's room, to the next frontier
      const std::uint32_t at = warp_multisplit_reserve(0, to_pool, 1, &x.out.pool_tail);
      if (to_pool && at < x.s.pool_room) {
        publish(x.s.pool + at, t);
        valid = false;
      }
    }
    append(x.s, x.c, x.out, valid, group, t);
  }
  __syncwarp();  // read before the lanes post over these slots
  x.box.size = 0;
}

/// Posts each wanting lane's t to list `group` (the next frontier when group
/// is the current bucket), through the outbox. Warp-converged.
template <class View>
__device__ inline void post(relax_context<View>& x, bool want, std::uint32_t group, vertex_t t) {
  const unsigned wanting = __ballot_sync(kAllLanes, want);
  if (wanting == 0) return;
  if (x.box.size + __popc(wanting) > kOutboxRoom) flush(x);
  if (want) {
    const std::uint32_t at = x.box.size + __popc(wanting & lanes_below());
    x.box.items[at] = t;
    x.box.groups[at] = static_cast<std::uint8_t>(group);
  }
  x.box.size += __popc(wanting);
}

/// Sends on a target t whose distance fell (if `fell`) from `old` to `nd`,
/// relaxed `depth` hops past the frontier: to the warp's queue or the next
/// frontier if it stays in the current bucket, to another list if it moved
/// to another bucket (see control.cuh). Warp-converged.
template <class View>
__device__ inline void route(relax_context<View>& x, bool fell, vertex_t t, gpu_distance nd, gpu_distance old,
                             std::uint32_t depth) {
  const control& c = x.c;
  // nd is at least the current bucket's start (it extends a path ending in
  // the bucket), so one comparison tells whether it stays there.
  const bool here = fell && nd < x.bucket_end;
  // Into the warp's queue while it has room; the rest to the next frontier,
  // once per round (its mask).
  bool keep = here && depth < c.relax_depth;
  const unsigned keepers = __ballot_sync(kAllLanes, keep);
  if (keepers != 0) {
    const std::uint32_t at = x.q.size + __popc(keepers & lanes_below());
    keep = keep && at < kLocalRoom;
    if (keep) {
      x.q.items[at] = t;
      x.q.depths[at] = static_cast<std::uint8_t>(depth + 1);
    }
    x.q.size = min(kLocalRoom, x.q.size + __popc(keepers));
  }
  std::uint32_t group = c.bucket;
  bool send = here && !keep;
  if (fell && !here) {
    group = group_of(nd, c.base, c.delta);
    send = old == kGpuUnreachable || group_of(old, c.base, c.delta) != group;
  }
  post(x, send, group, t);
}

/// dist[t] = min(dist[t], nd); the old distance.
template <class View>
__device__ inline gpu_distance lower(const View& s, vertex_t t, gpu_distance nd) {
  // nd is below the old distance where it matters, so it fits the array's width.
  using dist_type = std::remove_reference_t<decltype(*s.dist)>;
  return s.widen(atomicMin(&s.dist[t], static_cast<dist_type>(nd)));
}

/// Relaxes edge e (if `valid`) from a vertex at distance du, `depth` hops
/// past the frontier. Warp-converged.
template <class View>
__device__ inline void relax_step(relax_context<View>& x, bool valid, edge_t e, gpu_distance du, std::uint32_t depth) {
  const View& s = x.s;
  vertex_t t = 0;
  gpu_distance nd = 0, old = kGpuUnreachable;
  bool fell = false;
  if (valid) {
    t = s.graph.targets[e];
    nd = du + (s.graph.weights ? static_cast<gpu_distance>(s.graph.weights[e]) : 1ull);
    // A plain read first: distances only fall, so a stale value can cost an
    // extra atomic but never skips a needed one. Past the frontier the warp
    // is on a chain of dependent loads, one per hop: the atomic alone is a
    // step shorter.
    if (depth > 0 || nd < s.distance(t)) {
      old = lower(s, t, nd);
      fell = nd < old;
    }
  }
  route(x, fell, t, nd, old, depth);
}

/// Relaxes the out-edges of the lanes' vertices (degree 0 for none; degrees
/// below kHeavyDegree) as one gathered list: walked 32 edges at a time, each
/// lane finding its vertex by a 5-step search over the lanes' offsets, so
/// every step but the last uses all 32 lanes. Warp-converged.
template <class View>
__device__ inline void relax_gathered(relax_context<View>& x, gpu_distance du, edge_t begin, std::uint32_t degree,
                                      std::uint32_t depth) {
  std::uint32_t inclusive = degree;
  for (int o = 1; o < 32; o *= 2) {
    const std::uint32_t y = __shfl_up_sync(kAllLanes, inclusive, o);
    if (lane() >= static_cast<unsigned>(o)) inclusive += y;
  }
  const std::uint32_t total = __shfl_sync(kAllLanes, inclusive, 31);
  const std::uint32_t exclusive = inclusive - degree;
  for (std::uint32_t base = 0; base < total; base += 32) {
    const std::uint32_t k = base + lane();
    int owner = 0;  // the last lane whose list starts at or before k
    for (int step = 16; step > 0; step /= 2)
      if (__shfl_sync(kAllLanes, exclusive, owner + step) <= k) owner += step;
    const edge_t b = __shfl_sync(kAllLanes, begin, owner);
    const std::uint32_t start = __shfl_sync(kAllLanes, exclusive, owner);
    const gpu_distance dl = __shfl_sync(kAllLanes, du, owner);
    const std::uint32_t hops = __shfl_sync(kAllLanes, depth, owner);
    relax_step(x, k < total, b + (k - start), dl, hops);
  }
}

/// A vertex a lane relaxes, as loaded: degree 0 for none (or one to skip).
/// With rows, the lane's edge of the vertex's row came with it.
struct lane_vertex {
  vertex_t v = 0;
  gpu_distance du = 0;
  edge_t begin = 0;
  edge_t degree = 0;
  std::uint32_t depth = 0;
  uint2 slot = {};  ///< with rows: the lane's edge of v's row
};

/// Loads v's distance and edge range, and with rows the lane's edge of v's
/// row (slot `part`), all at once (a chain of hops waits on them); degree 0
/// if `skip`.
template <class View>
__device__ inline lane_vertex load_vertex(const View& s, vertex_t v, std::uint32_t depth, std::uint32_t part,
                                          bool skip) {
  lane_vertex x;
  x.v = v;
  x.depth = depth;
  x.du = s.distance(v);
  x.begin = s.graph.offsets[v];
  const edge_t end = s.graph.offsets[v + 1];
  if constexpr (View::kRows) x.slot = s.rows.slot(v, part);
  x.degree = skip ? 0 : end - x.begin;
  return x;
}

/// With rows: relaxes the lanes' row slots (lane part p of a vertex has
/// slot p), then the edges past the row from the CSR (gathered). Degrees
/// below kHeavyDegree. Warp-converged.
template <class View>
__device__ inline void relax_rows(relax_context<View>& x, const lane_vertex& v, std::uint32_t part) {
  const View& s = x.s;
  const vertex_t t = v.slot.x;
  const gpu_distance nd = v.du + v.slot.y;
  gpu_distance old = kGpuUnreachable;
  bool fell = false;
  // A plain read first at the frontier, as relax_step.
  if (part < v.degree && (v.depth > 0 || nd < s.distance(t))) {
    old = lower(s, t, nd);
    fell = nd < old;
  }
  route(x, fell, t, nd, old, v.depth);
  const bool tail = part == 0 && v.degree > kRowWidth;
  if (__any_sync(kAllLanes, tail))
    relax_gathered(x, v.du, v.begin + kRowWidth, tail ? static_cast<std::uint32_t>(v.degree - kRowWidth) : 0u, v.depth);
}

/// The lanes' vertices' edges (degrees below kHeavyDegree), by the layout
/// the kernel was built for. Warp-converged.
template <class View>
__device__ inline void relax_vertices(relax_context<View>& x, const lane_vertex& v, std::uint32_t part) {
  if constexpr (View::kRows) relax_rows(x, v, part);
  else relax_gathered(x, v.du, v.begin, static_cast<std::uint32_t>(v.degree), v.depth);
}

/// Lanes per vertex: one, or one per row slot with rows.
template <class View>
__device__ inline std::uint32_t lanes_per_vertex() {
  return View::kRows ? kRowWidth : 1;
}

/// Empties the warp's queue: up to 32 vertices at a time (8 with rows),
/// relaxed from their current distance, which may refill it (up to
/// relax_depth hops). A vertex already in the next frontier is left to it; a hub goes to the next frontier too, as only
/// the frontier phase queues hub chunks. Warp-converged; adds the edges it walks to `examined`.
template <class View>
__device__ inline void relax_queued(relax_context<View>& x, unsigned long long& examined) {
  const std::uint32_t per = lanes_per_vertex<View>();
  const std::uint32_t part = lane() % per;
  while (x.q.size > 0) {
    __syncwarp();  // the lanes' queue writes are visible to the whole warp
    const std::uint32_t take = min(32u / per, x.q.size);
    const std::uint32_t first = x.q.size - take;
    const std::uint32_t slot = lane() / per;
    lane_vertex v;
    if (slot < take) {
      const vertex_t item = x.q.items[first + slot];
      // The pending test does not gate the loads: each hop of the chain waits for them.
      v = load_vertex(x.s, item, x.q.depths[first + slot], part, x.pending(item));
    }
    __syncwarp();  // read before the walk below pushes over these slots
    x.q.size = first;
    const bool hub = v.degree >= kHeavyDegree;
    post(x, hub && part == 0, x.c.bucket, v.v);
    if (hub) v.degree = 0;
    if (part == 0) examined += v.degree;
    relax_vertices(x, v, part);
  }
}

/// A warp's hold on the pool (pool.cuh): up to kPoolTake lanes (or row
/// slots) hold tickets.
struct pool_hold {
  std::uint32_t ticket = kNoTicket;
  bool counted_idle = false;
  unsigned sleep = kPoolFirstSleepNs;
  std::uint32_t looks = 0;
};

/// Waits until the lanes' tickets bring vertices (u, kEmptySlot where none;
/// a row slot's lanes share theirs) and returns how many, or 0 once the
/// phase's work is done. The first call counts the warp idle. Warp-converged.
template <class View>
__device__ inline std::uint32_t take_from_pool(relax_context<View>& x, pool_hold& h, vertex_t& u) {
  const View& s = x.s;
  const std::uint32_t per = lanes_per_vertex<View>();
  const std::uint32_t part = lane() % per;
  const bool holder = part == 0 && lane() / per < min(kPoolTake, 32u / per);
  if (!h.counted_idle) {
    flush(x);
    __threadfence();  // its publishing before its idle count
    if (lane() == 0) atomicAdd(&x.out.pool_idle, 1u);
    h.counted_idle = true;
  }
  for (;;) {
    const bool need = holder && h.ticket == kNoTicket;
    const std::uint32_t at = warp_multisplit_reserve(0, need, 1, &x.out.pool_head);
    if (need) h.ticket = at;
    u = kEmptySlot;
    if (holder && h.ticket < s.pool_room) u = __ldcg(s.pool + h.ticket);
    if (u != kEmptySlot) {
      __stcg(s.pool + h.ticket, kEmptySlot);
      // Cleared before u's distance is read (the fence below): a fall from
      // then on publishes u again.
      x.next_mask.clear(u);
      h.ticket = kNoTicket;
    }
    u = __shfl_sync(kAllLanes, u, lane() - part);
    const unsigned taken = __ballot_sync(kAllLanes, u != kEmptySlot && part == 0);
    if (taken != 0) {
      h.sleep = kPoolFirstSleepNs;
      __threadfence();
      return static_cast<std::uint32_t>(__popc(taken));
    }
    bool finished = false;
    if (lane() == 0 && ++h.looks % kPoolLooksPerCheck == 0) finished = pool_finished(x.out, s.pool_room, warp_count());
    if (__shfl_sync(kAllLanes, finished, 0)) return 0;
    if (lane() == 0) __nanosleep(h.sleep);
    h.sleep = min(2 * h.sleep, kPoolSleepNs);
  }
}

/// Phase kRelaxFrontier: the frontier, a tile of vertices per warp at a
/// time, then with the pool, published vertices until none is left.
template <class View>
__device__ inline void relax_frontier(const View& s, const control& c, phase_counters& out) {
  relax_context<View> x(s, c, out, c.pool != 0);
  const bit_span_ref this_mask = s.masks[(c.round + 1) & 1];  // built this frontier; cleared for round + 1
  unsigned long long examined = 0;
  const std::uint32_t per = lanes_per_vertex<View>();
  const std::uint32_t part = lane() % per, slot = lane() / per;
  // A warp takes up to 32 / per vertices; fewer when the frontier is too
  // small to give every warp that many, since a warp walks its vertices'
  // edges one step after another (a round lasts as long as its longest walk).
  const std::uint32_t warps = warp_count();
  const std::uint32_t width = min(32u / per, max(1u, (c.frontier_size + warps - 1) / warps));
  std::uint32_t tile = warp_index() * width;
  pool_hold hold;
  for (;;) {
    lane_vertex v;
    std::uint32_t pooled = 0;  // vertices of this batch taken from the pool
    if (tile < c.frontier_size) {
      const std::uint32_t i = tile + slot;
      if (slot < width && i < c.frontier_size) {
        const vertex_t u = c.frontier[i];
        this_mask.clear_word_of(u);
        // A vertex that fell again this round is already in the next frontier
        // and will be relaxed from its lower distance then.
        v = load_vertex(s, u, 0, part, x.pending(u));
      }
      tile += warps * width;
    } else {
      vertex_t u;
      if (!x.pooled || (pooled = take_from_pool(x, hold, u)) == 0) break;
      if (u != kEmptySlot) {
        v = load_vertex(s, u, 0, part, false);
        v.du = s.widen(__ldcg(&s.dist[u]));  // see pool.cuh: the L1 may hold an older line
      }
    }
    if (part == 0) examined += v.degree;

    // Hubs: cut into chunks for the next phase, by their first lane.
    if (v.degree >= kHeavyDegree) {
      const auto chunks = static_cast<std::uint32_t>((v.degree + kChunkEdges - 1) / kChunkEdges);
      if (part == 0) {
        const std::uint32_t first = atomicAdd(&out.chunks, chunks);
        if (first + chunks > s.chunk_room) atomicOr(&out.overflow, 1u);
        for (std::uint32_t k = 0; k < chunks && first + k < s.chunk_room; ++k) {
          const edge_t offset = edge_t{k} * kChunkEdges;
          s.chunks[first + k] = {v.v, static_cast<std::uint32_t>(min(edge_t{kChunkEdges}, v.degree - offset)),
                                 v.begin + offset};
        }
      }
      v.degree = 0;
    }
    relax_vertices(x, v, part);
    relax_queued(x, examined);
    if (pooled > 0) {
      flush(x);
      __threadfence();  // its publishing before its done count
      if (lane() == 0) atomicAdd(&out.pool_done, pooled);
    }
  }
  flush(x);
  for (int o = 16; o > 0; o /= 2) examined += __shfl_down_sync(kAllLanes, examined, o);
  if (lane() == 0 && examined > 0) atomicAdd(&out.examined, examined);
}

/// Phase kRelaxChunks: warps take the queued hub chunks in turn.
template <class View>
__device__ inline void relax_chunks(const View& s, const control& c, phase_counters& out) {
  relax_context<View> x(s, c, out, false);
  unsigned long long examined = 0;
  for (std::uint32_t k = warp_index(); k < c.chunks; k += warp_count()) {
    const heavy_chunk chunk = s.chunks[k];
    const gpu_distance du = s.distance(chunk.vertex);
    for (std::uint32_t e = 0; e < chunk.count; e += 32)
      relax_step(x, e + lane() < chunk.count, chunk.begin + e + lane(), du, 0);
    relax_queued(x, examined);
  }
  flush(x);
  for (int o = 16; o > 0; o /= 2) examined += __shfl_down_sync(kAllLanes, examined, o);
  if (lane() == 0 && examined > 0) atomicAdd(&out.examined, examined);
}

}  // namespace graphkit::sssp::detail
