// The CPU backend's own products <z_p, z_q> of normalized rows, replacing BLAS's SGEMM/DGEMM for
// every PCC-family call (triangle, dense, cross, blocks, graphs, degree, windows).
//
// Why not BLAS: a BLAS library picks its kernel, and with it the order of each dot product's
// sums, from the machine it runs on (OpenBLAS 0.3.21 runs its SSE3 kernels on CPUs it does not
// know, 5x below the FMA units' rate) and from the call's shape. Here every product is one fused
// multiply-add chain over k = 0, 1, ..., t - 1 starting from +0, exactly as the CUDA backend's
// pair kernel (kernels/pair_tile.cuh) computes it, including that kernel's zero padding of k to a
// multiple of 8 (one more fma(0, 0, acc) = acc + 0, which turns a -0 into +0). fma(a, b, c) is
// correctly rounded and fma(a, b, c) == fma(b, a, c), so a pair's value is the same bits on every
// ISA path, thread count, tile, call and backend: one answer per pair.
//
// Paths: AVX-512F, AVX2+FMA and a portable one (std::fma), chosen at run time from the CPU's
// features (cpuid, never its model name). FASTCONN_CPU_ISA=portable|avx2|avx512 in the environment
// asks for a path; a path the CPU lacks falls back to the best one it has (cpu_isa() tells).
#pragma once

#include <cstdint>
#include <vector>

namespace fc {
namespace cpu {

enum class CpuIsa { kPortable = 0, kAvx2 = 1, kAvx512 = 2 };

// The path in use (read once: the environment at first use, the CPU's features).
CpuIsa cpu_isa();
// "portable", "avx2" or "avx512".
const char* isa_name(CpuIsa isa);
// The best path this CPU supports, and the one a FASTCONN_CPU_ISA value asks for (nullptr or an
// unknown name: none asked), clamped to the best: what cpu_isa() is made of, for tests.
CpuIsa best_isa();
CpuIsa isa_for(const char* requested);

// The rows of a series set (n rows of t values) packed once for a whole call into the k-major
// panels the path `isa` reads b in: every product whose b rows start at a multiple of the panel
// width then reads them in place. Packing per product instead reads each tile's rows from memory
// again, a sixth of the FP32 triangle's time at T = 165 (perf, 2 EPYC cores). Empty (default):
// the products pack for themselves. The panels hold n rounded up to the width, times t, values.
template <class T>
class PackedRows {
 public:
  PackedRows() = default;
  PackedRows(CpuIsa isa, const T* x, int64_t n, int64_t t, int threads);
  bool empty() const { return panels_.empty(); }
  CpuIsa isa() const { return isa_; }
  int width() const { return width_; }
  // The panel holding rows [row, row + width), k-major (t x width); row a multiple of the width.
  const T* panel(int64_t row) const { return panels_.data() + row * t_; }

 private:
  std::vector<T> panels_;
  CpuIsa isa_ = CpuIsa::kPortable;
  int width_ = 1;
  int64_t t_ = 0;
};

// Told, after each register block, that columns [0, cols_done) of rows [i0, i0 + rows) of c hold
// their final values (a row's cols_done rises from call to call, up to n), so that a caller can
// send them onward while the next blocks compute: a few stores after each block drain to memory
// behind its multiply-adds, where a whole tile's stores after the products stall the core.
struct BlockDone {
  void (*call)(void* context, int64_t i0, int rows, int64_t cols_done) = nullptr;
  void* context = nullptr;
};

// c[i * ldc + j] = <a_i, b_j> for i < m, j < n: rows a_i = a + i * t and b_j = b + j * t
// (row-major, t values each). Single-threaded, on the calling thread; the path `isa`, or
// cpu_isa() with b's rows also in `packed` from row b_row (used when b_row starts a panel and
// the panels are this path's), then telling `done` of each finished block. Nothing else of c is
// written.
void pair_products(CpuIsa isa, int64_t m, int64_t n, int64_t t, const float* a, const float* b, float* c, int64_t ldc);
void pair_products(CpuIsa isa, int64_t m, int64_t n, int64_t t, const double* a, const double* b, double* c, int64_t ldc);
void pair_products(int64_t m, int64_t n, int64_t t, const float* a, const float* b, const PackedRows<float>& packed,
                   int64_t b_row, float* c, int64_t ldc, const BlockDone& done = {});
void pair_products(int64_t m, int64_t n, int64_t t, const double* a, const double* b, const PackedRows<double>& packed,
                   int64_t b_row, double* c, int64_t ldc, const BlockDone& done = {});

// The same kernels for the host's float64 linear algebra (the partial correlation's products and
// block inverse), whose speed then follows the CPU's features rather than the BLAS library's
// choice of kernel (issue 30: Debian's OpenBLAS runs SSE3 kernels on newer Xeons):
// c[i * ldc + j] = <a_i, b_j> for i < m, j < n, rows a_i = a + i * lda and b_j = b + j * ldb of k
// values each; with `accumulate`, each chain starts from c's value (c += the products).
// Single-threaded, on the calling thread, on cpu_isa()'s path.
void row_products(int64_t m, int64_t n, int64_t k, const double* a, int64_t lda, const double* b, int64_t ldb, double* c,
                  int64_t ldc, bool accumulate);

// One register block of a path: c (rows x cols of an mr x nr block, ldc) = the products of rows
// a + i * lda (kc values each, read in place) and the packed panel bp (kc x nr, k-major: b's
// columns side by side), continuing the chains already in c when `load` is set; `pad_zero` adds
// the +0 of the CUDA kernel's zero padding at the end.
template <class T>
struct MicroKernel {
  int mr = 0, nr = 0;
  void (*run)(int64_t kc, const T* a, int64_t lda, const T* bp, T* c, int64_t ldc, int rows, int cols, bool load,
              bool pad_zero) = nullptr;
};

MicroKernel<float> portable_kernel_f32();
MicroKernel<double> portable_kernel_f64();
MicroKernel<float> avx2_kernel_f32();
MicroKernel<double> avx2_kernel_f64();
MicroKernel<float> avx512_kernel_f32();
MicroKernel<double> avx512_kernel_f64();

}  // namespace cpu
}  // namespace fc
