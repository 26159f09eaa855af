// The band of the tensor-core degree (tc_degree.cu): how far a pair's FP16 tensor-core product
// r~ may lie from the r the FP32 kernels compute (pair_tile.cuh: one fmaf chain over k = 0 ..
// t_pad - 1 from 0.0f). Plain C++, so a host test can check it (tests/cpp/test_tc_bound.cpp).
//
// The operands. Row q's unit-norm floats z_q, scaled by 2^kTcScaleBits (exact) and rounded to
// IEEE half (round to nearest even; values whose scaled magnitude is below 2^-14, the smallest
// normal half, are set to 0, so the tensor cores never see a subnormal): h_q = z_q + e_q, where
// the error vector e_q is known exactly when h_q is made, and E_q = ||e_q|| is computed there (in
// double, rounded up). A priori ||z_q|| <= N = 1 + gamma(2 t + 8, 2^-24) (every element rounded
// once, plus the norm's own float sum) and E_q <= E = 2^-11 N + sqrt(t) 2^-14-kTcScaleBits (half's
// unit roundoff 2^-11 on the normal values, the flushed ones below 2^-14-kTcScaleBits each).
// gamma(n, u) = n u / (1 - n u) (Higham, Accuracy and Stability, 3.1).
//
// The bound, for s = z_q . z_p exactly:
//  * representation: |h_q . h_p - s| <= E_q ||z_p|| + ||z_q|| E_p + E_q E_p
//    <= (E_q + E_p)(N + E / 2) = a_q + a_p (Cauchy-Schwarz; E_q E_p <= (E_q + E_p) E / 2): exact
//    arithmetic on known errors, no safety factor needed;
//  * the tensor cores' sums: half x half products are exact in FP32 (11 x 11 significant bits);
//    their FP32 accumulation is in an order and rounding the hardware does not document (measured
//    on A100 / H100: products aligned to the largest exponent of a k-block and truncated). We take
//    the truncation unit 2^-23 and 2 k_pad additions, gamma(2 k_pad, 2^-23) sum |h_qk h_pk| <=
//    gamma(2 k_pad, 2^-23) (N + E)^2, times kTcSafety (an alignment model with 16-product blocks
//    gives 2.125 k_pad 2^-23; the factor 2 covers it with room);
//  * r itself (fmaf chain): t_pad fused multiply-adds, one rounding each: gamma(t_pad, 2^-24) N^2.
// So |r~ - r| <= d_qp = a_q + a_p + c, c = kTcSafety gamma(2 k_pad, 2^-23)(N + E)^2 +
// gamma(t_pad, 2^-24) N^2, every term rounded up to float. The decision clamp(r) >= t (or
// min(|r|, 1) >= t), monotone in r (in |r|), is settled by r~ whenever r~ is farther than d_qp
// from where it changes (tc_threshold); otherwise r itself is computed. The band is per pair, from
// each row's own rounding error (test_tc_bound prints c, the a priori a_q and typical ones).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace fc {
namespace kernels {

constexpr double kTcSafety = 2.0;  // on the sums' term: the accumulator's rounding is undocumented
constexpr int kTcScaleBits = 8;    // operands scaled by 2^8 (products and sums by 2^16): fewer flushed
constexpr int kTcK = 16;           // k of one m16n8k16 step: rows are padded with zeros to a multiple

inline double tc_gamma(double n, double u) { return n * u / (1.0 - n * u); }

// k_pad: t rounded up to a multiple of kTcK.
inline int64_t tc_k_pad(int64_t t) { return (t + kTcK - 1) / kTcK * kTcK; }

// N: the a priori bound on ||z_q||.
inline double tc_norm_bound(int64_t t) { return 1.0 + tc_gamma(2.0 * double(t) + 8.0, std::ldexp(1.0, -24)); }

// E: the a priori bound on E_q = ||h_q - z_q||.
inline double tc_error_bound(int64_t t) {
  return std::ldexp(1.0, -11) * tc_norm_bound(t) + std::sqrt(double(t)) * std::ldexp(1.0, -14 - kTcScaleBits);
}

// a_q = E_q x tc_row_factor(t) (the kernel rounds it up to float).
inline double tc_row_factor(int64_t t) { return tc_norm_bound(t) + 0.5 * tc_error_bound(t); }

// c: the sums' and the chain's term, for series of t time points, t_pad (the FP32 kernels' padding)
// and k_pad (tc_k_pad) stored ones; rounded up to float.
inline float tc_pair_constant(int64_t t, int64_t t_pad, int64_t k_pad) {
  const double n = tc_norm_bound(t), e = tc_error_bound(t);
  const double c = kTcSafety * tc_gamma(2.0 * double(k_pad), std::ldexp(1.0, -23)) * (n + e) * (n + e) +
                   tc_gamma(double(std::max(t_pad, k_pad)), std::ldexp(1.0, -24)) * n * n;
  const float f = static_cast<float>(c);
  return double(f) >= c ? f : std::nextafter(f, INFINITY);
}

// The largest d_qp there can be: 2 a priori a_q plus c, rounded up.
inline float tc_max_delta(int64_t t, int64_t t_pad, int64_t k_pad) {
  const double d = 2.0 * tc_error_bound(t) * tc_row_factor(t) + double(tc_pair_constant(t, t_pad, k_pad));
  return std::nextafter(static_cast<float>(d), INFINITY);
}

// The test clamp(r) >= t (min(|r|, 1) >= t) as r >= t' (|r| >= t'): t' = t for -1 < t <= 1 (0 < t
// <= 1), -infinity for t at or below that (every pair passes) and +infinity above 1 (none).
inline float tc_threshold(bool absolute, float threshold) {
  if (double(threshold) <= (absolute ? 0.0 : -1.0)) return -INFINITY;
  if (threshold > 1.0f) return INFINITY;
  return threshold;
}

// Where a pair is decided from x = r~ (or |r~| under |r| >= t) with a band half-width of at most
// delta: it fails when x < fail_below, passes when x >= pass_from, and needs its own d_qp (or r)
// otherwise. Both are rounded outward to float with one more ulp each, which covers the rounding
// of t' -+ delta in double.
struct TcCutoffs {
  float fail_below, pass_from;
};

inline TcCutoffs tc_cutoffs(bool absolute, float threshold, float delta) {
  const double t = tc_threshold(absolute, threshold);
  const double lo = t - double(delta), hi = t + double(delta);
  float f = static_cast<float>(lo), p = static_cast<float>(hi);
  if (double(f) > lo) f = std::nextafter(f, -INFINITY);
  if (double(p) < hi) p = std::nextafter(p, INFINITY);
  return TcCutoffs{std::nextafter(f, -INFINITY), std::nextafter(p, INFINITY)};
}

}  // namespace kernels
}  // namespace fc
