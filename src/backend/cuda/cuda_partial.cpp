// The CUDA backend's partial correlation (backend/partial_backend.hpp), in float64 on the device:
// float rows widened to double (kernels/window_normalize.cuh's convert), R = Z Z^T by cuBLAS
// Dsyrk, the intensity's sums (kernels/partial_matrix.cu) brought to the host for the one formula
// both backends use, the shrinkage, cuSOLVER's Cholesky (Dpotrf) and inverse (Dpotri), the partial
// correlations, and the upper triangle copied to the host. Only the lower triangle in cuSOLVER's
// column-major terms is ever computed: the row-major upper one the interface returns.
#include <string>

#include "backend/cuda/cuda_backend_class.hpp"
#include "backend/cuda/run_ordered.hpp"
#include "kernels/partial_matrix.cuh"
#include "kernels/window_normalize.cuh"

namespace fc {
namespace cuda {
namespace {

const char* solver_status_name(cusolverStatus_t status) {
  switch (status) {
    case CUSOLVER_STATUS_NOT_INITIALIZED: return "CUSOLVER_STATUS_NOT_INITIALIZED";
    case CUSOLVER_STATUS_ALLOC_FAILED: return "CUSOLVER_STATUS_ALLOC_FAILED";
    case CUSOLVER_STATUS_INVALID_VALUE: return "CUSOLVER_STATUS_INVALID_VALUE";
    case CUSOLVER_STATUS_ARCH_MISMATCH: return "CUSOLVER_STATUS_ARCH_MISMATCH";
    case CUSOLVER_STATUS_EXECUTION_FAILED: return "CUSOLVER_STATUS_EXECUTION_FAILED";
    case CUSOLVER_STATUS_INTERNAL_ERROR: return "CUSOLVER_STATUS_INTERNAL_ERROR";
    case CUSOLVER_STATUS_NOT_SUPPORTED: return "CUSOLVER_STATUS_NOT_SUPPORTED";
    default: return "cusolverStatus_t";
  }
}

void check_solver(cusolverStatus_t status, const char* call) {
  if (status == CUSOLVER_STATUS_SUCCESS) return;
  const fc_status code = status == CUSOLVER_STATUS_ALLOC_FAILED ? FC_ERR_OUT_OF_MEMORY : FC_ERR_CUDA;
  fail(code, std::string(call) + " failed: " + solver_status_name(status) + " (" + std::to_string(static_cast<int>(status)) + ")");
}

#define FC_CUSOLVER(call) check_solver((call), #call)

}  // namespace

double CudaBackend::partial_upper(const SeriesView& s, const PartialRequest& request, double* upper,
                                  const RunSettings& run) {
  DeviceScope scope(device_);
  check_int_range(s);
  const CudaSeries& st = storage_of(s);
  const int64_t n = s.n, t = s.t;
  const int ni = static_cast<int>(n), ti = static_cast<int>(t);
  const std::string what = "the partial correlation of " + std::to_string(n) + " x " + std::to_string(t) + " series";
  PartialScratch& p = partial_;
  if (p.solver == nullptr) FC_CUSOLVER(cusolverDnCreate(&p.solver));
  auto reserve = [&](DeviceBuffer& b, int64_t bytes, const char* name) {
    if (b.bytes() >= static_cast<size_t>(bytes)) return;
    if (!b.try_allocate(device_, static_cast<size_t>(bytes)))
      fail(FC_ERR_OUT_OF_MEMORY, "cudaMalloc of " + std::to_string(bytes) + " bytes for " + name + " of " + what +
                                     " failed: the device is out of memory");
  };
  const int64_t matrix_bytes = n * n * 8, wide_bytes = st.f64 ? 0 : n * t * 8;
  const int64_t partials_bytes = 3 * int64_t(kernels::kShrinkageBlocks) * 8;
  const int64_t fixed = matrix_bytes + wide_bytes + t * 8 + partials_bytes + 3 * 8 + n * 8 + 8;
  auto within_limit = [&](int64_t need) {
    if (run.memory_limit > 0 && need > run.memory_limit)
      fail(FC_ERR_OUT_OF_MEMORY, "memory limit of " + std::to_string(run.memory_limit) + " bytes is below the " +
                                     std::to_string(need) + " bytes that " + what +
                                     " needs on the GPU; raise it with fc_context_set_memory_limit (0 = automatic)");
  };
  within_limit(fixed);
  reserve(p.matrix, matrix_bytes, "the matrix");
  // The workspace is asked for with the matrix it will work on.
  double* m = p.matrix.get<double>();
  int lwork_factor = 0, lwork_inverse = 0;
  FC_CUSOLVER(cusolverDnDpotrf_bufferSize(p.solver, CUBLAS_FILL_MODE_LOWER, ni, m, ni, &lwork_factor));
  FC_CUSOLVER(cusolverDnDpotri_bufferSize(p.solver, CUBLAS_FILL_MODE_LOWER, ni, m, ni, &lwork_inverse));
  const int64_t lwork = std::max(std::max(lwork_factor, lwork_inverse), 1);
  within_limit(fixed + lwork * 8);
  if (!st.f64) reserve(p.wide, wide_bytes, "the rows widened to double");
  reserve(p.work, lwork * 8, "cuSOLVER's workspace");
  reserve(p.squares, t * 8, "the samples' squares");
  reserve(p.partials, partials_bytes, "the partial sums");
  reserve(p.sums, 3 * 8, "the sums");
  reserve(p.root, n * 8, "the diagonal's roots");
  reserve(p.info, 8, "cuSOLVER's devInfo");

  double* work = p.work.get<double>();
  int* info = p.info.get<int>();
  double used = request.shrinkage;
  run_ordered(*res_, user_stream_, [&](cudaStream_t stream, cublasHandle_t blas) {
    FC_CUSOLVER(cusolverDnSetStream(p.solver, stream));
    const double* z = st.f64 ? st.rows.get<double>() : p.wide.get<double>();
    if (!st.f64) check_cuda(kernels::convert(st.rows.get<float>(), n * t, p.wide.get<double>(), stream), "convert kernel launch");
    const double one = 1.0, zero = 0.0;
    // Column-major, the rows are a t x n matrix A (lda t): A^T A = Z Z^T.
    FC_CUBLAS(cublasDsyrk(blas, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_T, ni, ti, &one, z, ti, &zero, m, ni));
    check_cuda(kernels::shrinkage_sums(m, z, n, t, p.squares.get<double>(), p.partials.get<double>(), p.sums.get<double>(), stream),
               "shrinkage_sums kernel launch");
    ShrinkageSums sums;
    double host_sums[3];
    FC_CUDA(cudaMemcpyAsync(host_sums, p.sums.get(), sizeof host_sums, cudaMemcpyDeviceToHost, stream));
    FC_CUDA(cudaStreamSynchronize(stream));
    sums.trace = host_sums[0];
    sums.frobenius = host_sums[1];
    sums.fourth = host_sums[2];
    if (request.shrinkage == FC_SHRINKAGE_LEDOIT_WOLF) used = ledoit_wolf_intensity(n, t, sums);
    check_cuda(kernels::shrink_upper(m, n, used, sums.trace / static_cast<double>(n), stream), "shrink_upper kernel launch");

    int status = 0;
    FC_CUSOLVER(cusolverDnDpotrf(p.solver, CUBLAS_FILL_MODE_LOWER, ni, m, ni, work, static_cast<int>(lwork), info));
    FC_CUDA(cudaMemcpyAsync(&status, info, sizeof status, cudaMemcpyDeviceToHost, stream));
    FC_CUDA(cudaStreamSynchronize(stream));
    if (status > 0) fail_not_positive_definite(status, n, used);
    if (status < 0) fail(FC_ERR_INTERNAL, "cusolverDnDpotrf: argument " + std::to_string(-status) + " was invalid");
    FC_CUSOLVER(cusolverDnDpotri(p.solver, CUBLAS_FILL_MODE_LOWER, ni, m, ni, work, static_cast<int>(lwork), info));
    FC_CUDA(cudaMemcpyAsync(&status, info, sizeof status, cudaMemcpyDeviceToHost, stream));
    if (request.correlation)
      check_cuda(kernels::precision_to_partial(m, n, p.root.get<double>(), stream), "precision_to_partial kernel launch");
    FC_CUDA(cudaMemcpyAsync(upper, m, static_cast<size_t>(matrix_bytes), cudaMemcpyDeviceToHost, stream));
    FC_CUDA(cudaStreamSynchronize(stream));
    if (status != 0) fail(FC_ERR_INTERNAL, "cusolverDnDpotri failed (devInfo " + std::to_string(status) + ")");
  });
  return used;
}

}  // namespace cuda
}  // namespace fc
