// Centrality and rank correlation (issue 34), once per backend: fast ECM against the leading
// eigenvector of the dense float64 (R + 1) / 2 (modules/small_eigen.cpp's symmetric_eigen, compiled
// in), the constant-series policies, determinism over runs and thread counts; Spearman's rho of
// ranked series against average ranks computed by counting; the eigenvector centrality of a graph
// against igraph's; Fisher z against atanh.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <tuple>
#include <vector>

#include "backend_test.hpp"
#include "modules/leading_eigen.hpp"
#include "reference.hpp"

namespace {

using namespace fctest;

std::vector<double> fast_ecm(const Context& ctx, const Series& s, double* lambda = nullptr, double tolerance = 0) {
  std::vector<double> c(static_cast<size_t>(s.n_series()), -7.0);
  double value = 0;
  check(fc_pcc_ecm(ctx.get(), s.get(), tolerance, c.data(), static_cast<int64_t>(c.size()), &value), "fc_pcc_ecm");
  if (lambda != nullptr) *lambda = value;
  return c;
}

// The leading eigenvector of (R + 1) / 2 over the series `keep` marks, R = Z Z^T of the reference's
// rows (zero rows for constant series), unit norm and positive sum; NaN where keep is 0.
std::vector<double> dense_ecm(const Reference& ref, const std::vector<uint8_t>& keep, double* lambda) {
  std::vector<int64_t> idx;
  for (int64_t i = 0; i < ref.n; ++i)
    if (keep[i]) idx.push_back(i);
  const int64_t m = static_cast<int64_t>(idx.size());
  std::vector<double> a(static_cast<size_t>(m * m)), values, vectors;
  for (int64_t p = 0; p < m; ++p)
    for (int64_t q = 0; q < m; ++q) a[p * m + q] = (dot(ref.row(idx[p]), ref.row(idx[q]), ref.t) + 1.0) / 2.0;
  fc::symmetric_eigen(a, m, values, vectors);
  double sum = 0;
  for (int64_t p = 0; p < m; ++p) sum += vectors[p * m];
  std::vector<double> out(static_cast<size_t>(ref.n), kNaN);
  for (int64_t p = 0; p < m; ++p) out[idx[p]] = (sum < 0 ? -1 : 1) * vectors[p * m];
  *lambda = values[0];
  return out;
}

// max |a - b| / max |b| over the entries where b is a number; NaN must match NaN.
double relative_error(const std::vector<double>& a, const std::vector<double>& b) {
  double err = 0, top = 0;
  for (size_t i = 0; i < b.size(); ++i) {
    if (std::isnan(b[i])) {
      if (!std::isnan(a[i])) return INFINITY;
      continue;
    }
    err = std::max(err, std::fabs(a[i] - b[i]));
    top = std::max(top, std::fabs(b[i]));
  }
  return err / top;
}

class Centrality : public BackendTest {};

TEST_P(Centrality, FastEcmMatchesDenseFloat64Eigenvector) {
  // Odd and prime sizes, T = 2 (R has entries +-1 only), a few hundred series.
  const std::vector<std::pair<int64_t, int64_t>> shapes = {{1, 2}, {2, 2}, {3, 5}, {13, 2}, {97, 31}, {211, 165}, {300, 7}};
  for (const fc_precision precision : {FC_PRECISION_FP64, FC_PRECISION_FP32}) {
    const Context ctx = tested({precision, FC_CONSTANT_NAN});
    for (const auto& [n, t] : shapes) {
      SCOPED_TRACE(std::to_string(n) + " x " + std::to_string(t) + (precision == FC_PRECISION_FP64 ? " FP64" : " FP32"));
      const Dataset d = structured_data(n, t, 340 + n);
      const Reference ref = normalize(d);
      double lambda_ref = 0, lambda = 0;
      const std::vector<double> want = dense_ecm(ref, std::vector<uint8_t>(n, 1), &lambda_ref);
      const std::vector<double> got = fast_ecm(ctx, make_series(ctx, d), &lambda);
      // FP32 stores Z rounded to float: the matrix itself moves by ~1e-7 relative.
      const double tol = precision == FC_PRECISION_FP64 ? 1e-6 : 2e-5;
      EXPECT_LE(relative_error(got, want), tol);
      EXPECT_NEAR(lambda, lambda_ref, (precision == FC_PRECISION_FP64 ? 1e-10 : 1e-5) * lambda_ref);
      double norm = 0;
      for (double v : got) {
        EXPECT_GE(v, 0.0);
        norm += v * v;
      }
      EXPECT_NEAR(norm, 1.0, 1e-12);
    }
  }
}

TEST_P(Centrality, FastEcmConstantSeriesFollowThePolicy) {
  Dataset d = structured_data(41, 23, 7);
  make_constant(d, 0, 3.0);
  make_constant(d, 17, -2.5);
  const Reference ref = normalize(d);
  for (const fc_constant_policy policy : {FC_CONSTANT_NAN, FC_CONSTANT_ZERO}) {
    SCOPED_TRACE(policy == FC_CONSTANT_NAN ? "NAN" : "ZERO");
    const Context ctx = tested({FC_PRECISION_FP64, policy});
    std::vector<uint8_t> keep(41, 1);
    if (policy == FC_CONSTANT_NAN) keep[0] = keep[17] = 0;
    double lambda_ref = 0, lambda = 0;
    const std::vector<double> want = dense_ecm(ref, keep, &lambda_ref);
    const std::vector<double> got = fast_ecm(ctx, make_series(ctx, d), &lambda);
    EXPECT_LE(relative_error(got, want), 1e-6);
    EXPECT_NEAR(lambda, lambda_ref, 1e-10 * lambda_ref);
    if (policy == FC_CONSTANT_ZERO) {
      // Row i of (R + 1) / 2 is 1/2 everywhere: x_i = (1/2) sum(x) / lambda.
      double sum = 0;
      for (double v : got) sum += v;
      EXPECT_NEAR(got[0], 0.5 * sum / lambda, 1e-12);
      EXPECT_NEAR(got[0], got[17], 1e-15);
    }
  }
  // Every series constant.
  Dataset flat = structured_data(5, 9, 1);
  for (int64_t s = 0; s < 5; ++s) make_constant(flat, s, 1.0 + s);
  {
    const Context ctx = tested({FC_PRECISION_FP32, FC_CONSTANT_NAN});
    double lambda = 0;
    for (double v : fast_ecm(ctx, make_series(ctx, flat), &lambda)) EXPECT_TRUE(std::isnan(v));
    EXPECT_TRUE(std::isnan(lambda));
  }
  {
    const Context ctx = tested({FC_PRECISION_FP32, FC_CONSTANT_ZERO});
    double lambda = 0;
    for (double v : fast_ecm(ctx, make_series(ctx, flat), &lambda)) EXPECT_NEAR(v, 1 / std::sqrt(5.0), 1e-12);
    EXPECT_NEAR(lambda, 2.5, 1e-12);
  }
}

TEST_P(Centrality, FastEcmSameBitsForRunsAndThreadCounts) {
  // 2,500 rows: three chunks of the Z^T x sums.
  const Dataset d = structured_data(2500, 60, 99);
  for (const fc_precision precision : {FC_PRECISION_FP32, FC_PRECISION_FP64}) {
    std::vector<std::vector<double>> runs;
    for (const int threads : {1, 2, 3, 1}) {
      const Context ctx = tested({precision, FC_CONSTANT_NAN});
      check(fc_context_set_threads(ctx.get(), threads), "fc_context_set_threads");
      runs.push_back(fast_ecm(ctx, make_series(ctx, d)));
    }
    for (size_t r = 1; r < runs.size(); ++r)
      EXPECT_EQ(std::memcmp(runs[0].data(), runs[r].data(), runs[0].size() * sizeof(double)), 0) << "run " << r;
  }
}

// Average ranks by counting (a different algorithm from the library's sort): rank = (number of
// smaller values) + (number of equal values + 1) / 2.
Dataset ranks_of(const Dataset& d) {
  Dataset r = d;
  for (int64_t s = 0; s < d.n; ++s)
    for (int64_t k = 0; k < d.t; ++k) {
      int64_t less = 0, equal = 0;
      for (int64_t q = 0; q < d.t; ++q) {
        less += d.at(s, q) < d.at(s, k);
        equal += d.at(s, q) == d.at(s, k);
      }
      r.at(s, k) = static_cast<double>(less) + 0.5 * static_cast<double>(equal + 1);
    }
  return r;
}

TEST_P(Centrality, RankedSeriesGiveSpearmanWithTies) {
  // Values rounded to a coarse grid: many ties; one constant series; T = 2 and odd sizes.
  for (const auto& [n, t] : std::vector<std::pair<int64_t, int64_t>>{{37, 53}, {3, 2}, {11, 8}}) {
    Dataset d = structured_data(n, t, 5 + n);
    for (double& v : d.x) v = std::round(v / 40.0);
    make_constant(d, n - 1, 4.0);
    const Reference ref = normalize(ranks_of(d));
    const std::vector<double> want = reference_dense(ref);
    for (const fc_precision precision : {FC_PRECISION_FP64, FC_PRECISION_FP32}) {
      SCOPED_TRACE(std::to_string(n) + " x " + std::to_string(t));
      const Context ctx = tested({precision, FC_CONSTANT_NAN});
      for (const bool f32_input : {false, true}) {
        const Strided<double> in64 = to_layout<double>(d, Layout::TimeMajor);
        const Strided<float> in32 = to_layout<float>(d, Layout::TimeMajor);
        fc_series* raw = nullptr;
        if (f32_input)
          check(fc_series_create_ranked_f32(ctx.get(), in32.buffer.data(), n, t, in32.series_stride, in32.time_stride, &raw),
                "fc_series_create_ranked_f32");
        else
          check(fc_series_create_ranked_f64(ctx.get(), in64.buffer.data(), n, t, in64.series_stride, in64.time_stride, &raw),
                "fc_series_create_ranked_f64");
        const Series s(raw);
        EXPECT_EQ(s.n_constant(), ref.n_constant);
        EXPECT_GE(ref.n_constant, 1);
        std::vector<double> got(static_cast<size_t>(n * n));
        check(fc_pcc_dense_f64(ctx.get(), s.get(), got.data(), n), "fc_pcc_dense_f64");
        const double tol = precision == FC_PRECISION_FP64 ? 1e-12 : 1e-6;
        for (size_t i = 0; i < got.size(); ++i) {
          if (std::isnan(want[i]))
            EXPECT_TRUE(std::isnan(got[i])) << i;
          else
            EXPECT_NEAR(got[i], want[i], tol) << i;
        }
      }
    }
  }
}

// A weighted graph of 12 nodes and igraph 0.10.2's answers for it (python3-igraph):
//   g = igraph.Graph(n=12, edges=[(a, b) for a, b, _ in E]); w = [c for *_, c in E]
//   g.eigenvector_centrality(scale=True, weights=w, return_eigenvalue=True), and without weights.
struct Edge {
  int64_t a, b;
  float w;
};
const std::vector<Edge> kEdges = {{0, 1, 0.5f},  {0, 2, 0.25f}, {1, 2, 1.0f},   {2, 3, 0.75f},  {3, 4, 0.5f},
                                  {4, 5, 0.125f}, {5, 6, 1.0f},  {6, 7, 0.5f},   {7, 8, 0.25f},  {8, 9, 0.75f},
                                  {9, 10, 1.0f},  {10, 0, 0.375f}, {1, 5, 0.625f}, {3, 8, 0.875f}, {4, 10, 0.25f},
                                  {6, 9, 0.5f},   {2, 7, 0.125f}, {11, 3, 0.5f},  {11, 9, 0.25f}};
const std::vector<double> kIgraphWeighted = {0.48385505303230852, 0.86107231840465592, 0.9449876127893132,  1,
                                             0.39813115280840838, 0.69384623087606212, 0.71790693688336626, 0.37171640218160645,
                                             0.89002680479294882, 0.94284442200973895, 0.65026540758572504, 0.39091236112452038};
const double kIgraphWeightedValue = 1.882035920752281;
const std::vector<double> kIgraphBinary = {0.76428882106374296, 0.75260227625434661, 0.99999999999999989, 0.95081578812524459,
                                           0.72545577481835877, 0.67587787839421576, 0.71334469084576879, 0.77459888009661959,
                                           0.79814172407228856, 0.86240484545571694, 0.72545577481835877, 0.55923801291424469};
const double kIgraphBinaryValue = 3.242305765539951;

// Symmetric CSR (sorted columns) of n nodes from an edge list.
fc_graph* make_graph(int64_t n, const std::vector<Edge>& edges) {
  std::vector<std::vector<std::pair<int64_t, float>>> rows(static_cast<size_t>(n));
  for (const Edge& e : edges) {
    rows[e.a].push_back({e.b, e.w});
    rows[e.b].push_back({e.a, e.w});
  }
  std::vector<int64_t> offsets{0}, columns;
  std::vector<float> weights;
  for (auto& r : rows) {
    std::sort(r.begin(), r.end());
    for (auto& [c, w] : r) {
      columns.push_back(c);
      weights.push_back(w);
    }
    offsets.push_back(static_cast<int64_t>(columns.size()));
  }
  fc_graph* g = nullptr;
  check(fc_graph_create_csr(n, offsets.data(), columns.data(), weights.data(), &g), "fc_graph_create_csr");
  return g;
}

TEST_P(Centrality, GraphEigenvectorCentralityMatchesIgraph) {
  const Context ctx = tested({FC_PRECISION_FP32, FC_CONSTANT_NAN});
  fc_graph* g = make_graph(12, kEdges);
  std::vector<double> c(12);
  double value = 0;
  ASSERT_EQ(fc_graph_eigenvector_centrality(ctx.get(), g, 1, 0, c.data(), 12, &value), FC_OK) << fc_last_error();
  for (int i = 0; i < 12; ++i) EXPECT_NEAR(c[i], kIgraphWeighted[i], 1e-9) << i;
  EXPECT_NEAR(value, kIgraphWeightedValue, 1e-10);
  ASSERT_EQ(fc_graph_eigenvector_centrality(ctx.get(), g, 0, 0, c.data(), 12, &value), FC_OK) << fc_last_error();
  for (int i = 0; i < 12; ++i) EXPECT_NEAR(c[i], kIgraphBinary[i], 1e-9) << i;
  EXPECT_NEAR(value, kIgraphBinaryValue, 1e-10);
  fc_graph_destroy(g);

  // Negative weights are refused (weighted), allowed when binarized.
  std::vector<Edge> negative = kEdges;
  negative[4].w = -0.5f;
  g = make_graph(12, negative);
  EXPECT_EQ(fc_graph_eigenvector_centrality(ctx.get(), g, 1, 0, c.data(), 12, nullptr), FC_ERR_INVALID_ARG);
  EXPECT_NE(std::strstr(fc_last_error(), "edge (3, 4)"), nullptr) << fc_last_error();
  EXPECT_EQ(fc_graph_eigenvector_centrality(ctx.get(), g, 0, 0, c.data(), 12, nullptr), FC_OK);
  fc_graph_destroy(g);

  // No edges: igraph's all-ones, eigenvalue 0. One node too.
  for (const int64_t n : {1, 4}) {
    g = make_graph(n, {});
    std::vector<double> ones(static_cast<size_t>(n), -1);
    ASSERT_EQ(fc_graph_eigenvector_centrality(ctx.get(), g, 1, 0, ones.data(), n, &value), FC_OK);
    for (double v : ones) EXPECT_EQ(v, 1.0);
    EXPECT_EQ(value, 0.0);
    fc_graph_destroy(g);
  }
}

TEST_P(Centrality, GraphOfCorrelationsMatchesDenseAdjacency) {
  // A thresholded correlation graph (|r| weights, r >= 0.3) against the dense eigenvector of its
  // adjacency, over a prime number of series.
  const Context ctx = tested({FC_PRECISION_FP64, FC_CONSTANT_NAN});
  const Dataset d = structured_data(101, 40, 3);
  const Series s = make_series(ctx, d);
  fc_graph* g = nullptr;
  check(fc_pcc_graph(ctx.get(), s.get(), FC_EDGE_THRESHOLD, 0.3, FC_GRAPH_WEIGHTED, &g), "fc_pcc_graph");
  int64_t n = 0, m = 0;
  check(fc_graph_info(g, &n, &m), "fc_graph_info");
  std::vector<int64_t> offsets(n + 1), columns(2 * m);
  std::vector<float> weights(2 * m);
  check(fc_graph_csr(g, offsets.data(), columns.data(), weights.data(), 2 * m), "fc_graph_csr");
  std::vector<double> a(static_cast<size_t>(n * n), 0.0), values, vectors;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t e = offsets[i]; e < offsets[i + 1]; ++e) a[i * n + columns[e]] = weights[e];
  fc::symmetric_eigen(a, n, values, vectors);
  double top = 0;
  for (int64_t i = 0; i < n; ++i) top = std::max(top, std::fabs(vectors[i * n]));
  std::vector<double> c(static_cast<size_t>(n));
  double value = 0;
  check(fc_graph_eigenvector_centrality(ctx.get(), g, 1, 0, c.data(), n, &value), "fc_graph_eigenvector_centrality");
  for (int64_t i = 0; i < n; ++i) EXPECT_NEAR(c[i], std::fabs(vectors[i * n]) / top, 1e-8) << i;
  EXPECT_NEAR(value, values[0], 1e-10 * values[0]);
  fc_graph_destroy(g);
}

TEST_P(Centrality, FisherZOfTriangleIsAtanh) {
  const Context ctx = tested({FC_PRECISION_FP64, FC_CONSTANT_NAN});
  Dataset d = structured_data(29, 17, 11);
  make_constant(d, 3, 2.0);
  const Series s = make_series(ctx, d);
  std::vector<double> r = pcc_triu_f64(ctx, s, FC_TRIU_ROW), z = r;
  ASSERT_EQ(fc_fisher_z_f64(z.data(), static_cast<int64_t>(z.size())), FC_OK);
  for (size_t i = 0; i < r.size(); ++i) {
    if (std::isnan(r[i]))
      EXPECT_TRUE(std::isnan(z[i]));
    else
      EXPECT_NEAR(z[i], std::atanh(r[i]), 1e-15 * std::max(1.0, std::fabs(z[i])));
  }
  std::vector<float> rf = pcc_triu(ctx, s, FC_TRIU_COL), zf = rf;
  ASSERT_EQ(fc_fisher_z_f32(zf.data(), static_cast<int64_t>(zf.size())), FC_OK);
  for (size_t i = 0; i < rf.size(); ++i) {
    if (std::isnan(rf[i]))
      EXPECT_TRUE(std::isnan(zf[i]));
    else
      EXPECT_NEAR(zf[i], std::atanh(static_cast<double>(rf[i])), 1e-6 * std::max(1.0, std::fabs(double(zf[i]))));
  }
  // The dense diagonal (exactly 1) becomes +inf.
  std::vector<float> dense = pcc_dense(ctx, s, 29);
  ASSERT_EQ(fc_fisher_z_f32(dense.data(), 29 * 29), FC_OK);
  EXPECT_EQ(dense[0], INFINITY);
}

INSTANTIATE_TEST_SUITE_P(Backends, Centrality, ::testing::Values(FC_BACKEND_CPU, FC_BACKEND_CUDA),
                         [](const ::testing::TestParamInfo<fc_backend>& p) { return std::string(backend_name(p.param)); });

}  // namespace
