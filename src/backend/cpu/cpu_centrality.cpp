// The CPU backend's centrality capability (backend/centrality_backend.hpp): y = Z (Z^T x) over the
// stored rows in float64, in the order the interface fixes, so that the bits are those of the CUDA
// kernels (kernels/series_products.cu) and never depend on the thread count. Own loops rather than
// CBLAS dgemv: BLAS fixes no summation order, and the work is bound by reading Z twice anyway.
// Built with -ffp-contract=off (CMakeLists.txt): no fused multiply-add, whatever -march adds.
#include "backend/cpu/cpu_centrality.hpp"

#include <omp.h>

#include <algorithm>
#include <vector>

#include "backend/cpu/cpu_tiles.hpp"

namespace fc {
namespace cpu {
namespace {

template <class C>
void gram_product_rows(const C* z, int64_t n, int64_t t, const double* x, double* y, int threads) {
  const int64_t chunks = (n + kCentralityChunkRows - 1) / kCentralityChunkRows;
  // p_c (chunks x t): each chunk's partial Z^T x, its rows ascending.
  std::vector<double> partial(static_cast<size_t>(chunks * t));
  const int team = static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(threads, chunks)));
#pragma omp parallel for schedule(static) num_threads(team)
  for (int64_t c = 0; c < chunks; ++c) {
    double* p = partial.data() + c * t;
    std::fill(p, p + t, 0.0);
    const int64_t e = std::min(n, (c + 1) * kCentralityChunkRows);
    for (int64_t i = c * kCentralityChunkRows; i < e; ++i) {
      const C* row = z + i * t;
      const double xi = x[i];
      for (int64_t k = 0; k < t; ++k) p[k] += static_cast<double>(row[k]) * xi;
    }
  }
  std::vector<double> u(static_cast<size_t>(t), 0.0);
  for (int64_t c = 0; c < chunks; ++c)
    for (int64_t k = 0; k < t; ++k) u[k] += partial[c * t + k];

  const int64_t full = t - t % kCentralityLanes;
  const int rows_team = static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(threads, (n * t) / 65536 + 1)));
#pragma omp parallel for schedule(static) num_threads(rows_team)
  for (int64_t i = 0; i < n; ++i) {
    const C* row = z + i * t;
    double lane[kCentralityLanes] = {0, 0, 0, 0, 0, 0, 0, 0};
    for (int64_t k = 0; k < full; k += kCentralityLanes)
      for (int l = 0; l < kCentralityLanes; ++l) lane[l] += static_cast<double>(row[k + l]) * u[k + l];
    for (int64_t k = full; k < t; ++k) lane[k - full] += static_cast<double>(row[k]) * u[k];
    y[i] = ((lane[0] + lane[1]) + (lane[2] + lane[3])) + ((lane[4] + lane[5]) + (lane[6] + lane[7]));
  }
}

}  // namespace

void gram_product(const SeriesView& s, const double* x, double* y, const RunSettings& run) {
  const CpuSeries& st = cpu_storage(s);
  const int threads = run.threads > 0 ? run.threads : omp_get_max_threads();
  if (st.f64)
    gram_product_rows(st.f64.get(), s.n, s.t, x, y, threads);
  else
    gram_product_rows(st.f32.get(), s.n, s.t, x, y, threads);
}

}  // namespace cpu
}  // namespace fc
