// A context over several GPUs (fc_context_create_cuda_devices, issue 33): every call equals the
// primary device alone bit for bit (FP32 and FP64), on 20,000 x 165 structured data and on odd
// sizes with constant series; argument errors; a failure injected on device 1 only fails the call
// naming "device 1" and the context then computes correctly; the caller's current device is
// restored. Tests that need two devices skip with a message on a machine with one.
//
// Under compute-sanitizer, leave out the 20,000-series case: --gtest_filter=-*Large* (the others
// take seconds).
//
// The failure injection defines cudaStreamSynchronize and cudaMemcpyAsync in this program (the
// library's calls bind to them first, as in test_cuda_faults.cpp): when armed, the k-th call made
// while device 1 is current does its work and then reports cudaErrorInvalidValue.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "api_calls.hpp"
#include "every_call.hpp"
#include "fastconn/fastconn_cuda.h"
#include "reference.hpp"
#include "require_cuda.hpp"

namespace {

std::atomic<long> g_countdown{0};  // > 0: the call on g_device that brings it to 0 fails
std::atomic<int> g_device{1};
std::atomic<bool> g_fired{false};

template <class F>
F real(const char* name) {
  void* f = dlsym(RTLD_NEXT, name);
  if (f == nullptr) {
    std::fprintf(stderr, "test_cuda_multi: dlsym(%s) failed: %s\n", name, dlerror());
    std::abort();
  }
  return reinterpret_cast<F>(f);
}

bool fail_now() {
  if (g_countdown.load() <= 0) return false;
  int device = -1;
  if (cudaGetDevice(&device) != cudaSuccess || device != g_device.load()) return false;
  if (g_countdown.fetch_sub(1) == 1) {
    g_fired = true;
    return true;
  }
  return false;
}

}  // namespace

#define REAL(name) static const auto real_##name = real<decltype(&name)>(#name)
extern "C" {
cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
  REAL(cudaStreamSynchronize);
  const cudaError_t status = real_cudaStreamSynchronize(stream);
  return fail_now() ? cudaErrorInvalidValue : status;
}
cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t count, cudaMemcpyKind kind, cudaStream_t stream) {
  REAL(cudaMemcpyAsync);
  const cudaError_t status = real_cudaMemcpyAsync(dst, src, count, kind, stream);
  return fail_now() ? cudaErrorInvalidValue : status;
}
}  // extern "C"

namespace {

using namespace fctest;

int device_count() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return count;
}

#define REQUIRE_TWO_DEVICES()                                                                        \
  do {                                                                                               \
    REQUIRE_CUDA();                                                                                  \
    if (device_count() < 2)                                                                          \
      GTEST_SKIP() << "one CUDA device visible: a multi-device context needs two (run on the 2-GPU machine)"; \
  } while (0)

Context devices_context(std::vector<int> ids) {
  fc_context* ctx = nullptr;
  check(fc_context_create_cuda_devices(ids.empty() ? nullptr : ids.data(), static_cast<int>(ids.size()), &ctx),
        "fc_context_create_cuda_devices");
  return Context(ctx);
}

Context primary_context() {
  fc_context* ctx = nullptr;
  check(fc_context_create(FC_BACKEND_CUDA, 0, &ctx), "fc_context_create");
  return Context(ctx);
}

std::vector<CallOutput> run_every_call(const Context& ctx, const Dataset& d, fc_precision precision, const EveryCallOptions& o) {
  check(fc_context_set_precision(ctx.get(), precision), "fc_context_set_precision");
  const Series s = make_series(ctx, d);
  return every_call(ctx.get(), s.get(), d.n, d.t, o);
}

TEST(CudaMulti, ArgumentErrors) {
  fc_context* ctx = nullptr;
  const int dup[3] = {0, 1, 0}, negative[2] = {0, -3}, far[2] = {0, 4096};
  EXPECT_EQ(fc_context_create_cuda_devices(nullptr, 0, nullptr), FC_ERR_NULL_ARG);
  EXPECT_EQ(fc_context_create_cuda_devices(nullptr, -1, &ctx), FC_ERR_INVALID_ARG);
  EXPECT_NE(std::string(fc_last_error()).find("n_devices is -1"), std::string::npos) << fc_last_error();
  EXPECT_EQ(fc_context_create_cuda_devices(nullptr, 2, &ctx), FC_ERR_NULL_ARG);
  EXPECT_EQ(fc_context_create_cuda_devices(dup, 3, &ctx), FC_ERR_INVALID_ARG);
  EXPECT_NE(std::string(fc_last_error()).find("devices[2] is 0"), std::string::npos) << fc_last_error();
  EXPECT_EQ(fc_context_create_cuda_devices(negative, 2, &ctx), FC_ERR_INVALID_ARG);
  EXPECT_NE(std::string(fc_last_error()).find("devices[1] is -3"), std::string::npos) << fc_last_error();
  const fc_status st = fc_context_create_cuda_devices(far, 2, &ctx);
  if (device_count() > 0) {
    EXPECT_EQ(st, FC_ERR_INVALID_ARG);
    EXPECT_NE(std::string(fc_last_error()).find("devices[1] is 4096 but only"), std::string::npos) << fc_last_error();
  } else {
    EXPECT_EQ(st, FC_ERR_BACKEND_UNAVAILABLE);
  }
  EXPECT_EQ(ctx, nullptr);
}

TEST(CudaMulti, DeviceListAndOneDevice) {
  REQUIRE_CUDA();
  const Context one = devices_context({0});
  std::vector<int> ids(256, -1);
  int n = 0;
  check(fc_context_get_cuda_devices(one.get(), ids.data(), 256, &n), "fc_context_get_cuda_devices");
  EXPECT_EQ(n, 1);
  EXPECT_EQ(ids[0], 0);
  const Context all = devices_context({});
  check(fc_context_get_cuda_devices(all.get(), ids.data(), 256, &n), "fc_context_get_cuda_devices");
  EXPECT_EQ(n, device_count());
  for (int i = 0; i < n; ++i) EXPECT_EQ(ids[static_cast<size_t>(i)], i);
  int primary = -1;
  check(fc_context_get_cuda_device(all.get(), &primary), "fc_context_get_cuda_device");
  EXPECT_EQ(primary, 0);
  fc_backend backend = FC_BACKEND_AUTO;
  check(fc_context_get_backend(all.get(), &backend), "fc_context_get_backend");
  EXPECT_EQ(backend, FC_BACKEND_CUDA);
  // a short capacity: the count, devices untouched
  int short_ids[1] = {-7};
  if (device_count() >= 2) {
    EXPECT_EQ(fc_context_get_cuda_devices(all.get(), short_ids, 1, &n), FC_ERR_BUFFER_TOO_SMALL);
    EXPECT_EQ(n, device_count());
    EXPECT_EQ(short_ids[0], -7);
  }
  n = 0;
  EXPECT_EQ(fc_context_get_cuda_devices(all.get(), nullptr, 0, &n), FC_ERR_BUFFER_TOO_SMALL);
  EXPECT_EQ(n, device_count());
  EXPECT_EQ(fc_context_get_cuda_devices(all.get(), ids.data(), -1, &n), FC_ERR_INVALID_ARG);
}

TEST(CudaMulti, LargeSameBitsAsOneDevice) {
  REQUIRE_TWO_DEVICES();
  Dataset d = rounded_to_float(structured_data(20000, 165, 33));
  make_constant(d, 4321, 950.0);
  EveryCallOptions o;
  o.window_length = 150;  // 6 windows of 20,000 series
  o.abs_threshold = 0.9;  // a graph the modules' calls solve in seconds
  o.block_rows = 997;     // 21 blocks (5 rows a block: 4,000 calls of 100,000 pairs)
  // FP32 here (FP64 on the odd sizes below): the step's GPU minutes go to the odd cases.
  std::vector<CallOutput> want;
  {
    const Context one = primary_context();
    want = run_every_call(one, d, FC_PRECISION_FP32, o);
  }
  const Context two = devices_context({0, 1});
  const std::vector<CallOutput> got = run_every_call(two, d, FC_PRECISION_FP32, o);
  expect_same_outputs(want, got, "20,000 x 165 FP32 on {0, 1}");
  // where the time goes (FASTCONN_MULTI_TIMINGS: a file the timings are appended to)
  const std::string timings = call_seconds(want, "device 0 alone") + call_seconds(got, "devices {0, 1}");
  std::cout << timings;
  if (const char* path = std::getenv("FASTCONN_MULTI_TIMINGS")) std::ofstream(path, std::ios::app) << timings;
}

TEST(CudaMulti, OddSizesSameBitsAsOneDevice) {
  REQUIRE_TWO_DEVICES();
  struct Size {
    int64_t n, t;
  };
  for (const Size& z : {Size{1, 37}, Size{2, 2}, Size{3, 37}, Size{7, 2}, Size{101, 37}, Size{1009, 23}}) {
    Dataset d = structured_data(z.n, z.t, 77 + static_cast<uint64_t>(z.n));
    if (z.n >= 3) make_constant(d, z.n / 2, 13.0);
    // TF32 (the PCC family whole on the primary device, the window graphs a window per device)
    // on the larger sizes only: the promise is the same bits there too.
    std::vector<fc_precision> precisions{FC_PRECISION_FP32, FC_PRECISION_FP64};
    if (z.n >= 101) precisions.push_back(FC_PRECISION_TF32);
    for (fc_precision p : precisions) {
      const std::string what = "N=" + std::to_string(z.n) + " T=" + std::to_string(z.t) +
                               (p == FC_PRECISION_FP64 ? " FP64" : p == FC_PRECISION_TF32 ? " TF32" : " FP32");
      const std::vector<CallOutput> want = run_every_call(primary_context(), d, p, EveryCallOptions{});
      expect_same_outputs(want, run_every_call(devices_context({}), d, p, EveryCallOptions{}), what + " all devices");
      const Context limited = devices_context({1, 0});  // the other device as the primary
      check(fc_context_set_memory_limit(limited.get(), 4 << 20), "fc_context_set_memory_limit");
      const Context one_limited = primary_context();
      check(fc_context_set_memory_limit(one_limited.get(), 4 << 20), "fc_context_set_memory_limit");
      expect_same_outputs(run_every_call(one_limited, d, p, EveryCallOptions{}),
                          run_every_call(limited, d, p, EveryCallOptions{}), what + " {1, 0}, 4 MiB limit");
    }
  }
}

// Every window's graph through fc_dfc_next_graph (a window per device on a multi-device context,
// dfc/window_graphs.hpp), each window's CSR as copied out.
std::vector<Csr> window_graphs(const Context& ctx, const Series& s, int64_t length, int64_t step, fc_edge_rule rule,
                               double param) {
  fc_dfc* it = nullptr;
  check(fc_dfc_begin(ctx.get(), s.get(), length, step, FC_TAPER_RECTANGULAR, 0.0, &it), "fc_dfc_begin");
  const std::unique_ptr<fc_dfc, void (*)(fc_dfc*)> owner(it, fc_dfc_destroy);
  std::vector<Csr> out;
  for (;;) {
    fc_graph* g = nullptr;
    int64_t at = -2;
    const fc_status st = fc_dfc_next_graph(it, rule, param, FC_GRAPH_WEIGHTED, &g, &at);
    if (st == FC_DONE) break;
    check(st, "fc_dfc_next_graph");
    const std::unique_ptr<fc_graph, void (*)(fc_graph*)> graph(g, fc_graph_destroy);
    EXPECT_EQ(at, static_cast<int64_t>(out.size()));
    out.push_back(copy_out(g));
  }
  return out;
}

// Byte for byte, window by window.
void expect_same_windows(const std::vector<Csr>& want, const std::vector<Csr>& got, const std::string& what) {
  ASSERT_EQ(want.size(), got.size()) << what;
  for (size_t k = 0; k < want.size(); ++k) {
    SCOPED_TRACE(what + ", window " + std::to_string(k));
    ASSERT_EQ(want[k].n_edges, got[k].n_edges);
    EXPECT_TRUE(want[k].offsets == got[k].offsets);
    EXPECT_TRUE(want[k].columns == got[k].columns);
    EXPECT_EQ(0, std::memcmp(want[k].weights.data(), got[k].weights.data(), want[k].weights.size() * sizeof(float)));
  }
}

// The window graphs on all devices and on {1, 0} (a window per device) equal device 0 alone's,
// byte for byte: 20,000 x 165, windows of 150 samples, step 4 (4 windows: on 2 devices two
// batches, on 3 a full and a partial one), r >= 0.7 and |r| >= 0.7, FP32 and FP64 (r >= only);
// the windows differ from one another (a graph of the wrong window would be caught).
TEST(CudaMulti, LargeWindowGraphsSameBytesAsOneDevice) {
  REQUIRE_TWO_DEVICES();
  Dataset d = rounded_to_float(structured_data(20000, 165, 34));
  make_constant(d, 1234, -3.5);
  struct Request {
    fc_edge_rule rule;
    fc_precision precision;
  };
  for (const Request& q : {Request{FC_EDGE_THRESHOLD, FC_PRECISION_FP32}, Request{FC_EDGE_ABS_THRESHOLD, FC_PRECISION_FP32},
                           Request{FC_EDGE_THRESHOLD, FC_PRECISION_FP64}, Request{FC_EDGE_ABS_THRESHOLD, FC_PRECISION_TF32}}) {
    const std::string what = std::string(q.rule == FC_EDGE_THRESHOLD ? "r >= 0.7" : "|r| >= 0.7") +
                             (q.precision == FC_PRECISION_FP64 ? " FP64" : q.precision == FC_PRECISION_TF32 ? " TF32" : " FP32");
    std::vector<Csr> want;
    {
      Context one = primary_context();
      one.precision(q.precision);
      want = window_graphs(one, make_series(one, d), 150, 2, q.rule, 0.7);
    }
    ASSERT_EQ(want.size(), 8u);  // two batches on 4 devices, four on 2: the next batch built ahead
    for (size_t k = 1; k < want.size(); ++k) EXPECT_TRUE(want[k].columns != want[k - 1].columns) << what << " window " << k;
    EXPECT_GT(want[0].n_edges, 0) << what;
    for (const std::vector<int>& ids : {std::vector<int>{}, std::vector<int>{1, 0}}) {
      Context many = devices_context(ids);
      many.precision(q.precision);
      expect_same_windows(want, window_graphs(many, make_series(many, d), 150, 2, q.rule, 0.7),
                          what + (ids.empty() ? ", all devices" : ", devices {1, 0}"));
    }
  }
}

// d on device 0 alone and on {0, 1}.
struct OneAndTwo {
  Context one, two;
  Series s1, s2;
  explicit OneAndTwo(const Dataset& d) : one(primary_context()), two(devices_context({0, 1})) {
    s1 = make_series(one, d);
    s2 = make_series(two, d);
  }
};

TEST(CudaMulti, FailureOnDeviceOneNamesItAndTheContextRecovers) {
  REQUIRE_TWO_DEVICES();
  const OneAndTwo c(structured_data(3001, 64, 12));
  const Context &one = c.one, &two = c.two;
  const Series &s1 = c.s1, &s2 = c.s2;
  const std::vector<float> want = pcc_triu(one, s1, FC_TRIU_ROW);
  std::vector<float> out(want.size());
  // The k-th stream synchronization or copy made on `device` fails; false when it made fewer.
  auto fail_on = [&](int device, long k) {
    g_device = device;
    g_fired = false;
    g_countdown = k;
    const fc_status st = fc_pcc_triu(two.get(), s2.get(), FC_TRIU_ROW, out.data(), static_cast<int64_t>(out.size()));
    const std::string message = fc_last_error();
    g_countdown = 0;
    if (!g_fired) return false;
    EXPECT_EQ(st, FC_ERR_CUDA) << "device " << device << " call " << k << ": " << message;
    EXPECT_EQ(message.rfind("fc_pcc_triu: device " + std::to_string(device) + " (", 0), 0u) << message;
    EXPECT_TRUE(pcc_triu(two, s2, FC_TRIU_ROW) == want) << "after failure " << k << " on device " << device;
    return true;
  };
  EXPECT_TRUE(fail_on(1, 1)) << "device 1 made no stream synchronization or copy";
  for (long k : {2L, 3L, 5L})
    if (!fail_on(1, k)) break;
  EXPECT_TRUE(fail_on(0, 1));  // the primary's device, too, fails the call by its name
  EXPECT_TRUE(pcc_triu(two, s2, FC_TRIU_ROW) == want);
  std::vector<int64_t> degree(3001), degree_one(3001);
  check(fc_pcc_degree(one.get(), s1.get(), FC_EDGE_ABS_THRESHOLD, 0.4, degree_one.data(), nullptr), "fc_pcc_degree");
  check(fc_pcc_degree(two.get(), s2.get(), FC_EDGE_ABS_THRESHOLD, 0.4, degree.data(), nullptr), "fc_pcc_degree");
  EXPECT_EQ(degree, degree_one);
}

TEST(CudaMulti, CurrentDeviceAndStreamKept) {
  REQUIRE_TWO_DEVICES();
  ASSERT_EQ(cudaSetDevice(1), cudaSuccess);  // kept through context and series creation too
  const OneAndTwo c(structured_data(1500, 50, 3));
  const std::vector<float> want = pcc_triu(c.one, c.s1, FC_TRIU_COL);
  const Context& two = c.two;
  const Series& s2 = c.s2;
  EXPECT_TRUE(pcc_triu(two, s2, FC_TRIU_COL) == want);
  int current = -1;
  ASSERT_EQ(cudaGetDevice(&current), cudaSuccess);
  EXPECT_EQ(current, 1);
  // a stream of the primary device: the split orders after it
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  check(fc_context_set_cuda_stream(two.get(), stream), "fc_context_set_cuda_stream");
  EXPECT_TRUE(pcc_triu(two, s2, FC_TRIU_COL) == want);
  check(fc_context_set_cuda_stream(two.get(), nullptr), "fc_context_set_cuda_stream");
  ASSERT_EQ(cudaStreamDestroy(stream), cudaSuccess);
  ASSERT_EQ(cudaGetDevice(&current), cudaSuccess);
  EXPECT_EQ(current, 0);
}

}  // namespace
