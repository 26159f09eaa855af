// Launchers of the modularity group products (src/backend/cuda/cuda_modules.cpp drives them):
// the sparse half of Newman's B^(g) x for one group of nodes, summed exactly as the host loop of
// modules/group_eigen.cpp sums it (modules_backend.hpp's GroupProducts), so both backends find the same
// modules. Plain declarations over raw device pointers and a stream; each returns the launch
// status for the caller to check.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace fc {
namespace kernels {

// The graph on the device keeps 32-bit columns and local indices (graphs of at most 2^31 - 1
// nodes; cuda_modules.cpp keeps larger ones on the host): 12 bytes an entry read by a product
// (column, weight, local index) instead of 20.

// narrow[i] = wide[i] for i < count (values below 2^31).
cudaError_t narrow_columns(const int64_t* wide, int64_t count, int32_t* narrow, cudaStream_t stream);

// local_of[nodes[i]] = i for i < n (clear: -1 instead), the group's local indices.
cudaError_t group_local_index(const int64_t* nodes, int64_t n, int32_t* local_of, bool clear, cudaStream_t stream);

// Newman's B^(g) x for the group, in one launch: with rs_i = the sum over the CSR row nodes[i]'s
// entries e (in order) with local_of[columns[e]] >= 0 and weights[e] != 0 of
// cw(weights[e]) * x[local_of[columns[e]]], cw(w) = (w > 0 ? c_pos : c_neg) * w (every product and
// every partial sum rounded to double once, left to right; weights null: every weight is 1, which
// gives the same bits without reading them),
// y_i = ((rs_i - (gd_pos k_pos_i) p) + (gd_neg k_neg_i) q) - r_i x_i with p = pq[0] and q = pq[1]
// (q = 0 when gd_neg is 0): modules/group_eigen.cpp's host_eigenpair, in its order. pq, k_pos, k_neg, r: device
// arrays.
struct GroupFinish {
  const double* k_pos = nullptr;
  const double* k_neg = nullptr;
  const double* r = nullptr;
  const double* pq = nullptr;
  double gd_pos = 0, gd_neg = 0;
};
cudaError_t group_product(const int64_t* offsets, const int32_t* columns, const float* weights, const int64_t* nodes,
                          int64_t n, const int32_t* local_of, double c_pos, double c_neg, const double* x,
                          const GroupFinish& finish, double* y, cudaStream_t stream);

// The diagonal correction of B^(g) (modules/group_eigen.cpp: host_eigenpair), for a group whose subgraph the
// host is still making: r[i] = rs_i - gamma ((d_pos k_pos[i]) K_pos - (d_neg k_neg[i]) K_neg), with
// rs_i the sum over row nodes[i]'s entries of cw(w) as group_product adds them (x = 1), every
// operation rounded once, left to right: the host's bits. k_pos, k_neg: device arrays of n;
// weights null: all 1, as for group_product.
struct GroupDiagonal {
  double c_pos = 0, c_neg = 0, gamma = 0, d_pos = 0, d_neg = 0, group_pos = 0, group_neg = 0;
  const double* k_pos = nullptr;
  const double* k_neg = nullptr;
};
cudaError_t group_diagonal(const int64_t* offsets, const int32_t* columns, const float* weights, const int64_t* nodes,
                           int64_t n, const int32_t* local_of, const GroupDiagonal& d, double* r, cudaStream_t stream);

}  // namespace kernels
}  // namespace fc
