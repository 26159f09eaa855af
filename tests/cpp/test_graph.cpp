// Networks without the N x N matrix (issue 4): fc_pcc_graph under every rule, on every backend
// (CPU always; CUDA skipped without a device, labelled `gpu`), against
//   - a float64 dense reference computed here: identical edge sets except pairs whose float64
//     r (or |r|) lies within 1e-6 of the threshold, where a float32 product may fall on either
//     side (the contract allows |r32 - r64| <= 1e-5; in practice it is below 1e-6 at these T);
//   - the backend's own fc_pcc_triu, bit for bit: every decision is made on that float r, so the
//     ranking rules (density, top-k) must select exactly what the triangle implies, ties included.
#include <cmath>
#include <gtest/gtest.h>

#include <cstdlib>

#include "backend_test.hpp"
#include "../gpu/scoped_env.hpp"
#include "graph_reference.hpp"

namespace {

using namespace fctest;

constexpr double kMargin = 1e-6;

const Mode kModes[] = {{FC_PRECISION_FP32, FC_CONSTANT_NAN}, {FC_PRECISION_FP64, FC_CONSTANT_NAN},
                       {FC_PRECISION_FP32, FC_CONSTANT_ZERO}, {FC_PRECISION_FP64, FC_CONSTANT_ZERO}};

// N series (constants at the ends and the middle once N >= 13) and their float64 reference.
struct Case {
  int64_t n, t;
  Dataset d;
  Reference ref;
  std::vector<double> dense;
  Case(int64_t n_, int64_t t_) : n(n_), t(t_) {
    d = structured_data(n, t, 0x6A0Fu + uint64_t(n) * 31u + uint64_t(t));
    if (n >= 13) {
      make_constant(d, 0, 0.5);
      make_constant(d, n / 2, 0.0);
      make_constant(d, n - 1, 3.0);
    }
    ref = normalize(d);
    dense = reference_dense(ref);
  }
  std::string name() const { return "N = " + std::to_string(n) + ", T = " + std::to_string(t); }
};

// N = 1, 2, 3, primes and odd sizes past the 256-row and 512-column tiles.
const std::pair<int64_t, int64_t> kShapes[] = {{1, 40}, {2, 5}, {3, 3}, {13, 165}, {257, 300}, {521, 165}, {1031, 100}};

class Graph : public BackendTest {};

TEST_P(Graph, ThresholdRulesMatchFloat64Reference) {
  for (auto [n, t] : kShapes) {
    const Case c(n, t);
    for (const Mode& mode : kModes) {
      SCOPED_TRACE(c.name() + ", " + mode_name(mode));
      const Context ctx = tested(mode);
      const Series s = make_series(ctx, c.d);
      const std::vector<float> tri = pcc_triu(ctx, s, FC_TRIU_ROW);
      struct R { fc_edge_rule rule; double param; } rules[] = {
          {FC_EDGE_ABS_THRESHOLD, 0.5}, {FC_EDGE_ABS_THRESHOLD, 0.0}, {FC_EDGE_THRESHOLD, 0.3}, {FC_EDGE_THRESHOLD, -0.2}};
      for (const R& r : rules) {
        SCOPED_TRACE("rule " + std::to_string(r.rule) + ", param " + std::to_string(r.param));
        const Csr g = pcc_graph(ctx, s, r.rule, r.param, FC_GRAPH_WEIGHTED);
        EXPECT_EQ(g.n, n);
        EXPECT_TRUE(well_formed(g));
        EXPECT_TRUE(same_edges(g, reference_edges(c.dense, n, r.rule == FC_EDGE_ABS_THRESHOLD, r.param, kMargin)));
        // Weights are fc_pcc_triu's values, bit for bit, and pass the rule on them exactly.
        for (const auto& [p, w] : g.upper()) {
          const float v = tri[static_cast<size_t>(p.first * (2 * n - p.first - 1) / 2 + (p.second - p.first - 1))];
          ASSERT_EQ(std::memcmp(&v, &w, 4), 0) << "(" << p.first << ", " << p.second << "): " << w << " vs triangle " << v;
          ASSERT_TRUE(r.rule == FC_EDGE_ABS_THRESHOLD ? std::fabs(double(w)) >= r.param : double(w) >= r.param);
        }
        if (r.rule == FC_EDGE_ABS_THRESHOLD && r.param == 0.0) {  // every pair of non-constant series, no more
          EXPECT_EQ(g.n_edges, triu_size(n - c.ref.n_constant));
        }
      }
    }
  }
}

TEST_P(Graph, WeightsFollowTheFlag) {
  const Case c(257, 165);
  const Context ctx = tested(kModes[0]);
  const Series s = make_series(ctx, c.d);
  const Csr w = pcc_graph(ctx, s, FC_EDGE_ABS_THRESHOLD, 0.4, FC_GRAPH_WEIGHTED);
  const Csr a = pcc_graph(ctx, s, FC_EDGE_ABS_THRESHOLD, 0.4, FC_GRAPH_WEIGHTED_ABS);
  const Csr b = pcc_graph(ctx, s, FC_EDGE_ABS_THRESHOLD, 0.4, FC_GRAPH_BINARY);
  ASSERT_EQ(w.columns, a.columns);
  ASSERT_EQ(w.columns, b.columns);
  bool negative = false;
  for (size_t x = 0; x < w.weights.size(); ++x) {
    EXPECT_EQ(a.weights[x], std::fabs(w.weights[x]));
    EXPECT_EQ(b.weights[x], 1.0f);
    negative = negative || w.weights[x] < 0;
  }
  EXPECT_TRUE(negative) << "the data should give negative edges at |r| >= 0.4";
}

// The exact count ceil(d * N(N-1)/2) and the tie rule, including a cut through a group of exact
// ties: duplicated series correlate with each other at exactly 1 (after clamping) and with any
// third series identically.
TEST_P(Graph, DensityKeepsExactCountWithTiesByPairIndex) {
  for (auto [n, t] : {std::pair<int64_t, int64_t>{2, 5}, {3, 3}, {13, 165}, {300, 120}}) {
    Case c(n, t);
    if (n >= 13)
      for (int64_t s = 5; s < n; s += 7) std::copy(c.d.x.begin() + 3 * t, c.d.x.begin() + 4 * t, c.d.x.begin() + s * t);
    for (const Mode& mode : {kModes[0], kModes[1], kModes[2]}) {
      SCOPED_TRACE(c.name() + ", " + mode_name(mode));
      const Context ctx = tested(mode);
      const Series s = make_series(ctx, c.d);
      const std::vector<float> tri = pcc_triu(ctx, s, FC_TRIU_ROW);
      const int64_t pairs = triu_size(n);
      const int64_t eligible = triu_size(n - s.n_constant());
      std::vector<uint8_t> constant(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) {
        int k = 0;
        check(fc_series_is_constant(s.get(), i, &k), "fc_series_is_constant");
        constant[i] = static_cast<uint8_t>(k);
      }
      // Densities: none, all, plain fractions, and cuts inside a run of equal |r| values.
      std::vector<double> densities = {0.0, 1.0, 0.01, 0.1, 0.37, 0.999};
      std::vector<float> sorted(tri.begin(), tri.end());
      for (float& v : sorted) v = std::isnan(v) ? -1.0f : std::fabs(v);
      std::sort(sorted.rbegin(), sorted.rend());
      int tie_cuts = 0;
      for (int64_t x = 1; x + 1 < eligible && tie_cuts < 3; ++x)
        if (sorted[x] == sorted[x - 1] && sorted[x] == sorted[x + 1]) {  // keep x of a tie group >= 3
          densities.push_back((double(x) - 0.5) / double(pairs));  // ceil(d * pairs) = x
          ++tie_cuts;
          x += 50;
        }
      if (n >= 13) {
        EXPECT_GT(tie_cuts, 0) << "the duplicated series should give exact ties";
      }
      for (double d : densities) {
        SCOPED_TRACE("density " + std::to_string(d));
        const int64_t count = static_cast<int64_t>(std::ceil(d * double(pairs)));  // the documented product in double
        const Csr g = pcc_graph(ctx, s, FC_EDGE_DENSITY, d, FC_GRAPH_WEIGHTED_ABS);
        EXPECT_TRUE(well_formed(g));
        EXPECT_EQ(g.n_edges, std::min(count, eligible)) << "ceil(d * N(N-1)/2), at most the eligible pairs";
        EXPECT_EQ(edge_set(g), density_from_triangle(tri, n, constant, count));
      }
    }
  }
}

// The density rule's one-pass path (a threshold guessed from a sample of pairs, graph.cpp): the
// same graph as the two exact passes, bit for bit, at sizes where the backends sample (N >= about
// 1,030), with exact ties at the cut; and with a forced guess too high (too few pairs pass it: the
// exact passes run after it) or too low (more candidates, the same choice).
TEST_P(Graph, DensityGuessGivesTheExactPassesGraph) {
  Case c(1500, 48);
  for (int64_t s = 5; s < c.n; s += 97) std::copy(c.d.x.begin() + 3 * c.t, c.d.x.begin() + 4 * c.t, c.d.x.begin() + s * c.t);
  for (const Mode& mode : {kModes[0], kModes[1]}) {
    SCOPED_TRACE(mode_name(mode));
    const Context ctx = tested(mode);
    const Series s = make_series(ctx, c.d);
    const std::vector<float> tri = pcc_triu(ctx, s, FC_TRIU_ROW);
    const int64_t pairs = triu_size(c.n);
    std::vector<float> sorted;
    for (int64_t i = 0, k = 0; i < c.n; ++i)
      for (int64_t j = i + 1; j < c.n; ++j, ++k)
        if (!c.ref.constant[i] && !c.ref.constant[j]) sorted.push_back(std::fabs(tri[static_cast<size_t>(k)]));
    std::sort(sorted.rbegin(), sorted.rend());
    std::vector<double> densities = {0.0005, 0.01, 0.2};
    for (int64_t x = 1; x + 1 < static_cast<int64_t>(sorted.size()); ++x)
      if (sorted[x] == sorted[x - 1] && sorted[x] == sorted[x + 1]) {  // a cut inside a run of exact ties
        densities.push_back((double(x) - 0.5) / double(pairs));
        break;
      }
    ASSERT_EQ(densities.size(), 4u) << "the duplicated series should give exact ties";
    for (double d : densities) {
      SCOPED_TRACE("density " + std::to_string(d));
      const int64_t count = static_cast<int64_t>(std::ceil(d * double(pairs)));
      Csr exact;
      {
        fctest::ScopedEnv off("FASTCONN_DENSITY_GUESS", "0");
        exact = pcc_graph(ctx, s, FC_EDGE_DENSITY, d, FC_GRAPH_WEIGHTED);
      }
      EXPECT_EQ(exact.n_edges, count);
      EXPECT_EQ(edge_set(exact), density_from_triangle(tri, c.n, c.ref.constant, count));
      // The path each call took, from the FASTCONN_DENSITY_STATS line: so the test fails if the
      // backend stops guessing or a bad guess is not caught.
      fctest::ScopedEnv stats("FASTCONN_DENSITY_STATS", "1");
      for (const char* guess : {static_cast<const char*>(nullptr), "0.999", "-1", "0.05"}) {
        SCOPED_TRACE(guess == nullptr ? "the backend's guess" : std::string("guess ") + guess);
        fctest::ScopedEnv set("FASTCONN_DENSITY_GUESS", guess);
        testing::internal::CaptureStderr();
        const Csr g = pcc_graph(ctx, s, FC_EDGE_DENSITY, d, FC_GRAPH_WEIGHTED);
        const std::string said = testing::internal::GetCapturedStderr();
        const bool too_high = guess != nullptr && std::strtof(guess, nullptr) > sorted[static_cast<size_t>(count - 1)];
        EXPECT_NE(said.find(too_high ? "exact passes after the guess" : "one pass"), std::string::npos) << said;
        EXPECT_EQ(g.offsets, exact.offsets);
        EXPECT_EQ(g.columns, exact.columns);
        ASSERT_EQ(g.weights.size(), exact.weights.size());
        EXPECT_EQ(std::memcmp(g.weights.data(), exact.weights.data(), 4 * g.weights.size()), 0);
      }
    }
  }
}

TEST_P(Graph, DensityMatchesFloat64ReferenceOutsideTies) {
  const Case c(521, 165);
  const Context ctx = tested(kModes[0]);
  const Series s = make_series(ctx, c.d);
  const Csr g = pcc_graph(ctx, s, FC_EDGE_DENSITY, 0.05, FC_GRAPH_WEIGHTED_ABS);
  // The kept pairs are those above the smallest kept |r|: compare with that threshold.
  float cut = 2.0f;
  for (float w : g.weights) cut = std::min(cut, w);
  EXPECT_TRUE(same_edges(g, reference_edges(c.dense, c.n, true, cut, kMargin)));
}

TEST_P(Graph, TopKIsTheSymmetricUnionOfEachRowsBest) {
  for (auto [n, t] : kShapes) {
    const Case c(n, t);
    for (const Mode& mode : {kModes[0], kModes[1], kModes[2]}) {
      const Context ctx = tested(mode);
      const Series s = make_series(ctx, c.d);
      const std::vector<float> tri = pcc_triu(ctx, s, FC_TRIU_ROW);
      for (int64_t k : {int64_t(1), int64_t(3), int64_t(10), n - 1, n + 5}) {
        if (k < 1) continue;
        SCOPED_TRACE(c.name() + ", " + mode_name(mode) + ", k = " + std::to_string(k));
        const Csr g = pcc_graph(ctx, s, FC_EDGE_TOP_K, double(k), FC_GRAPH_WEIGHTED);
        EXPECT_TRUE(well_formed(g));
        EXPECT_EQ(edge_set(g), top_k_from_triangle(tri, n, c.ref.constant, k));
        for (int64_t i = 0; i < n; ++i) {
          const int64_t deg = g.offsets[i + 1] - g.offsets[i];
          if (c.ref.constant[i]) {
            EXPECT_EQ(deg, 0) << "constant series " << i;
          } else {
            EXPECT_GE(deg, std::min(k, n - 1 - c.ref.n_constant)) << "series " << i;
          }

        }
      }
    }
  }
}

// Against float64: row i's chosen partners are its k best except where the k-th and (k+1)-th
// float64 |r| lie within 2e-6 of each other (then float32 may swap them).
TEST_P(Graph, TopKMatchesFloat64Reference) {
  const Case c(521, 165);
  const int64_t n = c.n, k = 5;
  const Context ctx = tested(kModes[0]);
  const Series s = make_series(ctx, c.d);
  const Csr g = pcc_graph(ctx, s, FC_EDGE_TOP_K, double(k), FC_GRAPH_BINARY);
  const auto got = edge_set(g);
  int checked = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (c.ref.constant[i]) continue;
    std::vector<std::pair<double, int64_t>> row;
    for (int64_t j = 0; j < n; ++j)
      if (j != i && !c.ref.constant[j]) row.push_back({-std::fabs(c.dense[i * n + j]), j});
    std::sort(row.begin(), row.end());
    if (row[k].first - row[k - 1].first <= 2e-6) continue;
    ++checked;
    for (int64_t a = 0; a < k; ++a)
      EXPECT_TRUE(got.count({std::min(i, row[a].second), std::max(i, row[a].second)})) << "row " << i << " rank " << a;
  }
  EXPECT_GT(checked, n / 2);
}

// CUDA under a memory limit: cuBLAS picks kernels by tile shape, so r may move by a few ulp (the
// contract is bit-identity under the same settings). Edges then agree except pairs whose |r| lies
// within rounding of the cut, common edges agree to rounding, and the density count stays exact.
void expect_same_within_rounding(const Csr& x, const Csr& y, fc_edge_rule rule, double param) {
  const auto ux = x.upper(), uy = y.upper();
  if (rule == FC_EDGE_DENSITY) {
    EXPECT_EQ(x.n_edges, y.n_edges);
  }
  if (rule == FC_EDGE_TOP_K) return;  // a near-tie may swap a k-th neighbour; reruns stay exact
  float cut = static_cast<float>(param);
  if (rule == FC_EDGE_DENSITY) {
    cut = 1.0f;
    for (const auto& e : ux) cut = std::min(cut, std::fabs(e.second));
  }
  const bool absolute = rule != FC_EDGE_THRESHOLD;
  auto near_cut = [&](float w) { return std::fabs((absolute ? std::fabs(w) : w) - cut) <= 1e-5f; };
  for (const auto& e : ux) {
    const auto it = uy.find(e.first);
    if (it == uy.end()) {
      EXPECT_TRUE(near_cut(e.second)) << "edge (" << e.first.first << ", " << e.first.second << ") lost";
    } else {
      EXPECT_NEAR(e.second, it->second, 1e-6);
    }
  }
  for (const auto& e : uy) {
    if (ux.find(e.first) == ux.end()) {
      EXPECT_TRUE(near_cut(e.second)) << "edge (" << e.first.first << ", " << e.first.second << ") gained";
    }
  }
}

TEST_P(Graph, SameUnderMemoryLimitsAndReruns) {
  const Case c(1031, 165);
  const Context big = tested(kModes[0]);
  const Context small = tested(kModes[0], 64 * c.n * 8);  // many tiles, fewer threads
  const Series a = make_series(big, c.d), b = make_series(small, c.d);
  struct R { fc_edge_rule rule; double param; } rules[] = {
      {FC_EDGE_ABS_THRESHOLD, 0.6}, {FC_EDGE_THRESHOLD, 0.5}, {FC_EDGE_DENSITY, 0.02}, {FC_EDGE_TOP_K, 7}};
  for (const R& r : rules) {
    SCOPED_TRACE("rule " + std::to_string(r.rule));
    const Csr x = pcc_graph(big, a, r.rule, r.param, FC_GRAPH_WEIGHTED);
    const Csr y = pcc_graph(small, b, r.rule, r.param, FC_GRAPH_WEIGHTED);
    const Csr z = pcc_graph(big, a, r.rule, r.param, FC_GRAPH_WEIGHTED);
    EXPECT_GT(x.n_edges, 0);
    if (GetParam() == FC_BACKEND_CPU) {
      EXPECT_EQ(x.offsets, y.offsets);
      EXPECT_EQ(x.columns, y.columns);
      EXPECT_TRUE(bit_identical(x.weights, y.weights)) << "memory limit";
    } else {
      expect_same_within_rounding(x, y, r.rule, r.param);
    }
    EXPECT_EQ(x.columns, z.columns);
    EXPECT_TRUE(bit_identical(x.weights, z.weights)) << "rerun";
  }
}

// A context reuses the arrays of graphs it built and that were destroyed (graph/graph_recycler):
// graphs built into them, larger or smaller, equal those of a fresh context, and the graphs that
// are still alive are never touched by later ones.
TEST_P(Graph, ReusedMemoryGivesTheSameGraphs) {
  const Case c(1500, 40);
  const Context ctx = tested(kModes[0]), fresh = tested(kModes[0]);
  const Series s = make_series(ctx, c.d), f = make_series(fresh, c.d);
  auto build = [&](const Context& x, const Series& y, double t) {
    fc_graph* g = nullptr;
    check(fc_pcc_graph(x.get(), y.get(), FC_EDGE_ABS_THRESHOLD, t, FC_GRAPH_WEIGHTED, &g), "fc_pcc_graph");
    return std::unique_ptr<fc_graph, void (*)(fc_graph*)>(g, fc_graph_destroy);
  };
  auto same = [](const Csr& a, const Csr& b) {
    EXPECT_EQ(a.offsets, b.offsets);
    EXPECT_EQ(a.columns, b.columns);
    EXPECT_TRUE(bit_identical(a.weights, b.weights));
  };
  const double thresholds[] = {0.0, 0.2, 0.0, 0.95, 0.1, 0.0};  // > 1 M entries at 0: kept when destroyed
  auto kept = build(ctx, s, 0.3);  // alive throughout
  const Csr kept_copy = copy_out(kept.get());
  for (double t : thresholds) {
    SCOPED_TRACE("threshold " + std::to_string(t));
    auto g = build(ctx, s, t);
    same(copy_out(g.get()), copy_out(build(fresh, f, t).get()));
    if (t == 0.0) { EXPECT_GT(copy_out(g.get()).columns.size(), size_t(1) << 20); }
  }
  same(copy_out(kept.get()), kept_copy);
}

TEST_P(Graph, EdgeListMatchesCsr) {
  const Case c(257, 165);
  const Context ctx = tested(kModes[0]);
  const Series s = make_series(ctx, c.d);
  fc_graph* g = nullptr;
  check(fc_pcc_graph(ctx.get(), s.get(), FC_EDGE_ABS_THRESHOLD, 0.5, FC_GRAPH_WEIGHTED, &g), "fc_pcc_graph");
  std::unique_ptr<fc_graph, void (*)(fc_graph*)> owner(g, fc_graph_destroy);
  const Csr csr = copy_out(g);
  std::vector<int64_t> i(csr.n_edges), j(csr.n_edges);
  std::vector<float> w(csr.n_edges);
  ASSERT_EQ(fc_graph_edges(g, i.data(), j.data(), w.data(), csr.n_edges), FC_OK) << fc_last_error();
  const auto upper = csr.upper();
  ASSERT_EQ(static_cast<int64_t>(upper.size()), csr.n_edges);
  size_t e = 0;
  for (const auto& [p, weight] : upper) {  // std::map iterates in (i, j) order
    EXPECT_EQ(i[e], p.first);
    EXPECT_EQ(j[e], p.second);
    EXPECT_EQ(w[e], weight);
    ++e;
  }
}

int cancel_at_first(int64_t, int64_t, void* user) {
  ++*static_cast<int*>(user);
  return 1;
}
int log_progress(int64_t done, int64_t total, void* user) {
  auto* log = static_cast<std::vector<std::pair<int64_t, int64_t>>*>(user);
  log->emplace_back(done, total);
  return 0;
}

TEST_P(Graph, ProgressAndCancel) {
  const Case c(1031, 100);
  for (fc_edge_rule rule : {FC_EDGE_ABS_THRESHOLD, FC_EDGE_DENSITY, FC_EDGE_TOP_K}) {
    SCOPED_TRACE("rule " + std::to_string(rule));
    const double param = rule == FC_EDGE_TOP_K ? 3.0 : rule == FC_EDGE_DENSITY ? 0.01 : 0.5;
    Context ctx = tested(kModes[0], 16 * c.n * 8);
    const Series s = make_series(ctx, c.d);
    std::vector<std::pair<int64_t, int64_t>> log;
    ctx.progress(log_progress, &log);
    fc_graph* g = nullptr;
    ASSERT_EQ(fc_pcc_graph(ctx.get(), s.get(), rule, param, FC_GRAPH_BINARY, &g), FC_OK) << fc_last_error();
    fc_graph_destroy(g);
    ASSERT_FALSE(log.empty());
    for (size_t x = 1; x < log.size(); ++x) EXPECT_GE(log[x].first, log[x - 1].first);
    EXPECT_EQ(log.back().first, log.back().second) << "the last report is the total";
    int calls = 0;
    ctx.progress(cancel_at_first, &calls);
    g = nullptr;
    EXPECT_EQ(fc_pcc_graph(ctx.get(), s.get(), rule, param, FC_GRAPH_BINARY, &g), FC_ERR_ABORTED);
    EXPECT_EQ(g, nullptr);
    EXPECT_EQ(calls, 1);
    EXPECT_EQ(fc_pcc_degree(ctx.get(), s.get(), rule, param, nullptr, std::vector<double>(c.n).data()), FC_ERR_ABORTED);
  }
}

TEST_P(Graph, BadRulesNameTheValue) {
  const Case c(13, 20);
  const Context ctx = tested(kModes[0]);
  const Series s = make_series(ctx, c.d);
  struct Bad { int rule; double param; int weights; const char* mention; } bad[] = {
      {7, 0.5, 0, "rule 7"},          {-1, 0.5, 0, "rule -1"},       {0, 0.5, 3, "weights 3"},
      {0, std::nan(""), 0, "NaN"},    {1, INFINITY, 0, "inf"},       {2, -0.1, 0, "-0.1"},
      {2, 1.5, 0, "1.5"},             {3, -2, 0, "-2"},              {3, 2.5, 0, "2.5"},
      {3, 0, 0, "top-k param 0"},     {2, std::nan(""), 1, "NaN"}};
  for (const Bad& b : bad) {
    // An out-of-range rule cannot be passed from C++ without undefined behaviour of the test
    // itself (passing the enum on loads it); tests/c/test_enum_range.c passes those from C.
    if (b.rule < FC_EDGE_ABS_THRESHOLD || b.rule > FC_EDGE_TOP_K) continue;
    fc_graph* g = nullptr;
    const auto rule = static_cast<fc_edge_rule>(b.rule);
    EXPECT_EQ(fc_pcc_graph(ctx.get(), s.get(), rule, b.param, b.weights, &g), FC_ERR_INVALID_ARG) << b.mention;
    EXPECT_NE(std::string(fc_last_error()).find(b.mention), std::string::npos) << fc_last_error();
    if (b.weights == 0) {
      std::vector<int64_t> deg(13);
      EXPECT_EQ(fc_pcc_degree(ctx.get(), s.get(), rule, b.param, deg.data(), nullptr), FC_ERR_INVALID_ARG) << b.mention;
      EXPECT_NE(std::string(fc_last_error()).find(b.mention), std::string::npos) << fc_last_error();
    }
  }
}

// The real voxel data (nitime's fmri1: 1800 voxels x 40 volumes, many constant outside the
// brain): the graph at a realistic threshold against float64.
TEST_P(Graph, RealVoxelDataMatchesFloat64Reference) {
  const Dataset d = nifti_voxels(FASTCONN_TEST_DATA "/fmri1.nii.gz");
  ASSERT_EQ(d.n, 1800);
  ASSERT_EQ(d.t, 40);
  const Reference ref = normalize(d);
  const std::vector<double> dense = reference_dense(ref);
  for (const Mode& mode : {kModes[0], kModes[1]}) {
    SCOPED_TRACE(mode_name(mode));
    const Context ctx = tested(mode);
    const Series s = make_series(ctx, d);
    EXPECT_EQ(s.n_constant(), ref.n_constant);
    const Csr g = pcc_graph(ctx, s, FC_EDGE_ABS_THRESHOLD, 0.7, FC_GRAPH_WEIGHTED);
    const double density = double(g.n_edges) / double(triu_size(d.n - ref.n_constant));
    EXPECT_GT(density, 0.001);
    EXPECT_LT(density, 0.2);
    EXPECT_TRUE(same_edges(g, reference_edges(dense, d.n, true, 0.7, kMargin)));
    EXPECT_TRUE(well_formed(g));
    const Csr dg = pcc_graph(ctx, s, FC_EDGE_DENSITY, 0.01, FC_GRAPH_BINARY);
    EXPECT_EQ(dg.n_edges, static_cast<int64_t>(std::ceil(0.01 * double(triu_size(d.n)))));
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, Graph, ::testing::Values(FC_BACKEND_CPU, FC_BACKEND_CUDA),
                         [](const ::testing::TestParamInfo<fc_backend>& p) { return std::string(backend_name(p.param)); });

}  // namespace
