// The CUDA backend's row bands of the network calls (issue 33): any split at multiples of
// graph_row_granularity, joined (tests/cpp/graph_bands.hpp), is the CUDA whole call bit for bit:
// edges, degree and fixed-point strength, |r| histogram, top-k, on odd sizes, T = 2 (ties),
// constant series, FP32 / FP64, both edge tests, memory limits, the tiled and tensor-core degree
// paths, and 20,000 x 165 fMRI-like series. Where the backend has no band path (TF32, the tiled
// path's strength) every band declines, writing nothing: exactly those are counted.
//
// Skips when no CUDA context can be made; FASTCONN_REQUIRE_CUDA=1 makes that a failure. For
// compute-sanitizer, --gtest_filter='*n101*:*Paths*' keeps it short.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "graph_bands.hpp"
#include "require_cuda.hpp"
#include "scoped_env.hpp"

namespace {

using namespace fctest;

struct Setting {
  fc_precision precision;
  int64_t memory_limit;
  int declined;  // of join_all's six joins: the ones without a band path
};

std::string setting_name(const Setting& s) { return precision_name(s.precision) + " limit " + std::to_string(s.memory_limit); }

Context cuda_context(const Setting& st) {
  Context c(FC_BACKEND_CUDA);
  c.precision(st.precision).memory_limit(st.memory_limit);
  return c;
}

class CudaGraphBands : public ::testing::TestWithParam<int64_t> {};

// FP32: the fused degree (fits 8 MiB up to n = 2053): nothing declined. FP64: the tiled degree,
// whose strength has no band path (degree and strength, strength alone). TF32: cuBLAS's
// tensor-core products: all six.
TEST_P(CudaGraphBands, JoinedBandsAreTheWholeCall) {
  REQUIRE_CUDA();
  std::vector<BandSetting> settings;
  for (const Setting& st : {Setting{FC_PRECISION_FP32, 0, 0}, Setting{FC_PRECISION_FP64, 0, 2},
                            Setting{FC_PRECISION_FP32, int64_t(8) << 20, 0}, Setting{FC_PRECISION_FP64, int64_t(8) << 20, 2},
                            Setting{FC_PRECISION_TF32, 0, 6}})
    settings.push_back(BandSetting{setting_name(st), [st] { return cuda_context(st); }, st.declined});
  join_matrix(GetParam(), settings);
}

INSTANTIATE_TEST_SUITE_P(Sizes, CudaGraphBands, ::testing::Values(1, 2, 3, 7, 101, 1009, 2053),
                         [](const ::testing::TestParamInfo<int64_t>& info) { return "n" + std::to_string(info.param); });

// The degree's other paths: tiled in FP32 (FASTCONN_CUDA_FUSED_DEGREE=0: degrees join, the
// strength has no band path) and on tensor cores (FASTCONN_TC_DEGREE=1, degrees alone: joined).
TEST(CudaGraphBandsPaths, TiledAndTensorCoreDegree) {
  REQUIRE_CUDA();
  const fc::EdgeTest test{true, 0.3f};
  // The degree joins of one n under `variable` = "1" or "0"; `declined`: those without a band path.
  auto joins = [&](int64_t n, const char* variable, const char* value, const std::vector<DegreeParts>& checked,
                   const std::vector<DegreeParts>& declined) {
    const ScopedEnv env(variable, value);
    const Context c = cuda_context({FC_PRECISION_FP32, 0, 0});
    const Series s = make_series(c, band_data(n, 165, 77 + uint64_t(n)));
    const std::vector<int64_t> cuts = band_cuts(n, granularity_of(c, s), 3, uint64_t(n));
    SCOPED_TRACE(std::string(variable) + "=" + value + ", n " + std::to_string(n) + ", " + cuts_text(cuts));
    for (DegreeParts p : checked) EXPECT_EQ(join_degree(c, s, test, cuts, p), Joined::checked);
    for (DegreeParts p : declined) EXPECT_EQ(join_degree(c, s, test, cuts, p), Joined::declined);
  };
  for (int64_t n : {int64_t(1009), int64_t(2053)}) {
    joins(n, "FASTCONN_CUDA_FUSED_DEGREE", "0", {DegreeParts::degree_only}, {DegreeParts::both, DegreeParts::strength_only});
    joins(n, "FASTCONN_TC_DEGREE", "1", {DegreeParts::degree_only, DegreeParts::both}, {});
  }
}

// 20,000 x 165 fMRI-like series: random splits and halves, without a limit and under one that
// makes many bands (the fused degree still fits: 13.5 MB); then a limit below the fused
// kernel's memory, where the strength is tiled and declines.
TEST(CudaGraphBandsLarge, Series20000x165) {
  REQUIRE_CUDA();
  const int64_t n = 20000;
  const Dataset d = band_data(n, 165, 20000);
  const fc::EdgeTest test{true, 0.6f};
  for (const Setting& st : {Setting{FC_PRECISION_FP32, 0, 0}, Setting{FC_PRECISION_FP32, int64_t(64) << 20, 0},
                            Setting{FC_PRECISION_FP32, int64_t(12) << 20, 2}}) {
    SCOPED_TRACE(setting_name(st));
    const Context c = cuda_context(st);
    const Series s = make_series(c, d);
    const int64_t g = granularity_of(c, s);
    EXPECT_EQ(st.declined, join_all(c, s, test, 10, {0, (n / 2 / g) * g, n}));
    EXPECT_EQ(st.declined, join_all(c, s, test, 10, band_cuts(n, g, 4, 7)));
  }
}

}  // namespace
