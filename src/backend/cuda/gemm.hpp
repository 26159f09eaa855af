// The one GEMM shape the CUDA backend uses, shared by the PCC paths and the network primitives
// (which must compute the same products, bit for bit, over the same tiles).
#pragma once

#include <cublas_v2.h>

#include <cstdint>

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

}  // namespace cuda
}  // namespace fc
