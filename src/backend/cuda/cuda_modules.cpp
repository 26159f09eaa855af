// The CUDA backend's modularity engine (modules_backend.hpp's GroupProducts): the graph's CSR is copied to
// the device once per fc_modularity call and each large group's eigenproblem is solved there
// (eigen_space.hpp's EigenSpace): the Lanczos vectors stay on the device, each group's node list
// and terms go up once, and only scalars (dot products, norms) and the final eigenvector come
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
#include "backend/cuda/cuda_resources.hpp"
#include "kernels/eigen_space.cuh"
#include "kernels/group_product.cuh"

namespace fc {
namespace cuda {
namespace {

int64_t chunk_count(int64_t n) { return (n + kernels::kEigenChunk - 1) / kernels::kEigenChunk; }

// A device buffer that grows to the largest request and keeps it.
struct Grown {
  DeviceBuffer buffer;
  template <class T>
  T* at_least(int device, int64_t count, const char* what) {
    const size_t bytes = sizeof(T) * size_t(std::max<int64_t>(1, count));
    if (buffer.bytes() < bytes) buffer.allocate(device, bytes, what);
    return buffer.get<T>();
  }
};

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

class CudaGroupProducts : public GroupProducts, public EigenSpace {
 public:
  CudaGroupProducts(std::shared_ptr<const DeviceGraph> graph, double c_pos, double c_neg, int64_t min_group_entries)
      : graph_(std::move(graph)), device_(graph_->device), n_(graph_->n), c_pos_(c_pos), c_neg_(c_neg) {
    static_assert(kernels::kEigenChunk == kReductionChunk && kernels::kEigenLanes == kReductionLanes,
                  "the device sums in the host's order");
    min_entries = min_group_entries;
  }

  ~CudaGroupProducts() override {
    try {
      DeviceScope scope(device_);
      if (stream_) cudaStreamSynchronize(stream_->get());
    } catch (...) {
    }
  }

  // The engine's own buffers; false when the device lacks the memory (the caller then solves on
  // the host).
  bool prepare() {
    DeviceScope scope(device_);
    stream_ = std::make_unique<Stream>();
    if (!local_of_.try_allocate(device_, sizeof(int32_t) * size_t(n_)) ||
        !nodes_.try_allocate(device_, sizeof(int64_t) * size_t(n_)) ||
        !terms_.try_allocate(device_, sizeof(double) * size_t(3 * n_)) || !done_.try_allocate(device_, sizeof(unsigned)))
      return false;
    FC_CUDA(cudaMemsetAsync(done_.get(), 0, sizeof(unsigned), stream_->get()));  // eigen_space.cuh's reductions
    host_.allocate(sizeof(double) * size_t(n_));
    // every node outside the group: -1 (0xFF bytes)
    FC_CUDA(cudaMemsetAsync(local_of_.get(), 0xFF, local_of_.bytes(), stream_->get()));
    FC_CUDA(cudaStreamSynchronize(stream_->get()));
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
    const cudaStream_t s = stream_->get();
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
    FC_CUDA(cudaStreamSynchronize(s));  // the caller's pageable arrays
    return *this;
  }

  // --- EigenSpace over the selected group (n = its size)

  void reserve(int64_t n, int64_t slots) override {
    DeviceScope scope(device_);
    n_space_ = n;
    slots_ = slots;
    vectors_ = vectors_buffer_.at_least<double>(device_, n * slots, "the eigensolver's vectors");
    partial_ = partial_buffer_.at_least<double>(device_, chunk_count(n) * (slots + 1), "the eigensolver's partial sums");
    small_ = small_buffer_.at_least<double>(device_, slots * slots + 2 * slots + 4, "the eigensolver's small arrays");
    if (host_small_.bytes() < sizeof(double) * size_t(slots * slots + 2 * slots + 4))
      host_small_.allocate(sizeof(double) * size_t(slots * slots + 2 * slots + 4));
  }

  void upload(int64_t slot, const double* x) override {
    DeviceScope scope(device_);
    const size_t bytes = sizeof(double) * size_t(n_space_);
    sync();  // the staging buffer may still feed an earlier copy
    std::memcpy(host_.get(), x, bytes);
    FC_CUDA(cudaMemcpyAsync(at(slot), host_.get(), bytes, cudaMemcpyHostToDevice, stream()));
  }

  void download(int64_t slot, double* x) override {
    DeviceScope scope(device_);
    const size_t bytes = sizeof(double) * size_t(n_space_);
    FC_CUDA(cudaMemcpyAsync(host_.get(), at(slot), bytes, cudaMemcpyDeviceToHost, stream()));
    sync();
    std::memcpy(x, host_.get(), bytes);
  }

  // Two launches: p = k_pos . x and q = k_neg . x as one eigen_dots (k_pos the one-vector "basis",
  // k_neg . x its extra dot), then the sparse sums and their finish.
  void apply(int64_t from, int64_t to) override {
    DeviceScope scope(device_);
    const cudaStream_t s = stream();
    const double* x = at(from);
    const double* t = terms_.get<double>();
    double* const pq = small_;  // p, q
    check_cuda(kernels::eigen_dots(t, n_space_, 1, x, t + group_, x, partial_, done(), pq, s), "eigen_dots kernel launch");
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

  void project(int64_t cols, int64_t w, double* h) override {
    DeviceScope scope(device_);
    check_cuda(kernels::eigen_dots(vectors_, n_space_, cols, at(w), at(w), at(w), partial_, done(), small_ + 2, stream()),
               "eigen_dots kernel launch");
    fetch(small_ + 2, cols + 1, h);
  }

  double subtract(int64_t cols, const double* h, int64_t w) override {
    DeviceScope scope(device_);
    double* const dh = small_ + 2;
    double* const norm = dh + cols;
    send(h, cols, dh);
    check_cuda(kernels::eigen_subtract_norm(vectors_, n_space_, cols, dh, at(w), partial_, done(), norm, stream()),
               "eigen_subtract_norm kernel launch");
    double value = 0;
    fetch(norm, 1, &value);
    return std::sqrt(value);
  }

  // Four launches and one synchronization.
  double orthogonalize(int64_t cols, int64_t w, double* h1, double* h2) override {
    DeviceScope scope(device_);
    const cudaStream_t s = stream();
    double* const d1 = small_ + 2;      // h1 (cols + 1 values)
    double* const d2 = d1 + cols + 1;   // h2 (cols + 1)
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

  double dot(int64_t a, int64_t b) override {
    DeviceScope scope(device_);
    check_cuda(kernels::eigen_dots(nullptr, n_space_, 0, nullptr, at(a), at(b), partial_, done(), small_ + 2, stream()),
               "eigen_dots kernel launch");
    double value = 0;
    fetch(small_ + 2, 1, &value);
    return value;
  }

  void scale(int64_t slot, double factor) override {
    DeviceScope scope(device_);
    check_cuda(kernels::eigen_scale(at(slot), n_space_, factor, stream()), "eigen_scale kernel launch");
  }

  void copy(int64_t from, int64_t to) override {
    DeviceScope scope(device_);
    FC_CUDA(cudaMemcpyAsync(at(to), at(from), sizeof(double) * size_t(n_space_), cudaMemcpyDeviceToDevice, stream()));
  }

  void copy_scaled(int64_t from, int64_t to, double factor) override {
    DeviceScope scope(device_);
    check_cuda(kernels::eigen_copy_scaled(at(from), at(to), n_space_, factor, stream()), "eigen_copy_scaled kernel launch");
  }

  void subtract_scaled(int64_t x, double alpha, int64_t y) override {
    DeviceScope scope(device_);
    check_cuda(kernels::eigen_subtract_scaled(at(x), alpha, at(y), n_space_, stream()),
               "eigen_subtract_scaled kernel launch");
  }

  void combine(int64_t cols, const double* y, int64_t ldy, int64_t k, int64_t out) override {
    DeviceScope scope(device_);
    double* const dy = small_ + 2;
    const int64_t count = (cols - 1) * ldy + k;  // y[l * ldy + c] for l < cols, c < k
    send(y, count, dy);
    check_cuda(kernels::eigen_combine(vectors_, n_space_, cols, dy, ldy, k, at(out), stream()),
               "eigen_combine kernel launch");
  }

 private:
  cudaStream_t stream() const { return stream_->get(); }
  void sync() { FC_CUDA(cudaStreamSynchronize(stream())); }
  double* at(int64_t slot) const { return vectors_ + slot * n_space_; }
  unsigned* done() const { return done_.get<unsigned>(); }
  // count doubles from the device to host memory, through the pinned buffer (waits for them).
  void fetch(const double* src, int64_t count, double* dst) {
    FC_CUDA(cudaMemcpyAsync(host_small_.get(), src, sizeof(double) * size_t(count), cudaMemcpyDeviceToHost, stream()));
    sync();
    std::memcpy(dst, host_small_.get(), sizeof(double) * size_t(count));
  }
  // count doubles from host memory to the device, through the pinned buffer.
  void send(const double* src, int64_t count, double* dst) {
    sync();  // the pinned buffer may still feed an earlier copy
    std::memcpy(host_small_.get(), src, sizeof(double) * size_t(count));
    FC_CUDA(cudaMemcpyAsync(dst, host_small_.get(), sizeof(double) * size_t(count), cudaMemcpyHostToDevice, stream()));
  }

  std::shared_ptr<const DeviceGraph> graph_;
  int device_;
  int64_t n_, group_ = 0, n_space_ = 0, slots_ = 0;
  double c_pos_, c_neg_, gd_pos_ = 0, gd_neg_ = 0;
  std::unique_ptr<Stream> stream_;
  DeviceBuffer local_of_, nodes_, terms_, done_;  // done_: the one-launch reductions' counter (eigen_space.cuh)
  Grown vectors_buffer_, partial_buffer_, small_buffer_;
  double* vectors_ = nullptr;
  double* partial_ = nullptr;
  double* small_ = nullptr;  // [0] p, [1] q, then h / y / a scalar
  PinnedBuffer host_, host_small_;
  std::vector<double> host_all_;  // orthogonalize()'s h1, h2 and norm
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
