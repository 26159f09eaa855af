// The modularity group products on the device (group_product.cuh says what they compute).
#include "kernels/group_product.cuh"
#include "kernels/grid_size.cuh"

namespace fc {
namespace kernels {
namespace {

constexpr int kThreads = 256;
constexpr int kWarp = 32;

// Blocks for `items` work items of `per_item` threads each.
unsigned grid_for(int64_t items, int64_t per_item) { return grid_size(items * per_item, kThreads); }

__global__ void local_index_kernel(const int64_t* __restrict__ nodes, int64_t n, int64_t* __restrict__ local_of,
                                   bool clear) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x)
    local_of[nodes[i]] = clear ? -1 : i;
}

// One warp per row. The lanes load 32 entries at a time (coalesced) and form their products;
// every lane then adds the 32 products in entry order, so the sum is the host loop's, bit for bit
// (a skipped entry adds +0.0, which leaves a sum that started at +0.0 unchanged). __dmul_rn and
// __dadd_rn keep the compiler from fusing them into a multiply-add the host does not do.
__global__ void group_product_kernel(const int64_t* __restrict__ offsets, const int64_t* __restrict__ columns,
                                     const float* __restrict__ weights, const int64_t* __restrict__ nodes, int64_t n,
                                     const int64_t* __restrict__ local_of, double c_pos, double c_neg,
                                     const double* __restrict__ x, double* __restrict__ y) {
  const int lane = threadIdx.x & (kWarp - 1);
  const int64_t warps = (int64_t(gridDim.x) * blockDim.x) / kWarp;
  for (int64_t i = (blockIdx.x * int64_t(blockDim.x) + threadIdx.x) / kWarp; i < n; i += warps) {
    const int64_t u = nodes[i];
    const int64_t begin = offsets[u], end = offsets[u + 1];
    double sum = 0.0;
    for (int64_t base = begin; base < end; base += kWarp) {
      const int64_t e = base + lane;
      double term = 0.0;
      if (e < end) {
        const float w = weights[e];
        const int64_t l = local_of[columns[e]];
        if (l >= 0 && w != 0.0f) term = __dmul_rn(__dmul_rn(w > 0.0f ? c_pos : c_neg, double(w)), x[l]);
      }
      const int64_t count = end - base < kWarp ? end - base : kWarp;
      for (int j = 0; j < count; ++j) sum = __dadd_rn(sum, __shfl_sync(0xffffffffu, term, j));
    }
    if (lane == 0) y[i] = sum;
  }
}

}  // namespace

cudaError_t group_local_index(const int64_t* nodes, int64_t n, int64_t* local_of, bool clear, cudaStream_t stream) {
  if (n <= 0) return cudaSuccess;
  local_index_kernel<<<grid_for(n, 1), kThreads, 0, stream>>>(nodes, n, local_of, clear);
  return cudaGetLastError();
}

cudaError_t group_product(const int64_t* offsets, const int64_t* columns, const float* weights, const int64_t* nodes,
                          int64_t n, const int64_t* local_of, double c_pos, double c_neg, const double* x, double* y,
                          cudaStream_t stream) {
  if (n <= 0) return cudaSuccess;
  group_product_kernel<<<grid_for(n, kWarp), kThreads, 0, stream>>>(offsets, columns, weights, nodes, n, local_of,
                                                                    c_pos, c_neg, x, y);
  return cudaGetLastError();
}

}  // namespace kernels
}  // namespace fc
