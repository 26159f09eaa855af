// Histogram of |r| by float bit pattern over a band (see graph_tiles.cuh): shared-memory counts
// for the upper bins, added to the 64-bit counts once per block; integer atomics throughout.
#include <algorithm>

#include "kernels/graph_pair.cuh"

namespace fc {
namespace kernels {
namespace {

constexpr int kThreads = 1024;

template <class In>
__global__ void __launch_bounds__(kThreads) histogram_kernel(const In* __restrict__ tile, GraphBand b,
                                                             const uint8_t* __restrict__ constant, int shift, int lo,
                                                             unsigned long long* __restrict__ counts) {
  extern __shared__ uint32_t hist[];  // bins [lo, lo + kHistogramSharedBins)
  for (int k = threadIdx.x; k < kHistogramSharedBins; k += kThreads) hist[k] = 0;
  __syncthreads();
  // Rows strided over blocks; within a row, the pairs x >= ql (p > q) over the threads.
  for (int64_t ql = blockIdx.x; ql < b.rows; ql += gridDim.x) {
    const int64_t q = b.q0 + ql;
    if (is_constant(constant, q)) continue;
    const In* row = tile + ql * b.ld;
    for (int64_t x = ql + threadIdx.x; x < b.ld; x += kThreads) {
      if (is_constant(constant, b.p0 + x)) continue;
      const int bin = static_cast<int>(__float_as_uint(fabsf(pair_r(tile_load(row + x)))) >> shift);
      if (bin >= lo) atomicAdd(&hist[bin - lo], 1u);
      else atomicAdd(counts + bin, 1ull);  // |r| < 2^-63: next to never
    }
  }
  __syncthreads();
  for (int k = threadIdx.x; k < kHistogramSharedBins; k += kThreads)
    if (hist[k] != 0) atomicAdd(counts + lo + k, static_cast<unsigned long long>(hist[k]));
}

template <class In>
cudaError_t launch(const In* tile, const GraphBand& b, const uint8_t* constant, int shift, int64_t bins,
                   unsigned long long* counts, cudaStream_t stream) {
  if (b.rows <= 0 || b.ld <= 0) return cudaSuccess;
  if (bins < kHistogramSharedBins) return cudaErrorInvalidValue;
  constexpr size_t kSmem = kHistogramSharedBins * sizeof(uint32_t);
  const cudaError_t attr =
      cudaFuncSetAttribute(histogram_kernel<In>, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(kSmem));
  if (attr != cudaSuccess) return attr;
  const unsigned blocks = static_cast<unsigned>(std::min<int64_t>(kHistogramBlocks, b.rows));
  histogram_kernel<In><<<blocks, kThreads, kSmem, stream>>>(tile, b, constant, shift,
                                                            static_cast<int>(bins - kHistogramSharedBins), counts);
  return cudaGetLastError();
}

}  // namespace

cudaError_t abs_histogram_band(const float* tile, const GraphBand& band, const uint8_t* constant, int shift,
                               int64_t bins, unsigned long long* counts, cudaStream_t stream) {
  return launch(tile, band, constant, shift, bins, counts, stream);
}
cudaError_t abs_histogram_band(const double* tile, const GraphBand& band, const uint8_t* constant, int shift,
                               int64_t bins, unsigned long long* counts, cudaStream_t stream) {
  return launch(tile, band, constant, shift, bins, counts, stream);
}

}  // namespace kernels
}  // namespace fc
