// The CUDA backend's modularity engine (modules_backend.hpp's GroupProducts): the graph's CSR is copied to
// the device once per fc_modularity call and each large group's eigenproblem is solved there
// (cuda_eigen_space.hpp's vector operations; here the product B x): the Lanczos vectors stay on
// the device, each group's node list and terms go up once, and only scalars (dot products, norms) and the final eigenvector come
// back. The Lanczos logic, the splits and the fine-tuning are host code shared by both backends,
// and every device operation has the host's bits (kernels/eigen_space.cu, group_product.cu), so
// the labels are the same.
//
// Why not cuSPARSE's SpMV and cuBLAS's DGEMV (what the issue names): they split and reorder their
// sums, so their results differ from the host's in the last bits, and a node whose eigenvector
// entry is near 0 could change sides between backends. Kernels that add in the host's order keep
// its bits at the same memory traffic.
#include "backend/cuda/cuda_modules.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <utility>

#include "backend/cuda/cuda_check.hpp"
#include "backend/cuda/cuda_eigen_space.hpp"
#include "backend/cuda/cuda_resources.hpp"
#include "kernels/eigen_space.cuh"
#include "kernels/group_product.cuh"

namespace fc {
namespace cuda {
namespace {

// The graph's CSR on the device, copied once per fc_modularity call and shared (read only) by the
// engines of its concurrent analyses.
struct DeviceGraph {
  int device = 0;
  int64_t n = 0;
  DeviceBuffer offsets, columns, weights;
  bool unit_weights = false;  // every weight is 1 (a binary graph): not uploaded, not read
  const float* weights_or_null() const { return unit_weights ? nullptr : weights.get<float>(); }

  // false when the device lacks the memory. The columns go up in slices of 64-bit values and are
  // narrowed to 32 bits there (kernels/group_product.cuh).
  bool upload(const SymmetricCsr& g) {
    DeviceScope scope(device);
    const int64_t entries = int64_t(g.columns.size());
    constexpr int64_t kSlice = int64_t(1) << 24;  // entries a slice (128 MiB of 64-bit columns)
    DeviceBuffer wide;
    // A binary graph's products need no weights: a third less to read per entry (kernels take a
    // null weights array as all 1, with the same bits).
    unit_weights = std::all_of(g.weights.begin(), g.weights.end(), [](float w) { return w == 1.0f; });
    if (!offsets.try_allocate(device, sizeof(int64_t) * size_t(n + 1)) ||
        !columns.try_allocate(device, sizeof(int32_t) * size_t(entries)) ||
        (!unit_weights && !weights.try_allocate(device, sizeof(float) * size_t(entries))) ||
        !wide.try_allocate(device, sizeof(int64_t) * size_t(std::max<int64_t>(1, std::min(entries, kSlice)))))
      return false;
    Stream stream;
    FC_CUDA(cudaMemcpyAsync(offsets.get(), g.offsets.data(), offsets.bytes(), cudaMemcpyHostToDevice, stream.get()));
    if (entries > 0 && !unit_weights)
      FC_CUDA(cudaMemcpyAsync(weights.get(), g.weights.data(), weights.bytes(), cudaMemcpyHostToDevice, stream.get()));
    for (int64_t begin = 0; begin < entries; begin += kSlice) {
      const int64_t count = std::min(kSlice, entries - begin);
      FC_CUDA(cudaMemcpyAsync(wide.get(), g.columns.data() + begin, sizeof(int64_t) * size_t(count),
                              cudaMemcpyHostToDevice, stream.get()));
      check_cuda(kernels::narrow_columns(wide.get<int64_t>(), count, columns.get<int32_t>() + begin, stream.get()),
                 "narrow_columns kernel launch");
    }
    FC_CUDA(cudaStreamSynchronize(stream.get()));  // the pageable sources must outlive the copies
    return true;
  }
};

class CudaGroupProducts : public GroupProducts, public CudaEigenSpace {
 public:
  CudaGroupProducts(std::shared_ptr<const DeviceGraph> graph, double c_pos, double c_neg, int64_t min_group_entries)
      : CudaEigenSpace(graph->device), graph_(std::move(graph)), n_(graph_->n), c_pos_(c_pos), c_neg_(c_neg) {
    min_entries = min_group_entries;
  }
  ~CudaGroupProducts() override { quiesce(); }  // before the group's buffers go

  // The engine's own buffers; false when the device lacks the memory (the caller then solves on
  // the host).
  bool prepare() {
    DeviceScope scope(device_);
    if (!start() || !local_of_.try_allocate(device_, sizeof(int32_t) * size_t(n_)) ||
        !nodes_.try_allocate(device_, sizeof(int64_t) * size_t(n_)) ||
        !terms_.try_allocate(device_, sizeof(double) * size_t(3 * n_)))
      return false;
    // every node outside the group: -1 (0xFF bytes)
    FC_CUDA(cudaMemsetAsync(local_of_.get(), 0xFF, local_of_.bytes(), stream()));
    sync();
    return true;
  }

  // --- GroupProducts

  std::unique_ptr<GroupProducts> another() const override {
    auto engine = std::make_unique<CudaGroupProducts>(graph_, c_pos_, c_neg_, min_entries);
    if (!engine->prepare()) return nullptr;
    return engine;
  }

  EigenSpace& select(const std::vector<int64_t>& nodes, const GroupTerms& terms) override {
    DeviceScope scope(device_);
    const cudaStream_t s = stream();
    int32_t* const local_of = local_of_.get<int32_t>();
    int64_t* const dnodes = nodes_.get<int64_t>();
    check_cuda(kernels::group_local_index(dnodes, group_, local_of, true, s), "group_local_index kernel launch");
    group_ = int64_t(nodes.size());
    gd_pos_ = terms.gd_pos;
    gd_neg_ = terms.gd_neg;
    FC_CUDA(cudaMemcpyAsync(dnodes, nodes.data(), sizeof(int64_t) * size_t(group_), cudaMemcpyHostToDevice, s));
    check_cuda(kernels::group_local_index(dnodes, group_, local_of, false, s), "group_local_index kernel launch");
    const size_t bytes = sizeof(double) * size_t(group_);
    double* const t = terms_.get<double>();
    FC_CUDA(cudaMemcpyAsync(t, terms.k_pos, bytes, cudaMemcpyHostToDevice, s));
    FC_CUDA(cudaMemcpyAsync(t + group_, terms.k_neg, bytes, cudaMemcpyHostToDevice, s));
    if (terms.r != nullptr) {
      FC_CUDA(cudaMemcpyAsync(t + 2 * group_, terms.r, bytes, cudaMemcpyHostToDevice, s));
    } else {  // from the graph, with the host's bits (group_product.cuh)
      kernels::GroupDiagonal d;
      d.c_pos = c_pos_;
      d.c_neg = c_neg_;
      d.gamma = terms.gamma;
      d.d_pos = terms.d_pos;
      d.d_neg = terms.d_neg;
      d.group_pos = terms.group_pos;
      d.group_neg = terms.group_neg;
      d.k_pos = t;
      d.k_neg = t + group_;
      check_cuda(kernels::group_diagonal(graph_->offsets.get<int64_t>(), graph_->columns.get<int32_t>(),
                                         graph_->weights_or_null(), dnodes, group_, local_of, d, t + 2 * group_, s),
                 "group_diagonal kernel launch");
    }
    sync();  // the caller's pageable arrays
    return *this;
  }

  // --- EigenSpace over the selected group (n = its size): CudaEigenSpace, but for B

  // Two launches: p = k_pos . x and q = k_neg . x as one eigen_dots (k_pos the one-vector "basis",
  // k_neg . x its extra dot), then the sparse sums and their finish.
  void apply(int64_t from, int64_t to) override {
    DeviceScope scope(device_);
    const cudaStream_t s = stream();
    const double* x = at(from);
    const double* t = terms_.get<double>();
    double* const pq = apply_scalars();  // p, q
    check_cuda(kernels::eigen_dots(t, size(), 1, x, t + group_, x, partial(), done(), pq, s), "eigen_dots kernel launch");
    kernels::GroupFinish f;
    f.k_pos = t;
    f.k_neg = t + group_;
    f.r = t + 2 * group_;
    f.pq = pq;
    f.gd_pos = gd_pos_;
    f.gd_neg = gd_neg_;
    check_cuda(kernels::group_product(graph_->offsets.get<int64_t>(), graph_->columns.get<int32_t>(),
                                      graph_->weights_or_null(), nodes_.get<int64_t>(), group_, local_of_.get<int32_t>(),
                                      c_pos_, c_neg_, x, f, at(to), s),
               "group_product kernel launch");
  }

 private:
  std::shared_ptr<const DeviceGraph> graph_;
  int64_t n_, group_ = 0;
  double c_pos_, c_neg_, gd_pos_ = 0, gd_neg_ = 0;
  DeviceBuffer local_of_, nodes_, terms_;
};

}  // namespace

int64_t group_products_bytes(const SymmetricCsr& g, int64_t n, int engines) {
  const int64_t entries = int64_t(g.columns.size());
  // the shared CSR (offsets; 32-bit columns and weights; a slice of 64-bit columns while they go
  // up); per engine: local_of (32-bit), nodes and the three terms, the eigensolver's vectors (the
  // modularity eigensolver's slots: a basis of 24, 4 more, 12 kept) and partial sums
  const int64_t engine = 4 * n + 4 * 8 * n + 40 * 8 * n + 41 * 8 * ((n + 2047) / 2048) + 8 * 1800;
  return 8 * (n + 1) + 8 * entries + 8 * std::min<int64_t>(entries, int64_t(1) << 24) +
         int64_t(std::max(1, engines)) * engine;
}

std::unique_ptr<GroupProducts> make_group_products(int device, const SymmetricCsr& g, int64_t n, double c_pos,
                                                   double c_neg, int64_t memory_limit, int engines,
                                                   int64_t min_entries) {
  if (int64_t(g.columns.size()) < min_entries) return nullptr;  // no group would use it
  if (n > std::numeric_limits<int32_t>::max()) return nullptr;   // 32-bit columns on the device: host products
  if (memory_limit > 0 && group_products_bytes(g, n, engines) > memory_limit) return nullptr;
  auto graph = std::make_shared<DeviceGraph>();
  graph->device = device;
  graph->n = n;
  if (!graph->upload(g)) return nullptr;  // the device is out of memory: host products
  auto engine = std::make_unique<CudaGroupProducts>(std::move(graph), c_pos, c_neg, min_entries);
  if (!engine->prepare()) return nullptr;
  return engine;
}

}  // namespace cuda
}  // namespace fc
