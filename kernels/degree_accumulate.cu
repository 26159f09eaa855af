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
template <class In>
__global__ void __launch_bounds__(kThreads) degree_band_kernel(const In* __restrict__ tile, GraphBand b,
                                                               const uint8_t* __restrict__ constant, EdgeRule rule,
                                                               unsigned long long* __restrict__ degree,
                                                               double* __restrict__ row_partial,
                                                               double* __restrict__ col_partial) {
  __shared__ double row_sum[kDegreeRowGroup][kWarps];
  __shared__ int row_cnt[kDegreeRowGroup][kWarps];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int64_t x = int64_t(blockIdx.x) * kThreads + threadIdx.x;
  const int64_t p = b.p0 + x;
  const int64_t r0 = int64_t(blockIdx.y) * kDegreeRowGroup;
  const int rows = static_cast<int>(std::min<int64_t>(kDegreeRowGroup, b.rows - r0));
  const bool col_ok = x < b.ld && !is_constant(constant, p);
  double col_w = 0.0;
  unsigned col_n = 0;
  for (int k0 = 0; k0 < rows; k0 += 8) {
    In v[8];
#pragma unroll
    for (int u = 0; u < 8; ++u) {  // 8 loads in flight before any use
      const int64_t ql = r0 + k0 + u;
      v[u] = (col_ok && k0 + u < rows) ? tile[ql * b.ld + x] : In(0);
    }
#pragma unroll
    for (int u = 0; u < 8; ++u) {
      if (k0 + u >= rows) break;
      const int64_t q = b.q0 + r0 + k0 + u;
      const float r = pair_r(v[u]);
      const bool pass = col_ok && p > q && !is_constant(constant, q) && passes(r, rule);
      const double w = pass ? double(rule.absolute ? fabsf(r) : r) : 0.0;
      col_w += w;
      col_n += pass ? 1u : 0u;
      const unsigned ballot = __ballot_sync(0xffffffffu, pass);
      double s = w;
      if (ballot != 0) {
#pragma unroll
        for (int d = 16; d > 0; d >>= 1) s += __shfl_down_sync(0xffffffffu, s, d);
      }
      if (lane == 0) {
        row_sum[k0 + u][warp] = s;
        row_cnt[k0 + u][warp] = __popc(ballot);
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

__global__ void degree_finish_rows_kernel(const double* __restrict__ row_partial, GraphBand b, int64_t col_blocks,
                                          double* __restrict__ strength_rows) {
  const int64_t ql = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (ql >= b.rows) return;
  double s = 0.0;
  for (int64_t cb = 0; cb < col_blocks; ++cb) s += row_partial[ql * col_blocks + cb];
  strength_rows[b.q0 + ql] = s;
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
  degree_finish_rows_kernel<<<static_cast<unsigned>((band.rows + 255) / 256), 256, 0, stream>>>(
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
