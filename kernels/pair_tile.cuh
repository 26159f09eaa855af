// The main loop both product kernels share (pair_products.cu writes its tile, fused_degree.cu
// tests it in registers): a Tile x Tile block of products <z_p, z_q> from k-major operands,
// staged through shared memory (kStages stages, cp.async on sm_80+), 256 threads each holding
// R x R products in registers, every product one fma chain over k ascending from 0. Float:
// 128 x 128, 8 x 8 a thread; double: 64 x 64, 4 x 4. Device code only.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "kernels/async_copy.cuh"

namespace fc {
namespace kernels {

constexpr int kTileThreads = 256;  // 16 x 16
constexpr int kTileStages = 3;
constexpr int kTileK = 8;          // k of one shared-memory stage

template <class T>
struct TileShape {
  static constexpr int V = 16 / sizeof(T);  // values of a 16-byte piece
  static constexpr int R = 2 * V;           // products a thread per row and column
  static constexpr int Tile = 16 * R;       // 128 (float), 64 (double)
  static constexpr int SharedValues = kTileStages * 2 * kTileK * Tile;
};

__device__ __forceinline__ float fma_of(float a, float b, float c) { return fmaf(a, b, c); }
__device__ __forceinline__ double fma_of(double a, double b, double c) { return fma(a, b, c); }

// Tile index of a thread's i-th value: V at base * V and V at Tile / 2 + base * V, so that a
// warp's shared-memory reads are two 16-byte pieces per operand.
template <class T>
__device__ __forceinline__ int lane_index(int base, int i) {
  using S = TileShape<T>;
  return (i < S::V ? 0 : S::Tile / 2) + base * S::V + (i % S::V);
}

// The R values of a thread's rows (or columns) at one k: two 16-byte shared-memory reads.
template <class T>
__device__ __forceinline__ void load_lanes(const T* stage_row, int base, T* v) {
  using S = TileShape<T>;
  using Piece = typename std::conditional<sizeof(T) == 4, float4, double2>::type;
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const Piece piece = *reinterpret_cast<const Piece*>(stage_row + h * (S::Tile / 2) + base * S::V);
    const T* e = reinterpret_cast<const T*>(&piece);
#pragma unroll
    for (int i = 0; i < S::V; ++i) v[h * S::V + i] = e[i];
  }
}

// The k loop of a staged main loop: load_stage(s, kk) issues the copies of k step kk into stage
// s; step(s) computes on stage s once it is in. kTileStages stages in flight (cp.async groups),
// one barrier a step. Every thread of the block calls this.
template <class Load, class Step>
__device__ __forceinline__ void staged_k_loop(int k_steps, Load&& load_stage, Step&& step) {
#pragma unroll
  for (int s = 0; s < kTileStages - 1; ++s) {
    if (s < k_steps) load_stage(s, s);
    commit_stage();
  }
  for (int kk = 0; kk < k_steps; ++kk) {
    wait_stages<kTileStages - 2>();
    __syncthreads();  // stage kk is in; every thread is done with stage kk - 1, refilled next
    const int next = kk + kTileStages - 1;
    if (next < k_steps) load_stage(next % kTileStages, next);
    commit_stage();
    step(kk % kTileStages);
  }
}

// acc[i][j] = <z_q, z_p> for q = rs + lane_index(ty, i) of zq and p = cs + lane_index(tx, j) of zp
// (k-major, leading dimensions ldq and ldp, zero past their series and time points; rs, cs and
// the leading dimensions whole 16-byte pieces), over k_steps stages of kTileK. smem holds
// TileShape<T>::SharedValues values, 16-byte aligned; every thread of the block calls this.
template <class T>
__device__ __forceinline__ void tile_products(const T* __restrict__ zq, int64_t ldq, int64_t rs, const T* __restrict__ zp,
                                              int64_t ldp, int64_t cs, int k_steps, T* smem,
                                              T (&acc)[TileShape<T>::R][TileShape<T>::R]) {
  using S = TileShape<T>;
  constexpr int Tile = S::Tile, V = S::V, R = S::R, K = kTileK;
  const int tid = threadIdx.x, tx = tid & 15, ty = tid >> 4;
  auto a_stage = [&](int s) { return smem + s * 2 * K * Tile; };          // rows q
  auto b_stage = [&](int s) { return smem + s * 2 * K * Tile + K * Tile; };  // columns p
  // This thread's 16 bytes of each operand of a stage: row lk of k, values [lc, lc + V).
  const int lk = tid / (Tile / V), lc = (tid % (Tile / V)) * V;
  const T* ga = zq + lk * ldq + rs + lc;
  const T* gb = zp + lk * ldp + cs + lc;
  auto load_stage = [&](int s, int kk) {
    load16(a_stage(s) + lk * Tile + lc, ga + int64_t(kk) * K * ldq);
    load16(b_stage(s) + lk * Tile + lc, gb + int64_t(kk) * K * ldp);
  };
#pragma unroll
  for (int i = 0; i < R; ++i)
#pragma unroll
    for (int j = 0; j < R; ++j) acc[i][j] = T(0);
  staged_k_loop(k_steps, load_stage, [&](int stage) {
    const T* a = a_stage(stage);
    const T* b = b_stage(stage);
#pragma unroll
    for (int k = 0; k < K; ++k) {
      T av[R], bv[R];
      load_lanes<T>(a + k * Tile, ty, av);
      load_lanes<T>(b + k * Tile, tx, bv);
#pragma unroll
      for (int i = 0; i < R; ++i)
#pragma unroll
        for (int j = 0; j < R; ++j) acc[i][j] = fma_of(av[i], bv[j], acc[i][j]);
    }
  });
}

}  // namespace kernels
}  // namespace fc
