// Thresholded edges of a band, compacted on the device in row order (see graph_tiles.cuh).
// edge_compact reads each tile value once; the later launches touch only counts and edges.
#include <algorithm>

#include "kernels/graph_pair.cuh"

namespace fc {
namespace kernels {
namespace {

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;
constexpr int kPerThread = static_cast<int>(kEdgeChunk / kThreads);  // 8
static_assert(kEdgeChunk == int64_t(kThreads) * kPerThread, "a chunk is kPerThread values per thread");

// One block per chunk (blockIdx.x: chunk of the row, blockIdx.y: row). Value u*kThreads + tid of
// the chunk is thread tid's u-th: ascending (u, warp, lane) is ascending column, so positions from
// warp ballots summed in that order keep the row's column order.
//
// Like the degree pass, this runs beside the GEMMs and is bound by instruction issue, so the
// per-value test is an int range check within the chunk ([lo, hi): p > q and x < ld), and the 64
// warp counts are scanned by one warp instead of one thread.
template <class In>
__global__ void __launch_bounds__(kThreads) edge_compact_kernel(const In* __restrict__ tile, GraphBand b,
                                                                const uint8_t* __restrict__ constant, EdgeRule rule,
                                                                int32_t* __restrict__ scratch_cols,
                                                                float* __restrict__ scratch_vals,
                                                                int32_t* __restrict__ chunk_counts) {
  constexpr int kCounts = kPerThread * kWarps;  // 64, in (u, warp) order
  static_assert(kCounts == 64, "one warp scans the counts, two a lane");
  __shared__ int warp_base[kCounts];
  __shared__ int total;
  const int64_t ql = blockIdx.y;
  const int64_t q = b.q0 + ql;
  const int64_t chunk = ql * gridDim.x + blockIdx.x;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int64_t c0 = int64_t(blockIdx.x) * kEdgeChunk;  // the chunk's first column in the tile
  // Columns xl of the chunk (x = c0 + xl) with a pair: p0 + x > q and x < ld.
  const int64_t chunk_end = kPerThread * kThreads;
  const int64_t first = q + 1 - b.p0 - c0, end = b.ld - c0;
  int lo = static_cast<int>(first < 0 ? 0 : (first > chunk_end ? chunk_end : first));
  const int hi = static_cast<int>(end > chunk_end ? chunk_end : end);
  if (is_constant(constant, q)) lo = hi;
  const In* row = tile + ql * b.ld + c0;
  In v[kPerThread];
#pragma unroll
  for (int u = 0; u < kPerThread; ++u) {
    const int xl = u * kThreads + threadIdx.x;
    v[u] = xl >= lo && xl < hi ? tile_load(row + xl) : In(0);
  }
  bool pass[kPerThread];
  unsigned ballot[kPerThread];
#pragma unroll
  for (int u = 0; u < kPerThread; ++u) {
    const int xl = u * kThreads + threadIdx.x;
    pass[u] = xl >= lo && xl < hi && passes(pair_r(v[u]), rule) && !is_constant(constant, b.p0 + c0 + xl);
    ballot[u] = __ballot_sync(0xffffffffu, pass[u]);
    if (lane == 0) warp_base[u * kWarps + warp] = __popc(ballot[u]);
  }
  __syncthreads();
  if (warp == 0) {  // exclusive prefix of the 64 counts: lane l holds counts 2l and 2l + 1
    const int a = warp_base[2 * lane], c = warp_base[2 * lane + 1];
    int inc = a + c;
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
      const int up = __shfl_up_sync(0xffffffffu, inc, d);
      if (lane >= d) inc += up;
    }
    const int before = inc - a - c;
    warp_base[2 * lane] = before;
    warp_base[2 * lane + 1] = before + a;
    if (lane == 31) {
      total = inc;
      chunk_counts[chunk] = inc;
    }
  }
  __syncthreads();
  if (total == 0) return;
  const unsigned below = (1u << lane) - 1u;
  // The chunk's scratch slots are its own tile positions: the scratch is no larger than the tile.
  int32_t* cols = scratch_cols + ql * b.ld + c0;
  float* vals = scratch_vals + ql * b.ld + c0;
#pragma unroll
  for (int u = 0; u < kPerThread; ++u) {
    if (!pass[u]) continue;
    const int pos = warp_base[u * kWarps + warp] + __popc(ballot[u] & below);
    cols[pos] = static_cast<int32_t>(b.p0 + c0 + u * kThreads + threadIdx.x);
    vals[pos] = pair_r(v[u]);
  }
}

constexpr int kScanThreads = 1024;

// Exclusive scan of the band's chunk counts in one block, kScanThreads at a time with a carry.
__global__ void __launch_bounds__(kScanThreads) edge_scan_kernel(const int32_t* __restrict__ counts, GraphBand b,
                                                                 int64_t chunks_per_row, int64_t* __restrict__ offsets,
                                                                 int64_t* __restrict__ row_count, ArenaState* arena,
                                                                 int64_t* __restrict__ band_out) {
  __shared__ int64_t warp_sum[kScanThreads / 32];
  __shared__ int64_t carry;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int64_t chunks = b.rows * chunks_per_row;
  if (threadIdx.x == 0) carry = 0;
  __syncthreads();
  for (int64_t base = 0; base < chunks; base += kScanThreads) {
    const int64_t c = base + threadIdx.x;
    const int64_t mine = c < chunks ? counts[c] : 0;
    int64_t inc = mine;  // inclusive scan within the warp
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
      const int64_t up = __shfl_up_sync(0xffffffffu, inc, d);
      if (lane >= d) inc += up;
    }
    if (lane == 31) warp_sum[warp] = inc;
    __syncthreads();
    if (warp == 0) {
      int64_t w = warp_sum[lane];
#pragma unroll
      for (int d = 1; d < 32; d <<= 1) {
        const int64_t up = __shfl_up_sync(0xffffffffu, w, d);
        if (lane >= d) w += up;
      }
      warp_sum[lane] = w;  // inclusive over warps
    }
    __syncthreads();
    const int64_t before = carry + (warp > 0 ? warp_sum[warp - 1] : 0) + inc - mine;
    if (c < chunks) offsets[c] = before;
    __syncthreads();
    if (threadIdx.x == kScanThreads - 1) carry = before + mine;
    __syncthreads();
  }
  const int64_t total = carry;
  for (int64_t ql = threadIdx.x; ql < b.rows; ql += kScanThreads) {
    const int64_t first = offsets[ql * chunks_per_row];
    const int64_t end = ql + 1 < b.rows ? offsets[(ql + 1) * chunks_per_row] : total;
    row_count[b.q0 + ql] = end - first;
  }
  if (threadIdx.x == 0) {
    band_out[0] = total;
    if (arena->full || arena->offset + total > arena->capacity) {
      arena->full = 1;
      band_out[1] = -1;
    } else {
      band_out[1] = arena->offset;
      arena->offset += total;
    }
  }
}

__global__ void edge_arena_reset_kernel(ArenaState* arena, long long capacity) {
  arena->offset = 0;
  arena->capacity = capacity;
  arena->full = 0;
}

constexpr int kGatherThreads = 128;

__global__ void __launch_bounds__(kGatherThreads) edge_gather_kernel(
    const int32_t* __restrict__ scratch_cols, const float* __restrict__ scratch_vals, const int32_t* __restrict__ counts,
    const int64_t* __restrict__ offsets, int64_t chunks, int64_t chunks_per_row, int64_t ld,
    const int64_t* __restrict__ band_out, int64_t* __restrict__ arena_cols, float* __restrict__ arena_vals) {
  const int64_t base = band_out[1];
  if (base < 0) return;
  for (int64_t c = blockIdx.x; c < chunks; c += gridDim.x) {
    const int count = counts[c];
    if (count == 0) continue;
    const int64_t dst = base + offsets[c];
    const int64_t src = (c / chunks_per_row) * ld + (c % chunks_per_row) * kEdgeChunk;
    for (int e = threadIdx.x; e < count; e += kGatherThreads) {
      arena_cols[dst + e] = scratch_cols[src + e];
      arena_vals[dst + e] = scratch_vals[src + e];
    }
  }
}

template <class In>
cudaError_t launch_compact(const In* tile, const GraphBand& b, const uint8_t* constant, EdgeRule rule, int32_t* cols,
                           float* vals, int32_t* counts, cudaStream_t stream) {
  if (b.rows <= 0 || b.ld <= 0) return cudaSuccess;
  const dim3 grid(static_cast<unsigned>(edge_chunks_per_row(b)), static_cast<unsigned>(b.rows));
  edge_compact_kernel<In><<<grid, kThreads, 0, stream>>>(tile, b, constant, rule, cols, vals, counts);
  return cudaGetLastError();
}

}  // namespace

cudaError_t edge_compact(const float* tile, const GraphBand& band, const uint8_t* constant, EdgeRule rule,
                         int32_t* scratch_cols, float* scratch_vals, int32_t* chunk_counts, cudaStream_t stream) {
  return launch_compact(tile, band, constant, rule, scratch_cols, scratch_vals, chunk_counts, stream);
}
cudaError_t edge_compact(const double* tile, const GraphBand& band, const uint8_t* constant, EdgeRule rule,
                         int32_t* scratch_cols, float* scratch_vals, int32_t* chunk_counts, cudaStream_t stream) {
  return launch_compact(tile, band, constant, rule, scratch_cols, scratch_vals, chunk_counts, stream);
}

cudaError_t edge_scan(const int32_t* chunk_counts, const GraphBand& band, int64_t* chunk_offsets, int64_t* row_count,
                      ArenaState* arena, int64_t* band_out, cudaStream_t stream) {
  edge_scan_kernel<<<1, kScanThreads, 0, stream>>>(chunk_counts, band, edge_chunks_per_row(band), chunk_offsets,
                                                   row_count, arena, band_out);
  return cudaGetLastError();
}

cudaError_t edge_arena_reset(ArenaState* arena, int64_t capacity, cudaStream_t stream) {
  edge_arena_reset_kernel<<<1, 1, 0, stream>>>(arena, static_cast<long long>(capacity));
  return cudaGetLastError();
}

cudaError_t edge_gather(const int32_t* scratch_cols, const float* scratch_vals, const int32_t* chunk_counts,
                        const int64_t* chunk_offsets, const GraphBand& band, const int64_t* band_out,
                        int64_t* arena_cols, float* arena_vals, cudaStream_t stream) {
  const int64_t chunks = band.rows * edge_chunks_per_row(band);
  if (chunks <= 0) return cudaSuccess;
  const unsigned blocks = static_cast<unsigned>(std::min<int64_t>(chunks, 4096));
  edge_gather_kernel<<<blocks, kGatherThreads, 0, stream>>>(scratch_cols, scratch_vals, chunk_counts, chunk_offsets,
                                                            chunks, edge_chunks_per_row(band), band.ld, band_out,
                                                            arena_cols, arena_vals);
  return cudaGetLastError();
}

}  // namespace kernels
}  // namespace fc
