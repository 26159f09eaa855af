// What the CPU benchmarks share: the seeded structured synthetic data, the GEMM floors as
// libfastconn calls the BLAS (the same single-threaded 256 x 512 tiles per OpenMP thread), and the
// round-robin measurement whose medians they report.
//
// Data: N structured synthetic series of T samples (seeded): a few smooth latent signals mixed
// with parcel-wise loadings, plus AR(1) voxel noise and a BOLD-like baseline — correlations
// spread over [-1, 1] like real fMRI, not the near-zero ones of white noise.
#pragma once

#include <cblas.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace bench {

// splitmix64: small, seedable, identical on every platform.
struct Rng {
  uint64_t s;
  uint64_t next() {
    uint64_t z = (s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  double uniform() { return (next() >> 11) * (1.0 / 9007199254740992.0); }  // [0, 1)
  double normal() {
    const double u = 1.0 - uniform(), v = uniform();
    return std::sqrt(-2.0 * std::log(u)) * std::cos(6.283185307179586 * v);
  }
};

// AR(1) noise with coefficient phi, unit stationary variance.
inline void ar1(Rng& rng, double phi, double* x, int64_t t) {
  const double scale = std::sqrt(1.0 - phi * phi);
  x[0] = rng.normal();
  for (int64_t k = 1; k < t; ++k) x[k] = phi * x[k - 1] + scale * rng.normal();
}

// N x T row-major float32: series v = baseline_v + sum_c loading(parcel(v), c) * latent_c + noise.
inline std::vector<float> synthetic_series(int64_t n, int64_t t, uint64_t seed) {
  constexpr int kLatent = 6, kParcels = 100;
  Rng rng{seed};
  std::vector<double> latent(static_cast<size_t>(kLatent * t));
  for (int c = 0; c < kLatent; ++c) {
    double* x = &latent[static_cast<size_t>(c * t)];
    ar1(rng, 0.9, x, t);  // slow, hemodynamic-like fluctuation
    const double freq = 0.01 + 0.015 * c, phase = 6.283185307179586 * rng.uniform();  // TR = 2 s
    for (int64_t k = 0; k < t; ++k) x[k] += 0.8 * std::sin(6.283185307179586 * freq * 2.0 * k + phase);
  }
  std::vector<double> parcel_loading(static_cast<size_t>(kParcels * kLatent));
  for (double& w : parcel_loading) w = rng.normal();
  std::vector<float> data(static_cast<size_t>(n * t));
  std::vector<double> noise(static_cast<size_t>(t));
  for (int64_t v = 0; v < n; ++v) {
    const int64_t p = v * kParcels / n;  // contiguous parcels, like voxels sorted by region
    double w[kLatent];
    for (int c = 0; c < kLatent; ++c) w[c] = parcel_loading[static_cast<size_t>(p * kLatent + c)] + 0.3 * rng.normal();
    const double baseline = 800.0 + 400.0 * rng.uniform(), noise_sd = 0.5 + rng.uniform(), gain = 5.0 + 5.0 * rng.uniform();
    ar1(rng, 0.3, noise.data(), t);
    for (int64_t k = 0; k < t; ++k) {
      double signal = 0;
      for (int c = 0; c < kLatent; ++c) signal += w[c] * latent[static_cast<size_t>(c * t + k)];
      data[static_cast<size_t>(v * t + k)] = static_cast<float>(baseline + gain * (signal + noise_sd * noise[k]));
    }
  }
  return data;
}

inline double seconds_of(const std::function<void()>& f) {
  const auto a = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - a).count();
}

// C (m x n, row-major) = A (m x k) * B (n x k)^T, as the library computes its products.
inline void gemm_nt(int64_t m, int64_t n, int64_t k, const float* a, const float* b, float* c, int64_t ldc) {
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)m, (int)n, (int)k, 1.0f, a, (int)k, b, (int)k, 0.0f, c, (int)ldc);
}

inline void gemm_nt(int64_t m, int64_t n, int64_t k, const double* a, const double* b, double* c, int64_t ldc) {
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)m, (int)n, (int)k, 1.0, a, (int)k, b, (int)k, 0.0, c, (int)ldc);
}

// The panel N x panel x T cut into 256 x 512 tiles that each OpenMP thread multiplies with its
// own single-threaded call into its own cache-resident tile: how fastconn's CPU backend calls
// the BLAS. (`sink` only receives one tile per thread so the products are not dead code.)
template <class V>
inline void gemm_in_thread_tiles(const V* z, int64_t n, int64_t t, int64_t panel, V* sink) {
  constexpr int64_t kRows = 256, kCols = 512;
  const int64_t row_tiles = (n + kRows - 1) / kRows, col_tiles = (panel + kCols - 1) / kCols;
#pragma omp parallel
  {
    std::vector<V> tile(static_cast<size_t>(kRows * kCols));
#pragma omp for schedule(dynamic)
    for (int64_t item = 0; item < row_tiles * col_tiles; ++item) {
      const int64_t r0 = item / col_tiles * kRows, c0 = item % col_tiles * kCols;
      const int64_t rows = std::min(kRows, n - r0), cols = std::min(kCols, panel - c0);
      gemm_nt(rows, cols, t, z + r0 * t, z + c0 * t, tile.data(), cols);
    }
    sink[omp_get_thread_num()] = tile[0];
  }
}

// One measurement of the round robin: `run` is timed, `after` (untimed) follows each run.
struct Measurement {
  std::string key, label;
  double flops;  // 0: a bandwidth measurement of `bytes`
  double bytes;
  std::function<void()> run, after;
  std::vector<double> times;
  double median() const {
    std::vector<double> t = times;
    std::sort(t.begin(), t.end());
    return t.size() % 2 ? t[t.size() / 2] : 0.5 * (t[t.size() / 2 - 1] + t[t.size() / 2]);
  }
  double gflops() const { return flops / median() / 1e9; }
};

}  // namespace bench
