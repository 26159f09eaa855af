// The CUDA backend's band plan (src/backend/cuda/band_plan.hpp, header-only, no CUDA): bands
// tile every run of the triangle exactly, in order, each within its tile, for any tile size.
// Needs no GPU, so it runs everywhere.
#include <gtest/gtest.h>

#include "backend/cuda/band_plan.hpp"

namespace {

using fc::cuda::next_triu_band;
using fc::cuda::TriuBand;

// Walks the bands of rows [begin, end) and checks what the GEMM and the packing kernel rely on.
void check_run(int64_t n, fc_triu_order order, int64_t begin, int64_t end, int64_t tile) {
  SCOPED_TRACE("n " + std::to_string(n) + ", order " + std::to_string(order) + ", rows [" + std::to_string(begin) + ", " +
               std::to_string(end) + "), tile " + std::to_string(tile));
  int64_t q = begin, offset = 0;
  while (q < end) {
    const TriuBand b = next_triu_band(n, order, q, end, begin, tile);
    ASSERT_EQ(b.q0, q);
    ASSERT_GT(b.q1, b.q0);
    ASSERT_LE(b.q1, end);
    ASSERT_EQ(b.offset, offset) << "bands must be contiguous slices";
    const int64_t rows = b.q1 - b.q0;
    if (rows > 1) {
      ASSERT_LE(rows * b.ld, tile) << "a band of several rows must fit its tile";
    }
    int64_t count = 0;
    for (int64_t r = b.q0; r < b.q1; ++r) {
      // the columns row r pairs with must lie inside the tile's [p0, p0 + ld)
      const int64_t first = order == FC_TRIU_ROW ? r + 1 : 0, last = order == FC_TRIU_ROW ? n - 1 : r - 1;
      ASSERT_GE(first, b.p0);
      ASSERT_LT(last, b.p0 + b.ld);
      count += last - first + 1;
    }
    ASSERT_EQ(b.count, count);
    offset += b.count;
    q = b.q1;
  }
  ASSERT_EQ(offset, fc::cuda::triu_start(n, order, end) - fc::cuda::triu_start(n, order, begin));
}

TEST(CudaBandPlan, BandsTileEveryRunExactly) {
  for (int64_t n : {2, 3, 7, 100, 1009}) {
    for (int64_t tile : {int64_t(1), int64_t(5), int64_t(n), int64_t(3 * n + 1), int64_t(n * n), int64_t(64) << 20}) {
      check_run(n, FC_TRIU_ROW, 0, n - 1, tile);
      check_run(n, FC_TRIU_COL, 1, n, tile);
      if (n > 10) {  // the pull iterator's blocks: runs starting inside the triangle
        check_run(n, FC_TRIU_ROW, n / 3, n / 2, tile);
        check_run(n, FC_TRIU_COL, n / 3, n / 2, tile);
      }
    }
  }
}

TEST(CudaBandPlan, OffsetsPastTwoToThe32) {
  const int64_t n = 92683;
  const TriuBand last = next_triu_band(n, FC_TRIU_ROW, n - 2, n - 1, 0, 1);
  EXPECT_EQ(last.offset + last.count, n * (n - 1) / 2);
  EXPECT_GT(last.offset, int64_t(1) << 32);
  const TriuBand col = next_triu_band(n, FC_TRIU_COL, n - 1, n, 1, int64_t(64) << 20);
  EXPECT_EQ(col.offset + col.count, n * (n - 1) / 2);
}

}  // namespace
