// The driver of the CPU pair products (pair_kernels.hpp): b's rows in k-major panels of the
// path's register block (packed once per call, PackedRows, or here per product), a's rows read in
// place, the path's kernel run over them, k in chunks (a chunk's partial sums wait in c, exact,
// and the next chunk continues each chain where it stopped).
#include "backend/cpu/pair_kernels.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "base/parallel_team.hpp"

namespace fc {
namespace cpu {
namespace {

// Blocking: columns of b at a time, packed k-major into panels of the path's width, which the
// row blocks then pass over (a micro-block's rows, read in place, stay in L1; the packed columns
// in L2); k in chunks that keep a micro-block's rows within 16 KiB of L1.
constexpr int64_t kColBlock = 480;
constexpr int64_t kMaxChunkBytes = 16 * 1024;
constexpr int64_t kPadK = 8;  // the CUDA kernel's k stage: t is padded to it

// The panels of rows [r0, r0 + rows) of x (row i at x + i * ldx), k in [k0, k0 + kc): panel p holds
// rows r0 + p * w ..., as out[p * kc * w + k * w + i], zero past `rows`.
template <class T>
void pack(const T* x, int64_t ldx, int64_t r0, int64_t rows, int64_t k0, int64_t kc, int w, T* out) {
  const int64_t panels = (rows + w - 1) / w;
  for (int64_t p = 0; p < panels; ++p) {
    T* dst = out + p * kc * w;
    const int64_t live = std::min<int64_t>(w, rows - p * w);
    // Row by row: each row is read once, in order (from memory: the prefetchers follow one
    // stream), and scattered into the panel, which stays in L1/L2.
    for (int64_t i = 0; i < live; ++i) {
      const T* src = x + (r0 + p * w + i) * ldx + k0;
      for (int64_t k = 0; k < kc; ++k) dst[k * w + i] = src[k];
    }
    for (int64_t i = live; i < w; ++i)
      for (int64_t k = 0; k < kc; ++k) dst[k * w + i] = T(0);
  }
}

template <class T>
MicroKernel<T> kernel_for(CpuIsa isa);
template <>
MicroKernel<float> kernel_for<float>(CpuIsa isa) {
  return isa == CpuIsa::kAvx512 ? avx512_kernel_f32() : isa == CpuIsa::kAvx2 ? avx2_kernel_f32() : portable_kernel_f32();
}
template <>
MicroKernel<double> kernel_for<double>(CpuIsa isa) {
  return isa == CpuIsa::kAvx512 ? avx512_kernel_f64() : isa == CpuIsa::kAvx2 ? avx2_kernel_f64() : portable_kernel_f64();
}

// c = <a_i, b_j> over k = 0 .. t - 1, rows a_i = a + i * lda and b_j = b + j * ldb; accumulate:
// each chain starts from c's value instead of +0 (the pair products never do: lda = ldb = t).
template <class T>
void products(CpuIsa isa, int64_t m, int64_t n, int64_t t, const T* a, int64_t lda, const T* b, int64_t ldb,
              const PackedRows<T>* packed, int64_t b_row, T* c, int64_t ldc, const BlockDone& done, bool accumulate = false) {
  if (m <= 0 || n <= 0) return;
  const MicroKernel<T> kernel = kernel_for<T>(isa);
  const int mr = kernel.mr, nr = kernel.nr;
  // b's panels as packed for the whole call, when they are this path's and b's rows start a panel.
  const bool prepacked = packed != nullptr && !packed->empty() && packed->isa() == isa && b_row % nr == 0;
  const int64_t max_kc = std::max<int64_t>(8, kMaxChunkBytes / (mr * int64_t(sizeof(T))));
  const int64_t chunks = std::max<int64_t>(1, (t + max_kc - 1) / max_kc);
  const int64_t kc_max = (t + chunks - 1) / chunks;  // chunks of equal size, the last may be shorter
  const bool pad = t % kPadK != 0;
  // Per-thread panels, grown once: the callers run one product per thread at a time.
  thread_local std::vector<T> panels;
  const size_t size = prepacked ? 0 : static_cast<size_t>((std::min(n, kColBlock) + nr - 1) / nr * nr * kc_max);
  if (panels.size() < size) panels.resize(size);
  for (int64_t j0 = 0; j0 < n; j0 += kColBlock) {
    const int64_t nc = std::min(kColBlock, n - j0);
    for (int64_t k0 = 0; k0 < t; k0 += kc_max) {
      const int64_t kc = std::min(kc_max, t - k0);
      const bool load = k0 > 0 || accumulate, pad_zero = pad && k0 + kc == t;
      // Panel jp of this block and chunk: at base + jp * stride, k-major from k0.
      const T* base;
      int64_t stride;
      if (prepacked) {
        base = packed->panel(b_row + j0) + k0 * nr;
        stride = t * nr;
      } else {
        pack(b, ldb, j0, nc, k0, kc, nr, panels.data());
        base = panels.data();
        stride = kc * nr;
      }
      for (int64_t i0 = 0; i0 < m; i0 += mr) {
        const int rows = static_cast<int>(std::min<int64_t>(mr, m - i0));
        for (int64_t jp = 0; jp * nr < nc; ++jp) {
          const int cols = static_cast<int>(std::min<int64_t>(nr, nc - jp * nr));
          kernel.run(kc, a + i0 * lda + k0, lda, base + jp * stride, c + i0 * ldc + j0 + jp * nr, ldc, rows, cols, load, pad_zero);
          if (done.call != nullptr && k0 + kc == t) done.call(done.context, i0, rows, j0 + jp * nr + cols);
        }
      }
    }
  }
}

}  // namespace

CpuIsa best_isa() {
#if defined(__x86_64__) && defined(__GNUC__)
  static const CpuIsa best = __builtin_cpu_supports("avx512f")                                   ? CpuIsa::kAvx512
                             : (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) ? CpuIsa::kAvx2
                                                                                                 : CpuIsa::kPortable;
  return best;
#else
  return CpuIsa::kPortable;
#endif
}

CpuIsa isa_for(const char* requested) {
  CpuIsa want = best_isa();
  if (requested != nullptr) {
    if (std::strcmp(requested, "portable") == 0) want = CpuIsa::kPortable;
    else if (std::strcmp(requested, "avx2") == 0) want = CpuIsa::kAvx2;
    else if (std::strcmp(requested, "avx512") == 0) want = CpuIsa::kAvx512;
  }
  return std::min(want, best_isa());
}

CpuIsa cpu_isa() {
  static const CpuIsa isa = isa_for(std::getenv("FASTCONN_CPU_ISA"));
  return isa;
}

const char* isa_name(CpuIsa isa) {
  switch (isa) {
    case CpuIsa::kAvx512: return "avx512";
    case CpuIsa::kAvx2: return "avx2";
    case CpuIsa::kPortable: break;
  }
  return "portable";
}

template <class T>
PackedRows<T>::PackedRows(CpuIsa isa, const T* x, int64_t n, int64_t t, int threads) : isa_(isa), t_(t) {
  width_ = kernel_for<T>(isa).nr;
  const int64_t count = (n + width_ - 1) / width_;
  panels_.resize(static_cast<size_t>(count * width_ * t));
  const int team = parallel_team(n * t, threads, count);
#pragma omp parallel for schedule(static) num_threads(team) if (team > 1)
  for (int64_t p = 0; p < count; ++p) pack(x, t, p * width_, std::min<int64_t>(width_, n - p * width_), 0, t, width_,
                                           panels_.data() + p * width_ * t);
}
template class PackedRows<float>;
template class PackedRows<double>;

void pair_products(CpuIsa isa, int64_t m, int64_t n, int64_t t, const float* a, const float* b, float* c, int64_t ldc) {
  products<float>(isa, m, n, t, a, t, b, t, nullptr, 0, c, ldc, {});
}
void pair_products(CpuIsa isa, int64_t m, int64_t n, int64_t t, const double* a, const double* b, double* c, int64_t ldc) {
  products<double>(isa, m, n, t, a, t, b, t, nullptr, 0, c, ldc, {});
}
void row_products(int64_t m, int64_t n, int64_t k, const double* a, int64_t lda, const double* b, int64_t ldb, double* c,
                  int64_t ldc, bool accumulate) {
  products<double>(cpu_isa(), m, n, k, a, lda, b, ldb, nullptr, 0, c, ldc, {}, accumulate);
}
void pair_products(int64_t m, int64_t n, int64_t t, const float* a, const float* b, const PackedRows<float>& packed,
                   int64_t b_row, float* c, int64_t ldc, const BlockDone& done) {
  products(cpu_isa(), m, n, t, a, t, b, t, &packed, b_row, c, ldc, done);
}
void pair_products(int64_t m, int64_t n, int64_t t, const double* a, const double* b, const PackedRows<double>& packed,
                   int64_t b_row, double* c, int64_t ldc, const BlockDone& done) {
  products(cpu_isa(), m, n, t, a, t, b, t, &packed, b_row, c, ldc, done);
}

}  // namespace cpu
}  // namespace fc
