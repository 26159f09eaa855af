// The AVX2+FMA and AVX-512F paths of the CPU pair products (pair_kernels.hpp). Each register
// block holds mr rows x nr columns of products in vector accumulators; per k it loads the nr
// values of b's panel and fuses each of a's mr values (broadcast) into them: every product is one
// fma chain over k, the portable path's and the CUDA kernel's bits. Compiled for the baseline
// x86-64 ISA with per-function target attributes (no -mavx flags on the file), so nothing of it
// runs before pair_kernels.cpp has checked the CPU's features.
#include "backend/cpu/pair_kernels.hpp"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

namespace fc {
namespace cpu {
namespace {

// The vector types of a path and element type, and their few operations.
struct Avx512F32 {
  using V = __m512;
  static constexpr int W = 16;
  __attribute__((target("avx512f"))) static V zero() { return _mm512_setzero_ps(); }
  __attribute__((target("avx512f"))) static V bcast(const float* p) { return _mm512_set1_ps(*p); }
  __attribute__((target("avx512f"))) static V load(const float* p) { return _mm512_loadu_ps(p); }
  __attribute__((target("avx512f"))) static V fma(V a, V b, V c) { return _mm512_fmadd_ps(a, b, c); }
  __attribute__((target("avx512f"))) static V add(V a, V b) { return _mm512_add_ps(a, b); }
  __attribute__((target("avx512f"))) static V load_n(const float* p, int n) {
    return _mm512_maskz_loadu_ps(static_cast<__mmask16>((1u << n) - 1u), p);
  }
  __attribute__((target("avx512f"))) static void store_n(float* p, V v, int n) {
    if (n == W) _mm512_storeu_ps(p, v);
    else _mm512_mask_storeu_ps(p, static_cast<__mmask16>((1u << n) - 1u), v);
  }
};
struct Avx512F64 {
  using V = __m512d;
  static constexpr int W = 8;
  __attribute__((target("avx512f"))) static V zero() { return _mm512_setzero_pd(); }
  __attribute__((target("avx512f"))) static V bcast(const double* p) { return _mm512_set1_pd(*p); }
  __attribute__((target("avx512f"))) static V load(const double* p) { return _mm512_loadu_pd(p); }
  __attribute__((target("avx512f"))) static V fma(V a, V b, V c) { return _mm512_fmadd_pd(a, b, c); }
  __attribute__((target("avx512f"))) static V add(V a, V b) { return _mm512_add_pd(a, b); }
  __attribute__((target("avx512f"))) static V load_n(const double* p, int n) {
    return _mm512_maskz_loadu_pd(static_cast<__mmask8>((1u << n) - 1u), p);
  }
  __attribute__((target("avx512f"))) static void store_n(double* p, V v, int n) {
    if (n == W) _mm512_storeu_pd(p, v);
    else _mm512_mask_storeu_pd(p, static_cast<__mmask8>((1u << n) - 1u), v);
  }
};
// AVX2 has no masked loads of bytes below a vector: partial vectors go through a small array.
struct Avx2F32 {
  using V = __m256;
  static constexpr int W = 8;
  __attribute__((target("avx2,fma"))) static V zero() { return _mm256_setzero_ps(); }
  __attribute__((target("avx2,fma"))) static V bcast(const float* p) { return _mm256_broadcast_ss(p); }
  __attribute__((target("avx2,fma"))) static V load(const float* p) { return _mm256_loadu_ps(p); }
  __attribute__((target("avx2,fma"))) static V fma(V a, V b, V c) { return _mm256_fmadd_ps(a, b, c); }
  __attribute__((target("avx2,fma"))) static V add(V a, V b) { return _mm256_add_ps(a, b); }
  __attribute__((target("avx2,fma"))) static V load_n(const float* p, int n) {
    alignas(32) float tmp[W] = {};
    for (int i = 0; i < n; ++i) tmp[i] = p[i];
    return _mm256_load_ps(tmp);
  }
  __attribute__((target("avx2,fma"))) static void store_n(float* p, V v, int n) {
    if (n == W) return _mm256_storeu_ps(p, v);
    alignas(32) float tmp[W];
    _mm256_store_ps(tmp, v);
    for (int i = 0; i < n; ++i) p[i] = tmp[i];
  }
};
struct Avx2F64 {
  using V = __m256d;
  static constexpr int W = 4;
  __attribute__((target("avx2,fma"))) static V zero() { return _mm256_setzero_pd(); }
  __attribute__((target("avx2,fma"))) static V bcast(const double* p) { return _mm256_broadcast_sd(p); }
  __attribute__((target("avx2,fma"))) static V load(const double* p) { return _mm256_loadu_pd(p); }
  __attribute__((target("avx2,fma"))) static V fma(V a, V b, V c) { return _mm256_fmadd_pd(a, b, c); }
  __attribute__((target("avx2,fma"))) static V add(V a, V b) { return _mm256_add_pd(a, b); }
  __attribute__((target("avx2,fma"))) static V load_n(const double* p, int n) {
    alignas(32) double tmp[W] = {};
    for (int i = 0; i < n; ++i) tmp[i] = p[i];
    return _mm256_load_pd(tmp);
  }
  __attribute__((target("avx2,fma"))) static void store_n(double* p, V v, int n) {
    if (n == W) return _mm256_storeu_pd(p, v);
    alignas(32) double tmp[W];
    _mm256_store_pd(tmp, v);
    for (int i = 0; i < n; ++i) p[i] = tmp[i];
  }
};

// One mr x (NV * W) block: row i of a at a + i * lda (rows past `rows` repeat the last one,
// computed and never stored). The accumulators stay in registers: the loops over i and v unroll
// fully (mr * NV <= 24 vectors on AVX-512's 32 registers, 12 on AVX2's 16).
#define FC_BLOCK_BODY                                                                                       \
  typename P::V acc[MR][NV];                                                                                \
  const int full = cols / P::W, rest = cols % P::W;                                                         \
  const T* row[MR];                                                                                         \
  _Pragma("GCC unroll 16") for (int i = 0; i < MR; ++i) row[i] = a + (i < rows ? i : rows - 1) * lda;      \
  _Pragma("GCC unroll 16") for (int i = 0; i < MR; ++i) {                                                   \
    _Pragma("GCC unroll 4") for (int v = 0; v < NV; ++v) {                                                  \
      if (!load || i >= rows || v > full || (v == full && rest == 0)) acc[i][v] = P::zero();                \
      else acc[i][v] = v < full ? P::load(c + i * ldc + v * P::W) : P::load_n(c + i * ldc + v * P::W, rest); \
    }                                                                                                       \
  }                                                                                                         \
  for (int64_t k = 0; k < kc; ++k) {                                                                        \
    typename P::V b[NV];                                                                                    \
    _Pragma("GCC unroll 4") for (int v = 0; v < NV; ++v) b[v] = P::load(bp + k * NV * P::W + v * P::W);     \
    _Pragma("GCC unroll 16") for (int i = 0; i < MR; ++i) {                                                 \
      const typename P::V x = P::bcast(row[i] + k);                                                         \
      _Pragma("GCC unroll 4") for (int v = 0; v < NV; ++v) acc[i][v] = P::fma(x, b[v], acc[i][v]);          \
    }                                                                                                       \
  }                                                                                                         \
  for (int i = 0; i < rows; ++i) {                                                                          \
    for (int v = 0; v * P::W < cols; ++v) {                                                                 \
      const typename P::V out = pad_zero ? P::add(acc[i][v], P::zero()) : acc[i][v];                        \
      P::store_n(c + i * ldc + v * P::W, out, v < full ? P::W : rest);                                      \
    }                                                                                                       \
  }

template <class P, int MR, int NV, class T>
__attribute__((target("avx512f"))) void block512(int64_t kc, const T* a, int64_t lda, const T* bp, T* c, int64_t ldc, int rows,
                                                 int cols, bool load, bool pad_zero) {
  FC_BLOCK_BODY
}
template <class P, int MR, int NV, class T>
__attribute__((target("avx2,fma"))) void block256(int64_t kc, const T* a, int64_t lda, const T* bp, T* c, int64_t ldc, int rows,
                                                  int cols, bool load, bool pad_zero) {
  FC_BLOCK_BODY
}
#undef FC_BLOCK_BODY

}  // namespace

// 8 rows x 3 vectors: 24 accumulators + 3 of b + 1 broadcast of AVX-512's 32 registers; AVX2's
// 16 registers take 4 x 3 (12 + 3 + 1). Panels of 48 (24, 12) columns tile kTileCols.
MicroKernel<float> avx512_kernel_f32() { return {8, 48, &block512<Avx512F32, 8, 3, float>}; }
MicroKernel<double> avx512_kernel_f64() { return {8, 24, &block512<Avx512F64, 8, 3, double>}; }
MicroKernel<float> avx2_kernel_f32() { return {4, 24, &block256<Avx2F32, 4, 3, float>}; }
MicroKernel<double> avx2_kernel_f64() { return {4, 12, &block256<Avx2F64, 4, 3, double>}; }

}  // namespace cpu
}  // namespace fc

#else  // not x86-64 with GCC or Clang: the portable path stands in (cpu_isa() never picks these)

namespace fc {
namespace cpu {
MicroKernel<float> avx512_kernel_f32() { return portable_kernel_f32(); }
MicroKernel<double> avx512_kernel_f64() { return portable_kernel_f64(); }
MicroKernel<float> avx2_kernel_f32() { return portable_kernel_f32(); }
MicroKernel<double> avx2_kernel_f64() { return portable_kernel_f64(); }
}  // namespace cpu
}  // namespace fc

#endif
