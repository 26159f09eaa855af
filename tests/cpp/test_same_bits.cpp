// Issue 30: in FP32 and FP64 modes the CUDA backend and the CPU backend give the same bits for
// every correlation call: triangle (both orders, float and double outputs), dense, cross, every
// graph rule (edges and weights), degree counts, windows (rectangular and tapered: normalized on
// each backend in the same order, kernels/window_normalize.cu and cpu_window.cpp) and the
// all-windows triangle and degree. Both compute each pair as one fma chain over k from the same
// normalized rows (pair_kernels.hpp, kernels/pair_tile.cuh). Strength is a sum over a series'
// edges in each backend's own fixed order and is compared to 1e-12 relative. Fast ECM
// (centrality and eigenvalue): every product and vector operation in the host's order
// (centrality_backend.hpp's gram_space, kernels/eigen_space.cu).
//
// Labelled `gpu`: the CUDA instantiation runs on the GPU machine (skipped without a device); the
// CPU one compares the CPU with itself and is skipped.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "api_calls.hpp"
#include "backend_test.hpp"
#include "graph_reference.hpp"
#include "reference.hpp"

namespace {

using namespace fctest;

template <class T>
::testing::AssertionResult same_bits(const std::vector<T>& a, const std::vector<T>& b, const char* what) {
  if (a.size() != b.size()) return ::testing::AssertionFailure() << what << ": sizes " << a.size() << " vs " << b.size();
  int64_t differ = 0, first = -1;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::memcmp(&a[i], &b[i], sizeof(T)) != 0 && differ++ == 0) first = static_cast<int64_t>(i);
  if (differ == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << what << ": " << differ << " of " << a.size() << " values differ, first at " << first
                                       << " (" << double(a[size_t(first)]) << " vs " << double(b[size_t(first)]) << ")";
}

::testing::AssertionResult same_graph(const Csr& a, const Csr& b, const char* what) {
  if (a.n_edges != b.n_edges) return ::testing::AssertionFailure() << what << ": " << a.n_edges << " vs " << b.n_edges << " edges";
  auto r = same_bits(a.offsets, b.offsets, what);
  if (r) r = same_bits(a.columns, b.columns, what);
  if (r) r = same_bits(a.weights, b.weights, what);
  return r;
}

::testing::AssertionResult same_degree(const DegreeOut& a, const DegreeOut& b) {
  auto r = same_bits(a.degree, b.degree, "degree");
  if (!r) return r;
  for (size_t i = 0; i < a.strength.size(); ++i)
    if (!(std::fabs(a.strength[i] - b.strength[i]) <= 1e-12 * std::max(1.0, std::fabs(a.strength[i]))))
      return ::testing::AssertionFailure() << "strength of " << i << ": " << a.strength[i] << " vs " << b.strength[i];
  return ::testing::AssertionSuccess();
}

Series window_of(const Context& ctx, const Series& s, int64_t begin, int64_t length, int taper) {
  fc_series* w = nullptr;
  check(fc_series_window(ctx.get(), s.get(), begin, length, taper, 4.0, &w), "fc_series_window");
  return Series(w);
}

std::vector<float> dfc_triu(const Context& ctx, const Series& s, int64_t length, int64_t step, int taper) {
  const int64_t n = s.n_series(), t = [&] {
    int64_t v = 0;
    check(fc_series_info(s.get(), nullptr, &v, nullptr), "fc_series_info");
    return v;
  }();
  const int64_t windows = (t - length) / step + 1;
  std::vector<float> out(static_cast<size_t>(windows * triu_size(n)), kSentinel);
  float dummy = kSentinel;
  check(fc_dfc_triu(ctx.get(), s.get(), length, step, taper, 4.0, FC_TRIU_ROW, out.empty() ? &dummy : out.data(),
                    static_cast<int64_t>(out.size())),
        "fc_dfc_triu");
  return out;
}

// Fast ECM's centrality with its eigenvalue appended (the eigensolve on the device on CUDA).
std::vector<double> pcc_ecm(const Context& ctx, const Series& s, int64_t n) {
  std::vector<double> c(static_cast<size_t>(n + 1), -7.0);
  check(fc_pcc_ecm(ctx.get(), s.get(), 0, c.data(), n, &c[static_cast<size_t>(n)]), "fc_pcc_ecm");
  return c;
}

class SameBits : public BackendTest {
 protected:
  void SetUp() override {
    BackendTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    if (backend() == FC_BACKEND_CPU) GTEST_SKIP() << "the CPU against itself proves nothing here";
  }
  // Every call on a CUDA and a CPU context of one mode, compared bit for bit.
  void compare_all(const Dataset& d, const Mode& mode, bool windows) {
    const Context dev = tested(mode);
    Context host(FC_BACKEND_CPU);
    host.precision(mode.precision).policy(mode.policy);
    const Series a = make_series(dev, d), a_cpu = make_series(host, d);
    const int64_t n = d.n;
    for (fc_triu_order order : {FC_TRIU_ROW, FC_TRIU_COL}) {
      EXPECT_TRUE(same_bits(pcc_triu(dev, a, order), pcc_triu(host, a_cpu, order), "fc_pcc_triu"));
      EXPECT_TRUE(same_bits(pcc_triu_f64(dev, a, order), pcc_triu_f64(host, a_cpu, order), "fc_pcc_triu_f64"));
    }
    if (n <= 4096) {
      EXPECT_TRUE(same_bits(pcc_dense(dev, a, n + 3), pcc_dense(host, a_cpu, n + 3), "fc_pcc_dense"));
    }
    EXPECT_TRUE(same_bits(pcc_ecm(dev, a, n), pcc_ecm(host, a_cpu, n), "fc_pcc_ecm"));
    {
      const Dataset part = subset(d, 0, std::min<int64_t>(n, 37));
      const Series b = make_series(dev, part), b_cpu = make_series(host, part);
      EXPECT_TRUE(same_bits(pcc_cross(dev, a, b, part.n), pcc_cross(host, a_cpu, b_cpu, part.n), "fc_pcc_cross"));
    }
    struct Rule {
      fc_edge_rule rule;
      double param;
    };
    for (const Rule& r : {Rule{FC_EDGE_ABS_THRESHOLD, 0.3}, Rule{FC_EDGE_THRESHOLD, 0.25}, Rule{FC_EDGE_DENSITY, 0.01},
                          Rule{FC_EDGE_TOP_K, 5}}) {
      SCOPED_TRACE("rule " + std::to_string(int(r.rule)));
      EXPECT_TRUE(same_graph(pcc_graph(dev, a, r.rule, r.param, 1), pcc_graph(host, a_cpu, r.rule, r.param, 1), "fc_pcc_graph"));
      EXPECT_TRUE(same_degree(pcc_degree(dev, a, r.rule, r.param), pcc_degree(host, a_cpu, r.rule, r.param)));
    }
    if (!windows) return;
    for (int taper : {FC_TAPER_RECTANGULAR, FC_TAPER_GAUSSIAN}) {
      SCOPED_TRACE("taper " + std::to_string(taper));
      const int64_t length = std::min<int64_t>(d.t, 45), begin = d.t - length;
      const Series w = window_of(dev, a, begin, length, taper), w_cpu = window_of(host, a_cpu, begin, length, taper);
      EXPECT_EQ(w.n_constant(), w_cpu.n_constant());
      EXPECT_TRUE(same_bits(pcc_triu(dev, w, FC_TRIU_ROW), pcc_triu(host, w_cpu, FC_TRIU_ROW), "window triangle"));
      EXPECT_TRUE(same_graph(pcc_graph(dev, w, FC_EDGE_ABS_THRESHOLD, 0.4, 1), pcc_graph(host, w_cpu, FC_EDGE_ABS_THRESHOLD, 0.4, 1),
                             "window graph"));
      const int64_t step = std::max<int64_t>(1, (d.t - length) / 3 + 1);
      EXPECT_TRUE(same_bits(dfc_triu(dev, a, length, step, taper), dfc_triu(host, a_cpu, length, step, taper), "fc_dfc_triu"));
      const int64_t windows_count = (d.t - length) / step + 1;
      std::vector<int64_t> deg(size_t(windows_count * n), -1), deg_cpu(deg.size(), -2);
      check(fc_dfc_degree(dev.get(), a.get(), length, step, taper, 4.0, FC_EDGE_ABS_THRESHOLD, 0.4, deg.data(), nullptr),
            "fc_dfc_degree");
      check(fc_dfc_degree(host.get(), a_cpu.get(), length, step, taper, 4.0, FC_EDGE_ABS_THRESHOLD, 0.4, deg_cpu.data(), nullptr),
            "fc_dfc_degree");
      EXPECT_TRUE(same_bits(deg, deg_cpu, "fc_dfc_degree"));
    }
  }
};

const Mode kExactModes[] = {{FC_PRECISION_FP32, FC_CONSTANT_NAN}, {FC_PRECISION_FP64, FC_CONSTANT_NAN},
                            {FC_PRECISION_FP32, FC_CONSTANT_ZERO}};

// Odd shapes: trivial, primes past the tiles of both backends, T from 2 (not a multiple of 8) to
// 1200, with constant series.
TEST_P(SameBits, EveryCallOnOddShapes) {
  const std::pair<int64_t, int64_t> shapes[] = {{1, 165}, {2, 2}, {3, 3}, {13, 165}, {257, 1200}, {1009, 165}, {2053, 301}};
  for (auto [n, t] : shapes) {
    Dataset d = structured_data(n, t, 0x5EEDu + uint64_t(n) * 3u + uint64_t(t));
    if (n >= 13) {
      make_constant(d, 0, 0.1);
      make_constant(d, n / 2, 0.0);
    }
    for (const Mode& mode : kExactModes) {
      SCOPED_TRACE("N = " + std::to_string(n) + ", T = " + std::to_string(t) + ", " + mode_name(mode));
      compare_all(d, mode, t >= 3);
    }
  }
}

// The size of a voxel study's masked scan, as the issue asks: 20,000 x 165.
TEST_P(SameBits, EveryCallAt20000By165) {
  const Dataset d = structured_data(20000, 165, 20000u);
  for (const Mode& mode : {kExactModes[0], kExactModes[1]}) {
    SCOPED_TRACE(mode_name(mode));
    compare_all(d, mode, false);
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, SameBits, ::testing::Values(FC_BACKEND_CPU, FC_BACKEND_CUDA),
                         [](const ::testing::TestParamInfo<fc_backend>& p) { return std::string(backend_name(p.param)); });

}  // namespace
