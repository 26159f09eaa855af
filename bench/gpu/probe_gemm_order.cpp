// Which summation order cuBLAS's SGEMM uses for fastconn's products (a probe, not a test): each
// sampled product of a band's GEMM (gemm_triangle_band's call) is compared, bit for bit, with
// the float fmaf chains of several orders computed on the host (std::fma is exact, as on the
// GPU). The fused degree kernel (kernels/fused_degree.cu) sums k = 0, 1, ..., t - 1 in one chain
// ("sequential"): where cuBLAS does too, the two paths give the same r.
//
//   probe_gemm_order            prints, per shape, the fraction of samples each order matches
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <algorithm>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "bench_data.hpp"

namespace {

void check(cudaError_t s, const char* what) {
  if (s != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(s));
    std::exit(1);
  }
}
void check(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS) {
    std::fprintf(stderr, "%s: cuBLAS status %d\n", what, int(s));
    std::exit(1);
  }
}

using Order = std::function<float(const float*, const float*, int64_t)>;

float chain(const float* a, const float* b, int64_t k0, int64_t k1, int64_t step, float acc = 0.0f) {
  for (int64_t k = k0; k < k1; k += step) acc = std::fma(a[k], b[k], acc);
  return acc;
}

// Two chains over alternate blocks of `w` k values, added at the end.
float blocks2(const float* a, const float* b, int64_t t, int64_t w) {
  float c[2] = {0.0f, 0.0f};
  for (int64_t k0 = 0, blk = 0; k0 < t; k0 += w, ++blk)
    for (int64_t k = k0; k < std::min(t, k0 + w); ++k) c[blk & 1] = std::fma(a[k], b[k], c[blk & 1]);
  return c[0] + c[1];
}

}  // namespace

int main() {
  const std::vector<std::pair<std::string, Order>> orders = {
      {"sequential", [](const float* a, const float* b, int64_t t) { return chain(a, b, 0, t, 1); }},
      {"residue of 8 first",
       [](const float* a, const float* b, int64_t t) { return chain(a, b, 0, t / 8 * 8, 1, chain(a, b, t / 8 * 8, t, 1)); }},
      {"residue of 4 first",
       [](const float* a, const float* b, int64_t t) { return chain(a, b, 0, t / 4 * 4, 1, chain(a, b, t / 4 * 4, t, 1)); }},
      {"two chains, alternate 8-blocks", [](const float* a, const float* b, int64_t t) { return blocks2(a, b, t, 8); }},
      {"two chains, alternate 4-blocks", [](const float* a, const float* b, int64_t t) { return blocks2(a, b, t, 4); }},
      {"two chains, even and odd k", [](const float* a, const float* b, int64_t t) { return chain(a, b, 0, t, 2) + chain(a, b, 1, t, 2); }},
      {"two halves", [](const float* a, const float* b, int64_t t) { return chain(a, b, 0, t / 2, 1) + chain(a, b, t / 2, t, 1); }},
  };
  struct Shape {
    int64_t n, t, rows;
  };
  cublasHandle_t h;
  check(cublasCreate(&h), "cublasCreate");
  for (const Shape sh : {Shape{90112, 165, 744}, Shape{3, 5, 2}, Shape{129, 31, 128}, Shape{1031, 64, 1030}, Shape{2311, 75, 900}}) {
    const std::vector<float> z = fcbench::normalized_rows(fcbench::structured_data(sh.n, sh.t, 7), sh.n, sh.t);
    // The first band of the row-order triangle: rows q in [0, rows), columns p in [1, n).
    const int64_t ld = sh.n - 1, rows = sh.rows;
    float *dz = nullptr, *dc = nullptr;
    check(cudaMalloc(reinterpret_cast<void**>(&dz), z.size() * sizeof(float)), "cudaMalloc z");
    check(cudaMalloc(reinterpret_cast<void**>(&dc), size_t(ld * rows) * sizeof(float)), "cudaMalloc tile");
    check(cudaMemcpy(dz, z.data(), z.size() * sizeof(float), cudaMemcpyHostToDevice), "copy z");
    const float one = 1.0f, zero = 0.0f;
    check(cublasSgemm(h, CUBLAS_OP_T, CUBLAS_OP_N, int(ld), int(rows), int(sh.t), &one, dz + sh.t, int(sh.t), dz, int(sh.t),
                      &zero, dc, int(ld)),
          "cublasSgemm");
    std::vector<float> tile(size_t(ld * rows));
    check(cudaMemcpy(tile.data(), dc, tile.size() * sizeof(float), cudaMemcpyDeviceToHost), "copy tile");
    cudaFree(dz);
    cudaFree(dc);
    std::mt19937_64 gen(11);
    const int samples = int(std::min<int64_t>(20000, ld * rows));
    std::vector<int> matches(orders.size(), 0);
    for (int s = 0; s < samples; ++s) {
      const int64_t at = samples == ld * rows ? s : int64_t(gen() % uint64_t(ld * rows));
      const int64_t q = at / ld, p = 1 + at % ld;
      const float* a = z.data() + p * sh.t;
      const float* b = z.data() + q * sh.t;
      for (size_t o = 0; o < orders.size(); ++o) {
        const float v = orders[o].second(a, b, sh.t);
        if (std::memcmp(&v, &tile[size_t(at)], sizeof v) == 0) ++matches[o];
      }
    }
    std::printf("n = %lld, t = %lld, band of %lld rows: %d samples\n", (long long)sh.n, (long long)sh.t, (long long)rows, samples);
    for (size_t o = 0; o < orders.size(); ++o)
      std::printf("  %-34s %6.2f %% bit-identical\n", orders[o].first.c_str(), 100.0 * matches[o] / samples);
  }
  cublasDestroy(h);
  return 0;
}
