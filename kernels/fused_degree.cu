// Degree and strength straight from the products: a float GEMM over the triangle's 128 x 128
// tiles whose epilogue tests each value in registers and adds the passing ones to the degrees,
// so that no tile of r is ever written to device memory or read back (graph_tiles.cuh).
//
// Why a GEMM of our own: with cuBLAS the degree is a GEMM that writes 256 MB a band and a pass
// that reads it back (0.60 + 0.14 ms a band on the H100, bench/RESULTS-gpu.md); here the pass is
// a few hundred instructions per 16 K values at the end of a block.
//
// Its r and cuBLAS's: each product is one fmaf chain over k = 0, 1, ..., t - 1 from 0.0f (the
// zero padding of k up to a multiple of 8 adds fmaf(0, 0, acc) = acc). cuBLAS's SGEMM sums in
// that order at the shapes of large networks (bench/gpu/probe_gemm_order.cpp on the H100: every
// sampled product bit-identical at N = 90,112, T = 165 and at 2,311 x 75), but picks kernels of
// other orders for some shapes (small ones: a third of the products differ by an ulp). So a
// pair's r here may differ from fc_pcc_triu's and fc_pcc_graph's by a float ulp or two, and a
// degree from the graph's row sums only through pairs that close to the threshold.
//
// Determinism: counts by integer atomics; weights summed per tile row and column in a fixed
// order (registers, shuffles, then the 8 warps in order), then added as 64-bit fixed-point
// integers (value * 2^scale_bits, rounded), which are exact in any order.
#include <algorithm>
#include <cmath>

#include "kernels/async_copy.cuh"
#include "kernels/graph_pair.cuh"

namespace fc {
namespace kernels {
namespace {

constexpr int kTile = kFusedTile;  // 128 x 128 products a block
constexpr int kK = kFusedK;        // k of one shared-memory stage
constexpr int kStages = 3;         // stages in flight (cp.async on sm_80+)
constexpr int kThreads = 256;      // 16 x 16 threads, 8 x 8 products each

// Tile row (or column) of a thread's i-th value: 4 at ty * 4 and 4 at 64 + ty * 4, so that a
// warp's shared-memory reads are two float4 per operand and the 16 K products are covered once.
__device__ __forceinline__ int lane_index(int base, int i) { return (i < 4 ? 0 : 64) + base * 4 + (i & 3); }

// Block (x, y): rows q in [q0 + 128 y, + 128) (those below q1), columns p in [q0 + 128 y +
// 128 x, + 128) (those below n), pairs p > q. Row tiles start at multiples of 128 (q0 is one), so
// every 16-byte load of zt is aligned; zt is zero past n and t.
__global__ void __launch_bounds__(kThreads, 2)
    fused_degree_kernel(const float* __restrict__ zt, int64_t ld, int k_steps, int64_t n, int64_t q0, int64_t q1,
                        const uint8_t* __restrict__ constant, EdgeRule rule, double scale,
                        unsigned long long* __restrict__ degree, unsigned long long* __restrict__ strength) {
  __shared__ __align__(16) float smem[kStages * 2 * kK * kTile];
  const int64_t rs = q0 + int64_t(blockIdx.y) * kTile;
  const int64_t cs = rs + int64_t(blockIdx.x) * kTile;
  if (rs >= q1 || cs >= n) return;  // the whole block
  const int tid = threadIdx.x, tx = tid & 15, ty = tid >> 4;
  const int warp = tid >> 5, lane = tid & 31;

  // Stage s holds zt rows k in [8 kk, + 8): A (the block's rows) then B (its columns).
  auto a_stage = [&](int s) { return smem + s * 2 * kK * kTile; };
  auto b_stage = [&](int s) { return smem + s * 2 * kK * kTile + kK * kTile; };
  const int lk = tid >> 5, lc = (tid & 31) * 4;  // this thread's 16 bytes of a stage's operand
  const float* ga = zt + lk * ld + rs + lc;
  const float* gb = zt + lk * ld + cs + lc;
  auto load_stage = [&](int s, int kk) {
    const int64_t off = int64_t(kk) * kK * ld;
    load16(a_stage(s) + lk * kTile + lc, ga + off);
    load16(b_stage(s) + lk * kTile + lc, gb + off);
  };

  float acc[8][8];
#pragma unroll
  for (int i = 0; i < 8; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j) acc[i][j] = 0.0f;

#pragma unroll
  for (int s = 0; s < kStages - 1; ++s) {
    if (s < k_steps) load_stage(s, s);
    commit_stage();
  }
  for (int kk = 0; kk < k_steps; ++kk) {
    wait_stages<kStages - 2>();
    __syncthreads();  // stage kk is in; every thread is done with stage kk - 1, refilled next
    const int next = kk + kStages - 1;
    if (next < k_steps) load_stage(next % kStages, next);
    commit_stage();
    const float* a = a_stage(kk % kStages);
    const float* b = b_stage(kk % kStages);
#pragma unroll
    for (int k = 0; k < kK; ++k) {
      const float4 a0 = *reinterpret_cast<const float4*>(a + k * kTile + ty * 4);
      const float4 a1 = *reinterpret_cast<const float4*>(a + k * kTile + 64 + ty * 4);
      const float4 b0 = *reinterpret_cast<const float4*>(b + k * kTile + tx * 4);
      const float4 b1 = *reinterpret_cast<const float4*>(b + k * kTile + 64 + tx * 4);
      const float av[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
      const float bv[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
      for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j) acc[i][j] = fmaf(av[i], bv[j], acc[i][j]);
    }
  }

  // --- epilogue: which of the 64 products pass, then row and column sums ---------------------
  unsigned row_live = 0, col_live = 0;  // bit i: row (column) i of this thread is a live series
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const int64_t q = rs + lane_index(ty, i), p = cs + lane_index(tx, i);
    if (q < q1 && !is_constant(constant, q)) row_live |= 1u << i;
    if (p < n && !is_constant(constant, p)) col_live |= 1u << i;
  }
  unsigned long long pass = 0;  // bit 8 i + j: product (i, j) is an edge
#pragma unroll
  for (int i = 0; i < 8; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      const bool above = cs + lane_index(tx, j) > rs + lane_index(ty, i);
      const bool live = ((row_live >> i) & (col_live >> j) & 1u) != 0;
      if (live && above && passes(pair_r(acc[i][j]), rule)) pass |= 1ull << (8 * i + j);
    }
  auto weight = [&](float v) { return double(rule.absolute ? fabsf(pair_r(v)) : pair_r(v)); };
  auto to_fixed = [&](double s) { return static_cast<unsigned long long>(llrint(s * scale)); };

  // Rows: a row's 16 threads are the 16 lanes of one half-warp (same ty): a fixed xor tree.
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const unsigned bits = static_cast<unsigned>(pass >> (8 * i)) & 0xffu;
    int count = __popc(bits);
    double sum = 0.0;
    if (strength != nullptr) {
#pragma unroll
      for (int j = 0; j < 8; ++j)
        if ((bits >> j) & 1u) sum += weight(acc[i][j]);
    }
#pragma unroll
    for (int d = 8; d > 0; d >>= 1) {
      count += __shfl_xor_sync(0xffffffffu, count, d);
      if (strength != nullptr) sum += __shfl_xor_sync(0xffffffffu, sum, d);
    }
    if (tx == 0 && count > 0) {
      const int64_t q = rs + lane_index(ty, i);
      atomicAdd(degree + q, static_cast<unsigned long long>(count));
      if (strength != nullptr) atomicAdd(strength + q, to_fixed(sum));
    }
  }

  // Columns: a column's 16 threads are the two half-warps of each of the 8 warps.
  __syncthreads();  // the stages' shared memory is reused below
  double* col_sum = reinterpret_cast<double*>(smem);                   // [8 warps][128]
  int* col_count = reinterpret_cast<int*>(smem + 2 * 8 * kTile);       // [8 warps][128]
#pragma unroll
  for (int j = 0; j < 8; ++j) {
    int count = 0;
    double sum = 0.0;
#pragma unroll
    for (int i = 0; i < 8; ++i)
      if ((pass >> (8 * i + j)) & 1ull) {
        ++count;
        if (strength != nullptr) sum += weight(acc[i][j]);
      }
    count += __shfl_xor_sync(0xffffffffu, count, 16);
    if (strength != nullptr) {
      const double other = __shfl_xor_sync(0xffffffffu, sum, 16);
      sum = lane < 16 ? sum + other : other + sum;  // the lower half-warp's rows first, in both
    }
    if (lane < 16) {
      col_sum[warp * kTile + lane_index(tx, j)] = sum;
      col_count[warp * kTile + lane_index(tx, j)] = count;
    }
  }
  __syncthreads();
  if (tid < kTile) {
    int count = 0;
    double sum = 0.0;
    for (int w = 0; w < kThreads / 32; ++w) {
      count += col_count[w * kTile + tid];
      sum += col_sum[w * kTile + tid];
    }
    if (count > 0) {
      const int64_t p = cs + tid;
      atomicAdd(degree + p, static_cast<unsigned long long>(count));
      if (strength != nullptr) atomicAdd(strength + p, to_fixed(sum));
    }
  }
}

}  // namespace

cudaError_t fused_degree_band(const float* zt, int64_t ld, int64_t t_pad, int64_t n, int64_t q0, int64_t q1,
                              const uint8_t* constant, EdgeRule rule, int scale_bits, unsigned long long* degree,
                              unsigned long long* strength, cudaStream_t stream) {
  if (q1 <= q0 || n <= 1) return cudaSuccess;
  const dim3 grid(static_cast<unsigned>((n - q0 + kTile - 1) / kTile), static_cast<unsigned>((q1 - q0 + kTile - 1) / kTile));
  fused_degree_kernel<<<grid, kThreads, 0, stream>>>(zt, ld, static_cast<int>(t_pad / kK), n, q0, q1, constant, rule,
                                                     std::ldexp(1.0, scale_bits), degree, strength);
  return cudaGetLastError();
}

}  // namespace kernels
}  // namespace fc
