#include "backend/cpu/dense_products.hpp"

#include <algorithm>

#include "backend/cpu/pair_kernels.hpp"
#include "base/parallel_team.hpp"

namespace fc {
namespace cpu {

namespace {
// Columns per chunk: a multiple of every path's panel width (8, 16, 24 are the kernels' widths),
// small enough that two threads get several chunks of a 500-column product (dynamic balance for
// the upper-only case, whose chunks grow with their column), large enough that a's rows are read
// from cache far more often than b's chunk is packed.
constexpr int64_t kChunkCols = 96;
}  // namespace

void dense_products(int64_t m, int64_t n, int64_t k, const double* a, int64_t lda, const double* b, int64_t ldb, double* c,
                    int64_t ldc, bool accumulate, bool upper, int threads) {
  if (m <= 0 || n <= 0) return;
  const int64_t chunks = (n + kChunkCols - 1) / kChunkCols;
  const int team = parallel_team(m * n * std::max<int64_t>(k, 1) / 16, threads, chunks);
#pragma omp parallel for schedule(dynamic, 1) num_threads(team) if (team > 1)
  for (int64_t step = 0; step < chunks; ++step) {
    // Upper: rows below a chunk's last column hold no j >= i of it, so the chunks grow with their
    // column: the largest first, for the dynamic schedule to even out.
    const int64_t x = upper ? chunks - 1 - step : step;
    const int64_t j0 = x * kChunkCols, j1 = std::min(n, j0 + kChunkCols);
    const int64_t rows = upper ? std::min(m, j1) : m;
    if (k == 0) {
      if (!accumulate)
        for (int64_t i = 0; i < rows; ++i) std::fill(c + i * ldc + j0, c + i * ldc + j1, 0.0);
      continue;
    }
    row_products(rows, j1 - j0, k, a, lda, b + j0 * ldb, ldb, c + j0, ldc, accumulate);
  }
}

}  // namespace cpu
}  // namespace fc
