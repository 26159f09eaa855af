// Device helpers shared by the network kernels (graph_tiles.cuh): r of a tile value and the edge
// test, exactly as triu_extract produces a float triangle value.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/graph_tiles.cuh"

namespace fc {
namespace kernels {

// Clamped in the tile's type, then rounded to float (triu_extract's float output).
template <class In>
__device__ __forceinline__ float pair_r(In v) {
  return static_cast<float>(v > In(1) ? In(1) : (v < In(-1) ? In(-1) : v));
}

// A tile value, read once: a streaming (evict-first) load, so that the pass, which runs beside
// the next band's GEMM (cuda_graph.cpp), does not push that GEMM's operands out of L2.
template <class In>
__device__ __forceinline__ In tile_load(const In* p) {
  return __ldcs(p);
}

__device__ __forceinline__ bool passes(float r, EdgeRule rule) {
  return (rule.absolute ? fabsf(r) : r) >= rule.threshold;
}

__device__ __forceinline__ bool is_constant(const uint8_t* constant, int64_t s) {
  return constant != nullptr && constant[s] != 0;
}

// The FP32 product of pair (q, p), exactly as tile_products (pair_tile.cuh) computes it: one fmaf
// chain over k from 0.0f, on the same floats, read from the row-major rows (n x t). The k-major copy's zero padding
// past t adds fmaf(0, 0, acc) = acc (acc is never -0: it starts at +0 and a sum that cancels
// rounds to +0), so stopping at t gives the same bits.
// (A template, so that a kernel file that does not call it compiles no copy.)
template <class F = float>
__device__ __noinline__ float chain_product(const F* __restrict__ rows, int t, int64_t q, int64_t p) {
  static_assert(sizeof(F) == sizeof(float), "the float rows");
  const float* a = rows + q * t;
  const float* b = rows + p * t;
  float acc = 0.0f;
#pragma unroll 8
  for (int k = 0; k < t; ++k) acc = fmaf(__ldg(a + k), __ldg(b + k), acc);
  return acc;
}

}  // namespace kernels
}  // namespace fc
