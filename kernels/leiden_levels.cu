// The synchronous Leiden's level steps on the device (leiden_sync.cuh): level 0 from the caller's
// graph, aggregation by sort and sum (and the layered lists), the labels out and the final checks
// (each row's inside weight, connected pieces). The moves and refinement are leiden_sync.cu's.
#include <cub/cub.cuh>

#include "leiden_sync_common.cuh"

namespace fc {
namespace kernels {

using namespace leiden_detail;

namespace {

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
