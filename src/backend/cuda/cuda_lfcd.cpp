// The CUDA backend's lFCD capability (backend/lfcd_backend.hpp): the grid's dense table and the
// voxels of the series go to the device once, then each step of seeds is grown by
// kernels/lfcd_grow.cu, a warp per seed in shared memory, and the few seeds whose cluster and
// boundary outgrow it are grown again with marks in global memory (exact either way). The sizes
// come back step by step, so that the caller reports progress and can cancel between steps.
#include <algorithm>
#include <string>

#include "backend/cuda/cuda_backend_class.hpp"
#include "kernels/lfcd_grow.cuh"

namespace fc {
namespace cuda {
namespace {

// Seeds per step: eight warps of work for each of the H100's 132 SMs' 64 resident warps, so that
// the long clusters' warps do not leave the device idle at the end of a step.
constexpr int64_t kSeedsPerStep = int64_t(1) << 16;
// Warps growing spilled seeds, at most (each holds 8 bytes per series of global marks).
constexpr int64_t kMaxSpillWorkers = 256;

class CudaLfcdRun : public LfcdRun {
 public:
  // Uploads the table (cells values) and the series' voxels on the compute stream, ordered
  // after the caller's stream; view's pointers to them are set here.
  CudaLfcdRun(int device, PipelineResources& res, cudaStream_t user_stream, const void* rows, bool f64,
              const kernels::LfcdGridView& view, const LfcdGrid& grid, int64_t cells, int64_t spill_budget)
      : device_(device), res_(res), rows_(rows), f64_(f64), view_(view), spill_budget_(spill_budget) {
    cells_.allocate(device_, static_cast<size_t>(cells) * 4, "the lFCD grid's table");
    coords_.allocate(device_, static_cast<size_t>(view.n) * 12, "the lFCD voxels of the series");
    const int64_t step = std::min(view.n, kSeedsPerStep);
    sizes_.allocate(device_, static_cast<size_t>(step) * 8, "the lFCD counts of a step");
    spilled_.allocate(device_, static_cast<size_t>(step) * 4, "the lFCD seeds spilled to global memory");
    spilled_count_.allocate(device_, 4, "the count of spilled lFCD seeds");
    view_.cells = cells_.get<int32_t>();
    view_.coords = coords_.get<int32_t>();
    const cudaStream_t stream = res_.compute_stream(0);
    try {
      FC_CUDA(cudaEventRecord(res_.start_event(), user_stream));
      FC_CUDA(cudaStreamWaitEvent(stream, res_.start_event(), 0));
      FC_CUDA(cudaMemcpyAsync(cells_.get(), grid.cells, static_cast<size_t>(cells) * 4, cudaMemcpyHostToDevice, stream));
      FC_CUDA(cudaMemcpyAsync(coords_.get(), grid.coords, static_cast<size_t>(view.n) * 12, cudaMemcpyHostToDevice, stream));
    } catch (...) {
      res_.quiesce();
      throw;
    }
  }

  int64_t seeds_per_step() const override { return kSeedsPerStep; }

  void sizes(int64_t begin, int64_t end, int64_t* out) override {
    DeviceScope scope(device_);
    const cudaStream_t stream = res_.compute_stream(0);
    try {
      grow(begin, end, stream);
      FC_CUDA(cudaMemcpyAsync(out, sizes_.get(), static_cast<size_t>(end - begin) * 8, cudaMemcpyDeviceToHost, stream));
      FC_CUDA(cudaStreamSynchronize(stream));
    } catch (...) {
      res_.quiesce();  // no kernel or copy left running on the buffers or the caller's out
      throw;
    }
  }

 private:
  void grow(int64_t begin, int64_t end, cudaStream_t stream) {
    int32_t* spilled = spilled_.get<int32_t>();
    int32_t* count = spilled_count_.get<int32_t>();
    int64_t* sizes = sizes_.get<int64_t>();
    FC_CUDA(cudaMemsetAsync(count, 0, 4, stream));
    check_cuda(f64_ ? kernels::lfcd_grow_shared(static_cast<const double*>(rows_), view_, begin, end, sizes, spilled, count, stream)
                    : kernels::lfcd_grow_shared(static_cast<const float*>(rows_), view_, begin, end, sizes, spilled, count, stream),
               "lfcd_grow_shared kernel launch");
    int32_t spilled_seeds = 0;
    FC_CUDA(cudaMemcpyAsync(&spilled_seeds, count, 4, cudaMemcpyDeviceToHost, stream));
    FC_CUDA(cudaStreamSynchronize(stream));
    if (spilled_seeds == 0) return;
    reserve_spill();
    const int workers = static_cast<int>(std::min<int64_t>(spilled_seeds, workers_));
    check_cuda(f64_ ? kernels::lfcd_grow_spilled(static_cast<const double*>(rows_), view_, spilled, spilled_seeds, begin,
                                                 epoch_base_, seen_.get<uint32_t>(), queue_.get<int32_t>(), workers, sizes, stream)
                    : kernels::lfcd_grow_spilled(static_cast<const float*>(rows_), view_, spilled, spilled_seeds, begin,
                                                 epoch_base_, seen_.get<uint32_t>(), queue_.get<int32_t>(), workers, sizes, stream),
               "lfcd_grow_spilled kernel launch");
    epoch_base_ += static_cast<uint32_t>(spilled_seeds);  // at most n < 2^31 seeds spill in all: no wrap
  }

  // The spilled seeds' marks and queues, on the first spill: as many workers as the budget holds.
  void reserve_spill() {
    if (workers_ > 0) return;
    const int64_t per_worker = view_.n * 8;
    const int64_t workers = std::max<int64_t>(1, std::min(kMaxSpillWorkers, spill_budget_ / per_worker));
    seen_.allocate(device_, static_cast<size_t>(workers * view_.n) * 4, "the lFCD visit marks of spilled seeds");
    queue_.allocate(device_, static_cast<size_t>(workers * view_.n) * 4, "the lFCD queues of spilled seeds");
    FC_CUDA(cudaMemsetAsync(seen_.get(), 0, seen_.bytes(), res_.compute_stream(0)));
    workers_ = workers;
  }

  int device_;
  PipelineResources& res_;
  const void* rows_;
  bool f64_;
  kernels::LfcdGridView view_;
  int64_t spill_budget_;
  DeviceBuffer cells_, coords_, sizes_, spilled_, spilled_count_, seen_, queue_;
  int64_t workers_ = 0;
  uint32_t epoch_base_ = 0;
};

}  // namespace

std::unique_ptr<LfcdRun> CudaBackend::lfcd_run(const SeriesView& s, const LfcdGrid& grid, const RunSettings& run) {
  // Without a dense table (a grid much larger than its series) the host's hashed lookup grows them.
  if (grid.cells == nullptr) return nullptr;
  DeviceScope scope(device_);
  const int64_t n = s.n, cells = grid.dims[0] * grid.dims[1] * grid.dims[2];
  // Working memory: the table, the voxels, a step's buffers, and one spill worker at least (its
  // 8 bytes per series are taken only when a seed spills, but a limit must allow them).
  const int64_t fixed = cells * 4 + n * 12 + std::min(n, kSeedsPerStep) * 12 + 4;
  const int64_t budget = run.memory_limit > 0 ? run.memory_limit : kDefaultBudget;
  if (run.memory_limit > 0 && fixed + n * 8 > run.memory_limit) return nullptr;  // the host path within the limit

  kernels::LfcdGridView view;
  view.n = n;
  view.t = s.t;
  view.nx = grid.dims[0];
  view.ny = grid.dims[1];
  view.nz = grid.dims[2];
  view.offsets = static_cast<int>(grid.offsets.size());
  for (size_t o = 0; o < grid.offsets.size(); ++o) {
    view.step[o][0] = static_cast<int8_t>(grid.offsets[o].di);
    view.step[o][1] = static_cast<int8_t>(grid.offsets[o].dj);
    view.step[o][2] = static_cast<int8_t>(grid.offsets[o].dk);
  }
  view.absolute = grid.test.absolute;
  view.threshold = grid.test.threshold;
  view.constant = constant_flags(s);

  const CudaSeries& st = storage_of(s);
  return std::make_unique<CudaLfcdRun>(device_, *res_, user_stream_, st.rows.get(), st.f64, view, grid, cells,
                                       std::max<int64_t>(0, budget - fixed));
}

}  // namespace cuda
}  // namespace fc
