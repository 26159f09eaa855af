// Accuracy of every PCC output against the float64 reference, on the CPU backend: the triangle
// in both orders (float and double output), the dense matrix and the cross block, in FP32 and
// FP64 modes, for float and double input. N covers 1, 2, 3, primes and sizes just past the
// 256-row tiles (257, 1009); T covers the smallest (2, 3), a typical scan (165) and a long one.
#include <gtest/gtest.h>

#include <tuple>

#include "api_calls.hpp"
#include "reference.hpp"

namespace {

using namespace fctest;

const fc_triu_order kOrders[] = {FC_TRIU_ROW, FC_TRIU_COL};

class Accuracy : public ::testing::TestWithParam<std::tuple<int64_t, int64_t>> {
 protected:
  int64_t n() const { return std::get<0>(GetParam()); }
  int64_t t() const { return std::get<1>(GetParam()); }
  // b of the cross block: a different count, from the same data set as a.
  int64_t m() const { return n() / 4 + 2; }
  Dataset data() const { return structured_data(n() + m(), t(), 1000003u * uint64_t(n()) + uint64_t(t())); }

  // Checks all outputs of a context in `precision` against the reference of `d` (n + m series;
  // the first n are "the" series set, the rest are b of the cross block).
  void check_all_outputs(fc_precision precision, const Dataset& d, Input input) {
    const Dataset a_data = subset(d, 0, n()), b_data = subset(d, n(), m());
    const Reference ra = normalize(a_data), rb = normalize(b_data);
    const std::vector<double> dense = reference_dense(ra);
    Context ctx;
    ctx.precision(precision);
    const Series a = make_series(ctx, a_data, Layout::SeriesMajor, input);
    const Series b = make_series(ctx, b_data, Layout::SeriesMajor, input);

    for (fc_triu_order order : kOrders) {
      SCOPED_TRACE(order == FC_TRIU_ROW ? "FC_TRIU_ROW" : "FC_TRIU_COL");
      const std::vector<double> expected = triangle_of(dense, n(), order);
      EXPECT_TRUE(matches_reference(pcc_triu(ctx, a, order), expected, tolerance(precision, true))) << "fc_pcc_triu";
      EXPECT_TRUE(matches_reference(pcc_triu_f64(ctx, a, order), expected, tolerance(precision, false))) << "fc_pcc_triu_f64";
    }
    // Dense with a padded leading dimension: the padding must stay untouched.
    const int64_t ld = n() + 3;
    const std::vector<float> got = pcc_dense(ctx, a, ld);
    EXPECT_TRUE(matches_reference(got.data(), n(), n(), ld, dense, tolerance(precision, true))) << "fc_pcc_dense";
    for (int64_t i = 0; i < n(); ++i) {
      EXPECT_EQ(got[i * ld + i], 1.0f) << "the diagonal is exactly 1, row " << i;
      for (int64_t c = n(); c < ld; ++c) ASSERT_EQ(got[i * ld + c], kSentinel) << "fc_pcc_dense wrote padding (" << i << ", " << c << ")";
    }
    const int64_t ldc = m() + 1;
    const std::vector<float> cross = pcc_cross(ctx, a, b, ldc);
    EXPECT_TRUE(matches_reference(cross.data(), n(), m(), ldc, reference_cross(ra, rb), tolerance(precision, true)))
        << "fc_pcc_cross";
    for (int64_t i = 0; i < n(); ++i) ASSERT_EQ(cross[i * ldc + m()], kSentinel) << "fc_pcc_cross wrote padding, row " << i;
  }
};

TEST_P(Accuracy, Fp32WithinOneE5) { check_all_outputs(FC_PRECISION_FP32, data(), Input::F64); }

TEST_P(Accuracy, Fp32FloatInputWithinOneE5) {
  // The reference is built from the float values themselves, so it is exact for this input.
  check_all_outputs(FC_PRECISION_FP32, rounded_to_float(data()), Input::F32);
}

TEST_P(Accuracy, Fp64WithinOneE12) { check_all_outputs(FC_PRECISION_FP64, data(), Input::F64); }

TEST_P(Accuracy, Fp64FloatInputWithinOneE12) { check_all_outputs(FC_PRECISION_FP64, rounded_to_float(data()), Input::F32); }

// The CPU has no TF32 arithmetic: asking for it computes FP32, bit for bit.
TEST_P(Accuracy, Tf32OnCpuEqualsFp32) {
  const Dataset d = data();
  const Dataset a_data = subset(d, 0, n()), b_data = subset(d, n(), m());
  Context fp32, tf32;
  tf32.precision(FC_PRECISION_TF32);
  const Series a32 = make_series(fp32, a_data), b32 = make_series(fp32, b_data);
  const Series atf = make_series(tf32, a_data), btf = make_series(tf32, b_data);
  for (fc_triu_order order : kOrders) {
    EXPECT_TRUE(bit_identical(pcc_triu(tf32, atf, order), pcc_triu(fp32, a32, order))) << "fc_pcc_triu order " << order;
    EXPECT_TRUE(bit_identical(pcc_triu_f64(tf32, atf, order), pcc_triu_f64(fp32, a32, order))) << "fc_pcc_triu_f64 order " << order;
  }
  EXPECT_TRUE(bit_identical(pcc_dense(tf32, atf, n()), pcc_dense(fp32, a32, n()))) << "fc_pcc_dense";
  EXPECT_TRUE(bit_identical(pcc_cross(tf32, atf, btf, m()), pcc_cross(fp32, a32, b32, m()))) << "fc_pcc_cross";
}

INSTANTIATE_TEST_SUITE_P(Sizes, Accuracy,
                         ::testing::Combine(::testing::Values(1, 2, 3, 5, 7, 13, 31, 127, 257, 1009),
                                            ::testing::Values(2, 3, 165, 1200)),
                         [](const ::testing::TestParamInfo<std::tuple<int64_t, int64_t>>& p) {
                           return "N" + std::to_string(std::get<0>(p.param)) + "_T" + std::to_string(std::get<1>(p.param));
                         });

}  // namespace
