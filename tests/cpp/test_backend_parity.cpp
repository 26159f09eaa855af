// Backend parity: every operation of a backend against the CPU backend (the numerical reference
// implementation) and against the float64 reference, in every precision and constant policy.
// Instantiated for CPU (always runs: checks the harness and the CPU itself) and CUDA (skipped
// with the reason when fc_context_create(FC_BACKEND_CUDA) fails). Labelled `gpu` in CTest, so
// on the GPU machine: ctest -L gpu. Set FASTCONN_REQUIRE_CUDA=1 there to turn a missing CUDA
// backend into a failure instead of a skip.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>

#include "api_calls.hpp"
#include "backend_test.hpp"
#include "graph_reference.hpp"
#include "reference.hpp"

namespace {

using namespace fctest;

// TF32 keeps 10 mantissa bits of each factor: a product of unit vectors can be off by up to
// about 2 * 2^-10 when the rounding errors align (truncation makes them align), so 2.5e-3.
constexpr double kTf32Tolerance = 2.5e-3;

// Distance allowed from the float64 reference for a backend's output.
double tolerance_of(fc_backend backend, fc_precision precision, bool float_output) {
  if (precision == FC_PRECISION_TF32 && backend != FC_BACKEND_CPU) return kTf32Tolerance;
  return tolerance(precision, float_output);
}

const Mode kModes[] = {{FC_PRECISION_FP32, FC_CONSTANT_NAN}, {FC_PRECISION_FP64, FC_CONSTANT_NAN},
                       {FC_PRECISION_TF32, FC_CONSTANT_NAN}, {FC_PRECISION_FP32, FC_CONSTANT_ZERO},
                       {FC_PRECISION_FP64, FC_CONSTANT_ZERO}};

// A series set a (n series, constants at its ends and middle once n >= 13) and a cross
// partner b (37 series, one constant), with their float64 reference.
struct Case {
  int64_t n, m, t;
  Dataset a, b;
  std::vector<double> dense, cross;  // reference, NaN where a constant is involved

  Case(int64_t n_, int64_t t_) : n(n_), m(37), t(t_) {
    Dataset d = structured_data(n + m, t, 0xC0FFEEu + uint64_t(n) * 7u + uint64_t(t));
    if (n >= 13) {
      make_constant(d, 0, 0.1);
      make_constant(d, n / 2, 0.0);
      make_constant(d, n - 1, 7.0);
    }
    make_constant(d, n + 5, 0.1);
    a = subset(d, 0, n);
    b = subset(d, n, m);
    const Reference ra = normalize(a), rb = normalize(b);
    dense = reference_dense(ra);
    cross = reference_cross(ra, rb);
  }
  std::string name() const { return "N = " + std::to_string(n) + ", T = " + std::to_string(t); }
};

// Shapes: trivial ones, primes past the 256-row tiles, T from 2 to 1200.
const std::pair<int64_t, int64_t> kShapes[] = {{1, 165}, {2, 2}, {3, 3}, {13, 165}, {257, 1200}, {1009, 165}, {2053, 300}};

class BackendParity : public BackendTest {
 protected:
  void SetUp() override {
    BackendTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    const Context probe(GetParam());
    fc_backend chosen = FC_BACKEND_AUTO;
    ASSERT_EQ(fc_context_get_backend(probe.get(), &chosen), FC_OK) << fc_last_error();
    ASSERT_EQ(chosen, GetParam());
  }
  // A CPU context in `mode` (tested() makes one of the backend under test).
  static Context cpu(const Mode& mode) {
    Context c(FC_BACKEND_CPU);
    c.precision(mode.precision).policy(mode.policy);
    return c;
  }
  // Allowed distance between the backend and the CPU: both lie within their tolerance of the
  // float64 reference.
  double between(const Mode& mode, bool float_output) const {
    return tolerance_of(backend(), mode.precision, float_output) + tolerance(mode.precision, float_output);
  }
};

TEST_P(BackendParity, TriangleMatchesCpu) {
  for (auto [n, t] : kShapes) {
    const Case c(n, t);
    for (const Mode& mode : kModes) {
      SCOPED_TRACE(c.name() + ", " + mode_name(mode));
      const Context dev = tested(mode), host = cpu(mode);
      const Series a = make_series(dev, c.a), a_cpu = make_series(host, c.a);
      for (fc_triu_order order : {FC_TRIU_ROW, FC_TRIU_COL}) {
        SCOPED_TRACE(order == FC_TRIU_ROW ? "FC_TRIU_ROW" : "FC_TRIU_COL");
        const std::vector<double> expected = triangle_of(c.dense, n, order);
        const std::vector<float> got = pcc_triu(dev, a, order);
        EXPECT_TRUE(follows_policy(got, expected, mode.policy, tolerance_of(backend(), mode.precision, true))) << "fc_pcc_triu vs float64";
        EXPECT_TRUE(agree(got, pcc_triu(host, a_cpu, order), between(mode, true))) << "fc_pcc_triu vs CPU";
        const std::vector<double> got64 = pcc_triu_f64(dev, a, order);
        EXPECT_TRUE(follows_policy(got64, expected, mode.policy, tolerance_of(backend(), mode.precision, false))) << "fc_pcc_triu_f64 vs float64";
        EXPECT_TRUE(agree(got64, pcc_triu_f64(host, a_cpu, order), between(mode, false))) << "fc_pcc_triu_f64 vs CPU";
      }
    }
  }
}

TEST_P(BackendParity, DenseMatchesCpu) {
  for (auto [n, t] : kShapes) {
    const Case c(n, t);
    for (const Mode& mode : kModes) {
      SCOPED_TRACE(c.name() + ", " + mode_name(mode));
      const Context dev = tested(mode), host = cpu(mode);
      const Series a = make_series(dev, c.a), a_cpu = make_series(host, c.a);
      const int64_t ld = n + 2;
      const std::vector<float> got = pcc_dense(dev, a, ld);
      EXPECT_TRUE(follows_policy(got.data(), n, n, ld, c.dense, mode.policy, tolerance_of(backend(), mode.precision, true)));
      EXPECT_TRUE(agree(got, pcc_dense(host, a_cpu, ld), between(mode, true))) << "vs CPU (padding included)";
      for (int64_t i = 0; i < n; ++i)
        if (!std::isnan(c.dense[i * n + i])) {
          ASSERT_EQ(got[i * ld + i], 1.0f) << "diagonal " << i << " is not exactly 1";
        }
    }
  }
}

TEST_P(BackendParity, CrossMatchesCpu) {
  for (auto [n, t] : kShapes) {
    const Case c(n, t);
    for (const Mode& mode : kModes) {
      SCOPED_TRACE(c.name() + ", " + mode_name(mode));
      const Context dev = tested(mode), host = cpu(mode);
      const Series a = make_series(dev, c.a), b = make_series(dev, c.b);
      const Series a_cpu = make_series(host, c.a), b_cpu = make_series(host, c.b);
      const int64_t ld = c.m + 3;
      const std::vector<float> got = pcc_cross(dev, a, b, ld);
      EXPECT_TRUE(follows_policy(got.data(), n, c.m, ld, c.cross, mode.policy, tolerance_of(backend(), mode.precision, true)));
      EXPECT_TRUE(agree(got, pcc_cross(host, a_cpu, b_cpu, ld), between(mode, true))) << "vs CPU (padding included)";
      // b x a is the transpose of a x b.
      const std::vector<float> back = pcc_cross(dev, b, a, n);
      for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j < c.m; ++j)
          if (!std::isnan(got[i * ld + j])) {
            ASSERT_NEAR(back[j * n + i], got[i * ld + j], between(mode, true)) << "(" << i << ", " << j << ")";
          }
    }
  }
}

TEST_P(BackendParity, BlocksMatchCpuTriangle) {
  for (auto [n, t] : {std::pair<int64_t, int64_t>{2, 2}, {257, 1200}, {1009, 165}}) {
    const Case c(n, t);
    for (const Mode& mode : {kModes[0], kModes[1], kModes[4]}) {
      SCOPED_TRACE(c.name() + ", " + mode_name(mode));
      const Context dev = tested(mode), host = cpu(mode);
      const Series a = make_series(dev, c.a), a_cpu = make_series(host, c.a);
      const std::vector<float> cpu_triangle = pcc_triu(host, a_cpu, FC_TRIU_ROW);
      for (int64_t rows : {0, 7, 300}) {  // single-row blocks: test_blocks.cpp, on the CPU
        SCOPED_TRACE("rows per block " + std::to_string(rows));
        const BlockRun run = pull_blocks(dev, a, rows);
        int64_t offset = 0;
        for (const fc_block_info& info : run.infos) {
          ASSERT_EQ(info.triu_offset, offset) << "blocks are not contiguous";
          offset += info.count;
        }
        EXPECT_EQ(offset, fc_triu_size(n)) << "blocks do not cover the triangle";
        EXPECT_TRUE(agree(run.values, cpu_triangle, between(mode, true)));
        EXPECT_TRUE(agree(run.values, pcc_triu(dev, a, FC_TRIU_ROW), tolerance_of(backend(), mode.precision, true)))
            << "blocks vs this backend's own fc_pcc_triu";
      }
    }
  }
}

// A memory limit small enough to force many tiles on any backend (64 rows of float64 scratch).
TEST_P(BackendParity, SmallMemoryLimitMatchesCpu) {
  const Case c(2053, 300);
  for (const Mode& mode : {kModes[0], kModes[1], kModes[3]}) {
    SCOPED_TRACE(mode_name(mode));
    const Context dev = tested(mode, 64 * c.n * 8), host = cpu(mode);
    const Series a = make_series(dev, c.a), b = make_series(dev, c.b);
    const Series a_cpu = make_series(host, c.a), b_cpu = make_series(host, c.b);
    for (fc_triu_order order : {FC_TRIU_ROW, FC_TRIU_COL})
      EXPECT_TRUE(agree(pcc_triu(dev, a, order), pcc_triu(host, a_cpu, order), between(mode, true))) << "order " << order;
    EXPECT_TRUE(agree(pcc_triu_f64(dev, a, FC_TRIU_COL), pcc_triu_f64(host, a_cpu, FC_TRIU_COL), between(mode, false)));
    EXPECT_TRUE(agree(pcc_dense(dev, a, c.n), pcc_dense(host, a_cpu, c.n), between(mode, true))) << "fc_pcc_dense";
    EXPECT_TRUE(agree(pcc_cross(dev, a, b, c.m), pcc_cross(host, a_cpu, b_cpu, c.m), between(mode, true))) << "fc_pcc_cross";
    EXPECT_TRUE(follows_policy(pcc_triu(dev, a, FC_TRIU_ROW), triangle_of(c.dense, c.n, FC_TRIU_ROW), mode.policy,
                               tolerance_of(backend(), mode.precision, true)));
  }
}

// One answer per pair (issue 12): a pair's r is the same bits from every entry point (row- and
// column-order triangles, blocks of any height, the dense matrix on both sides of the diagonal,
// the cross product of a set with itself, the weighted graph) and under any memory limit. TF32
// is left out: cuBLAS's tensor cores choose their order from the shape (documented).
TEST_P(BackendParity, OneAnswerPerPairFromEveryCallAndLimit) {
  for (const auto& shape : {std::pair<int64_t, int64_t>{3, 2}, {389, 75}, {1031, 300}}) {
    const int64_t n = shape.first;  // a plain variable: lambdas below capture it (C++17)
    const Case c(n, shape.second);
    for (const Mode& mode : {kModes[0], kModes[4]}) {
      SCOPED_TRACE(c.name() + ", " + mode_name(mode));
      const Context dev = tested(mode);
      const Series a = make_series(dev, c.a);
      const std::vector<float> row = pcc_triu(dev, a, FC_TRIU_ROW);
      auto at = [&](int64_t i, int64_t j) { return row[static_cast<size_t>(fc_triu_offset(n, FC_TRIU_ROW, std::min(i, j), std::max(i, j)))]; };
      auto same_as_row = [&](const std::vector<float>& values, fc_triu_order order) {
        std::vector<float> mapped(values.size());
        for (int64_t p = 0; p < int64_t(values.size()); ++p) {
          int64_t i = -1, j = -1;
          check(fc_triu_pair(n, order, p, &i, &j), "fc_triu_pair");
          mapped[static_cast<size_t>(fc_triu_offset(n, FC_TRIU_ROW, i, j))] = values[static_cast<size_t>(p)];
        }
        return bit_identical(mapped, row);
      };
      auto matrix_is_row = [&](const std::vector<float>& m, int64_t ld) {
        std::vector<float> upper, lower;
        for (int64_t i = 0; i < n; ++i)
          for (int64_t j = i + 1; j < n; ++j) {
            upper.push_back(m[static_cast<size_t>(i * ld + j)]);
            lower.push_back(m[static_cast<size_t>(j * ld + i)]);
          }
        return bit_identical(upper, row) && bit_identical(lower, row);
      };
      EXPECT_TRUE(same_as_row(pcc_triu(dev, a, FC_TRIU_COL), FC_TRIU_COL)) << "column order";
      for (int64_t rows : {int64_t(n <= 389 ? 1 : 2), int64_t(7), int64_t(300)})
        EXPECT_TRUE(bit_identical(pull_blocks(dev, a, rows).values, row)) << "blocks of " << rows;
      EXPECT_TRUE(matrix_is_row(pcc_dense(dev, a, n + 3), n + 3)) << "fc_pcc_dense";
      EXPECT_TRUE(matrix_is_row(pcc_cross(dev, a, a, n), n)) << "fc_pcc_cross(s, s)";
      const Csr g = pcc_graph(dev, a, FC_EDGE_ABS_THRESHOLD, 0.3, FC_GRAPH_WEIGHTED);
      int64_t mismatched = 0;
      for (int64_t i = 0; i < n; ++i)
        for (int64_t e = g.offsets[size_t(i)]; e < g.offsets[size_t(i + 1)]; ++e)
          mismatched += g.weights[size_t(e)] != at(i, g.columns[size_t(e)]);
      EXPECT_EQ(mismatched, 0) << "graph weights that are not the triangle's r";
      // degree (the fused kernel on the CUDA backend in FP32) counts exactly the triangle's edges
      std::vector<int64_t> degree(static_cast<size_t>(n), -1), expected(static_cast<size_t>(n), 0);
      check(fc_pcc_degree(dev.get(), a.get(), FC_EDGE_ABS_THRESHOLD, 0.3, degree.data(), nullptr), "fc_pcc_degree");
      for (int64_t i = 0; i < n; ++i)
        for (int64_t j = i + 1; j < n; ++j)
          if (std::fabs(at(i, j)) >= 0.3f) ++expected[size_t(i)], ++expected[size_t(j)];
      EXPECT_EQ(degree, expected);
      for (int64_t limit : {int64_t(64) * n * 8, int64_t(3) * n * 8 + 4096}) {
        SCOPED_TRACE("memory limit " + std::to_string(limit));
        const Context small = tested(mode, limit);
        const Series as = make_series(small, c.a);
        EXPECT_TRUE(bit_identical(pcc_triu(small, as, FC_TRIU_ROW), row));
        EXPECT_TRUE(same_as_row(pcc_triu(small, as, FC_TRIU_COL), FC_TRIU_COL)) << "column order";
        EXPECT_TRUE(matrix_is_row(pcc_dense(small, as, n), n)) << "fc_pcc_dense";
      }
    }
  }
}

// The float64 outputs (issue 12): fc_pcc_dense_f64, fc_pcc_cross_f64 and fc_blocks_next_f64 give
// the pairs of their float twins, widened bit for bit in FP32, and fc_pcc_triu_f64's bits in
// FP64 (one answer per pair), within the FP64 contract of the float64 reference.
TEST_P(BackendParity, Float64OutputsOfDenseCrossAndBlocks) {
  for (const auto& shape : {std::pair<int64_t, int64_t>{2, 2}, {389, 75}}) {
    const int64_t n = shape.first;
    const Case c(n, shape.second);
    for (const Mode& mode : {kModes[0], kModes[1], kModes[4]}) {
      SCOPED_TRACE(c.name() + ", " + mode_name(mode));
      const Context dev = tested(mode);
      const Series a = make_series(dev, c.a), b = make_series(dev, c.b);
      const int64_t ld = n + 3;
      std::vector<double> dense(static_cast<size_t>(n * ld), -9.0), cross(static_cast<size_t>(n * c.m), -9.0);
      check(fc_pcc_dense_f64(dev.get(), a.get(), dense.data(), ld), "fc_pcc_dense_f64");
      check(fc_pcc_cross_f64(dev.get(), a.get(), b.get(), cross.data(), c.m), "fc_pcc_cross_f64");
      std::vector<double> blocks;
      fc_blocks* it = nullptr;
      check(fc_pcc_blocks_begin(dev.get(), a.get(), 7, &it), "fc_pcc_blocks_begin");
      int64_t max_count = 0;
      check(fc_blocks_max_count(it, &max_count), "fc_blocks_max_count");
      std::vector<double> buf(static_cast<size_t>(std::max<int64_t>(1, max_count)));
      fc_block_info info;
      while (fc_blocks_next_f64(it, buf.data(), max_count, &info) == FC_OK) blocks.insert(blocks.end(), buf.begin(), buf.begin() + info.count);
      fc_blocks_destroy(it);
      if (mode.precision == FC_PRECISION_FP32) {  // the float calls' values, widened
        auto widened = [](const std::vector<float>& v) { return std::vector<double>(v.begin(), v.end()); };
        auto square = [&](const auto& m) {  // the n x n values, without the padding past n in each row
          std::vector<double> v;
          for (int64_t i = 0; i < n; ++i) v.insert(v.end(), m.begin() + i * ld, m.begin() + i * ld + n);
          return v;
        };
        EXPECT_TRUE(bit_identical(square(dense), square(widened(pcc_dense(dev, a, ld))))) << "fc_pcc_dense_f64";
        EXPECT_TRUE(bit_identical(cross, widened(pcc_cross(dev, a, b, c.m)))) << "fc_pcc_cross_f64";
        EXPECT_TRUE(bit_identical(blocks, widened(pcc_triu(dev, a, FC_TRIU_ROW)))) << "fc_blocks_next_f64";
      } else {  // FP64: fc_pcc_triu_f64's bits, and the reference within the contract
        const std::vector<double> row = pcc_triu_f64(dev, a, FC_TRIU_ROW);
        EXPECT_TRUE(bit_identical(blocks, row)) << "fc_blocks_next_f64";
        std::vector<double> upper;
        for (int64_t i = 0; i < n; ++i)
          for (int64_t j = i + 1; j < n; ++j) {
            upper.push_back(dense[static_cast<size_t>(i * ld + j)]);
            EXPECT_EQ(std::memcmp(&dense[static_cast<size_t>(i * ld + j)], &dense[static_cast<size_t>(j * ld + i)], sizeof(double)), 0)
                << "not symmetric at " << i << ", " << j;
          }
        EXPECT_TRUE(bit_identical(upper, row)) << "fc_pcc_dense_f64's upper triangle";
        EXPECT_TRUE(follows_policy(dense.data(), n, n, ld, c.dense, mode.policy, tolerance(mode.precision, false)));
        EXPECT_TRUE(follows_policy(cross.data(), n, c.m, c.m, c.cross, mode.policy, tolerance(mode.precision, false)));
      }
    }
  }
}

TEST_P(BackendParity, RerunsAreBitIdentical) {
  const Case c(1009, 1200);
  for (const Mode& mode : {kModes[0], kModes[1], kModes[2]}) {
    SCOPED_TRACE(mode_name(mode));
    const Context dev = tested(mode);
    const Series a = make_series(dev, c.a), b = make_series(dev, c.b);
    EXPECT_TRUE(bit_identical(pcc_triu(dev, a, FC_TRIU_ROW), pcc_triu(dev, a, FC_TRIU_ROW)));
    EXPECT_TRUE(bit_identical(pcc_triu_f64(dev, a, FC_TRIU_COL), pcc_triu_f64(dev, a, FC_TRIU_COL)));
    EXPECT_TRUE(bit_identical(pcc_dense(dev, a, c.n), pcc_dense(dev, a, c.n)));
    EXPECT_TRUE(bit_identical(pcc_cross(dev, a, b, c.m), pcc_cross(dev, a, b, c.m)));
    const Context again = tested(mode);
    const Series a2 = make_series(again, c.a);
    EXPECT_TRUE(bit_identical(pcc_triu(again, a2, FC_TRIU_ROW), pcc_triu(dev, a, FC_TRIU_ROW))) << "a fresh context";
  }
}

TEST_P(BackendParity, LayoutsAreBitIdentical) {
  const Case c(257, 165);
  const Dataset af = rounded_to_float(c.a);
  const Context dev = tested(kModes[0]);
  const std::vector<float> base = pcc_triu(dev, make_series(dev, af), FC_TRIU_ROW);
  for (Layout layout : {Layout::TimeMajor, Layout::SeriesMajorPadded, Layout::TimeMajorPadded})
    for (Input input : {Input::F32, Input::F64})
      EXPECT_TRUE(bit_identical(pcc_triu(dev, make_series(dev, af, layout, input), FC_TRIU_ROW), base))
          << layout_name(layout) << (input == Input::F32 ? ", float input" : ", double input");
}

TEST_P(BackendParity, SeriesInfoMatchesCpu) {
  const Case c(257, 165);
  const Context dev = tested(kModes[0]), host = cpu(kModes[0]);
  const Series a = make_series(dev, c.a), a_cpu = make_series(host, c.a);
  int64_t n = 0, t = 0, k = 0;
  ASSERT_EQ(fc_series_info(a.get(), &n, &t, &k), FC_OK) << fc_last_error();
  EXPECT_EQ(n, c.n);
  EXPECT_EQ(t, c.t);
  EXPECT_EQ(k, 3);
  EXPECT_EQ(k, a_cpu.n_constant());
  for (int64_t s = 0; s < c.n; ++s) {
    int x = -1, y = -1;
    ASSERT_EQ(fc_series_is_constant(a.get(), s, &x), FC_OK) << fc_last_error();
    ASSERT_EQ(fc_series_is_constant(a_cpu.get(), s, &y), FC_OK) << fc_last_error();
    EXPECT_EQ(x, y) << "series " << s;
  }
  // Non-finite input is refused the same way on every backend.
  Dataset bad = c.a;
  bad.at(17, 3) = std::nan("");
  fc_series* s = nullptr;
  const Strided<double> in = to_layout<double>(bad, Layout::SeriesMajor);
  EXPECT_EQ(fc_series_create_f64(dev.get(), in.buffer.data(), bad.n, bad.t, in.series_stride, in.time_stride, &s),
            FC_ERR_NONFINITE_INPUT);
  EXPECT_NE(std::string(fc_last_error()).find("17"), std::string::npos) << "names the series: " << fc_last_error();
}

int log_progress(int64_t done, int64_t total, void* user) {
  static_cast<std::vector<std::pair<int64_t, int64_t>>*>(user)->emplace_back(done, total);
  return 0;
}
int cancel_at_first(int64_t, int64_t, void* user) {
  ++*static_cast<int*>(user);
  return 1;
}

TEST_P(BackendParity, ProgressReachesTotalAndCancels) {
  const Case c(1009, 165);
  Context dev = tested(kModes[0], 16 * c.n * 8);
  const Series a = make_series(dev, c.a);
  std::vector<std::pair<int64_t, int64_t>> log;
  dev.progress(log_progress, &log);
  std::vector<float> out(static_cast<size_t>(fc_triu_size(c.n)));
  ASSERT_EQ(fc_pcc_triu(dev.get(), a.get(), FC_TRIU_COL, out.data(), static_cast<int64_t>(out.size())), FC_OK) << fc_last_error();
  ASSERT_FALSE(log.empty()) << "no progress reported";
  for (size_t k = 1; k < log.size(); ++k) EXPECT_GE(log[k].first, log[k - 1].first) << "done decreased at report " << k;
  for (const auto& [done, total] : log) EXPECT_EQ(total, fc_triu_size(c.n));
  EXPECT_EQ(log.back().first, fc_triu_size(c.n)) << "the last report is not the total";

  int calls = 0;
  dev.progress(cancel_at_first, &calls);
  EXPECT_EQ(fc_pcc_triu(dev.get(), a.get(), FC_TRIU_ROW, out.data(), static_cast<int64_t>(out.size())), FC_ERR_ABORTED);
  EXPECT_EQ(calls, 1) << "reports after the cancel";
}

// Series belong to the backend of the context that made them.
TEST_P(BackendParity, SeriesFromAnotherContextAreRejected) {
  if (backend() == FC_BACKEND_CPU) GTEST_SKIP() << "needs two different backends";
  const Case c(13, 20);
  const Context dev = tested(kModes[0]), host = cpu(kModes[0]);
  const Series a_cpu = make_series(host, c.a);
  std::vector<float> out(static_cast<size_t>(fc_triu_size(c.n)));
  EXPECT_EQ(fc_pcc_triu(dev.get(), a_cpu.get(), FC_TRIU_ROW, out.data(), static_cast<int64_t>(out.size())), FC_ERR_INVALID_ARG);
}

// A size worth running only on a GPU machine: compared with the CPU alone (the CPU's accuracy
// is what the rest of tests/cpp establishes; a float64 reference would take minutes here).
TEST_P(BackendParity, LargeTriangleMatchesCpu) {
  if (backend() == FC_BACKEND_CPU) GTEST_SKIP() << "CPU against itself at this size proves nothing";
  const int64_t n = 4099, t = 1200;
  const Dataset d = structured_data(n, t, 4099u);
  for (const Mode& mode : {kModes[0], kModes[1], kModes[2]}) {
    SCOPED_TRACE(mode_name(mode));
    const Context dev = tested(mode), host = cpu(mode);
    const Series a = make_series(dev, d), a_cpu = make_series(host, d);
    EXPECT_TRUE(agree(pcc_triu(dev, a, FC_TRIU_ROW), pcc_triu(host, a_cpu, FC_TRIU_ROW), between(mode, true)));
    EXPECT_TRUE(agree(pcc_dense(dev, a, n), pcc_dense(host, a_cpu, n), between(mode, true)));
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, BackendParity, ::testing::Values(FC_BACKEND_CPU, FC_BACKEND_CUDA),
                         [](const ::testing::TestParamInfo<fc_backend>& p) { return std::string(backend_name(p.param)); });

}  // namespace
