// The k strongest partners of every series with the pairs decided on tensor cores (graph_ops.hpp:
// sample_row_bounds, csr_top_k; CudaBackend::tc_top_k drives them). The FP32 path (cuda_graph.cpp
// top_k) computes every row in full, twice the triangle's products. Here:
//  1. A lower bound L_i on row i's k-th largest |r|: the k-th largest over m sample columns (every
//     d-th series; exact FP32 products, the same fma chain as every other product), since the k
//     best of any subset cannot beat the k best of the row. A constant series gets 2.
//  2. The candidates: every pair with |r| >= min(L_i, L_j), decided on tensor cores with FP32's r
//     (threshold_edges with per-row thresholds): row i's candidates hold every pair at or above L_i,
//     hence its k best and all their ties.
//  3. The candidates' symmetric CSR on the device (columns ascending, weights r), and each row's k
//     best among its entries by row_topk's own choice (kernels/row_topk.cu, csr_topk).
// So the answer is the FP32 path's, bit for bit, at the cost of a sample (n x m products), one
// tensor-core pass over the triangle and the candidates.
#include <algorithm>
#include <cstdlib>
#include <vector>

#include "backend/cuda/graph_buffers.hpp"
#include "backend/cuda/graph_ops.hpp"
#include "kernels/graph_tiles.cuh"
#include "kernels/pair_products.cuh"

namespace fc {
namespace cuda {

int64_t topk_sample_stride(int64_t n) {
  const char* env = std::getenv("FASTCONN_TC_TOPK_SAMPLE");  // tests: a smaller sample
  const int64_t want = env != nullptr ? std::max<int64_t>(1, std::atoll(env)) : std::max<int64_t>(n / 16, 4096);
  return std::max<int64_t>(1, n / want);
}

bool sample_row_bounds(const GraphJob& job, int64_t k, DeviceBuffer& bound) {
  const int64_t n = job.n, t = job.t;
  const int64_t stride = topk_sample_stride(n), m_cols = (n + stride - 1) / stride;
  if (job.f64 || job.z.kmajor == nullptr || m_cols <= k) return false;
  PipelineResources& res = *job.res;
  const cublasHandle_t blas = res.blas(0);
  cudaStream_t stream = nullptr;
  FC_CUBLAS(cublasGetStream(blas, &stream));
  // After the work the caller queued on its stream.
  FC_CUDA(cudaEventRecord(res.start_event(), job.user_stream));
  FC_CUDA(cudaStreamWaitEvent(stream, res.start_event(), 0));
  const int64_t ld = kernels::kmajor_ld(m_cols), t_pad = job.z.t_pad, n_pad = kernels::tc_rows_pad(n);
  const int64_t band = std::max<int64_t>(1, std::min<int64_t>(n, (int64_t(64) << 20) / m_cols));
  DeviceBuffer rows, kmajor, sample, tile, cols, vals;
  allocate<float>(job, rows, m_cols * t, "the top-k sample's series");
  allocate<float>(job, kmajor, t_pad * ld, "the top-k sample's k-major copy");
  allocate<int64_t>(job, sample, m_cols, "the top-k sample's columns");
  allocate<float>(job, tile, band * m_cols, "the top-k sample's products");
  allocate<int64_t>(job, cols, band * k, "the top-k sample's choices (columns)");
  allocate<float>(job, vals, band * k, "the top-k sample's choices (values)");
  allocate<float>(job, bound, n_pad, "the top-k row bounds");
  std::vector<int64_t> columns(static_cast<size_t>(m_cols));
  for (int64_t s = 0; s < m_cols; ++s) columns[static_cast<size_t>(s)] = s * stride;
  const std::vector<float> padding(static_cast<size_t>(n_pad - n), 2.0f);  // padding rows never lower a tile's cut
  FC_CUDA(cudaMemcpyAsync(sample.get(), columns.data(), columns.size() * sizeof(int64_t), cudaMemcpyHostToDevice, stream));
  if (!padding.empty())
    FC_CUDA(cudaMemcpyAsync(bound.get<float>() + n, padding.data(), padding.size() * sizeof(float), cudaMemcpyHostToDevice,
                            stream));
  const float* z = static_cast<const float*>(job.rows);
  FC_CUDA(cudaMemcpy2DAsync(rows.get(), static_cast<size_t>(t) * sizeof(float), z, static_cast<size_t>(stride * t) * sizeof(float),
                            static_cast<size_t>(t) * sizeof(float), static_cast<size_t>(m_cols), cudaMemcpyDeviceToDevice,
                            stream));
  check_cuda(kernels::transpose_pad(rows.get<float>(), m_cols, t, kmajor.get<float>(), ld, t_pad, stream),
             "transpose_pad kernel launch (top-k sample)");
  Operand sampled;
  sampled.rows = rows.get();
  sampled.kmajor = kmajor.get();
  sampled.t = t;
  sampled.t_pad = t_pad;
  sampled.ld = ld;
  for (int64_t a0 = 0; a0 < n; a0 += band) {
    const int64_t nb = std::min(band, n - a0);
    pair_products(blas, sampled, 0, m_cols, job.z, a0, nb, tile.get(), m_cols);
    check_cuda(kernels::sample_topk(tile.get<float>(), m_cols, sample.get<int64_t>(), a0, nb, job.constant, k, a0,
                                    cols.get<int64_t>(), vals.get<float>(), stream),
               "sample_topk kernel launch");
    check_cuda(kernels::topk_row_bounds(vals.get<float>(), k, a0, nb, job.constant, bound.get<float>(), stream),
               "topk_row_bounds kernel launch");
  }
  FC_CUDA(cudaStreamSynchronize(stream));  // the host vectors above and the buffers go out of scope
  return true;
}

void csr_top_k(const GraphJob& job, GraphArena& arena, int64_t k, int64_t* columns, float* values) {
  PipelineResources& res = *job.res;
  const cudaStream_t stream = res.copy_stream();
  const int64_t cells = job.n * k;
  DeviceBuffer out_cols, out_vals;
  allocate<int64_t>(job, out_cols, cells, "the top-k columns");
  allocate<float>(job, out_vals, cells, "the top-k values");
  FC_CUDA(cudaStreamWaitEvent(stream, arena.assembled->get(), 0));
  const CsrBuffers& b = arena.csr;
  check_cuda(kernels::csr_topk(b.offsets.get<int64_t>(), b.columns.get<int64_t>(), b.weights.get<float>(), 0, job.n,
                               job.constant, k, 0, out_cols.get<int64_t>(), out_vals.get<float>(), stream),
             "csr_topk kernel launch");
  copy_to_host(columns, out_cols.get(), cells, stream);
  copy_to_host(values, out_vals.get(), cells, stream);
  FC_CUDA(cudaStreamSynchronize(stream));
}

}  // namespace cuda
}  // namespace fc
