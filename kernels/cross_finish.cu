// Finishes a band of a cross (or dense) product (see cross_finish.cuh). One block row per tile
// row, threads striding along the row; may run in place (out == tile), so no __restrict__ on them.
#include "kernels/cross_finish.cuh"

#include "kernels/compact_values.cuh"

#include <algorithm>

namespace fc {
namespace kernels {
namespace {

constexpr int kThreads = 256;
constexpr int kValuesPerThread = 4;

template <class In>
__device__ __forceinline__ In clamp_unit(In v) {
  return v > In(1) ? In(1) : (v < In(-1) ? In(-1) : v);
}

template <class In, class Out>
__global__ void __launch_bounds__(kThreads) cross_finish_kernel(const In* tile, CrossBand b,
                                                                const uint8_t* __restrict__ constant_a,
                                                                const uint8_t* __restrict__ constant_b, Out fill,
                                                                Out* out) {
  for (int64_t il = blockIdx.y; il < b.rows; il += gridDim.y) {
    const int64_t i = b.a0 + il;
    const In* src = tile + il * b.ld_tile;
    Out* dst = out + il * b.ld_out;
    const bool row_constant = constant_a != nullptr && constant_a[i] != 0;
    const int64_t stride = int64_t(gridDim.x) * blockDim.x;
    for (int64_t j = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; j < b.cols; j += stride) {
      Out v;
      if (row_constant || (constant_b != nullptr && constant_b[j] != 0)) v = fill;
      else v = Encode<Out>::of(clamp_unit(src[j]));
      if (b.same_set && j == i) v = row_constant ? fill : Encode<Out>::of(1.0);  // the diagonal is exactly 1
      dst[j] = v;
    }
  }
}

template <class In, class Out>
cudaError_t launch(const In* tile, const CrossBand& b, const uint8_t* constant_a, const uint8_t* constant_b, Out fill,
                   Out* out, cudaStream_t stream) {
  if (b.rows <= 0 || b.cols <= 0) return cudaSuccess;
  const int64_t x_blocks =
      std::min<int64_t>((b.cols + kThreads * kValuesPerThread - 1) / (kThreads * kValuesPerThread), int64_t(1) << 20);
  const dim3 grid(static_cast<unsigned>(x_blocks), static_cast<unsigned>(std::min<int64_t>(b.rows, 65535)));
  cross_finish_kernel<In, Out><<<grid, kThreads, 0, stream>>>(tile, b, constant_a, constant_b, fill, out);
  return cudaGetLastError();
}

}  // namespace

template <class In, class Out>
cudaError_t cross_finish(const In* tile, const CrossBand& band, const uint8_t* constant_a, const uint8_t* constant_b,
                         Out fill, Out* out, cudaStream_t stream) {
  return launch(tile, band, constant_a, constant_b, fill, out, stream);
}

#define FC_CROSS_FINISH(In, Out)                                                                                  \
  template cudaError_t cross_finish<In, Out>(const In*, const CrossBand&, const uint8_t*, const uint8_t*, Out, Out*, \
                                             cudaStream_t);
FC_CROSS_FINISH(float, float)
FC_CROSS_FINISH(float, double)
FC_CROSS_FINISH(float, int16_t)
FC_CROSS_FINISH(float, uint16_t)
FC_CROSS_FINISH(double, float)
FC_CROSS_FINISH(double, double)
FC_CROSS_FINISH(double, int16_t)
FC_CROSS_FINISH(double, uint16_t)
#undef FC_CROSS_FINISH

}  // namespace kernels
}  // namespace fc
