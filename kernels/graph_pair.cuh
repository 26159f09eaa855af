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

}  // namespace kernels
}  // namespace fc
