// Values stay within [-1, 1]: series that are exact affine copies of one another (r = +-1 in
// exact arithmetic) make rounded dot products land just past 1, and every output must clamp
// them, in FP32 and FP64, while staying within the contract's distance of +-1.
#include <gtest/gtest.h>

#include <cmath>

#include "api_calls.hpp"
#include "reference.hpp"

namespace {

using namespace fctest;

// Each of 8 base series followed by affine copies of itself: a x + b with positive and negative
// a over eight orders of magnitude and offsets up to 1e5.
Dataset affine_copies(int64_t t) {
  const Dataset base = structured_data(8, t, 31337u + uint64_t(t));
  const double scales[] = {1.0, 1e-3, 3.7, 1e4, -1.0, -2.0, 0.5};
  const double offsets[] = {0.0, 1e5, -17.0, 0.0, 0.0, 5.0, -0.25};
  const int copies = 7;
  Dataset d;
  d.n = base.n * copies;
  d.t = t;
  d.x.resize(static_cast<size_t>(d.n * t));
  for (int64_t s = 0; s < base.n; ++s)
    for (int c = 0; c < copies; ++c)
      for (int64_t k = 0; k < t; ++k) d.at(s * copies + c, k) = scales[c] * base.at(s, k) + offsets[c];
  return d;
}

// How many pairs of the reference's normalized rows, rounded to float, have a float dot product
// beyond +-1: a witness that the data does push unclamped products past 1.
int64_t float_products_past_one(const Reference& r) {
  int64_t count = 0;
  for (int64_t i = 0; i < r.n; ++i)
    for (int64_t j = i; j < r.n; ++j) {
      float s = 0.0f;
      for (int64_t k = 0; k < r.t; ++k) s += static_cast<float>(r.row(i)[k]) * static_cast<float>(r.row(j)[k]);
      count += std::fabs(s) > 1.0f;
    }
  return count;
}

class Clamp : public ::testing::TestWithParam<fc_precision> {};

TEST_P(Clamp, NearIdenticalSeriesStayWithinUnitInterval) {
  const fc_precision precision = GetParam();
  int64_t witnesses = 0;
  for (int64_t t : {2, 3, 165, 1200}) {
    SCOPED_TRACE("T = " + std::to_string(t));
    const Dataset d = affine_copies(t);
    const Reference ref = normalize(d);
    witnesses += float_products_past_one(ref);
    const std::vector<double> dense = reference_dense(ref);
    Context ctx;
    ctx.precision(precision);
    const Series s = make_series(ctx, d);
    // matches_reference also rejects any value outside [-1, 1].
    for (fc_triu_order order : {FC_TRIU_ROW, FC_TRIU_COL}) {
      const std::vector<double> expected = triangle_of(dense, d.n, order);
      EXPECT_TRUE(matches_reference(pcc_triu(ctx, s, order), expected, tolerance(precision, true))) << "order " << order;
      EXPECT_TRUE(matches_reference(pcc_triu_f64(ctx, s, order), expected, tolerance(precision, false))) << "order " << order;
    }
    EXPECT_TRUE(matches_reference(pcc_dense(ctx, s, d.n), dense, tolerance(precision, true))) << "fc_pcc_dense";
    EXPECT_TRUE(matches_reference(pcc_cross(ctx, s, s, d.n), dense, tolerance(precision, true))) << "fc_pcc_cross(s, s)";
  }
  EXPECT_GT(witnesses, 0) << "the data never pushes a float dot product past 1, so it does not test the clamp";
}

INSTANTIATE_TEST_SUITE_P(Precisions, Clamp, ::testing::Values(FC_PRECISION_FP32, FC_PRECISION_FP64),
                         [](const ::testing::TestParamInfo<fc_precision>& p) {
                           return p.param == FC_PRECISION_FP64 ? "FP64" : "FP32";
                         });

}  // namespace
