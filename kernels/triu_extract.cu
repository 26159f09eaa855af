// Packs a band of GEMM products into its slice of the ordered triangle (see triu_extract.cuh).
// One block row (blockIdx.y) per tile row, threads striding along the row's run of pairs: reads
// of the tile and writes of the slice are both contiguous along a run, so they coalesce. The
// runs of the tile and of the slice start at unrelated alignments, so accesses stay 4 bytes wide.
#include "kernels/triu_extract.cuh"

#include "kernels/compact_values.cuh"

#include <algorithm>

namespace fc {
namespace kernels {
namespace {

constexpr int kThreads = 256;
constexpr int kValuesPerThread = 4;  // values each thread moves per pass over a run

// Offset of row q's first pair relative to row q0's, d = q - q0 rows later. Row order: rows hold
// n-1-r pairs, so the sum over r in [q0, q) is d(2n - q0 - q - 1)/2; column order: column q holds
// q pairs, so d(q0 + q - 1)/2 (the integer forms of base/triangle_index.hpp's row_start and
// col_start, taken as differences; each product is even and below 2^47 for n < 2^32).
__device__ __forceinline__ int64_t run_offset(const TriuBand& b, int64_t q) {
  const int64_t d = q - b.q0;
  return b.order == 0 ? d * (2 * b.n - b.q0 - q - 1) / 2 : d * (b.q0 + q - 1) / 2;
}

template <class In>
__device__ __forceinline__ In clamp_unit(In v) {
  return v > In(1) ? In(1) : (v < In(-1) ? In(-1) : v);
}

template <class In, class Out>
__global__ void __launch_bounds__(kThreads) triu_extract_kernel(const In* __restrict__ tile, TriuBand b,
                                                                const uint8_t* __restrict__ constant, Out fill,
                                                                Out* __restrict__ dst, TriuBatch batch) {
  // blockIdx.z: the band of a batch (TriuBatch strides).
  tile += int64_t(blockIdx.z) * batch.tile_stride;
  dst += int64_t(blockIdx.z) * batch.dst_stride;
  if (constant != nullptr) constant += int64_t(blockIdx.z) * batch.flags_stride;
  for (int64_t ql = blockIdx.y; ql < b.rows; ql += gridDim.y) {
    const int64_t q = b.q0 + ql;
    const int64_t first = b.order == 0 ? q + 1 : 0;  // first partner p of row q
    const int64_t len = b.order == 0 ? b.n - 1 - q : q;
    const In* src = tile + ql * b.ld + (first - b.p0);
    Out* out = dst + run_offset(b, q);
    const bool row_constant = constant != nullptr && constant[q] != 0;
    // kValuesPerThread loads in flight per thread before any store (a warp's accesses for one u
    // are 32 consecutive values): the kernel is bound by memory bandwidth, not latency.
    const int64_t step = int64_t(gridDim.x) * blockDim.x * kValuesPerThread;
    for (int64_t x0 = int64_t(blockIdx.x) * blockDim.x * kValuesPerThread + threadIdx.x; x0 < len; x0 += step) {
      In v[kValuesPerThread];
#pragma unroll
      for (int u = 0; u < kValuesPerThread; ++u) {
        const int64_t x = x0 + int64_t(u) * blockDim.x;
        v[u] = x < len ? src[x] : In(0);
      }
#pragma unroll
      for (int u = 0; u < kValuesPerThread; ++u) {
        const int64_t x = x0 + int64_t(u) * blockDim.x;
        if (x >= len) break;
        if (constant == nullptr) out[x] = Encode<Out>::of(clamp_unit(v[u]));
        else out[x] = (row_constant || constant[first + x] != 0) ? fill : Encode<Out>::of(clamp_unit(v[u]));
      }
    }
  }
}

template <class In, class Out>
cudaError_t launch(const In* tile, const TriuBand& b, const uint8_t* constant, Out fill, Out* dst, const TriuBatch& batch,
                   cudaStream_t stream) {
  if (b.rows <= 0 || batch.count <= 0) return cudaSuccess;
  if (batch.count > 65535) return cudaErrorInvalidConfiguration;
  // The longest run of the band: its last row in row order is shorter, its first in column order.
  const int64_t longest = b.order == 0 ? b.n - 1 - b.q0 : b.q0 + b.rows - 1;
  if (longest <= 0) return cudaSuccess;
  const int64_t x_blocks = std::min<int64_t>((longest + kThreads * kValuesPerThread - 1) / (kThreads * kValuesPerThread),
                                             int64_t(1) << 20);
  const dim3 grid(static_cast<unsigned>(x_blocks), static_cast<unsigned>(std::min<int64_t>(b.rows, 65535)),
                  static_cast<unsigned>(batch.count));
  triu_extract_kernel<In, Out><<<grid, kThreads, 0, stream>>>(tile, b, constant, fill, dst, batch);
  return cudaGetLastError();
}

}  // namespace

template <class In, class Out>
cudaError_t triu_extract(const In* tile, const TriuBand& band, const uint8_t* constant, Out fill, Out* dst,
                         cudaStream_t stream, const TriuBatch& batch) {
  return launch(tile, band, constant, fill, dst, batch, stream);
}

#define FC_TRIU_EXTRACT(In, Out)                                                                                \
  template cudaError_t triu_extract<In, Out>(const In*, const TriuBand&, const uint8_t*, Out, Out*, cudaStream_t, \
                                             const TriuBatch&);
FC_TRIU_EXTRACT(float, float)
FC_TRIU_EXTRACT(float, double)
FC_TRIU_EXTRACT(float, int16_t)
FC_TRIU_EXTRACT(float, uint16_t)
FC_TRIU_EXTRACT(double, float)
FC_TRIU_EXTRACT(double, double)
FC_TRIU_EXTRACT(double, int16_t)
FC_TRIU_EXTRACT(double, uint16_t)
#undef FC_TRIU_EXTRACT

}  // namespace kernels
}  // namespace fc
