// The centrality products (series_products.cuh). __dmul_rn / __dadd_rn keep nvcc from fusing a
// product and a sum: each is rounded once, as on the host.
#include "kernels/grid_size.cuh"
#include "kernels/series_products.cuh"

namespace fc {
namespace kernels {
namespace {

constexpr int kThreads = 128;

// Block (c, kb): thread k = kb * kThreads + threadIdx.x sums chunk c's rows for column k; the
// threads of a warp read consecutive k of one row (coalesced).
template <class C>
__global__ void chunk_sums(const C* __restrict__ z, int64_t n, int64_t t, int64_t chunk_rows, const double* __restrict__ x,
                           double* __restrict__ partial) {
  const int64_t c = blockIdx.x;
  const int64_t k = static_cast<int64_t>(blockIdx.y) * kThreads + threadIdx.x;
  if (k >= t) return;
  const int64_t begin = c * chunk_rows, end = begin + chunk_rows < n ? begin + chunk_rows : n;
  double sum = 0.0;
  for (int64_t i = begin; i < end; ++i) sum = __dadd_rn(sum, __dmul_rn(static_cast<double>(z[i * t + k]), x[i]));
  partial[c * t + k] = sum;
}

__global__ void chunks_total(const double* __restrict__ partial, int64_t chunks, int64_t t, double* __restrict__ u) {
  for (int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < t;
       k += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    double sum = 0.0;
    for (int64_t c = 0; c < chunks; ++c) sum = __dadd_rn(sum, partial[c * t + k]);
    u[k] = sum;
  }
}

// Eight threads a row (four rows a warp): thread l of a row is lane l, summing k = l, l + 8, ...;
// the butterfly adds lanes (0,1), (2,3), ... then pairs of pairs: the host's bracketing, since
// a + b and b + a are the same bits.
template <class C>
__global__ void row_products(const C* __restrict__ z, int64_t n, int64_t t, const double* __restrict__ u,
                             double* __restrict__ y) {
  const int lane = threadIdx.x & 7;
  const int64_t groups = (static_cast<int64_t>(gridDim.x) * blockDim.x) / 8;
  for (int64_t i = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / 8;; i += groups) {
    // Every thread of a warp takes part in the shuffles (the warp leaves together): rows past n
    // compute nothing and store nothing.
    if (__all_sync(0xffffffffu, i >= n)) return;
    double sum = 0.0;
    if (i < n) {
      const C* row = z + i * t;
      for (int64_t k = lane; k < t; k += 8) sum = __dadd_rn(sum, __dmul_rn(static_cast<double>(row[k]), u[k]));
    }
    sum = __dadd_rn(sum, __shfl_xor_sync(0xffffffffu, sum, 1));
    sum = __dadd_rn(sum, __shfl_xor_sync(0xffffffffu, sum, 2));
    sum = __dadd_rn(sum, __shfl_xor_sync(0xffffffffu, sum, 4));
    if (i < n && lane == 0) y[i] = sum;
  }
}

__global__ void finish_kernel(const double* __restrict__ member, const double* __restrict__ ones, double* __restrict__ y,
                              int64_t n) {
  const double sum = *ones;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    y[i] = __dmul_rn(__dadd_rn(y[i], __dmul_rn(member[i], sum)), 0.5);
}

template <class C>
cudaError_t transpose_product(const C* z, int64_t n, int64_t t, int64_t chunk_rows, const double* x, double* partial,
                              double* u, cudaStream_t stream) {
  const int64_t chunks = (n + chunk_rows - 1) / chunk_rows;
  const dim3 grid(static_cast<unsigned>(chunks), static_cast<unsigned>((t + kThreads - 1) / kThreads));
  chunk_sums<<<grid, kThreads, 0, stream>>>(z, n, t, chunk_rows, x, partial);
  chunks_total<<<grid_size(t, kThreads), kThreads, 0, stream>>>(partial, chunks, t, u);
  return cudaGetLastError();
}

template <class C>
cudaError_t product(const C* z, int64_t n, int64_t t, const double* u, double* y, cudaStream_t stream) {
  row_products<<<grid_size(n * 8, 256), 256, 0, stream>>>(z, n, t, u, y);
  return cudaGetLastError();
}

}  // namespace

cudaError_t series_transpose_product(const float* z, int64_t n, int64_t t, int64_t chunk_rows, const double* x,
                                     double* partial, double* u, cudaStream_t stream) {
  return transpose_product(z, n, t, chunk_rows, x, partial, u, stream);
}
cudaError_t series_transpose_product(const double* z, int64_t n, int64_t t, int64_t chunk_rows, const double* x,
                                     double* partial, double* u, cudaStream_t stream) {
  return transpose_product(z, n, t, chunk_rows, x, partial, u, stream);
}
cudaError_t series_product(const float* z, int64_t n, int64_t t, const double* u, double* y, cudaStream_t stream) {
  return product(z, n, t, u, y, stream);
}
cudaError_t series_product(const double* z, int64_t n, int64_t t, const double* u, double* y, cudaStream_t stream) {
  return product(z, n, t, u, y, stream);
}

cudaError_t centrality_finish(const double* member, const double* ones, double* y, int64_t n, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  finish_kernel<<<grid_size(n, 256), 256, 0, stream>>>(member, ones, y, n);
  return cudaGetLastError();
}

}  // namespace kernels
}  // namespace fc
