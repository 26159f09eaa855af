// The density rule's sample on the device (graph_tiles.cuh, sample_abs_histogram): each thread
// draws pairs (kernels/pair_sample.hpp), computes their r by the FP32 kernels' fmaf chain and
// counts |r| in abs_histogram's bins; integer atomics only, so the counts are the same each run.
#include <algorithm>

#include "kernels/graph_pair.cuh"
#include "kernels/pair_sample.hpp"

namespace fc {
namespace kernels {
namespace {

constexpr int kThreads = 256;

// The sample's product: the FP32 kernels' fmaf chain on float rows, an fma chain on double ones.
__device__ __forceinline__ float sample_product(const float* rows, int t, int64_t q, int64_t p) {
  return chain_product(rows, t, q, p);
}
__device__ __forceinline__ double sample_product(const double* __restrict__ rows, int t, int64_t q, int64_t p) {
  double acc = 0.0;
  for (int k = 0; k < t; ++k) acc = fma(__ldg(rows + q * t + k), __ldg(rows + p * t + k), acc);
  return acc;
}

template <class F>
__global__ void __launch_bounds__(kThreads) sample_kernel(const F* __restrict__ rows, int t, int64_t n,
                                                         const uint8_t* __restrict__ constant, uint64_t seed,
                                                         int64_t samples, int shift, int64_t bins,
                                                         unsigned long long* __restrict__ counts,
                                                         unsigned long long* __restrict__ valid) {
  unsigned long long mine = 0;
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t s = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; s < samples; s += stride) {
    const SampledPair d = sampled_pair(seed, s, n);
    if (d.q == d.p || is_constant(constant, d.q) || is_constant(constant, d.p)) continue;
    const int64_t bin = __float_as_uint(fabsf(pair_r(sample_product(rows, t, d.q, d.p)))) >> shift;
    if (bin < bins) atomicAdd(counts + bin, 1ull);
    ++mine;
  }
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) mine += __shfl_xor_sync(0xffffffffu, mine, o);
  if ((threadIdx.x & 31) == 0 && mine > 0) atomicAdd(valid, mine);
}

template <class F>
cudaError_t launch(const F* rows, int64_t t, int64_t n, const uint8_t* constant, uint64_t seed, int64_t samples,
                   int shift, int64_t bins, unsigned long long* counts, unsigned long long* valid, cudaStream_t stream) {
  if (samples <= 0 || n < 2) return cudaSuccess;
  if (n > 0xFFFFFFFFll) return cudaErrorInvalidValue;  // sampled_pair's n < 2^32
  const int64_t blocks = std::min<int64_t>((samples + kThreads - 1) / kThreads, 4096);
  sample_kernel<F><<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(rows, static_cast<int>(t), n, constant, seed,
                                                                           samples, shift, bins, counts, valid);
  return cudaGetLastError();
}

}  // namespace

cudaError_t sample_abs_histogram(const float* rows, int64_t t, int64_t n, const uint8_t* constant, uint64_t seed,
                                 int64_t samples, int shift, int64_t bins, unsigned long long* counts,
                                 unsigned long long* valid, cudaStream_t stream) {
  return launch(rows, t, n, constant, seed, samples, shift, bins, counts, valid, stream);
}
cudaError_t sample_abs_histogram(const double* rows, int64_t t, int64_t n, const uint8_t* constant, uint64_t seed,
                                 int64_t samples, int shift, int64_t bins, unsigned long long* counts,
                                 unsigned long long* valid, cudaStream_t stream) {
  return launch(rows, t, n, constant, seed, samples, shift, bins, counts, valid, stream);
}

}  // namespace kernels
}  // namespace fc
