// The CUDA backend beyond what tests/cpp/test_backend_parity.cpp checks for every backend: the
// sizes of the issue (1, 2, 3, 257, 1009, 4099) in both orders, policies and output types
// against the CPU backend and the float64 reference; every kind of destination (pageable,
// pinned, registered, device) giving the same bits; memory limits that force many bands and
// staging chunks; cancellation in the middle of each pipeline; the device-pointer variants,
// the caller's stream and device; and one run past 2^32 pairs.
//
// Every test skips (GTEST_SKIP) when fc_context_create(FC_BACKEND_CUDA) fails, except the one
// that checks how that failure is reported. FASTCONN_REQUIRE_CUDA=1 (set by scripts/gpu-check.sh)
// turns a missing device into a failure.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "api_calls.hpp"
#include "fastconn/fastconn_cuda.h"
#include "reference.hpp"
#include "require_cuda.hpp"

namespace {

using namespace fctest;

void cuda_ok(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

// Owning device buffer of `count` values of T, poisoned with 0xFF bytes (a NaN pattern no
// correlation equals) so that unwritten values show.
template <class T>
struct DeviceArray {
  T* ptr = nullptr;
  size_t count = 0;
  explicit DeviceArray(size_t n) : count(n) {
    cuda_ok(cudaMalloc(reinterpret_cast<void**>(&ptr), std::max<size_t>(1, n) * sizeof(T)), "cudaMalloc");
    cuda_ok(cudaMemset(ptr, 0xFF, std::max<size_t>(1, n) * sizeof(T)), "cudaMemset");
  }
  ~DeviceArray() { cudaFree(ptr); }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  std::vector<T> to_host() const {
    std::vector<T> h(count);
    if (count) cuda_ok(cudaMemcpy(h.data(), ptr, count * sizeof(T), cudaMemcpyDeviceToHost), "cudaMemcpy D2H");
    return h;
  }
};

// Page-locked host buffer, from cudaHostAlloc or by registering malloc'd memory.
template <class T>
struct PinnedArray {
  T* ptr = nullptr;
  size_t count = 0;
  bool registered = false;
  PinnedArray(size_t n, bool register_malloc) : count(n), registered(register_malloc) {
    const size_t bytes = std::max<size_t>(1, n) * sizeof(T);
    if (registered) {
      ptr = static_cast<T*>(std::malloc(bytes));
      cuda_ok(cudaHostRegister(ptr, bytes, cudaHostRegisterDefault), "cudaHostRegister");
    } else {
      cuda_ok(cudaHostAlloc(reinterpret_cast<void**>(&ptr), bytes, cudaHostAllocDefault), "cudaHostAlloc");
    }
    std::fill(ptr, ptr + n, static_cast<T>(kSentinel));
  }
  ~PinnedArray() {
    if (registered) {
      cudaHostUnregister(ptr);
      std::free(ptr);
    } else {
      cudaFreeHost(ptr);
    }
  }
  PinnedArray(const PinnedArray&) = delete;
  PinnedArray& operator=(const PinnedArray&) = delete;
  std::vector<T> values() const { return std::vector<T>(ptr, ptr + count); }
};

Context cuda_context(fc_precision precision = FC_PRECISION_FP32, fc_constant_policy policy = FC_CONSTANT_NAN,
                     int64_t memory_limit = 0) {
  Context c(FC_BACKEND_CUDA);
  c.precision(precision).policy(policy).memory_limit(memory_limit);
  return c;
}

// Structured data with constant series at both ends and the middle (once there are 3 series).
Dataset with_constants(int64_t n, int64_t t, uint64_t seed) {
  Dataset d = structured_data(n, t, seed);
  if (n >= 3) {
    make_constant(d, 0, 3.5);
    make_constant(d, n / 2, 0.0);
    make_constant(d, n - 1, -2.0);
  }
  return d;
}

std::vector<float> triu_device(const Context& ctx, const Series& s, fc_triu_order order) {
  const int64_t pairs = fc_triu_size(s.n_series());
  DeviceArray<float> out(static_cast<size_t>(pairs));
  check(fc_pcc_triu_device(ctx.get(), s.get(), order, out.ptr, pairs), "fc_pcc_triu_device");
  return out.to_host();
}

// f32 values and the f64 output of the same float products: the float output must be the
// double one rounded, bit for bit (NaN where NaN).
::testing::AssertionResult float_is_rounded_double(const std::vector<float>& f, const std::vector<double>& d) {
  if (f.size() != d.size()) return ::testing::AssertionFailure() << "sizes " << f.size() << " vs " << d.size();
  for (size_t k = 0; k < f.size(); ++k) {
    const float r = static_cast<float>(d[k]);
    if (std::isnan(r) != std::isnan(f[k]) || (!std::isnan(r) && std::memcmp(&r, &f[k], sizeof r) != 0))
      return ::testing::AssertionFailure() << "index " << k << ": float " << f[k] << " vs double " << d[k];
  }
  return ::testing::AssertionSuccess();
}

// ---------------------------------------------------------------------------------------------

// Runs everywhere (CI has nvcc but no GPU): a missing device is FC_ERR_BACKEND_UNAVAILABLE with a
// reason, and AUTO then runs on the CPU; with a device, AUTO picks CUDA.
TEST(CudaAvailability, UnavailableIsReportedAndAutoFallsBack) {
  ASSERT_EQ(fc_has_cuda(), 1) << "tests/gpu is built only with the CUDA backend";
  fc_context* ctx = nullptr;
  const fc_status status = fc_context_create(FC_BACKEND_CUDA, -1, &ctx);
  fc_context* autoctx = nullptr;
  ASSERT_EQ(fc_context_create(FC_BACKEND_AUTO, -1, &autoctx), FC_OK) << fc_last_error();
  fc_backend chosen = FC_BACKEND_AUTO;
  ASSERT_EQ(fc_context_get_backend(autoctx, &chosen), FC_OK);
  fc_context_destroy(autoctx);
  if (status == FC_OK) {
    fc_context_destroy(ctx);
    EXPECT_EQ(chosen, FC_BACKEND_CUDA) << "AUTO ignored a usable device";
  } else {
    EXPECT_FALSE(cuda_required()) << "FASTCONN_REQUIRE_CUDA=1 but: " << fc_last_error();
    EXPECT_EQ(status, FC_ERR_BACKEND_UNAVAILABLE) << fc_last_error();
    EXPECT_EQ(ctx, nullptr);
    EXPECT_EQ(chosen, FC_BACKEND_CPU) << "AUTO without a device must fall back to the CPU";
  }
}

// ---------------------------------------------------------------------------------------------
// The odd sizes: triangle in both orders and policies, float and double outputs, FP32
// and FP64, against the CPU backend and the float64 reference.

class CudaOddSizes : public ::testing::TestWithParam<int64_t> {};

TEST_P(CudaOddSizes, TriangleMatchesCpuAndReference) {
  REQUIRE_CUDA();
  const int64_t n = GetParam(), t = 97;
  const Dataset d = with_constants(n, t, 0x5EED0000u + uint64_t(n));
  const std::vector<double> dense = reference_dense(normalize(d));
  for (fc_constant_policy policy : {FC_CONSTANT_NAN, FC_CONSTANT_ZERO}) {
    for (fc_precision precision : {FC_PRECISION_FP32, FC_PRECISION_FP64}) {
      SCOPED_TRACE(std::string(precision == FC_PRECISION_FP64 ? "FP64" : "FP32") + (policy == FC_CONSTANT_ZERO ? "/ZERO" : "/NAN"));
      const Context gpu = cuda_context(precision, policy);
      Context cpu(FC_BACKEND_CPU);
      cpu.precision(precision).policy(policy);
      const Series s = make_series(gpu, d), s_cpu = make_series(cpu, d);
      const double tol32 = tolerance(precision, true), tol64 = tolerance(precision, false);
      for (fc_triu_order order : {FC_TRIU_ROW, FC_TRIU_COL}) {
        SCOPED_TRACE(order == FC_TRIU_ROW ? "row order" : "column order");
        const std::vector<double> expected = triangle_of(dense, n, order);
        const std::vector<float> got = pcc_triu(gpu, s, order);
        const std::vector<double> got64 = pcc_triu_f64(gpu, s, order);
        EXPECT_TRUE(follows_policy(got, expected, policy, tol32)) << "float output vs float64 reference";
        EXPECT_TRUE(follows_policy(got64, expected, policy, tol64)) << "double output vs float64 reference";
        EXPECT_TRUE(agree(got, pcc_triu(cpu, s_cpu, order), 2 * tol32)) << "float output vs CPU backend";
        EXPECT_TRUE(agree(got64, pcc_triu_f64(cpu, s_cpu, order), 2 * tol64)) << "double output vs CPU backend";
        EXPECT_TRUE(float_is_rounded_double(got, got64));
        if (n > 1) {
          EXPECT_TRUE(bit_identical(got, triu_device(gpu, s, order))) << "device output differs from host output";
        }
      }
    }
  }
}

TEST_P(CudaOddSizes, DenseAndCrossMatchCpuAndReference) {
  REQUIRE_CUDA();
  const int64_t n = GetParam(), m = 37, t = 97;
  const Dataset all = with_constants(n + m, t, 0xC805500u + uint64_t(n));
  const Dataset a = subset(all, 0, n), b = subset(all, n, m);
  const Reference ra = normalize(a), rb = normalize(b);
  const std::vector<double> dense = reference_dense(ra), cross = reference_cross(ra, rb);
  for (fc_precision precision : {FC_PRECISION_FP32, FC_PRECISION_FP64}) {
    SCOPED_TRACE(precision == FC_PRECISION_FP64 ? "FP64" : "FP32");
    const double tol = tolerance(precision, true);
    const Context gpu = cuda_context(precision, FC_CONSTANT_ZERO);
    Context cpu(FC_BACKEND_CPU);
    cpu.precision(precision).policy(FC_CONSTANT_ZERO);
    const Series sa = make_series(gpu, a), sb = make_series(gpu, b);
    const Series sa_cpu = make_series(cpu, a), sb_cpu = make_series(cpu, b);

    const int64_t ld = n + 3;  // padding columns must keep the sentinel
    const std::vector<float> got = pcc_dense(gpu, sa, ld);
    EXPECT_TRUE(follows_policy(got.data(), n, n, ld, dense, FC_CONSTANT_ZERO, tol)) << "dense vs float64 reference";
    EXPECT_TRUE(agree(got, pcc_dense(cpu, sa_cpu, ld), 2 * tol)) << "dense vs CPU (padding included)";
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = n; j < ld; ++j) ASSERT_EQ(got[static_cast<size_t>(i * ld + j)], kSentinel) << "padding written";

    const int64_t ldc = m + 2;
    const std::vector<float> gotc = pcc_cross(gpu, sa, sb, ldc);
    EXPECT_TRUE(follows_policy(gotc.data(), n, m, ldc, cross, FC_CONSTANT_ZERO, tol)) << "cross vs float64 reference";
    EXPECT_TRUE(agree(gotc, pcc_cross(cpu, sa_cpu, sb_cpu, ldc), 2 * tol)) << "cross vs CPU";

    // Device-pointer variants: same bits as the host ones (padding untouched: still the poison).
    DeviceArray<float> dd(static_cast<size_t>(n * ld)), dc(static_cast<size_t>(n * ldc));
    check(fc_pcc_dense_device(gpu.get(), sa.get(), dd.ptr, ld), "fc_pcc_dense_device");
    check(fc_pcc_cross_device(gpu.get(), sa.get(), sb.get(), dc.ptr, ldc), "fc_pcc_cross_device");
    EXPECT_TRUE(bit_identical(packed(dd.to_host(), n, n, ld), packed(got, n, n, ld))) << "dense device vs host";
    EXPECT_TRUE(bit_identical(packed(dc.to_host(), n, m, ldc), packed(gotc, n, m, ldc))) << "cross device vs host";
    const std::vector<float> dd_host = dd.to_host();
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = n; j < ld; ++j) ASSERT_TRUE(std::isnan(dd_host[static_cast<size_t>(i * ld + j)])) << "device padding written";
  }
}

INSTANTIATE_TEST_SUITE_P(Sizes, CudaOddSizes, ::testing::Values(1, 2, 3, 257, 1009, 4099),
                         [](const ::testing::TestParamInfo<int64_t>& p) { return "N" + std::to_string(p.param); });

// ---------------------------------------------------------------------------------------------
// Destinations: pageable (staged through the pinned ring by host threads), pinned, registered
// (direct D2H) and device memory take different paths through the pipeline; the values are the
// same bits. N = 4099 makes the float triangle (8.4 M values) span two 32 MiB ring slots and
// the double one three; the dense matrix stages whole rows.

TEST(CudaDestinations, EveryPathGivesTheSameBits) {
  REQUIRE_CUDA();
  const int64_t n = 4099, t = 165;
  const Dataset d = with_constants(n, t, 4099u);
  const Context gpu = cuda_context();
  const Series s = make_series(gpu, d);
  const int64_t pairs = fc_triu_size(n);
  for (fc_triu_order order : {FC_TRIU_ROW, FC_TRIU_COL}) {
    SCOPED_TRACE(order == FC_TRIU_ROW ? "row order" : "column order");
    const std::vector<float> pageable = pcc_triu(gpu, s, order);
    for (bool registered : {false, true}) {
      PinnedArray<float> pinned(static_cast<size_t>(pairs), registered);
      check(fc_pcc_triu(gpu.get(), s.get(), order, pinned.ptr, pairs), "fc_pcc_triu (pinned)");
      EXPECT_TRUE(bit_identical(pinned.values(), pageable)) << (registered ? "registered" : "cudaHostAlloc") << " vs pageable";
    }
    EXPECT_TRUE(bit_identical(triu_device(gpu, s, order), pageable)) << "device vs pageable";

    const std::vector<double> pageable64 = pcc_triu_f64(gpu, s, order);
    PinnedArray<double> pinned64(static_cast<size_t>(pairs), false);
    check(fc_pcc_triu_f64(gpu.get(), s.get(), order, pinned64.ptr, pairs), "fc_pcc_triu_f64 (pinned)");
    EXPECT_TRUE(bit_identical(pinned64.values(), pageable64)) << "double: pinned vs pageable";
    DeviceArray<double> dev64(static_cast<size_t>(pairs));
    check(fc_pcc_triu_device_f64(gpu.get(), s.get(), order, dev64.ptr, pairs), "fc_pcc_triu_device_f64");
    EXPECT_TRUE(bit_identical(dev64.to_host(), pageable64)) << "double: device vs pageable";
    EXPECT_TRUE(float_is_rounded_double(pageable, pageable64));
  }
  const std::vector<float> dense = pcc_dense(gpu, s, n);
  PinnedArray<float> pinned_dense(static_cast<size_t>(n * n), false);
  check(fc_pcc_dense(gpu.get(), s.get(), pinned_dense.ptr, n), "fc_pcc_dense (pinned)");
  EXPECT_TRUE(bit_identical(pinned_dense.values(), dense)) << "dense: pinned vs pageable";
  EXPECT_TRUE(follows_policy(dense.data(), n, n, n, reference_dense(normalize(d)), FC_CONSTANT_NAN, 1e-5));
}

// ---------------------------------------------------------------------------------------------
// Memory limits: a few rows per band, so hundreds of bands and pipeline rounds; a limit below
// one row fails with FC_ERR_OUT_OF_MEMORY naming the minimum.

TEST(CudaMemoryLimit, ManyBandsMatchTheReference) {
  REQUIRE_CUDA();
  const int64_t n = 1009, t = 165;
  const Dataset d = with_constants(n, t, 1009u);
  const std::vector<double> dense = reference_dense(normalize(d));
  // Host float output: 2 float tiles + 2 float packed buffers = 16 bytes per tile value.
  const int64_t limit = 16 * (n - 1) * 3;
  const Context gpu = cuda_context(FC_PRECISION_FP32, FC_CONSTANT_NAN, limit);
  const Context unlimited = cuda_context();
  const Series s = make_series(gpu, d), s_unlimited = make_series(unlimited, d);
  int reports = 0;
  auto counter = [](int64_t, int64_t, void* user) { return ++*static_cast<int*>(user), 0; };
  check(fc_context_set_progress(gpu.get(), counter, &reports), "fc_context_set_progress");
  for (fc_triu_order order : {FC_TRIU_ROW, FC_TRIU_COL}) {
    SCOPED_TRACE(order == FC_TRIU_ROW ? "row order" : "column order");
    const std::vector<double> expected = triangle_of(dense, n, order);
    reports = 0;
    const std::vector<float> got = pcc_triu(gpu, s, order);
    EXPECT_GE(reports, 100) << "a limit of 3 rows per band should give hundreds of bands";
    EXPECT_TRUE(follows_policy(got, expected, FC_CONSTANT_NAN, 1e-5));
    EXPECT_TRUE(agree(got, pcc_triu(unlimited, s_unlimited, order), 2e-5));
    EXPECT_TRUE(follows_policy(triu_device(gpu, s, order), expected, FC_CONSTANT_NAN, 1e-5)) << "device output";
    EXPECT_TRUE(follows_policy(pcc_triu_f64(gpu, s, order), expected, FC_CONSTANT_NAN, 1e-5)) << "double output";
  }
  EXPECT_TRUE(follows_policy(pcc_dense(gpu, s, n).data(), n, n, n, dense, FC_CONSTANT_NAN, 1e-5)) << "dense";

  const Context tiny = cuda_context(FC_PRECISION_FP32, FC_CONSTANT_NAN, 1000);
  const Series s_tiny = make_series(tiny, d);
  std::vector<float> out(static_cast<size_t>(fc_triu_size(n)));
  EXPECT_EQ(fc_pcc_triu(tiny.get(), s_tiny.get(), FC_TRIU_ROW, out.data(), fc_triu_size(n)), FC_ERR_OUT_OF_MEMORY);
  EXPECT_NE(std::string(fc_last_error()).find("memory limit"), std::string::npos) << fc_last_error();
}

// ---------------------------------------------------------------------------------------------
// Progress and cancellation: reports come from the calling thread, in order, up to the total;
// a cancel in the middle stops every path cleanly and leaves the context usable.

struct CancelProbe {
  std::thread::id caller = std::this_thread::get_id();
  int calls = 0;
  int cancel_at = 0;  // 0: never
  bool wrong_thread = false;
  int64_t last_done = 0;
  bool decreased = false;
};

int probe_progress(int64_t done, int64_t, void* user) {
  auto* p = static_cast<CancelProbe*>(user);
  ++p->calls;
  if (std::this_thread::get_id() != p->caller) p->wrong_thread = true;
  if (done < p->last_done) p->decreased = true;
  p->last_done = done;
  return p->cancel_at != 0 && p->calls >= p->cancel_at ? 1 : 0;
}

TEST(CudaCancel, StopsEveryPathCleanlyAndTheContextStaysUsable) {
  REQUIRE_CUDA();
  const int64_t n = 4099, t = 165, pairs = fc_triu_size(n);
  const Dataset d = structured_data(n, t, 77u);
  const Context gpu = cuda_context(FC_PRECISION_FP32, FC_CONSTANT_NAN, 16 * (n - 1) * 40);  // tens of bands
  const Series s = make_series(gpu, d);

  PinnedArray<float> pinned(static_cast<size_t>(pairs), false);
  DeviceArray<float> device(static_cast<size_t>(pairs));
  std::vector<float> pageable(static_cast<size_t>(pairs));
  struct Path {
    const char* name;
    std::function<fc_status()> run;
    std::function<std::vector<float>()> values;
  };
  const Path paths[] = {
      {"pageable", [&] { return fc_pcc_triu(gpu.get(), s.get(), FC_TRIU_ROW, pageable.data(), pairs); }, [&] { return pageable; }},
      {"pinned", [&] { return fc_pcc_triu(gpu.get(), s.get(), FC_TRIU_ROW, pinned.ptr, pairs); }, [&] { return pinned.values(); }},
      {"device", [&] { return fc_pcc_triu_device(gpu.get(), s.get(), FC_TRIU_ROW, device.ptr, pairs); }, [&] { return device.to_host(); }},
  };
  const std::vector<double> expected = triangle_of(reference_dense(normalize(d)), n, FC_TRIU_ROW);
  for (const Path& path : paths) {
    SCOPED_TRACE(path.name);
    check(fc_context_set_progress(gpu.get(), nullptr, nullptr), "fc_context_set_progress");
    ASSERT_EQ(path.run(), FC_OK) << fc_last_error();
    const std::vector<float> uncancelled = path.values();
    EXPECT_TRUE(follows_policy(uncancelled, expected, FC_CONSTANT_NAN, 1e-5));

    CancelProbe probe;
    probe.cancel_at = 5;
    check(fc_context_set_progress(gpu.get(), probe_progress, &probe), "fc_context_set_progress");
    EXPECT_EQ(path.run(), FC_ERR_ABORTED) << fc_last_error();
    EXPECT_EQ(probe.calls, 5) << "progress reported after the cancel";
    EXPECT_FALSE(probe.wrong_thread) << "progress callback ran on another thread";
    // Nothing left running: the device is idle and no error is pending.
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_EQ(cudaGetLastError(), cudaSuccess);

    CancelProbe full;
    check(fc_context_set_progress(gpu.get(), probe_progress, &full), "fc_context_set_progress");
    ASSERT_EQ(path.run(), FC_OK) << fc_last_error();
    EXPECT_FALSE(full.wrong_thread) << "progress callback ran on another thread";
    EXPECT_FALSE(full.decreased) << "progress went backwards";
    EXPECT_EQ(full.last_done, pairs) << "the last report is not the total";
    EXPECT_GE(full.calls, 20) << "expected a report per band";
    EXPECT_TRUE(bit_identical(path.values(), uncancelled)) << "a run after a cancel differs from one without";
  }
}

// ---------------------------------------------------------------------------------------------
// The caller's stream and device.

TEST(CudaStream, ComputationIsOrderedAfterTheCallersStream) {
  REQUIRE_CUDA();
  const int64_t n = 2053, t = 165, pairs = fc_triu_size(n);
  const Dataset d = structured_data(n, t, 2053u);
  const Context gpu = cuda_context();
  const Series s = make_series(gpu, d);
  const std::vector<float> expected = pcc_triu(gpu, s, FC_TRIU_ROW);

  cudaStream_t stream = nullptr;
  cuda_ok(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
  check(fc_context_set_cuda_stream(gpu.get(), stream), "fc_context_set_cuda_stream");
  CUstream_st* got_stream = nullptr;
  check(fc_context_get_cuda_stream(gpu.get(), &got_stream), "fc_context_get_cuda_stream");
  EXPECT_EQ(got_stream, stream);

  // Keep the caller's stream busy (1 GiB memsets), then poison the output on it: a computation
  // not ordered after the stream would be overwritten by the poison.
  DeviceArray<float> out(static_cast<size_t>(pairs));
  DeviceArray<char> busy(size_t(1) << 30);
  for (int k = 0; k < 8; ++k) cuda_ok(cudaMemsetAsync(busy.ptr, k, busy.count, stream), "cudaMemsetAsync");
  cuda_ok(cudaMemsetAsync(out.ptr, 0xFF, out.count * sizeof(float), stream), "cudaMemsetAsync");
  check(fc_pcc_triu_device(gpu.get(), s.get(), FC_TRIU_ROW, out.ptr, pairs), "fc_pcc_triu_device");
  EXPECT_TRUE(bit_identical(out.to_host(), expected)) << "the output was computed before the caller's queued work";
  check(fc_context_set_cuda_stream(gpu.get(), nullptr), "fc_context_set_cuda_stream(NULL)");
  cudaStreamDestroy(stream);
}

TEST(CudaDevice, CallersCurrentDeviceIsRestored) {
  REQUIRE_CUDA();
  int count = 0;
  cuda_ok(cudaGetDeviceCount(&count), "cudaGetDeviceCount");
  // With one GPU the caller's device is the context's; with more, the context computes on device
  // 0 while the caller works on the last one.
  const int callers = count - 1;
  cuda_ok(cudaSetDevice(callers), "cudaSetDevice");
  auto current = [] {
    int dev = -1;
    cudaGetDevice(&dev);
    return dev;
  };
  fc_context* raw = nullptr;
  check(fc_context_create(FC_BACKEND_CUDA, 0, &raw), "fc_context_create(CUDA, 0)");
  Context gpu(raw);
  EXPECT_EQ(current(), callers) << "fc_context_create";
  int device = -1;
  check(fc_context_get_cuda_device(gpu.get(), &device), "fc_context_get_cuda_device");
  EXPECT_EQ(device, 0);
  const Dataset d = structured_data(300, 50, 300u);
  {
    const Series s = make_series(gpu, d);
    EXPECT_EQ(current(), callers) << "fc_series_create_f64";
    pcc_triu(gpu, s, FC_TRIU_COL);
    EXPECT_EQ(current(), callers) << "fc_pcc_triu";
    pcc_dense(gpu, s, 300);
    EXPECT_EQ(current(), callers) << "fc_pcc_dense";
    {
      cuda_ok(cudaSetDevice(0), "cudaSetDevice");
      DeviceArray<float> out(static_cast<size_t>(fc_triu_size(300)));
      cuda_ok(cudaSetDevice(callers), "cudaSetDevice");
      check(fc_pcc_triu_device(gpu.get(), s.get(), FC_TRIU_ROW, out.ptr, fc_triu_size(300)), "fc_pcc_triu_device");
      EXPECT_EQ(current(), callers) << "fc_pcc_triu_device";
    }
  }
  EXPECT_EQ(current(), callers) << "fc_series_destroy";
  cuda_ok(cudaSetDevice(0), "cudaSetDevice");
}

// ---------------------------------------------------------------------------------------------
// Misuse is reported, not crashed on.

TEST(CudaErrors, WrongKindsOfMemoryAndContexts) {
  REQUIRE_CUDA();
  const int64_t n = 101, pairs = fc_triu_size(n);
  const Dataset d = structured_data(n, 40, 101u);
  const Context gpu = cuda_context();
  const Series s = make_series(gpu, d);
  std::vector<float> host(static_cast<size_t>(pairs));
  DeviceArray<float> device(static_cast<size_t>(pairs));
  EXPECT_EQ(fc_pcc_triu_device(gpu.get(), s.get(), FC_TRIU_ROW, host.data(), pairs), FC_ERR_INVALID_ARG);
  EXPECT_NE(std::string(fc_last_error()).find("device memory"), std::string::npos) << fc_last_error();
  EXPECT_EQ(fc_pcc_triu(gpu.get(), s.get(), FC_TRIU_ROW, device.ptr, pairs), FC_ERR_INVALID_ARG);
  EXPECT_EQ(fc_pcc_triu_device(gpu.get(), s.get(), FC_TRIU_ROW, device.ptr, pairs - 1), FC_ERR_BUFFER_TOO_SMALL);
  EXPECT_EQ(fc_pcc_triu_device(gpu.get(), s.get(), FC_TRIU_ROW, nullptr, pairs), FC_ERR_NULL_ARG);

  const Context cpu(FC_BACKEND_CPU);
  const Series s_cpu = make_series(cpu, d);
  EXPECT_EQ(fc_pcc_triu_device(cpu.get(), s_cpu.get(), FC_TRIU_ROW, device.ptr, pairs), FC_ERR_INVALID_ARG);
  EXPECT_EQ(fc_context_set_cuda_stream(cpu.get(), nullptr), FC_ERR_INVALID_ARG);
  EXPECT_EQ(fc_pcc_triu_device(gpu.get(), s_cpu.get(), FC_TRIU_ROW, device.ptr, pairs), FC_ERR_INVALID_ARG);
}

// ---------------------------------------------------------------------------------------------
// Past 2^32 pairs: N = 92,683 gives 4,295,022,903 pairs (N = 92,682 gives 4,294,930,221, just
// under 2^32 = 4,294,967,296). Device output (17.2 GB) in both orders, then the pull iterator
// through host memory, checked at sampled pairs (the ends, the pairs around offset 2^32, and
// random ones) against float64 dot products of the input.

TEST(CudaLarge, PastTwoToThe32PairsAtSampledPairs) {
  REQUIRE_CUDA();
  const int64_t n = 92683, t = 16;
  const int64_t pairs = fc_triu_size(n);
  ASSERT_GT(pairs, int64_t(1) << 32);
  size_t free_bytes = 0, total_bytes = 0;
  cuda_ok(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
  if (free_bytes < static_cast<size_t>(pairs) * 4 + (size_t(3) << 30))
    GTEST_SKIP() << "needs " << pairs * 4 / 1e9 << " GB of device memory plus working space; " << free_bytes / 1e9 << " GB free";

  const Dataset d = structured_data(n, t, 92683u);
  const Reference ref = normalize(d);
  const Context gpu = cuda_context();
  const Series s = make_series(gpu, d);

  std::vector<int64_t> offsets = {0, 1, pairs - 2, pairs - 1};
  for (int64_t k = -3; k <= 3; ++k) offsets.push_back((int64_t(1) << 32) + k);
  for (int64_t k = -3; k <= 3; ++k) offsets.push_back((int64_t(1) << 31) + k);
  for (int64_t k = int64_t(1) << 31; k < pairs; k += int64_t(1) << 31) offsets.push_back(k);
  Random rng(2024);
  for (int k = 0; k < 3000; ++k) offsets.push_back(static_cast<int64_t>(rng.uniform() * static_cast<double>(pairs)));

  DeviceArray<float> out(static_cast<size_t>(pairs));
  for (fc_triu_order order : {FC_TRIU_ROW, FC_TRIU_COL}) {
    SCOPED_TRACE(order == FC_TRIU_ROW ? "row order" : "column order");
    check(fc_pcc_triu_device(gpu.get(), s.get(), order, out.ptr, pairs), "fc_pcc_triu_device");
    double worst = 0.0;
    for (int64_t off : offsets) {
      int64_t i = 0, j = 0;
      check(fc_triu_pair(n, order, off, &i, &j), "fc_triu_pair");
      float got = 0.0f;
      cuda_ok(cudaMemcpy(&got, out.ptr + off, sizeof got, cudaMemcpyDeviceToHost), "cudaMemcpy");
      const double want = dot(ref.row(i), ref.row(j), t);
      worst = std::max(worst, std::fabs(static_cast<double>(got) - want));
      ASSERT_NEAR(got, want, 1e-5) << "offset " << off << " = pair (" << i << ", " << j << ")";
    }
    RecordProperty(order == FC_TRIU_ROW ? "max_err_row" : "max_err_col", std::to_string(worst));
  }

  // The pull iterator hands out host blocks with 64-bit offsets; check the blocks that hold
  // sampled offsets (including the last, past 2^32).
  fc_blocks* it = nullptr;
  check(fc_pcc_blocks_begin(gpu.get(), s.get(), 0, &it), "fc_pcc_blocks_begin");
  std::unique_ptr<fc_blocks, void (*)(fc_blocks*)> owner(it, fc_blocks_destroy);
  int64_t max_count = 0;
  check(fc_blocks_max_count(it, &max_count), "fc_blocks_max_count");
  std::vector<float> buf(static_cast<size_t>(max_count));
  int64_t covered = 0, checked = 0;
  for (;;) {
    fc_block_info info;
    const fc_status st = fc_blocks_next(it, buf.data(), max_count, &info);
    if (st == FC_DONE) break;
    check(st, "fc_blocks_next");
    ASSERT_EQ(info.triu_offset, covered) << "blocks must tile the triangle";
    covered += info.count;
    for (int64_t off : offsets) {
      if (off < info.triu_offset || off >= info.triu_offset + info.count) continue;
      int64_t i = 0, j = 0;
      check(fc_triu_pair(n, FC_TRIU_ROW, off, &i, &j), "fc_triu_pair");
      ASSERT_NEAR(buf[static_cast<size_t>(off - info.triu_offset)], dot(ref.row(i), ref.row(j), t), 1e-5)
          << "block offset " << off << " = pair (" << i << ", " << j << ")";
      ++checked;
    }
  }
  EXPECT_EQ(covered, pairs);
  EXPECT_EQ(checked, static_cast<int64_t>(offsets.size()));
}

}  // namespace
