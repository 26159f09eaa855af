// Window normalization and precision conversion (see window_normalize.cuh).
//
// One warp per row: a window is short (tens to a few thousand samples), so 32 lanes striding
// along it read coalesced and a warp-level reduction needs no shared memory or second pass.
// Each lane sums its samples in index order, then a xor butterfly adds the 32 partial sums in a
// fixed tree; lanes i and i^m add the same two values (a + b == b + a exactly), so every lane
// ends with the same bits and the result never depends on timing. Every operation is spelled out
// (__fma_rn, __dadd_rn, ...: nothing left to nvcc's contraction), because the CPU backend
// (cpu_window.cpp, window_rows) repeats this very order and rounding on the host so that both
// backends normalize a window to the same bits.
#include "kernels/window_normalize.cuh"

#include <algorithm>

namespace fc {
namespace kernels {
namespace {

constexpr int kThreads = 256;
constexpr int kWarp = 32;
constexpr int kRowsPerBlock = kThreads / kWarp;
constexpr unsigned kAllLanes = 0xffffffffu;

__device__ __forceinline__ double warp_sum(double v) {
  for (int mask = kWarp / 2; mask > 0; mask /= 2) v = __dadd_rn(v, __shfl_xor_sync(kAllLanes, v, mask));
  return v;
}

// Window blockIdx.y of a batch: begin + blockIdx.y * batch.step, into dst and constant at
// blockIdx.y times their strides (a batch of one: blockIdx.y = 0).
template <class T>
__global__ void __launch_bounds__(kThreads) window_normalize_kernel(const T* __restrict__ src, WindowShape shape,
                                                                    WindowBatch batch,
                                                                    const double* __restrict__ weights,
                                                                    T* __restrict__ dst,
                                                                    uint8_t* __restrict__ constant) {
  shape.begin += int64_t(blockIdx.y) * batch.step;
  dst += int64_t(blockIdx.y) * batch.dst_stride;
  constant += int64_t(blockIdx.y) * batch.flags_stride;
  const int lane = static_cast<int>(threadIdx.x) % kWarp;
  const int64_t first_row = int64_t(blockIdx.x) * kRowsPerBlock + threadIdx.x / kWarp;
  const int64_t row_stride = int64_t(gridDim.x) * kRowsPerBlock;
  const int64_t length = shape.length;
  // The row loop is uniform across a warp (row depends on the warp only), so the shuffles below
  // always run with all 32 lanes.
  for (int64_t row = first_row; row < shape.n; row += row_stride) {
    const T* y = src + row * shape.t + shape.begin;
    T* z = dst + row * length;
    const T first = y[0];
    bool equal = true;
    double sum_w = 0.0, sum_wy = 0.0;
    for (int64_t k = lane; k < length; k += kWarp) {
      const T v = y[k];
      const double w = weights != nullptr ? weights[k] : 1.0;
      equal = equal && v == first;
      sum_w = __dadd_rn(sum_w, w);
      sum_wy = __fma_rn(w, static_cast<double>(v), sum_wy);
    }
    equal = __all_sync(kAllLanes, equal);
    double ss = 0.0;
    double mean = 0.0;
    if (!equal) {
      sum_w = warp_sum(sum_w);
      sum_wy = warp_sum(sum_wy);
      mean = __ddiv_rn(sum_wy, sum_w);
      for (int64_t k = lane; k < length; k += kWarp) {
        const double w = weights != nullptr ? weights[k] : 1.0;
        const double d = __dmul_rn(__dsqrt_rn(w), __dsub_rn(static_cast<double>(y[k]), mean));
        ss = __fma_rn(d, d, ss);
      }
      ss = warp_sum(ss);
    }
    // Values that differ always leave ss > 0 at these magnitudes; the test also keeps a row that
    // would divide by zero out of the results (it is then constant for every caller).
    if (equal || !(ss > 0.0)) {
      for (int64_t k = lane; k < length; k += kWarp) z[k] = T(0);
      if (lane == 0) constant[row] = 1;
      continue;
    }
    const double norm = __dsqrt_rn(ss);
    for (int64_t k = lane; k < length; k += kWarp) {
      const double w = weights != nullptr ? weights[k] : 1.0;
      z[k] = static_cast<T>(__ddiv_rn(__dmul_rn(__dsqrt_rn(w), __dsub_rn(static_cast<double>(y[k]), mean)), norm));
    }
    if (lane == 0) constant[row] = 0;
  }
}

template <class T>
cudaError_t launch_window(const T* src, const WindowShape& shape, const WindowBatch& batch, const double* weights, T* dst,
                          uint8_t* constant, cudaStream_t stream) {
  if (shape.n <= 0 || shape.length <= 0 || batch.count <= 0) return cudaSuccess;
  if (batch.count > 65535) return cudaErrorInvalidConfiguration;
  const int64_t blocks = std::min<int64_t>((shape.n + kRowsPerBlock - 1) / kRowsPerBlock, int64_t(1) << 20);
  const dim3 grid(static_cast<unsigned>(blocks), static_cast<unsigned>(batch.count));
  window_normalize_kernel<T><<<grid, kThreads, 0, stream>>>(src, shape, batch, weights, dst, constant);
  return cudaGetLastError();
}

template <class In, class Out>
__global__ void __launch_bounds__(kThreads) convert_kernel(const In* __restrict__ src, int64_t count, Out* __restrict__ dst) {
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride) dst[i] = static_cast<Out>(src[i]);
}

template <class In, class Out>
cudaError_t launch_convert(const In* src, int64_t count, Out* dst, cudaStream_t stream) {
  if (count <= 0) return cudaSuccess;
  const int64_t blocks = std::min<int64_t>((count + kThreads - 1) / kThreads, int64_t(1) << 16);
  convert_kernel<In, Out><<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(src, count, dst);
  return cudaGetLastError();
}

__global__ void __launch_bounds__(kThreads) sum_slices_kernel(const double* __restrict__ slices, int64_t count,
                                                               int64_t size, bool accumulate, double* __restrict__ dst) {
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < size; i += stride) {
    double sum = accumulate ? dst[i] : 0.0;
    for (int64_t p = 0; p < count; ++p) sum += slices[p * size + i];
    dst[i] = sum;
  }
}

}  // namespace

cudaError_t sum_slices(const double* slices, int64_t count, int64_t size, bool accumulate, double* dst,
                       cudaStream_t stream) {
  if (size <= 0) return cudaSuccess;
  const int64_t blocks = std::min<int64_t>((size + kThreads - 1) / kThreads, int64_t(1) << 16);
  sum_slices_kernel<<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(slices, count, size, accumulate, dst);
  return cudaGetLastError();
}

cudaError_t window_normalize(const float* src, const WindowShape& shape, const double* weights, float* dst,
                             uint8_t* constant, cudaStream_t stream) {
  return launch_window(src, shape, WindowBatch{}, weights, dst, constant, stream);
}
cudaError_t window_normalize(const double* src, const WindowShape& shape, const double* weights, double* dst,
                             uint8_t* constant, cudaStream_t stream) {
  return launch_window(src, shape, WindowBatch{}, weights, dst, constant, stream);
}
cudaError_t window_normalize(const float* src, const WindowShape& shape, const WindowBatch& batch, const double* weights,
                             float* dst, uint8_t* constant, cudaStream_t stream) {
  return launch_window(src, shape, batch, weights, dst, constant, stream);
}
cudaError_t window_normalize(const double* src, const WindowShape& shape, const WindowBatch& batch, const double* weights,
                             double* dst, uint8_t* constant, cudaStream_t stream) {
  return launch_window(src, shape, batch, weights, dst, constant, stream);
}

cudaError_t convert(const float* src, int64_t count, double* dst, cudaStream_t stream) {
  return launch_convert(src, count, dst, stream);
}
cudaError_t convert(const double* src, int64_t count, float* dst, cudaStream_t stream) {
  return launch_convert(src, count, dst, stream);
}

}  // namespace kernels
}  // namespace fc
