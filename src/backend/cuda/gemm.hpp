// The products the CUDA backend computes, shared by the PCC paths and the network primitives
// (which must compute the same products, bit for bit).
#pragma once

#include <cublas_v2.h>

#include <cstdint>

#include "backend/cuda/band_plan.hpp"
#include "backend/cuda/cuda_check.hpp"
#include "kernels/pair_products.cuh"

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

// The normalized rows of a series set as the products read them: the n x t rows (cuBLAS, under
// TF32) and, in FP32 and FP64, the k-major copy of kernels/pair_products.cuh (ld, t_pad).
struct Operand {
  const void* rows = nullptr;
  const void* kmajor = nullptr;  // null: TF32 tensor-core products through cuBLAS
  int64_t t = 0, t_pad = 0, ld = 0;
  bool f64 = false;
};

// c[(q - q0) * ldc + (p - p0)] = <z_p, z_q> for p in [p0, p0 + np) of `cols` and q in
// [q0, q0 + nq) of `rows`, on h's stream. Every product the backend makes goes through here: in
// FP32 and FP64 each is one fma chain over k ascending wherever it is computed (one answer per
// pair, whatever the call, band or memory limit); under TF32, cuBLAS's tensor cores decide.
inline void pair_products(cublasHandle_t h, const Operand& cols, int64_t p0, int64_t np, const Operand& rows, int64_t q0,
                          int64_t nq, void* c, int64_t ldc) {
  const int64_t t = cols.t;
  if (cols.kmajor == nullptr || rows.kmajor == nullptr) {
    if (cols.f64)
      gemm_tn(h, np, nq, t, static_cast<const double*>(cols.rows) + p0 * t, static_cast<const double*>(rows.rows) + q0 * t,
              static_cast<double*>(c), ldc);
    else
      gemm_tn(h, np, nq, t, static_cast<const float*>(cols.rows) + p0 * t, static_cast<const float*>(rows.rows) + q0 * t,
              static_cast<float*>(c), ldc);
    return;
  }
  cudaStream_t stream = nullptr;
  FC_CUBLAS(cublasGetStream(h, &stream));
  const cudaError_t launched =
      cols.f64 ? kernels::pair_products(static_cast<const double*>(cols.kmajor), cols.ld, p0, np,
                                        static_cast<const double*>(rows.kmajor), rows.ld, q0, nq, cols.t_pad,
                                        static_cast<double*>(c), ldc, stream)
               : kernels::pair_products(static_cast<const float*>(cols.kmajor), cols.ld, p0, np,
                                        static_cast<const float*>(rows.kmajor), rows.ld, q0, nq, cols.t_pad,
                                        static_cast<float*>(c), ldc, stream);
  check_cuda(launched, "pair_products kernel launch");
}

// The products of one triangle band (band_plan.hpp): tile (ld x rows, leading dimension ld) holds
// <z_p, z_q> for p in [p0, p0 + ld), q in [q0, q1). fc_pcc_triu and the network primitives both
// call this.
inline void gemm_triangle_band(cublasHandle_t h, const TriuBand& b, const Operand& z, void* tile) {
  pair_products(h, z, b.p0, b.ld, z, b.q0, b.q1 - b.q0, tile, b.ld);
}

}  // namespace cuda
}  // namespace fc
