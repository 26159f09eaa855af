// fc_partial_correlation / fc_partial_correlation_triu on a CUDA context (cuBLAS Dsyrk, cuSOLVER
// Dpotrf + Dpotri on the device: backend/cuda/cuda_partial.cpp) against a CPU context (LAPACK on
// the host) on the same data: the header's promise, |difference| <= 1e-14 x kappa_1(S) (the
// shrunk matrix's 1-norm condition number) for every value, the intensity to 1e-12 relative;
// on odd sizes, N > T, FP32 and FP64 contexts, Ledoit-Wolf and given intensities, windows. And
// checks that need no CPU: P S = I for the precision, the triangle equal to the dense matrix, the
// same bits run after run and under a memory limit; the same errors as the CPU (constant series,
// a matrix that is not positive definite, a memory limit too small, bad arguments), with the
// caller's buffers untouched.
//
// Skips when no CUDA context can be made; FASTCONN_REQUIRE_CUDA=1 makes that a failure.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "api_calls.hpp"
#include "reference.hpp"
#include "require_cuda.hpp"

namespace {

using namespace fctest;

constexpr double kUntouched = -7.0;

struct Result {
  fc_status status = FC_OK;
  std::string error;
  std::vector<double> dense;  // n x n, ld n
  double used = kUntouched;
};

Context make_context(fc_backend backend, fc_precision precision, int64_t memory_limit = 0) {
  Context c(backend);
  check(fc_context_set_precision(c.get(), precision), "fc_context_set_precision");
  check(fc_context_set_memory_limit(c.get(), memory_limit), "fc_context_set_memory_limit");
  return c;
}

Series upload(const Context& c, const Dataset& d, fc_precision precision) {
  // FP32 contexts get the data as float input (exactly what both backends then store).
  return precision == FC_PRECISION_FP64 ? make_series(c, d) : make_series(c, rounded_to_float(d), Layout::SeriesMajor, Input::F32);
}

Result run_dense(const Context& c, const Series& s, double shrinkage, int output) {
  Result r;
  const int64_t n = s.n_series();
  r.dense.assign(static_cast<size_t>(n * n), kUntouched);
  r.status = fc_partial_correlation(c.get(), s.get(), shrinkage, output, r.dense.data(), n, &r.used);
  if (r.status != FC_OK) r.error = fc_last_error();
  return r;
}

// kappa_1(S) = ||S||_1 ||P||_1 with S rebuilt from the precision's inverse's definition: S is
// (1 - a) R + a mu I, R from the float64 reference of the stored rows (what both backends read).
std::vector<double> shrunk_matrix(const Dataset& d, double a) {
  const Reference ref = normalize(d);
  const int64_t n = d.n, t = d.t;
  std::vector<double> s(static_cast<size_t>(n * n));
  double trace = 0.0;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) {
      long double sum = 0.0L;
      for (int64_t k = 0; k < t; ++k) sum += static_cast<long double>(ref.z[i * t + k]) * ref.z[j * t + k];
      s[i * n + j] = static_cast<double>(sum);
    }
  for (int64_t i = 0; i < n; ++i) trace += s[i * n + i];
  for (double& v : s) v *= (1.0 - a);
  for (int64_t i = 0; i < n; ++i) s[i * n + i] += a * trace / static_cast<double>(n);
  return s;
}

double norm1(const std::vector<double>& m, int64_t n) {
  double top = 0.0;
  for (int64_t j = 0; j < n; ++j) {
    double col = 0.0;
    for (int64_t i = 0; i < n; ++i) col += std::fabs(m[i * n + j]);
    top = std::max(top, col);
  }
  return top;
}

double max_abs_diff(const std::vector<double>& a, const std::vector<double>& b) {
  double d = 0.0;
  for (size_t i = 0; i < a.size(); ++i) d = std::max(d, std::fabs(a[i] - b[i]));
  return d;
}

struct Case {
  int64_t n, t;
  double shrinkage;
  fc_precision precision;
};

std::string name_of(const Case& k) {
  return std::to_string(k.n) + "x" + std::to_string(k.t) + (k.precision == FC_PRECISION_FP64 ? " FP64" : " FP32") +
         " shrinkage " + std::to_string(k.shrinkage);
}

const std::vector<Case>& cases() {
  static const std::vector<Case> all = {
      {1, 12, FC_SHRINKAGE_LEDOIT_WOLF, FC_PRECISION_FP64}, {2, 9, FC_SHRINKAGE_LEDOIT_WOLF, FC_PRECISION_FP64},
      {3, 5, 0.0, FC_PRECISION_FP64},                        {7, 40, 0.25, FC_PRECISION_FP32},
      {31, 200, FC_SHRINKAGE_LEDOIT_WOLF, FC_PRECISION_FP64}, {31, 200, FC_SHRINKAGE_LEDOIT_WOLF, FC_PRECISION_FP32},
      {97, 300, 0.0, FC_PRECISION_FP64},                      {257, 60, FC_SHRINKAGE_LEDOIT_WOLF, FC_PRECISION_FP64},
      {257, 60, 0.1, FC_PRECISION_FP32},                      {521, 1200, FC_SHRINKAGE_LEDOIT_WOLF, FC_PRECISION_FP64},
  };
  return all;
}

TEST(CudaPartial, MatchesCpuWithinConditionBound) {
  REQUIRE_CUDA();
  double worst = 0.0;  // largest |difference| / kappa_1 seen, printed for the results file
  for (const Case& k : cases()) {
    SCOPED_TRACE(name_of(k));
    const Dataset d = structured_data(k.n, k.t, 100 + static_cast<uint64_t>(k.n));
    const Context cpu = make_context(FC_BACKEND_CPU, k.precision), gpu = make_context(FC_BACKEND_CUDA, k.precision);
    const Series sc = upload(cpu, d, k.precision), sg = upload(gpu, d, k.precision);
    // kappa_1(S) from the CPU's precision and S of the float64 reference of the stored rows.
    const Result p = run_dense(cpu, sc, k.shrinkage, FC_PARTIAL_PRECISION);
    ASSERT_EQ(p.status, FC_OK) << p.error;
    const int64_t n = k.n;
    const double kappa =
        norm1(shrunk_matrix(k.precision == FC_PRECISION_FP64 ? d : rounded_to_float(d), p.used), n) * norm1(p.dense, n);
    for (int output : {FC_PARTIAL_CORRELATION, FC_PARTIAL_PRECISION}) {
      const Result a = run_dense(cpu, sc, k.shrinkage, output), b = run_dense(gpu, sg, k.shrinkage, output);
      ASSERT_EQ(a.status, FC_OK) << a.error;
      ASSERT_EQ(b.status, FC_OK) << b.error;
      EXPECT_NEAR(b.used, a.used, 1e-12 * std::max(1.0, std::fabs(a.used)));
      if (k.shrinkage != FC_SHRINKAGE_LEDOIT_WOLF) {
        EXPECT_EQ(b.used, k.shrinkage);
      }
      double scale = 1.0;  // the precision's values are compared relative to its largest
      if (output == FC_PARTIAL_PRECISION)
        for (double v : a.dense) scale = std::max(scale, std::fabs(v));
      const double diff = max_abs_diff(a.dense, b.dense) / scale;
      EXPECT_LE(diff, 1e-14 * kappa) << "kappa_1 " << kappa;
      worst = std::max(worst, diff / kappa);
      for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j < n; ++j) {
          ASSERT_EQ(b.dense[i * n + j], b.dense[j * n + i]) << i << "," << j;  // mirrored: the same bits
          ASSERT_TRUE(std::isfinite(b.dense[i * n + j]));
        }
      if (output == FC_PARTIAL_CORRELATION) {
        for (int64_t i = 0; i < n; ++i) ASSERT_EQ(b.dense[i * n + i], 1.0);
      }
    }
  }
  std::printf("[ partial ] worst CUDA vs CPU |difference| / kappa_1(S): %.3g\n", worst);
}

// Independent of the CPU: the CUDA precision times S (float64 reference) is the identity, to
// S's conditioning.
TEST(CudaPartial, PrecisionInvertsTheShrunkMatrix) {
  REQUIRE_CUDA();
  for (const Case& k : {Case{61, 150, FC_SHRINKAGE_LEDOIT_WOLF, FC_PRECISION_FP64}, Case{5, 7, 0.0, FC_PRECISION_FP64},
                        Case{130, 40, 0.3, FC_PRECISION_FP64}}) {
    SCOPED_TRACE(name_of(k));
    const Dataset d = structured_data(k.n, k.t, 7);
    const Context gpu = make_context(FC_BACKEND_CUDA, k.precision);
    const Series s = upload(gpu, d, k.precision);
    const Result p = run_dense(gpu, s, k.shrinkage, FC_PARTIAL_PRECISION);
    ASSERT_EQ(p.status, FC_OK) << p.error;
    const int64_t n = k.n;
    const std::vector<double> sm = shrunk_matrix(d, p.used);
    const double kappa = norm1(sm, n) * norm1(p.dense, n);
    double worst = 0.0;
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j) {
        long double sum = 0.0L;
        for (int64_t l = 0; l < n; ++l) sum += static_cast<long double>(p.dense[i * n + l]) * sm[l * n + j];
        worst = std::max(worst, std::fabs(static_cast<double>(sum) - (i == j ? 1.0 : 0.0)));
      }
    EXPECT_LE(worst, 1e-13 * kappa) << "kappa_1 " << kappa;
    // The partial correlations from that precision, computed here.
    const Result c = run_dense(gpu, s, k.shrinkage, FC_PARTIAL_CORRELATION);
    ASSERT_EQ(c.status, FC_OK) << c.error;
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j)
        if (i != j) {
          ASSERT_DOUBLE_EQ(c.dense[i * n + j],
                           -p.dense[i * n + j] / std::sqrt(p.dense[i * n + i] * p.dense[j * n + j]));
        }
  }
}

// The triangle is the dense matrix's upper part, in both orders; the same bits run after run and
// under a memory limit that holds the call.
TEST(CudaPartial, TriangleRepeatAndLimitGiveTheSameBits) {
  REQUIRE_CUDA();
  const int64_t n = 89, t = 120;
  const Dataset d = structured_data(n, t, 3);
  const Context gpu = make_context(FC_BACKEND_CUDA, FC_PRECISION_FP64);
  const Context limited = make_context(FC_BACKEND_CUDA, FC_PRECISION_FP64, int64_t(8) << 20);
  const Series s = upload(gpu, d, FC_PRECISION_FP64), sl = upload(limited, d, FC_PRECISION_FP64);
  const Result a = run_dense(gpu, s, FC_SHRINKAGE_LEDOIT_WOLF, FC_PARTIAL_CORRELATION);
  const Result again = run_dense(gpu, s, FC_SHRINKAGE_LEDOIT_WOLF, FC_PARTIAL_CORRELATION);
  const Result lim = run_dense(limited, sl, FC_SHRINKAGE_LEDOIT_WOLF, FC_PARTIAL_CORRELATION);
  ASSERT_EQ(a.status, FC_OK) << a.error;
  EXPECT_EQ(a.dense, again.dense);
  EXPECT_EQ(a.used, again.used);
  EXPECT_EQ(a.dense, lim.dense);
  for (int order : {FC_TRIU_ROW, FC_TRIU_COL}) {
    std::vector<double> tri(static_cast<size_t>(fc_triu_size(n)), kUntouched);
    double used = kUntouched;
    ASSERT_EQ(fc_partial_correlation_triu(gpu.get(), s.get(), FC_SHRINKAGE_LEDOIT_WOLF, FC_PARTIAL_CORRELATION, order,
                                          tri.data(), static_cast<int64_t>(tri.size()), &used),
              FC_OK)
        << fc_last_error();
    EXPECT_EQ(used, a.used);
    int64_t at = 0;
    if (order == FC_TRIU_ROW) {
      for (int64_t i = 0; i < n; ++i)
        for (int64_t j = i + 1; j < n; ++j) ASSERT_EQ(tri[at++], a.dense[i * n + j]);
    } else {
      for (int64_t j = 1; j < n; ++j)
        for (int64_t i = 0; i < j; ++i) ASSERT_EQ(tri[at++], a.dense[i * n + j]);
    }
  }
}

// Dynamic partial correlation: a window (fc_series_window, made on the device) as the CPU's.
TEST(CudaPartial, WindowsMatchCpu) {
  REQUIRE_CUDA();
  const Dataset d = structured_data(43, 300, 11);
  for (int taper : {FC_TAPER_RECTANGULAR, FC_TAPER_GAUSSIAN}) {
    SCOPED_TRACE(taper);
    const Context cpu = make_context(FC_BACKEND_CPU, FC_PRECISION_FP64), gpu = make_context(FC_BACKEND_CUDA, FC_PRECISION_FP64);
    const Series sc = upload(cpu, d, FC_PRECISION_FP64), sg = upload(gpu, d, FC_PRECISION_FP64);
    fc_series *wc = nullptr, *wg = nullptr;
    ASSERT_EQ(fc_series_window(cpu.get(), sc.get(), 37, 120, taper, 20.0, &wc), FC_OK) << fc_last_error();
    ASSERT_EQ(fc_series_window(gpu.get(), sg.get(), 37, 120, taper, 20.0, &wg), FC_OK) << fc_last_error();
    const Series owned_c(wc), owned_g(wg);
    const Result a = run_dense(cpu, owned_c, FC_SHRINKAGE_LEDOIT_WOLF, FC_PARTIAL_CORRELATION);
    const Result b = run_dense(gpu, owned_g, FC_SHRINKAGE_LEDOIT_WOLF, FC_PARTIAL_CORRELATION);
    ASSERT_EQ(a.status, FC_OK) << a.error;
    ASSERT_EQ(b.status, FC_OK) << b.error;
    EXPECT_LE(max_abs_diff(a.dense, b.dense), 1e-10);
    EXPECT_NEAR(a.used, b.used, 1e-12);
  }
}

void expect_same_failure(const Result& cpu, const Result& gpu, fc_status status, const std::string& mentions) {
  EXPECT_EQ(cpu.status, status) << cpu.error;
  EXPECT_EQ(gpu.status, status) << gpu.error;
  EXPECT_NE(gpu.error.find(mentions), std::string::npos) << gpu.error;
  EXPECT_EQ(gpu.error, cpu.error);
  for (double v : gpu.dense) ASSERT_EQ(v, kUntouched);
  EXPECT_EQ(gpu.used, kUntouched);
}

TEST(CudaPartial, ErrorsAsOnTheCpuBuffersUntouched) {
  REQUIRE_CUDA();
  const Context cpu = make_context(FC_BACKEND_CPU, FC_PRECISION_FP64), gpu = make_context(FC_BACKEND_CUDA, FC_PRECISION_FP64);
  {  // a constant series
    Dataset d = structured_data(6, 30, 5);
    make_constant(d, 4, 812.5);
    const Series sc = upload(cpu, d, FC_PRECISION_FP64), sg = upload(gpu, d, FC_PRECISION_FP64);
    expect_same_failure(run_dense(cpu, sc, FC_SHRINKAGE_LEDOIT_WOLF, FC_PARTIAL_CORRELATION),
                        run_dense(gpu, sg, FC_SHRINKAGE_LEDOIT_WOLF, FC_PARTIAL_CORRELATION), FC_ERR_INVALID_ARG,
                        "series 4 is constant");
  }
  {  // not positive definite: two equal series of samples -1, 0, 1 make R = [[a, a], [a, a]] with
     // a = 1 + 2^-52 (each z = +-fl(1/sqrt 2)), whose second pivot a - a^2 is negative
    Dataset d;
    d.n = 2;
    d.t = 3;
    d.x = {-1, 0, 1, -1, 0, 1};
    const Series sc = upload(cpu, d, FC_PRECISION_FP64), sg = upload(gpu, d, FC_PRECISION_FP64);
    expect_same_failure(run_dense(cpu, sc, 0.0, FC_PARTIAL_CORRELATION), run_dense(gpu, sg, 0.0, FC_PARTIAL_CORRELATION),
                        FC_ERR_INVALID_ARG, "not positive definite (leading minor 2 of 2");
  }
  {  // bad arguments, checked before any device work
    const Dataset d = structured_data(9, 40, 6);
    const Series sc = upload(cpu, d, FC_PRECISION_FP64), sg = upload(gpu, d, FC_PRECISION_FP64);
    expect_same_failure(run_dense(cpu, sc, 1.5, FC_PARTIAL_CORRELATION), run_dense(gpu, sg, 1.5, FC_PARTIAL_CORRELATION),
                        FC_ERR_INVALID_ARG, "shrinkage 1.5");
    expect_same_failure(run_dense(cpu, sc, -1, 3), run_dense(gpu, sg, -1, 3), FC_ERR_INVALID_ARG, "output 3");
  }
  {  // a memory limit below the n x n matrix: out of memory, naming the need
    const int64_t n = 400;
    const Dataset d = structured_data(n, 50, 8);
    const Context small = make_context(FC_BACKEND_CUDA, FC_PRECISION_FP32, int64_t(1) << 20);
    const Series s = upload(small, d, FC_PRECISION_FP32);
    const Result r = run_dense(small, s, FC_SHRINKAGE_LEDOIT_WOLF, FC_PARTIAL_CORRELATION);
    EXPECT_EQ(r.status, FC_ERR_OUT_OF_MEMORY) << r.error;
    EXPECT_NE(r.error.find("memory limit of 1048576 bytes"), std::string::npos) << r.error;
    for (double v : r.dense) ASSERT_EQ(v, kUntouched);
    EXPECT_EQ(r.used, kUntouched);
    // The same context goes on working once the limit allows the call.
    check(fc_context_set_memory_limit(small.get(), int64_t(64) << 20), "fc_context_set_memory_limit");
    EXPECT_EQ(run_dense(small, s, FC_SHRINKAGE_LEDOIT_WOLF, FC_PARTIAL_CORRELATION).status, FC_OK);
  }
}

}  // namespace
