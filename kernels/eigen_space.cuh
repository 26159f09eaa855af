// Launchers of the eigensolver's vector operations on the device (src/core/leading_eigen.hpp's
// EigenSpace; src/backend/cuda/cuda_modularity.cpp drives them), each with the bits of the host's
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

// partial[c * (cols + 1) + l] = chunk c's sum of basis_l . w for l < cols, and of a . b for l = cols,
// for the chunk_count(n) chunks; then h[l] = the chunks' sums added in order to 0 (cols + 1 values).
// `partial` holds chunk_count(n) * (cols + 1) doubles.
cudaError_t eigen_dots(const double* basis, int64_t n, int64_t cols, const double* w, const double* a, const double* b,
                       double* partial, double* h, cudaStream_t stream);

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

// Newman's B^(g) x from the sparse sums y (core/modularity.cpp's finish):
// y_i = ((y_i - (gd_pos k_pos_i) p) + (gd_neg k_neg_i) q) - r_i x_i with p = pq[0], q = pq[1].
cudaError_t group_finish(double* y, const double* x, const double* k_pos, const double* k_neg, const double* r,
                         double gd_pos, double gd_neg, const double* pq, int64_t n, cudaStream_t stream);

}  // namespace kernels
}  // namespace fc
