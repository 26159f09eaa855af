// Launchers of the CUDA backend's own products <z_p, z_q> of normalized series (FP32 and FP64
// modes; TF32 uses cuBLAS's tensor cores). Plain declarations over raw device pointers and a
// stream; each returns the launch status (cudaGetLastError) for the caller to check.
//
// Why not cuBLAS: cuBLAS picks its kernel, and with it the order of each dot product's sums, from
// the call's shape, so the same pair came out of fc_pcc_triu, fc_pcc_blocks, fc_pcc_dense or a
// different memory limit with different last bits (up to 7e-7). Here every product is one fused
// multiply-add chain over k = 0, 1, ..., t - 1 starting from 0 (the zero padding of k adds
// fma(0, 0, acc) = acc), whatever the tile, band or call it is computed in, and fma(a, b, c) ==
// fma(b, a, c), so <z_p, z_q> and <z_q, z_p> are the same bits too: one answer per pair. The
// float chain is also the order of fused_degree.cu, so a degree counts exactly the graph's edges.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace fc {
namespace kernels {

// The k-major copy the products read: zt[k * ld + i] = z[i * t + k] for i < n and k < t, zero for
// every other i < ld and k < t_pad. ld >= kmajor_ld(n) and t_pad = kmajor_t_pad(t) let every
// block read whole, aligned 16-byte pieces past the last series and time point.
constexpr int64_t kProductK = 8;      // k of one shared-memory stage
constexpr int64_t kProductTile = 128; // the widest tile (float); the double tile is 64
inline int64_t kmajor_ld(int64_t n) { return (n + 2 * kProductTile - 1) / kProductTile * kProductTile + kProductTile; }
inline int64_t kmajor_t_pad(int64_t t) { return (t + kProductK - 1) / kProductK * kProductK; }

// Several series sets of one shape in one launch (the dfc windows of triu_windows): set i is read
// at in + i * in_stride and written at out + i * out_stride (values); at most 65535 sets. Each
// set's values are exactly those of a launch of its own.
struct SeriesBatch {
  int64_t count = 1;
  int64_t in_stride = 0, out_stride = 0;
};

cudaError_t transpose_pad(const float* z, int64_t n, int64_t t, float* zt, int64_t ld, int64_t t_pad,
                          cudaStream_t stream, const SeriesBatch& batch = SeriesBatch());
cudaError_t transpose_pad(const double* z, int64_t n, int64_t t, double* zt, int64_t ld, int64_t t_pad,
                          cudaStream_t stream, const SeriesBatch& batch = SeriesBatch());

// c[(q - q0) * ldc + (p - p0)] = <z_p, z_q> for p in [p0, p0 + np) of the series in zp and q in
// [q0, q0 + nq) of those in zq (k-major copies with leading dimensions ldp, ldq and the same
// t_pad); nothing else of c is written.
cudaError_t pair_products(const float* zp, int64_t ldp, int64_t p0, int64_t np, const float* zq, int64_t ldq,
                          int64_t q0, int64_t nq, int64_t t_pad, float* c, int64_t ldc, cudaStream_t stream,
                          const SeriesBatch& batch = SeriesBatch());
cudaError_t pair_products(const double* zp, int64_t ldp, int64_t p0, int64_t np, const double* zq, int64_t ldq,
                          int64_t q0, int64_t nq, int64_t t_pad, double* c, int64_t ldc, cudaStream_t stream,
                          const SeriesBatch& batch = SeriesBatch());

}  // namespace kernels
}  // namespace fc
