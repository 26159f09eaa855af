// The CUDA backend's centrality capability (backend/centrality_backend.hpp): y = Z (Z^T x) on the
// stored rows by the kernels of kernels/series_products.cu, in the order the interface fixes (the
// CPU backend's bits). x goes up and y comes back each product: 16 N bytes over the link against
// the 2 N T bytes of Z read on the device. The vectors' buffers stay with the backend between
// products (an eigensolve makes dozens).
#include "backend/cuda/cuda_backend_class.hpp"
#include "kernels/series_products.cuh"

namespace fc {
namespace cuda {

void CudaBackend::gram_product(const SeriesView& s, const double* x, double* y, const RunSettings&) {
  DeviceScope scope(device_);
  const CudaSeries& st = storage_of(s);
  const int64_t n = s.n, t = s.t;
  if (t > int64_t(65535) * 128)
    fail(FC_ERR_INVALID_ARG, "the CUDA centrality products take at most 8388480 time points; the series have " +
                                 std::to_string(t));
  const int64_t chunks = (n + kCentralityChunkRows - 1) / kCentralityChunkRows;
  const std::string what = "the centrality products of " + std::to_string(n) + " x " + std::to_string(t) + " series";
  auto reserve = [&](DeviceBuffer& b, int64_t bytes, const char* name) {
    if (b.bytes() >= static_cast<size_t>(bytes)) return;
    if (!b.try_allocate(device_, static_cast<size_t>(bytes)))
      fail(FC_ERR_OUT_OF_MEMORY, "cudaMalloc of " + std::to_string(bytes) + " bytes for " + name + " of " + what +
                                     " failed: the device is out of memory");
  };
  reserve(centrality_.x, n * 8, "the vector");
  reserve(centrality_.y, n * 8, "the product");
  reserve(centrality_.partial, chunks * t * 8, "the partial sums");
  reserve(centrality_.u, t * 8, "Z^T x");

  const cudaStream_t stream = res_->compute_stream(0);
  try {
    // Ordered after the caller's stream, as every computation of the backend is.
    FC_CUDA(cudaEventRecord(res_->start_event(), user_stream_));
    FC_CUDA(cudaStreamWaitEvent(stream, res_->start_event(), 0));
    FC_CUDA(cudaMemcpyAsync(centrality_.x.get(), x, static_cast<size_t>(n) * 8, cudaMemcpyHostToDevice, stream));
    double* dx = centrality_.x.get<double>();
    double* dy = centrality_.y.get<double>();
    double* partial = centrality_.partial.get<double>();
    double* u = centrality_.u.get<double>();
    check_cuda(st.f64 ? kernels::series_transpose_product(st.rows.get<double>(), n, t, kCentralityChunkRows, dx, partial, u, stream)
                      : kernels::series_transpose_product(st.rows.get<float>(), n, t, kCentralityChunkRows, dx, partial, u, stream),
               "series_transpose_product kernel launch");
    check_cuda(st.f64 ? kernels::series_product(st.rows.get<double>(), n, t, u, dy, stream)
                      : kernels::series_product(st.rows.get<float>(), n, t, u, dy, stream),
               "series_product kernel launch");
    FC_CUDA(cudaMemcpyAsync(y, dy, static_cast<size_t>(n) * 8, cudaMemcpyDeviceToHost, stream));
    FC_CUDA(cudaStreamSynchronize(stream));
  } catch (...) {
    res_->quiesce();  // no kernel or copy left running on the caller's x and y
    throw;
  }
}

}  // namespace cuda
}  // namespace fc
