// Probe for the pageable-output path: what it costs to page-lock (cudaHostRegister) a fresh
// malloc'd region so the GPU can DMA straight into it, against first-touch and D2H rates.
// Prints one line per measurement (GB/s of the region size).
#include <cuda_runtime_api.h>
#include <sys/mman.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

namespace {
double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
void ok(cudaError_t e, const char* w) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", w, cudaGetErrorString(e));
    std::exit(1);
  }
}
constexpr size_t kHuge = size_t(2) << 20;
char* fresh(size_t bytes, bool huge) {
  void* p = nullptr;
  if (posix_memalign(&p, kHuge, bytes) != 0) std::exit(1);
  if (huge) madvise(p, bytes, MADV_HUGEPAGE);
  else madvise(p, bytes, MADV_NOHUGEPAGE);
  return static_cast<char*>(p);
}
template <class F>
void in_threads(int threads, size_t bytes, F f) {
  std::vector<std::thread> t;
  const size_t per = (bytes / threads) & ~(kHuge - 1);
  for (int k = 0; k < threads; ++k) {
    const size_t b = per * k, e = k == threads - 1 ? bytes : per * (k + 1);
    t.emplace_back([=] { f(b, e); });
  }
  for (auto& x : t) x.join();
}
void report(const char* what, size_t bytes, double s) { std::printf("%-58s %8.4f s  %7.2f GB/s\n", what, s, bytes / s / 1e9); }
}  // namespace

int main() {
  const size_t bytes = size_t(4) << 30;
  const int threads = std::thread::hardware_concurrency();
  char* dev = nullptr;
  ok(cudaMalloc(reinterpret_cast<void**>(&dev), bytes), "cudaMalloc");
  ok(cudaMemset(dev, 1, bytes), "memset");
  for (bool huge : {false, true}) {
    std::printf("-- %s pages, %d threads, %zu GiB\n", huge ? "MADV_HUGEPAGE" : "4 KiB", threads, bytes >> 30);
    char* p = fresh(bytes, huge);
    double t = now();
    in_threads(threads, bytes, [p](size_t b, size_t e) { for (size_t i = b; i < e; i += 4096) p[i] = 0; });
    report("prefault (1 byte per 4 KiB), threads", bytes, now() - t);
    t = now();
    ok(cudaHostRegister(p, bytes, cudaHostRegisterDefault), "register");
    report("cudaHostRegister whole region, prefaulted", bytes, now() - t);
    t = now();
    ok(cudaMemcpy(p, dev, bytes, cudaMemcpyDeviceToHost), "d2h");
    report("D2H into it", bytes, now() - t);
    t = now();
    ok(cudaHostUnregister(p), "unregister");
    report("cudaHostUnregister whole region", bytes, now() - t);
    // 64 MiB chunks, registered from all threads at once (prefaulted memory)
    t = now();
    in_threads(threads, bytes, [p](size_t b, size_t e) {
      for (size_t c = b; c < e; c += size_t(64) << 20) ok(cudaHostRegister(p + c, std::min(e - c, size_t(64) << 20), 0), "reg");
    });
    report("cudaHostRegister 64 MiB chunks, parallel threads", bytes, now() - t);
    t = now();
    in_threads(threads, bytes, [p](size_t b, size_t e) {
      for (size_t c = b; c < e; c += size_t(64) << 20) ok(cudaHostUnregister(p + c), "unreg");
    });
    report("cudaHostUnregister 64 MiB chunks, parallel threads", bytes, now() - t);
    std::free(p);
    // fresh memory: register without prefault (the driver faults the pages in)
    p = fresh(bytes, huge);
    t = now();
    in_threads(threads, bytes, [p](size_t b, size_t e) {
      for (size_t c = b; c < e; c += size_t(64) << 20) ok(cudaHostRegister(p + c, std::min(e - c, size_t(64) << 20), 0), "reg");
    });
    report("cudaHostRegister 64 MiB chunks of FRESH memory, parallel", bytes, now() - t);
    in_threads(threads, bytes, [p](size_t b, size_t e) {
      for (size_t c = b; c < e; c += size_t(64) << 20) ok(cudaHostUnregister(p + c), "unreg");
    });
    std::free(p);
    // the staging alternative's host side: memcpy from a pinned ring into fresh memory
    p = fresh(bytes, huge);
    char* ring = nullptr;
    ok(cudaHostAlloc(reinterpret_cast<void**>(&ring), size_t(128) << 20, 0), "hostalloc");
    std::memset(ring, 3, size_t(128) << 20);
    t = now();
    in_threads(threads, bytes, [p, ring](size_t b, size_t e) {
      for (size_t c = b; c < e; c += kHuge) std::memcpy(p + c, ring + (c % (size_t(128) << 20)), std::min(kHuge, e - c));
    });
    report("memcpy pinned ring -> fresh memory, threads", bytes, now() - t);
    cudaFreeHost(ring);
    std::free(p);
  }
  cudaFree(dev);
  return 0;
}
