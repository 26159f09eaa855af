// Inverse of an SPD matrix by 2 x 2 block recursion on Schur complements (the block form of
// Cholesky, stable without pivoting for SPD input): with S = [A B; B^T D],
//   Ai = A^-1 (recursion), W = Ai B, Sc = D - B^T W (the Schur complement, SPD), Sci = Sc^-1
//   (recursion), S^-1 = [Ai + W Sci W^T, -W Sci; ., Sci].
// About N^3 flops, as LAPACK's dpotrf + dpotri, but in four large products per level that run
// near the GEMM rate on the context's threads, where OpenBLAS's own threaded dpotrf was 10-40x
// slower than one thread at N = 1000 on the shared 2-core machine and one-thread dpotrf + dpotri
// left the second core idle (bench/RESULTS-partial.md). The products are the CPU pair kernels'
// (dense_products.hpp), not BLAS dsymm/dgemm: their rate follows the CPU's features, where
// Debian's OpenBLAS runs SSE3 kernels on newer Xeons (issue 30). Leaves of <= kLeaf rows run
// LAPACK's dpotrf + dpotri on one thread (row-major upper is column-major lower, "L"): a few
// percent of the flops.
// Leading minors: A's are S's first ones, and for k > rows(A), S's k-th leading minor is positive
// definite exactly when A is and Sc's (k - rows(A))-th is (det S_k = det A det Sc_(k-a)), so a
// failure's order is the offset of the block plus its own.
#include "backend/cpu/cholesky_inverse.hpp"

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

#include "backend/cpu/dense_products.hpp"
#include "backend/cpu/cpu_tiles.hpp"
#include "base/error.hpp"
#include "base/huge_pages.hpp"

// LAPACK (OpenBLAS ships it), column-major; the trailing length is gfortran's hidden CHARACTER length.
extern "C" void dpotrf_(const char* uplo, const int* n, double* a, const int* lda, int* info, size_t uplo_len);
extern "C" void dpotri_(const char* uplo, const int* n, double* a, const int* lda, int* info, size_t uplo_len);

namespace fc {
namespace cpu {
namespace {

constexpr int64_t kLeaf = 128;

// Rows of A: about half, at a multiple of the leaf size (aligned leaves and GEMM panels).
int64_t split_of(int64_t n) { return std::max<int64_t>(kLeaf, (n / 2 + kLeaf / 2) / kLeaf * kLeaf); }

// Values of work block_inverse needs for n rows: this level's W (m x r) stays live while Sc's
// recursion runs beside it, and before that B^T and -W^T (r x m each) where Sc's recursion will
// run; A's recursion runs before W exists.
int64_t work_values(int64_t n) {
  if (n <= kLeaf) return 0;
  const int64_t m = split_of(n), r = n - m;
  return std::max(work_values(m), m * r + std::max(2 * m * r, work_values(r)));
}

// One thread: dpotrf + dpotri of the n x n block at a (leading dimension lda).
int64_t leaf_inverse(double* a, int64_t n, int64_t lda) {
  const ThreadScope one_thread(1);
  const int ni = static_cast<int>(n), ld = static_cast<int>(lda);
  int info = 0;
  dpotrf_("L", &ni, a, &ld, &info, 1);
  if (info > 0) return info;
  if (info < 0) fail(FC_ERR_INTERNAL, "dpotrf: argument " + std::to_string(-info) + " was invalid");
  dpotri_("L", &ni, a, &ld, &info, 1);
  if (info != 0) fail(FC_ERR_INTERNAL, "dpotri failed (info " + std::to_string(info) + ")");
  return 0;
}

// dst[j * ldd + i] = sign * src[i * lds + j] for i < rows, j < cols, in 32 x 32 blocks.
void transpose(const double* src, int64_t lds, int64_t rows, int64_t cols, double sign, double* dst, int64_t ldd) {
  constexpr int64_t kBlock = 32;
  for (int64_t i0 = 0; i0 < rows; i0 += kBlock)
    for (int64_t j0 = 0; j0 < cols; j0 += kBlock)
      for (int64_t j = j0; j < std::min(cols, j0 + kBlock); ++j)
        for (int64_t i = i0; i < std::min(rows, i0 + kBlock); ++i) dst[j * ldd + i] = sign * src[i * lds + j];
}

// The block at a (n x n, leading dimension lda) inverted in place; work: work_values(n) values.
// Products as rows against rows (dense_products: A B^T), so the operands whose columns a product
// needs are transposed first (O(n^2) copies against O(n^3) products); the blocks' lower triangles
// are scratch until mirrored from the upper ones.
int64_t block_inverse(double* a, int64_t n, int64_t lda, double* work, int threads) {
  if (n <= kLeaf) return leaf_inverse(a, n, lda);
  const int64_t m = split_of(n);
  const int64_t r = n - m;
  double* A = a;
  double* B = a + m;             // m x r, upper right
  double* D = a + m * lda + m;   // r x r, lower right
  double* W = work;              // m x r, leading dimension r; later V = -W
  double* Bt = work + m * r;     // r x m: B^T, then (with Vt) where Sc's recursion runs
  double* Vt = Bt + m * r;       // r x m: -W^T
  if (const int64_t minor = block_inverse(A, m, lda, work, threads)) return minor;
  mirror_lower(A, m, lda, threads);
  transpose(B, lda, m, r, 1.0, Bt, m);
  // W = Ai B; then Sc = D - B^T W = D + B^T (-W), its upper triangle.
  dense_products(m, r, m, A, lda, Bt, m, W, r, false, false, threads);
  transpose(W, r, m, r, -1.0, Vt, m);
  dense_products(r, r, m, Bt, m, Vt, m, D, lda, true, true, threads);
  if (const int64_t minor = block_inverse(D, r, lda, work + m * r, threads)) return m + minor;
  mirror_lower(D, r, lda, threads);
  for (int64_t x = 0; x < m * r; ++x) W[x] = -W[x];
  // B = -W Sci = V Sci, then A = Ai - B W^T = Ai + B V^T (its upper triangle).
  dense_products(m, r, r, W, r, D, lda, B, lda, false, false, threads);
  dense_products(m, m, r, B, lda, W, r, A, lda, true, true, threads);
  return 0;
}

}  // namespace

int64_t cholesky_inverse_upper(double* m, int64_t n, int threads) {
  const HugeBuffer<double> work = huge_buffer<double>(static_cast<size_t>(work_values(n)));
  return block_inverse(m, n, n, work.get(), threads);
}

}  // namespace cpu
}  // namespace fc
