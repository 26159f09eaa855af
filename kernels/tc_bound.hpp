// The band half-width delta of the tensor-core degree (tc_degree.cu): how far a pair's TF32
// tensor-core product r~ may lie from the r the FP32 kernels compute (pair_tile.cuh: one fmaf
// chain over k = 0 .. t_pad - 1 from 0.0f). Plain C++, so a host test can check it
// (tests/cpp/test_tc_bound.cpp).
//
// Derivation. s = sum_k z_ik z_jk, the exact dot product of the stored float rows; S = sum_k
// |z_ik z_jk| <= ||z_i|| ||z_j|| (Cauchy-Schwarz). The rows are normalized to unit norm and rounded
// to float: ||z|| <= 1 + e_n, with e_n = gamma(2 t + 8, 2^-24) a generous bound of that rounding
// (every element rounded once, u32 = 2^-24, plus the norm's own float sum), so S <= (1 + e_n)^2.
// gamma(n, u) = n u / (1 - n u) (Higham, Accuracy and Stability, 3.1).
//  * r~ (tensor cores): each input rounded to TF32 (cvt.rna, 10 stored mantissa bits, unit
//    roundoff u = 2^-11): z^ = z (1 + d), |d| <= u, so |z^_i z^_j - z_i z_j| <= (2u + u^2)|z_i z_j|.
//    The TF32 x TF32 products are exact in FP32 (11 x 11 significant bits). Their sum is
//    accumulated in FP32 in an order and rounding the hardware does not document (measured on
//    A100 / H100: truncation inside one mma): we take the truncation unit 2^-23 and n = 2 t_pad
//    additions, |error| <= gamma(2 t_pad, 2^-23) sum |z^_i z^_j| <= gamma(...) (1 + u)^2 S.
//    Subnormal inputs may be flushed to zero: at most 2^-126 per term, t_pad 2^-126 in all.
//  * r (fmaf chain): t_pad fused multiply-adds, one rounding each: |r - s| <= gamma(t_pad, 2^-24) S.
// Hence |r~ - r| <= delta0 = S [(2u + u^2) + gamma(2 t_pad, 2^-23)(1 + u)^2 + gamma(t_pad, 2^-24)]
// + t_pad 2^-126, and delta = kTcSafety x delta0, rounded up to float. With delta, the decision
// clamp(r) >= t (or min(|r|, 1) >= t), monotone in r (in |r|), is settled by r~ whenever r~ is
// farther than delta from where it changes (tc_cutoffs); otherwise r itself is computed.
// T = 165: delta = 2.05e-3; T = 1,200: 2.67e-3; T = 4,000: 4.35e-3 (test_tc_bound prints them).
#pragma once

#include <cmath>
#include <cstdint>

namespace fc {
namespace kernels {

constexpr double kTcSafety = 2.0;  // on top of a worst-case bound: the accumulator's rounding is undocumented

inline double tc_gamma(double n, double u) { return n * u / (1.0 - n * u); }

// delta0 / S: the bound on |r~ - r| per unit of ||z_i|| ||z_j|| (the homogeneous form the host
// test checks on rows of any norm), for series of t_pad stored time points.
inline double tc_bound_per_norm(int64_t t_pad) {
  const double u = std::ldexp(1.0, -11), u32 = std::ldexp(1.0, -24), trunc = std::ldexp(1.0, -23);
  const double tc = (2.0 * u + u * u) + tc_gamma(2.0 * double(t_pad), trunc) * (1.0 + u) * (1.0 + u);
  return tc + tc_gamma(double(t_pad), u32);
}

// delta for unit-norm series of t time points stored with t_pad (a multiple of the k step, zero
// padded), rounded up to float.
inline float tc_delta(int64_t t, int64_t t_pad) {
  const double norm = 1.0 + tc_gamma(2.0 * double(t) + 8.0, std::ldexp(1.0, -24));
  const double delta = kTcSafety * (norm * norm * tc_bound_per_norm(t_pad) + double(t_pad) * std::ldexp(1.0, -126));
  return std::nextafter(static_cast<float>(delta), INFINITY);
}

// Where a pair is decided from x = r~ (or |r~| under |r| >= t): it fails when x < fail_below,
// passes when x >= pass_from, and has r recomputed otherwise. The test clamp(r) >= t (min(|r|, 1)
// >= t) is r >= t' (|r| >= t') with t' = t for -1 < t <= 1 (0 < t <= 1), -infinity for t at or
// below that (every pair passes) and +infinity above 1 (none); r is within delta of r~, so x <
// t' - delta fails and x >= t' + delta passes. Both are rounded outward to float with one more ulp
// each, which covers the rounding of t' -+ delta in double.
struct TcCutoffs {
  float fail_below, pass_from;
};

inline TcCutoffs tc_cutoffs(bool absolute, float threshold, float delta) {
  double t = threshold;
  if (t <= (absolute ? 0.0 : -1.0)) t = -INFINITY;
  else if (t > 1.0) t = INFINITY;
  const double lo = t - double(delta), hi = t + double(delta);
  float f = static_cast<float>(lo), p = static_cast<float>(hi);
  if (double(f) > lo) f = std::nextafter(f, -INFINITY);
  if (double(p) < hi) p = std::nextafter(p, INFINITY);
  return TcCutoffs{std::nextafter(f, -INFINITY), std::nextafter(p, INFINITY)};
}

}  // namespace kernels
}  // namespace fc
