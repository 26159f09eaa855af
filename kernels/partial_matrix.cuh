// Launchers of the partial correlation's device steps (backend/cuda/cuda_partial.cpp) on an
// n x n float64 matrix of which only the column-major lower triangle is used (cuBLAS's and
// cuSOLVER's "lower"), which is the row-major upper one: element (i, j), j >= i, at m[i * n + j].
// Each product and sum is rounded once (__dmul_rn / __dadd_rn: no fused multiply-add), as the
// CPU backend computes them (cpu/cpu_partial.cpp); each returns the launch status.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace fc {
namespace kernels {

// Blocks of shrinkage_sums' first pass: partials holds 3 x kShrinkageBlocks doubles.
constexpr int kShrinkageBlocks = 256;

// sums[0] = trace(m), sums[1] = ||m||_F^2 (the off-diagonal terms counted twice), sums[2] = sum
// over samples k of squares[k]^2 with squares[k] = sum_i z[i * t + k]^2 (z: n x t row-major).
// squares: t doubles, partials: 3 x kShrinkageBlocks doubles of scratch. A fixed grid and a fixed
// reduction tree: the same bits run after run.
cudaError_t shrinkage_sums(const double* m, const double* z, int64_t n, int64_t t, double* squares, double* partials,
                           double* sums, cudaStream_t stream);

// m_ij = m_ij * (1 - a) for j >= i, then m_ii += a * mu.
cudaError_t shrink_upper(double* m, int64_t n, double a, double mu, cudaStream_t stream);

// The precision P in m's upper triangle to -P_ij / (sqrt(P_ii) sqrt(P_jj)), diagonal 1. root: n
// doubles of scratch.
cudaError_t precision_to_partial(double* m, int64_t n, double* root, cudaStream_t stream);

}  // namespace kernels
}  // namespace fc
