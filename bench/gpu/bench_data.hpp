// The seeded input of the GPU benchmarks (bench_gpu_pcc, bench_gpu_graph and, through the file
// bench_gpu_pcc --write-data writes, the PyTorch baselines): one definition, so every number of
// bench/RESULTS-gpu.md is measured on the same data.
#pragma once

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace fcbench {

// Seeded fMRI-like data: 6 smooth latent components (slow sinusoids and smoothed random walks)
// mixed with per-series loadings, per-series noise level and baseline. Correlations then span
// near -1 to near 1, like real voxels of a few networks.
inline std::vector<float> structured_data(int64_t n, int64_t t, uint64_t seed) {
  constexpr double kPi = 3.141592653589793;
  std::mt19937_64 gen(seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  constexpr int kComponents = 6;
  std::vector<double> latent(static_cast<size_t>(kComponents * t));
  for (int c = 0; c < kComponents; ++c) {
    double* l = latent.data() + c * t;
    if (c < 3) {
      const double f = 0.01 + 0.05 * uniform(gen), phase = 2 * kPi * uniform(gen);
      for (int64_t k = 0; k < t; ++k) l[k] = std::sin(2 * kPi * f * k + phase);
    } else {
      double walk = 0.0, smooth = 0.0;
      for (int64_t k = 0; k < t; ++k) {
        walk += normal(gen);
        smooth = 0.8 * smooth + 0.2 * walk;
        l[k] = smooth / std::sqrt(double(t));
      }
    }
  }
  std::vector<float> x(static_cast<size_t>(n * t));
  for (int64_t s = 0; s < n; ++s) {
    double load[kComponents];
    for (double& v : load) v = normal(gen);
    const double noise = 0.2 + 1.5 * uniform(gen), baseline = 800 + 400 * uniform(gen);
    for (int64_t k = 0; k < t; ++k) {
      double v = noise * normal(gen);
      for (int c = 0; c < kComponents; ++c) v += load[c] * latent[static_cast<size_t>(c * t + k)];
      x[static_cast<size_t>(s * t + k)] = static_cast<float>(baseline + 10.0 * v);
    }
  }
  return x;
}

// Each series centred and scaled to unit norm (float64 arithmetic, stored as float): the rows the
// backend multiplies, for the benchmarks' bare cuBLAS baselines.
inline std::vector<float> normalized_rows(const std::vector<float>& x, int64_t n, int64_t t) {
  std::vector<float> z(x.size());
  for (int64_t i = 0; i < n; ++i) {
    const float* xi = x.data() + i * t;
    double mean = 0, ss = 0;
    for (int64_t q = 0; q < t; ++q) mean += xi[q];
    mean /= double(t);
    for (int64_t q = 0; q < t; ++q) ss += (xi[q] - mean) * (xi[q] - mean);
    for (int64_t q = 0; q < t; ++q) z[static_cast<size_t>(i * t + q)] = float((xi[q] - mean) / std::sqrt(ss));
  }
  return z;
}

}  // namespace fcbench
