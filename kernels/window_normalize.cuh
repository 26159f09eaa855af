// Launchers of the windows' and low rank's device work: normalizing a time window of stored
// rows, and the float <-> double conversions that let the float64 cuBLAS routines read float
// storage. Plain declarations over raw device pointers and a stream; each returns the launch
// status (cudaGetLastError) for the caller to check.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace fc {
namespace kernels {

// The window [begin, begin + length) of n rows of t samples (row-major, src + s * t), with
// weights (length values > 0, or null for all 1): dst (n x length, row-major) gets, for each
// row's window y, sqrt(w) (y - m) / ||sqrt(w) (y - m)|| with m = sum(w y) / sum(w), in float64
// and rounded to the storage type once. A row whose window values are all equal (compared as
// stored) gets zeros and constant[s] = 1; every other row constant[s] = 0. One warp per row with
// a fixed butterfly reduction: the bits never depend on the launch or the scheduling.
struct WindowShape {
  int64_t n;
  int64_t t;
  int64_t begin;
  int64_t length;
};

cudaError_t window_normalize(const float* src, const WindowShape& shape, const double* weights, float* dst,
                             uint8_t* constant, cudaStream_t stream);
cudaError_t window_normalize(const double* src, const WindowShape& shape, const double* weights, double* dst,
                             uint8_t* constant, cudaStream_t stream);

// `count` windows in one launch (at most 65535), each exactly as window_normalize makes it:
// window i begins at shape.begin + i * step and goes to dst + i * dst_stride and
// constant + i * flags_stride (values, bytes).
struct WindowBatch {
  int64_t count = 1;
  int64_t step = 0, dst_stride = 0, flags_stride = 0;
};
cudaError_t window_normalize(const float* src, const WindowShape& shape, const WindowBatch& batch, const double* weights,
                             float* dst, uint8_t* constant, cudaStream_t stream);
cudaError_t window_normalize(const double* src, const WindowShape& shape, const WindowBatch& batch, const double* weights,
                             double* dst, uint8_t* constant, cudaStream_t stream);

// dst[i] = src[i] for i in [0, count), converted (double -> float rounds to nearest).
cudaError_t convert(const float* src, int64_t count, double* dst, cudaStream_t stream);
cudaError_t convert(const double* src, int64_t count, float* dst, cudaStream_t stream);

// dst[i] = (accumulate ? dst[i] : 0) + slices[0][i] + slices[1][i] + ... + slices[count - 1][i],
// added in slice order (slices[p] = slices + p * size): the batched Gram matrix's partial sums
// reduced in a fixed order, so the bits never depend on the launch.
cudaError_t sum_slices(const double* slices, int64_t count, int64_t size, bool accumulate, double* dst,
                       cudaStream_t stream);

}  // namespace kernels
}  // namespace fc
