#include "partial/partial.hpp"

#include <cblas.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "base/triangle_index.hpp"

// LAPACK (OpenBLAS ships it), column-major; the trailing length is gfortran's hidden CHARACTER length.
extern "C" void dpotrf_(const char* uplo, const int* n, double* a, const int* lda, int* info, size_t uplo_len);
extern "C" void dpotri_(const char* uplo, const int* n, double* a, const int* lda, int* info, size_t uplo_len);

namespace fc {
namespace {

void require_shrinkage(double shrinkage) {
  if (shrinkage == FC_SHRINKAGE_LEDOIT_WOLF) return;
  if (!(shrinkage >= 0.0 && shrinkage <= 1.0))
    fail(FC_ERR_INVALID_ARG, "shrinkage " + std::to_string(shrinkage) +
                                 " is outside [0, 1] and is not FC_SHRINKAGE_LEDOIT_WOLF (-1)");
}

void require_output(int output) {
  if (output != FC_PARTIAL_CORRELATION && output != FC_PARTIAL_PRECISION)
    fail(FC_ERR_INVALID_ARG, "output " + std::to_string(output) +
                                 " is neither FC_PARTIAL_CORRELATION (0) nor FC_PARTIAL_PRECISION (1)");
}

// OpenBLAS (OpenMP build) follows omp_get_max_threads: the context's thread count for the call.
struct ThreadScope {
  int saved;
  explicit ThreadScope(int threads) : saved(omp_get_max_threads()) {
    if (threads > 0) omp_set_num_threads(threads);
  }
  ~ThreadScope() { omp_set_num_threads(saved); }
};

// The whole n x n result (row-major, leading dimension n) into m; returns the intensity used.
double compute(const ContextState& ctx, const SeriesData& s, double shrinkage, int output, std::vector<double>& m) {
  require_shrinkage(shrinkage);
  require_output(output);
  const int64_t n = s.n, t = s.t;
  if (s.n_constant > 0) {
    const int64_t first = std::find(s.constant.begin(), s.constant.end(), uint8_t{1}) - s.constant.begin();
    fail(FC_ERR_INVALID_ARG, "series " + std::to_string(first) + " is constant (" + std::to_string(s.n_constant) +
                                 " constant in all): its partial correlations and precision row are undefined; "
                                 "leave constant series out of the set");
  }
  if (n > std::numeric_limits<int>::max())
    fail(FC_ERR_INVALID_ARG, "LAPACK takes 32-bit sizes; n_series " + std::to_string(n) + " exceeds them");
  if (shrinkage == 0.0 && n > t - 1)
    fail(FC_ERR_INVALID_ARG, "shrinkage 0 with " + std::to_string(n) + " series of " + std::to_string(t) +
                                 " samples: the correlation matrix has rank <= n_time - 1 = " + std::to_string(t - 1) +
                                 " and is not positive definite; pass a shrinkage > 0 or FC_SHRINKAGE_LEDOIT_WOLF");
  std::vector<double> z(static_cast<size_t>(n * t));
  if (!s.backend->rows_to_host(s.view(), z.data()))
    fail(FC_ERR_BACKEND_UNAVAILABLE, "partial correlation is not available on the " + s.backend->describe() + " backend yet");
  const ThreadScope threads(ctx.threads);

  // R = Z Z^T, the correlation matrix: the empirical covariance (divisor n_samples) of the data
  // standardized per series with the population sd, which is what sklearn's estimators see.
  m.assign(static_cast<size_t>(n * n), 0.0);
  cblas_dsyrk(CblasRowMajor, CblasUpper, CblasNoTrans, static_cast<int>(n), static_cast<int>(t), 1.0, z.data(),
              static_cast<int>(t), 0.0, m.data(), static_cast<int>(n));
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < i; ++j) m[i * n + j] = m[j * n + i];

  // sklearn.covariance.ledoit_wolf_shrinkage on X = sqrt(T) Z^T (n_samples T, n_features N):
  //   mu = tr(S)/N, delta_ = ||S||_F^2, beta_ = sum_ij sum_t X_ti^2 X_tj^2 = T^2 sum_t (sum_i z_it^2)^2,
  //   beta = (beta_/T - delta_) / (N T), delta = (delta_ - 2 mu tr(S) + N mu^2) / N,
  //   shrinkage = min(beta, delta) / delta (0 when beta is 0); a single feature gets 0.
  double trace = 0.0;
  for (int64_t i = 0; i < n; ++i) trace += m[i * n + i];
  const double mu = trace / static_cast<double>(n);
  double used = shrinkage;
  if (shrinkage == FC_SHRINKAGE_LEDOIT_WOLF) {
    if (n == 1) {
      used = 0.0;
    } else {
      std::vector<double> col(static_cast<size_t>(t), 0.0);
      for (int64_t i = 0; i < n; ++i)
        for (int64_t k = 0; k < t; ++k) col[k] += z[i * t + k] * z[i * t + k];
      double sum4 = 0.0, frob = 0.0;
      for (int64_t k = 0; k < t; ++k) sum4 += col[k] * col[k];
      for (double v : m) frob += v * v;
      const double dn = static_cast<double>(n), dt = static_cast<double>(t);
      double beta = (dt * sum4 - frob) / (dn * dt);
      const double delta = (frob - 2.0 * mu * trace + dn * mu * mu) / dn;
      beta = std::min(beta, delta);
      used = beta == 0.0 ? 0.0 : beta / delta;
    }
  }
  for (double& v : m) v *= (1.0 - used);
  for (int64_t i = 0; i < n; ++i) m[i * n + i] += used * mu;

  // Cholesky and inverse on one thread: OpenBLAS's threaded dpotrf was 10-40x slower than its
  // one-thread run at N = 1000 on the shared 2-core machine (bench/RESULTS-partial.md), and one
  // thread makes the bits independent of the thread count. The symmetric row-major matrix is its
  // own column-major transpose.
  const ThreadScope one_thread(1);
  const int ni = static_cast<int>(n);
  int info = 0;
  dpotrf_("L", &ni, m.data(), &ni, &info, 1);
  if (info > 0)
    fail(FC_ERR_INVALID_ARG, "the shrunk correlation matrix is not positive definite (leading minor " +
                                 std::to_string(info) + " of " + std::to_string(n) + ", shrinkage " + std::to_string(used) +
                                 "): pass a larger shrinkage or FC_SHRINKAGE_LEDOIT_WOLF");
  if (info < 0) fail(FC_ERR_INTERNAL, "dpotrf: argument " + std::to_string(-info) + " was invalid");
  dpotri_("L", &ni, m.data(), &ni, &info, 1);
  if (info != 0) fail(FC_ERR_INTERNAL, "dpotri failed (info " + std::to_string(info) + ")");
  // Column-major lower = row-major upper: mirror it into the lower triangle.
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < i; ++j) m[i * n + j] = m[j * n + i];

  if (output == FC_PARTIAL_CORRELATION) {
    std::vector<double> root(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) root[i] = std::sqrt(m[i * n + i]);
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j) m[i * n + j] = i == j ? 1.0 : -m[i * n + j] / (root[i] * root[j]);
  }
  return used;
}

}  // namespace

void partial_dense(const ContextState& ctx, const SeriesData& s, double shrinkage, int output, double* out, int64_t ld,
                   double* shrinkage_used) {
  require_not_null(out, "out");
  require_shrinkage(shrinkage);
  require_output(output);
  if (ld < s.n)
    fail(FC_ERR_BUFFER_TOO_SMALL, "ld " + std::to_string(ld) + " is smaller than n_series " + std::to_string(s.n));
  std::vector<double> m;
  const double used = compute(ctx, s, shrinkage, output, m);
  const int64_t n = s.n;
  for (int64_t i = 0; i < n; ++i) std::copy(m.data() + i * n, m.data() + (i + 1) * n, out + i * ld);
  if (shrinkage_used != nullptr) *shrinkage_used = used;
}

void partial_triu(const ContextState& ctx, const SeriesData& s, double shrinkage, int output, int order, double* out,
                  int64_t capacity, double* shrinkage_used) {
  require_shrinkage(shrinkage);
  require_output(output);
  if (order != FC_TRIU_ROW && order != FC_TRIU_COL)
    fail(FC_ERR_INVALID_ARG, "order " + std::to_string(order) + " is neither FC_TRIU_ROW (0) nor FC_TRIU_COL (1)");
  const int64_t n = s.n, count = triu_count(n);
  if (count > 0) require_not_null(out, "out");
  if (capacity < count)
    fail(FC_ERR_BUFFER_TOO_SMALL, "capacity " + std::to_string(capacity) + " is smaller than the triangle's " +
                                      std::to_string(count) + " values");
  std::vector<double> m;
  const double used = compute(ctx, s, shrinkage, output, m);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = i + 1; j < n; ++j)
      out[order == FC_TRIU_ROW ? row_offset(n, i, j) : col_offset(i, j)] = m[i * n + j];
  if (shrinkage_used != nullptr) *shrinkage_used = used;
}

}  // namespace fc
