// Failure injection on the CUDA backend (issue 12): every CUDA runtime and cuBLAS call the
// library makes can be made to fail. This program defines those functions itself, so the
// library's calls reach these first (the dynamic linker binds the executable's definitions
// before libcudart's and libcublas's); each calls the real one through dlsym(RTLD_NEXT) and,
// when armed, reports a failure for the k-th call: allocations fail without allocating
// (cudaErrorMemoryAllocation, CUBLAS_STATUS_ALLOC_FAILED), every other call does its work and
// then reports an error, and a kernel launch fails through the cudaGetLastError that checks it.
// For each API call, k = 1, 2, ... until the call makes fewer CUDA calls than k: the status is
// FC_ERR_CUDA or FC_ERR_OUT_OF_MEMORY with a message naming the call, the context and series stay
// usable (the same call again gives the reference bits), and nothing is lost (no cudaMalloc or
// cudaHostAlloc of the library's is left once the context is destroyed). A failure
// the library has a way around (a smaller tile, the unfused degree) may also end in FC_OK, with
// the reference result.
//
// The failures are simulated in the test program only: the library has no hook, nothing of this
// is in a release build.
//
// The same interposition delays work (CudaStalls): a cudaMemsetAsync can be made to wait on its
// stream first, so that work the library queues on one stream runs late against its other
// streams; the results must not change (every cross-stream dependency is an event wait).
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "api_calls.hpp"
#include "graph_reference.hpp"
#include "reference.hpp"
#include "require_cuda.hpp"

namespace {

std::atomic<long> g_countdown{0};
std::atomic<bool> g_fired{false};
std::atomic<long> g_calls{0};

// CudaStalls: while g_stall_us > 0, each cudaMemsetAsync on a stream other than the first one
// seen since arming (g_unstalled) waits g_stall_us on its stream before it runs.
std::atomic<int> g_stall_us{0};
std::atomic<cudaStream_t> g_unstalled{nullptr};
std::atomic<long> g_stalls{0};
void CUDART_CB sleep_on_stream(void*) { usleep(static_cast<useconds_t>(g_stall_us.load())); }

// True for the armed call: it is the one to fail.
bool fail_now() {
  g_calls.fetch_add(1, std::memory_order_relaxed);
  if (g_countdown.load(std::memory_order_relaxed) > 0 && g_countdown.fetch_sub(1) == 1) {
    g_fired = true;
    return true;
  }
  return false;
}

// The library's live device and pinned allocations (cudaMalloc / cudaHostAlloc not yet freed):
// cuBLAS and the driver allocate through other paths, so this counts the library's own alone.
std::mutex g_live_mutex;
std::unordered_map<void*, size_t> g_live;
void track(void* p, size_t bytes) {
  std::lock_guard<std::mutex> lock(g_live_mutex);
  g_live[p] = bytes;
}
void untrack(void* p) {
  std::lock_guard<std::mutex> lock(g_live_mutex);
  g_live.erase(p);
}
size_t live_allocations() {
  std::lock_guard<std::mutex> lock(g_live_mutex);
  return g_live.size();
}

template <class F>
F real(const char* name) {
  void* f = dlsym(RTLD_NEXT, name);
  if (f == nullptr) {
    std::fprintf(stderr, "test_cuda_faults: dlsym(%s) failed: %s\n", name, dlerror());
    std::abort();
  }
  return reinterpret_cast<F>(f);
}

}  // namespace

// --- the interposed calls (signatures as cuda_runtime_api.h and cublas_api.h declare them) ----
#define REAL(name) static const auto real_##name = real<decltype(&name)>(#name)

extern "C" {

cudaError_t cudaMalloc(void** p, size_t bytes) {
  REAL(cudaMalloc);
  if (fail_now()) return cudaErrorMemoryAllocation;
  const cudaError_t status = real_cudaMalloc(p, bytes);
  if (status == cudaSuccess) track(*p, bytes);
  return status;
}
cudaError_t cudaFree(void* p) {
  REAL(cudaFree);
  untrack(p);
  return real_cudaFree(p);
}
cudaError_t cudaHostAlloc(void** p, size_t bytes, unsigned int flags) {
  REAL(cudaHostAlloc);
  if (fail_now()) return cudaErrorMemoryAllocation;
  const cudaError_t status = real_cudaHostAlloc(p, bytes, flags);
  if (status == cudaSuccess) track(*p, bytes);
  return status;
}
cudaError_t cudaFreeHost(void* p) {
  REAL(cudaFreeHost);
  untrack(p);
  return real_cudaFreeHost(p);
}
cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t count, cudaMemcpyKind kind, cudaStream_t stream) {
  REAL(cudaMemcpyAsync);
  const cudaError_t status = real_cudaMemcpyAsync(dst, src, count, kind, stream);
  return fail_now() ? cudaErrorInvalidValue : status;
}
cudaError_t cudaMemcpy2DAsync(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height,
                              cudaMemcpyKind kind, cudaStream_t stream) {
  REAL(cudaMemcpy2DAsync);
  const cudaError_t status = real_cudaMemcpy2DAsync(dst, dpitch, src, spitch, width, height, kind, stream);
  return fail_now() ? cudaErrorInvalidValue : status;
}
cudaError_t cudaMemsetAsync(void* p, int value, size_t count, cudaStream_t stream) {
  REAL(cudaMemsetAsync);
  if (g_stall_us.load() > 0) {
    cudaStream_t none = nullptr;
    if (!g_unstalled.compare_exchange_strong(none, stream) && stream != g_unstalled.load() &&
        cudaLaunchHostFunc(stream, sleep_on_stream, nullptr) == cudaSuccess)
      ++g_stalls;
  }
  const cudaError_t status = real_cudaMemsetAsync(p, value, count, stream);
  return fail_now() ? cudaErrorInvalidValue : status;
}
cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
  REAL(cudaStreamSynchronize);
  const cudaError_t status = real_cudaStreamSynchronize(stream);
  return fail_now() ? cudaErrorLaunchTimeout : status;
}
cudaError_t cudaEventSynchronize(cudaEvent_t event) {
  REAL(cudaEventSynchronize);
  const cudaError_t status = real_cudaEventSynchronize(event);
  return fail_now() ? cudaErrorLaunchTimeout : status;
}
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
  REAL(cudaEventRecord);
  const cudaError_t status = real_cudaEventRecord(event, stream);
  return fail_now() ? cudaErrorInvalidResourceHandle : status;
}
cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags) {
  REAL(cudaStreamWaitEvent);
  const cudaError_t status = real_cudaStreamWaitEvent(stream, event, flags);
  return fail_now() ? cudaErrorInvalidResourceHandle : status;
}
cudaError_t cudaStreamCreateWithPriority(cudaStream_t* stream, unsigned int flags, int priority) {
  REAL(cudaStreamCreateWithPriority);
  if (fail_now()) return cudaErrorMemoryAllocation;
  return real_cudaStreamCreateWithPriority(stream, flags, priority);
}
cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned int flags) {
  REAL(cudaStreamCreateWithFlags);
  if (fail_now()) return cudaErrorMemoryAllocation;
  return real_cudaStreamCreateWithFlags(stream, flags);
}
cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int flags) {
  REAL(cudaEventCreateWithFlags);
  if (fail_now()) return cudaErrorMemoryAllocation;
  return real_cudaEventCreateWithFlags(event, flags);
}
// Every kernel launch of the library is checked with cudaGetLastError: a failure here is the
// launch failing.
cudaError_t cudaGetLastError(void) {
  REAL(cudaGetLastError);
  const cudaError_t status = real_cudaGetLastError();
  return fail_now() ? cudaErrorLaunchOutOfResources : status;
}

cublasStatus_t cublasCreate_v2(cublasHandle_t* handle) {
  REAL(cublasCreate_v2);
  if (fail_now()) return CUBLAS_STATUS_ALLOC_FAILED;
  return real_cublasCreate_v2(handle);
}
cublasStatus_t cublasSetStream_v2(cublasHandle_t handle, cudaStream_t stream) {
  REAL(cublasSetStream_v2);
  const cublasStatus_t status = real_cublasSetStream_v2(handle, stream);
  return fail_now() ? CUBLAS_STATUS_INTERNAL_ERROR : status;
}
cublasStatus_t cublasSgemm_v2(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                              const float* alpha, const float* a, int lda, const float* b, int ldb, const float* beta,
                              float* c, int ldc) {
  REAL(cublasSgemm_v2);
  const cublasStatus_t status = real_cublasSgemm_v2(h, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  return fail_now() ? CUBLAS_STATUS_EXECUTION_FAILED : status;
}
cublasStatus_t cublasDgemm_v2(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                              const double* alpha, const double* a, int lda, const double* b, int ldb,
                              const double* beta, double* c, int ldc) {
  REAL(cublasDgemm_v2);
  const cublasStatus_t status = real_cublasDgemm_v2(h, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  return fail_now() ? CUBLAS_STATUS_EXECUTION_FAILED : status;
}
cublasStatus_t cublasDsyrk_v2(cublasHandle_t h, cublasFillMode_t uplo, cublasOperation_t trans, int n, int k,
                              const double* alpha, const double* a, int lda, const double* beta, double* c, int ldc) {
  REAL(cublasDsyrk_v2);
  const cublasStatus_t status = real_cublasDsyrk_v2(h, uplo, trans, n, k, alpha, a, lda, beta, c, ldc);
  return fail_now() ? CUBLAS_STATUS_EXECUTION_FAILED : status;
}

}  // extern "C"

namespace {

using namespace fctest;
using Bytes = std::vector<unsigned char>;

template <class T>
void append(Bytes& out, const std::vector<T>& v) {
  const auto* b = reinterpret_cast<const unsigned char*>(v.data());
  out.insert(out.end(), b, b + v.size() * sizeof(T));
}


// The call with its k-th CUDA call failed, for every k; returns how many CUDA calls it makes.
// unavailable_ok: the call creates a context, which reports a failed start as
// FC_ERR_BACKEND_UNAVAILABLE.
long fail_each_cuda_call(const char* what, const std::function<fc_status()>& call, const std::function<void(Bytes&)>& collect,
                         bool unavailable_ok = false) {
  SCOPED_TRACE(what);
  Bytes reference;
  EXPECT_EQ(call(), FC_OK) << fc_last_error();
  collect(reference);
  long k = 1, recovered = 0;
  for (;; ++k) {
    g_fired = false;
    g_countdown = k;
    const fc_status status = call();
    g_countdown = 0;
    Bytes out;
    collect(out);
    if (!g_fired) {
      EXPECT_EQ(status, FC_OK) << fc_last_error();
      EXPECT_EQ(out, reference) << "the run past every failure point";
      break;
    }
    if (status == FC_OK) {  // a failure with a way around it (a smaller tile, the unfused degree)
      EXPECT_EQ(out, reference) << "the result after recovering from failing CUDA call " << k;
      ++recovered;
      continue;
    }
    EXPECT_TRUE(status == FC_ERR_CUDA || status == FC_ERR_OUT_OF_MEMORY || (unavailable_ok && status == FC_ERR_BACKEND_UNAVAILABLE))
        << "CUDA call " << k << ": " << fc_status_string(status) << ": " << fc_last_error();
    EXPECT_NE(std::strstr(fc_last_error(), "failed"), nullptr) << "CUDA call " << k << ": " << fc_last_error();
    EXPECT_EQ(call(), FC_OK) << "after failing CUDA call " << k << ": " << fc_last_error();
    Bytes again;
    collect(again);
    EXPECT_EQ(again, reference) << "after failing CUDA call " << k;
    if (::testing::Test::HasFailure() || k > 20000) break;
  }
  std::printf("  %-24s %5ld CUDA calls failed in turn (%ld recovered)\n", what, k - 1, recovered);
  return k - 1;
}

class CudaFaults : public ::testing::Test {
 protected:
  void SetUp() override {
    REQUIRE_CUDA();
    // A limit that cuts the triangle into several bands, so the pipeline's streams all take part.
    context.emplace(FC_BACKEND_CUDA);
    context->memory_limit(int64_t(1) << 20);
  }
  // No memory is lost: once the context (and every series and graph) is gone, none of the
  // library's cudaMalloc / cudaHostAlloc allocations is left, whatever failed on the way.
  void TearDown() override {
    if (!context) return;
    context.reset();
    EXPECT_EQ(live_allocations(), size_t(0)) << "device or pinned allocations left after the context is destroyed";
  }
  static constexpr int64_t kN = 389, kT = 75;
  Dataset d = structured_data(kN, kT, 0xC0DAu);
  std::optional<Context> context;
};

TEST_F(CudaFaults, SeriesAndTriangle) {
  const Context& ctx = *context;
  fc_series* s = nullptr;
  const long calls = fail_each_cuda_call(
      "fc_series_create_f64", [&] { return fc_series_create_f64(ctx.get(), d.x.data(), kN, kT, kT, 1, &s); },
      [&](Bytes& out) {
        if (s != nullptr) {
          std::vector<float> r(static_cast<size_t>(fc_triu_size(kN)));
          check(fc_pcc_triu(ctx.get(), s, FC_TRIU_ROW, r.data(), int64_t(r.size())), "fc_pcc_triu");
          append(out, r);
        }
        fc_series_destroy(s);
        s = nullptr;
      });
  EXPECT_GT(calls, 0);
  const Series a = make_series(ctx, d);
  std::vector<float> r(static_cast<size_t>(fc_triu_size(kN)));
  auto collect_r = [&](Bytes& out) { append(out, r); };
  EXPECT_GT(fail_each_cuda_call("fc_pcc_triu", [&] { return fc_pcc_triu(ctx.get(), a.get(), FC_TRIU_COL, r.data(), int64_t(r.size())); },
                                collect_r),
            10);
  std::vector<float> m(static_cast<size_t>(kN * kN));
  fail_each_cuda_call("fc_pcc_dense", [&] { return fc_pcc_dense(ctx.get(), a.get(), m.data(), kN); },
                      [&](Bytes& out) { append(out, m); });
  std::vector<float> buf(r.size());
  fail_each_cuda_call(
      "fc_pcc_blocks_*",
      [&] {
        fc_blocks* it = nullptr;
        fc_status st = fc_pcc_blocks_begin(ctx.get(), a.get(), 50, &it);
        fc_block_info info;
        while (st == FC_OK && (st = fc_blocks_next(it, buf.data(), int64_t(buf.size()), &info)) == FC_OK)
          std::memcpy(r.data() + info.triu_offset, buf.data(), sizeof(float) * size_t(info.count));
        fc_blocks_destroy(it);
        return st == FC_DONE ? FC_OK : st;
      },
      collect_r);
}

TEST_F(CudaFaults, Networks) {
  const Context& ctx = *context;
  const Series a = make_series(ctx, d);
  fc_graph* g = nullptr;
  auto collect_graph = [&](Bytes& out) {
    if (g != nullptr) {
      int64_t n = 0, e = 0;
      check(fc_graph_info(g, &n, &e), "fc_graph_info");
      std::vector<int64_t> offsets(static_cast<size_t>(n + 1)), columns(static_cast<size_t>(2 * e));
      std::vector<float> weights(static_cast<size_t>(2 * e));
      check(fc_graph_csr(g, offsets.data(), columns.data(), weights.data(), 2 * e), "fc_graph_csr");
      append(out, offsets);
      append(out, columns);
      append(out, weights);
    }
    fc_graph_destroy(g);
    g = nullptr;
  };
  fail_each_cuda_call("fc_pcc_graph |r|", [&] { return fc_pcc_graph(ctx.get(), a.get(), FC_EDGE_ABS_THRESHOLD, 0.4, FC_GRAPH_WEIGHTED, &g); },
                      collect_graph);
  fail_each_cuda_call("fc_pcc_graph density", [&] { return fc_pcc_graph(ctx.get(), a.get(), FC_EDGE_DENSITY, 0.05, FC_GRAPH_WEIGHTED, &g); },
                      collect_graph);
  std::vector<int64_t> k(static_cast<size_t>(kN));
  std::vector<double> w(static_cast<size_t>(kN));
  auto collect_degree = [&](Bytes& out) {
    append(out, k);
    append(out, w);
  };
  fail_each_cuda_call("fc_pcc_degree (fused)", [&] { return fc_pcc_degree(ctx.get(), a.get(), FC_EDGE_ABS_THRESHOLD, 0.4, k.data(), w.data()); },
                      collect_degree);
  fail_each_cuda_call("fc_pcc_degree top-k", [&] { return fc_pcc_degree(ctx.get(), a.get(), FC_EDGE_TOP_K, 5, k.data(), w.data()); },
                      collect_degree);
}

TEST_F(CudaFaults, Windows) {
  const Context& ctx = *context;
  const Series a = make_series(ctx, d);
  constexpr int64_t kLength = 30, kStep = 15, kRank = 4;
  const int64_t windows = fc_window_count(kT, kLength, kStep);
  std::vector<int64_t> k(static_cast<size_t>(windows * kN));
  fail_each_cuda_call(
      "fc_dfc_degree",
      [&] {
        return fc_dfc_degree(ctx.get(), a.get(), kLength, kStep, FC_TAPER_GAUSSIAN, 5.0, FC_EDGE_ABS_THRESHOLD, 0.4,
                             k.data(), nullptr);
      },
      [&](Bytes& out) { append(out, k); });
  std::vector<float> f(static_cast<size_t>(windows * kN * kRank));
  std::vector<double> e(static_cast<size_t>(windows));
  fail_each_cuda_call(
      "fc_dfc_lowrank",
      [&] {
        return fc_dfc_lowrank(ctx.get(), a.get(), kLength, kStep, FC_TAPER_RECTANGULAR, 0.0, kRank, f.data(),
                              int64_t(f.size()), e.data());
      },
      [&](Bytes& out) {
        append(out, f);
        append(out, e);
      });
}

// Fast ECM's eigensolve on the device (cuda_centrality.cpp's gram_space and cuda_eigen_space.cpp):
// every call of a product, a vector operation and the kept buffers' growth.
TEST_F(CudaFaults, FastEcm) {
  const Context& ctx = *context;
  const Series a = make_series(ctx, d);
  std::vector<double> c(static_cast<size_t>(kN + 1));  // the centrality, then lambda
  fail_each_cuda_call("fc_pcc_ecm", [&] { return fc_pcc_ecm(ctx.get(), a.get(), 0, c.data(), kN, &c[size_t(kN)]); },
                      [&](Bytes& out) { append(out, c); });
  constexpr int64_t kLength = 40, kStep = 35;
  const int64_t windows = fc_window_count(kT, kLength, kStep);
  std::vector<double> w(static_cast<size_t>(windows * (kN + 1)));
  fail_each_cuda_call(
      "fc_dfc_ecm",
      [&] {
        return fc_dfc_ecm(ctx.get(), a.get(), kLength, kStep, FC_TAPER_RECTANGULAR, 0.0, 0, w.data(), windows * kN,
                          w.data() + windows * kN);
      },
      [&](Bytes& out) { append(out, w); });
}

// Partial correlation (cuda_partial.cpp): no limit, which the n x n matrix would not fit.
TEST_F(CudaFaults, PartialCorrelation) {
  context->memory_limit(0);
  const Context& ctx = *context;
  const Series a = make_series(ctx, d);
  std::vector<double> p(static_cast<size_t>(kN * kN));
  std::vector<double> used(1);
  fail_each_cuda_call(
      "fc_partial_correlation",
      [&] {
        return fc_partial_correlation(ctx.get(), a.get(), FC_SHRINKAGE_LEDOIT_WOLF, FC_PARTIAL_CORRELATION, p.data(), kN,
                                      used.data());
      },
      [&](Bytes& out) {
        append(out, p);
        append(out, used);
      });
}

TEST_F(CudaFaults, ContextCreation) {
  fc_context* c = nullptr;
  fail_each_cuda_call(
      "fc_context_create", [&] { return fc_context_create(FC_BACKEND_CUDA, 0, &c); },
      [&](Bytes&) {
        fc_context_destroy(c);
        c = nullptr;
      },
      true);
}

// The dfc graphs' look-ahead (src/dfc/dfc.cpp) builds window k + 1's edges while window k's CSR
// is assembled on its own stream and copied out (cuda_csr.cpp), with no host wait between: the
// next edge pass waits for the assembly's reads of the arena on the device. Here every memset of
// the streams other than the copy stream (the assembly's first operation) waits 30 ms on its
// stream, so the assembly runs long after the next window's edges are computed; without that
// wait they would overwrite the arena it reads, and the graph would differ.
TEST(CudaStalls, EachWindowsGraphWhenTheAssemblyIsLate) {
  REQUIRE_CUDA();
  const int64_t n = 2999, t = 60, length = 12, step = 8;
  const Dataset d = structured_data(n, t, 0x5A11u);
  const int64_t w = fc_window_count(t, length, step);
  Context gpu(FC_BACKEND_CUDA);
  const Series s = make_series(gpu, d);
  std::vector<Csr> reference;
  for (int64_t k = 0; k < w; ++k) {
    fc_series* raw = nullptr;
    check(fc_series_window(gpu.get(), s.get(), k * step, length, FC_TAPER_RECTANGULAR, 0.0, &raw), "fc_series_window");
    const Series one(raw);
    reference.push_back(pcc_graph(gpu, one, FC_EDGE_ABS_THRESHOLD, 0.02, FC_GRAPH_WEIGHTED));
  }
  ASSERT_GT(reference[0].n_edges, int64_t(2200000));  // arrays past 16 MiB: the direct copies from window 2 on
  fc_dfc* raw_it = nullptr;
  check(fc_dfc_begin(gpu.get(), s.get(), length, step, FC_TAPER_RECTANGULAR, 0.0, &raw_it), "fc_dfc_begin");
  std::unique_ptr<fc_dfc, void (*)(fc_dfc*)> it(raw_it, fc_dfc_destroy);
  g_stalls = 0;
  g_unstalled = nullptr;
  g_stall_us = 30000;
  for (int64_t k = 0; k < w; ++k) {
    SCOPED_TRACE("window " + std::to_string(k));
    fc_graph* g = nullptr;
    int64_t at = -1;
    const fc_status status = fc_dfc_next_graph(it.get(), FC_EDGE_ABS_THRESHOLD, 0.02, FC_GRAPH_WEIGHTED, &g, &at);
    if (status != FC_OK) g_stall_us = 0;
    check(status, "fc_dfc_next_graph");
    ASSERT_EQ(at, k);
    const Csr got = copy_out(g);
    fc_graph_destroy(g);
    ASSERT_EQ(got.n_edges, reference[k].n_edges);
    ASSERT_EQ(got.offsets, reference[k].offsets);
    ASSERT_EQ(got.columns, reference[k].columns);
    ASSERT_EQ(0, std::memcmp(got.weights.data(), reference[k].weights.data(), got.weights.size() * sizeof(float)));
  }
  g_stall_us = 0;
  EXPECT_GE(g_stalls.load(), w) << "the assemblies were not delayed: the test no longer tests the ordering";
}

}  // namespace
