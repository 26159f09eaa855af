// fc_dfc_next_graph on a split context (dfc/window_graphs.hpp: a window per part, the later
// graphs of a batch kept for the next calls) against a plain CPU context, byte for byte: every
// window's CSR (offsets, columns, weight bits) on 2 and 3 parts, odd N, window counts that are no
// multiple of the parts, both threshold rules and the density rule, FP32 and FP64, constant
// series, a memory limit; a request changed between calls, triangles between graphs, a cancel
// mid-batch and a part's failure, after which the iterator goes on where it was.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "api_calls.hpp"
#include "graph_reference.hpp"
#include "reference.hpp"
#include "split_context.hpp"

namespace {

using namespace fctest;

using Iterator = std::unique_ptr<fc_dfc, void (*)(fc_dfc*)>;
using Graph = std::unique_ptr<fc_graph, void (*)(fc_graph*)>;

Iterator begin_windows(const Context& ctx, const Series& s, int64_t length, int64_t step) {
  fc_dfc* it = nullptr;
  check(fc_dfc_begin(ctx.get(), s.get(), length, step, FC_TAPER_RECTANGULAR, 0.0, &it), "fc_dfc_begin");
  return Iterator(it, fc_dfc_destroy);
}

// The next graph of `it`, checking that it is window `expect`.
Csr next_graph(fc_dfc* it, fc_edge_rule rule, double param, int weights, int64_t expect) {
  fc_graph* g = nullptr;
  int64_t at = -2;
  check(fc_dfc_next_graph(it, rule, param, weights, &g, &at), "fc_dfc_next_graph");
  const Graph owner(g, fc_graph_destroy);
  EXPECT_EQ(at, expect);
  return copy_out(g);
}

// Every window's graph, in order, through fc_dfc_next_graph.
std::vector<Csr> window_graphs(const Context& ctx, const Series& s, int64_t length, int64_t step, fc_edge_rule rule,
                               double param, int weights) {
  const Iterator it = begin_windows(ctx, s, length, step);
  int64_t windows = 0;
  check(fc_dfc_info(it.get(), &windows, nullptr, nullptr), "fc_dfc_info");
  std::vector<Csr> out;
  for (int64_t k = 0; k < windows; ++k) out.push_back(next_graph(it.get(), rule, param, weights, k));
  fc_graph* none = nullptr;
  int64_t at = 0;
  EXPECT_EQ(fc_dfc_next_graph(it.get(), rule, param, weights, &none, &at), FC_DONE);
  EXPECT_EQ(none, nullptr);
  EXPECT_EQ(at, -1);
  return out;
}

// Byte for byte: the weights compared as bits (a NaN-free float equal by value could still
// differ in sign of zero).
::testing::AssertionResult same_bytes(const Csr& a, const Csr& b) {
  if (a.n != b.n || a.n_edges != b.n_edges)
    return ::testing::AssertionFailure() << "n " << a.n << " / " << b.n << ", edges " << a.n_edges << " / " << b.n_edges;
  if (a.offsets != b.offsets) return ::testing::AssertionFailure() << "offsets differ";
  if (a.columns != b.columns) return ::testing::AssertionFailure() << "columns differ";
  if (a.weights.size() != b.weights.size() ||
      (!a.weights.empty() && std::memcmp(a.weights.data(), b.weights.data(), a.weights.size() * sizeof(float)) != 0))
    return ::testing::AssertionFailure() << "weight bits differ";
  return ::testing::AssertionSuccess();
}

void expect_same_windows(const std::vector<Csr>& want, const std::vector<Csr>& got, const std::string& what) {
  ASSERT_EQ(want.size(), got.size()) << what;
  for (size_t k = 0; k < want.size(); ++k) EXPECT_TRUE(same_bytes(want[k], got[k])) << what << ", window " << k;
}

// Window k's graph as fc_pcc_graph gives it on a plain context (the reference of the calls that
// change the request between windows).
Csr own_graph(const Context& ctx, const Series& s, int64_t begin, int64_t length, fc_edge_rule rule, double param,
              int weights) {
  fc_series* raw = nullptr;
  check(fc_series_window(ctx.get(), s.get(), begin, length, FC_TAPER_RECTANGULAR, 0.0, &raw), "fc_series_window");
  const Series w(raw);
  return pcc_graph(ctx, w, rule, param, weights);
}

struct Case {
  int64_t n, t, length, step;
  fc_precision precision;
  int64_t memory_limit;
  std::vector<int64_t> constant;  // series made constant
};

struct Request {
  fc_edge_rule rule;
  double param;
  int weights;
};

const std::vector<Request> kRequests = {{FC_EDGE_THRESHOLD, 0.3, FC_GRAPH_WEIGHTED},
                                        {FC_EDGE_ABS_THRESHOLD, 0.3, FC_GRAPH_WEIGHTED_ABS},
                                        {FC_EDGE_DENSITY, 0.05, FC_GRAPH_BINARY}};

// Windows: (37 - 12) / 4 + 1 = 7, (23 - 10) / 3 + 1 = 5, (9 - 4) / 1 + 1 = 6 (a multiple of both
// part counts: the last batch full).
const std::vector<Case> kCases = {
    {1, 37, 12, 4, FC_PRECISION_FP32, 0, {}},           {2, 37, 12, 4, FC_PRECISION_FP64, 0, {1}},
    {7, 37, 12, 4, FC_PRECISION_FP32, 0, {0, 5}},       {7, 9, 4, 1, FC_PRECISION_FP64, 0, {}},
    {101, 37, 12, 4, FC_PRECISION_FP32, 0, {3}},        {101, 37, 12, 4, FC_PRECISION_FP64, 1 << 20, {100}},
    {1009, 23, 10, 3, FC_PRECISION_FP32, 0, {17}},      {1009, 23, 10, 3, FC_PRECISION_FP64, 0, {}},
    {1009, 23, 10, 3, FC_PRECISION_FP32, 600000, {}},
};

class SplitWindows : public ::testing::TestWithParam<Case> {};

Series case_series(const Context& ctx, const Case& c) {
  check(fc_context_set_precision(ctx.get(), c.precision), "fc_context_set_precision");
  check(fc_context_set_memory_limit(ctx.get(), c.memory_limit), "fc_context_set_memory_limit");
  Dataset d = structured_data(c.n, c.t, 3000 + static_cast<uint64_t>(c.n * 5 + c.t));
  for (int64_t s : c.constant) make_constant(d, s, -41.25);
  return make_series(ctx, d);
}

TEST_P(SplitWindows, EveryWindowsGraphHasThePlainContextsBytes) {
  const Case& c = GetParam();
  const Context single = cpu_context(0);
  const Series ss = case_series(single, c);
  for (const Request& r : kRequests) {
    const std::vector<Csr> want = window_graphs(single, ss, c.length, c.step, r.rule, r.param, r.weights);
    for (int parts : {2, 3}) {
      const Context split = cpu_context(parts);
      const Series s = case_series(split, c);
      expect_same_windows(want, window_graphs(split, s, c.length, c.step, r.rule, r.param, r.weights),
                          "N=" + std::to_string(c.n) + " rule " + std::to_string(r.rule) + ", " + std::to_string(parts) +
                              " parts");
    }
  }
}

INSTANTIATE_TEST_SUITE_P(SplitWindows, SplitWindows, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           const Case& c = info.param;
                           return "n" + std::to_string(c.n) + "_t" + std::to_string(c.t) + "_w" +
                                  std::to_string(c.length) + "_s" + std::to_string(c.step) +
                                  (c.precision == FC_PRECISION_FP64 ? "_fp64" : "_fp32") + "_limit" +
                                  std::to_string(c.memory_limit) + "_constant" + std::to_string(c.constant.size());
                         });

const Dataset& shared_data() {
  static const Dataset d = structured_data(101, 37, 77);
  return d;
}

// The comparison can fail: the windows' graphs differ from one another, so a graph handed out for
// the wrong window (a batch off by one, a kept graph of another request) would be caught.
TEST(SplitWindowsCheck, NeighbouringWindowsDiffer) {
  const Context single = cpu_context(0);
  const Series s = make_series(single, shared_data());
  const std::vector<Csr> g = window_graphs(single, s, 12, 4, FC_EDGE_THRESHOLD, 0.3, FC_GRAPH_WEIGHTED);
  ASSERT_EQ(g.size(), 7u);
  for (size_t k = 1; k < g.size(); ++k) {
    EXPECT_FALSE(same_bytes(g[k - 1], g[k])) << "windows " << k - 1 << " and " << k;
    EXPECT_GT(g[k].n_edges, 0) << k;
  }
}

// The request changes between calls (rule, weights, precision): each call's graph is its own
// window's under its own request, the graphs kept for the old one dropped.
TEST(SplitWindowsCheck, ARequestChangedMidBatchDropsTheKeptGraphs) {
  Context single = cpu_context(0);
  const Series ss = make_series(single, shared_data());
  struct Step {
    Request r;
    fc_precision precision;
  };
  const std::vector<Step> steps = {{{FC_EDGE_THRESHOLD, 0.3, FC_GRAPH_WEIGHTED}, FC_PRECISION_FP32},
                                   {{FC_EDGE_ABS_THRESHOLD, 0.3, FC_GRAPH_WEIGHTED}, FC_PRECISION_FP32},
                                   {{FC_EDGE_ABS_THRESHOLD, 0.3, FC_GRAPH_WEIGHTED}, FC_PRECISION_FP32},
                                   {{FC_EDGE_ABS_THRESHOLD, 0.3, FC_GRAPH_WEIGHTED_ABS}, FC_PRECISION_FP32},
                                   {{FC_EDGE_ABS_THRESHOLD, 0.3, FC_GRAPH_WEIGHTED_ABS}, FC_PRECISION_FP64},
                                   {{FC_EDGE_ABS_THRESHOLD, 0.35, FC_GRAPH_WEIGHTED_ABS}, FC_PRECISION_FP64},
                                   {{FC_EDGE_DENSITY, 0.05, FC_GRAPH_WEIGHTED_ABS}, FC_PRECISION_FP64}};
  for (int parts : {2, 3}) {
    Context split = cpu_context(parts);
    const Series s = make_series(split, shared_data());
    const Iterator it = begin_windows(split, s, 12, 4);
    for (int64_t k = 0; k < 7; ++k) {
      const Step& st = steps[static_cast<size_t>(k)];
      split.precision(st.precision);
      single.precision(st.precision);
      const Csr got = next_graph(it.get(), st.r.rule, st.r.param, st.r.weights, k);
      EXPECT_TRUE(same_bytes(own_graph(single, ss, 4 * k, 12, st.r.rule, st.r.param, st.r.weights), got))
          << parts << " parts, window " << k;
    }
  }
}

// Triangles and graphs share the cursor: a triangle after a batch moves past a kept graph, and
// the next graph is the window after the triangle's.
TEST(SplitWindowsCheck, TrianglesBetweenGraphs) {
  const Context single = cpu_context(0);
  const Series ss = make_series(single, shared_data());
  const int64_t n = 101;
  for (int parts : {2, 3}) {
    const Context split = cpu_context(parts);
    const Series s = make_series(split, shared_data());
    const Iterator it = begin_windows(split, s, 12, 4);
    const Request r = kRequests[0];
    EXPECT_TRUE(same_bytes(own_graph(single, ss, 0, 12, r.rule, r.param, r.weights),
                           next_graph(it.get(), r.rule, r.param, r.weights, 0)));
    // Window 1's triangle in two blocks (its graph was built with window 0's).
    std::vector<float> tri;
    for (int block = 0; block < 2; ++block) {
      std::vector<float> buf(static_cast<size_t>(triu_size(n)), kSentinel);
      fc_dfc_block_info info;
      check(fc_dfc_next_triu(it.get(), buf.data(), triu_size(n) / 2 + n, &info), "fc_dfc_next_triu");
      EXPECT_EQ(info.window, 1);
      if (block == 0) {  // mid-window: no graph
        fc_graph* g = nullptr;
        EXPECT_EQ(fc_dfc_next_graph(it.get(), r.rule, r.param, r.weights, &g, nullptr), FC_ERR_BAD_STATE);
      }
      tri.insert(tri.end(), buf.begin(), buf.begin() + info.count);
    }
    fc_series* raw = nullptr;
    check(fc_series_window(single.get(), ss.get(), 4, 12, FC_TAPER_RECTANGULAR, 0.0, &raw), "fc_series_window");
    const Series w1(raw);
    const std::vector<float> own = pcc_triu(single, w1, FC_TRIU_ROW);
    ASSERT_EQ(own.size(), tri.size());
    EXPECT_EQ(0, std::memcmp(own.data(), tri.data(), own.size() * sizeof(float))) << parts << " parts";
    for (int64_t k = 2; k < 7; ++k)
      EXPECT_TRUE(same_bytes(own_graph(single, ss, 4 * k, 12, r.rule, r.param, r.weights),
                             next_graph(it.get(), r.rule, r.param, r.weights, k)))
          << parts << " parts, window " << k;
  }
}

// Progress over all windows: monotone, and the last call ends at the job's total.
TEST(SplitWindowsCheck, ProgressReachesTheTotal) {
  for (int parts : {0, 2, 3}) {
    Context ctx = cpu_context(parts);
    const Series s = make_series(ctx, structured_data(1009, 23, 5));
    ProgressLog log;
    ctx.progress(&log_progress, &log);
    window_graphs(ctx, s, 10, 3, FC_EDGE_ABS_THRESHOLD, 0.3, FC_GRAPH_WEIGHTED);
    expect_monotone_to_total(log, std::to_string(parts) + " parts");
    if (!log.calls.empty()) {
      EXPECT_EQ(log.calls.back().second, 5 * fc_triu_size(1009));
    }
  }
}

// A cancel from the callback mid-batch, and a part's failure (a memory limit too small for any
// part), leave the cursor where it was: the iterator then gives every window's graph.
TEST(SplitWindowsCheck, CancelAndFailureLeaveTheIteratorUsable) {
  const Dataset d = structured_data(2003, 40, 9);
  const Context single = cpu_context(0);
  const Series ss = make_series(single, d);
  const Request r = kRequests[1];
  const std::vector<Csr> want = window_graphs(single, ss, 20, 4, r.rule, r.param, r.weights);
  ASSERT_EQ(want.size(), 6u);
  for (int parts : {2, 3}) {
    Context split = cpu_context(parts);
    const Series s = make_series(split, d);
    const Iterator it = begin_windows(split, s, 20, 4);
    fc_graph* g = nullptr;
    int64_t at = -2;
    // Window 0's graph, then a cancel in the batch of window 1.
    EXPECT_TRUE(same_bytes(want[0], next_graph(it.get(), r.rule, r.param, r.weights, 0)));
    for (int64_t k = 1; k < parts; ++k) EXPECT_TRUE(same_bytes(want[k], next_graph(it.get(), r.rule, r.param, r.weights, k)));
    ProgressLog log;
    log.cancel_after = parts * fc_triu_size(2003) + 1;  // within window `parts`' slice
    split.memory_limit(1 << 20);  // many tiles: many reports
    split.progress(&log_progress, &log);
    EXPECT_EQ(fc_dfc_next_graph(it.get(), r.rule, r.param, r.weights, &g, &at), FC_ERR_ABORTED);
    EXPECT_NE(std::string(fc_last_error()).find("cancelled by the progress callback"), std::string::npos) << fc_last_error();
    EXPECT_EQ(g, nullptr);
    ASSERT_FALSE(log.calls.empty());
    const int64_t pairs = fc_triu_size(2003);  // cancelled within window `parts`' slice, not at its end
    EXPECT_GT(log.calls.back().first, parts * pairs);
    EXPECT_LT(log.calls.back().first, (parts + 1) * pairs) << log.calls.size() << " reports";
    split.progress(nullptr, nullptr);
    split.memory_limit(1);  // too small for any part
    EXPECT_EQ(fc_dfc_next_graph(it.get(), r.rule, r.param, r.weights, &g, &at), FC_ERR_OUT_OF_MEMORY);
    const std::string message = fc_last_error();
    EXPECT_EQ(message.rfind("fc_dfc_next_graph: part ", 0), 0u) << message;
    EXPECT_NE(message.find(" (CPU ("), std::string::npos) << message;
    EXPECT_EQ(g, nullptr);
    split.memory_limit(0);
    for (int64_t k = parts; k < 6; ++k)
      EXPECT_TRUE(same_bytes(want[static_cast<size_t>(k)], next_graph(it.get(), r.rule, r.param, r.weights, k)))
          << parts << " parts, window " << k;
  }
}

TEST(SplitWindowsCheck, ABadRuleIsRefusedBeforeAnyPartRuns) {
  const Context split = cpu_context(2);
  const Series s = make_series(split, shared_data());
  const Iterator it = begin_windows(split, s, 12, 4);
  fc_graph* g = nullptr;
  EXPECT_EQ(fc_dfc_next_graph(it.get(), FC_EDGE_DENSITY, 1.5, FC_GRAPH_BINARY, &g, nullptr), FC_ERR_INVALID_ARG);
  const std::string message = fc_last_error();
  EXPECT_NE(message.find("density param 1.5"), std::string::npos) << message;
  EXPECT_EQ(message.find("part "), std::string::npos) << message;
  EXPECT_EQ(fc_dfc_next_graph(it.get(), FC_EDGE_THRESHOLD, 0.3, 7, &g, nullptr), FC_ERR_INVALID_ARG);
  EXPECT_NE(std::string(fc_last_error()).find("weights 7"), std::string::npos) << fc_last_error();
  EXPECT_EQ(g, nullptr);
  next_graph(it.get(), FC_EDGE_THRESHOLD, 0.3, FC_GRAPH_BINARY, 0);  // the cursor did not move
}

}  // namespace
