// The synchronous Leiden's steps on the device (leiden_sync.cuh). A judgement is one warp per node:
// the row's entries go into a hash table of (id, weight) (shared memory for rows up to 256
// entries, else the node's own slots of a global table), summed with integer atomics, so the sums
// are exact whatever the order; then each lane judges its slots and the warp keeps the arg max,
// ties to the smaller id (leiden_rules.hpp's sync_better): the host engine's choice, bit for bit.
// This file: the moves and the refinement; leiden_levels.cu: level 0, aggregation, final checks.
#include <cub/cub.cuh>

#include "leiden_sync_common.cuh"

namespace fc {
namespace kernels {

using namespace leiden_detail;

namespace {

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

// Layered: node v's null term against rows `to` and `from` (leiden_rules.hpp's layered_null).
__device__ __forceinline__ double node_null(const SyncLevel& g, int64_t v, const ull* to, const ull* from, bool self) {
  return layered_null(g.gp, g.llayer, g.lweight, g.lstart[v], g.lstart[v + 1], to, from, self);
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

}  // namespace

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

}  // namespace kernels
}  // namespace fc
