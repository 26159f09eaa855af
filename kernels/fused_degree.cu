// Degree and strength straight from the products: a float GEMM over the triangle's 128 x 128
// tiles whose epilogue tests each value in registers and adds the passing ones to the degrees,
// so that no tile of r is ever written to device memory or read back (graph_tiles.cuh).
//
// Why a GEMM of our own: with cuBLAS the degree is a GEMM that writes 256 MB a band and a pass
// that reads it back (0.60 + 0.14 ms a band on the H100, bench/RESULTS-gpu.md); here the pass is
// a few hundred instructions per 16 K values at the end of a block.
//
// Its r: the main loop of pair_tile.cuh, which pair_products.cu runs for every other call, so a
// pair's r here is the same bits as in fc_pcc_triu and fc_pcc_graph (each product one fmaf chain
// over k = 0, 1, ..., t - 1 from 0.0f; the zero padding of k adds fmaf(0, 0, acc) = acc), and a
// degree is exactly the graph's row sum.
//
// Determinism: counts by integer atomics; weights summed per tile row and column in a fixed
// order (registers, shuffles, then the 8 warps in order), then added as 64-bit fixed-point
// integers (value * 2^scale_bits, rounded), which are exact in any order.
#include <algorithm>
#include <cmath>

#include "kernels/graph_pair.cuh"
#include "kernels/pair_tile.cuh"

namespace fc {
namespace kernels {
namespace {

constexpr int kTile = kFusedTile;  // 128 x 128 products a block
constexpr int kThreads = kTileThreads;
static_assert(kFusedTile == TileShape<float>::Tile && kFusedK == kTileK, "graph_tiles.cuh describes pair_tile.cuh");

__device__ __forceinline__ int lane_index(int base, int i) { return kernels::lane_index<float>(base, i); }

// Block (x, y): rows q in [q0 + 128 y, + 128) (those below q1), columns p in [q0 + 128 y +
// 128 x, + 128) (those below n), pairs p > q. Row tiles start at multiples of 128 (q0 is one), so
// every 16-byte load of zt is aligned; zt is zero past n and t.
__global__ void __launch_bounds__(kThreads, 2)
    fused_degree_kernel(const float* __restrict__ zt, int64_t ld, int k_steps, int64_t n, int64_t q0, int64_t q1,
                        const uint8_t* __restrict__ constant, EdgeRule rule, double scale,
                        unsigned long long* __restrict__ degree, unsigned long long* __restrict__ strength) {
  __shared__ __align__(16) float smem[TileShape<float>::SharedValues];
  const int64_t rs = q0 + int64_t(blockIdx.y) * kTile;
  const int64_t cs = rs + int64_t(blockIdx.x) * kTile;
  if (rs >= q1 || cs >= n) return;  // the whole block
  const int tid = threadIdx.x, tx = tid & 15, ty = tid >> 4;
  const int warp = tid >> 5, lane = tid & 31;

  // The products, as pair_products.cu makes them: acc[i][j] = <z_q, z_p> for q = rs +
  // lane_index(ty, i), p = cs + lane_index(tx, j).
  float acc[8][8];
  tile_products<float>(zt, ld, rs, zt, ld, cs, k_steps, smem, acc);

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
  fused_degree_kernel<<<grid, kThreads, 0, stream>>>(zt, ld, static_cast<int>(t_pad / kTileK), n, q0, q1, constant, rule,
                                                     std::ldexp(1.0, scale_bits), degree, strength);
  return cudaGetLastError();
}

}  // namespace kernels
}  // namespace fc
