// The edges decided on tensor cores (kernels/tc_degree.cu in edge mode, kernels/tc_edges.cu; the
// default, FASTCONN_TC_EDGES=1) against the FP32 tiles (FASTCONN_TC_EDGES=0): the same edges in
// the same order with the same float values, bit for bit, on structured data, on data built so
// that many pairs sit within 1e-6 of the threshold, at T = 2 .. 4,000, N around the 128 x 128
// tiles, with constant and duplicated series, in many bands, for every threshold rule; and the
// public graph calls (threshold, density, every weighting) equal on both paths.
// FASTCONN_TC_STATS=1 makes the backend print the pairs it recomputed: the tests read it to be
// sure the tensor-core path ran (on sm_80+), and a run with delta forced to 0 (FASTCONN_TC_DELTA)
// must lose edges on the near-t data, so the comparison can fail.
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

struct EdgeRun {
  fc::UpperEdges e;
  bool tc = false;            // the backend reported a tensor-core run
  long long recomputed = -1;  // pairs it recomputed in FP32
};

// One threshold_edges call in ctx, on tensor cores or not; stderr is captured for the stats line.
EdgeRun edges_on(const Context& ctx, const Series& s, const fc::EdgeTest& test, bool tensor_cores) {
  const ScopedEnv stats("FASTCONN_TC_STATS", "1");
  const ScopedEnv tc("FASTCONN_TC_EDGES", tensor_cores ? "1" : "0");
  const fc::SeriesView v = s.get()->data->view();
  EdgeRun r;
  fc::Progress progress(nullptr, nullptr, triu_size(v.n));
  const fc::RunSettings run = ctx.get()->state->run_settings(progress);
  testing::internal::CaptureStderr();
  ctx.get()->state->backend->threshold_edges(v, test, r.e, run);
  const std::string err = testing::internal::GetCapturedStderr();
  const size_t at = err.find("tc_edges:");
  const size_t redo = err.find("recomputed ", at == std::string::npos ? 0 : at);
  if (at != std::string::npos && redo != std::string::npos) {
    r.tc = true;
    r.recomputed = std::stoll(err.substr(redo + 11));
  }
  return r;
}

bool same_bits(const fc::UpperEdges& a, const fc::UpperEdges& b) {
  return a.values.size() == b.values.size() &&
         (a.values.empty() || std::memcmp(a.values.data(), b.values.data(), a.values.size() * sizeof(float)) == 0);
}

// Tensor cores and FP32 tiles: the same row counts, columns and value bits; the tensor-core path
// ran where the device has tensor cores (and tc_fits), the other did not. Returns the run.
EdgeRun expect_same_edges(const Context& ctx, const Series& s, int64_t n, const fc::EdgeTest& test,
                          bool tc_fits = true) {
  SCOPED_TRACE(std::string(test.absolute ? "|r| >= " : "r >= ") + std::to_string(test.threshold));
  const EdgeRun exact = edges_on(ctx, s, test, false);
  EdgeRun tc = edges_on(ctx, s, test, true);
  EXPECT_FALSE(exact.tc);
  EXPECT_EQ(tc.tc, tensor_cores_here() && n > 1 && tc_fits);
  EXPECT_EQ(tc.e.row_count, exact.e.row_count);
  EXPECT_TRUE(std::equal(tc.e.columns.begin(), tc.e.columns.end(), exact.e.columns.begin(), exact.e.columns.end()))
      << tc.e.columns.size() << " edges against " << exact.e.columns.size();
  EXPECT_TRUE(same_bits(tc.e, exact.e));
  return tc;
}

const fc::EdgeTest kRules[] = {fc::EdgeTest{true, 0.3f}, fc::EdgeTest{false, 0.3f}, fc::EdgeTest{false, -0.2f},
                               fc::EdgeTest{true, 0.0f}, fc::EdgeTest{true, 1.0f}, fc::EdgeTest{true, 0.9f}};

TEST(CudaTcEdges, SameEdgesAsFp32OnStructuredDataAtOddSizes) {
  REQUIRE_CUDA();
  for (const auto& size : kTcOddSizes) {
    SCOPED_TRACE("n " + std::to_string(size[0]) + " t " + std::to_string(size[1]));
    Dataset d = structured_data(size[0], size[1], 500 + size[0]);
    if (d.n >= 7) add_constants_and_a_duplicate(d);
    Context ctx(FC_BACKEND_CUDA);
    const Series s = make_series(ctx, d);
    for (const fc::EdgeTest& test : kRules) expect_same_edges(ctx, s, d.n, test);
  }
}

TEST(CudaTcEdges, SameEdgesAsFp32WithPairsWithin1e6OfTheThreshold) {
  REQUIRE_CUDA();
  for (const NearThresholdCase& c : kNearThresholdCases) {
    SCOPED_TRACE("n " + std::to_string(c.n) + " t " + std::to_string(c.t));
    const Dataset d = near_threshold_data(c.n, c.t, c.threshold, c.wide, 91 + c.n);
    Context ctx(FC_BACKEND_CUDA);
    const Series s = make_series(ctx, d);
    const float t = static_cast<float>(c.threshold);
    for (const fc::EdgeTest& test : {fc::EdgeTest{true, t}, fc::EdgeTest{false, t}, fc::EdgeTest{false, -t}}) {
      const EdgeRun run = expect_same_edges(ctx, s, d.n, test);
      EXPECT_GT(run.e.columns.size(), 0u);
      // Every edge is recomputed in FP32, and the neighbours within ~1e-6 of +-t besides.
      if (tensor_cores_here()) {
        EXPECT_GE(run.recomputed, static_cast<long long>(run.e.columns.size()));
      }
    }
  }
}

TEST(CudaTcEdges, SameEdgesAsFp32InManyBands) {
  REQUIRE_CUDA();
  // 1,031 series: a band of 128 rows needs 128 x 1,030 tile values; 140,000 gives 9 bands of one
  // tile row each, and a 3 x 128-row tile 3 bands. |r| >= 0.05 is dense: after its first band
  // the rest take the FP32 tiles (threshold_edges' kTcDenseFraction), within the same call.
  const Dataset d = near_threshold_data(1031, 165, 0.4, true, 5);
  for (const char* tile : {"140000", "400000"}) {
    SCOPED_TRACE(std::string("tile values ") + tile);
    const ScopedEnv values("FASTCONN_CUDA_MAX_TILE_VALUES", tile);
    Context ctx(FC_BACKEND_CUDA);
    const Series s = make_series(ctx, d);
    for (const fc::EdgeTest& test : {fc::EdgeTest{true, 0.4f}, fc::EdgeTest{false, 0.4f}, fc::EdgeTest{true, 0.05f}})
      expect_same_edges(ctx, s, d.n, test);
  }
}

TEST(CudaTcEdges, SameEdgesAsFp32UnderAMemoryLimit) {
  REQUIRE_CUDA();
  // 48 MiB: tiles of 1.4 M values (36 bytes a value with the arena's share), one band of 1,031
  // rows; plan_edges keeps the tensor-core operands (about 1.2 MB) from the arena, which still
  // holds the band: tensor cores under the limit. 4 MiB: a tile of 128 rows (131,840 values) does
  // not fit, so the FP32 tiles run. The same edges either way.
  const Dataset d = near_threshold_data(1031, 165, 0.4, true, 6);
  for (int64_t mib : {48, 4}) {
    SCOPED_TRACE("limit " + std::to_string(mib) + " MiB");
    Context ctx(FC_BACKEND_CUDA);
    ctx.memory_limit(mib << 20);
    const Series s = make_series(ctx, d);
    for (const fc::EdgeTest& test : {fc::EdgeTest{true, 0.4f}, fc::EdgeTest{false, -0.4f}})
      expect_same_edges(ctx, s, d.n, test, mib == 48);
  }
}

// The public graph calls: the CSR and weights of fc_pcc_graph on both paths, for the threshold
// and density rules and every weighting.
TEST(CudaTcEdges, SameGraphsThroughThePublicCalls) {
  REQUIRE_CUDA();
  Dataset d = structured_data(1500, 165, 41);
  add_constants_and_a_duplicate(d);
  Context ctx(FC_BACKEND_CUDA);
  const Series s = make_series(ctx, d);
  struct Call {
    fc_edge_rule rule;
    double param;
  };
  for (const Call c : {Call{FC_EDGE_ABS_THRESHOLD, 0.3}, Call{FC_EDGE_THRESHOLD, 0.25}, Call{FC_EDGE_DENSITY, 0.05}})
    for (int weights : {FC_GRAPH_BINARY, FC_GRAPH_WEIGHTED, FC_GRAPH_WEIGHTED_ABS}) {
      SCOPED_TRACE("rule " + std::to_string(c.rule) + " weights " + std::to_string(weights));
      GraphCsr graphs[2];
      for (int tc = 0; tc < 2; ++tc) {
        const ScopedEnv path("FASTCONN_TC_EDGES", tc ? "1" : "0");
        graphs[tc] = pcc_graph_csr(ctx, s, c.rule, c.param, weights);
      }
      expect_same_graph(graphs[0], graphs[1]);
    }
}

// The windows' graphs of fc_dfc_next_graph (each window a series of its own, built ahead on the
// GPU while the last one is copied out): the same CSR and weights on both paths.
TEST(CudaTcEdges, SameWindowGraphsAsFp32) {
  REQUIRE_CUDA();
  const Dataset d = structured_data(700, 90, 23);
  Context ctx(FC_BACKEND_CUDA);
  const Series s = make_series(ctx, d);
  std::vector<std::vector<int64_t>> columns[2];
  std::vector<std::vector<float>> values[2];
  for (int tc = 0; tc < 2; ++tc) {
    const ScopedEnv path("FASTCONN_TC_EDGES", tc ? "1" : "0");
    fc_dfc* it = nullptr;
    ASSERT_EQ(fc_dfc_begin(ctx.get(), s.get(), 40, 7, 0, 0.0, &it), FC_OK);
    for (;;) {
      fc_graph* g = nullptr;
      int64_t window = -1;
      const fc_status st = fc_dfc_next_graph(it, FC_EDGE_ABS_THRESHOLD, 0.5, FC_GRAPH_WEIGHTED, &g, &window);
      if (st == FC_DONE) break;
      ASSERT_EQ(st, FC_OK);
      int64_t nodes = 0, edges = 0;
      ASSERT_EQ(fc_graph_info(g, &nodes, &edges), FC_OK);
      std::vector<int64_t> offsets(static_cast<size_t>(nodes + 1)), cols(static_cast<size_t>(2 * edges));
      std::vector<float> w(static_cast<size_t>(2 * edges));
      EXPECT_EQ(fc_graph_csr(g, offsets.data(), cols.data(), w.data(), 2 * edges), FC_OK);
      fc_graph_destroy(g);
      columns[tc].push_back(cols);
      values[tc].push_back(w);
    }
    fc_dfc_destroy(it);
  }
  ASSERT_EQ(columns[0].size(), 8u);  // (90 - 40) / 7 + 1 windows
  EXPECT_EQ(columns[1], columns[0]);
  ASSERT_EQ(values[1].size(), values[0].size());
  for (size_t k = 0; k < values[0].size(); ++k) {
    EXPECT_GT(columns[0][k].size(), 0u);
    ASSERT_EQ(values[1][k].size(), values[0][k].size());
    EXPECT_EQ(std::memcmp(values[1][k].data(), values[0][k].data(), values[0][k].size() * sizeof(float)), 0)
        << "window " << k;
  }
}

// The comparison can fail: with delta forced to 0 the pairs whose FP16 r~ falls just below t but
// whose r passes are never recomputed, and edges are lost.
TEST(CudaTcEdges, ZeroBandLosesEdgesOnNearThresholdData) {
  REQUIRE_CUDA();
  if (!tensor_cores_here()) GTEST_SKIP() << "no tensor cores (sm_80+) here";
  const Dataset d = near_threshold_data(601, 165, 0.3, true, 11);
  const fc::EdgeTest test{true, 0.3f};
  Context ctx(FC_BACKEND_CUDA);
  const Series s = make_series(ctx, d);
  const EdgeRun exact = edges_on(ctx, s, test, false);
  const ScopedEnv zero("FASTCONN_TC_DELTA", "0");
  const EdgeRun tc = edges_on(ctx, s, test, true);
  ASSERT_TRUE(tc.tc);
  EXPECT_LT(tc.e.columns.size(), exact.e.columns.size());
}

}  // namespace
