// Fast ECM with its eigensolve on the device (centrality_backend.hpp's gram_space,
// cuda_centrality.cpp): fc_pcc_ecm and fc_dfc_ecm on a CUDA context give the bits of a CPU context
// (centrality, eigenvalue and the count of products) on odd and prime sizes, FP32 and FP64,
// both constant policies with constant series; progress counts each product and a callback
// cancels; a device without the memory fails with FC_ERR_OUT_OF_MEMORY and leaves the caller's
// buffer and the context as they were; a memory limit below the space keeps the vectors on the
// host (the same bits). The float64 accuracy of fast ECM itself is tests/cpp/test_centrality's.
//
// Skips when no CUDA context can be made; FASTCONN_REQUIRE_CUDA=1 makes that a failure.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "api_calls.hpp"
#include "reference.hpp"
#include "require_cuda.hpp"

namespace {

using namespace fctest;

struct Ecm {
  fc_status status = FC_OK;
  std::vector<double> centrality;
  double lambda = -3.0;
  int64_t products = 0;
};

int count(int64_t, int64_t, void* user) {
  ++*static_cast<int64_t*>(user);
  return 0;
}

Context context(fc_backend backend, fc_precision precision, fc_constant_policy policy) {
  Context c(backend);
  c.precision(precision).policy(policy);
  return c;
}

// fc_pcc_ecm into a buffer of -7s, counting the progress reports.
Ecm pcc_ecm(const Context& ctx, const Series& s, int64_t n) {
  Ecm e;
  e.centrality.assign(static_cast<size_t>(n), -7.0);
  check(fc_context_set_progress(ctx.get(), count, &e.products), "fc_context_set_progress");
  e.status = fc_pcc_ecm(ctx.get(), s.get(), 0, e.centrality.data(), n, &e.lambda);
  check(fc_context_set_progress(ctx.get(), nullptr, nullptr), "fc_context_set_progress");
  return e;
}

void expect_same(const Ecm& gpu, const Ecm& cpu) {
  ASSERT_EQ(gpu.status, FC_OK) << fc_last_error();
  ASSERT_EQ(cpu.status, FC_OK);
  EXPECT_TRUE(bit_identical(gpu.centrality, cpu.centrality));
  EXPECT_EQ(std::memcmp(&gpu.lambda, &cpu.lambda, sizeof(double)), 0) << gpu.lambda << " vs " << cpu.lambda;
  EXPECT_EQ(gpu.products, cpu.products);
}

// One data set on a CUDA and a CPU context of one mode.
struct Both {
  Both(const Dataset& d, fc_precision p, fc_constant_policy c)
      : n(d.n), gpu(context(FC_BACKEND_CUDA, p, c)), cpu(context(FC_BACKEND_CPU, p, c)), sg(make_series(gpu, d)),
        sc(make_series(cpu, d)) {}
  void expect_same_ecm() const { expect_same(pcc_ecm(gpu, sg, n), pcc_ecm(cpu, sc, n)); }
  int64_t n;
  Context gpu, cpu;
  Series sg, sc;
};

std::string mode(fc_precision p, fc_constant_policy c) {
  return std::string(p == FC_PRECISION_FP64 ? "FP64" : "FP32") + (c == FC_CONSTANT_NAN ? " NAN" : " ZERO");
}

TEST(CudaEcm, SameBitsAsCpuOnOddAndPrimeSizes) {
  REQUIRE_CUDA();
  // N = 1, 2, 3 and primes; 4099 and 10007 span several reduction chunks (2048) and product
  // chunks (1024 rows); T = 2 (R = +-1 only) to 301.
  const std::pair<int64_t, int64_t> shapes[] = {{1, 7}, {2, 2}, {3, 5}, {13, 2}, {97, 31}, {211, 165}, {1009, 301},
                                               {4099, 60}, {10007, 165}};
  for (const auto& [n, t] : shapes) {
    Dataset d = structured_data(n, t, 0xEC0u + uint64_t(n));
    if (n >= 13) {  // constant series: dropped (NaN) or kept with r = 0
      make_constant(d, 0, 3.0);
      make_constant(d, n / 2, -2.5);
    }
    for (const fc_precision p : {FC_PRECISION_FP32, FC_PRECISION_FP64})
      for (const fc_constant_policy c : {FC_CONSTANT_NAN, FC_CONSTANT_ZERO}) {
        SCOPED_TRACE(std::to_string(n) + " x " + std::to_string(t) + " " + mode(p, c));
        Both(d, p, c).expect_same_ecm();
      }
  }
}

TEST(CudaEcm, SameBitsWithEverySeriesConstant) {
  REQUIRE_CUDA();
  Dataset flat = structured_data(5, 9, 1);
  for (int64_t s = 0; s < 5; ++s) make_constant(flat, s, 1.0 + double(s));
  for (const fc_constant_policy c : {FC_CONSTANT_NAN, FC_CONSTANT_ZERO}) {
    SCOPED_TRACE(mode(FC_PRECISION_FP32, c));
    const Both both(flat, FC_PRECISION_FP32, c);
    const Ecm g = pcc_ecm(both.gpu, both.sg, 5);
    expect_same(g, pcc_ecm(both.cpu, both.sc, 5));
    if (c == FC_CONSTANT_NAN)
      for (double v : g.centrality) EXPECT_TRUE(std::isnan(v));
    else
      for (double v : g.centrality) EXPECT_NEAR(v, 1 / std::sqrt(5.0), 1e-12);
  }
}

TEST(CudaEcm, SameBitsAt100003By40) {
  REQUIRE_CUDA();
  Dataset d = structured_data(100003, 40, 34);
  make_constant(d, 77777, 5.0);
  Both(d, FC_PRECISION_FP32, FC_CONSTANT_NAN).expect_same_ecm();
}

TEST(CudaEcm, WindowsSameBitsAsCpu) {
  REQUIRE_CUDA();
  Dataset d = structured_data(307, 90, 9);
  for (int64_t k = 0; k < 40; ++k) d.at(5, k) = 2.0;  // constant in the first windows only
  make_constant(d, 100, 1.5);
  for (const fc_precision p : {FC_PRECISION_FP32, FC_PRECISION_FP64}) {
    SCOPED_TRACE(mode(p, FC_CONSTANT_NAN));
    const Both both(d, p, FC_CONSTANT_NAN);
    const int64_t length = 30, step = 20, windows = (90 - length) / step + 1;
    std::vector<double> cg(size_t(windows * 307), -1.0), cc(cg.size(), -2.0), lg(static_cast<size_t>(windows)), lc(lg.size());
    ASSERT_EQ(fc_dfc_ecm(both.gpu.get(), both.sg.get(), length, step, FC_TAPER_RECTANGULAR, 4.0, 0, cg.data(), int64_t(cg.size()),
                         lg.data()),
              FC_OK)
        << fc_last_error();
    check(fc_dfc_ecm(both.cpu.get(), both.sc.get(), length, step, FC_TAPER_RECTANGULAR, 4.0, 0, cc.data(), int64_t(cc.size()),
                     lc.data()),
          "fc_dfc_ecm");
    EXPECT_TRUE(bit_identical(cg, cc));
    EXPECT_TRUE(bit_identical(lg, lc));
    EXPECT_TRUE(std::isnan(cg[5]));           // window 0: series 5 constant
    EXPECT_FALSE(std::isnan(cg[3 * 307 + 5]));  // window 3 (samples 60..89): not
  }
}

struct Cancel {
  int64_t seen = 0, stop_after = 0;
};
int cancel_after(int64_t, int64_t, void* user) {
  auto* c = static_cast<Cancel*>(user);
  return ++c->seen >= c->stop_after ? 1 : 0;
}

TEST(CudaEcm, ProgressCancelsAndTheContextGoesOn) {
  REQUIRE_CUDA();
  const Both both(structured_data(5003, 50, 5), FC_PRECISION_FP32, FC_CONSTANT_NAN);
  const Context& gpu = both.gpu;
  Cancel cancel;
  cancel.stop_after = 3;
  check(fc_context_set_progress(gpu.get(), cancel_after, &cancel), "fc_context_set_progress");
  std::vector<double> c(5003, -7.0);
  double lambda = -3.0;
  EXPECT_EQ(fc_pcc_ecm(gpu.get(), both.sg.get(), 0, c.data(), 5003, &lambda), FC_ERR_ABORTED);
  EXPECT_EQ(cancel.seen, 3);  // one report a product: cancelled at the third
  EXPECT_NE(std::string(fc_last_error()).find("cancelled"), std::string::npos) << fc_last_error();
  for (double v : c) ASSERT_EQ(v, -7.0);  // nothing written
  EXPECT_EQ(lambda, -3.0);
  check(fc_context_set_progress(gpu.get(), nullptr, nullptr), "fc_context_set_progress");
  both.expect_same_ecm();
}

TEST(CudaEcm, OutOfDeviceMemoryFailsCleanly) {
  REQUIRE_CUDA();
  const int64_t n = 300007, t = 20;  // the eigensolver's slots: about 125 MB
  const Both both(structured_data(n, t, 77), FC_PRECISION_FP32, FC_CONSTANT_NAN);
  // Take all but 48 MB of the device (the context's device: the test process has one current).
  size_t free_bytes = 0, total = 0;
  ASSERT_EQ(cudaMemGetInfo(&free_bytes, &total), cudaSuccess);
  void* hog = nullptr;
  const size_t keep = size_t(48) << 20;
  ASSERT_GT(free_bytes, keep);
  ASSERT_EQ(cudaMalloc(&hog, free_bytes - keep), cudaSuccess);
  std::vector<double> c(size_t(n), -7.0);
  double lambda = -3.0;
  const fc_status status = fc_pcc_ecm(both.gpu.get(), both.sg.get(), 0, c.data(), n, &lambda);
  const std::string message = fc_last_error();
  ASSERT_EQ(cudaFree(hog), cudaSuccess);
  EXPECT_EQ(status, FC_ERR_OUT_OF_MEMORY) << message;
  EXPECT_NE(message.find("out of memory"), std::string::npos) << message;
  for (double v : c) ASSERT_EQ(v, -7.0);
  EXPECT_EQ(lambda, -3.0);
  // The context goes on, with the memory back.
  both.expect_same_ecm();
}

TEST(CudaEcm, MemoryLimitBelowTheSpaceKeepsTheHostsBits) {
  REQUIRE_CUDA();
  const Both both(structured_data(20011, 50, 3), FC_PRECISION_FP64, FC_CONSTANT_NAN);
  // Set after the upload: the limit is meant for the eigensolve (its slots: about 8 MB).
  check(fc_context_set_memory_limit(both.gpu.get(), int64_t(4) << 20), "fc_context_set_memory_limit");
  both.expect_same_ecm();
}

}  // namespace
