// Pair <-> offset arithmetic of the ordered strict upper triangle: the internal header
// (src/base/triangle_index.hpp) and the public fc_triu_size / fc_triu_offset / fc_triu_pair.
// Small N are checked exhaustively against the nested loops that define each order; large N
// (past 2^31 and 2^32 pairs, up to the int64 limit) at sampled offsets against 128-bit
// arithmetic, since N(N-1)/2 is where the published 32-bit GPU codes break.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "base/triangle_index.hpp"
#include "fastconn/fastconn.h"
#include "reference.hpp"

namespace {

using i128 = __int128;

constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();
constexpr int64_t k2Pow31 = int64_t(1) << 31;
constexpr int64_t k2Pow32 = int64_t(1) << 32;

// The definitions, in 128-bit integers so that nothing can overflow.
i128 pairs_exact(int64_t n) { return n < 2 ? 0 : i128(n) * (n - 1) / 2; }
i128 offset_exact(int64_t n, fc_triu_order order, int64_t i, int64_t j) {
  return order == FC_TRIU_ROW ? i128(i) * (2 * i128(n) - i - 1) / 2 + (j - i - 1) : i128(j) * (j - 1) / 2 + i;
}

// The pair after (i, j) in `order`, for a pair that is not the last.
void successor(int64_t n, fc_triu_order order, int64_t* i, int64_t* j) {
  if (order == FC_TRIU_ROW) {
    if (++*j == n) { ++*i; *j = *i + 1; }
  } else {
    if (++*i == *j) { *i = 0; ++*j; }
  }
}

struct Pair {
  int64_t i, j;
};
// Every pair of n series in `order`, as the loops that define the order enumerate them.
std::vector<Pair> enumerate(int64_t n, fc_triu_order order) {
  std::vector<Pair> p;
  if (order == FC_TRIU_ROW) {
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = i + 1; j < n; ++j) p.push_back({i, j});
  } else {
    for (int64_t j = 0; j < n; ++j)
      for (int64_t i = 0; i < j; ++i) p.push_back({i, j});
  }
  return p;
}

const fc_triu_order kOrders[] = {FC_TRIU_ROW, FC_TRIU_COL};

TEST(TriangleIndexInternal, MatchesEnumerationExhaustively) {
  for (int64_t n = 0; n <= 160; ++n) {
    ASSERT_EQ(fc::triu_count(n), n * (n - 1) / 2) << "n = " << n;
    const std::vector<Pair> row = enumerate(n, FC_TRIU_ROW);
    for (int64_t k = 0; k < static_cast<int64_t>(row.size()); ++k) {
      const auto [i, j] = row[k];
      ASSERT_EQ(fc::row_offset(n, i, j), k) << "n " << n << " pair (" << i << ", " << j << ")";
      ASSERT_EQ(fc::row_of_offset(n, k), i) << "n " << n << " offset " << k;
      if (j == i + 1) {
        ASSERT_EQ(fc::row_start(n, i), k) << "n " << n << " row " << i;
      }
    }
    if (n >= 1) {
      ASSERT_EQ(fc::row_start(n, n - 1), fc::triu_count(n)) << "n " << n;
    }
    const std::vector<Pair> col = enumerate(n, FC_TRIU_COL);
    for (int64_t k = 0; k < static_cast<int64_t>(col.size()); ++k) {
      const auto [i, j] = col[k];
      ASSERT_EQ(fc::col_offset(i, j), k) << "n " << n << " pair (" << i << ", " << j << ")";
      ASSERT_EQ(fc::col_of_offset(k), j) << "offset " << k;
      if (i == 0) {
        ASSERT_EQ(fc::col_start(j), k) << "column " << j;
      }
    }
  }
}

TEST(TriangleIndexInternal, LargestTriangleFitsInt64) {
  // 2^32 series: 2^31 * (2^32 - 1) pairs, just below 2^63; the next N would overflow.
  EXPECT_EQ(i128(fc::triu_count(fc::kMaxTriangleSeries)), pairs_exact(fc::kMaxTriangleSeries));
  EXPECT_GT(pairs_exact(fc::kMaxTriangleSeries + 1), i128(kInt64Max));
  EXPECT_EQ(fc::row_start(fc::kMaxTriangleSeries, fc::kMaxTriangleSeries - 1), fc::triu_count(fc::kMaxTriangleSeries));
}

TEST(TriangleIndexPublic, MatchesEnumerationExhaustively) {
  for (int64_t n = 0; n <= 130; ++n) {
    ASSERT_EQ(fc_triu_size(n), n < 2 ? 0 : n * (n - 1) / 2) << "n = " << n;
    for (fc_triu_order order : kOrders) {
      const std::vector<Pair> pairs = enumerate(n, order);
      for (int64_t k = 0; k < static_cast<int64_t>(pairs.size()); ++k) {
        const auto [i, j] = pairs[k];
        ASSERT_EQ(fc_triu_offset(n, order, i, j), k) << "n " << n << " order " << order << " (" << i << ", " << j << ")";
        ASSERT_EQ(fc_triu_offset(n, order, j, i), k) << "the pair is unordered: n " << n << " (" << j << ", " << i << ")";
        int64_t pi = -1, pj = -1;
        ASSERT_EQ(fc_triu_pair(n, order, k, &pi, &pj), FC_OK) << fc_last_error();
        ASSERT_EQ(pi, i) << "n " << n << " order " << order << " offset " << k;
        ASSERT_EQ(pj, j) << "n " << n << " order " << order << " offset " << k;
      }
      int64_t pi = -1, pj = -1;
      EXPECT_EQ(fc_triu_pair(n, order, static_cast<int64_t>(pairs.size()), &pi, &pj), FC_ERR_INVALID_ARG)
          << "offset one past the end, n = " << n;
      EXPECT_EQ(fc_triu_pair(n, order, -1, &pi, &pj), FC_ERR_INVALID_ARG) << "n = " << n;
    }
  }
}

TEST(TriangleIndexPublic, OffsetRejectsPairsOutsideTheTriangle) {
  const int64_t n = 10;
  for (fc_triu_order order : kOrders) {
    EXPECT_EQ(fc_triu_offset(n, order, 3, 3), -1) << "diagonal";
    EXPECT_EQ(fc_triu_offset(n, order, -1, 3), -1);
    EXPECT_EQ(fc_triu_offset(n, order, 3, n), -1);
    EXPECT_EQ(fc_triu_offset(1, order, 0, 1), -1) << "one series has no pairs";
  }
  EXPECT_EQ(fc_triu_offset(n, static_cast<fc_triu_order>(2), 0, 1), -1) << "unknown order";
}

TEST(TriangleIndexPublic, SizeOfNegativeAndOverflowingCountsIsMinusOne) {
  EXPECT_EQ(fc_triu_size(-1), -1);
  EXPECT_EQ(fc_triu_size(std::numeric_limits<int64_t>::min()), -1);
  EXPECT_EQ(fc_triu_size(0), 0);
  EXPECT_EQ(fc_triu_size(1), 0);
  EXPECT_EQ(fc_triu_size(2), 1);
  // Around the limits that break 32-bit code (2^31, 2^32 pairs), where n(n-1) alone overflows
  // int64 while n(n-1)/2 does not (n > 3,037,000,499), and where n(n-1)/2 itself overflows.
  const int64_t probes[] = {65535, 65536, 65537, 92681, 92682, 92683, 92684, 200000, 3000000000LL,
                            3037000499LL, 3037000500LL, 3037000501LL, 4000000000LL, k2Pow32 - 1, k2Pow32,
                            k2Pow32 + 1, k2Pow32 + 2, int64_t(1) << 40, kInt64Max / 2, kInt64Max};
  for (int64_t n : probes) {
    const i128 exact = pairs_exact(n);
    const int64_t expected = exact > i128(kInt64Max) ? -1 : static_cast<int64_t>(exact);
    EXPECT_EQ(fc_triu_size(n), expected) << "n = " << n;
  }
  EXPECT_EQ(fc_triu_size(k2Pow32 + 1), -1) << "2^32 + 1 series: the count passes 2^63";
}

// What a 32-bit implementation gets wrong: triangles past 2^31 (signed int) and 2^32 (unsigned)
// pairs. The expected values are taken from 128-bit arithmetic and are first checked to lie
// outside the 32-bit ranges, so these cases cannot pass by truncation.
TEST(TriangleIndexPublic, OffsetsPast32BitsAreExact) {
  struct Case {
    int64_t n;
    i128 lower_bound;  // the offsets checked lie beyond this
  } cases[] = {{65537, i128(std::numeric_limits<int32_t>::max())}, {92683, i128(std::numeric_limits<uint32_t>::max())}};
  for (const Case& c : cases) {
    for (fc_triu_order order : kOrders) {
      // the last pair, and the pair just past the 32-bit boundary
      const i128 last = pairs_exact(c.n) - 1;
      ASSERT_GT(last, c.lower_bound) << "n = " << c.n;
      EXPECT_EQ(i128(fc_triu_offset(c.n, order, c.n - 2, c.n - 1)), last) << "n " << c.n << " order " << order;
      const int64_t past = static_cast<int64_t>(c.lower_bound + 1);
      int64_t i = -1, j = -1;
      ASSERT_EQ(fc_triu_pair(c.n, order, past, &i, &j), FC_OK) << fc_last_error();
      EXPECT_EQ(offset_exact(c.n, order, i, j), i128(past)) << "n " << c.n << " order " << order << " offset " << past;
      EXPECT_EQ(fc_triu_offset(c.n, order, i, j), past);
    }
  }
}

// Offsets to probe in a triangle of n series: both ends, both sides of the row (or column)
// starts of a few rows, both sides of 2^31 and 2^32, and seeded uniform samples.
std::vector<int64_t> sampled_offsets(int64_t n, fc_triu_order order) {
  const int64_t size = fc_triu_size(n);
  std::vector<int64_t> k = {0, 1, 2, size - 3, size - 2, size - 1};
  const int64_t rows[] = {0, 1, 2, 3, n / 3, n / 2, n - 4, n - 3, n - 2, n - 1};
  for (int64_t r : rows) {
    // ROW: first pair of row r is (r, r + 1); COL: first pair of column r is (0, r).
    const bool valid = order == FC_TRIU_ROW ? (r >= 0 && r <= n - 2) : (r >= 1 && r <= n - 1);
    if (!valid) continue;
    const int64_t start = static_cast<int64_t>(order == FC_TRIU_ROW ? offset_exact(n, order, r, r + 1) : offset_exact(n, order, 0, r));
    for (int64_t d = -1; d <= 1; ++d) k.push_back(start + d);
  }
  for (int64_t boundary : {k2Pow31, k2Pow32})
    for (int64_t d = -2; d <= 2; ++d) k.push_back(boundary + d);
  fctest::Random rng(0x7417A9u + static_cast<uint64_t>(n) * 2 + order);
  for (int s = 0; s < 400; ++s) k.push_back(static_cast<int64_t>(rng.uniform() * static_cast<double>(size)));
  std::sort(k.begin(), k.end());
  k.erase(std::unique(k.begin(), k.end()), k.end());
  k.erase(std::remove_if(k.begin(), k.end(), [size](int64_t x) { return x < 0 || x >= size; }), k.end());
  return k;
}

class LargeTriangle : public ::testing::TestWithParam<int64_t> {};

// Round trips, agreement with 128-bit arithmetic, consecutive offsets being consecutive pairs,
// and monotonicity over sorted offsets. No output is allocated: only indices are computed.
TEST_P(LargeTriangle, SampledOffsetsRoundTripInBothOrders) {
  const int64_t n = GetParam();
  const int64_t size = fc_triu_size(n);
  ASSERT_EQ(i128(size), pairs_exact(n)) << "n = " << n;
  for (fc_triu_order order : kOrders) {
    SCOPED_TRACE(order == FC_TRIU_ROW ? "FC_TRIU_ROW" : "FC_TRIU_COL");
    EXPECT_EQ(fc_triu_offset(n, order, 0, 1), 0) << "the first pair is (0, 1) in both orders";
    EXPECT_EQ(fc_triu_offset(n, order, n - 2, n - 1), size - 1) << "the last pair is (N-2, N-1) in both orders";
    int64_t prev_i = -1, prev_j = -1, prev_k = -1;
    for (int64_t k : sampled_offsets(n, order)) {
      int64_t i = -1, j = -1;
      ASSERT_EQ(fc_triu_pair(n, order, k, &i, &j), FC_OK) << "offset " << k << ": " << fc_last_error();
      ASSERT_TRUE(0 <= i && i < j && j < n) << "offset " << k << " gave (" << i << ", " << j << ")";
      ASSERT_EQ(offset_exact(n, order, i, j), i128(k)) << "offset " << k << " gave (" << i << ", " << j << ")";
      ASSERT_EQ(fc_triu_offset(n, order, i, j), k) << "(" << i << ", " << j << ")";
      ASSERT_EQ(fc_triu_offset(n, order, j, i), k) << "(" << j << ", " << i << ")";
      if (prev_k >= 0) {
        // sorted offsets give pairs increasing in the order's sort key
        const bool increasing = order == FC_TRIU_ROW ? (i > prev_i || (i == prev_i && j > prev_j))
                                                     : (j > prev_j || (j == prev_j && i > prev_i));
        ASSERT_TRUE(increasing) << "offset " << prev_k << " -> (" << prev_i << ", " << prev_j << "), offset " << k
                                << " -> (" << i << ", " << j << ")";
        if (k == prev_k + 1) {
          int64_t si = prev_i, sj = prev_j;
          successor(n, order, &si, &sj);
          ASSERT_TRUE(si == i && sj == j) << "offset " << k << " gave (" << i << ", " << j << "), expected the successor ("
                                          << si << ", " << sj << ") of offset " << prev_k;
        }
      }
      prev_i = i;
      prev_j = j;
      prev_k = k;
    }
    EXPECT_EQ(prev_k, size - 1) << "the sample ends at the last offset";
    EXPECT_EQ(prev_i, n - 2);
    EXPECT_EQ(prev_j, n - 1);
    int64_t i = -1, j = -1;
    EXPECT_EQ(fc_triu_pair(n, order, size, &i, &j), FC_ERR_INVALID_ARG) << "one past the last offset";
  }
}

INSTANTIATE_TEST_SUITE_P(PastThirtyTwoBits, LargeTriangle,
                         ::testing::Values(int64_t(65537), int64_t(92683), int64_t(200000), int64_t(3000000000LL),
                                           int64_t(1) << 32),
                         [](const ::testing::TestParamInfo<int64_t>& p) { return "N" + std::to_string(p.param); });

}  // namespace
