// The band of the tensor-core degree (kernels/tc_bound.hpp) on the host: TF32 tensor-core
// products emulated (inputs rounded to TF32 as cvt.rna does, exact products, FP32 sums in three
// orders, one of them truncating), the FP32 r as the kernels compute it (one fmaf chain), and
// |r~ - r| <= tc_bound_per_norm x ||z_i|| ||z_j|| checked on adversarial rows: every element just
// below a TF32 rounding midpoint above a power of two (all product errors of one sign: the
// bound's main term, reached to within 1 %), rows spread over 8 decades, T = 2 .. 4,000. The GPU test
// (tests/gpu/test_cuda_tc_degree.cpp) checks the decisions themselves on the device.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "kernels/tc_bound.hpp"

namespace {

float tf32_rna(float x) {  // 10 stored mantissa bits, ties away from zero (cvt.rna.tf32.f32)
  uint32_t b;
  std::memcpy(&b, &x, 4);
  b = (b + 0x1000u) & ~0x1fffu;
  std::memcpy(&x, &b, 4);
  return x;
}

float add_toward_zero(float a, float b) {  // a + b rounded toward zero (as measured inside an mma)
  const double s = double(a) + double(b);  // exact: both floats, within 2^-60 relative at worst
  float f = static_cast<float>(s);
  if (std::fabs(double(f)) > std::fabs(s)) f = std::nextafter(f, 0.0f);
  return f;
}

enum class Order { Ascending, Blocks8, Truncating };

// r~ of two k-padded rows: TF32 inputs, exact products, FP32 sums in `order`.
float tc_product(const std::vector<float>& a, const std::vector<float>& b, Order order) {
  const size_t n = a.size();
  float acc = 0.0f;
  for (size_t k0 = 0; k0 < n; k0 += 8) {
    float block = 0.0f;
    for (size_t k = k0; k < k0 + 8; ++k) {
      const float p = tf32_rna(a[k]) * tf32_rna(b[k]);  // exact: 11 x 11 significant bits
      if (order == Order::Ascending) acc += p;
      else if (order == Order::Blocks8) block += p;
      else acc = add_toward_zero(acc, p);
    }
    if (order == Order::Blocks8) acc += block;
  }
  return acc;
}

float chain_product(const std::vector<float>& a, const std::vector<float>& b) {  // pair_tile.cuh's r
  float acc = 0.0f;
  for (size_t k = 0; k < a.size(); ++k) acc = std::fmaf(a[k], b[k], acc);
  return acc;
}

double norm(const std::vector<float>& a) {
  double s = 0;
  for (float x : a) s += double(x) * double(x);
  return std::sqrt(s);
}

// Unit-norm float rows padded with zeros to a multiple of 8, of one of three kinds.
enum class Kind { Gaussian, Wide, Midpoint };
std::vector<float> row(int64_t t, Kind kind, std::mt19937_64& gen) {
  std::normal_distribution<double> normal;
  std::uniform_real_distribution<double> decade(-4.0, 4.0);
  std::vector<double> x(static_cast<size_t>(t));
  for (double& v : x) v = normal(gen) * (kind == Kind::Wide ? std::pow(10.0, decade(gen)) : 1.0);
  double ss = 0;
  for (double v : x) ss += v * v;
  std::vector<float> z(static_cast<size_t>((t + 7) / 8 * 8), 0.0f);
  for (int64_t k = 0; k < t; ++k) z[k] = static_cast<float>(x[k] / std::sqrt(ss));
  // Mantissa 1 + 0x0fff 2^-23: rna rounds down by almost half a TF32 ulp of a value barely above
  // a power of two, a relative error of u (1 - 2^-12), the largest there is.
  if (kind == Kind::Midpoint)
    for (float& v : z) {
      uint32_t b;
      std::memcpy(&b, &v, 4);
      if ((b & 0x7fffffffu) != 0) b = (b & 0xff800000u) | 0x0fffu;
      std::memcpy(&v, &b, 4);
    }
  return z;
}

TEST(TcBound, HoldsOnAdversarialRowsAtEveryT) {
  std::mt19937_64 gen(2026);
  for (const int64_t t : {2, 3, 5, 8, 9, 31, 165, 200, 1200, 4000}) {
    const int64_t t_pad = (t + 7) / 8 * 8;
    const double bound = fc::kernels::tc_bound_per_norm(t_pad);
    double worst = 0.0;  // max over pairs and orders of |r~ - r| / (||a|| ||b|| bound)
    for (const Kind kind : {Kind::Gaussian, Kind::Wide, Kind::Midpoint})
      for (int pair = 0; pair < 40; ++pair) {
        const std::vector<float> a = row(t, kind, gen);
        // The same row (r = 1, every error of one sign), its negation, and an independent one.
        std::vector<float> b = a;
        if (pair % 3 == 1)
          for (float& v : b) v = -v;
        else if (pair % 3 == 2)
          b = row(t, kind, gen);
        const double r = chain_product(a, b), scale = norm(a) * norm(b);
        for (const Order order : {Order::Ascending, Order::Blocks8, Order::Truncating}) {
          const double err = std::fabs(double(tc_product(a, b, order)) - r);
          ASSERT_LE(err, bound * scale) << "t " << t << " pair " << pair;
          worst = std::max(worst, err / (bound * scale));
        }
      }
    // The midpoint rows against themselves reach the main term 2u of the TF32 inputs: the bound
    // is tight there (the sums' terms, 4x what truncation gives on average, loosen it at large T).
    EXPECT_GT(worst, 0.9 * std::ldexp(1.0, -10) / bound) << "t " << t;
    std::printf("t %lld: worst |r~ - r| = %.3f of the bound (delta = %.3g with safety %.1f)\n", (long long)t, worst,
                double(fc::kernels::tc_delta(t, t_pad)), fc::kernels::kTcSafety);
  }
}

// delta covers unit-norm rows with the safety factor, and grows with T only through the sums.
TEST(TcBound, DeltaIsTheBoundWithItsSafetyFactor) {
  for (const int64_t t : {2, 165, 4000}) {
    const int64_t t_pad = (t + 7) / 8 * 8;
    const double d = fc::kernels::tc_delta(t, t_pad);
    EXPECT_GE(d, fc::kernels::kTcSafety * fc::kernels::tc_bound_per_norm(t_pad));
    EXPECT_LT(d, 1.01 * fc::kernels::kTcSafety * fc::kernels::tc_bound_per_norm(t_pad));
  }
  EXPECT_LT(fc::kernels::tc_delta(2, 8), fc::kernels::tc_delta(4000, 4000));
  EXPECT_GT(fc::kernels::tc_delta(2, 8), 2 * std::ldexp(1.0, -10));  // at least twice the TF32 products' 2u
}

// tc_cutoffs: a pair decided from x = r~ (|r~|) is decided as every r within delta of it would
// be. Checked in long double (exact for these sums) against the test itself, clamp(r) >= t or
// min(|r|, 1) >= t, at the far end of [x - delta, x + delta], for x around both cutoffs, at
// thresholds inside and outside [-1, 1].
TEST(TcBound, CutoffsDecideOnlyWhatTheWholeBandAgreesOn) {
  auto test = [](bool absolute, float t, long double r) {
    const long double v = absolute ? std::fabs(r) : r;
    return (absolute ? std::min(v, 1.0L) : std::max(-1.0L, std::min(v, 1.0L))) >= t;
  };
  std::mt19937_64 gen(7);
  std::uniform_real_distribution<float> anywhere(-1.2f, 1.2f);
  int64_t decided = 0, checked = 0;
  for (const bool absolute : {true, false})
    for (const float t : {-1.5f, -1.0f, -0.3f, 0.0f, 1e-30f, 0.3f, 0.7f, 1.0f, 1.2f})
      for (const float delta : {0.0f, 1e-6f, 2.05e-3f, 4.35e-3f}) {
        const fc::kernels::TcCutoffs cut = fc::kernels::tc_cutoffs(absolute, t, delta);
        ASSERT_LT(cut.fail_below, cut.pass_from);
        std::vector<float> xs;
        for (const float c : {cut.fail_below, cut.pass_from, t}) {
          float x = c;
          for (int k = 0; k < 8; ++k) x = std::nextafter(x, -INFINITY);
          for (int k = 0; k < 17; ++k, x = std::nextafter(x, INFINITY)) xs.push_back(x);
        }
        for (int k = 0; k < 2000; ++k) xs.push_back(anywhere(gen));
        for (const float x : xs) {
          if ((absolute && x < 0) || !std::isfinite(x)) continue;  // x = |r~|, and |r~| <= ~1
          ++checked;
          if (x < cut.fail_below) {  // every r with |r - r~| <= delta fails: the largest does
            ++decided;
            ASSERT_FALSE(test(absolute, t, (long double)x + delta)) << absolute << " t " << t << " x " << x;
          } else if (x >= cut.pass_from) {  // the smallest passes
            ++decided;
            const long double low = (long double)x - delta;
            ASSERT_TRUE(test(absolute, t, absolute ? std::max(0.0L, low) : low)) << absolute << " t " << t << " x " << x;
          }
        }
      }
  EXPECT_GT(decided, checked / 2);  // most values far from t are decided
}

}  // namespace
