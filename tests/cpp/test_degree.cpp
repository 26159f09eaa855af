// fc_pcc_degree (issue 4): degree and strength without a graph, on every backend (CPU always;
// CUDA skipped without a device, labelled `gpu`). Degree must equal the row sizes of
// fc_pcc_graph's graph under the same rule and strength its weight sums (r for
// FC_EDGE_THRESHOLD, |r| otherwise); strength must be bit-identical run after run, under any
// memory limit or thread count; and the threshold rules must match a float64 reference.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>

#include "backend_test.hpp"
#include "graph_reference.hpp"

namespace {

using namespace fctest;

class Degree : public BackendTest {};

Dataset data_with_constants(int64_t n, int64_t t) {
  Dataset d = structured_data(n, t, 0xDE6u + uint64_t(n));
  if (n >= 13) {
    make_constant(d, 1, 2.0);
    make_constant(d, n - 2, 0.0);
  }
  return d;
}


struct R {
  fc_edge_rule rule;
  double param;
};
const R kRules[] = {{FC_EDGE_ABS_THRESHOLD, 0.5}, {FC_EDGE_ABS_THRESHOLD, 0.0}, {FC_EDGE_THRESHOLD, 0.3},
                    {FC_EDGE_THRESHOLD, -0.4},    {FC_EDGE_DENSITY, 0.05},      {FC_EDGE_TOP_K, 4}};

// Exact on the CPU backend and for the rules that go through the graph's edges. The CUDA
// backend's FP32 threshold rules compute their products in a fused kernel (fastconn.h,
// fc_pcc_degree), whose r may differ from the graph's by a float ulp: there a degree may differ
// only through the series' pairs within 1e-6 of the threshold (float64), and where it agrees
// the strength agrees to a few ulps a pair.
TEST_P(Degree, EqualsRowSumsOfTheGraph) {
  for (int64_t n : {1, 2, 3, 13, 257, 523}) {
    const Dataset d = data_with_constants(n, 97);
    const std::vector<double> dense = reference_dense(normalize(d));
    for (fc_precision p : {FC_PRECISION_FP32, FC_PRECISION_FP64})
      for (fc_constant_policy policy : {FC_CONSTANT_NAN, FC_CONSTANT_ZERO}) {
        const Context ctx = tested(Mode{p, policy});
        const Series s = make_series(ctx, d);
        for (const R& r : kRules) {
          SCOPED_TRACE("N = " + std::to_string(n) + ", precision " + std::to_string(p) + ", policy " + std::to_string(policy) +
                       ", rule " + std::to_string(r.rule) + ", param " + std::to_string(r.param));
          const bool threshold = r.rule == FC_EDGE_ABS_THRESHOLD || r.rule == FC_EDGE_THRESHOLD;
          const bool fused = backend() == FC_BACKEND_CUDA && p == FC_PRECISION_FP32 && threshold;
          const DegreeOut o = pcc_degree(ctx, s, r.rule, r.param);
          const Csr g = pcc_graph(ctx, s, r.rule, r.param, r.rule == FC_EDGE_THRESHOLD ? FC_GRAPH_WEIGHTED : FC_GRAPH_WEIGHTED_ABS);
          int64_t total = 0;
          for (int64_t i = 0; i < n; ++i) {
            const int64_t deg = g.offsets[i + 1] - g.offsets[i];
            double sum = 0.0;
            for (int64_t x = g.offsets[i]; x < g.offsets[i + 1]; ++x) sum += g.weights[x];
            total += o.degree[i];
            if (!fused) {
              ASSERT_EQ(o.degree[i], deg) << "series " << i;
              ASSERT_NEAR(o.strength[i], sum, 1e-12 * std::max<double>(1.0, double(deg))) << "series " << i;
              continue;
            }
            int64_t near = 0;
            for (int64_t j = 0; j < n; ++j) {
              const double v = dense[i * n + j];
              if (j != i && !std::isnan(v) && std::fabs((r.rule == FC_EDGE_THRESHOLD ? v : std::fabs(v)) - r.param) <= 1e-6) ++near;
            }
            ASSERT_LE(std::llabs(o.degree[i] - deg), near) << "series " << i;
            if (o.degree[i] == deg) { ASSERT_NEAR(o.strength[i], sum, 4e-7 * double(deg + 1)) << "series " << i; }
          }
          if (!fused) { EXPECT_EQ(total, 2 * g.n_edges); }
        }
      }
  }
}

TEST_P(Degree, ThresholdRulesMatchFloat64Reference) {
  const int64_t n = 521;
  const Dataset d = data_with_constants(n, 165);
  const Reference ref = normalize(d);
  const std::vector<double> dense = reference_dense(ref);
  const Context ctx = tested(Mode{FC_PRECISION_FP32, FC_CONSTANT_NAN});
  const Series s = make_series(ctx, d);
  for (const R& r : {kRules[0], kRules[2], kRules[3]}) {
    SCOPED_TRACE("rule " + std::to_string(r.rule) + ", param " + std::to_string(r.param));
    const bool absolute = r.rule == FC_EDGE_ABS_THRESHOLD;
    const DegreeOut o = pcc_degree(ctx, s, r.rule, r.param);
    for (int64_t i = 0; i < n; ++i) {
      // Pairs within 1e-6 of the threshold may go either way; bound the degree between the sure
      // edges and the sure ones plus the ambiguous ones, and strength likewise.
      int64_t sure = 0, maybe = 0;
      double sum = 0.0, slack = 0.0;
      for (int64_t j = 0; j < n; ++j) {
        const double v = dense[i * n + j];
        if (j == i || std::isnan(v)) continue;
        const double x = absolute ? std::fabs(v) : v;
        if (std::fabs(x - r.param) <= 1e-6) {
          ++maybe;
          slack += std::fabs(x);
        } else if (x >= r.param) {
          ++sure;
          sum += x;
        }
      }
      ASSERT_GE(o.degree[i], sure) << "series " << i;
      ASSERT_LE(o.degree[i], sure + maybe) << "series " << i;
      ASSERT_NEAR(o.strength[i], sum, slack + 1e-5 * double(sure + 1)) << "series " << i;
      if (ref.constant[i]) {
        ASSERT_EQ(o.degree[i], 0);
        ASSERT_EQ(o.strength[i], 0.0);
      }
    }
  }
}

TEST_P(Degree, BitIdenticalUnderLimitsThreadsAndReruns) {
  const int64_t n = 1031;
  const Dataset d = data_with_constants(n, 165);
  const Context a = tested(Mode{FC_PRECISION_FP32, FC_CONSTANT_NAN});
  Context b = tested(Mode{FC_PRECISION_FP32, FC_CONSTANT_NAN}, 8 * n * 8);
  check(fc_context_set_threads(b.get(), 1), "fc_context_set_threads");
  const Series sa = make_series(a, d), sb = make_series(b, d);
  for (const R& r : kRules) {
    SCOPED_TRACE("rule " + std::to_string(r.rule));
    const DegreeOut x = pcc_degree(a, sa, r.rule, r.param), y = pcc_degree(b, sb, r.rule, r.param),
                    z = pcc_degree(a, sa, r.rule, r.param);
    if (GetParam() == FC_BACKEND_CPU) {
      EXPECT_EQ(x.degree, y.degree);
      EXPECT_TRUE(bit_identical(x.strength, y.strength)) << "memory limit, one thread";
    } else {
      // CUDA: a memory limit changes cuBLAS's tile shapes and with them the last bits of r (the
      // contract is bit-identity under the same settings), so only pairs within rounding of the
      // threshold may flip: a series' degree moves by a few at most, its strength by those pairs.
      for (int64_t i = 0; i < n; ++i) {
        const int64_t moved = std::llabs(x.degree[i] - y.degree[i]);
        EXPECT_LE(moved, 3) << "series " << i;
        EXPECT_NEAR(x.strength[i], y.strength[i], 1e-4 + static_cast<double>(moved)) << "series " << i;
      }
    }
    EXPECT_EQ(x.degree, z.degree);
    EXPECT_TRUE(bit_identical(x.strength, z.strength)) << "rerun";
  }
}

TEST_P(Degree, EitherOutputMayBeNull) {
  const Dataset d = data_with_constants(300, 60);
  const Context ctx = tested(Mode{FC_PRECISION_FP32, FC_CONSTANT_NAN});
  const Series s = make_series(ctx, d);
  const DegreeOut both = pcc_degree(ctx, s, FC_EDGE_ABS_THRESHOLD, 0.5);
  std::vector<int64_t> deg(300, -1);
  std::vector<double> str(300, -1.0);
  ASSERT_EQ(fc_pcc_degree(ctx.get(), s.get(), FC_EDGE_ABS_THRESHOLD, 0.5, deg.data(), nullptr), FC_OK) << fc_last_error();
  ASSERT_EQ(fc_pcc_degree(ctx.get(), s.get(), FC_EDGE_ABS_THRESHOLD, 0.5, nullptr, str.data()), FC_OK) << fc_last_error();
  ASSERT_EQ(fc_pcc_degree(ctx.get(), s.get(), FC_EDGE_ABS_THRESHOLD, 0.5, nullptr, nullptr), FC_OK) << fc_last_error();
  EXPECT_EQ(deg, both.degree);
  EXPECT_TRUE(bit_identical(str, both.strength));
}

INSTANTIATE_TEST_SUITE_P(Backends, Degree, ::testing::Values(FC_BACKEND_CPU, FC_BACKEND_CUDA),
                         [](const ::testing::TestParamInfo<fc_backend>& p) { return std::string(backend_name(p.param)); });

}  // namespace
