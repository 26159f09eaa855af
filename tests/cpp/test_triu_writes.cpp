// The CPU triangle's ways of writing its values (src/backend/cpu/cpu_pcc.cpp,
// FASTCONN_CPU_TRIU_WRITE): after each whole tile (tile, the default), after each chunk of rows
// whose products skip the columns no run needs (rows), and streamed as the products' register
// blocks finish (parts, where the CPU has AVX-512 and the storage and output types match). All
// must give the same bits, within the contract of a float64 reference, constant series included,
// at every alignment of the caller's buffer (the streamed part starts at a 64-byte boundary),
// without a write outside the triangle, in both orders, FP32 and FP64, whole and in blocks.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "../gpu/scoped_env.hpp"
#include "api_calls.hpp"
#include "reference.hpp"

namespace {

using namespace fctest;

constexpr double kGuard = -5.0;  // around the triangle: must survive

struct Shape {
  int64_t n, t;
};

Dataset data_with_constants(const Shape& s) {
  Dataset d = structured_data(s.n, s.t, uint64_t(1000 * s.n + s.t));
  if (s.n > 3) {  // a constant row inside a tile and one near the end
    make_constant(d, 1, 812.5);
    make_constant(d, s.n - 2, 1030.0);
  }
  return d;
}

// The triangle written at `offset` values into a buffer with guards on both sides.
template <class O>
std::vector<O> triangle(const Context& ctx, const Series& s, fc_triu_order order, int64_t n, int64_t offset, const char* mode) {
  const ScopedEnv env("FASTCONN_CPU_TRIU_WRITE", mode);
  const int64_t size = triu_size(n);
  std::vector<O> buf(static_cast<size_t>(size + offset + 9), O(kGuard));
  fc_status status;
  if constexpr (sizeof(O) == 4) status = fc_pcc_triu(ctx.get(), s.get(), order, buf.data() + offset, size);
  else status = fc_pcc_triu_f64(ctx.get(), s.get(), order, buf.data() + offset, size);
  EXPECT_EQ(status, FC_OK);
  for (int64_t k = 0; k < static_cast<int64_t>(buf.size()); ++k) {
    if (k < offset || k >= offset + size) {
      EXPECT_EQ(buf[static_cast<size_t>(k)], O(kGuard)) << "write outside the triangle at " << k - offset;
    }
  }
  return std::vector<O>(buf.begin() + offset, buf.begin() + offset + size);
}

template <class O>
void check_both_ways(fc_precision precision, const Shape& shape) {
  const Dataset d = data_with_constants(shape);
  Context ctx(FC_BACKEND_CPU);
  ctx.precision(precision);
  check(fc_context_set_threads(ctx.get(), 2), "fc_context_set_threads");
  const Series s = make_series(ctx, d);
  const std::vector<double> dense = reference_dense(normalize(d));
  for (fc_triu_order order : {FC_TRIU_ROW, FC_TRIU_COL}) {
    const std::vector<double> expected = triangle_of(dense, shape.n, order);
    for (int64_t offset : {0, 1, 3}) {
      SCOPED_TRACE("n=" + std::to_string(shape.n) + " t=" + std::to_string(shape.t) + (order == FC_TRIU_ROW ? " row" : " col") +
                   " order, output at +" + std::to_string(offset));
      const std::vector<O> parts = triangle<O>(ctx, s, order, shape.n, offset, "parts");
      const std::vector<O> rows = triangle<O>(ctx, s, order, shape.n, offset, "rows");
      const std::vector<O> tile = triangle<O>(ctx, s, order, shape.n, offset, "tile");
      ASSERT_EQ(parts.size(), expected.size());
      // (an empty triangle, N = 1, has no data pointer to compare: memcmp must not see it)
      EXPECT_TRUE(parts.empty() || std::memcmp(parts.data(), tile.data(), parts.size() * sizeof(O)) == 0)
          << "parts and tile differ in bits";
      EXPECT_TRUE(rows.empty() || std::memcmp(rows.data(), tile.data(), rows.size() * sizeof(O)) == 0)
          << "rows and tile differ in bits";
      const double tol = tolerance(precision, sizeof(O) == 4);
      int64_t bad = 0;
      for (size_t k = 0; k < parts.size(); ++k) {
        const double got = parts[k], want = expected[k];
        if (std::isnan(want) ? !std::isnan(got) : !(std::fabs(got - want) <= tol)) ++bad;
      }
      EXPECT_EQ(bad, 0) << "values beyond " << tol << " of the float64 reference (or NaN misplaced)";
    }
  }
}

// Odd sizes, a tile's edges (240 rows, 480 columns), several tiles, and T past one k chunk of
// the FP64 products (256 values: the values are final only after the last chunk).
const Shape kShapes[] = {{1, 165}, {2, 2}, {3, 7}, {17, 165}, {241, 165}, {487, 33}, {1009, 165}, {263, 600}};

TEST(TriuWrites, Fp64WaysGiveTheSameBits) {
  for (const Shape& s : kShapes) check_both_ways<double>(FC_PRECISION_FP64, s);
}

TEST(TriuWrites, Fp32WaysGiveTheSameBits) {
  for (const Shape& s : kShapes) check_both_ways<float>(FC_PRECISION_FP32, s);
}

// Blocks write rows [row_begin, row_end) of the row-ordered triangle: tiles cut by the blocks'
// rows, into a buffer whose alignment moves from block to block.
TEST(TriuWrites, BlocksEqualTheWholeTriangleEveryWay) {
  const Shape shape{487, 165};
  const Dataset d = data_with_constants(shape);
  Context ctx(FC_BACKEND_CPU);
  ctx.precision(FC_PRECISION_FP64);
  check(fc_context_set_threads(ctx.get(), 2), "fc_context_set_threads");
  const Series s = make_series(ctx, d);
  const std::vector<double> whole = triangle<double>(ctx, s, FC_TRIU_ROW, shape.n, 0, "tile");
  for (const char* mode : {"parts", "rows", "tile", static_cast<const char*>(nullptr)}) {
    SCOPED_TRACE(mode == nullptr ? "default" : mode);
    const ScopedEnv env("FASTCONN_CPU_TRIU_WRITE", mode);
    fc_blocks* blocks = nullptr;
    check(fc_pcc_blocks_begin(ctx.get(), s.get(), 7, &blocks), "fc_pcc_blocks_begin");
    int64_t capacity = 0;
    check(fc_blocks_max_count(blocks, &capacity), "fc_blocks_max_count");
    std::vector<double> buf(static_cast<size_t>(capacity));
    fc_block_info info{};
    int64_t covered = 0;
    while (fc_blocks_next_f64(blocks, buf.data(), capacity, &info) == FC_OK) {
      EXPECT_EQ(std::memcmp(buf.data(), whole.data() + info.triu_offset, static_cast<size_t>(info.count) * sizeof(double)), 0)
          << "block of rows [" << info.row_begin << ", " << info.row_end << ")";
      covered += info.count;
    }
    fc_blocks_destroy(blocks);
    EXPECT_EQ(covered, triu_size(shape.n));
  }
}

}  // namespace
