// Probe for the dfc graphs' look-ahead (bench/RESULTS-gpu.md, "Graphs"): while one graph's CSR
// is copied to the host on its own stream, what does a small device-to-host read of the next
// window's work cost? If device-to-host copies of every stream share one copy engine in order,
// a 16-byte cudaMemcpyAsync waits for the whole large copy ahead of it, whatever its stream,
// while a kernel storing into mapped page-locked memory does not use a copy engine at all.
//
// Prints one line per case: the small operation's wait, with the large copy in flight and alone.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <vector>

namespace {

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

void ok(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

__global__ void store_words(const long long* src, volatile long long* mapped, int count) {
  for (int i = threadIdx.x; i < count; i += blockDim.x) mapped[i] = src[i];
}

__global__ void touch(long long* p) { p[0] += 1; }

}  // namespace

int main() {
  const size_t big = size_t(256) << 20;  // about a dfc window's |r| >= 0.7 CSR (232 MB)
  void *dev_big = nullptr, *host_big = nullptr;
  long long *dev_small = nullptr, *pinned_small = nullptr, *mapped_small = nullptr, *mapped_device = nullptr;
  ok(cudaMalloc(&dev_big, big), "cudaMalloc");
  ok(cudaMemset(dev_big, 1, big), "cudaMemset");
  ok(cudaHostAlloc(&host_big, big, cudaHostAllocDefault), "cudaHostAlloc big");
  ok(cudaMalloc(&dev_small, 64), "cudaMalloc small");
  ok(cudaMemset(dev_small, 0, 64), "cudaMemset small");
  ok(cudaHostAlloc(&pinned_small, 64, cudaHostAllocDefault), "cudaHostAlloc small");
  ok(cudaHostAlloc(&mapped_small, 64, cudaHostAllocMapped | cudaHostAllocPortable), "cudaHostAlloc mapped");
  ok(cudaHostGetDevicePointer(reinterpret_cast<void**>(&mapped_device), mapped_small, 0), "cudaHostGetDevicePointer");
  std::vector<long long> pageable(8);
  cudaStream_t a = nullptr, b = nullptr;
  ok(cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking), "stream a");
  ok(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking), "stream b");

  auto big_copy = [&] { ok(cudaMemcpyAsync(host_big, dev_big, big, cudaMemcpyDeviceToHost, a), "big D2H"); };
  const int reps = 9;
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  // The small operation on stream b, timed from its enqueue to its completion; `during`: with
  // the large copy enqueued on stream a just before.
  auto time_case = [&](bool during, auto&& small) {
    std::vector<double> t;
    for (int r = 0; r < reps; ++r) {
      ok(cudaDeviceSynchronize(), "sync");
      if (during) big_copy();
      const double t0 = now();
      small();
      ok(cudaStreamSynchronize(b), "sync b");
      t.push_back(now() - t0);
      ok(cudaStreamSynchronize(a), "sync a");
    }
    return median(t);
  };
  std::vector<double> alone;
  for (int r = 0; r < reps; ++r) {
    ok(cudaDeviceSynchronize(), "sync");
    const double t0 = now();
    big_copy();
    ok(cudaStreamSynchronize(a), "sync a");
    alone.push_back(now() - t0);
  }
  const double big_s = median(alone);
  std::printf("large D2H copy alone (%zu MiB, pinned)                   %9.3f ms  (%.1f GB/s)\n", big >> 20, 1e3 * big_s,
              big / big_s / 1e9);

  struct Case {
    const char* what;
    std::function<void()> run;
  };
  const Case cases[] = {
      {"16-byte cudaMemcpyAsync D2H into pinned memory", [&] {
         ok(cudaMemcpyAsync(pinned_small, dev_small, 16, cudaMemcpyDeviceToHost, b), "small D2H");
       }},
      {"16-byte cudaMemcpyAsync D2H into pageable memory", [&] {
         ok(cudaMemcpyAsync(pageable.data(), dev_small, 16, cudaMemcpyDeviceToHost, b), "small D2H pageable");
       }},
      {"16-byte cudaMemcpyAsync H2D from pinned memory", [&] {
         ok(cudaMemcpyAsync(dev_small, pinned_small, 16, cudaMemcpyHostToDevice, b), "small H2D");
       }},
      {"kernel storing 16 bytes into mapped pinned memory", [&] {
         store_words<<<1, 32, 0, b>>>(dev_small, mapped_device, 2);
         ok(cudaGetLastError(), "store_words");
       }},
      {"empty kernel", [&] {
         touch<<<1, 1, 0, b>>>(dev_small);
         ok(cudaGetLastError(), "touch");
       }},
      {"cudaMemGetInfo", [&] {
         size_t f = 0, t = 0;
         ok(cudaMemGetInfo(&f, &t), "cudaMemGetInfo");
       }},
      {"cudaMemsetAsync of 16 bytes", [&] { ok(cudaMemsetAsync(dev_small, 0, 16, b), "memset"); }},
  };
  for (const Case& c : cases) {
    const double in_flight = time_case(true, c.run), by_itself = time_case(false, c.run);
    std::printf("%-58s %9.3f ms with the large copy in flight, %7.3f ms alone\n", c.what, 1e3 * in_flight,
                1e3 * by_itself);
  }
  cudaFreeHost(mapped_small);
  cudaFreeHost(pinned_small);
  cudaFreeHost(host_big);
  cudaFree(dev_small);
  cudaFree(dev_big);
  return 0;
}
