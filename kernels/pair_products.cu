// Products <z_p, z_q> in a fixed summation order (see pair_products.cuh for why). A block makes
// a Tile x Tile block of products from k-major operands staged through shared memory (3 stages,
// cp.async on sm_80+); 256 threads, each R x R products held in registers: float 128 x 128 with
// 8 x 8 a thread (the layout of fused_degree.cu), double 64 x 64 with 4 x 4.
#include <type_traits>

#include "kernels/async_copy.cuh"
#include "kernels/pair_products.cuh"

namespace fc {
namespace kernels {
namespace {

constexpr int kThreads = 256;  // 16 x 16
constexpr int kStages = 3;
constexpr int kK = static_cast<int>(kProductK);

template <class T>
struct Shape {
  static constexpr int V = 16 / sizeof(T);  // values of a 16-byte piece
  static constexpr int R = 2 * V;           // products a thread per row and column
  static constexpr int Tile = 16 * R;       // 128 (float), 64 (double)
};

// zt (t_pad x ld, k-major) from z (n x t, series contiguous): 32 x 32 blocks through shared
// memory, so that both the reads and the writes are coalesced; zero outside n x t.
template <class T>
__global__ void transpose_pad_kernel(const T* __restrict__ z, int64_t n, int64_t t, T* __restrict__ zt, int64_t ld,
                                     int64_t t_pad) {
  __shared__ T block[32][33];
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

__device__ __forceinline__ float fma_of(float a, float b, float c) { return fmaf(a, b, c); }
__device__ __forceinline__ double fma_of(double a, double b, double c) { return fma(a, b, c); }

// Tile index of a thread's i-th value: V at base * V and V at Tile / 2 + base * V, so that a
// warp's shared-memory reads are two 16-byte pieces per operand.
template <class T>
__device__ __forceinline__ int lane_index(int base, int i) {
  using S = Shape<T>;
  return (i < S::V ? 0 : S::Tile / 2) + base * S::V + (i % S::V);
}

// The R values of a thread's rows (or columns) at one k: two 16-byte shared-memory reads.
template <class T>
__device__ __forceinline__ void load_lanes(const T* stage_row, int base, T* v) {
  using S = Shape<T>;
  using Piece = typename std::conditional<sizeof(T) == 4, float4, double2>::type;
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const Piece piece = *reinterpret_cast<const Piece*>(stage_row + h * (S::Tile / 2) + base * S::V);
    const T* e = reinterpret_cast<const T*>(&piece);
#pragma unroll
    for (int i = 0; i < S::V; ++i) v[h * S::V + i] = e[i];
  }
}

// Block (x, y): q in [qa + Tile y, + Tile), p in [pa + Tile x, + Tile), where qa and pa are q0 and
// p0 rounded down to whole 16-byte pieces; only q in [q0, q0 + nq) and p in [p0, p0 + np) are
// written. The operands are zero past their series and time points (transpose_pad).
template <class T>
__global__ void __launch_bounds__(kThreads, 2)
    pair_products_kernel(const T* __restrict__ zp, int64_t ldp, int64_t p0, int64_t np, const T* __restrict__ zq,
                         int64_t ldq, int64_t q0, int64_t nq, int k_steps, T* __restrict__ c, int64_t ldc) {
  using S = Shape<T>;
  constexpr int Tile = S::Tile, V = S::V, R = S::R;
  __shared__ __align__(16) T smem[kStages * 2 * kK * Tile];
  const int64_t qa = q0 / V * V, pa = p0 / V * V;
  const int64_t rs = qa + int64_t(blockIdx.y) * Tile, cs = pa + int64_t(blockIdx.x) * Tile;
  const int tid = threadIdx.x, tx = tid & 15, ty = tid >> 4;

  auto a_stage = [&](int s) { return smem + s * 2 * kK * Tile; };  // rows q
  auto b_stage = [&](int s) { return smem + s * 2 * kK * Tile + kK * Tile; };  // columns p
  // This thread's 16 bytes of each operand of a stage: row lk of k, values [lc, lc + V).
  const int lk = tid / (Tile / V), lc = (tid % (Tile / V)) * V;
  const T* ga = zq + lk * ldq + rs + lc;
  const T* gb = zp + lk * ldp + cs + lc;
  auto load_stage = [&](int s, int kk) {
    load16(a_stage(s) + lk * Tile + lc, ga + int64_t(kk) * kK * ldq);
    load16(b_stage(s) + lk * Tile + lc, gb + int64_t(kk) * kK * ldp);
  };

  T acc[R][R];
#pragma unroll
  for (int i = 0; i < R; ++i)
#pragma unroll
    for (int j = 0; j < R; ++j) acc[i][j] = T(0);

#pragma unroll
  for (int s = 0; s < kStages - 1; ++s) {
    if (s < k_steps) load_stage(s, s);
    commit_stage();
  }
  for (int kk = 0; kk < k_steps; ++kk) {
    wait_stages<kStages - 2>();
    __syncthreads();  // stage kk is in; every thread is done with stage kk - 1, refilled next
    const int next = kk + kStages - 1;
    if (next < k_steps) load_stage(next % kStages, next);
    commit_stage();
    const T* a = a_stage(kk % kStages);
    const T* b = b_stage(kk % kStages);
#pragma unroll
    for (int k = 0; k < kK; ++k) {
      T av[R], bv[R];
      load_lanes<T>(a + k * Tile, ty, av);
      load_lanes<T>(b + k * Tile, tx, bv);
#pragma unroll
      for (int i = 0; i < R; ++i)
#pragma unroll
        for (int j = 0; j < R; ++j) acc[i][j] = fma_of(bv[j], av[i], acc[i][j]);
    }
  }

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
cudaError_t launch_transpose(const T* z, int64_t n, int64_t t, T* zt, int64_t ld, int64_t t_pad, cudaStream_t stream) {
  if (ld <= 0 || t_pad <= 0) return cudaSuccess;
  const dim3 grid(static_cast<unsigned>((ld + 31) / 32), static_cast<unsigned>((t_pad + 31) / 32));
  transpose_pad_kernel<T><<<grid, dim3(32, 8), 0, stream>>>(z, n, t, zt, ld, t_pad);
  return cudaGetLastError();
}

template <class T>
cudaError_t launch_products(const T* zp, int64_t ldp, int64_t p0, int64_t np, const T* zq, int64_t ldq, int64_t q0,
                            int64_t nq, int64_t t_pad, T* c, int64_t ldc, cudaStream_t stream) {
  if (np <= 0 || nq <= 0) return cudaSuccess;
  constexpr int64_t Tile = Shape<T>::Tile, V = Shape<T>::V;
  const int64_t wide = p0 + np - p0 / V * V, tall = q0 + nq - q0 / V * V;
  const int64_t grid_y = (tall + Tile - 1) / Tile;
  if (grid_y > 65535) return cudaErrorInvalidConfiguration;  // the callers' bands are far smaller
  const dim3 grid(static_cast<unsigned>((wide + Tile - 1) / Tile), static_cast<unsigned>(grid_y));
  pair_products_kernel<T><<<grid, kThreads, 0, stream>>>(zp, ldp, p0, np, zq, ldq, q0, nq,
                                                         static_cast<int>(t_pad / kProductK), c, ldc);
  return cudaGetLastError();
}

}  // namespace

cudaError_t transpose_pad(const float* z, int64_t n, int64_t t, float* zt, int64_t ld, int64_t t_pad,
                          cudaStream_t stream) {
  return launch_transpose(z, n, t, zt, ld, t_pad, stream);
}
cudaError_t transpose_pad(const double* z, int64_t n, int64_t t, double* zt, int64_t ld, int64_t t_pad,
                          cudaStream_t stream) {
  return launch_transpose(z, n, t, zt, ld, t_pad, stream);
}

cudaError_t pair_products(const float* zp, int64_t ldp, int64_t p0, int64_t np, const float* zq, int64_t ldq,
                          int64_t q0, int64_t nq, int64_t t_pad, float* c, int64_t ldc, cudaStream_t stream) {
  return launch_products(zp, ldp, p0, np, zq, ldq, q0, nq, t_pad, c, ldc, stream);
}
cudaError_t pair_products(const double* zp, int64_t ldp, int64_t p0, int64_t np, const double* zq, int64_t ldq,
                          int64_t q0, int64_t nq, int64_t t_pad, double* c, int64_t ldc, cudaStream_t stream) {
  return launch_products(zp, ldp, p0, np, zq, ldq, q0, nq, t_pad, c, ldc, stream);
}

}  // namespace kernels
}  // namespace fc
