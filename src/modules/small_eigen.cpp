// All eigenpairs of the Lanczos solver's small projected matrix (leading_eigen.hpp's
// symmetric_eigen): Householder reduction to tridiagonal form, then implicit symmetric QR steps
// with Wilkinson's shift (Golub and Van Loan, Matrix Computations, sections 8.3.1 and 8.3.3), the
// rotations accumulated into the reflections' product.
//
// Why not cyclic Jacobi (what this replaced, 2026-11-25): a sweep costs O(n^3) and a 24 x 24
// projection needed 6-8 of them, 0.36 ms a call on the CPU machine; on the GPU machine the solve
// was 34 of a Lanczos step's 190 us (bench/RESULTS-modularity.md). The reduction is one O(n^3)
// pass and each QR step O(n) rotations of O(n) work, about 2 steps per eigenvalue.
//
// Why not LAPACK's dsyev: the labels of fc_modularity follow from these vectors' bits, and this code
// gives the same bits wherever it is compiled with the same flags, where a LAPACK's blocking and
// kernels differ from one library build to the next.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <vector>

#include "modules/leading_eigen.hpp"

namespace fc {

namespace {

// Row-major n x n views.
struct Square {
  std::vector<double>& data;
  int64_t n;
  double& operator()(int64_t r, int64_t c) { return data[static_cast<size_t>(r * n + c)]; }
};

// a = Q T Q^T with T tridiagonal (left in a: diagonal and the two off-diagonals, zeros elsewhere)
// and Q orthogonal (into q). Reflection k maps column k below the diagonal onto its first entry.
void tridiagonalize(Square a, Square q, std::vector<double>& v, std::vector<double>& p) {
  const int64_t n = a.n;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) q(i, j) = i == j ? 1.0 : 0.0;
  for (int64_t k = 0; k + 2 < n; ++k) {
    const int64_t b = k + 1, len = n - b;  // the trailing block a[b.., b..]
    double norm2 = 0;
    for (int64_t i = 0; i < len; ++i) norm2 += a(b + i, k) * a(b + i, k);
    const double norm = std::sqrt(norm2);
    if (norm == 0) continue;  // the column is already zero below the subdiagonal
    // v = x - alpha e_1 with alpha of the sign opposite to x_1 (no cancellation), then unit norm.
    const double alpha = a(b, k) > 0 ? -norm : norm;
    for (int64_t i = 0; i < len; ++i) v[static_cast<size_t>(i)] = a(b + i, k);
    v[0] -= alpha;
    double vnorm2 = 0;
    for (int64_t i = 0; i < len; ++i) vnorm2 += v[static_cast<size_t>(i)] * v[static_cast<size_t>(i)];
    if (vnorm2 == 0) continue;
    const double inv = 1 / std::sqrt(vnorm2);
    for (int64_t i = 0; i < len; ++i) v[static_cast<size_t>(i)] *= inv;
    // H = I - 2 v v^T on the block: H A H = A - 2 v w^T - 2 w v^T with p = A v, w = p - (v^T p) v.
    double vp = 0;
    for (int64_t i = 0; i < len; ++i) {
      double s = 0;
      for (int64_t j = 0; j < len; ++j) s += a(b + i, b + j) * v[static_cast<size_t>(j)];
      p[static_cast<size_t>(i)] = s;
      vp += v[static_cast<size_t>(i)] * s;
    }
    for (int64_t i = 0; i < len; ++i) p[static_cast<size_t>(i)] -= vp * v[static_cast<size_t>(i)];
    for (int64_t i = 0; i < len; ++i)
      for (int64_t j = 0; j < len; ++j)
        a(b + i, b + j) -= 2 * (v[static_cast<size_t>(i)] * p[static_cast<size_t>(j)] +
                                p[static_cast<size_t>(i)] * v[static_cast<size_t>(j)]);
    a(b, k) = a(k, b) = alpha;
    for (int64_t i = 1; i < len; ++i) a(b + i, k) = a(k, b + i) = 0;
    // Q = Q H: each row of Q loses twice its component along v.
    for (int64_t r = 0; r < n; ++r) {
      double s = 0;
      for (int64_t i = 0; i < len; ++i) s += q(r, b + i) * v[static_cast<size_t>(i)];
      for (int64_t i = 0; i < len; ++i) q(r, b + i) -= 2 * s * v[static_cast<size_t>(i)];
    }
  }
}

// c, s with [c s; -s c]^T [x; z] = [r; 0].
void givens(double x, double z, double& c, double& s) {
  if (z == 0) {
    c = 1;
    s = 0;
    return;
  }
  // (std::hypot's care for overflow costs a third of the solve; the entries here are bounded by
  // the operator's norm, far from 1e154.)
  const double r = std::sqrt(x * x + z * z);
  c = x / r;
  s = z / r;
}

// T = G^T T G for the rotation G of rows and columns k, k + 1 (within the block lo..hi: T is
// tridiagonal there and zero outside), and Q = Q G.
void rotate(Square t, Square q, int64_t lo, int64_t hi, int64_t k, double c, double s) {
  const int64_t from = std::max(lo, k - 1), to = std::min(hi, k + 2);
  for (int64_t j = from; j <= to; ++j) {  // rows k, k + 1
    const double x = t(k, j), y = t(k + 1, j);
    t(k, j) = c * x - s * y;
    t(k + 1, j) = s * x + c * y;
  }
  for (int64_t i = from; i <= to; ++i) {  // columns k, k + 1
    const double x = t(i, k), y = t(i, k + 1);
    t(i, k) = c * x - s * y;
    t(i, k + 1) = s * x + c * y;
  }
  for (int64_t r = 0; r < q.n; ++r) {
    const double x = q(r, k), y = q(r, k + 1);
    q(r, k) = c * x - s * y;
    q(r, k + 1) = s * x + c * y;
  }
}

// One implicit QR step with Wilkinson's shift on the unreduced block lo..hi (hi > lo): the shift is
// the eigenvalue of the trailing 2 x 2 closer to its last diagonal entry; the first rotation is
// the one an explicit QR step of T - mu I would start with, and the rest chase its bulge down.
void qr_step(Square t, Square q, int64_t lo, int64_t hi) {
  const double e = t(hi, hi - 1);
  const double d = (t(hi - 1, hi - 1) - t(hi, hi)) / 2;
  const double mu = t(hi, hi) - e * e / (d + std::copysign(std::sqrt(d * d + e * e), d));
  double x = t(lo, lo) - mu, z = t(lo + 1, lo);
  for (int64_t k = lo; k < hi; ++k) {
    double c, s;
    givens(x, z, c, s);
    rotate(t, q, lo, hi, k, c, -s);
    if (k + 1 < hi) {
      x = t(k + 1, k);
      z = t(k + 2, k);
    }
  }
}

}  // namespace

void symmetric_eigen(std::vector<double>& a, int64_t n, std::vector<double>& values, std::vector<double>& vectors) {
  values.resize(static_cast<size_t>(n));
  vectors.assign(static_cast<size_t>(n * n), 0.0);
  if (n <= 0) return;
  std::vector<double> q(static_cast<size_t>(n * n)), v(static_cast<size_t>(n)), p(static_cast<size_t>(n));
  Square t{a, n}, qs{q, n};
  tridiagonalize(t, qs, v, p);

  // Deflate every negligible off-diagonal entry, then step on the lowest unreduced block.
  const double eps = 0x1p-52;
  for (int64_t steps = 0; steps < 64 * n; ++steps) {
    for (int64_t i = 0; i + 1 < n; ++i)
      if (std::fabs(t(i + 1, i)) <= eps * (std::fabs(t(i, i)) + std::fabs(t(i + 1, i + 1))))
        t(i + 1, i) = t(i, i + 1) = 0;
    int64_t hi = n - 1;
    while (hi > 0 && t(hi, hi - 1) == 0) --hi;
    if (hi == 0) break;  // diagonal
    int64_t lo = hi - 1;
    while (lo > 0 && t(lo, lo - 1) != 0) --lo;
    qr_step(t, qs, lo, hi);
  }

  // Descending values; vectors[i * n + j] = component i of vector j (ties keep their order).
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), int64_t(0));
  std::stable_sort(order.begin(), order.end(), [&](int64_t x, int64_t y) { return t(x, x) > t(y, y); });
  for (int64_t j = 0; j < n; ++j) {
    const int64_t from = order[static_cast<size_t>(j)];
    values[static_cast<size_t>(j)] = t(from, from);
    for (int64_t i = 0; i < n; ++i) vectors[static_cast<size_t>(i * n + j)] = qs(i, from);
  }
}

}  // namespace fc
