// The CPU backend's partial correlation (backend/partial_backend.hpp), on the host in float64:
// R = Z Z^T by the CPU pair kernels on the context's threads (dense_products.hpp: the blocks of
// one triangle, about half a GEMM's work), the shrinkage and the partial correlations on that
// triangle only, and the inverse by block recursion with LAPACK's Cholesky inverse on the leaves
// (cholesky_inverse.cpp). No BLAS product: their rate is the CPU's, not the BLAS kernel's.
#include "backend/cpu/cpu_partial.hpp"

#include <cmath>
#include <vector>

#include "backend/cpu/cholesky_inverse.hpp"
#include "backend/cpu/dense_products.hpp"
#include "backend/cpu/cpu_tiles.hpp"

namespace fc {
namespace cpu {
namespace {

ShrinkageSums shrinkage_sums(const double* z, const double* m, int64_t n, int64_t t) {
  ShrinkageSums sums;
  for (int64_t i = 0; i < n; ++i) {
    const double* row = m + i * n;
    double off = 0.0;
    for (int64_t j = i + 1; j < n; ++j) off += row[j] * row[j];
    sums.trace += row[i];
    sums.frobenius += row[i] * row[i] + 2.0 * off;
  }
  std::vector<double> squares(static_cast<size_t>(t), 0.0);  // sum over series of z_ik^2, per sample
  for (int64_t i = 0; i < n; ++i)
    for (int64_t k = 0; k < t; ++k) squares[k] += z[i * t + k] * z[i * t + k];
  for (int64_t k = 0; k < t; ++k) sums.fourth += squares[k] * squares[k];
  return sums;
}

}  // namespace

double partial_upper(const SeriesView& s, const PartialRequest& request, double* m, const RunSettings& run) {
  const int64_t n = s.n, t = s.t;
  const CpuSeries& rows = cpu_storage(s);
  std::vector<double> wide;  // float rows widened once; double rows are read in place
  if (!rows.f64) wide.assign(rows.f32.get(), rows.f32.get() + n * t);
  const double* z = rows.f64 ? rows.f64.get() : wide.data();

  dense_products(n, n, t, z, t, z, t, m, n, false, true, run.threads);
  const ShrinkageSums sums = shrinkage_sums(z, m, n, t);
  const double used = request.shrinkage == FC_SHRINKAGE_LEDOIT_WOLF ? ledoit_wolf_intensity(n, t, sums) : request.shrinkage;
  const double mu = sums.trace / static_cast<double>(n);
  for (int64_t i = 0; i < n; ++i) {
    double* row = m + i * n;
    for (int64_t j = i; j < n; ++j) row[j] *= (1.0 - used);
    row[i] += used * mu;
  }

  const int64_t minor = cholesky_inverse_upper(m, n, run.threads);
  if (minor > 0) fail_not_positive_definite(minor, n, used);

  if (request.correlation) {
    std::vector<double> root(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) root[i] = std::sqrt(m[i * n + i]);
    for (int64_t i = 0; i < n; ++i) {
      double* row = m + i * n;
      for (int64_t j = i + 1; j < n; ++j) row[j] = -row[j] / (root[i] * root[j]);
      row[i] = 1.0;
    }
  }
  return used;
}

}  // namespace cpu
}  // namespace fc
