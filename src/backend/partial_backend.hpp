// The partial-correlation capability of a backend: the precision P = S^-1 of the shrunk
// correlation matrix S = (1 - a) R + a mu I of the stored rows (R = Z Z^T), and from it the
// partial correlations (src/partial/ validates and lays the result out; cpu/cpu_partial.cpp
// runs LAPACK on the host, cuda/cuda_partial.cpp cuBLAS and cuSOLVER on the device). The
// intensity a comes from the same formula on both (ledoit_wolf_intensity below) applied to sums
// each backend makes in its own order, so the two agree to rounding, not to the bit.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>

#include "backend/series_storage.hpp"
#include "base/error.hpp"
#include "base/run_settings.hpp"

namespace fc {

struct PartialRequest {
  double shrinkage = 0.0;    // in [0, 1], or FC_SHRINKAGE_LEDOIT_WOLF (-1): validated by the caller
  bool correlation = true;   // true: -P_ij / sqrt(P_ii P_jj) (diagonal 1); false: P itself
};

// What Ledoit-Wolf's intensity is made of, over R = Z Z^T (n x n) and the n x t rows Z:
// trace(R), ||R||_F^2 and sum over samples k of (sum_i z_ik^2)^2.
struct ShrinkageSums {
  double trace = 0.0, frobenius = 0.0, fourth = 0.0;
};

// sklearn.covariance.ledoit_wolf_shrinkage on X = sqrt(T) Z^T (n_samples T, n_features N):
//   mu = tr(S)/N, delta_ = ||S||_F^2, beta_ = sum_ij sum_t X_ti^2 X_tj^2 = T^2 sum_t (sum_i z_it^2)^2,
//   beta = (beta_/T - delta_) / (N T), delta = (delta_ - 2 mu tr(S) + N mu^2) / N,
//   shrinkage = min(beta, delta) / delta (0 when beta is 0); a single feature gets 0.
inline double ledoit_wolf_intensity(int64_t n, int64_t t, const ShrinkageSums& sums) {
  if (n == 1) return 0.0;
  const double dn = static_cast<double>(n), dt = static_cast<double>(t);
  const double mu = sums.trace / dn;
  const double delta = (sums.frobenius - 2.0 * mu * sums.trace + dn * mu * mu) / dn;
  const double beta = std::min((dt * sums.fourth - sums.frobenius) / (dn * dt), delta);
  return beta == 0.0 ? 0.0 : beta / delta;
}

// The error of a Cholesky factorization that stops at leading minor `minor` (1-based), the same
// words from every backend.
[[noreturn]] inline void fail_not_positive_definite(int64_t minor, int64_t n, double shrinkage) {
  fail(FC_ERR_INVALID_ARG, "the shrunk correlation matrix is not positive definite (leading minor " +
                               std::to_string(minor) + " of " + std::to_string(n) + ", shrinkage " +
                               std::to_string(shrinkage) + "): pass a larger shrinkage or FC_SHRINKAGE_LEDOIT_WOLF");
}

class PartialBackend {
 public:
  virtual ~PartialBackend() = default;

  // The result's upper triangle (j >= i) into upper[i * s.n + j] (s.n x s.n values of host
  // memory; what lands below the diagonal is unspecified); returns the intensity applied. s has
  // no constant series, and shrinkage 0 comes only with s.n <= s.t - 1 (the caller checks both).
  // Computed in float64 from the stored rows widened to double.
  virtual double partial_upper(const SeriesView& s, const PartialRequest& request, double* upper,
                               const RunSettings& run) = 0;
};

}  // namespace fc
