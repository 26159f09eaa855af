// The GEMM shapes the CUDA backend uses, shared by the PCC paths and the network primitives
// (which must compute the same products, bit for bit, over the same tiles).
#pragma once

#include <cublas_v2.h>

#include <cstdint>

#include "backend/cuda/band_plan.hpp"
#include "backend/cuda/cuda_check.hpp"

namespace fc {
namespace cuda {

// C (m x n, column-major, ldc) = A^T B, with A = k x m and B = k x n column-major (ld k): the
// series are rows of a row-major n x t matrix, i.e. columns of a column-major t x n one.
inline void gemm_tn(cublasHandle_t h, int64_t m, int64_t n, int64_t k, const float* a, const float* b, float* c,
                    int64_t ldc) {
  const float one = 1.0f, zero = 0.0f;
  FC_CUBLAS(cublasSgemm(h, CUBLAS_OP_T, CUBLAS_OP_N, (int)m, (int)n, (int)k, &one, a, (int)k, b, (int)k, &zero, c, (int)ldc));
}
inline void gemm_tn(cublasHandle_t h, int64_t m, int64_t n, int64_t k, const double* a, const double* b, double* c,
                    int64_t ldc) {
  const double one = 1.0, zero = 0.0;
  FC_CUBLAS(cublasDgemm(h, CUBLAS_OP_T, CUBLAS_OP_N, (int)m, (int)n, (int)k, &one, a, (int)k, b, (int)k, &zero, c, (int)ldc));
}

// The GEMM of one triangle band (band_plan.hpp): tile (ld x rows, leading dimension ld) holds
// <z_p, z_q> for p in [p0, p0 + ld), q in [q0, q1), of the normalized rows z (n x t, float or
// double as f64 says). fc_pcc_triu and the network primitives both call this, so that a pair's r
// is the same bits in the triangle and in the network.
inline void gemm_triangle_band(cublasHandle_t h, const TriuBand& b, int64_t t, const void* z, bool f64, void* tile) {
  const int64_t rows = b.q1 - b.q0;
  if (f64) {
    const double* zd = static_cast<const double*>(z);
    gemm_tn(h, b.ld, rows, t, zd + b.p0 * t, zd + b.q0 * t, static_cast<double*>(tile), b.ld);
  } else {
    const float* zf = static_cast<const float*>(z);
    gemm_tn(h, b.ld, rows, t, zf + b.p0 * t, zf + b.q0 * t, static_cast<float*>(tile), b.ld);
  }
}

}  // namespace cuda
}  // namespace fc
