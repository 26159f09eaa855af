// The device half of eigen_space.hpp's EigenSpace, shared by the CUDA backend's eigensolves (the
// modules' group products, cuda_modules.cpp; fast ECM's Gram operator, cuda_gram_space.cpp): the
// Lanczos vectors live in device slots, every vector operation is a kernel of
// kernels/eigen_space.cu with the host's bits, and only scalars (dot products, norms, the small
// projected matrix's columns) and the final vectors cross the link. A subclass supplies `apply`
// (y = B x between two slots) and may use apply_scalars() for its own device scalars.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "backend/cuda/cuda_resources.hpp"
#include "backend/eigen_space.hpp"

namespace fc {
namespace cuda {

// A device buffer that grows to the largest request and keeps it.
struct Grown {
  DeviceBuffer buffer;
  template <class T>
  T* at_least(int device, int64_t count, const char* what) {
    const size_t bytes = sizeof(T) * size_t(count > 1 ? count : 1);
    if (buffer.bytes() < bytes) buffer.allocate(device, bytes, what);
    return buffer.get<T>();
  }
};

// A space's buffers: the slots, the reductions' partial sums and small arrays, and their pinned
// staging. A backend that solves one eigenproblem after another (fast ECM window after window)
// hands the same set to each space, so that only the first allocates (a cudaMalloc or cudaFree
// is a point where the device's streams synchronize); one space at a time uses a set.
struct EigenBuffers {
  Grown vectors, partial, small;
  PinnedBuffer host, host_small;
};

class CudaEigenSpace : public EigenSpace {
 public:
  // buffers: a set to use (and grow) instead of the space's own.
  explicit CudaEigenSpace(int device, std::shared_ptr<EigenBuffers> buffers = nullptr)
      : device_(device), buffers_(buffers ? std::move(buffers) : std::make_shared<EigenBuffers>()) {}
  ~CudaEigenSpace() override;  // waits for its stream: no kernel outlives the buffers

  // Device bytes of reserve(n, slots): the slots, the reductions' partial sums and small arrays.
  static int64_t reserve_bytes(int64_t n, int64_t slots);

  // Every buffer reserve() takes fails with FC_ERR_OUT_OF_MEMORY naming its size when the device
  // lacks it (what is already allocated is kept, and freed with the space).
  void reserve(int64_t n, int64_t slots) override;
  void upload(int64_t slot, const double* x) override;
  void download(int64_t slot, double* x) override;
  void project(int64_t cols, int64_t w, double* h) override;
  double subtract(int64_t cols, const double* h, int64_t w) override;
  // Four launches and one synchronization.
  double orthogonalize(int64_t cols, int64_t w, double* h1, double* h2) override;
  double dot(int64_t a, int64_t b) override;
  void scale(int64_t slot, double factor) override;
  void copy(int64_t from, int64_t to) override;
  void copy_scaled(int64_t from, int64_t to, double factor) override;
  void subtract_scaled(int64_t x, double alpha, int64_t y) override;
  void combine(int64_t cols, const double* y, int64_t ldy, int64_t k, int64_t out) override;

 protected:
  // The stream and the reductions' counter; false when the device lacks the memory.
  bool start();
  cudaStream_t stream() const { return stream_->get(); }
  void sync();
  // Waits for the stream, errors ignored: a subclass's destructor calls it before its own buffers
  // go (the base's destructor runs after they have).
  void quiesce() noexcept;
  double* at(int64_t slot) const { return vectors_ + slot * n_space_; }
  unsigned* done() const { return done_.get<unsigned>(); }
  int64_t size() const { return n_space_; }
  // kApplyScalars device doubles that apply() may use (the vector operations leave them alone).
  static constexpr int64_t kApplyScalars = 2;
  double* apply_scalars() const { return small_; }
  // The reductions' partial sums (chunk_count(n) * (slots + 1) doubles), free for apply() between
  // the vector operations (one stream: they never overlap).
  double* partial() const { return partial_; }

  int device_;

 private:
  // count doubles from the device to host memory, through the pinned buffer (waits for them).
  void fetch(const double* src, int64_t count, double* dst);
  // count doubles from host memory to the device, through the pinned buffer.
  void send(const double* src, int64_t count, double* dst);
  double* scalars() const { return small_ + kApplyScalars; }  // h / y / a scalar of the operations

  int64_t n_space_ = 0, slots_ = 0;
  std::shared_ptr<EigenBuffers> buffers_;
  std::unique_ptr<Stream> stream_;
  DeviceBuffer done_;  // the one-launch reductions' counter (eigen_space.cuh)
  double* vectors_ = nullptr;
  double* partial_ = nullptr;
  double* small_ = nullptr;  // kApplyScalars for apply, then the operations' scalars
  std::vector<double> host_all_;  // orthogonalize()'s h1, h2 and norm
};

}  // namespace cuda
}  // namespace fc
