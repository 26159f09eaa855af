// Test data and helpers shared by the tensor-core decision tests (test_cuda_tc_degree.cpp,
// test_cuda_tc_edges.cpp): data built so that many pairs sit within 1e-6 of a threshold, and
// constant and duplicated series.
#pragma once

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "api_calls.hpp"
#include "reference.hpp"

namespace fctest {

inline bool tensor_cores_here() {
  int major = 0;
  return cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0) == cudaSuccess && major >= 8;
}

// Series on a circle of one plane: s_k = cos(phi_k) u + sin(phi_k) v (u, v centred, orthonormal),
// phi_k = k alpha + e_k with cos(alpha) = threshold and |e_k| <= 1e-6, so each pair of
// neighbours has r within ~1e-6 of the threshold; every third series is negated (r near
// -threshold). wide: u and v's elements spread over 4 decades, the rows' TF32 rounding then
// falls on a few large elements. A few series are duplicated (r = 1 up to rounding).
inline Dataset near_threshold_data(int64_t n, int64_t t, double threshold, bool wide, uint64_t seed) {
  Random rng(seed);
  std::vector<double> u(static_cast<size_t>(t)), v(static_cast<size_t>(t));
  for (int64_t k = 0; k < t; ++k) {
    const double scale_u = wide ? std::pow(10.0, rng.uniform(-2.0, 2.0)) : 1.0;
    const double scale_v = wide ? std::pow(10.0, rng.uniform(-2.0, 2.0)) : 1.0;
    u[k] = scale_u * rng.normal();
    v[k] = scale_v * rng.normal();
  }
  auto centre_unit = [&](std::vector<double>& w) {
    double mean = 0, ss = 0;
    for (double x : w) mean += x;
    mean /= double(t);
    for (double& x : w) {
      x -= mean;
      ss += x * x;
    }
    for (double& x : w) x /= std::sqrt(ss);
  };
  centre_unit(u);
  double dot = 0;
  for (int64_t k = 0; k < t; ++k) dot += u[k] * v[k];
  for (int64_t k = 0; k < t; ++k) v[k] -= dot * u[k];
  centre_unit(v);
  const double alpha = std::acos(threshold);
  Dataset d;
  d.n = n;
  d.t = t;
  d.x.resize(static_cast<size_t>(n * t));
  for (int64_t s = 0; s < n; ++s) {
    const double phi = double(s) * alpha + rng.uniform(-1e-6, 1e-6);
    const double sign = s % 3 == 2 ? -1.0 : 1.0;
    for (int64_t k = 0; k < t; ++k) d.at(s, k) = 100.0 + 10.0 * sign * (std::cos(phi) * u[k] + std::sin(phi) * v[k]);
  }
  for (int64_t s = 7; s + 5 < n; s += 50)
    for (int64_t k = 0; k < t; ++k) d.at(s + 5, k) = d.at(s, k);
  return d;
}

// Two constant series and a duplicate (r = 1 up to rounding, decided at |r| >= 1).
inline void add_constants_and_a_duplicate(Dataset& d) {
  make_constant(d, 1, 3.0);
  make_constant(d, d.n / 3, -2.0);
  for (int64_t k = 0; k < d.t; ++k) d.at(d.n - 1, k) = d.at(2, k);
}

// The shapes both tests run (N, T): N around the 128 x 128 tiles, T = 2 .. 4,000.
inline constexpr int64_t kTcOddSizes[][2] = {{2, 2},     {3, 3},      {7, 2},      {127, 9},   {129, 165},
                                             {257, 3},   {389, 1200}, {131, 4000}, {1031, 165}};

// near_threshold_data's cases: shapes, thresholds, and whether the rows' elements spread wide.
struct NearThresholdCase {
  int64_t n, t;
  double threshold;
  bool wide;
};
inline constexpr NearThresholdCase kNearThresholdCases[] = {
    {389, 3, 0.3, false},   {601, 165, 0.3, false}, {601, 165, 0.5, true},
    {257, 1200, 0.7, true}, {300, 4000, 0.3, true}, {131, 4000, 0.9, false}};

// fc_pcc_graph's symmetric CSR, copied out (the tests compare the paths' graphs with it).
struct GraphCsr {
  std::vector<int64_t> offsets, columns;
  std::vector<float> weights;
};
inline GraphCsr pcc_graph_csr(const Context& ctx, const Series& s, fc_edge_rule rule, double param, int weights) {
  GraphCsr c;
  fc_graph* g = nullptr;
  EXPECT_EQ(fc_pcc_graph(ctx.get(), s.get(), rule, param, weights, &g), FC_OK);
  if (g == nullptr) return c;
  int64_t nodes = 0, edges = 0;
  EXPECT_EQ(fc_graph_info(g, &nodes, &edges), FC_OK);
  c.offsets.resize(static_cast<size_t>(nodes + 1));
  c.columns.resize(static_cast<size_t>(2 * edges));
  c.weights.resize(static_cast<size_t>(2 * edges));
  EXPECT_EQ(fc_graph_csr(g, c.offsets.data(), c.columns.data(), c.weights.data(), 2 * edges), FC_OK);
  fc_graph_destroy(g);
  return c;
}

// Two paths' graphs: the same offsets, columns and weight bits, and not empty.
inline void expect_same_graph(const GraphCsr& a, const GraphCsr& b) {
  EXPECT_GT(a.columns.size(), 0u);
  EXPECT_EQ(b.offsets, a.offsets);
  EXPECT_EQ(b.columns, a.columns);
  ASSERT_EQ(b.weights.size(), a.weights.size());
  EXPECT_EQ(std::memcmp(b.weights.data(), a.weights.data(), a.weights.size() * sizeof(float)), 0);
}

}  // namespace fctest
