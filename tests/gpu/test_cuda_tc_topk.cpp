// Top-k with the pairs decided on tensor cores (src/backend/cuda/cuda_topk.cpp; the default,
// FASTCONN_TC_TOPK=1) against the FP32 rows (FASTCONN_TC_TOPK=0): every row's k columns and the
// bits of their r equal, at N from 512 up, T = 2 .. 1,200, with constant and duplicated series
// (exact ties broken by the smaller column), k from 1 to N / 8, with the whole sample and with
// sparse ones (FASTCONN_TC_TOPK_SAMPLE: the row bounds then come from a few columns); the public
// top-k graph on both paths; and the FP32 rows under a memory limit. FASTCONN_TC_STATS=1 makes
// the backend say when the tensor-core path ran, which the tests check.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "api/handles.hpp"
#include "api_calls.hpp"
#include "reference.hpp"
#include "require_cuda.hpp"
#include "scoped_env.hpp"
#include "tc_data.hpp"

namespace {

using namespace fctest;

struct TopK {
  std::vector<int64_t> columns;
  std::vector<float> values;
  bool tc = false;         // the backend reported the tensor-core path
  long long candidates = -1;
};

TopK top_k_on(const Context& ctx, const Series& s, int64_t k, bool tensor_cores) {
  const ScopedEnv stats("FASTCONN_TC_STATS", "1");
  const ScopedEnv tc("FASTCONN_TC_TOPK", tensor_cores ? "1" : "0");
  const fc::SeriesView v = s.get()->data->view();
  TopK r;
  r.columns.assign(static_cast<size_t>(v.n * k), -7);
  r.values.assign(static_cast<size_t>(v.n * k), -7.0f);
  fc::Progress progress(nullptr, nullptr, v.n);
  const fc::RunSettings run = ctx.get()->state->run_settings(progress);
  testing::internal::CaptureStderr();
  ctx.get()->state->backend->top_k(v, k, r.columns.data(), r.values.data(), run);
  const std::string err = testing::internal::GetCapturedStderr();
  const size_t at = err.find("tc_topk:");
  if (at != std::string::npos) {
    r.tc = true;
    const size_t c = err.find("series, ", at);
    if (c != std::string::npos) r.candidates = std::stoll(err.substr(c + 8));
  }
  EXPECT_EQ(progress.done(), v.n) << "progress in rows";
  return r;
}

// Both paths: the same columns and value bits; the tensor-core path ran when expected.
void expect_same_top_k(const Context& ctx, const Series& s, int64_t n, int64_t k, bool tc_expected = true) {
  SCOPED_TRACE("k = " + std::to_string(k));
  const TopK exact = top_k_on(ctx, s, k, false);
  const TopK fast = top_k_on(ctx, s, k, true);
  EXPECT_FALSE(exact.tc);
  EXPECT_EQ(fast.tc, tc_expected && tensor_cores_here());
  ASSERT_EQ(fast.columns.size(), exact.columns.size());
  int64_t first_bad = -1;
  for (size_t x = 0; x < exact.columns.size() && first_bad < 0; ++x)
    if (fast.columns[x] != exact.columns[x] || std::memcmp(&fast.values[x], &exact.values[x], 4) != 0)
      first_bad = static_cast<int64_t>(x);
  EXPECT_EQ(first_bad, -1) << "row " << first_bad / k << " rank " << first_bad % k << ": column "
                           << (first_bad < 0 ? 0 : fast.columns[first_bad]) << " vs "
                           << (first_bad < 0 ? 0 : exact.columns[first_bad]);
  int64_t chosen = 0;
  for (int64_t c : exact.columns) chosen += c >= 0;
  EXPECT_GT(chosen, 0);
  if (fast.tc) {
    EXPECT_GE(fast.candidates, chosen / 2) << "every chosen pair is a candidate (each at least once)";
  }
  (void)n;
}

TEST(CudaTcTopK, SameAsFp32RowsOnStructuredData) {
  REQUIRE_CUDA();
  const int64_t shapes[][2] = {{512, 2}, {521, 165}, {1031, 40}, {1500, 1200}, {2053, 165}};
  for (const auto& size : shapes) {
    SCOPED_TRACE("n " + std::to_string(size[0]) + " t " + std::to_string(size[1]));
    Dataset d = structured_data(size[0], size[1], 700 + size[0]);
    add_constants_and_a_duplicate(d);
    Context ctx(FC_BACKEND_CUDA);
    const Series s = make_series(ctx, d);
    for (int64_t k : {int64_t(1), int64_t(3), int64_t(10), size[0] / 8}) expect_same_top_k(ctx, s, d.n, k);
  }
}

TEST(CudaTcTopK, SameAsFp32RowsWithSparseSamplesAndTies) {
  REQUIRE_CUDA();
  // Near-threshold data: neighbours on a circle, many pairs within 1e-6 of each other's |r|, and
  // duplicated series (exact ties); a sample of every 40th (then 200th) series bounds the rows.
  Dataset d = near_threshold_data(2000, 165, 0.5, true, 17);
  add_constants_and_a_duplicate(d);
  Context ctx(FC_BACKEND_CUDA);
  const Series s = make_series(ctx, d);
  for (const char* sample : {"50", "10"}) {
    SCOPED_TRACE(std::string("sample of ") + sample);
    const ScopedEnv few("FASTCONN_TC_TOPK_SAMPLE", sample);
    for (int64_t k : {int64_t(2), int64_t(9)}) expect_same_top_k(ctx, s, d.n, k);
  }
  // k at or above the sample's size: the FP32 rows.
  const ScopedEnv few("FASTCONN_TC_TOPK_SAMPLE", "10");
  expect_same_top_k(ctx, s, d.n, 10, false);
}

TEST(CudaTcTopK, Fp32RowsUnderAMemoryLimitAndForSmallN) {
  REQUIRE_CUDA();
  const Dataset d = structured_data(800, 100, 9);
  Context ctx(FC_BACKEND_CUDA);
  ctx.memory_limit(int64_t(64) << 20);
  const Series s = make_series(ctx, d);
  expect_same_top_k(ctx, s, d.n, 5, false);
  const Dataset small = structured_data(300, 100, 10);
  Context ctx2(FC_BACKEND_CUDA);
  const Series s2 = make_series(ctx2, small);
  expect_same_top_k(ctx2, s2, small.n, 5, false);
}

// fc_pcc_graph's top-k rule: the same CSR and weights on both paths.
TEST(CudaTcTopK, SameGraphThroughThePublicCall) {
  REQUIRE_CUDA();
  Dataset d = structured_data(3000, 165, 43);
  add_constants_and_a_duplicate(d);
  Context ctx(FC_BACKEND_CUDA);
  const Series s = make_series(ctx, d);
  GraphCsr graphs[2];
  for (int tc = 0; tc < 2; ++tc) {
    const ScopedEnv path("FASTCONN_TC_TOPK", tc ? "1" : "0");
    graphs[tc] = pcc_graph_csr(ctx, s, FC_EDGE_TOP_K, 12, FC_GRAPH_WEIGHTED);
  }
  expect_same_graph(graphs[0], graphs[1]);
}

}  // namespace
