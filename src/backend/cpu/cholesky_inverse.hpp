// The inverse of a symmetric positive definite matrix on the host: Schur-complement block
// recursion whose products are BLAS-3 calls on the context's threads, with LAPACK's Cholesky
// inverse on the leaf blocks (cholesky_inverse.cpp says why).
#pragma once

#include <cstdint>

namespace fc {
namespace cpu {

// m: n x n, row-major, of which only the upper triangle (j >= i) is read: replaced by the upper
// triangle of the inverse; the strict lower triangle is scratch (overwritten). threads: BLAS
// threads for the block products (0: OpenMP's default); the leaves run on one thread. The same
// bits run after run for one thread count. Returns 0, or the 1-based order of the first leading
// minor found not positive definite (m is then partly overwritten).
int64_t cholesky_inverse_upper(double* m, int64_t n, int threads);

}  // namespace cpu
}  // namespace fc
