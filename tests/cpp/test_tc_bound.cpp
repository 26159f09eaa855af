// The band of the tensor-core degree (kernels/tc_bound.hpp) on the host: the FP16 operands
// emulated as tc_degree_prepare makes them (scaled by 2^8, rounded to nearest even with 11
// significant bits, flushed below 2^-14), the row errors E_q from them, the products exact, FP32
// sums in three orders (ascending, blocks of 16, and blocks of 16 aligned to their largest
// exponent and truncated, as measured inside an mma), the FP32 r as the kernels compute it (one
// fmaf chain), and |r~ - r| <= d_qp = a_q + a_p + c checked on adversarial rows: every element
// just above a half rounding midpoint (all product errors of one sign: the representation term is
// reached to within a few per cent), rows spread over 8 decades (many elements flushed), T = 2 ..
// 4,000. The GPU test (tests/gpu/test_cuda_tc_degree.cpp) checks the decisions on the device.
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

using fc::kernels::kTcScaleBits;

// tc_prepare_kernel's half of a float z (as a double, unscaled).
double half_of(float z) {
  const double s = std::ldexp(double(z), kTcScaleBits);  // exact
  if (std::fabs(s) < std::ldexp(1.0, -14)) return 0.0;   // flushed
  int e = 0;
  std::frexp(s, &e);                                     // |s| in [2^(e-1), 2^e)
  const double ulp = std::ldexp(1.0, e - 11);            // 11 significant bits
  return std::ldexp(std::nearbyint(s / ulp) * ulp, -kTcScaleBits);  // ties to even
}

struct Operand {
  std::vector<float> z;
  std::vector<double> h;
  double a = 0.0;  // a_q = E_q x tc_row_factor, rounded up to float as the kernel does
};

Operand operand(const std::vector<float>& z, int64_t t) {
  Operand o{z, std::vector<double>(z.size()), 0.0};
  double err2 = 0.0;
  for (size_t k = 0; k < z.size(); ++k) {
    o.h[k] = half_of(z[k]);
    err2 += (o.h[k] - double(z[k])) * (o.h[k] - double(z[k]));
  }
  const double a = std::sqrt(err2) * fc::kernels::tc_row_factor(t) * (1.0 + 1e-12);
  float f = static_cast<float>(a);
  if (double(f) < a) f = std::nextafter(f, INFINITY);
  o.a = f;
  return o;
}

float round_toward_zero(double s) {
  float f = static_cast<float>(s);
  if (std::fabs(double(f)) > std::fabs(s)) f = std::nextafter(f, 0.0f);
  return f;
}

enum class Order { Ascending, Blocks16, Aligned };

// r~ of two rows (products of the halves, exact in double and in FP32), summed in `order`.
double tc_product(const Operand& a, const Operand& b, Order order) {
  const size_t n = a.h.size();
  float acc = 0.0f;
  for (size_t k0 = 0; k0 < n; k0 += 16) {
    double p[16];
    for (size_t k = 0; k < 16; ++k) p[k] = k0 + k < n ? a.h[k0 + k] * b.h[k0 + k] : 0.0;
    if (order == Order::Ascending) {
      for (double v : p) acc += static_cast<float>(v);
    } else if (order == Order::Blocks16) {
      float block = 0.0f;
      for (double v : p) block += static_cast<float>(v);
      acc += block;
    } else {  // every term truncated to 24 bits below the block's largest exponent, then the sum
      double top = std::fabs(double(acc));
      for (double v : p) top = std::max(top, std::fabs(v));
      if (top == 0.0) continue;
      int e = 0;
      std::frexp(top, &e);
      const double unit = std::ldexp(1.0, e - 24);
      double sum = std::trunc(double(acc) / unit) * unit;
      for (double v : p) sum += std::trunc(v / unit) * unit;
      acc = round_toward_zero(sum);
    }
  }
  return acc;
}

float chain_product(const std::vector<float>& a, const std::vector<float>& b) {  // pair_tile.cuh's r
  float acc = 0.0f;
  for (size_t k = 0; k < a.size(); ++k) acc = std::fmaf(a[k], b[k], acc);
  return acc;
}

// Unit-norm float rows padded with zeros to a multiple of 16, of one of three kinds.
enum class Kind { Gaussian, Wide, Midpoint };
std::vector<float> row(int64_t t, Kind kind, std::mt19937_64& gen) {
  std::normal_distribution<double> normal;
  std::uniform_real_distribution<double> decade(-4.0, 4.0);
  std::vector<double> x(static_cast<size_t>(t));
  for (double& v : x) v = normal(gen) * (kind == Kind::Wide ? std::pow(10.0, decade(gen)) : 1.0);
  double ss = 0;
  for (double v : x) ss += v * v;
  std::vector<float> z(static_cast<size_t>(fc::kernels::tc_k_pad(t)), 0.0f);
  for (int64_t k = 0; k < t; ++k) z[k] = static_cast<float>(x[k] / std::sqrt(ss));
  // Mantissa 1 + 0x1fff 2^-23 (after the 2^8 scale: a half's 10 stored bits 0, then 0111...1):
  // rounded down by almost half a half-ulp of a value barely above a power of two, a relative
  // error of about 2^-11, the largest there is, of the same sign for every element.
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
    const int64_t k_pad = fc::kernels::tc_k_pad(t), t_pad = (t + 7) / 8 * 8;
    const double c = fc::kernels::tc_pair_constant(t, t_pad, k_pad);
    // max |r~ - r| / d_qp and / (a_q + a_p); mean a_q of the Gaussian rows
    double worst = 0.0, worst_rows = 0.0, typical_a = 0.0;
    int gaussian = 0;
    for (const Kind kind : {Kind::Gaussian, Kind::Wide, Kind::Midpoint})
      for (int pair = 0; pair < 40; ++pair) {
        const Operand a = operand(row(t, kind, gen), t);
        if (kind == Kind::Gaussian) typical_a += a.a, ++gaussian;
        // The same row (r = 1, every error of one sign), its negation, and an independent one.
        std::vector<float> zb = a.z;
        if (pair % 3 == 1)
          for (float& v : zb) v = -v;
        else if (pair % 3 == 2)
          zb = row(t, kind, gen);
        const Operand b = operand(zb, t);
        const double r = chain_product(a.z, b.z), d = a.a + b.a + c;
        for (const Order order : {Order::Ascending, Order::Blocks16, Order::Aligned}) {
          const double err = std::fabs(tc_product(a, b, order) - r);
          ASSERT_LE(err, d) << "t " << t << " pair " << pair;
          worst = std::max(worst, err / d);
          worst_rows = std::max(worst_rows, err / (a.a + b.a));
        }
      }
    // The midpoint rows against themselves reach the rows' term: |r~ - r| is about 2^-10 ||z||^2
    // there, a_q + a_p about 2^-10 ||z|| (||z|| in (0.5, 1] after the rows' mantissas were set).
    EXPECT_GT(worst_rows, 0.5) << "t " << t;
    std::printf("t %lld: worst |r~ - r| = %.3f of d_qp, %.3f of a_q + a_p; c = %.3g, a priori a_q <= %.3g, Gaussian rows' mean a_q %.3g, "
                "largest d_qp %.3g\n",
                (long long)t, worst, worst_rows, c, fc::kernels::tc_error_bound(t) * fc::kernels::tc_row_factor(t),
                typical_a / gaussian, double(fc::kernels::tc_max_delta(t, t_pad, k_pad)));
  }
}

// The largest d_qp covers every a_q the a priori bound allows, and c is the sums' term with its
// safety factor plus the chain's.
TEST(TcBound, MaxDeltaCoversEveryPair) {
  for (const int64_t t : {2, 165, 200, 4000}) {
    const int64_t k_pad = fc::kernels::tc_k_pad(t), t_pad = (t + 7) / 8 * 8;
    const double a_max = fc::kernels::tc_error_bound(t) * fc::kernels::tc_row_factor(t);
    const double c = fc::kernels::tc_pair_constant(t, t_pad, k_pad);
    EXPECT_GE(double(fc::kernels::tc_max_delta(t, t_pad, k_pad)), 2 * a_max + c);
    EXPECT_GE(c, fc::kernels::kTcSafety * 2.0 * double(k_pad) * std::ldexp(1.0, -23));
    EXPECT_LT(c, 1.01 * (fc::kernels::kTcSafety * 2.0 + 0.5) * double(k_pad) * std::ldexp(1.0, -23));
  }
  // Every element rounded loses at most 2^-11 of itself: a_q's a priori bound is about that.
  EXPECT_GT(fc::kernels::tc_error_bound(165), std::ldexp(1.0, -11));
  EXPECT_LT(fc::kernels::tc_error_bound(165), 1.01 * std::ldexp(1.0, -11));
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
