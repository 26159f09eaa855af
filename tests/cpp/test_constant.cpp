// Constant (zero-variance) series: detected exactly (0.1 repeated included, whose computed mean
// is not 0.1), counted by fc_series_info, and every pair that touches one is NaN by default or
// exactly 0 under FC_CONSTANT_ZERO, in every output; the dense diagonal is 1 except for them.
#include <gtest/gtest.h>

#include <cmath>
#include <tuple>

#include "api_calls.hpp"
#include "reference.hpp"

namespace {

using namespace fctest;

const fc_triu_order kOrders[] = {FC_TRIU_ROW, FC_TRIU_COL};

class ConstantSeries : public ::testing::TestWithParam<std::tuple<int64_t, fc_precision, fc_constant_policy>> {
 protected:
  int64_t t() const { return std::get<0>(GetParam()); }
  fc_precision precision() const { return std::get<1>(GetParam()); }
  fc_constant_policy policy() const { return std::get<2>(GetParam()); }
};

TEST_P(ConstantSeries, PairsTouchingAConstantFollowThePolicy) {
  const int64_t n = 41, m = 9;
  Dataset d = structured_data(n + m, t(), 4242u + uint64_t(t()));
  // a: the first and last series, a zero series and a large offset; b: one inside, the last.
  for (auto [s, v] : {std::pair<int64_t, double>{0, 0.1}, {7, 0.0}, {20, 1234.5678}, {n - 1, 0.1}, {n + 3, 0.1}, {n + m - 1, -2.5}})
    make_constant(d, s, v);
  const Dataset a_data = subset(d, 0, n), b_data = subset(d, n, m);
  const Reference ra = normalize(a_data), rb = normalize(b_data);
  ASSERT_EQ(ra.n_constant, 4);
  ASSERT_EQ(rb.n_constant, 2);

  Context ctx;
  ctx.precision(precision()).policy(policy());
  const Series a = make_series(ctx, a_data), b = make_series(ctx, b_data);
  EXPECT_EQ(a.n_constant(), 4);
  EXPECT_EQ(b.n_constant(), 2);
  for (int64_t s = 0; s < n; ++s) {
    int flag = -1;
    ASSERT_EQ(fc_series_is_constant(a.get(), s, &flag), FC_OK) << fc_last_error();
    EXPECT_EQ(flag, ra.constant[s] ? 1 : 0) << "series " << s;
  }

  const std::vector<double> dense = reference_dense(ra);
  for (fc_triu_order order : kOrders) {
    SCOPED_TRACE(order == FC_TRIU_ROW ? "FC_TRIU_ROW" : "FC_TRIU_COL");
    const std::vector<double> expected = triangle_of(dense, n, order);
    EXPECT_TRUE(follows_policy(pcc_triu(ctx, a, order), expected, policy(), tolerance(precision(), true))) << "fc_pcc_triu";
    EXPECT_TRUE(follows_policy(pcc_triu_f64(ctx, a, order), expected, policy(), tolerance(precision(), false))) << "fc_pcc_triu_f64";
  }
  const std::vector<float> got = pcc_dense(ctx, a, n);
  EXPECT_TRUE(follows_policy(got.data(), n, n, n, dense, policy(), tolerance(precision(), true))) << "fc_pcc_dense";
  for (int64_t s = 0; s < n; ++s) {
    const float diag = got[s * n + s];
    if (!ra.constant[s]) EXPECT_EQ(diag, 1.0f) << "diagonal of series " << s;
    else if (policy() == FC_CONSTANT_NAN) EXPECT_TRUE(std::isnan(diag)) << "diagonal of constant series " << s << " is " << diag;
    else EXPECT_EQ(diag, 0.0f) << "diagonal of constant series " << s;
  }
  EXPECT_TRUE(follows_policy(pcc_cross(ctx, a, b, m).data(), n, m, m, reference_cross(ra, rb), policy(),
                             tolerance(precision(), true)))
      << "fc_pcc_cross";
}

INSTANTIATE_TEST_SUITE_P(Settings, ConstantSeries,
                         ::testing::Combine(::testing::Values(3, 165, 1200),
                                            ::testing::Values(FC_PRECISION_FP32, FC_PRECISION_FP64),
                                            ::testing::Values(FC_CONSTANT_NAN, FC_CONSTANT_ZERO)),
                         [](const ::testing::TestParamInfo<std::tuple<int64_t, fc_precision, fc_constant_policy>>& p) {
                           return "T" + std::to_string(std::get<0>(p.param)) +
                                  (std::get<1>(p.param) == FC_PRECISION_FP64 ? "_FP64" : "_FP32") +
                                  (std::get<2>(p.param) == FC_CONSTANT_ZERO ? "_ZERO" : "_NAN");
                         });

// 0.1 has no exact binary form: the sum of T copies divided by T is not 0.1 for most T, so a
// variance test (or a mean subtracted in float64) leaves deviations of ~1e-16 whose "normalized"
// series is pure rounding noise. Detection must compare the values themselves.
TEST(ConstantDetection, PointOneRepeatedIsConstant) {
  for (int64_t t : {3, 165, 1200}) {
    for (Input input : {Input::F64, Input::F32}) {
      SCOPED_TRACE("T = " + std::to_string(t) + (input == Input::F32 ? ", float input" : ", double input"));
      Dataset d = structured_data(4, t, 99u);
      make_constant(d, 2, input == Input::F32 ? double(0.1f) : 0.1);
      if (input == Input::F64) {
        // The trap is real for this T: the computed mean differs from the value.
        double sum = 0.0;
        for (int64_t k = 0; k < t; ++k) sum += d.at(2, k);
        ASSERT_NE(sum / double(t), 0.1) << "this T does not exercise the rounding of the mean";
      }
      Context ctx;
      const Series s = make_series(ctx, d, Layout::SeriesMajor, input);
      EXPECT_EQ(s.n_constant(), 1);
      int flag = -1;
      ASSERT_EQ(fc_series_is_constant(s.get(), 2, &flag), FC_OK) << fc_last_error();
      EXPECT_EQ(flag, 1);
      const std::vector<float> r = pcc_triu(ctx, s, FC_TRIU_ROW);
      for (int64_t other : {0, 1, 3}) {
        const int64_t k = fc_triu_offset(4, FC_TRIU_ROW, 2, other);
        EXPECT_TRUE(std::isnan(r[k])) << "pair (2, " << other << ") is " << r[k];
      }
    }
  }
}

// Detection is exact, not a threshold: 0.1 with one sample raised by 1e-7 has a relative
// variance (variance / mean^2) of about 6e-15, which a tolerance-based test would call constant;
// it is not, and its correlations are finite and correct. (Tighter than FP32's 1e-5 would test
// the conditioning of the data, not the library: the mean's rounding, ~1e-17, is then no longer
// negligible next to deviations of 6e-10.)
TEST(ConstantDetection, NearlyConstantIsNotConstant) {
  const int64_t t = 165;
  Dataset d = structured_data(6, t, 7u);
  make_constant(d, 1, 0.1);
  d.at(1, 40) += 1e-7;
  Context ctx;
  const Series s = make_series(ctx, d);
  EXPECT_EQ(s.n_constant(), 0);
  const std::vector<double> expected = triangle_of(reference_dense(normalize(d)), d.n, FC_TRIU_ROW);
  EXPECT_TRUE(matches_reference(pcc_triu(ctx, s, FC_TRIU_ROW), expected, 1e-5));
}

TEST(ConstantDetection, EverySeriesConstant) {
  Dataset d = structured_data(3, 50, 1u);
  make_constant(d, 0, 0.1);
  make_constant(d, 1, -3.0);
  make_constant(d, 2, 0.1);  // equal to series 0: still no correlation
  for (fc_constant_policy policy : {FC_CONSTANT_NAN, FC_CONSTANT_ZERO}) {
    Context ctx;
    ctx.policy(policy);
    const Series s = make_series(ctx, d);
    EXPECT_EQ(s.n_constant(), 3);
    const std::vector<double> dense = reference_dense(normalize(d));
    EXPECT_TRUE(follows_policy(pcc_triu(ctx, s, FC_TRIU_COL), triangle_of(dense, 3, FC_TRIU_COL), policy, 1e-5));
    EXPECT_TRUE(follows_policy(pcc_dense(ctx, s, 3), dense, policy, 1e-5));
  }
}

TEST(ConstantDetection, SingleConstantSeriesDense) {
  Dataset d = structured_data(1, 20, 3u);
  make_constant(d, 0, 5.0);
  for (fc_constant_policy policy : {FC_CONSTANT_NAN, FC_CONSTANT_ZERO}) {
    Context ctx;
    ctx.policy(policy);
    const Series s = make_series(ctx, d);
    const std::vector<float> r = pcc_dense(ctx, s, 1);
    if (policy == FC_CONSTANT_NAN) EXPECT_TRUE(std::isnan(r[0])) << r[0];
    else EXPECT_EQ(r[0], 0.0f);
  }
}

}  // namespace
