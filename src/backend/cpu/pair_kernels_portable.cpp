// The portable path of the CPU pair products (pair_kernels.hpp): a 4 x 4 register block in plain
// C++, each product one std::fma chain (correctly rounded wherever it runs: the FMA instruction
// where the compiler may use it, the C library's otherwise), so its bits are the vector paths'.
#include <cmath>

#include "backend/cpu/pair_kernels.hpp"

namespace fc {
namespace cpu {
namespace {

constexpr int kMr = 4, kNr = 4;

template <class T>
void block(int64_t kc, const T* a, int64_t lda, const T* bp, T* c, int64_t ldc, int rows, int cols, bool load, bool pad_zero) {
  T acc[kMr][kNr];
  for (int i = 0; i < kMr; ++i)
    for (int j = 0; j < kNr; ++j) acc[i][j] = load && i < rows && j < cols ? c[i * ldc + j] : T(0);
  for (int64_t k = 0; k < kc; ++k)
    for (int i = 0; i < rows; ++i)
      for (int j = 0; j < kNr; ++j) acc[i][j] = std::fma(a[i * lda + k], bp[k * kNr + j], acc[i][j]);
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) c[i * ldc + j] = pad_zero ? acc[i][j] + T(0) : acc[i][j];
}

}  // namespace

MicroKernel<float> portable_kernel_f32() { return {kMr, kNr, &block<float>}; }
MicroKernel<double> portable_kernel_f64() { return {kMr, kNr, &block<double>}; }

}  // namespace cpu
}  // namespace fc
