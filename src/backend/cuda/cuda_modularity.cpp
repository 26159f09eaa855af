// The CUDA backend's modularity engine (backend.hpp's GroupProducts): the graph's CSR is copied to
// the device once per fc_modularity call, each group's node list once per group, and each
// eigensolver product moves only its two vectors. The eigensolver, the splits and the
// fine-tuning stay on the host (core/modularity.cpp), where they are the same code for both
// backends; the kernel sums as the host does, so the labels are the same bits.
//
// Why not cuSPARSE's SpMV (what the issue names): its CSR algorithms split and reorder each row's
// sum, so its results differ from the host's in the last bits, and a node whose eigenvector entry
// is near 0 could change sides between backends. A warp per row adding in entry order keeps the
// host's bits at the same memory traffic (kernels/group_product.cu).
#include "backend/cuda/cuda_modularity.hpp"

#include <cuda_runtime_api.h>

#include <cstring>

#include "backend/cuda/cuda_check.hpp"
#include "backend/cuda/cuda_resources.hpp"
#include "kernels/group_product.cuh"

namespace fc {
namespace cuda {
namespace {

class CudaGroupProducts : public GroupProducts {
 public:
  CudaGroupProducts(int device, int64_t n, double c_pos, double c_neg, int64_t min_group_entries)
      : device_(device), n_(n), c_pos_(c_pos), c_neg_(c_neg) {
    min_entries = min_group_entries;
  }

  ~CudaGroupProducts() override {
    try {
      DeviceScope scope(device_);
      if (stream_) cudaStreamSynchronize(stream_->get());
    } catch (...) {
    }
  }

  // false when the device lacks the memory (the caller then multiplies on the host).
  bool upload(const SymmetricCsr& g) {
    DeviceScope scope(device_);
    stream_ = std::make_unique<Stream>();
    const int64_t entries = int64_t(g.columns.size());
    if (!offsets_.try_allocate(device_, sizeof(int64_t) * size_t(n_ + 1)) ||
        !columns_.try_allocate(device_, sizeof(int64_t) * size_t(entries)) ||
        !weights_.try_allocate(device_, sizeof(float) * size_t(entries)) ||
        !local_of_.try_allocate(device_, sizeof(int64_t) * size_t(n_)) ||
        !nodes_.try_allocate(device_, sizeof(int64_t) * size_t(n_)) ||
        !x_.try_allocate(device_, sizeof(double) * size_t(n_)) || !y_.try_allocate(device_, sizeof(double) * size_t(n_)))
      return false;
    host_x_.allocate(sizeof(double) * size_t(n_));
    host_y_.allocate(sizeof(double) * size_t(n_));
    const cudaStream_t s = stream_->get();
    FC_CUDA(cudaMemcpyAsync(offsets_.get(), g.offsets.data(), offsets_.bytes(), cudaMemcpyHostToDevice, s));
    if (entries > 0) {
      FC_CUDA(cudaMemcpyAsync(columns_.get(), g.columns.data(), columns_.bytes(), cudaMemcpyHostToDevice, s));
      FC_CUDA(cudaMemcpyAsync(weights_.get(), g.weights.data(), weights_.bytes(), cudaMemcpyHostToDevice, s));
    }
    // every node outside the group: -1 (0xFF bytes)
    FC_CUDA(cudaMemsetAsync(local_of_.get(), 0xFF, local_of_.bytes(), s));
    FC_CUDA(cudaStreamSynchronize(s));  // the pageable sources must outlive the copies
    return true;
  }

  void select(const std::vector<int64_t>& nodes) override {
    DeviceScope scope(device_);
    const cudaStream_t s = stream_->get();
    int64_t* const local_of = local_of_.get<int64_t>();
    int64_t* const dnodes = nodes_.get<int64_t>();
    check_cuda(kernels::group_local_index(dnodes, group_, local_of, true, s), "group_local_index kernel launch");
    group_ = int64_t(nodes.size());
    FC_CUDA(cudaMemcpyAsync(dnodes, nodes.data(), sizeof(int64_t) * size_t(group_), cudaMemcpyHostToDevice, s));
    check_cuda(kernels::group_local_index(dnodes, group_, local_of, false, s), "group_local_index kernel launch");
    FC_CUDA(cudaStreamSynchronize(s));  // nodes is the caller's
  }

  void multiply(const double* x, double* y) override {
    DeviceScope scope(device_);
    const cudaStream_t s = stream_->get();
    const size_t bytes = sizeof(double) * size_t(group_);
    std::memcpy(host_x_.get(), x, bytes);
    FC_CUDA(cudaMemcpyAsync(x_.get(), host_x_.get(), bytes, cudaMemcpyHostToDevice, s));
    check_cuda(kernels::group_product(offsets_.get<int64_t>(), columns_.get<int64_t>(), weights_.get<float>(),
                                      nodes_.get<int64_t>(), group_, local_of_.get<int64_t>(), c_pos_, c_neg_,
                                      x_.get<double>(), y_.get<double>(), s),
               "group_product kernel launch");
    FC_CUDA(cudaMemcpyAsync(host_y_.get(), y_.get(), bytes, cudaMemcpyDeviceToHost, s));
    FC_CUDA(cudaStreamSynchronize(s));
    std::memcpy(y, host_y_.get(), bytes);
  }

 private:
  int device_;
  int64_t n_, group_ = 0;
  double c_pos_, c_neg_;
  std::unique_ptr<Stream> stream_;
  DeviceBuffer offsets_, columns_, weights_, local_of_, nodes_, x_, y_;
  PinnedBuffer host_x_, host_y_;
};

}  // namespace

int64_t group_products_bytes(const SymmetricCsr& g, int64_t n) {
  const int64_t entries = int64_t(g.columns.size());
  return 8 * (n + 1) + 12 * entries + 4 * 8 * n;  // offsets; columns and weights; local_of, nodes, x, y
}

std::unique_ptr<GroupProducts> make_group_products(int device, const SymmetricCsr& g, int64_t n, double c_pos,
                                                   double c_neg, int64_t memory_limit, int64_t min_entries) {
  if (int64_t(g.columns.size()) < min_entries) return nullptr;  // no group would use it
  const int64_t bytes = group_products_bytes(g, n);
  if (memory_limit > 0 && bytes > memory_limit) return nullptr;
  auto engine = std::make_unique<CudaGroupProducts>(device, n, c_pos, c_neg, min_entries);
  if (!engine->upload(g)) return nullptr;  // the device is out of memory: host products
  return engine;
}

}  // namespace cuda
}  // namespace fc
