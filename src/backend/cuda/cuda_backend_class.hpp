// The CUDA backend's class: its state and members. Its capabilities' members are defined by
// capability: cuda_pcc.cpp (the triangle, windows' triangles and cross blocks), cuda_backend.cpp
// (storage, networks' planning and the rest); the work itself is in cuda_graph.cpp,
// cuda_window.cpp and cuda_modules.cpp. Included only by the CUDA backend's own files.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <limits>
#include <memory>
#include <utility>
#include <thread>
#include <vector>

#include "backend/backend.hpp"
#include "backend/output_values.hpp"
#include "backend/row_band.hpp"
#include "backend/cuda/band_pipeline.hpp"
#include "backend/cuda/band_plan.hpp"
#include "backend/cuda/cuda_eigen_space.hpp"
#include "backend/cuda/cuda_modules.hpp"
#include "backend/cuda/cuda_partial.hpp"
#include "backend/cuda/cuda_resources.hpp"
#include "backend/cuda/cuda_series.hpp"
#include "backend/cuda/cuda_window.hpp"
#include "backend/cuda/gemm.hpp"
#include "backend/cuda/graph_profile.hpp"
#include "backend/cuda/graph_ops.hpp"
#include "backend/cuda/tc_operands.hpp"
#include "base/error.hpp"
#include "kernels/cross_finish.cuh"
#include "kernels/graph_tiles.cuh"
#include "kernels/pair_products.cuh"
#include "kernels/triu_extract.cuh"
#include "kernels/window_normalize.cuh"

namespace fc {
namespace cuda {

// Working memory taken when the context sets no limit: at most this, and at most half of what is free.
constexpr int64_t kDefaultBudget = int64_t(2) << 30;




inline int default_host_threads() {
  const unsigned hw = std::thread::hardware_concurrency();
  return static_cast<int>(std::max(1u, std::min(hw, 16u) - (hw > 1 ? 1u : 0u)));
}

// The CSR threshold_graph_device keeps on the device (backend.hpp): the output buffers of the
// arena's assembly, taken from it; freed into the backend's spare set (CudaBackend::give_back),
// which the next assembly reuses, so that graph after graph allocates nothing. Destroyed before
// its backend (fc_dfc holds its context).
// The centrality products' buffers, kept between products and between calls (cuda_centrality.cpp):
// gram_product's vectors (x, y); both paths' chunk sums and Z^T x; gram_space's m and its
// eigensolver's buffers (fast ECM window after window allocates once).
struct CentralityScratch {
  DeviceBuffer x, y, partial, u, member;
  std::shared_ptr<EigenBuffers> space = std::make_shared<EigenBuffers>();
};

class CudaBackend;
struct CudaDeviceCsr : DeviceCsr {
  explicit CudaDeviceCsr(CudaBackend* backend, int threads) : home(backend), host_threads(threads) {}
  ~CudaDeviceCsr() override;
  cuda::DeviceBuffer offsets, columns, weights;
  cuda::Event assembled;  // recorded after its assembly, which the copy out waits for
  CudaBackend* home;
  int host_threads;
};

class CudaBackend : public Backend {
 public:
  explicit CudaBackend(int device);

  ~CudaBackend() override;

  fc_backend kind() const override { return FC_BACKEND_CUDA; }
  std::string describe() const override { return "CUDA (" + name_ + ", cuBLAS)"; }

  int device() const { return device_; }
  void set_stream(cudaStream_t stream) { user_stream_ = stream; }
  cudaStream_t stream() const { return user_stream_; }

  std::unique_ptr<SeriesStorage> create_series(int64_t n, int64_t t, fc_precision precision) override;

  void upload_rows(SeriesStorage& storage, int64_t row_begin, int64_t rows, const double* z) override;

  bool rows_to_host(const SeriesView& s, double* z) const override;

  void triu(const SeriesView& s, fc_triu_order order, int64_t row_begin, int64_t row_end, const Output& out,
            const RunSettings& run) override;

  // Every window's bands through one pipeline (backend.hpp): a group of windows at a time, each
  // window normalized and transposed on the compute stream of its first band as that band is
  // enqueued (no host round trip), so the copy engine goes on with window k's values while window
  // k + 1 is made and multiplied. The same kernels as create_window, operand and triu: the same bits.
  bool triu_windows(const SeriesView& s, const std::vector<int64_t>& begins, int64_t length, const double* weights,
                    fc_triu_order order, int64_t row_begin, int64_t row_end, const Output& out, int64_t per_window,
                    const RunSettings& run) override;

  void cross(const SeriesView& a, const SeriesView& b, int64_t a_begin, int64_t a_end, bool same_set, const Output& out,
             int64_t ld, const RunSettings& run) override;

  // --- networks (cuda_graph.cpp does the work; here: validation, tile planning, buffers) --------

  // Tiles and edge arena of threshold_edges / threshold_graph: the tile's values, and the arena's
  // capacity in edges (12 bytes each; under a memory limit, what the tiles and the tensor-core
  // edges' operands leave: edge_job gives the operands the rest).
  struct EdgePlan {
    int64_t tile = 0, arena_edges = 0, tile_bytes = 0;
  };
  static constexpr int64_t kArenaEdgeBytes = sizeof(int64_t) + sizeof(float);

  EdgePlan plan_edges(const SeriesView& s, const CudaSeries& st, const RunSettings& run);

  void threshold_edges(const SeriesView& s, const EdgeTest& test, UpperEdges& out, const RunSettings& run) override;

  // The edge pass of threshold_graph and threshold_graph_device (the caller holds a DeviceScope):
  // the edges passing `test`, left in the arena while it holds them all (kept.on_device), else
  // in `edges`; with the plan and job it ran.
  struct EdgePass {
    EdgePlan plan;
    cuda::GraphJob job;
    cuda::DeviceEdges kept;
  };
  EdgePass edge_pass(const SeriesView& s, const EdgeTest& test, UpperEdges& edges, const RunSettings& run);

  // The edges stay in the arena and the CSR is assembled next to them (cuda_csr.cpp) when the
  // arena holds them all and the assembly's buffers fit the memory limit (what the limit leaves
  // past the tiles and the arena) and the device; otherwise the edges come to the host.
  bool threshold_graph(const SeriesView& s, const EdgeTest& test, int weights, SymmetricCsr& csr, UpperEdges& edges,
                       const RunSettings& run) override;

  // Without a memory limit only (a kept CSR is device memory a limit does not plan for). The
  // edges' pass and the assembly are threshold_graph's; when the edges do not stay on the device
  // or the assembly does not fit, null (the caller's threshold_graph then does the work again:
  // graphs past the arena's 4 GiB, or a device out of memory).
  std::unique_ptr<DeviceCsr> threshold_graph_device(const SeriesView& s, const EdgeTest& test, int weights,
                                                    const RunSettings& run) override;

  void copy_device_csr(DeviceCsr& g, SymmetricCsr& csr, const std::function<void()>& meanwhile) override;

  // A kept CSR's buffers, once copied: the spare set keeps the larger of the two.
  void give_back(CudaDeviceCsr& g) noexcept;

  void threshold_degree(const SeriesView& s, const EdgeTest& test, int64_t* degree, double* strength,
                        const RunSettings& run) override;

  void abs_histogram(const SeriesView& s, std::vector<int64_t>& counts, const RunSettings& run) override;
  bool density_guess(const SeriesView& s, int64_t target, int64_t eligible, float& guess, const RunSettings& run) override;

  // --- windows and low rank (cuda_window.cpp does the work) -----------------------------------

  std::unique_ptr<SeriesStorage> create_window(const SeriesView& s, int64_t begin, int64_t length, const double* weights,
                                               uint8_t* constant, const RunSettings&) override {
    DeviceScope scope(device_);
    return cuda::create_window(*res_, user_stream_, storage_of(s), begin, length, weights, constant, window_pool_);
  }

  void gram(const SeriesView& s, double* gram, const RunSettings& run) override {
    DeviceScope scope(device_);
    check_int_range(s);
    cuda::gram(*res_, user_stream_, storage_of(s), work_budget(run), lowrank_, gram);
  }

  void project(const SeriesView& s, const double* basis, int64_t l, float* factor, const RunSettings& run) override {
    DeviceScope scope(device_);
    check_int_range(s);
    cuda::project(*res_, user_stream_, storage_of(s), basis, l, work_budget(run), lowrank_, factor);
  }

  std::unique_ptr<GroupProducts> group_products(const SymmetricCsr& g, int64_t n, double c_pos, double c_neg,
                                                int engines, const RunSettings& run) override {
    return cuda::make_group_products(device_, g, n, c_pos, c_neg, run.memory_limit, engines);
  }

  // The synchronous Leiden on the device, or the host's engine where the device cannot take the
  // graph (cuda_leiden.hpp): the same labels either way.
  std::unique_ptr<LeidenEngine> leiden_engine(const LeidenLevelZero& g, const kernels::SyncTerms& terms,
                                              const RunSettings& run) override;

  void top_k(const SeriesView& s, int64_t k, int64_t* columns, float* values, const RunSettings& run) override;

  // Row bands of the network calls (graph_backend.hpp; cuda_backend.cpp says which paths have
  // them): the whole calls are the band [0, n) of the same functions.
  int64_t graph_row_granularity(const SeriesView& s, const RunSettings& run) const override;
  bool threshold_edges_rows(const SeriesView& s, const EdgeTest& test, int64_t row_begin, int64_t row_end, UpperEdges& out,
                            const RunSettings& run) override;
  bool threshold_degree_rows(const SeriesView& s, const EdgeTest& test, int64_t row_begin, int64_t row_end, int64_t* degree,
                             int64_t* strength_fixed, const RunSettings& run) override;
  int strength_fraction_bits(const SeriesView& s) const override;
  bool abs_histogram_rows(const SeriesView& s, int64_t row_begin, int64_t row_end, std::vector<int64_t>& counts,
                          const RunSettings& run) override;
  bool top_k_rows(const SeriesView& s, int64_t k, int64_t row_begin, int64_t row_end, int64_t* columns, float* values,
                  const RunSettings& run) override;

  // --- centrality (cuda_centrality.cpp) -----------------------------------------------------------

  void gram_product(const SeriesView& s, const double* x, double* y, const RunSettings& run) override;

  std::unique_ptr<EigenSpace> gram_space(const SeriesView& s, const double* member, int64_t slots,
                                         const RunSettings& run) override;
  // --- partial correlation (cuda_partial.cpp) ----------------------------------------------------

  double partial_upper(const SeriesView& s, const PartialRequest& request, double* upper, const RunSettings& run) override;
  // --- lFCD (cuda_lfcd.cpp) ------------------------------------------------------------------------

  std::unique_ptr<LfcdRun> lfcd_run(const SeriesView& s, const LfcdGrid& grid, const RunSettings& run) override;

 private:
  // Pinned staging of the synchronous Leiden's layered level 0 (cuda_leiden.cpp), kept from call
  // to call: pinning it anew each call cost more than the copy.
  PinnedBuffer leiden_staging_;

  cuda::GraphJob graph_job(const SeriesView& s, const RunSettings& run, int64_t tile_values, RowBand rows);
  // graph_job for threshold_edges, with the memory its plan leaves (GraphJob::memory_left).
  cuda::GraphJob edge_job(const SeriesView& s, const RunSettings& run, const EdgePlan& p, RowBand rows);

  // The network calls over a row band, shared by the whole calls (rows [0, n)) and the *_rows
  // overrides. The degree: the fused kernel where fused_degree_fits (fused_job: its job, bands
  // pacing progress), else the tiled path (adds degrees; strength only for the whole call).
  void edges_of_rows(const SeriesView& s, const EdgeTest& test, RowBand rows, UpperEdges& out, const RunSettings& run);
  bool fused_degree_fits(const SeriesView& s, const RunSettings& run);
  cuda::GraphJob fused_job(const SeriesView& s, const RunSettings& run, RowBand rows);
  void tiled_degree(const SeriesView& s, const EdgeTest& test, RowBand rows, int64_t* degree, double* strength,
                    const RunSettings& run);
  void histogram_of_rows(const SeriesView& s, RowBand rows, std::vector<int64_t>& counts, const RunSettings& run);
  void top_k_of_rows(const SeriesView& s, int64_t k, RowBand rows, int64_t* columns, float* values, const RunSettings& run);
  // The whole call's top-k with the pairs decided on tensor cores (cuda_topk.cpp); false (nothing
  // written) where that path does not apply: the FP32 rows then run.
  bool tc_top_k(const SeriesView& s, int64_t k, int64_t* columns, float* values, const RunSettings& run);
  // TF32: the products are cuBLAS's tensor-core ones (no band path: see cuda_backend.cpp).
  bool cublas_products(const SeriesView& s, const RunSettings& run) const;

  // cuBLAS takes int dimensions: a band's columns (<= N) and T must fit.
  static void check_int_range(const SeriesView& s) {
    if (s.n > std::numeric_limits<int>::max() || s.t > std::numeric_limits<int>::max())
      fail(FC_ERR_INVALID_ARG, "the CUDA backend's cuBLAS calls take 32-bit dimensions; " + std::to_string(s.n) + " x " +
                                   std::to_string(s.t) + " series exceed them");
  }

  // A fixed default without a limit: the low-rank chunks (and so their sums' bits) must not
  // depend on what happens to be free.
  static cuda::WorkBudget work_budget(const RunSettings& run) {
    return run.memory_limit > 0 ? cuda::WorkBudget{run.memory_limit, true} : cuda::WorkBudget{kDefaultBudget, false};
  }

  static int host_threads(const RunSettings& run) { return run.threads > 0 ? run.threads : default_host_threads(); }

  // triu_extract of a band's tile (storage type: f64) into dst (values of out_type), constant
  // pairs filled by the policy's value.
  static void pack_band(const void* tile, bool f64, ScalarType out_type, const kernels::TriuBand& kb, const uint8_t* constant,
                        fc_constant_policy policy, void* dst, cudaStream_t stream, const kernels::TriuBatch& batch);

  // triu_windows' device storage of a group of windows: window j's rows, k-major copy (null
  // under TF32) and flags at j times the strides (bytes); the taper's weights (null: none).
  struct WindowStore {
    char* rows;
    char* kmajor;
    uint8_t* flags;
    int64_t rows_stride, zt_stride, flags_stride;
    const double* weights;
  };

  // Windows [g0, g1) of triu_windows when each window's triangle is one band and several fit in
  // a tile (small n: per-window launches, not the products, would bound the run): each band of
  // the pipeline is a batch of windows, made, multiplied and packed by one launch per step
  // (kernels' batched forms), and copied out as one piece. Each window's values are those of its
  // own triangle. false, having done nothing, when that does not apply (the caller then runs
  // triangles() window by window).
  bool batched_triangles(const CudaSeries& src, int64_t t, const std::vector<int64_t>& begins, int64_t g0, int64_t g1,
                         int64_t length, const WindowStore& store, fc_triu_order order, int64_t row_begin,
                         int64_t row_end, const Output& out, int64_t per_window, const RunSettings& run);

  // The triangles of `count` series of n rows (one for triu, a group of windows for
  // triu_windows), series j's rows [row_begin, row_end) in `order` into out + j * per_window
  // values, all through one run of the band pipeline. prepare(j, first, stream) is called as each
  // band of series j is enqueued on `stream` (first: its first band, enqueued before the others)
  // and returns the operand the products read and the device constant flags (null: none).
  template <class Prepare>
  void triangles(int64_t n, bool f64, fc_triu_order order, int64_t row_begin, int64_t row_end, const Output& out,
                 int64_t per_window, int64_t count, Prepare&& prepare, const RunSettings& run);

  Destination destination(const Output& out, size_t bytes) const;

  // Device copy of the constant flags (null when no series is constant: the kernels then skip the test).
  const uint8_t* constant_flags(const SeriesView& s);

  // The series as the products read them (gemm.hpp): its k-major copy, made on first use and kept
  // with the series, except under TF32 (cuBLAS reads the rows themselves).
  cuda::Operand operand(const SeriesView& s, const RunSettings& run);

  void set_math_mode(const RunSettings& run, bool f64) {
    // TF32 tensor cores only when asked; the default math mode keeps float GEMMs in FP32.
    const cublasMath_t mode = (!f64 && run.precision == FC_PRECISION_TF32) ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH;
    for (int i = 0; i < cuda::PipelineResources::kComputeStreams; ++i) FC_CUBLAS(cublasSetMathMode(res_->blas(i), mode));
  }

  // Values per tile within the memory limit (or, without one, half the free device memory up to
  // kDefaultBudget), halved on allocation failure down to one row of `min_values` before giving up.
  // Each band holds two tiles (storage type) and, for host outputs, two packed buffers.
  // extra_per_value / extra_fixed: further device memory the computation needs (per tile value,
  // and in all), counted against a memory limit only: without one the tiles stay those of
  // fc_pcc_triu into host memory, so that the network primitives test the same bits.
  int64_t plan_tiles(const RunSettings& run, int64_t min_values, size_t tile_elem, size_t packed_elem,
                     const std::string& what, int64_t extra_per_value = 0, int64_t extra_fixed = 0);

  int device_;
  std::string name_;
  std::unique_ptr<cuda::PipelineResources> res_;
  cuda::GraphArena arena_;  // edges of threshold_edges, kept between calls
  std::unique_ptr<cuda::TcOperands> tc_;  // the tensor-core paths' buffers, kept between calls
  std::shared_ptr<cuda::SeriesBufferPool> window_pool_ = std::make_shared<cuda::SeriesBufferPool>();  // create_window's
  cuda::CsrBuffers spare_csr_;  // offsets, columns, weights of a copied kept CSR (give_back)
  std::unique_ptr<cuda::Stream> csr_copy_;  // copy_device_csr's stream
  cuda::LowRankScratch lowrank_;  // gram's and project's buffers, kept between calls
  // triu_windows' group of windows (rows, k-major copies, flags, taper weights) and its events,
  // kept between calls.
  struct WindowGroup {
    cuda::DeviceBuffer rows, zt, flags, weights;
    std::vector<std::unique_ptr<cuda::Event>> ready;
  };
  WindowGroup window_group_;
  cuda::CentralityScratch centrality_;
  cuda::PartialScratch partial_;  // partial_upper's cuSOLVER handle and buffers, kept between calls
  cudaStream_t user_stream_ = nullptr;
};

}  // namespace cuda
}  // namespace fc
