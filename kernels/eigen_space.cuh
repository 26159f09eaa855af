// Launchers of the eigensolver's vector operations on the device (src/backend/eigen_space.hpp's
// EigenSpace; src/backend/cuda/cuda_modules.cpp drives them), each with the bits of the host's
// (leading_eigen.cpp): every product and sum rounded once (__dmul_rn, __dadd_rn, no fused
// multiply-add) and every reduction in chunk_dot's order. Vectors of n doubles; a basis is `cols`
// vectors stored one after another (vector l at basis + l * n). Each returns the launch status.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace fc {
namespace kernels {

// Chunks of kEigenChunk elements (leading_eigen.hpp's kReductionChunk), kEigenLanes interleaved
// sums in each (kReductionLanes).
constexpr int64_t kEigenChunk = 2048;
constexpr int kEigenLanes = 8;

// h[l] = basis_l . w for l < cols and h[cols] = a . b, one launch: block (c, l) writes chunk c's sum
// to partial[c * (cols + 1) + l] (partial: chunk_count(n) * (cols + 1) doubles), and the last block
// to finish adds each column's chunks in order. `done`: a device counter that is 0 before the
// launch and is 0 again after it (the kernel resets it); launches that share one must not overlap
// (one stream).
cudaError_t eigen_dots(const double* basis, int64_t n, int64_t cols, const double* w, const double* a, const double* b,
                       double* partial, unsigned* done, double* h, cudaStream_t stream);

// eigen_subtract, then *norm2 = w . w (the bits of eigen_dots of w with itself), in one launch
// (partial: chunk_count(n) doubles; done as for eigen_dots).
cudaError_t eigen_subtract_norm(const double* basis, int64_t n, int64_t cols, const double* h, double* w,
                                double* partial, unsigned* done, double* norm2, cudaStream_t stream);

// w_i -= h[l] basis_l,i for l = 0 .. cols-1 in turn (h on the device).
cudaError_t eigen_subtract(const double* basis, int64_t n, int64_t cols, const double* h, double* w, cudaStream_t stream);

// out_c,i = sum over l < cols of basis_l,i * y[l * ldy + c] from 0, l in order, for c < k (out_c at
// out + c * n; y on the device).
cudaError_t eigen_combine(const double* basis, int64_t n, int64_t cols, const double* y, int64_t ldy, int64_t k,
                          double* out, cudaStream_t stream);

// x_i *= factor.
cudaError_t eigen_scale(double* x, int64_t n, double factor, cudaStream_t stream);

// y_i -= alpha x_i.
cudaError_t eigen_subtract_scaled(const double* x, double alpha, double* y, int64_t n, cudaStream_t stream);

// to_i = from_i * factor (a copy and eigen_scale in one).
cudaError_t eigen_copy_scaled(const double* from, double* to, int64_t n, double factor, cudaStream_t stream);

}  // namespace kernels
}  // namespace fc
