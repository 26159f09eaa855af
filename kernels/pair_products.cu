// Products <z_p, z_q> in a fixed summation order (see pair_products.cuh for why): each block
// runs the main loop of pair_tile.cuh (shared with fused_degree.cu) and writes its products.
#include "kernels/pair_products.cuh"
#include "kernels/pair_tile.cuh"

namespace fc {
namespace kernels {
namespace {

static_assert(kProductK == kTileK && kProductTile == TileShape<float>::Tile, "pair_products.cuh describes pair_tile.cuh");

// zt (t_pad x ld, k-major) from z (n x t, series contiguous): 32 x 32 blocks through shared
// memory, so that both the reads and the writes are coalesced; zero outside n x t.
// blockIdx.z: the series set of a batch (SeriesBatch strides).
template <class T>
__global__ void transpose_pad_kernel(const T* __restrict__ z, int64_t n, int64_t t, T* __restrict__ zt, int64_t ld,
                                     int64_t t_pad, SeriesBatch batch) {
  __shared__ T block[32][33];
  z += int64_t(blockIdx.z) * batch.in_stride;
  zt += int64_t(blockIdx.z) * batch.out_stride;
  const int64_t i0 = int64_t(blockIdx.x) * 32, k0 = int64_t(blockIdx.y) * 32;
  for (int r = threadIdx.y; r < 32; r += blockDim.y) {
    const int64_t i = i0 + r, k = k0 + threadIdx.x;
    block[r][threadIdx.x] = (i < n && k < t) ? z[i * t + k] : T(0);
  }
  __syncthreads();
  for (int r = threadIdx.y; r < 32; r += blockDim.y) {
    const int64_t k = k0 + r, i = i0 + threadIdx.x;
    if (k < t_pad && i < ld) zt[k * ld + i] = block[threadIdx.x][r];
  }
}

// Block (x, y): q in [qa + Tile y, + Tile), p in [pa + Tile x, + Tile), where qa and pa are q0 and
// p0 rounded down to whole 16-byte pieces; only q in [q0, q0 + nq) and p in [p0, p0 + np) are
// written. The operands are zero past their series and time points (transpose_pad).
template <class T>
__global__ void __launch_bounds__(kTileThreads, 2)
    pair_products_kernel(const T* __restrict__ zp, int64_t ldp, int64_t p0, int64_t np, const T* __restrict__ zq,
                         int64_t ldq, int64_t q0, int64_t nq, int k_steps, T* __restrict__ c, int64_t ldc,
                         SeriesBatch batch) {
  using S = TileShape<T>;
  // blockIdx.z: the series set of a batch (both operands step by in_stride, c by out_stride).
  zp += int64_t(blockIdx.z) * batch.in_stride;
  zq += int64_t(blockIdx.z) * batch.in_stride;
  c += int64_t(blockIdx.z) * batch.out_stride;
  constexpr int Tile = S::Tile, V = S::V, R = S::R;
  __shared__ __align__(16) T smem[S::SharedValues];
  const int64_t rs = q0 / V * V + int64_t(blockIdx.y) * Tile, cs = p0 / V * V + int64_t(blockIdx.x) * Tile;
  const int tx = threadIdx.x & 15, ty = threadIdx.x >> 4;
  T acc[R][R];
  tile_products<T>(zq, ldq, rs, zp, ldp, cs, k_steps, smem, acc);
#pragma unroll
  for (int i = 0; i < R; ++i) {
    const int64_t q = rs + lane_index<T>(ty, i);
    if (q < q0 || q >= q0 + nq) continue;
    T* row = c + (q - q0) * ldc;
#pragma unroll
    for (int j = 0; j < R; ++j) {
      const int64_t p = cs + lane_index<T>(tx, j);
      if (p >= p0 && p < p0 + np) row[p - p0] = acc[i][j];
    }
  }
}

template <class T>
cudaError_t launch_transpose(const T* z, int64_t n, int64_t t, T* zt, int64_t ld, int64_t t_pad, const SeriesBatch& batch,
                             cudaStream_t stream) {
  if (ld <= 0 || t_pad <= 0 || batch.count <= 0) return cudaSuccess;
  if (batch.count > 65535) return cudaErrorInvalidConfiguration;
  const dim3 grid(static_cast<unsigned>((ld + 31) / 32), static_cast<unsigned>((t_pad + 31) / 32),
                  static_cast<unsigned>(batch.count));
  transpose_pad_kernel<T><<<grid, dim3(32, 8), 0, stream>>>(z, n, t, zt, ld, t_pad, batch);
  return cudaGetLastError();
}

template <class T>
cudaError_t launch_products(const T* zp, int64_t ldp, int64_t p0, int64_t np, const T* zq, int64_t ldq, int64_t q0,
                            int64_t nq, int64_t t_pad, T* c, int64_t ldc, const SeriesBatch& batch, cudaStream_t stream) {
  if (np <= 0 || nq <= 0 || batch.count <= 0) return cudaSuccess;
  if (batch.count > 65535) return cudaErrorInvalidConfiguration;
  constexpr int64_t Tile = TileShape<T>::Tile, V = TileShape<T>::V;
  const int64_t wide = p0 + np - p0 / V * V, tall = q0 + nq - q0 / V * V;
  const int64_t grid_y = (tall + Tile - 1) / Tile;
  if (grid_y > 65535) return cudaErrorInvalidConfiguration;  // the callers' bands are far smaller
  const dim3 grid(static_cast<unsigned>((wide + Tile - 1) / Tile), static_cast<unsigned>(grid_y),
                  static_cast<unsigned>(batch.count));
  pair_products_kernel<T><<<grid, kTileThreads, 0, stream>>>(zp, ldp, p0, np, zq, ldq, q0, nq,
                                                         static_cast<int>(t_pad / kTileK), c, ldc, batch);
  return cudaGetLastError();
}

}  // namespace

cudaError_t transpose_pad(const float* z, int64_t n, int64_t t, float* zt, int64_t ld, int64_t t_pad,
                          cudaStream_t stream, const SeriesBatch& batch) {
  return launch_transpose(z, n, t, zt, ld, t_pad, batch, stream);
}
cudaError_t transpose_pad(const double* z, int64_t n, int64_t t, double* zt, int64_t ld, int64_t t_pad,
                          cudaStream_t stream, const SeriesBatch& batch) {
  return launch_transpose(z, n, t, zt, ld, t_pad, batch, stream);
}

cudaError_t pair_products(const float* zp, int64_t ldp, int64_t p0, int64_t np, const float* zq, int64_t ldq,
                          int64_t q0, int64_t nq, int64_t t_pad, float* c, int64_t ldc, cudaStream_t stream,
                          const SeriesBatch& batch) {
  return launch_products(zp, ldp, p0, np, zq, ldq, q0, nq, t_pad, c, ldc, batch, stream);
}
cudaError_t pair_products(const double* zp, int64_t ldp, int64_t p0, int64_t np, const double* zq, int64_t ldq,
                          int64_t q0, int64_t nq, int64_t t_pad, double* c, int64_t ldc, cudaStream_t stream,
                          const SeriesBatch& batch) {
  return launch_products(zp, ldp, p0, np, zq, ldq, q0, nq, t_pad, c, ldc, batch, stream);
}

}  // namespace kernels
}  // namespace fc
