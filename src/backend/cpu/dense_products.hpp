// Dense float64 products on the context's threads through the CPU pair kernels (row_products in
// pair_kernels.hpp): the partial correlation's R = Z Z^T and its block inverse's four products per
// level. They replace BLAS dsyrk / dsymm / dgemm there, whose rate is whatever kernel the BLAS
// library picked at load time (Debian's OpenBLAS 0.3.21 picks its SSE3 kernels on newer Xeons, a
// fifth of their AVX-512 rate: issue 30), so these calls run at the pair kernels' rate everywhere.
#pragma once

#include <cstdint>

namespace fc {
namespace cpu {

// c[i * ldc + j] (+)= sum_l a[i * lda + l] * b[j * ldb + l] for i < m, j < n (rows of a against
// rows of b, k values each): A B^T with both operands row-major. accumulate: c += the products;
// else c = them. upper: only the blocks that hold some j >= i are computed (m <= n; the rest of c
// is left as it was or filled with partial garbage below the diagonal: callers read j >= i only).
// Columns are split among `threads` (0 = OpenMP's default) in chunks, each packed once.
void dense_products(int64_t m, int64_t n, int64_t k, const double* a, int64_t lda, const double* b, int64_t ldb, double* c,
                    int64_t ldc, bool accumulate, bool upper, int threads);

}  // namespace cpu
}  // namespace fc
