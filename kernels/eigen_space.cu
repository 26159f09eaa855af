// The eigensolver's vector operations on the device (eigen_space.cuh says what each computes).
#include "kernels/eigen_space.cuh"
#include "kernels/grid_size.cuh"

namespace fc {
namespace kernels {
namespace {

constexpr int kThreads = 256;

unsigned grid_for(int64_t items) { return grid_size(items, kThreads); }

int64_t chunk_count(int64_t n) { return (n + kEigenChunk - 1) / kEigenChunk; }

// One block per (chunk, column) item. The block's threads first form the chunk's products in
// shared memory (coalesced loads, many in flight); then lane k of the first kEigenLanes threads
// adds products k, k + 8, ... of the chunk's full groups of 8 in order, lane 0 then the tail, and
// the lanes are added pairwise, as chunk_dot does. (Summing straight from global memory, each
// lane's chain of dependent loads left the device mostly waiting.)
__global__ void dots_kernel(const double* __restrict__ basis, int64_t n, int64_t cols, const double* __restrict__ w,
                            const double* __restrict__ a, const double* __restrict__ b, int64_t width,
                            double* __restrict__ partial) {
  __shared__ double products[kEigenChunk];
  __shared__ double lanes[kEigenLanes];
  const int64_t item = blockIdx.x;
  const int64_t c = item / width, l = item % width;
  const double* x = l < cols ? basis + l * n : a;
  const double* y = l < cols ? w : b;
  const int64_t begin = c * kEigenChunk, len = (n - begin < kEigenChunk ? n - begin : kEigenChunk);
  for (int64_t i = threadIdx.x; i < len; i += blockDim.x) products[i] = __dmul_rn(x[begin + i], y[begin + i]);
  __syncthreads();
  if (threadIdx.x < kEigenLanes) {
    const int lane = threadIdx.x;
    const int64_t full = len - len % kEigenLanes;
    double acc = 0.0;
    for (int64_t i = lane; i < full; i += kEigenLanes) acc = __dadd_rn(acc, products[i]);
    if (lane == 0)
      for (int64_t i = full; i < len; ++i) acc = __dadd_rn(acc, products[i]);
    lanes[lane] = acc;
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    const double* v = lanes;
    partial[item] = __dadd_rn(__dadd_rn(__dadd_rn(v[0], v[1]), __dadd_rn(v[2], v[3])),
                              __dadd_rn(__dadd_rn(v[4], v[5]), __dadd_rn(v[6], v[7])));
  }
}

__global__ void chunk_sums_kernel(const double* __restrict__ partial, int64_t chunks, int64_t width,
                                  double* __restrict__ h) {
  const int64_t l = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (l >= width) return;
  double s = 0.0;
  for (int64_t c = 0; c < chunks; ++c) s = __dadd_rn(s, partial[c * width + l]);
  h[l] = s;
}

__global__ void subtract_kernel(const double* __restrict__ basis, int64_t n, int64_t cols, const double* __restrict__ h,
                                double* __restrict__ w) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    double v = w[i];
    for (int64_t l = 0; l < cols; ++l) v = __dsub_rn(v, __dmul_rn(h[l], basis[l * n + i]));
    w[i] = v;
  }
}

__global__ void combine_kernel(const double* __restrict__ basis, int64_t n, int64_t cols, const double* __restrict__ y,
                               int64_t ldy, int64_t k, double* __restrict__ out) {
  for (int64_t x = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; x < n * k; x += int64_t(gridDim.x) * blockDim.x) {
    const int64_t c = x / n, i = x % n;
    double s = 0.0;
    for (int64_t l = 0; l < cols; ++l) s = __dadd_rn(s, __dmul_rn(basis[l * n + i], y[l * ldy + c]));
    out[c * n + i] = s;
  }
}

__global__ void scale_kernel(double* __restrict__ x, int64_t n, double factor) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x)
    x[i] = __dmul_rn(x[i], factor);
}

__global__ void subtract_scaled_kernel(const double* __restrict__ x, double alpha, double* __restrict__ y, int64_t n) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x)
    y[i] = __dsub_rn(y[i], __dmul_rn(alpha, x[i]));
}

__global__ void finish_kernel(double* __restrict__ y, const double* __restrict__ x, const double* __restrict__ k_pos,
                              const double* __restrict__ k_neg, const double* __restrict__ r, double gd_pos,
                              double gd_neg, const double* __restrict__ pq, int64_t n) {
  const double p = pq[0], q = pq[1];
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    const double a = __dsub_rn(y[i], __dmul_rn(__dmul_rn(gd_pos, k_pos[i]), p));
    const double b = __dadd_rn(a, __dmul_rn(__dmul_rn(gd_neg, k_neg[i]), q));
    y[i] = __dsub_rn(b, __dmul_rn(r[i], x[i]));
  }
}

}  // namespace

cudaError_t eigen_dots(const double* basis, int64_t n, int64_t cols, const double* w, const double* a, const double* b,
                       double* partial, double* h, cudaStream_t stream) {
  const int64_t chunks = chunk_count(n), width = cols + 1, items = chunks * width;
  if (items > 0x7FFFFFFF) return cudaErrorInvalidValue;  // one block per item (x grid limit 2^31 - 1)
  if (items > 0) dots_kernel<<<static_cast<unsigned>(items), kThreads, 0, stream>>>(basis, n, cols, w, a, b, width, partial);
  const cudaError_t launched = cudaGetLastError();
  if (launched != cudaSuccess) return launched;
  chunk_sums_kernel<<<static_cast<unsigned>((width + 127) / 128), 128, 0, stream>>>(partial, chunks, width, h);
  return cudaGetLastError();
}

cudaError_t eigen_subtract(const double* basis, int64_t n, int64_t cols, const double* h, double* w, cudaStream_t stream) {
  subtract_kernel<<<grid_for(n), kThreads, 0, stream>>>(basis, n, cols, h, w);
  return cudaGetLastError();
}

cudaError_t eigen_combine(const double* basis, int64_t n, int64_t cols, const double* y, int64_t ldy, int64_t k,
                          double* out, cudaStream_t stream) {
  combine_kernel<<<grid_for(n * k), kThreads, 0, stream>>>(basis, n, cols, y, ldy, k, out);
  return cudaGetLastError();
}

cudaError_t eigen_scale(double* x, int64_t n, double factor, cudaStream_t stream) {
  scale_kernel<<<grid_for(n), kThreads, 0, stream>>>(x, n, factor);
  return cudaGetLastError();
}

cudaError_t eigen_subtract_scaled(const double* x, double alpha, double* y, int64_t n, cudaStream_t stream) {
  subtract_scaled_kernel<<<grid_for(n), kThreads, 0, stream>>>(x, alpha, y, n);
  return cudaGetLastError();
}

cudaError_t group_finish(double* y, const double* x, const double* k_pos, const double* k_neg, const double* r,
                         double gd_pos, double gd_neg, const double* pq, int64_t n, cudaStream_t stream) {
  finish_kernel<<<grid_for(n), kThreads, 0, stream>>>(y, x, k_pos, k_neg, r, gd_pos, gd_neg, pq, n);
  return cudaGetLastError();
}

}  // namespace kernels
}  // namespace fc
