// The modularity group products on the device (group_product.cuh says what they compute).
#include "kernels/group_product.cuh"
#include "kernels/grid_size.cuh"

namespace fc {
namespace kernels {
namespace {

constexpr int kThreads = 256;

// Blocks for `items` work items of `per_item` threads each.
unsigned grid_for(int64_t items, int64_t per_item) { return grid_size(items * per_item, kThreads); }

__global__ void local_index_kernel(const int64_t* __restrict__ nodes, int64_t n, int32_t* __restrict__ local_of,
                                   bool clear) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x)
    local_of[nodes[i]] = clear ? -1 : int32_t(i);
}

__global__ void narrow_kernel(const int64_t* __restrict__ wide, int64_t count, int32_t* __restrict__ narrow) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < count; i += int64_t(gridDim.x) * blockDim.x)
    narrow[i] = int32_t(wide[i]);
}

// Row u's sum on one thread: the terms cw(w) * x[l] of its entries added in entry order, so the
// sum is the host loop's, bit for bit (a skipped entry adds +0.0, which leaves a sum that started
// at +0.0 unchanged). __dmul_rn and __dadd_rn keep the compiler from fusing them into a
// multiply-add the host does not do. x null: every x is 1 (the row's sum of weights: cw * 1 is cw
// exactly). Its loads do not wait on the sum: kAhead terms are loaded at once, then added in order.
//
// Why not a warp per row (until 2026-11-25): there every lane added all of the row's terms, each
// brought to it by a shuffle (two for a double), and Nsight Compute measured the voxel network's
// root product at 404 us and 224 GB/s, about what the shuffles' issue rate allows (2 x 22 M warp
// shuffles over 132 SMs); one thread per row adds each term once (242 us).
__device__ double thread_row_sum(const int64_t* __restrict__ offsets, const int32_t* __restrict__ columns,
                                 const float* __restrict__ weights, int64_t u, const int32_t* __restrict__ local_of,
                                 double c_pos, double c_neg, const double* __restrict__ x) {
  constexpr int kAhead = 16;
  const int64_t begin = offsets[u], end = offsets[u + 1];
  auto term = [&](int64_t e) {
    const float w = weights != nullptr ? weights[e] : 1.0f;
    const int32_t l = local_of[columns[e]];
    return l >= 0 && w != 0.0f ? __dmul_rn(__dmul_rn(w > 0.0f ? c_pos : c_neg, double(w)), x != nullptr ? x[l] : 1.0)
                               : 0.0;
  };
  double sum = 0.0;
  int64_t e = begin;
  for (; e + kAhead <= end; e += kAhead) {
    double t[kAhead];
#pragma unroll
    for (int k = 0; k < kAhead; ++k) t[k] = term(e + k);
#pragma unroll
    for (int k = 0; k < kAhead; ++k) sum = __dadd_rn(sum, t[k]);
  }
  for (; e < end; ++e) sum = __dadd_rn(sum, term(e));
  return sum;
}

// One thread per row, which also finishes it (GroupFinish's expression).
__global__ void group_product_kernel(const int64_t* __restrict__ offsets, const int32_t* __restrict__ columns,
                                     const float* __restrict__ weights, const int64_t* __restrict__ nodes, int64_t n,
                                     const int32_t* __restrict__ local_of, double c_pos, double c_neg,
                                     const double* __restrict__ x, GroupFinish f, double* __restrict__ y) {
  const double p = f.pq[0], q = f.gd_neg != 0.0 ? f.pq[1] : 0.0;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    const double sum = thread_row_sum(offsets, columns, weights, nodes[i], local_of, c_pos, c_neg, x);
    const double a = __dsub_rn(sum, __dmul_rn(__dmul_rn(f.gd_pos, f.k_pos[i]), p));
    const double b = __dadd_rn(a, __dmul_rn(__dmul_rn(f.gd_neg, f.k_neg[i]), q));
    y[i] = __dsub_rn(b, __dmul_rn(f.r[i], x[i]));
  }
}

// r[i] = (row i's sum of combined weights) - gamma (d+ k+_i K+ - d- k-_i K-), the host's
// expression in its order (modules/group_eigen.cpp: host_eigenpair).
__global__ void group_diagonal_kernel(const int64_t* __restrict__ offsets, const int32_t* __restrict__ columns,
                                      const float* __restrict__ weights, const int64_t* __restrict__ nodes, int64_t n,
                                      const int32_t* __restrict__ local_of, GroupDiagonal d, double* __restrict__ r) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    const double sum = thread_row_sum(offsets, columns, weights, nodes[i], local_of, d.c_pos, d.c_neg, nullptr);
    const double pos = __dmul_rn(__dmul_rn(d.d_pos, d.k_pos[i]), d.group_pos);
    const double neg = __dmul_rn(__dmul_rn(d.d_neg, d.k_neg[i]), d.group_neg);
    r[i] = __dsub_rn(sum, __dmul_rn(d.gamma, __dsub_rn(pos, neg)));
  }
}

}  // namespace

cudaError_t group_diagonal(const int64_t* offsets, const int32_t* columns, const float* weights, const int64_t* nodes,
                           int64_t n, const int32_t* local_of, const GroupDiagonal& d, double* r, cudaStream_t stream) {
  if (n <= 0) return cudaSuccess;
  group_diagonal_kernel<<<grid_for(n, 1), kThreads, 0, stream>>>(offsets, columns, weights, nodes, n, local_of, d, r);
  return cudaGetLastError();
}

cudaError_t narrow_columns(const int64_t* wide, int64_t count, int32_t* narrow, cudaStream_t stream) {
  if (count <= 0) return cudaSuccess;
  narrow_kernel<<<grid_for(count, 1), kThreads, 0, stream>>>(wide, count, narrow);
  return cudaGetLastError();
}

cudaError_t group_local_index(const int64_t* nodes, int64_t n, int32_t* local_of, bool clear, cudaStream_t stream) {
  if (n <= 0) return cudaSuccess;
  local_index_kernel<<<grid_for(n, 1), kThreads, 0, stream>>>(nodes, n, local_of, clear);
  return cudaGetLastError();
}

cudaError_t group_product(const int64_t* offsets, const int32_t* columns, const float* weights, const int64_t* nodes,
                          int64_t n, const int32_t* local_of, double c_pos, double c_neg, const double* x,
                          const GroupFinish& finish, double* y, cudaStream_t stream) {
  if (n <= 0) return cudaSuccess;
  group_product_kernel<<<grid_for(n, 1), kThreads, 0, stream>>>(offsets, columns, weights, nodes, n, local_of, c_pos,
                                                                c_neg, x, finish, y);
  return cudaGetLastError();
}

}  // namespace kernels
}  // namespace fc
