// Windows and low rank on the CUDA backend (cuda_window.hpp). A window is normalized from the
// stored rows by one kernel (kernels/window_normalize.cu); the low-rank products are float64
// cuBLAS calls (Dsyrk for Z^T Z, Dgemm for Z * basis) over float storage widened to double on the
// device a chunk of rows at a time, so that the working memory stays within the budget.
#include "backend/cuda/cuda_window.hpp"

#include <cublas_v2.h>

#include <algorithm>
#include <array>
#include <limits>
#include <string>

#include "backend/cuda/cuda_check.hpp"
#include "backend/cuda/run_ordered.hpp"
#include "base/error.hpp"
#include "kernels/window_normalize.cuh"

namespace fc {
namespace cuda {
namespace {

// Rows per chunk for a pass over n rows that needs `fixed` bytes plus `per_row` bytes a row:
// as many as the budget holds (all n when per_row is 0), at most what a cuBLAS int dimension
// takes. Fails with FC_ERR_OUT_OF_MEMORY, naming the need, when a memory limit holds no row.
int64_t chunk_rows(int64_t n, int64_t fixed, int64_t per_row, const WorkBudget& budget, const std::string& what) {
  const int64_t one_row = fixed + per_row;
  if (budget.user_limit && budget.bytes < one_row)
    fail(FC_ERR_OUT_OF_MEMORY, "memory limit of " + std::to_string(budget.bytes) + " bytes is below the " +
                                   std::to_string(one_row) + " bytes that " + what +
                                   " needs on the GPU for one row; raise it with fc_context_set_memory_limit (0 = automatic)");
  int64_t rows = per_row > 0 ? std::max<int64_t>(1, (budget.bytes - fixed) / per_row) : n;
  return std::min({rows, n, int64_t(std::numeric_limits<int>::max())});
}

// Allocates each buffer as per_row[i] * rows bytes, or FC_ERR_OUT_OF_MEMORY. No smaller retry:
// the chunk's rows decide how the float64 sums are split, and so their bits, which must depend
// only on the memory limit (or its fixed default), never on what happens to be free.
template <size_t K>
int64_t allocate_chunks(int device, int64_t rows, DeviceBuffer (&buffers)[K], const int64_t (&per_row)[K],
                        const std::string& what) {
  for (size_t i = 0; i < K; ++i) {
    if (buffers[i].bytes() >= static_cast<size_t>(rows * per_row[i])) continue;  // kept from an earlier call
    if (buffers[i].try_allocate(device, static_cast<size_t>(rows * per_row[i]))) continue;
    for (DeviceBuffer& b : buffers) b.release();
    int64_t bytes = 0;
    for (int64_t p : per_row) bytes += p * rows;
    fail(FC_ERR_OUT_OF_MEMORY, "cudaMalloc failed for the " + std::to_string(bytes) + " bytes of GPU working memory of " +
                                   what + " (" + std::to_string(rows) +
                                   " rows a chunk): the device is out of memory; a smaller fc_context_set_memory_limit "
                                   "makes smaller chunks");
  }
  return rows;
}

// Buffers of a LowRankScratch lent to one call: moved out, and back when the call ends (on a
// throw too, so that what was allocated stays for the next call).
template <size_t K>
class Lent {
 public:
  explicit Lent(const std::array<DeviceBuffer*, K>& home) : home_(home) {
    for (size_t i = 0; i < K; ++i) buffers[i] = std::move(*home_[i]);
  }
  ~Lent() {
    for (size_t i = 0; i < K; ++i) *home_[i] = std::move(buffers[i]);
  }
  Lent(const Lent&) = delete;
  Lent& operator=(const Lent&) = delete;
  DeviceBuffer buffers[K];

 private:
  std::array<DeviceBuffer*, K> home_;
};

// Allocates `bytes` into buffer unless it already holds as many (reuse: true).
void allocate_or_fail(DeviceBuffer& buffer, int device, int64_t bytes, const std::string& what, bool reuse = false) {
  if (reuse && buffer.bytes() >= static_cast<size_t>(bytes)) return;
  if (!buffer.try_allocate(device, static_cast<size_t>(bytes)))
    fail(FC_ERR_OUT_OF_MEMORY, "cudaMalloc of " + std::to_string(bytes) + " bytes for " + what +
                                   " failed: the device is out of memory");
}

}  // namespace

std::unique_ptr<CudaSeries> create_window(PipelineResources& res, cudaStream_t user_stream, const CudaSeries& src,
                                          int64_t begin, int64_t length, const double* weights, uint8_t* constant,
                                          const std::shared_ptr<SeriesBufferPool>& pool) {
  const int device = res.device();
  auto w = std::make_unique<CudaSeries>();
  w->n = src.n;
  w->t = length;
  w->f64 = src.f64;
  const std::string shape = std::to_string(src.n) + " x " + std::to_string(length);
  const int64_t rows_bytes = src.n * length * (src.f64 ? 8 : 4);
  // An earlier window's buffers when one of this shape was dropped (its k-major copy's too).
  SeriesBufferPool::Buffers reused = pool->take(static_cast<size_t>(rows_bytes), static_cast<size_t>(src.n));
  w->rows = std::move(reused.rows);
  w->constant = std::move(reused.constant);
  w->kmajor = std::move(reused.kmajor);
  w->pool = pool;
  allocate_or_fail(w->rows, device, rows_bytes, "the " + shape + " normalized window", true);
  // The kernel writes the flags on the device as well: the storage's device copy is then ready
  // for the PCC and graph kernels, with no upload of the host flags later.
  allocate_or_fail(w->constant, device, src.n, "the window's constant-series flags", true);
  DeviceBuffer device_weights;
  if (weights != nullptr) allocate_or_fail(device_weights, device, length * 8, "the window's taper weights");

  const kernels::WindowShape ks{src.n, src.t, begin, length};
  run_ordered(res, user_stream, [&](cudaStream_t stream, cublasHandle_t) {
    if (weights != nullptr)
      FC_CUDA(cudaMemcpyAsync(device_weights.get(), weights, static_cast<size_t>(length) * sizeof(double),
                              cudaMemcpyHostToDevice, stream));
    const double* wd = device_weights.get<double>();
    const cudaError_t launched =
        src.f64 ? kernels::window_normalize(src.rows.get<double>(), ks, wd, w->rows.get<double>(), w->constant.get<uint8_t>(), stream)
                : kernels::window_normalize(src.rows.get<float>(), ks, wd, w->rows.get<float>(), w->constant.get<uint8_t>(), stream);
    check_cuda(launched, "window_normalize kernel launch");
    res.read_small(constant, w->constant.get(), static_cast<size_t>(src.n), stream);  // not behind a copy out
  });
  w->constant_ready = true;
  return w;
}

void gram(PipelineResources& res, cudaStream_t user_stream, const CudaSeries& s, const WorkBudget& budget,
          LowRankScratch& scratch, double* gram) {
  const int device = res.device();
  const int64_t n = s.n, t = s.t;
  const std::string what = "the " + std::to_string(t) + " x " + std::to_string(t) + " Gram matrix of " +
                           std::to_string(n) + " series";
  const int64_t gram_bytes = t * t * 8;
  // Z^T Z is a t x t result over n >> t rows: one syrk or GEMM over all rows runs on the few
  // thread blocks of its small output, each summing n products. Instead each slice of
  // `slice` rows gets its own t x t product (one strided-batched GEMM over the slices, the GPU
  // full), and sum_slices adds the slices in order. Double storage is read in place; float
  // storage is widened a chunk of rows at a time, each chunk's slices added to the sum in order.
  // A memory limit that holds no two slices' products besides the sum runs the products straight
  // into the sum instead, a chunk at a time (one syrk each).
  const int64_t slice = std::max<int64_t>(256, t);
  // Per row of a chunk: the widened row (float storage only) and its share of a slice's product;
  // fixed: the sum and the chunk's last, partly filled slice.
  const int64_t wide_row = s.f64 ? 0 : t * 8, partial_row = (gram_bytes + slice - 1) / slice;
  const bool sliced = !budget.user_limit || budget.bytes >= 3 * gram_bytes + 2 * slice * (wide_row + partial_row);
  int64_t rows = sliced ? chunk_rows(n, 2 * gram_bytes, wide_row + partial_row, budget, what)
                        : chunk_rows(n, gram_bytes, s.f64 ? 0 : wide_row, budget, what);
  allocate_or_fail(scratch.gram, device, gram_bytes, what, true);
  Lent<2> chunk({&scratch.wide, &scratch.partial});  // widened rows, the slices' products
  const int64_t slices = sliced ? (rows + slice - 1) / slice : 0;
  rows = allocate_chunks(device, rows, chunk.buffers, {wide_row, (slices * gram_bytes + rows - 1) / rows}, what);
  double* const partial = chunk.buffers[1].get<double>();
  double* const device_gram = scratch.gram.get<double>();

  run_ordered(res, user_stream, [&](cudaStream_t stream, cublasHandle_t blas) {
    const double one = 1.0, zero = 0.0;
    // syrk writes the lower triangle only; the whole matrix is copied back (compute-sanitizer's
    // initcheck flags a copy of memory nothing wrote).
    if (!sliced) FC_CUDA(cudaMemsetAsync(device_gram, 0, static_cast<size_t>(gram_bytes), stream));
    for (int64_t r0 = 0; r0 < n; r0 += rows) {
      const int64_t count = std::min(rows, n - r0);
      const double* z = s.f64 ? s.rows.get<double>() + r0 * t : chunk.buffers[0].get<double>();
      if (!s.f64) check_cuda(kernels::convert(s.rows.get<float>() + r0 * t, count * t, chunk.buffers[0].get<double>(), stream),
                             "convert kernel launch");
      if (!sliced) {
        // Column-major, the row-major n x t chunk is Z_c^T (t x count, ld t): syrk's A A^T = Z_c^T Z_c
        // (the lower triangle, which is what the host keeps).
        FC_CUBLAS(cublasDsyrk(blas, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, static_cast<int>(t), static_cast<int>(count), &one,
                              z, static_cast<int>(t), r0 == 0 ? &zero : &one, device_gram, static_cast<int>(t)));
        continue;
      }
      // Column-major, slice p of the row-major chunk is A_p = Z_p^T (t x slice, ld t), and
      // A_p A_p^T = Z_p^T Z_p (t x t) goes to partial + p t^2; the last, shorter slice on its own.
      const int64_t full = count / slice, rest = count - full * slice;
      if (full > 0)
        FC_CUBLAS(cublasDgemmStridedBatched(blas, CUBLAS_OP_N, CUBLAS_OP_T, static_cast<int>(t), static_cast<int>(t),
                                            static_cast<int>(slice), &one, z, static_cast<int>(t), slice * t, z,
                                            static_cast<int>(t), slice * t, &zero, partial, static_cast<int>(t), t * t,
                                            static_cast<int>(full)));
      if (rest > 0)
        FC_CUBLAS(cublasDgemm(blas, CUBLAS_OP_N, CUBLAS_OP_T, static_cast<int>(t), static_cast<int>(t), static_cast<int>(rest),
                              &one, z + full * slice * t, static_cast<int>(t), z + full * slice * t, static_cast<int>(t),
                              &zero, partial + full * t * t, static_cast<int>(t)));
      check_cuda(kernels::sum_slices(partial, full + (rest > 0 ? 1 : 0), t * t, r0 > 0, device_gram, stream),
                 "sum_slices kernel launch");
    }
    FC_CUDA(cudaMemcpyAsync(gram, device_gram, static_cast<size_t>(gram_bytes), cudaMemcpyDeviceToHost, stream));
  });
  // The GEMMs write both halves, but G(i, j) and G(j, i) may differ in their last bits: keep
  // the column-major lower triangle (read row-major, the upper one: G(i, j), j >= i, at
  // gram[i * t + j]) and mirror it, so that both halves hold the same bits.
  for (int64_t i = 0; i < t; ++i)
    for (int64_t j = 0; j < i; ++j) gram[i * t + j] = gram[j * t + i];
}

void project(PipelineResources& res, cudaStream_t user_stream, const CudaSeries& s, const double* basis, int64_t l,
             const WorkBudget& budget, LowRankScratch& scratch, float* factor) {
  const int device = res.device();
  const int64_t n = s.n, t = s.t;
  const std::string what = "the rank-" + std::to_string(l) + " projection of " + std::to_string(n) + " series";
  const int64_t basis_bytes = t * l * 8;
  // Per row of a chunk: the widened row (float storage only), its l products in double and in float.
  const int64_t wide_row = s.f64 ? 0 : t * 8;
  int64_t rows = chunk_rows(n, basis_bytes, wide_row + l * 12, budget, what);
  allocate_or_fail(scratch.basis, device, basis_bytes, what, true);
  Lent<3> chunk({&scratch.products, &scratch.products_float, &scratch.wide});  // products (double, float), widened rows
  rows = allocate_chunks(device, rows, chunk.buffers, {l * 8, l * 4, wide_row}, what);
  const double* device_basis = scratch.basis.get<double>();

  run_ordered(res, user_stream, [&](cudaStream_t stream, cublasHandle_t blas) {
    FC_CUDA(cudaMemcpyAsync(scratch.basis.get(), basis, static_cast<size_t>(basis_bytes), cudaMemcpyHostToDevice, stream));
    const double one = 1.0, zero = 0.0;
    for (int64_t r0 = 0; r0 < n; r0 += rows) {
      const int64_t count = std::min(rows, n - r0);
      const double* z = s.f64 ? s.rows.get<double>() + r0 * t : chunk.buffers[2].get<double>();
      if (!s.f64) check_cuda(kernels::convert(s.rows.get<float>() + r0 * t, count * t, chunk.buffers[2].get<double>(), stream),
                             "convert kernel launch");
      // Column-major: basis is basis^T (l x t, ld l) and the chunk Z_c^T (t x count, ld t), so the
      // product (l x count, ld l) is (Z_c basis)^T, i.e. Z_c basis row-major.
      FC_CUBLAS(cublasDgemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, static_cast<int>(l), static_cast<int>(count), static_cast<int>(t),
                            &one, device_basis, static_cast<int>(l), z, static_cast<int>(t), &zero,
                            chunk.buffers[0].get<double>(), static_cast<int>(l)));
      check_cuda(kernels::convert(chunk.buffers[0].get<double>(), count * l, chunk.buffers[1].get<float>(), stream), "convert kernel launch");
      FC_CUDA(cudaMemcpyAsync(factor + r0 * l, chunk.buffers[1].get(), static_cast<size_t>(count * l) * sizeof(float),
                              cudaMemcpyDeviceToHost, stream));
    }
  });
}

}  // namespace cuda
}  // namespace fc
