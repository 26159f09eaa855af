// The device vector space of the CUDA eigensolves (cuda_eigen_space.hpp).
#include "backend/cuda/cuda_eigen_space.hpp"

#include <cmath>
#include <cstring>

#include "backend/cuda/cuda_check.hpp"
#include "kernels/eigen_space.cuh"

namespace fc {
namespace cuda {
namespace {

static_assert(kernels::kEigenChunk == kReductionChunk && kernels::kEigenLanes == kReductionLanes,
              "the device sums in the host's order");

int64_t chunk_count(int64_t n) { return (n + kernels::kEigenChunk - 1) / kernels::kEigenChunk; }
// The small arrays: apply's scalars, then h1 and h2 of orthogonalize (or combine's y: slots x
// slots) and a norm.
int64_t small_count(int64_t slots) { return slots * slots + 2 * slots + 4; }

}  // namespace

CudaEigenSpace::~CudaEigenSpace() { quiesce(); }

// (No DeviceScope: a stream is synchronized from any current device, and a failing
// cudaGetDevice must not skip the wait, since a backend's next space may reuse the buffers.)
void CudaEigenSpace::quiesce() noexcept {
  if (stream_) cudaStreamSynchronize(stream_->get());
}

int64_t CudaEigenSpace::reserve_bytes(int64_t n, int64_t slots) {
  return 8 * (n * slots + chunk_count(n) * (slots + 1) + small_count(slots));
}

bool CudaEigenSpace::start() {
  DeviceScope scope(device_);
  stream_ = std::make_unique<Stream>();
  if (!done_.try_allocate(device_, sizeof(unsigned))) return false;
  FC_CUDA(cudaMemsetAsync(done_.get(), 0, sizeof(unsigned), stream_->get()));  // eigen_space.cuh's reductions
  return true;
}

void CudaEigenSpace::sync() { FC_CUDA(cudaStreamSynchronize(stream())); }

void CudaEigenSpace::reserve(int64_t n, int64_t slots) {
  DeviceScope scope(device_);
  n_space_ = n;
  slots_ = slots;
  EigenBuffers& b = *buffers_;
  vectors_ = b.vectors.at_least<double>(device_, n * slots, "the eigensolver's vectors");
  partial_ = b.partial.at_least<double>(device_, chunk_count(n) * (slots + 1), "the eigensolver's partial sums");
  small_ = b.small.at_least<double>(device_, small_count(slots), "the eigensolver's small arrays");
  if (b.host_small.bytes() < sizeof(double) * size_t(small_count(slots)))
    b.host_small.allocate(sizeof(double) * size_t(small_count(slots)));
  if (b.host.bytes() < sizeof(double) * size_t(n)) b.host.allocate(sizeof(double) * size_t(n > 0 ? n : 1));
}

void CudaEigenSpace::upload(int64_t slot, const double* x) {
  DeviceScope scope(device_);
  const size_t bytes = sizeof(double) * size_t(n_space_);
  sync();  // the staging buffer may still feed an earlier copy
  std::memcpy(buffers_->host.get(), x, bytes);
  FC_CUDA(cudaMemcpyAsync(at(slot), buffers_->host.get(), bytes, cudaMemcpyHostToDevice, stream()));
}

void CudaEigenSpace::download(int64_t slot, double* x) {
  DeviceScope scope(device_);
  const size_t bytes = sizeof(double) * size_t(n_space_);
  FC_CUDA(cudaMemcpyAsync(buffers_->host.get(), at(slot), bytes, cudaMemcpyDeviceToHost, stream()));
  sync();
  std::memcpy(x, buffers_->host.get(), bytes);
}

void CudaEigenSpace::project(int64_t cols, int64_t w, double* h) {
  DeviceScope scope(device_);
  check_cuda(kernels::eigen_dots(vectors_, n_space_, cols, at(w), at(w), at(w), partial_, done(), scalars(), stream()),
             "eigen_dots kernel launch");
  fetch(scalars(), cols + 1, h);
}

double CudaEigenSpace::subtract(int64_t cols, const double* h, int64_t w) {
  DeviceScope scope(device_);
  double* const dh = scalars();
  double* const norm = dh + cols;
  send(h, cols, dh);
  check_cuda(kernels::eigen_subtract_norm(vectors_, n_space_, cols, dh, at(w), partial_, done(), norm, stream()),
             "eigen_subtract_norm kernel launch");
  double value = 0;
  fetch(norm, 1, &value);
  return std::sqrt(value);
}

double CudaEigenSpace::orthogonalize(int64_t cols, int64_t w, double* h1, double* h2) {
  DeviceScope scope(device_);
  const cudaStream_t s = stream();
  double* const d1 = scalars();        // h1 (cols + 1 values)
  double* const d2 = d1 + cols + 1;    // h2 (cols + 1)
  double* const norm = d2 + cols + 1;  // w . w at the end (within reserve()'s small arrays)
  check_cuda(kernels::eigen_dots(vectors_, n_space_, cols, at(w), at(w), at(w), partial_, done(), d1, s),
             "eigen_dots kernel launch");
  check_cuda(kernels::eigen_subtract(vectors_, n_space_, cols, d1, at(w), s), "eigen_subtract kernel launch");
  check_cuda(kernels::eigen_dots(vectors_, n_space_, cols, at(w), at(w), at(w), partial_, done(), d2, s),
             "eigen_dots kernel launch");
  check_cuda(kernels::eigen_subtract_norm(vectors_, n_space_, cols, d2, at(w), partial_, done(), norm, s),
             "eigen_subtract_norm kernel launch");
  const int64_t count = 2 * (cols + 1) + 1;
  if (int64_t(host_all_.size()) < count) host_all_.resize(static_cast<size_t>(count));
  fetch(d1, count, host_all_.data());
  std::memcpy(h1, host_all_.data(), sizeof(double) * size_t(cols + 1));
  std::memcpy(h2, host_all_.data() + cols + 1, sizeof(double) * size_t(cols + 1));
  return std::sqrt(host_all_[size_t(2 * (cols + 1))]);
}

double CudaEigenSpace::dot(int64_t a, int64_t b) {
  DeviceScope scope(device_);
  check_cuda(kernels::eigen_dots(nullptr, n_space_, 0, nullptr, at(a), at(b), partial_, done(), scalars(), stream()),
             "eigen_dots kernel launch");
  double value = 0;
  fetch(scalars(), 1, &value);
  return value;
}

void CudaEigenSpace::scale(int64_t slot, double factor) {
  DeviceScope scope(device_);
  check_cuda(kernels::eigen_scale(at(slot), n_space_, factor, stream()), "eigen_scale kernel launch");
}

void CudaEigenSpace::copy(int64_t from, int64_t to) {
  DeviceScope scope(device_);
  FC_CUDA(cudaMemcpyAsync(at(to), at(from), sizeof(double) * size_t(n_space_), cudaMemcpyDeviceToDevice, stream()));
}

void CudaEigenSpace::copy_scaled(int64_t from, int64_t to, double factor) {
  DeviceScope scope(device_);
  check_cuda(kernels::eigen_copy_scaled(at(from), at(to), n_space_, factor, stream()), "eigen_copy_scaled kernel launch");
}

void CudaEigenSpace::subtract_scaled(int64_t x, double alpha, int64_t y) {
  DeviceScope scope(device_);
  check_cuda(kernels::eigen_subtract_scaled(at(x), alpha, at(y), n_space_, stream()),
             "eigen_subtract_scaled kernel launch");
}

void CudaEigenSpace::combine(int64_t cols, const double* y, int64_t ldy, int64_t k, int64_t out) {
  DeviceScope scope(device_);
  double* const dy = scalars();
  const int64_t count = (cols - 1) * ldy + k;  // y[l * ldy + c] for l < cols, c < k
  send(y, count, dy);
  check_cuda(kernels::eigen_combine(vectors_, n_space_, cols, dy, ldy, k, at(out), stream()),
             "eigen_combine kernel launch");
}

void CudaEigenSpace::fetch(const double* src, int64_t count, double* dst) {
  FC_CUDA(cudaMemcpyAsync(buffers_->host_small.get(), src, sizeof(double) * size_t(count), cudaMemcpyDeviceToHost, stream()));
  sync();
  std::memcpy(dst, buffers_->host_small.get(), sizeof(double) * size_t(count));
}

void CudaEigenSpace::send(const double* src, int64_t count, double* dst) {
  sync();  // the pinned buffer may still feed an earlier copy
  std::memcpy(buffers_->host_small.get(), src, sizeof(double) * size_t(count));
  FC_CUDA(cudaMemcpyAsync(dst, buffers_->host_small.get(), sizeof(double) * size_t(count), cudaMemcpyHostToDevice, stream()));
}

}  // namespace cuda
}  // namespace fc
