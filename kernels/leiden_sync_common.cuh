// What the synchronous Leiden's two kernel files share (leiden_sync.cu: moves and refinement;
// leiden_levels.cu: level 0, aggregation, final checks): launch shapes and small helpers.
#pragma once

#include "grid_size.cuh"
#include "leiden_sync.cuh"

namespace fc {
namespace kernels {
namespace leiden_detail {

constexpr int kThreads = 256;
constexpr int kWarpsPerBlock = 4;  // judging kernels: 128 threads, a shared table per warp
constexpr int kSharedSlots = 512;  // rows of up to 256 entries hash into shared memory
constexpr int32_t kEmpty = -1;

// Sums of the reduce by key (a functor of our own: cub::Sum is gone from newer CUB).
struct Add {
  __device__ __forceinline__ ull operator()(ull a, ull b) const { return a + b; }
};

inline unsigned grid_for(int64_t items) { return grid_size(items, kThreads); }
inline unsigned warp_grid(int64_t nodes) { return grid_size(nodes, kWarpsPerBlock); }

__device__ __forceinline__ int64_t as_signed(ull x) { return static_cast<int64_t>(x); }
__device__ __forceinline__ ull as_ull(int64_t x) { return static_cast<ull>(x); }

__device__ __forceinline__ ull warp_sum(ull x) {
  for (int o = 16; o > 0; o >>= 1) x += __shfl_xor_sync(0xffffffffu, x, o);
  return x;
}

}  // namespace leiden_detail
}  // namespace kernels
}  // namespace fc
