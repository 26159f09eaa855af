// The partial correlation's device steps (partial_matrix.cuh).
#include "kernels/grid_size.cuh"
#include "kernels/partial_matrix.cuh"

namespace fc {
namespace kernels {
namespace {

constexpr int kThreads = 256;

// Thread k sums its sample's squares over the rows, ascending (a warp reads consecutive k).
__global__ void sample_squares(const double* __restrict__ z, int64_t n, int64_t t, double* __restrict__ squares) {
  for (int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < t;
       k += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    double sum = 0.0;
    for (int64_t i = 0; i < n; ++i) sum = __dadd_rn(sum, __dmul_rn(z[i * t + k], z[i * t + k]));
    squares[k] = sum;
  }
}

// Block b's share of the three sums (grid-stride over m's elements and the samples), reduced in
// shared memory by a fixed tree into partials[3 * b + c].
__global__ void sum_terms(const double* __restrict__ m, int64_t n, const double* __restrict__ squares, int64_t t,
                          double* __restrict__ partials) {
  __shared__ double share[3][kThreads];
  double trace = 0.0, frobenius = 0.0, fourth = 0.0;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  const int64_t first = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  for (int64_t e = first; e < n * n; e += stride) {
    const int64_t i = e / n, j = e - i * n;
    if (j < i) continue;
    const double v = m[e], square = __dmul_rn(v, v);
    if (j == i) {
      trace = __dadd_rn(trace, v);
      frobenius = __dadd_rn(frobenius, square);
    } else {
      frobenius = __dadd_rn(frobenius, __dmul_rn(2.0, square));
    }
  }
  for (int64_t k = first; k < t; k += stride) fourth = __dadd_rn(fourth, __dmul_rn(squares[k], squares[k]));
  share[0][threadIdx.x] = trace;
  share[1][threadIdx.x] = frobenius;
  share[2][threadIdx.x] = fourth;
  __syncthreads();
  for (int half = kThreads / 2; half > 0; half /= 2) {
    if (threadIdx.x < half)
      for (int c = 0; c < 3; ++c) share[c][threadIdx.x] = __dadd_rn(share[c][threadIdx.x], share[c][threadIdx.x + half]);
    __syncthreads();
  }
  if (threadIdx.x < 3) partials[3 * blockIdx.x + threadIdx.x] = share[threadIdx.x][0];
}

// Thread c adds the blocks' partial sums of sum c in block order.
__global__ void sum_blocks(const double* __restrict__ partials, double* __restrict__ sums) {
  if (threadIdx.x >= 3) return;
  double sum = 0.0;
  for (int b = 0; b < kShrinkageBlocks; ++b) sum = __dadd_rn(sum, partials[3 * b + threadIdx.x]);
  sums[threadIdx.x] = sum;
}

// One thread per element of the upper triangle, grid-stride over m's elements.
__global__ void shrink(double* __restrict__ m, int64_t n, double a, double mu) {
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < n * n;
       e += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t i = e / n, j = e - i * n;
    if (j < i) continue;
    const double v = __dmul_rn(m[e], 1.0 - a);
    m[e] = j == i ? __dadd_rn(v, __dmul_rn(a, mu)) : v;
  }
}

__global__ void diagonal_roots(const double* __restrict__ m, int64_t n, double* __restrict__ root) {
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    root[i] = sqrt(m[i * n + i]);
}

__global__ void partial_from_precision(double* __restrict__ m, int64_t n, const double* __restrict__ root) {
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < n * n;
       e += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t i = e / n, j = e - i * n;
    if (j < i) continue;
    m[e] = j == i ? 1.0 : -m[e] / __dmul_rn(root[i], root[j]);
  }
}

}  // namespace

cudaError_t shrinkage_sums(const double* m, const double* z, int64_t n, int64_t t, double* squares, double* partials,
                           double* sums, cudaStream_t stream) {
  sample_squares<<<grid_size(t, kThreads), kThreads, 0, stream>>>(z, n, t, squares);
  sum_terms<<<kShrinkageBlocks, kThreads, 0, stream>>>(m, n, squares, t, partials);
  sum_blocks<<<1, 32, 0, stream>>>(partials, sums);
  return cudaGetLastError();
}

cudaError_t shrink_upper(double* m, int64_t n, double a, double mu, cudaStream_t stream) {
  shrink<<<grid_size(n * n, kThreads), kThreads, 0, stream>>>(m, n, a, mu);
  return cudaGetLastError();
}

cudaError_t precision_to_partial(double* m, int64_t n, double* root, cudaStream_t stream) {
  diagonal_roots<<<grid_size(n, kThreads), kThreads, 0, stream>>>(m, n, root);
  partial_from_precision<<<grid_size(n * n, kThreads), kThreads, 0, stream>>>(m, n, root);
  return cudaGetLastError();
}

}  // namespace kernels
}  // namespace fc
