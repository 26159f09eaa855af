// Pair <-> offset arithmetic of the ordered strict upper triangle, in 64-bit integers.
//
// Row order stores (i, j), i < j, at i*(2N-i-1)/2 + (j-i-1); column order at j*(j-1)/2 + i.
// Every product is formed so that no intermediate exceeds the final value: of two consecutive
// factors one is even and is halved first. Valid for any N whose N(N-1)/2 fits in int64_t
// (N < 4.29e9); the published GPU codes index with 32-bit ints and break at N = 65,537 / 92,683.
#pragma once

#include <cmath>
#include <cstdint>

namespace fc {

// a*b/2 where a*b is even, without forming a*b when it would overflow and the result does not.
inline int64_t half_product(int64_t a, int64_t b) { return (a % 2 == 0) ? (a / 2) * b : a * (b / 2); }

// Largest N for which N(N-1)/2 fits in int64_t.
constexpr int64_t kMaxTriangleSeries = 4294967296LL;  // 2^32: 2^32 * (2^32 - 1) / 2 < 2^63

inline int64_t triu_count(int64_t n) { return n < 2 ? 0 : half_product(n, n - 1); }

// Row order: offset of the first pair of row i, i.e. the number of pairs in rows 0..i-1.
inline int64_t row_start(int64_t n, int64_t i) { return half_product(i, 2 * n - i - 1); }

// Column order: offset of the first pair (0, j) of column j.
inline int64_t col_start(int64_t j) { return triu_count(j); }

inline int64_t row_offset(int64_t n, int64_t i, int64_t j) { return row_start(n, i) + (j - i - 1); }
inline int64_t col_offset(int64_t i, int64_t j) { return col_start(j) + i; }

// Inverse of row_offset: the row i holding offset k (0 <= k < triu_count(n)). A long-double
// estimate from the quadratic formula, then exact integer correction.
inline int64_t row_of_offset(int64_t n, int64_t k) {
  const long double b = 2.0L * static_cast<long double>(n) - 1.0L;
  const long double disc = b * b - 8.0L * static_cast<long double>(k);
  int64_t i = static_cast<int64_t>(std::floor((b - std::sqrt(disc > 0 ? disc : 0)) / 2.0L));
  if (i < 0) i = 0;
  if (i > n - 2) i = n - 2;
  while (i > 0 && row_start(n, i) > k) --i;
  while (i < n - 2 && row_start(n, i + 1) <= k) ++i;
  return i;
}

// Inverse of col_offset: the column j holding offset k.
inline int64_t col_of_offset(int64_t k) {
  int64_t j = static_cast<int64_t>(std::floor((1.0L + std::sqrt(1.0L + 8.0L * static_cast<long double>(k))) / 2.0L));
  if (j < 1) j = 1;
  while (j > 1 && col_start(j) > k) --j;
  while (col_start(j + 1) <= k) ++j;
  return j;
}

}  // namespace fc
