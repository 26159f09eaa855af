// The eigensolver's vector operations on the device (eigen_space.cuh says what each computes).
#include "kernels/eigen_space.cuh"
#include "kernels/grid_size.cuh"

namespace fc {
namespace kernels {
namespace {

constexpr int kThreads = 256;

unsigned grid_for(int64_t items) { return grid_size(items, kThreads); }

int64_t chunk_count(int64_t n) { return (n + kEigenChunk - 1) / kEigenChunk; }

// w_i - h[l] basis_l,i for l = 0 .. cols-1 in turn: eigen_subtract's value of element i (both
// kernels that subtract use it, so they have the same bits).
__device__ double subtracted(const double* __restrict__ basis, int64_t n, int64_t cols, const double* __restrict__ h,
                             const double* __restrict__ w, int64_t i) {
  double v = w[i];
  for (int64_t l = 0; l < cols; ++l) v = __dsub_rn(v, __dmul_rn(h[l], basis[l * n + i]));
  return v;
}

// Chunk c's sum of products[0 .. len) (shared memory, filled and synchronized by the caller) in
// chunk_dot's order: lane k of the first kEigenLanes threads adds products k, k + 8, ... of the
// chunk's full groups of 8 in order, lane 0 then the tail, and the lanes are added pairwise. Every
// thread of the block must call it; thread 0 gets the sum.
__device__ double chunk_sum(const double* products, int64_t len, double* lanes) {
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
  const double* v = lanes;
  return __dadd_rn(__dadd_rn(__dadd_rn(v[0], v[1]), __dadd_rn(v[2], v[3])),
                   __dadd_rn(__dadd_rn(v[4], v[5]), __dadd_rn(v[6], v[7])));
}

// The end of a one-launch reduction: the block has written its partial sum(s); the last block to
// finish (counted in *done, which it resets to 0 for the next launch) adds the `chunks` partial sums
// of each of the `width` columns in chunk order into h. Which block is last varies; the order of
// the sums does not, so neither do the bits. (The threadfence pattern of the CUDA programming
// guide: the fence makes this block's partial visible before its count, and the last block reads
// the others' past its own L1 with __ldcg.)
__device__ void finish_reduction(const double* partial, int64_t chunks, int64_t width, unsigned* done, double* h) {
  __shared__ bool last;
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) last = atomicAdd(done, 1u) == unsigned(gridDim.x) - 1u;
  __syncthreads();
  if (!last) return;
  __threadfence();
  for (int64_t l = threadIdx.x; l < width; l += blockDim.x) {
    double s = 0.0;
    for (int64_t c = 0; c < chunks; ++c) s = __dadd_rn(s, __ldcg(partial + c * width + l));
    h[l] = s;
  }
  if (threadIdx.x == 0) *done = 0u;
}

// One block per (chunk, column) item: the chunk's products in shared memory (coalesced loads, many
// in flight), then chunk_sum. (Summing straight from global memory, each lane's chain of dependent
// loads left the device mostly waiting.)
__global__ void dots_kernel(const double* __restrict__ basis, int64_t n, int64_t cols, const double* __restrict__ w,
                            const double* __restrict__ a, const double* __restrict__ b, int64_t chunks, int64_t width,
                            double* __restrict__ partial, unsigned* __restrict__ done, double* __restrict__ h) {
  __shared__ double products[kEigenChunk];
  __shared__ double lanes[kEigenLanes];
  const int64_t item = blockIdx.x;
  const int64_t c = item / width, l = item % width;
  const double* x = l < cols ? basis + l * n : a;
  const double* y = l < cols ? w : b;
  const int64_t begin = c * kEigenChunk, len = (n - begin < kEigenChunk ? n - begin : kEigenChunk);
  for (int64_t i = threadIdx.x; i < len; i += blockDim.x) products[i] = __dmul_rn(x[begin + i], y[begin + i]);
  __syncthreads();
  const double sum = chunk_sum(products, len, lanes);
  if (threadIdx.x == 0) partial[item] = sum;
  finish_reduction(partial, chunks, width, done, h);
}

// One block per chunk: w_i -= h[l] basis_l,i for l in turn (subtracted), then the
// chunk's w_i * w_i summed by chunk_sum, and the last block adds the chunks into *norm2.
__global__ void subtract_norm_kernel(const double* __restrict__ basis, int64_t n, int64_t cols,
                                     const double* __restrict__ h, double* __restrict__ w, int64_t chunks,
                                     double* __restrict__ partial, unsigned* __restrict__ done,
                                     double* __restrict__ norm2) {
  __shared__ double products[kEigenChunk];
  __shared__ double lanes[kEigenLanes];
  const int64_t c = blockIdx.x;
  const int64_t begin = c * kEigenChunk, len = (n - begin < kEigenChunk ? n - begin : kEigenChunk);
  for (int64_t i = threadIdx.x; i < len; i += blockDim.x) {
    const double v = subtracted(basis, n, cols, h, w, begin + i);
    w[begin + i] = v;
    products[i] = __dmul_rn(v, v);
  }
  __syncthreads();
  const double sum = chunk_sum(products, len, lanes);
  if (threadIdx.x == 0) partial[c] = sum;
  finish_reduction(partial, chunks, 1, done, norm2);
}

__global__ void subtract_kernel(const double* __restrict__ basis, int64_t n, int64_t cols, const double* __restrict__ h,
                                double* __restrict__ w) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x)
    w[i] = subtracted(basis, n, cols, h, w, i);
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

__global__ void copy_scaled_kernel(const double* __restrict__ from, double* __restrict__ to, int64_t n, double factor) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x)
    to[i] = __dmul_rn(from[i], factor);
}

}  // namespace

cudaError_t eigen_dots(const double* basis, int64_t n, int64_t cols, const double* w, const double* a, const double* b,
                       double* partial, unsigned* done, double* h, cudaStream_t stream) {
  const int64_t chunks = chunk_count(n), width = cols + 1, items = chunks * width;
  if (items > 0x7FFFFFFF) return cudaErrorInvalidValue;  // one block per item (x grid limit 2^31 - 1)
  if (items == 0) return cudaMemsetAsync(h, 0, sizeof(double) * size_t(width), stream);
  dots_kernel<<<static_cast<unsigned>(items), kThreads, 0, stream>>>(basis, n, cols, w, a, b, chunks, width, partial,
                                                                      done, h);
  return cudaGetLastError();
}

cudaError_t eigen_subtract_norm(const double* basis, int64_t n, int64_t cols, const double* h, double* w,
                                double* partial, unsigned* done, double* norm2, cudaStream_t stream) {
  const int64_t chunks = chunk_count(n);
  if (chunks > 0x7FFFFFFF) return cudaErrorInvalidValue;
  if (chunks == 0) return cudaMemsetAsync(norm2, 0, sizeof(double), stream);
  subtract_norm_kernel<<<static_cast<unsigned>(chunks), kThreads, 0, stream>>>(basis, n, cols, h, w, chunks, partial,
                                                                                done, norm2);
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

cudaError_t eigen_copy_scaled(const double* from, double* to, int64_t n, double factor, cudaStream_t stream) {
  copy_scaled_kernel<<<grid_for(n), kThreads, 0, stream>>>(from, to, n, factor);
  return cudaGetLastError();
}

}  // namespace kernels
}  // namespace fc
