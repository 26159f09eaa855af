// Input layouts: the same data given series-major (R / MATLAB), time-major (numpy (T, N) C order)
// or padded (a leading dimension larger than the data) must give bit-identical results, as
// float or as double input; and float data given as double must equal the float input.
#include <gtest/gtest.h>

#include <tuple>

#include "api_calls.hpp"
#include "reference.hpp"

namespace {

using namespace fctest;

const Layout kLayouts[] = {Layout::SeriesMajor, Layout::TimeMajor, Layout::SeriesMajorPadded, Layout::TimeMajorPadded};

// Every output of one series set (a) and a cross block against a second set (b).
struct Outputs {
  std::vector<float> triu_row, triu_col, dense, cross;
  std::vector<double> triu_f64;
};

Outputs all_outputs(const Context& ctx, const Series& a, const Series& b) {
  Outputs o;
  o.triu_row = pcc_triu(ctx, a, FC_TRIU_ROW);
  o.triu_col = pcc_triu(ctx, a, FC_TRIU_COL);
  o.triu_f64 = pcc_triu_f64(ctx, a, FC_TRIU_ROW);
  o.dense = pcc_dense(ctx, a, a.n_series());
  o.cross = pcc_cross(ctx, a, b, b.n_series());
  return o;
}

void expect_identical(const Outputs& x, const Outputs& y) {
  EXPECT_TRUE(bit_identical(x.triu_row, y.triu_row)) << "fc_pcc_triu FC_TRIU_ROW";
  EXPECT_TRUE(bit_identical(x.triu_col, y.triu_col)) << "fc_pcc_triu FC_TRIU_COL";
  EXPECT_TRUE(bit_identical(x.triu_f64, y.triu_f64)) << "fc_pcc_triu_f64";
  EXPECT_TRUE(bit_identical(x.dense, y.dense)) << "fc_pcc_dense";
  EXPECT_TRUE(bit_identical(x.cross, y.cross)) << "fc_pcc_cross";
}

class LayoutTest : public ::testing::TestWithParam<std::tuple<int64_t, int64_t, fc_precision>> {
 protected:
  int64_t n() const { return std::get<0>(GetParam()); }
  int64_t t() const { return std::get<1>(GetParam()); }
  fc_precision precision() const { return std::get<2>(GetParam()); }
  int64_t m() const { return 5; }
  // Float-representable values, so that the same numbers can be given as float and as double.
  Dataset data() const { return rounded_to_float(structured_data(n() + m(), t(), 77u + uint64_t(n()) * 31u + uint64_t(t()))); }
};

TEST_P(LayoutTest, AllLayoutsAndInputTypesGiveIdenticalResults) {
  const Dataset d = data();
  const Dataset a_data = subset(d, 0, n()), b_data = subset(d, n(), m());
  Context ctx;
  ctx.precision(precision());

  // The baseline: series-major double input, checked against the reference so that agreement
  // among layouts cannot come from all of them being wrong the same way.
  const Series a0 = make_series(ctx, a_data), b0 = make_series(ctx, b_data);
  const Outputs baseline = all_outputs(ctx, a0, b0);
  const std::vector<double> expected = triangle_of(reference_dense(normalize(a_data)), n(), FC_TRIU_ROW);
  ASSERT_TRUE(matches_reference(baseline.triu_f64, expected, tolerance(precision(), false)));

  for (Input input : {Input::F64, Input::F32}) {
    for (Layout layout : kLayouts) {
      SCOPED_TRACE(std::string(layout_name(layout)) + (input == Input::F32 ? ", float input" : ", double input"));
      const Series a = make_series(ctx, a_data, layout, input);
      const Series b = make_series(ctx, b_data, layout, input);
      expect_identical(all_outputs(ctx, a, b), baseline);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Shapes, LayoutTest,
                         ::testing::Combine(::testing::Values(1, 13, 257), ::testing::Values(2, 165, 1200),
                                            ::testing::Values(FC_PRECISION_FP32, FC_PRECISION_FP64)),
                         [](const ::testing::TestParamInfo<std::tuple<int64_t, int64_t, fc_precision>>& p) {
                           return "N" + std::to_string(std::get<0>(p.param)) + "_T" + std::to_string(std::get<1>(p.param)) +
                                  (std::get<2>(p.param) == FC_PRECISION_FP64 ? "_FP64" : "_FP32");
                         });

// Strides that make two elements share an address are rejected, not silently read.
TEST(LayoutValidation, OverlappingStridesAreRejected) {
  const Dataset d = structured_data(4, 10, 5);
  const Strided<double> in = to_layout<double>(d, Layout::SeriesMajor);
  Context ctx;
  fc_series* s = nullptr;
  // series_stride 5 < n_time * time_stride = 10, and time_stride 1 < n_series * series_stride
  EXPECT_EQ(fc_series_create_f64(ctx.get(), in.buffer.data(), 4, 10, 5, 1, &s), FC_ERR_INVALID_ARG);
  EXPECT_EQ(s, nullptr);
  EXPECT_NE(std::string(fc_last_error()).find("overlap"), std::string::npos) << fc_last_error();
}

}  // namespace
