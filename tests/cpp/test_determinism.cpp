// Bit-identical results on the CPU backend: the same computation run twice (in one context and
// in a fresh one), and under memory limits small enough to cut the work into many tiles (one,
// three, a hundred rows of scratch) against the default limit. Tiling must change only how the
// work is scheduled, never a value.
#include <gtest/gtest.h>

#include <tuple>

#include "api_calls.hpp"
#include "reference.hpp"

namespace {

using namespace fctest;

// Every output that tiling or a rerun could disturb.
struct Outputs {
  std::vector<float> triu_row, triu_col, dense, cross, blocks;
  std::vector<double> row_f64, col_f64;
};

Outputs all_outputs(const Context& ctx, const Series& a, const Series& b) {
  Outputs o;
  o.triu_row = pcc_triu(ctx, a, FC_TRIU_ROW);
  o.triu_col = pcc_triu(ctx, a, FC_TRIU_COL);
  o.row_f64 = pcc_triu_f64(ctx, a, FC_TRIU_ROW);
  o.col_f64 = pcc_triu_f64(ctx, a, FC_TRIU_COL);
  o.dense = pcc_dense(ctx, a, a.n_series());
  o.cross = pcc_cross(ctx, a, b, b.n_series());
  o.blocks = pull_blocks(ctx, a, 0).values;  // rows per block chosen from the memory limit
  return o;
}

void expect_identical(const Outputs& x, const Outputs& y) {
  EXPECT_TRUE(bit_identical(x.triu_row, y.triu_row)) << "fc_pcc_triu FC_TRIU_ROW";
  EXPECT_TRUE(bit_identical(x.triu_col, y.triu_col)) << "fc_pcc_triu FC_TRIU_COL";
  EXPECT_TRUE(bit_identical(x.row_f64, y.row_f64)) << "fc_pcc_triu_f64 FC_TRIU_ROW";
  EXPECT_TRUE(bit_identical(x.col_f64, y.col_f64)) << "fc_pcc_triu_f64 FC_TRIU_COL";
  EXPECT_TRUE(bit_identical(x.dense, y.dense)) << "fc_pcc_dense";
  EXPECT_TRUE(bit_identical(x.cross, y.cross)) << "fc_pcc_cross";
  EXPECT_TRUE(bit_identical(x.blocks, y.blocks)) << "fc_blocks_next";
}

// Structured data with two constant series, so the constant handling is tiled too.
Dataset test_data(int64_t n, int64_t t) {
  Dataset d = structured_data(n, t, 5150u + uint64_t(n));
  make_constant(d, 1, 0.1);
  make_constant(d, n - 2, 42.0);
  return d;
}

int64_t scalar_bytes(fc_precision p) { return p == FC_PRECISION_FP64 ? 8 : 4; }

class Determinism : public ::testing::TestWithParam<std::tuple<int64_t, fc_precision>> {
 protected:
  int64_t n() const { return std::get<0>(GetParam()); }
  fc_precision precision() const { return std::get<1>(GetParam()); }
  static constexpr int64_t kT = 165;
  static constexpr int64_t kM = 37;  // series of the cross block's b
};

TEST_P(Determinism, SmallMemoryLimitsGiveIdenticalResults) {
  const Dataset d = test_data(n() + kM, kT);
  const Dataset a_data = subset(d, 0, n()), b_data = subset(d, n(), kM);
  Context reference_ctx;
  reference_ctx.precision(precision());
  const Series a0 = make_series(reference_ctx, a_data), b0 = make_series(reference_ctx, b_data);
  const Outputs baseline = all_outputs(reference_ctx, a0, b0);
  // The baseline itself is right, so identical results mean right results.
  ASSERT_TRUE(matches_reference(baseline.row_f64, triangle_of(reference_dense(normalize(a_data)), n(), FC_TRIU_ROW),
                                tolerance(precision(), false)));

  // One row of scratch is n() values of the storage type (a tile's GEMM output).
  for (int64_t rows : {1, 3, 100}) {
    SCOPED_TRACE("memory limit of " + std::to_string(rows) + " rows");
    Context ctx;
    ctx.precision(precision()).memory_limit(rows * n() * scalar_bytes(precision()));
    const Series a = make_series(ctx, a_data), b = make_series(ctx, b_data);
    expect_identical(all_outputs(ctx, a, b), baseline);
  }
}

TEST_P(Determinism, RerunsGiveIdenticalResults) {
  const Dataset d = test_data(n() + kM, kT);
  const Dataset a_data = subset(d, 0, n()), b_data = subset(d, n(), kM);
  Context ctx;
  ctx.precision(precision());
  const Series a = make_series(ctx, a_data), b = make_series(ctx, b_data);
  const Outputs first = all_outputs(ctx, a, b);
  expect_identical(all_outputs(ctx, a, b), first);  // same context, same series

  Context fresh;
  fresh.precision(precision());
  const Series a2 = make_series(fresh, a_data), b2 = make_series(fresh, b_data);
  expect_identical(all_outputs(fresh, a2, b2), first);  // new context, series uploaded again
}

INSTANTIATE_TEST_SUITE_P(Shapes, Determinism,
                         ::testing::Combine(::testing::Values(257, 1009), ::testing::Values(FC_PRECISION_FP32, FC_PRECISION_FP64)),
                         [](const ::testing::TestParamInfo<std::tuple<int64_t, fc_precision>>& p) {
                           return "N" + std::to_string(std::get<0>(p.param)) +
                                  (std::get<1>(p.param) == FC_PRECISION_FP64 ? "_FP64" : "_FP32");
                         });

// Below one row of scratch the computation is refused with the minimum named, not run wrong.
TEST(MemoryLimit, BelowOneRowIsOutOfMemory) {
  const Dataset d = test_data(300, 20);
  Context ctx;
  ctx.memory_limit(300 * 4 - 1);
  const Series s = make_series(ctx, d);
  std::vector<float> out(static_cast<size_t>(fc_triu_size(300)));
  EXPECT_EQ(fc_pcc_triu(ctx.get(), s.get(), FC_TRIU_ROW, out.data(), static_cast<int64_t>(out.size())), FC_ERR_OUT_OF_MEMORY);
  EXPECT_NE(std::string(fc_last_error()).find("memory limit"), std::string::npos)
      << "the message should say that the memory limit is too small: " << fc_last_error();
}

}  // namespace
