// The CUDA backend's centrality capability (backend/centrality_backend.hpp): y = Z (Z^T x) on the
// stored rows by the kernels of kernels/series_products.cu, in the order the interface fixes (the
// CPU backend's bits).
//
// gram_product: x goes up and y comes back each product, 16 N bytes over the link against the
// 2 N T bytes of Z read on the device; the vectors' buffers stay with the backend between products.
// gram_space: fast ECM's whole eigensolve on the device (cuda_eigen_space.hpp): the Lanczos
// vectors stay there, so a product costs its kernels and the reorthogonalization runs over device
// vectors; only the projected matrix's scalars and the final eigenvector cross the link.
#include "backend/cuda/cuda_backend_class.hpp"
#include "backend/cuda/cuda_eigen_space.hpp"
#include "kernels/eigen_space.cuh"
#include "kernels/series_products.cuh"

namespace fc {
namespace cuda {
namespace {

// Columns of Z^T x: one block row per 128 (series_products.cuh).
void check_time_points(int64_t t) {
  if (t > int64_t(65535) * 128)
    fail(FC_ERR_INVALID_ARG, "the CUDA centrality products take at most 8388480 time points; the series have " +
                                 std::to_string(t));
}

std::string products_of(int64_t n, int64_t t) {
  return "the centrality products of " + std::to_string(n) + " x " + std::to_string(t) + " series";
}

// Grows b to `bytes`, or fails with FC_ERR_OUT_OF_MEMORY naming `name` of `what`.
void reserve_buffer(int device, DeviceBuffer& b, int64_t bytes, const char* name, const std::string& what) {
  if (b.bytes() >= static_cast<size_t>(bytes)) return;
  if (!b.try_allocate(device, static_cast<size_t>(bytes)))
    fail(FC_ERR_OUT_OF_MEMORY, "cudaMalloc of " + std::to_string(bytes) + " bytes for " + name + " of " + what +
                                   " failed: the device is out of memory");
}

// y = Z (Z^T x) on `stream`, x and y on the device (partial: the chunk sums, u: Z^T x).
void gram_kernels(const CudaSeries& st, const double* x, double* partial, double* u, double* y, cudaStream_t stream) {
  const int64_t n = st.n, t = st.t;
  check_cuda(st.f64 ? kernels::series_transpose_product(st.rows.get<double>(), n, t, kCentralityChunkRows, x, partial, u, stream)
                    : kernels::series_transpose_product(st.rows.get<float>(), n, t, kCentralityChunkRows, x, partial, u, stream),
             "series_transpose_product kernel launch");
  check_cuda(st.f64 ? kernels::series_product(st.rows.get<double>(), n, t, u, y, stream)
                    : kernels::series_product(st.rows.get<float>(), n, t, u, y, stream),
             "series_product kernel launch");
}

// Fast ECM's operator over device slots: apply is four launches (m^T x, Z^T x, Z u, the finish)
// on the space's stream, no synchronization.
class CudaGramSpace : public CudaEigenSpace {
 public:
  CudaGramSpace(int device, const CudaSeries& rows, Progress* progress, CentralityScratch& scratch)
      : CudaEigenSpace(device, scratch.space), rows_(rows), progress_(progress), scratch_(scratch) {}
  ~CudaGramSpace() override { quiesce(); }  // the backend's next products may reuse the buffers

  // Everything on the device before the first product: the space (reserve), m, and the
  // products' chunk sums and Z^T x. Ordered after `after` (the caller's stream).
  void prepare(const double* member, int64_t slots, cudaStream_t after) {
    DeviceScope scope(device_);
    const int64_t n = rows_.n, t = rows_.t;
    const std::string what = products_of(n, t);
    if (!start()) fail(FC_ERR_OUT_OF_MEMORY, "cudaMalloc of the eigensolver's counter failed: the device is out of memory");
    reserve(n, slots);
    reserve_buffer(device_, scratch_.member, n * 8, "the series' membership", what);
    reserve_buffer(device_, scratch_.partial, (n + kCentralityChunkRows - 1) / kCentralityChunkRows * t * 8,
                   "the partial sums", what);
    reserve_buffer(device_, scratch_.u, t * 8, "Z^T x", what);
    FC_CUDA(cudaEventRecord(after_.get(), after));
    FC_CUDA(cudaStreamWaitEvent(stream(), after_.get(), 0));
    FC_CUDA(cudaMemcpyAsync(scratch_.member.get(), member, static_cast<size_t>(n) * 8, cudaMemcpyHostToDevice, stream()));
    sync();  // the caller's pageable m
  }

  void apply(int64_t from, int64_t to) override {
    DeviceScope scope(device_);
    const cudaStream_t s = stream();
    const int64_t n = rows_.n;
    const double* x = at(from);
    double* const y = at(to);
    const double* member = scratch_.member.get<double>();
    double* const ones = apply_scalars();
    check_cuda(kernels::eigen_dots(nullptr, n, 0, nullptr, member, x, partial(), done(), ones, s),
               "eigen_dots kernel launch");
    gram_kernels(rows_, x, scratch_.partial.get<double>(), scratch_.u.get<double>(), y, s);
    check_cuda(kernels::centrality_finish(member, ones, y, n, s), "centrality_finish kernel launch");
    progress_->advance(1);
  }

 private:
  const CudaSeries& rows_;
  Progress* progress_;
  CentralityScratch& scratch_;
  Event after_;
};

}  // namespace

void CudaBackend::gram_product(const SeriesView& s, const double* x, double* y, const RunSettings&) {
  DeviceScope scope(device_);
  const CudaSeries& st = storage_of(s);
  const int64_t n = s.n, t = s.t;
  check_time_points(t);
  const int64_t chunks = (n + kCentralityChunkRows - 1) / kCentralityChunkRows;
  const std::string what = products_of(n, t);
  reserve_buffer(device_, centrality_.x, n * 8, "the vector", what);
  reserve_buffer(device_, centrality_.y, n * 8, "the product", what);
  reserve_buffer(device_, centrality_.partial, chunks * t * 8, "the partial sums", what);
  reserve_buffer(device_, centrality_.u, t * 8, "Z^T x", what);

  const cudaStream_t stream = res_->compute_stream(0);
  try {
    // Ordered after the caller's stream, as every computation of the backend is.
    FC_CUDA(cudaEventRecord(res_->start_event(), user_stream_));
    FC_CUDA(cudaStreamWaitEvent(stream, res_->start_event(), 0));
    FC_CUDA(cudaMemcpyAsync(centrality_.x.get(), x, static_cast<size_t>(n) * 8, cudaMemcpyHostToDevice, stream));
    double* dy = centrality_.y.get<double>();
    gram_kernels(st, centrality_.x.get<double>(), centrality_.partial.get<double>(), centrality_.u.get<double>(), dy,
                 stream);
    FC_CUDA(cudaMemcpyAsync(y, dy, static_cast<size_t>(n) * 8, cudaMemcpyDeviceToHost, stream));
    FC_CUDA(cudaStreamSynchronize(stream));
  } catch (...) {
    res_->quiesce();  // no kernel or copy left running on the caller's x and y
    throw;
  }
}

std::unique_ptr<EigenSpace> CudaBackend::gram_space(const SeriesView& s, const double* member, int64_t slots,
                                                    const RunSettings& run) {
  DeviceScope scope(device_);
  check_time_points(s.t);
  const int64_t bytes = CudaEigenSpace::reserve_bytes(s.n, slots) + 8 * s.n +
                        8 * s.t * ((s.n + kCentralityChunkRows - 1) / kCentralityChunkRows + 1);
  if (run.memory_limit > 0 && bytes > run.memory_limit) return nullptr;  // the host's vectors and gram_product
  auto space = std::make_unique<CudaGramSpace>(device_, storage_of(s), run.progress, centrality_);
  space->prepare(member, slots, user_stream_);  // on failure the space's destructor frees what it took
  return space;
}

}  // namespace cuda
}  // namespace fc
