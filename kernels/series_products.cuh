// Launchers of the centrality products (backend/centrality_backend.hpp's gram_product) on the
// stored rows: u = Z^T x and y = Z u in float64, in the fixed order that interface specifies, so
// that the CPU backend (cpu_centrality.cpp) gets the same bits. Plain declarations over raw
// device pointers and a stream; each returns the launch status (cudaGetLastError).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace fc {
namespace kernels {

// partial (chunks x t, chunks = ceil(n / chunk_rows)): partial[c * t + k] = sum over rows i of
// chunk c, ascending, of z[i * t + k] * x[i], from 0, each product and sum rounded once; then
// u[k] = sum over c ascending of partial[c * t + k], from 0. t <= 65535 * 128.
cudaError_t series_transpose_product(const float* z, int64_t n, int64_t t, int64_t chunk_rows, const double* x,
                                     double* partial, double* u, cudaStream_t stream);
cudaError_t series_transpose_product(const double* z, int64_t n, int64_t t, int64_t chunk_rows, const double* x,
                                     double* partial, double* u, cudaStream_t stream);

// y[i] = sum_k z[i * t + k] * u[k] in 8 interleaved lanes (k to lane k % 8, each ascending, from
// 0) added as ((l0 + l1) + (l2 + l3)) + ((l4 + l5) + (l6 + l7)).
cudaError_t series_product(const float* z, int64_t n, int64_t t, const double* u, double* y, cudaStream_t stream);
cudaError_t series_product(const double* z, int64_t n, int64_t t, const double* u, double* y, cudaStream_t stream);

// Fast ECM's operator from the product g = Z u above (backend/centrality_backend.hpp's
// gram_space): y[i] = (y[i] + member[i] * *ones) * 0.5, each operation rounded once; *ones (m^T x)
// on the device.
cudaError_t centrality_finish(const double* member, const double* ones, double* y, int64_t n, cudaStream_t stream);

}  // namespace kernels
}  // namespace fc
