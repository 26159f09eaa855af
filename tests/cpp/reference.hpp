// The float64 reference the tests compare fastconn against, the seeded structured data they feed
// it, and the comparisons (tolerances of the numerical contract, NaN placement, bit identity).
// Independent of the library: two-pass mean and norm, plain double dot products, and triangle
// orders written out as the nested loops that define them.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "fastconn/fastconn.h"

namespace fctest {

constexpr double kPi = 3.141592653589793238462643383279502884;

// n series of t samples, series-major: sample k of series s is x[s * t + k].
struct Dataset {
  int64_t n = 0;
  int64_t t = 0;
  std::vector<double> x;

  double& at(int64_t s, int64_t k) { return x[static_cast<size_t>(s * t + k)]; }
  double at(int64_t s, int64_t k) const { return x[static_cast<size_t>(s * t + k)]; }
};

// A seeded source whose sequence is fixed by the standard (mt19937_64 and a hand-written
// Box-Muller), so every platform and standard library generates the same data.
class Random {
 public:
  explicit Random(uint64_t seed) : gen_(seed) {}
  double uniform() { return static_cast<double>(gen_() >> 11) * 0x1.0p-53; }  // [0, 1)
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
  double normal() {
    const double u1 = 1.0 - uniform();  // (0, 1]: log stays finite
    const double u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * kPi * u2);
  }

 private:
  std::mt19937_64 gen_;
};

// fMRI-like series: a few smooth latent sine components shared by all series, mixed with
// per-series loadings, plus white noise of a per-series level, scaled and put on a large
// baseline (raw BOLD signal sits near 1000). Varying noise levels give correlations from near 0
// to near +-1; the baseline makes a one-pass variance formula lose digits.
inline Dataset structured_data(int64_t n, int64_t t, uint64_t seed) {
  constexpr int kComponents = 4;
  Random rng(seed);
  double freq[kComponents], phase[kComponents];
  for (int c = 0; c < kComponents; ++c) {
    freq[c] = rng.uniform(0.005, 0.08);  // cycles per sample: smooth at any T
    phase[c] = rng.uniform(0.0, 2.0 * kPi);
  }
  Dataset d;
  d.n = n;
  d.t = t;
  d.x.resize(static_cast<size_t>(n * t));
  for (int64_t s = 0; s < n; ++s) {
    const double baseline = rng.uniform(600.0, 1400.0);
    const double scale = rng.uniform(5.0, 25.0);
    const double noise = rng.uniform(0.02, 1.5);
    double load[kComponents];
    for (int c = 0; c < kComponents; ++c) load[c] = rng.normal();
    for (int64_t k = 0; k < t; ++k) {
      double v = noise * rng.normal();
      for (int c = 0; c < kComponents; ++c) v += load[c] * std::sin(2.0 * kPi * freq[c] * double(k) + phase[c]);
      d.at(s, k) = baseline + scale * v;
    }
  }
  return d;
}

// The data set as a float input holds it: every value rounded to float, so a reference built
// from it is exact for what the library is given.
inline Dataset rounded_to_float(Dataset d) {
  for (double& v : d.x) v = static_cast<double>(static_cast<float>(v));
  return d;
}

// Series [begin, begin + count) of d: two subsets of one data set share its latent components,
// so their cross correlations span the whole range.
inline Dataset subset(const Dataset& d, int64_t begin, int64_t count) {
  Dataset s;
  s.n = count;
  s.t = d.t;
  s.x.assign(d.x.begin() + begin * d.t, d.x.begin() + (begin + count) * d.t);
  return s;
}

inline void make_constant(Dataset& d, int64_t s, double value) {
  for (int64_t k = 0; k < d.t; ++k) d.at(s, k) = value;
}

// ---------------------------------------------------------------------------------------------
// Memory layouts of the same data, as the public API's strides describe them.

enum class Layout {
  SeriesMajor,        // R / MATLAB T x N column-major: series_stride = T, time_stride = 1
  TimeMajor,          // numpy (T, N) C order: series_stride = 1, time_stride = N
  SeriesMajorPadded,  // leading dimension T + 3 > T (a column-major submatrix)
  TimeMajorPadded     // numpy (T, N + 5) sliced to N columns
};

inline const char* layout_name(Layout l) {
  switch (l) {
    case Layout::SeriesMajor: return "SeriesMajor";
    case Layout::TimeMajor: return "TimeMajor";
    case Layout::SeriesMajorPadded: return "SeriesMajorPadded";
    case Layout::TimeMajorPadded: return "TimeMajorPadded";
  }
  return "?";
}

template <class T>
struct Strided {
  std::vector<T> buffer;
  int64_t series_stride = 0;
  int64_t time_stride = 0;
};

// Padding elements hold NaN: the library must never read them (it rejects non-finite input).
template <class T>
Strided<T> to_layout(const Dataset& d, Layout layout) {
  Strided<T> s;
  int64_t size = 0;
  switch (layout) {
    case Layout::SeriesMajor: s.series_stride = d.t; s.time_stride = 1; size = d.n * d.t; break;
    case Layout::TimeMajor: s.series_stride = 1; s.time_stride = d.n; size = d.n * d.t; break;
    case Layout::SeriesMajorPadded: s.series_stride = d.t + 3; s.time_stride = 1; size = d.n * (d.t + 3); break;
    case Layout::TimeMajorPadded: s.series_stride = 1; s.time_stride = d.n + 5; size = d.t * (d.n + 5); break;
  }
  s.buffer.assign(static_cast<size_t>(size), std::numeric_limits<T>::quiet_NaN());
  for (int64_t i = 0; i < d.n; ++i)
    for (int64_t k = 0; k < d.t; ++k) s.buffer[static_cast<size_t>(i * s.series_stride + k * s.time_stride)] = static_cast<T>(d.at(i, k));
  return s;
}

// ---------------------------------------------------------------------------------------------
// The float64 reference.

// Normalized series z = (x - mean) / ||x - mean||, mean and norm in two passes. A series whose
// values are all exactly equal is constant (its z is left at 0 and its correlations are NaN).
struct Reference {
  int64_t n = 0;
  int64_t t = 0;
  std::vector<double> z;
  std::vector<uint8_t> constant;
  int64_t n_constant = 0;

  const double* row(int64_t s) const { return z.data() + s * t; }
};

inline Reference normalize(const Dataset& d) {
  Reference r;
  r.n = d.n;
  r.t = d.t;
  r.z.assign(d.x.size(), 0.0);
  r.constant.assign(static_cast<size_t>(d.n), 0);
  for (int64_t s = 0; s < d.n; ++s) {
    bool all_equal = true;
    double sum = 0.0;
    for (int64_t k = 0; k < d.t; ++k) {
      sum += d.at(s, k);
      all_equal = all_equal && d.at(s, k) == d.at(s, 0);
    }
    if (all_equal) {
      r.constant[s] = 1;
      ++r.n_constant;
      continue;
    }
    const double mean = sum / static_cast<double>(d.t);
    double ss = 0.0;
    for (int64_t k = 0; k < d.t; ++k) ss += (d.at(s, k) - mean) * (d.at(s, k) - mean);
    const double norm = std::sqrt(ss);
    for (int64_t k = 0; k < d.t; ++k) r.z[static_cast<size_t>(s * d.t + k)] = (d.at(s, k) - mean) / norm;
  }
  return r;
}

// Double dot product with four partial sums (independent chains, so the reference for
// N = 1009, T = 1200 takes a fraction of a second; the error stays ~1e-16 * sqrt(T)).
inline double dot(const double* a, const double* b, int64_t t) {
  double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  const int64_t quads = t > 0 ? t / 4 : 0;  // counted in quads: no k + 4 that could overflow
  for (int64_t g = 0; g < quads; ++g) {
    const int64_t k = 4 * g;
    s0 += a[k] * b[k];
    s1 += a[k + 1] * b[k + 1];
    s2 += a[k + 2] * b[k + 2];
    s3 += a[k + 3] * b[k + 3];
  }
  for (int64_t k = 4 * quads; k < t; ++k) s0 += a[k] * b[k];
  return (s0 + s1) + (s2 + s3);
}

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// r(a_i, b_j), row-major n_a x n_b; NaN where either series is constant.
inline std::vector<double> reference_cross(const Reference& a, const Reference& b) {
  std::vector<double> r(static_cast<size_t>(a.n * b.n));
  for (int64_t i = 0; i < a.n; ++i)
    for (int64_t j = 0; j < b.n; ++j)
      r[static_cast<size_t>(i * b.n + j)] = (a.constant[i] || b.constant[j]) ? kNaN : dot(a.row(i), b.row(j), a.t);
  return r;
}

// The dense N x N matrix: symmetric, diagonal exactly 1, NaN rows and columns for constants.
inline std::vector<double> reference_dense(const Reference& a) {
  const int64_t n = a.n;
  std::vector<double> r(static_cast<size_t>(n * n));
  for (int64_t i = 0; i < n; ++i) {
    r[static_cast<size_t>(i * n + i)] = a.constant[i] ? kNaN : 1.0;
    for (int64_t j = i + 1; j < n; ++j) {
      const double v = (a.constant[i] || a.constant[j]) ? kNaN : dot(a.row(i), a.row(j), a.t);
      r[static_cast<size_t>(i * n + j)] = r[static_cast<size_t>(j * n + i)] = v;
    }
  }
  return r;
}

// The strict upper triangle of a dense matrix in `order`, written as the loops that define it.
inline std::vector<double> triangle_of(const std::vector<double>& dense, int64_t n, fc_triu_order order) {
  std::vector<double> t;
  t.reserve(static_cast<size_t>(n > 1 ? n * (n - 1) / 2 : 0));
  if (order == FC_TRIU_ROW) {
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = i + 1; j < n; ++j) t.push_back(dense[static_cast<size_t>(i * n + j)]);
  } else {
    for (int64_t j = 0; j < n; ++j)
      for (int64_t i = 0; i < j; ++i) t.push_back(dense[static_cast<size_t>(i * n + j)]);
  }
  return t;
}

// What the library writes under `policy` where the reference has NaN (a constant series).
inline std::vector<double> with_policy(std::vector<double> v, fc_constant_policy policy) {
  if (policy == FC_CONSTANT_ZERO)
    for (double& x : v)
      if (std::isnan(x)) x = 0.0;
  return v;
}

// ---------------------------------------------------------------------------------------------
// Tolerances of the numerical contract (DESIGN.md) and comparisons against the reference.

// FP32 (and TF32 on the CPU, which computes FP32): 1e-5 for T <= 2000. FP64: 1e-12, plus the
// final rounding when the output is float (half an ulp below 1 is 2^-25; allow 2^-24).
inline double tolerance(fc_precision precision, bool float_output) {
  if (precision == FC_PRECISION_FP64) return 1e-12 + (float_output ? 0x1.0p-24 : 0.0);
  return 1e-5;
}

// got[r * ld + c] against expected[r * cols + c]: NaN exactly where expected is NaN, every
// other value finite, within [-1, 1] and within tol. The message names the worst element.
template <class T>
::testing::AssertionResult matches_reference(const T* got, int64_t rows, int64_t cols, int64_t ld,
                                             const std::vector<double>& expected, double tol) {
  double worst = 0.0;
  int64_t worst_at = -1;
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) {
      const double g = static_cast<double>(got[r * ld + c]);
      const double e = expected[static_cast<size_t>(r * cols + c)];
      auto where = [&]() {
        return ::testing::AssertionFailure() << "element (" << r << ", " << c << ") of " << rows << " x " << cols;
      };
      if (std::isnan(e) != std::isnan(g)) return where() << ": got " << g << ", expected " << e;
      if (std::isnan(e)) continue;
      if (!(g >= -1.0 && g <= 1.0)) return where() << ": " << g << " is outside [-1, 1]";
      const double err = std::fabs(g - e);
      if (err > worst) {
        worst = err;
        worst_at = r * cols + c;
      }
    }
  }
  if (worst > tol)
    return ::testing::AssertionFailure() << "max |r - r64| = " << worst << " > " << tol << " at flat index " << worst_at
                                         << " (row " << worst_at / cols << ", column " << worst_at % cols << ")";
  return ::testing::AssertionSuccess() << "max |r - r64| = " << worst;
}

template <class T>
::testing::AssertionResult matches_reference(const std::vector<T>& got, const std::vector<double>& expected, double tol) {
  if (got.size() != expected.size())
    return ::testing::AssertionFailure() << "got " << got.size() << " values, expected " << expected.size();
  return matches_reference(got.data(), 1, static_cast<int64_t>(got.size()), 0, expected, tol);
}

// got against the reference (NaN where a constant series is involved) under `policy`: NaN
// there by default, exactly 0 under FC_CONSTANT_ZERO; within tol everywhere else.
template <class T>
::testing::AssertionResult follows_policy(const T* got, int64_t rows, int64_t cols, int64_t ld,
                                          const std::vector<double>& reference, fc_constant_policy policy, double tol) {
  if (policy == FC_CONSTANT_ZERO) {
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c)
        if (std::isnan(reference[static_cast<size_t>(r * cols + c)]) && !(got[r * ld + c] == T(0)))
          return ::testing::AssertionFailure() << "element (" << r << ", " << c << ") touches a constant series: got "
                                               << got[r * ld + c] << ", expected exactly 0 under FC_CONSTANT_ZERO";
  }
  return matches_reference(got, rows, cols, ld, with_policy(reference, policy), tol);
}

template <class T>
::testing::AssertionResult follows_policy(const std::vector<T>& got, const std::vector<double>& reference,
                                          fc_constant_policy policy, double tol) {
  if (got.size() != reference.size()) return ::testing::AssertionFailure() << "size " << got.size() << " vs " << reference.size();
  return follows_policy(got.data(), 1, static_cast<int64_t>(got.size()), 0, reference, policy, tol);
}

// a and b hold the same bits (NaN payloads included), element by element.
template <class T>
::testing::AssertionResult bit_identical(const std::vector<T>& a, const std::vector<T>& b) {
  if (a.size() != b.size()) return ::testing::AssertionFailure() << "sizes differ: " << a.size() << " vs " << b.size();
  for (size_t k = 0; k < a.size(); ++k)
    if (std::memcmp(&a[k], &b[k], sizeof(T)) != 0)
      return ::testing::AssertionFailure() << "first difference at index " << k << ": " << a[k] << " vs " << b[k];
  return ::testing::AssertionSuccess();
}

// max |a - b| over elements finite in both; NaN must sit at the same places.
template <class T, class U>
::testing::AssertionResult agree(const std::vector<T>& a, const std::vector<U>& b, double tol) {
  if (a.size() != b.size()) return ::testing::AssertionFailure() << "sizes differ: " << a.size() << " vs " << b.size();
  double worst = 0.0;
  size_t worst_at = 0;
  for (size_t k = 0; k < a.size(); ++k) {
    const double x = static_cast<double>(a[k]), y = static_cast<double>(b[k]);
    if (std::isnan(x) != std::isnan(y))
      return ::testing::AssertionFailure() << "index " << k << ": " << x << " vs " << y << " (NaN in one only)";
    if (!std::isnan(x) && std::fabs(x - y) > worst) {
      worst = std::fabs(x - y);
      worst_at = k;
    }
  }
  if (worst > tol)
    return ::testing::AssertionFailure() << "max difference " << worst << " > " << tol << " at index " << worst_at;
  return ::testing::AssertionSuccess() << "max difference " << worst;
}

}  // namespace fctest
