// Degree and strength of a band without an N^2 buffer (see graph_tiles.cuh): one read of the
// tile; counts by integer atomics (exact), weights into fixed slots summed in a fixed order, so
// the strength is bit-identical from run to run.
#include <algorithm>

#include "kernels/graph_pair.cuh"

namespace fc {
namespace kernels {
namespace {

constexpr int kThreads = kDegreeColumns;  // one thread per column of the block
constexpr int kWarps = kThreads / 32;

// Block (cb, rg): columns x in [cb * 256, + 256), rows ql in [rg * 32, + 32). Each thread sums
// its column over the group's rows; each warp sums each row over its 32 columns (shuffle tree,
// fixed order), and the block's 8 warp sums of a row are added in warp order.
//
// The pass runs beside the GEMMs and is bound by instruction issue, not DRAM (ncu on the H100:
// 63 warp instructions per 32 values, 86 % SM throughput, DRAM at 58 %), so the per-value work is
// kept small: which of the thread's 32 rows can hold a pair (p > q, neither series constant) is
// one bit mask computed once, and a warp does nothing more for a row none of its 32 values pass
// (at 1 % density about 3 rows in 4): the block's row sums start at zero in shared memory.
// Skipping a zero term leaves every sum's bits as they were.
template <class In>
__global__ void __launch_bounds__(kThreads) degree_band_kernel(const In* __restrict__ tile, GraphBand b,
                                                               const uint8_t* __restrict__ constant, EdgeRule rule,
                                                               unsigned long long* __restrict__ degree,
                                                               double* __restrict__ row_partial,
                                                               double* __restrict__ col_partial) {
  __shared__ double row_sum[kDegreeRowGroup][kWarps];
  __shared__ int row_cnt[kDegreeRowGroup][kWarps];
  __shared__ unsigned live_rows;  // bit k: row r0 + k exists and its series is not constant
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int64_t x = int64_t(blockIdx.x) * kThreads + threadIdx.x;
  const int64_t p = b.p0 + x;
  const int64_t r0 = int64_t(blockIdx.y) * kDegreeRowGroup;
  const int rows = static_cast<int>(std::min<int64_t>(kDegreeRowGroup, b.rows - r0));
  for (int k = threadIdx.x; k < kDegreeRowGroup * kWarps; k += kThreads) {
    (&row_sum[0][0])[k] = 0.0;
    (&row_cnt[0][0])[k] = 0;
  }
  if (warp == 0) {
    const bool live = lane < rows && !is_constant(constant, b.q0 + r0 + lane);
    const unsigned mask = __ballot_sync(0xffffffffu, live);
    if (lane == 0) live_rows = mask;
  }
  __syncthreads();
  // Row k holds a pair of this column when q = q0 + r0 + k < p: k < p - q0 - r0.
  unsigned mine = 0;
  if (x < b.ld && !is_constant(constant, p)) {
    const int64_t below = p - b.q0 - r0;
    mine = below >= kDegreeRowGroup ? 0xffffffffu : (below <= 0 ? 0u : (1u << below) - 1u);
    mine &= live_rows;
  }
  const In* col = tile + r0 * b.ld + x;
  double col_w = 0.0;
  unsigned col_n = 0;
#pragma unroll
  for (int k0 = 0; k0 < kDegreeRowGroup; k0 += 8) {
    In v[8];
#pragma unroll
    for (int u = 0; u < 8; ++u)  // 8 loads in flight before any use
      v[u] = (mine >> (k0 + u)) & 1u ? tile_load(col + (k0 + u) * b.ld) : In(0);
#pragma unroll
    for (int u = 0; u < 8; ++u) {
      const int k = k0 + u;
      const float r = pair_r(v[u]);
      const bool pass = ((mine >> k) & 1u) && passes(r, rule);
      const unsigned ballot = __ballot_sync(0xffffffffu, pass);
      if (ballot == 0) continue;  // the whole warp: nothing of this row here
      const double w = pass ? double(rule.absolute ? fabsf(r) : r) : 0.0;
      col_w += w;
      col_n += pass ? 1u : 0u;
      double s = w;
#pragma unroll
      for (int d = 16; d > 0; d >>= 1) s += __shfl_down_sync(0xffffffffu, s, d);
      if (lane == 0) {
        row_sum[k][warp] = s;
        row_cnt[k][warp] = __popc(ballot);
      }
    }
  }
  if (col_n != 0) atomicAdd(degree + p, static_cast<unsigned long long>(col_n));
  if (x < b.ld) col_partial[int64_t(blockIdx.y) * b.ld + x] = col_w;
  __syncthreads();
  if (threadIdx.x < rows) {
    double s = 0.0;
    int n = 0;
    for (int w = 0; w < kWarps; ++w) {
      s += row_sum[threadIdx.x][w];
      n += row_cnt[threadIdx.x][w];
    }
    const int64_t ql = r0 + threadIdx.x;
    row_partial[ql * gridDim.x + blockIdx.x] = s;
    if (n != 0) atomicAdd(degree + b.q0 + ql, static_cast<unsigned long long>(n));
  }
}

// One warp per row: lane l sums the row's slots l, l + 32, ... in order, then a fixed shuffle
// tree adds the 32 lane sums (a thread per row summing ~350 slots one after another took 49 us a
// band on the H100, longer than the degree pass's other kernels together).
constexpr int kFinishThreads = 256;
__global__ void __launch_bounds__(kFinishThreads) degree_finish_rows_kernel(const double* __restrict__ row_partial,
                                                                            GraphBand b, int64_t col_blocks,
                                                                            double* __restrict__ strength_rows) {
  const int64_t ql = (int64_t(blockIdx.x) * kFinishThreads + threadIdx.x) / 32;
  const int lane = threadIdx.x & 31;
  if (ql >= b.rows) return;  // a whole warp: ql is the warp's
  double s = 0.0;
  for (int64_t cb = lane; cb < col_blocks; cb += 32) s += row_partial[ql * col_blocks + cb];
#pragma unroll
  for (int d = 16; d > 0; d >>= 1) s += __shfl_down_sync(0xffffffffu, s, d);
  if (lane == 0) strength_rows[b.q0 + ql] = s;
}

__global__ void degree_finish_cols_kernel(const double* __restrict__ col_partial, GraphBand b, int64_t row_groups,
                                          double* __restrict__ strength_cols) {
  const int64_t x = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (x >= b.ld) return;
  double s = 0.0;
  for (int64_t rg = 0; rg < row_groups; ++rg) s += col_partial[rg * b.ld + x];
  strength_cols[b.p0 + x] += s;
}

template <class In>
cudaError_t launch_degree(const In* tile, const GraphBand& b, const uint8_t* constant, EdgeRule rule,
                          unsigned long long* degree, double* row_partial, double* col_partial, cudaStream_t stream) {
  if (b.rows <= 0 || b.ld <= 0) return cudaSuccess;
  const dim3 grid(static_cast<unsigned>(degree_col_blocks(b)), static_cast<unsigned>(degree_row_groups(b)));
  degree_band_kernel<In><<<grid, kThreads, 0, stream>>>(tile, b, constant, rule, degree, row_partial, col_partial);
  return cudaGetLastError();
}

}  // namespace

cudaError_t degree_band(const float* tile, const GraphBand& band, const uint8_t* constant, EdgeRule rule,
                        unsigned long long* degree, double* row_partial, double* col_partial, cudaStream_t stream) {
  return launch_degree(tile, band, constant, rule, degree, row_partial, col_partial, stream);
}
cudaError_t degree_band(const double* tile, const GraphBand& band, const uint8_t* constant, EdgeRule rule,
                        unsigned long long* degree, double* row_partial, double* col_partial, cudaStream_t stream) {
  return launch_degree(tile, band, constant, rule, degree, row_partial, col_partial, stream);
}

cudaError_t degree_finish_rows(const double* row_partial, const GraphBand& band, double* strength_rows,
                               cudaStream_t stream) {
  if (band.rows <= 0 || band.ld <= 0) return cudaSuccess;
  const int64_t rows_per_block = kFinishThreads / 32;
  degree_finish_rows_kernel<<<static_cast<unsigned>((band.rows + rows_per_block - 1) / rows_per_block), kFinishThreads, 0,
                              stream>>>(
      row_partial, band, degree_col_blocks(band), strength_rows);
  return cudaGetLastError();
}

cudaError_t degree_finish_cols(const double* col_partial, const GraphBand& band, double* strength_cols,
                               cudaStream_t stream) {
  if (band.rows <= 0 || band.ld <= 0) return cudaSuccess;
  degree_finish_cols_kernel<<<static_cast<unsigned>((band.ld + 255) / 256), 256, 0, stream>>>(
      col_partial, band, degree_row_groups(band), strength_cols);
  return cudaGetLastError();
}

}  // namespace kernels
}  // namespace fc
