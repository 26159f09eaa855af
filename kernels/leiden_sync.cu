// The synchronous Leiden's steps on the device (leiden_sync.cuh). A judgement is one warp per node:
// the row's entries go into a hash table of (id, weight) (shared memory for rows up to 256
// entries, else the node's own slots of a global table), summed with integer atomics, so the sums
// are exact whatever the order; then each lane judges its slots and the warp keeps the arg max,
// ties to the smaller id (leiden_rules.hpp's sync_better): the host engine's choice, bit for bit.
#include <cub/cub.cuh>

#include "grid_size.cuh"
#include "leiden_sync.cuh"

namespace fc {
namespace kernels {

namespace {

constexpr int kThreads = 256;
constexpr int kWarpsPerBlock = 4;  // judging kernels: 128 threads, a shared table per warp
constexpr int kSharedSlots = 512;  // rows of up to 256 entries hash into shared memory
constexpr int32_t kEmpty = -1;

// Sums of the reduce by key (a functor of our own: cub::Sum is gone from newer CUB).
struct Add {
  __device__ __forceinline__ ull operator()(ull a, ull b) const { return a + b; }
};

unsigned grid_for(int64_t items) { return grid_size(items, kThreads); }
unsigned warp_grid(int64_t nodes) { return grid_size(nodes, kWarpsPerBlock); }

__device__ __forceinline__ int64_t as_signed(ull x) { return static_cast<int64_t>(x); }
__device__ __forceinline__ ull as_ull(int64_t x) { return static_cast<ull>(x); }

// A warp's hash table: `capacity` slots (a power of 2) of keys and values, empty keys kEmpty and
// values 0 on entry and on exit (clear()).
struct WarpTable {
  int32_t* keys;
  ull* values;
  int capacity, bits;
  __device__ __forceinline__ int slot_of(int32_t key) const {
    return int((uint32_t(key) * 0x9E3779B1u) >> (32 - bits));
  }
  __device__ __forceinline__ void add(int32_t key, ull w) {
    int s = slot_of(key);
    for (;;) {
      const int32_t k = atomicCAS(&keys[s], kEmpty, key);
      if (k == kEmpty || k == key) {
        atomicAdd(&values[s], w);
        return;
      }
      s = (s + 1) & (capacity - 1);
    }
  }
  // The value of key (0 when absent); after a __syncwarp that follows the adds.
  __device__ __forceinline__ ull find(int32_t key) const {
    int s = slot_of(key);
    for (;;) {
      const int32_t k = keys[s];
      if (k == key) return values[s];
      if (k == kEmpty) return 0;
      s = (s + 1) & (capacity - 1);
    }
  }
  __device__ __forceinline__ void clear(int lane) {
    for (int s = lane; s < capacity; s += 32) {
      keys[s] = kEmpty;
      values[s] = 0;
    }
  }
};

// A warp's shared table made empty (WarpTable::clear keeps it so after each node).
__device__ __forceinline__ void clear_shared_table(int32_t* keys, ull* values, int lane) {
  for (int x = lane; x < kSharedSlots; x += 32) {
    keys[x] = kEmpty;
    values[x] = 0;
  }
  __syncwarp();
}

// The table of node v (degree d > 0): the warp's shared one, or v's slots of the global table.
__device__ __forceinline__ WarpTable table_for(int64_t d, int64_t first_entry, int32_t* shared_keys, ull* shared_values,
                                               const SyncState& s) {
  int bits = 5;
  while ((int64_t(1) << bits) < 2 * d) ++bits;
  WarpTable t;
  t.capacity = 1 << bits;
  t.bits = bits;
  if (t.capacity <= kSharedSlots) {
    t.keys = shared_keys;
    t.values = shared_values;
  } else {  // 2 d <= capacity < 4 d: inside the row's 4 d slots
    t.keys = s.table_keys + 4 * first_entry;
    t.values = s.table_values + 4 * first_entry;
  }
  return t;
}

// The warp's best (gain, id) after each lane's own: the larger gain, ties to the smaller id.
__device__ __forceinline__ void warp_best(double& gain, int32_t& id) {
  for (int o = 16; o > 0; o >>= 1) {
    const double g = __shfl_xor_sync(0xffffffffu, gain, o);
    const int32_t c = __shfl_xor_sync(0xffffffffu, id, o);
    if (c >= 0 && sync_better(g, c, gain, id)) {
      gain = g;
      id = c;
    }
  }
}

__device__ __forceinline__ ull warp_sum(ull x) {
  for (int o = 16; o > 0; o >>= 1) x += __shfl_xor_sync(0xffffffffu, x, o);
  return x;
}

// Layered: node v's null term against rows `to` and `from` (leiden_rules.hpp's layered_null).
__device__ __forceinline__ double node_null(const SyncLevel& g, int64_t v, const ull* to, const ull* from, bool self) {
  return layered_null(g.gp, g.llayer, g.lweight, g.lstart[v], g.lstart[v + 1], to, from, self);
}

// ---- level 0

__global__ void level0_count_kernel(const int64_t* __restrict__ offsets, const int32_t* __restrict__ columns,
                                    const float* __restrict__ weights, int64_t n, double scale, bool cpm,
                                    int64_t* __restrict__ kept, ull* __restrict__ kp, ull* __restrict__ kn) {
  const int lane = threadIdx.x & 31;
  const int64_t warps = int64_t(gridDim.x) * (blockDim.x / 32);
  for (int64_t i = (blockIdx.x * int64_t(blockDim.x) + threadIdx.x) / 32; i < n; i += warps) {
    ull c = 0, p = 0, q = 0;
    for (int64_t e = offsets[i] + lane; e < offsets[i + 1]; e += 32) {
      const float w = weights[e];
      c += w != 0 && columns[e] != i;
      if (w > 0) p += as_ull(sync_fixed(w, 1.0, scale));
      if (w < 0) q += as_ull(sync_fixed(-w, 1.0, scale));
    }
    c = warp_sum(c);
    p = warp_sum(p);
    q = warp_sum(q);
    if (lane == 0) {
      kept[i] = int64_t(c);
      kp[i] = cpm ? 1ull : p;
      kn[i] = cpm ? 0ull : q;
      if (i == n - 1) kept[n] = 0;
    }
  }
}

__global__ void level0_fill_kernel(const int64_t* __restrict__ offsets, const int32_t* __restrict__ columns,
                                   const float* __restrict__ weights, int64_t n, double c_pos, double c_neg, double scale,
                                   bool cpm, const int64_t* __restrict__ new_offsets, int32_t* __restrict__ new_columns,
                                   ull* __restrict__ new_weights) {
  const int lane = threadIdx.x & 31;
  const int64_t warps = int64_t(gridDim.x) * (blockDim.x / 32);
  for (int64_t i = (blockIdx.x * int64_t(blockDim.x) + threadIdx.x) / 32; i < n; i += warps) {
    int64_t x = new_offsets[i];
    for (int64_t base = offsets[i]; base < offsets[i + 1]; base += 32) {
      const int64_t e = base + lane;
      bool keep = false;
      float w = 0;
      int64_t c = 0;
      if (e < offsets[i + 1]) {
        w = weights[e];
        c = columns[e];
        keep = w != 0 && c != i;
      }
      const unsigned ballot = __ballot_sync(0xffffffffu, keep);
      if (keep) {
        const int64_t at = x + __popc(ballot & ((1u << lane) - 1));
        new_columns[at] = int32_t(c);
        new_weights[at] = as_ull(sync_fixed(w, cpm ? 1.0 : (w > 0 ? c_pos : c_neg), scale));
      }
      x += __popc(ballot);
    }
  }
}

// ---- moves

__global__ void begin_moves_kernel(SyncLevel g, SyncState s, int32_t max_node_moves) {
  for (int64_t v = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; v < g.n; v += int64_t(gridDim.x) * blockDim.x) {
    const int32_t c = s.label[v];
    if (g.layers > 0) {
      for (int64_t x = g.lstart[v]; x < g.lstart[v + 1]; ++x) atomicAdd(&s.sum_p[c * g.layers + g.llayer[x]], g.lweight[x]);
    } else {
      atomicAdd(&s.sum_p[c], g.kp[v]);
      atomicAdd(&s.sum_n[c], g.kn[v]);
    }
    atomicAdd(&s.size[c], 1);
    s.active[v] = g.offsets[v + 1] > g.offsets[v];
    s.moves_left[v] = max_node_moves > 0 ? max_node_moves : 1;
  }
}

__global__ void __launch_bounds__(kWarpsPerBlock * 32) move_judge_kernel(SyncLevel g, SyncState s, SyncTerms t,
                                                                         uint64_t salt, int64_t round) {
  __shared__ int32_t shared_keys[kWarpsPerBlock][kSharedSlots];
  __shared__ ull shared_values[kWarpsPerBlock][kSharedSlots];
  const int warp = threadIdx.x / 32, lane = threadIdx.x & 31;
  clear_shared_table(shared_keys[warp], shared_values[warp], lane);
  const int64_t warps = int64_t(gridDim.x) * kWarpsPerBlock;
  for (int64_t v = blockIdx.x * int64_t(kWarpsPerBlock) + warp; v < g.n; v += warps) {
    int32_t decision = -1;
    if (s.active[v] && s.moves_left[v] > 0 && sync_judged(salt, v, round)) {
      const int64_t begin = g.offsets[v], end = g.offsets[v + 1];
      WarpTable table = table_for(end - begin, begin, shared_keys[warp], shared_values[warp], s);
      for (int64_t e = begin + lane; e < end; e += 32) table.add(s.label[g.columns[e]], g.weights[e]);
      __syncwarp();
      const int32_t a = s.label[v];
      const bool layered = g.layers > 0;
      const int64_t kp = layered ? 0 : as_signed(g.kp[v]), kn = layered ? 0 : as_signed(g.kn[v]);
      const int64_t ka_p = layered ? 0 : as_signed(s.sum_p[a]), ka_n = layered ? 0 : as_signed(s.sum_n[a]);
      const int64_t w_va = as_signed(table.find(a));
      const bool alone = s.size[a] == 1;
      // The gain of moving to c (an empty community too: its sums are zeros) with weight w_vc.
      auto gain_to = [&](int32_t c, int64_t w_vc) {
        if (layered) return leiden_sub(double(w_vc - w_va), node_null(g, v, s.sum_p + c * g.layers, s.sum_p + a * g.layers, true));
        return sync_gain(t, w_vc - w_va, kp, as_signed(s.sum_p[c]) - ka_p + kp, kn, as_signed(s.sum_n[c]) - ka_n + kn);
      };
      double best_gain = 0;
      int32_t best = -1;
      for (int x = lane; x < table.capacity; x += 32) {
        const int32_t c = table.keys[x];
        if (c == kEmpty || c == a || (alone && s.size[c] == 1 && c > a)) continue;
        const double gain = gain_to(c, as_signed(table.values[x]));
        if (sync_better(gain, c, best_gain, best)) {
          best_gain = gain;
          best = c;
        }
      }
      if (lane == 0 && !alone) {  // alone into an empty community: id v, else n + v
        const int32_t e = s.size[v] == 0 ? int32_t(v) : s.size[g.n + v] == 0 ? int32_t(g.n + v) : -1;
        if (e >= 0) {
          const double gain = gain_to(e, 0);
          if (sync_better(gain, e, best_gain, best)) {
            best_gain = gain;
            best = e;
          }
        }
      }
      warp_best(best_gain, best);
      if (best >= 0 && best_gain > t.epsilon) decision = best;
      __syncwarp();
      table.clear(lane);
      __syncwarp();
    }
    if (lane == 0) s.target[v] = decision;
  }
}

// Moves made, and the nodes around them touched.
__global__ void __launch_bounds__(kWarpsPerBlock * 32) move_apply_kernel(SyncLevel g, SyncState s, SyncTerms t) {
  const int warp = threadIdx.x / 32, lane = threadIdx.x & 31;
  const int64_t warps = int64_t(gridDim.x) * kWarpsPerBlock;
  for (int64_t v = blockIdx.x * int64_t(kWarpsPerBlock) + warp; v < g.n; v += warps) {
    const int32_t c = s.target[v];
    if (c < 0) continue;
    const int32_t a = s.label[v];
    __syncwarp();  // every lane has read a before lane 0 relabels v
    if (g.layers > 0)
      for (int64_t x = g.lstart[v] + lane; x < g.lstart[v + 1]; x += 32) {
        const int64_t l = g.llayer[x];
        atomicAdd(&s.sum_p[a * g.layers + l], 0ull - g.lweight[x]);
        atomicAdd(&s.sum_p[c * g.layers + l], g.lweight[x]);
      }
    if (lane == 0) {
      if (g.layers == 0) {
        atomicAdd(&s.sum_p[a], 0ull - g.kp[v]);
        atomicAdd(&s.sum_n[a], 0ull - g.kn[v]);
        atomicAdd(&s.sum_p[c], g.kp[v]);
        atomicAdd(&s.sum_n[c], g.kn[v]);
      }
      atomicSub(&s.size[a], 1);
      atomicAdd(&s.size[c], 1);
      s.label[v] = c;
      if (t.max_node_moves > 0) --s.moves_left[v];
      atomicAdd(&s.counters[0], 1ull);
    }
    for (int64_t e = g.offsets[v] + lane; e < g.offsets[v + 1]; e += 32) s.touched[g.columns[e]] = 1;
  }
}

__global__ void move_finish_kernel(SyncLevel g, SyncState s, uint64_t salt, int64_t round) {
  typedef cub::BlockReduce<ull, kThreads> Reduce;
  __shared__ typename Reduce::TempStorage storage;
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  ull active = 0;
  for (int64_t base = blockIdx.x * int64_t(blockDim.x); base < g.n; base += stride) {
    const int64_t v = base + threadIdx.x;
    if (v < g.n) {
      const bool a = ((s.active[v] && !sync_judged(salt, v, round)) || s.touched[v]) && s.moves_left[v] > 0;
      s.active[v] = a;
      s.touched[v] = 0;
      active += a;
    }
  }
  const ull total = Reduce(storage).Sum(active);
  if (threadIdx.x == 0 && total > 0) atomicAdd(&s.counters[1], total);
}

__global__ void count_distinct_kernel(const int32_t* __restrict__ ids, int64_t n, uint8_t* used, ull* counter) {
  for (int64_t v = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; v < n; v += int64_t(gridDim.x) * blockDim.x) {
    const int32_t c = ids[v];
    if (used[c] == 0) {
      // a byte CAS through its aligned word
      unsigned* word = reinterpret_cast<unsigned*>(used + (c & ~3));
      const unsigned bit = 1u << (8 * (c & 3));
      const unsigned old = atomicOr(word, bit);
      if ((old & bit) == 0) atomicAdd(counter, 1ull);
    }
  }
}

// ---- refinement

__global__ void __launch_bounds__(kWarpsPerBlock * 32) begin_refine_kernel(SyncLevel g, SyncState s) {
  const int warp = threadIdx.x / 32, lane = threadIdx.x & 31;
  const int64_t warps = int64_t(gridDim.x) * kWarpsPerBlock;
  for (int64_t v = blockIdx.x * int64_t(kWarpsPerBlock) + warp; v < g.n; v += warps) {
    const int32_t c = s.label[v];
    ull w = 0;
    for (int64_t e = g.offsets[v] + lane; e < g.offsets[v + 1]; e += 32)
      if (s.label[g.columns[e]] == c) w += g.weights[e];
    w = warp_sum(w);
    if (g.layers > 0)  // the row of v, zeroed before the kernel
      for (int64_t x = g.lstart[v] + lane; x < g.lstart[v + 1]; x += 32) s.sub_p[v * g.layers + g.llayer[x]] = g.lweight[x];
    if (lane == 0) {
      s.ext[v] = w;
      s.refined[v] = int32_t(v);
      if (g.layers > 0) {
        s.own[v] = node_null(g, v, nullptr, s.sum_p + c * g.layers, true);
      } else {
        s.sub_p[v] = g.kp[v];
        s.sub_n[v] = g.kn[v];
      }
      s.sub_size[v] = 1;
    }
  }
}

__global__ void __launch_bounds__(kWarpsPerBlock * 32) refine_judge_kernel(SyncLevel g, SyncState s, SyncTerms t,
                                                                           uint64_t salt, int64_t round) {
  __shared__ int32_t shared_keys[kWarpsPerBlock][kSharedSlots];
  __shared__ ull shared_values[kWarpsPerBlock][kSharedSlots];
  const int warp = threadIdx.x / 32, lane = threadIdx.x & 31;
  clear_shared_table(shared_keys[warp], shared_values[warp], lane);
  const int64_t warps = int64_t(gridDim.x) * kWarpsPerBlock;
  for (int64_t v = blockIdx.x * int64_t(kWarpsPerBlock) + warp; v < g.n; v += warps) {
    int32_t decision = -1;
    ull decision_weight = 0;
    const int64_t begin = g.offsets[v], end = g.offsets[v + 1];
    const int32_t S = s.label[v];
    const bool layered = g.layers > 0;
    const int64_t kp = layered ? 0 : as_signed(g.kp[v]), kn = layered ? 0 : as_signed(g.kn[v]);
    const int64_t sp = layered ? 0 : as_signed(s.sum_p[S]), sn = layered ? 0 : as_signed(s.sum_n[S]);
    // Subcommunity r (v's own while alone) well connected to S.
    auto well_connected = [&](int32_t r) {
      if (layered) return layered_well_connected(as_signed(s.ext[r]), s.own[r]);
      return sync_well_connected(t, as_signed(s.ext[r]), as_signed(s.sub_p[r]), as_signed(s.sub_n[r]), sp, sn);
    };
    if (s.refined[v] == v && s.sub_size[v] == 1 && end > begin && sync_judged(salt, v, round) && well_connected(int32_t(v))) {
      WarpTable table = table_for(end - begin, begin, shared_keys[warp], shared_values[warp], s);
      for (int64_t e = begin + lane; e < end; e += 32) {
        const int32_t u = g.columns[e];
        if (s.label[u] == S) table.add(s.refined[u], g.weights[e]);
      }
      __syncwarp();
      double best_gain = 0;
      int32_t best = -1;
      ull best_weight = 0;
      for (int x = lane; x < table.capacity; x += 32) {
        const int32_t r = table.keys[x];
        if (r == kEmpty || r == v || (s.sub_size[r] == 1 && sync_judged(salt, r, round)) || !well_connected(r)) continue;
        const double gain = layered ? leiden_sub(double(as_signed(table.values[x])), node_null(g, v, s.sub_p + r * g.layers, nullptr, false))
                                    : sync_gain(t, as_signed(table.values[x]), kp, as_signed(s.sub_p[r]), kn, as_signed(s.sub_n[r]));
        if (gain >= 0 && sync_better(gain, r, best_gain, best)) {
          best_gain = gain;
          best = r;
          best_weight = table.values[x];
        }
      }
      const int32_t mine = best;
      warp_best(best_gain, best);
      // The weight to the winner, from the lane that judged it.
      const unsigned owner = __ballot_sync(0xffffffffu, mine == best && best >= 0);
      if (owner != 0) decision_weight = __shfl_sync(0xffffffffu, best_weight, __ffs(owner) - 1);
      decision = best;
      __syncwarp();
      table.clear(lane);
      __syncwarp();
    }
    if (lane == 0) {
      s.target[v] = decision;
      s.target_weight[v] = decision_weight;
    }
  }
}

__global__ void refine_apply_kernel(SyncLevel g, SyncState s) {
  for (int64_t v = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; v < g.n; v += int64_t(gridDim.x) * blockDim.x) {
    const int32_t r = s.target[v];
    if (r < 0) continue;
    s.refined[v] = r;
    if (g.layers > 0) {
      for (int64_t x = g.lstart[v]; x < g.lstart[v + 1]; ++x) atomicAdd(&s.sub_p[r * g.layers + g.llayer[x]], g.lweight[x]);
      s.touched[r] = 1;  // r grew: own_kernel recomputes its own term
    } else {
      atomicAdd(&s.sub_p[r], g.kp[v]);
      atomicAdd(&s.sub_n[r], g.kn[v]);
    }
    atomicAdd(&s.sub_size[r], 1);
    s.sub_size[v] = 0;
    atomicAdd(&s.ext[r], s.ext[v] - 2 * s.target_weight[v]);
    atomicAdd(&s.counters[0], 1ull);
  }
}

// Two nodes that joined one subcommunity in the same round: their edge, counted in its ext from
// both ends, is inside it now.
__global__ void __launch_bounds__(kWarpsPerBlock * 32) refine_fix_kernel(SyncLevel g, SyncState s) {
  const int warp = threadIdx.x / 32, lane = threadIdx.x & 31;
  const int64_t warps = int64_t(gridDim.x) * kWarpsPerBlock;
  for (int64_t v = blockIdx.x * int64_t(kWarpsPerBlock) + warp; v < g.n; v += warps) {
    if (s.target[v] < 0) continue;
    const int32_t r = s.refined[v];
    ull w = 0;
    for (int64_t e = g.offsets[v] + lane; e < g.offsets[v + 1]; e += 32) {
      const int32_t x = g.columns[e];
      if (s.target[x] >= 0 && s.refined[x] == r) w += g.weights[e];
    }
    w = warp_sum(w);
    if (lane == 0 && w != 0) atomicAdd(&s.ext[r], 0ull - w);
  }
}

// Layered: the own terms of the subcommunities that grew in the round (their flags cleared).
__global__ void own_kernel(SyncLevel g, SyncState s) {
  for (int64_t r = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; r < g.n; r += int64_t(gridDim.x) * blockDim.x) {
    if (!s.touched[r]) continue;
    s.touched[r] = 0;
    s.own[r] = layered_own(g.gp, s.sub_p + r * g.layers, s.sum_p + int64_t(s.label[r]) * g.layers, g.layers);
  }
}

__global__ void count_founders_kernel(const int32_t* __restrict__ refined, int64_t n, ull* counter) {
  typedef cub::BlockReduce<ull, kThreads> Reduce;
  __shared__ typename Reduce::TempStorage storage;
  ull k = 0;
  for (int64_t base = blockIdx.x * int64_t(blockDim.x); base < n; base += int64_t(gridDim.x) * blockDim.x) {
    const int64_t v = base + threadIdx.x;
    if (v < n) k += refined[v] == v;
  }
  const ull total = Reduce(storage).Sum(k);
  if (threadIdx.x == 0 && total > 0) atomicAdd(counter, total);
}

// ---- aggregation

__global__ void founder_flags_kernel(const int32_t* __restrict__ refined, int64_t n, int32_t* flags) {
  for (int64_t v = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; v <= n; v += int64_t(gridDim.x) * blockDim.x)
    flags[v] = v < n && refined[v] == v;
}

__global__ void used_flags_kernel(const int32_t* __restrict__ label, int64_t n, int32_t* flags) {
  for (int64_t v = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; v < n; v += int64_t(gridDim.x) * blockDim.x)
    flags[label[v]] = 1;
}

__global__ void new_nodes_kernel(SyncLevel g, SyncState s, const int32_t* __restrict__ id,
                                 const int32_t* __restrict__ community_id, int32_t* map, ull* kp, ull* kn,
                                 int32_t* new_label) {
  for (int64_t v = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; v < g.n; v += int64_t(gridDim.x) * blockDim.x) {
    const int32_t r = s.refined[v];
    const int32_t i = id[r];
    map[v] = i;
    if (g.layers == 0) {
      atomicAdd(&kp[i], g.kp[v]);
      atomicAdd(&kn[i], g.kn[v]);
    }
    if (r == v) new_label[i] = community_id[s.label[v]];
  }
}

__global__ void map_level0_kernel(int32_t* level_of, int64_t n0, const int32_t* __restrict__ map) {
  for (int64_t v = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; v < n0; v += int64_t(gridDim.x) * blockDim.x)
    level_of[v] = map[level_of[v]];
}

__global__ void __launch_bounds__(kWarpsPerBlock * 32) pairs_kernel(SyncLevel g, const int32_t* __restrict__ map,
                                                                    uint64_t* keys, ull* values, ull* count) {
  const int warp = threadIdx.x / 32, lane = threadIdx.x & 31;
  const int64_t warps = int64_t(gridDim.x) * kWarpsPerBlock;
  for (int64_t v = blockIdx.x * int64_t(kWarpsPerBlock) + warp; v < g.n; v += warps) {
    const int32_t i = map[v];
    for (int64_t base = g.offsets[v]; base < g.offsets[v + 1]; base += 32) {
      const int64_t e = base + lane;
      int32_t j = i;
      if (e < g.offsets[v + 1]) j = map[g.columns[e]];
      const bool keep = j != i;
      const unsigned ballot = __ballot_sync(0xffffffffu, keep);
      if (ballot == 0) continue;
      ull at = 0;
      if (lane == 0) at = atomicAdd(count, ull(__popc(ballot)));
      at = __shfl_sync(0xffffffffu, at, 0);
      if (keep) {
        const ull x = at + __popc(ballot & ((1u << lane) - 1));
        keys[x] = (uint64_t(uint32_t(i)) << 32) | uint32_t(j);
        values[x] = g.weights[e];
      }
    }
  }
}

__global__ void rows_kernel(const uint64_t* __restrict__ unique_keys, const ull* __restrict__ sums, int64_t entries,
                            int64_t* counts, int32_t* columns, ull* weights) {
  for (int64_t x = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; x < entries; x += int64_t(gridDim.x) * blockDim.x) {
    const uint64_t key = unique_keys[x];
    atomicAdd(reinterpret_cast<ull*>(&counts[key >> 32]), 1ull);
    columns[x] = int32_t(uint32_t(key));
    weights[x] = sums[x];
  }
}

// Layered: the entries of each founder's row that are not zero, counted, then placed.
__global__ void list_counts_kernel(SyncLevel g, SyncState s, const int32_t* __restrict__ id, int64_t* counts) {
  for (int64_t r = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; r < g.n; r += int64_t(gridDim.x) * blockDim.x) {
    if (s.refined[r] != r) continue;
    int64_t c = 0;
    for (int64_t l = 0; l < g.layers; ++l) c += s.sub_p[r * g.layers + l] != 0;
    counts[id[r]] = c;
  }
}

__global__ void list_fill_kernel(SyncLevel g, SyncState s, const int32_t* __restrict__ id, const int64_t* __restrict__ start,
                                 int32_t* layer, ull* weight) {
  for (int64_t r = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; r < g.n; r += int64_t(gridDim.x) * blockDim.x) {
    if (s.refined[r] != r) continue;
    int64_t x = start[id[r]];
    for (int64_t l = 0; l < g.layers; ++l) {
      const ull w = s.sub_p[r * g.layers + l];
      if (w == 0) continue;
      layer[x] = int32_t(l);
      weight[x] = w;
      ++x;
    }
  }
}

__global__ void gather_labels_kernel(const int32_t* __restrict__ label, const int32_t* __restrict__ level_of, int64_t n0,
                                     int32_t* out) {
  for (int64_t v = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; v < n0; v += int64_t(gridDim.x) * blockDim.x)
    out[v] = label[level_of[v]];
}

// ---- final checks

__global__ void rows_inside_kernel(const int64_t* __restrict__ offsets, const int32_t* __restrict__ columns,
                                   const float* __restrict__ weights, int64_t n, const int32_t* __restrict__ labels,
                                   double* row_pos, double* row_neg) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    const int32_t c = labels[i];
    double wp = 0, wn = 0;
    for (int64_t e = offsets[i]; e < offsets[i + 1]; ++e) {
      if (labels[columns[e]] != c) continue;
      const float w = weights[e];
      if (w > 0) wp = __dadd_rn(wp, double(w));
      else wn = __dsub_rn(wn, double(w));
    }
    row_pos[i] = wp;
    row_neg[i] = wn;
  }
}

__global__ void components_start_kernel(int32_t* comp, int64_t n) {
  for (int64_t v = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; v < n; v += int64_t(gridDim.x) * blockDim.x)
    comp[v] = int32_t(v);
}

// Each node takes the smallest comp of its own and its neighbours' in its community, and hooks its
// old comp's node to it too (so a piece's smallest id spreads faster than one hop a round).
__global__ void __launch_bounds__(kWarpsPerBlock * 32) components_round_kernel(SyncLevel g, const int32_t* __restrict__ labels,
                                                                               int32_t* comp, ull* changed) {
  const int warp = threadIdx.x / 32, lane = threadIdx.x & 31;
  const int64_t warps = int64_t(gridDim.x) * kWarpsPerBlock;
  for (int64_t v = blockIdx.x * int64_t(kWarpsPerBlock) + warp; v < g.n; v += warps) {
    const int32_t c = labels[v];
    const int32_t own = comp[v];
    int32_t m = own;
    for (int64_t e = g.offsets[v] + lane; e < g.offsets[v + 1]; e += 32) {
      const int32_t u = g.columns[e];
      if (labels[u] == c) m = min(m, comp[u]);
    }
    for (int o = 16; o > 0; o >>= 1) m = min(m, __shfl_xor_sync(0xffffffffu, m, o));
    if (lane == 0 && m < own) {
      atomicMin(&comp[v], m);
      atomicMin(&comp[own], m);
      atomicAdd(changed, 1ull);
    }
  }
}

// Pointer jumping after the hooks: comp[v] takes comp[comp[v]] (a node of the same piece, no
// larger), so a piece's smallest id reaches a chain of n nodes (a community spanning the layers of
// an ordinal supra-graph) in about log n rounds instead of n. atomicMin: a hook's smaller value
// written meanwhile is kept.
__global__ void components_jump_kernel(int32_t* comp, int64_t n) {
  for (int64_t v = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; v < n; v += int64_t(gridDim.x) * blockDim.x) {
    const int32_t c = comp[v];
    const int32_t cc = comp[c];
    if (cc < c) atomicMin(&comp[v], cc);
  }
}

}  // namespace

cudaError_t sync_rows_inside(const int64_t* offsets, const int32_t* columns, const float* weights, int64_t n,
                             const int32_t* labels, double* row_pos, double* row_neg, cudaStream_t stream) {
  rows_inside_kernel<<<grid_size(n, 128), 128, 0, stream>>>(offsets, columns, weights, n, labels, row_pos, row_neg);
  return cudaGetLastError();
}

cudaError_t sync_components_start(int32_t* comp, int64_t n, cudaStream_t stream) {
  components_start_kernel<<<grid_for(n), kThreads, 0, stream>>>(comp, n);
  return cudaGetLastError();
}

cudaError_t sync_components_round(const SyncLevel& g, const int32_t* labels, int32_t* comp, ull* changed,
                                  cudaStream_t stream) {
  components_round_kernel<<<warp_grid(g.n), kWarpsPerBlock * 32, 0, stream>>>(g, labels, comp, changed);
  for (int j = 0; j < 2; ++j) components_jump_kernel<<<grid_for(g.n), kThreads, 0, stream>>>(comp, g.n);
  return cudaGetLastError();
}

cudaError_t sync_level0_count(const int64_t* offsets, const int32_t* columns, const float* weights, int64_t n, double scale,
                              bool cpm, int64_t* kept, ull* kp, ull* kn, cudaStream_t stream) {
  if (n > 0) level0_count_kernel<<<grid_size(n, kThreads / 32), kThreads, 0, stream>>>(offsets, columns, weights, n, scale, cpm, kept, kp, kn);
  else cudaMemsetAsync(kept, 0, sizeof(int64_t), stream);
  return cudaGetLastError();
}

cudaError_t sync_level0_fill(const int64_t* offsets, const int32_t* columns, const float* weights, int64_t n, double c_pos,
                             double c_neg, double scale, bool cpm, const int64_t* new_offsets, int32_t* new_columns,
                             ull* new_weights, cudaStream_t stream) {
  if (n > 0)
    level0_fill_kernel<<<grid_size(n, kThreads / 32), kThreads, 0, stream>>>(offsets, columns, weights, n, c_pos, c_neg, scale, cpm,
                                                                            new_offsets, new_columns, new_weights);
  return cudaGetLastError();
}

size_t sync_scan_bytes(int64_t n) {
  size_t bytes = 0;
  cub::DeviceScan::ExclusiveSum(nullptr, bytes, static_cast<const int64_t*>(nullptr), static_cast<int64_t*>(nullptr),
                                static_cast<int>(n + 1));
  return bytes;
}

cudaError_t sync_scan(const int64_t* in, int64_t* out, int64_t n, void* scratch, size_t scratch_bytes, cudaStream_t stream) {
  return cub::DeviceScan::ExclusiveSum(scratch, scratch_bytes, in, out, static_cast<int>(n + 1), stream);
}

size_t sync_scan32_bytes(int64_t n) {
  size_t bytes = 0;
  cub::DeviceScan::ExclusiveSum(nullptr, bytes, static_cast<const int32_t*>(nullptr), static_cast<int32_t*>(nullptr),
                                static_cast<int>(n + 1));
  return bytes;
}

cudaError_t sync_scan32(const int32_t* in, int32_t* out, int64_t n, void* scratch, size_t scratch_bytes, cudaStream_t stream) {
  return cub::DeviceScan::ExclusiveSum(scratch, scratch_bytes, in, out, static_cast<int>(n + 1), stream);
}

cudaError_t sync_begin_moves(const SyncLevel& g, const SyncState& s, int32_t max_node_moves, cudaStream_t stream) {
  cudaError_t status = cudaMemsetAsync(s.sum_p, 0, sizeof(ull) * 2 * g.n * (g.layers > 0 ? g.layers : 1), stream);
  if (status == cudaSuccess) status = cudaMemsetAsync(s.sum_n, 0, sizeof(ull) * 2 * g.n, stream);
  if (status == cudaSuccess) status = cudaMemsetAsync(s.size, 0, sizeof(int32_t) * 2 * g.n, stream);
  if (status == cudaSuccess) status = cudaMemsetAsync(s.touched, 0, g.n, stream);
  if (status != cudaSuccess) return status;
  begin_moves_kernel<<<grid_for(g.n), kThreads, 0, stream>>>(g, s, max_node_moves);
  return cudaGetLastError();
}

cudaError_t sync_move_round(const SyncLevel& g, const SyncState& s, const SyncTerms& t, uint64_t salt, int64_t round,
                            cudaStream_t stream) {
  move_judge_kernel<<<warp_grid(g.n), kWarpsPerBlock * 32, 0, stream>>>(g, s, t, salt, round);
  move_apply_kernel<<<warp_grid(g.n), kWarpsPerBlock * 32, 0, stream>>>(g, s, t);
  move_finish_kernel<<<grid_for(g.n), kThreads, 0, stream>>>(g, s, salt, round);
  return cudaGetLastError();
}

cudaError_t sync_count_distinct(const int32_t* ids, int64_t n, uint8_t* used, int64_t range, ull* counter,
                                cudaStream_t stream) {
  const cudaError_t status = cudaMemsetAsync(used, 0, size_t((range + 3) & ~int64_t(3)), stream);
  if (status != cudaSuccess) return status;
  count_distinct_kernel<<<grid_for(n), kThreads, 0, stream>>>(ids, n, used, counter);
  return cudaGetLastError();
}

cudaError_t sync_begin_refine(const SyncLevel& g, const SyncState& s, cudaStream_t stream) {
  if (g.layers > 0) {
    cudaError_t status = cudaMemsetAsync(s.sub_p, 0, sizeof(ull) * g.n * g.layers, stream);
    if (status == cudaSuccess) status = cudaMemsetAsync(s.touched, 0, g.n, stream);
    if (status != cudaSuccess) return status;
  }
  begin_refine_kernel<<<warp_grid(g.n), kWarpsPerBlock * 32, 0, stream>>>(g, s);
  return cudaGetLastError();
}

cudaError_t sync_refine_round(const SyncLevel& g, const SyncState& s, const SyncTerms& t, uint64_t salt, int64_t round,
                              cudaStream_t stream) {
  refine_judge_kernel<<<warp_grid(g.n), kWarpsPerBlock * 32, 0, stream>>>(g, s, t, salt, round);
  refine_apply_kernel<<<grid_for(g.n), kThreads, 0, stream>>>(g, s);
  refine_fix_kernel<<<warp_grid(g.n), kWarpsPerBlock * 32, 0, stream>>>(g, s);
  if (g.layers > 0) own_kernel<<<grid_for(g.n), kThreads, 0, stream>>>(g, s);
  return cudaGetLastError();
}

cudaError_t sync_count_founders(const int32_t* refined, int64_t n, ull* counter, cudaStream_t stream) {
  count_founders_kernel<<<grid_for(n), kThreads, 0, stream>>>(refined, n, counter);
  return cudaGetLastError();
}

cudaError_t sync_founder_flags(const int32_t* refined, int64_t n, int32_t* flags, cudaStream_t stream) {
  founder_flags_kernel<<<grid_for(n + 1), kThreads, 0, stream>>>(refined, n, flags);
  return cudaGetLastError();
}

cudaError_t sync_used_flags(const int32_t* label, int64_t n, int32_t* flags, int64_t range, cudaStream_t stream) {
  const cudaError_t status = cudaMemsetAsync(flags, 0, sizeof(int32_t) * size_t(range + 1), stream);
  if (status != cudaSuccess) return status;
  used_flags_kernel<<<grid_for(n), kThreads, 0, stream>>>(label, n, flags);
  return cudaGetLastError();
}

cudaError_t sync_new_nodes(const SyncLevel& g, const SyncState& s, const int32_t* id, const int32_t* community_id,
                           int32_t* map, int64_t k, ull* kp, ull* kn, int32_t* new_label, cudaStream_t stream) {
  cudaError_t status = cudaMemsetAsync(kp, 0, sizeof(ull) * size_t(k), stream);
  if (status == cudaSuccess) status = cudaMemsetAsync(kn, 0, sizeof(ull) * size_t(k), stream);
  if (status != cudaSuccess) return status;
  new_nodes_kernel<<<grid_for(g.n), kThreads, 0, stream>>>(g, s, id, community_id, map, kp, kn, new_label);
  return cudaGetLastError();
}

cudaError_t sync_map_level0(int32_t* level_of, int64_t n0, const int32_t* map, cudaStream_t stream) {
  map_level0_kernel<<<grid_for(n0), kThreads, 0, stream>>>(level_of, n0, map);
  return cudaGetLastError();
}

cudaError_t sync_pairs(const SyncLevel& g, const int32_t* map, uint64_t* keys, ull* values, ull* count, cudaStream_t stream) {
  const cudaError_t status = cudaMemsetAsync(count, 0, sizeof(ull), stream);
  if (status != cudaSuccess) return status;
  pairs_kernel<<<warp_grid(g.n), kWarpsPerBlock * 32, 0, stream>>>(g, map, keys, values, count);
  return cudaGetLastError();
}

size_t sync_sort_bytes(int64_t items, int end_bit) {
  size_t sort = 0, reduce = 0;
  cub::DoubleBuffer<uint64_t> keys(nullptr, nullptr);
  cub::DoubleBuffer<ull> values(nullptr, nullptr);
  cub::DeviceRadixSort::SortPairs(nullptr, sort, keys, values, static_cast<int>(items), 0, end_bit);
  cub::DeviceReduce::ReduceByKey(nullptr, reduce, static_cast<uint64_t*>(nullptr), static_cast<uint64_t*>(nullptr),
                                 static_cast<ull*>(nullptr), static_cast<ull*>(nullptr), static_cast<ull*>(nullptr),
                                 Add(), static_cast<int>(items));
  return sort > reduce ? sort : reduce;
}

cudaError_t sync_sort_reduce(uint64_t* keys[2], ull* values[2], int64_t items, int end_bit, ull* runs, void* scratch,
                             size_t scratch_bytes, int* out, cudaStream_t stream) {
  cub::DoubleBuffer<uint64_t> k(keys[0], keys[1]);
  cub::DoubleBuffer<ull> v(values[0], values[1]);
  cudaError_t status = cub::DeviceRadixSort::SortPairs(scratch, scratch_bytes, k, v, static_cast<int>(items), 0, end_bit, stream);
  if (status != cudaSuccess) return status;
  const int other = 1 - k.selector;
  *out = other;
  return cub::DeviceReduce::ReduceByKey(scratch, scratch_bytes, k.Current(), keys[other], v.Current(), values[other], runs,
                                        Add(), static_cast<int>(items), stream);
}

cudaError_t sync_rows(const uint64_t* unique_keys, const ull* sums, int64_t entries, int64_t k, int64_t* counts,
                      int32_t* columns, ull* weights, cudaStream_t stream) {
  const cudaError_t status = cudaMemsetAsync(counts, 0, sizeof(int64_t) * size_t(k + 1), stream);
  if (status != cudaSuccess) return status;
  if (entries > 0) rows_kernel<<<grid_for(entries), kThreads, 0, stream>>>(unique_keys, sums, entries, counts, columns, weights);
  return cudaGetLastError();
}

cudaError_t sync_list_counts(const SyncLevel& g, const SyncState& s, const int32_t* id, int64_t* counts, cudaStream_t stream) {
  list_counts_kernel<<<grid_for(g.n), kThreads, 0, stream>>>(g, s, id, counts);
  return cudaGetLastError();
}

cudaError_t sync_list_fill(const SyncLevel& g, const SyncState& s, const int32_t* id, const int64_t* new_start,
                           int32_t* new_layer, ull* new_weight, cudaStream_t stream) {
  list_fill_kernel<<<grid_for(g.n), kThreads, 0, stream>>>(g, s, id, new_start, new_layer, new_weight);
  return cudaGetLastError();
}

cudaError_t sync_gather_labels(const int32_t* label, const int32_t* level_of, int64_t n0, int32_t* out, cudaStream_t stream) {
  gather_labels_kernel<<<grid_for(n0), kThreads, 0, stream>>>(label, level_of, n0, out);
  return cudaGetLastError();
}

}  // namespace kernels
}  // namespace fc
