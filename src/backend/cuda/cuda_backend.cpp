// The CUDA backend: normalized series live on the device (float for FP32/TF32, double for FP64),
// products come from cuBLAS one band at a time, a kernel finishes each band (clamp, constant
// policy, packing into the ordered triangle), and band_pipeline moves the finished bands to the
// output while the next ones compute. Agrees with the CPU backend (the reference) to rounding.
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <limits>
#include <memory>
#include <utility>
#include <thread>
#include <vector>

#include "backend/backend.hpp"
#include "backend/cuda/band_pipeline.hpp"
#include "backend/cuda/band_plan.hpp"
#include "backend/cuda/cuda_backend.hpp"
#include "backend/cuda/cuda_modularity.hpp"
#include "backend/cuda/cuda_resources.hpp"
#include "backend/cuda/cuda_series.hpp"
#include "backend/cuda/cuda_window.hpp"
#include "backend/cuda/gemm.hpp"
#include "backend/cuda/graph_profile.hpp"
#include "backend/cuda/graph_ops.hpp"
#include "core/error.hpp"
#include "kernels/cross_finish.cuh"
#include "kernels/graph_tiles.cuh"
#include "kernels/pair_products.cuh"
#include "kernels/triu_extract.cuh"
#include "kernels/window_normalize.cuh"

namespace fc {
namespace {

using cuda::DeviceBuffer;
using cuda::DeviceScope;
using cuda::Destination;

// Working memory taken when the context sets no limit: at most this, and at most half of what is free.
constexpr int64_t kDefaultBudget = int64_t(2) << 30;

using cuda::CudaSeries;
using cuda::storage_of;

template <class O>
O policy_value(fc_constant_policy policy) {
  return policy == FC_CONSTANT_ZERO ? O(0) : std::numeric_limits<O>::quiet_NaN();
}


int default_host_threads() {
  const unsigned hw = std::thread::hardware_concurrency();
  return static_cast<int>(std::max(1u, std::min(hw, 16u) - (hw > 1 ? 1u : 0u)));
}

// The CSR threshold_graph_device keeps on the device (backend.hpp): the output buffers of the
// arena's assembly, taken from it; freed into the backend's spare set (CudaBackend::give_back),
// which the next assembly reuses, so that graph after graph allocates nothing. Destroyed before
// its backend (fc_dfc holds its context).
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
  explicit CudaBackend(int device) : device_(device) {
    DeviceScope scope(device_);
    cudaDeviceProp prop;
    FC_CUDA(cudaGetDeviceProperties(&prop, device_));
    name_ = std::string(prop.name) + ", device " + std::to_string(device_) + ", compute capability " +
            std::to_string(prop.major) + "." + std::to_string(prop.minor);
    res_ = std::make_unique<cuda::PipelineResources>(device_);
  }

  ~CudaBackend() override {
    try {
      DeviceScope scope(device_);
      arena_ = cuda::GraphArena();
      lowrank_ = cuda::LowRankScratch();
      window_group_ = WindowGroup();
      res_.reset();
    } catch (...) {
      arena_ = cuda::GraphArena();
      lowrank_ = cuda::LowRankScratch();
      window_group_ = WindowGroup();
      res_.reset();
    }
  }

  fc_backend kind() const override { return FC_BACKEND_CUDA; }
  std::string describe() const override { return "CUDA (" + name_ + ", cuBLAS)"; }

  int device() const { return device_; }
  void set_stream(cudaStream_t stream) { user_stream_ = stream; }
  cudaStream_t stream() const { return user_stream_; }

  std::unique_ptr<SeriesStorage> create_series(int64_t n, int64_t t, fc_precision precision) override {
    DeviceScope scope(device_);
    auto s = std::make_unique<CudaSeries>();
    s->n = n;
    s->t = t;
    s->f64 = precision == FC_PRECISION_FP64;
    const size_t bytes = static_cast<size_t>(n) * static_cast<size_t>(t) * (s->f64 ? 8 : 4);
    if (!s->rows.try_allocate(device_, bytes))
      fail(FC_ERR_OUT_OF_MEMORY, "cudaMalloc of " + std::to_string(bytes) + " bytes for " + std::to_string(n) + " x " +
                                     std::to_string(t) + " normalized series failed: the device is out of memory");
    return s;
  }

  void upload_rows(SeriesStorage& storage, int64_t row_begin, int64_t rows, const double* z) override {
    DeviceScope scope(device_);
    auto& s = static_cast<CudaSeries&>(storage);
    const size_t count = static_cast<size_t>(rows * s.t);
    const cudaStream_t stream = res_->copy_stream();
    // Async on our stream, then synchronized: a plain cudaMemcpy from pageable memory may return
    // before the data reaches the device, and the computations run on non-blocking streams.
    if (s.f64) {
      FC_CUDA(cudaMemcpyAsync(s.rows.get<double>() + row_begin * s.t, z, count * sizeof(double), cudaMemcpyHostToDevice, stream));
      FC_CUDA(cudaStreamSynchronize(stream));
    } else {
      std::vector<float> narrow(count);
      std::transform(z, z + count, narrow.begin(), [](double v) { return static_cast<float>(v); });
      FC_CUDA(cudaMemcpyAsync(s.rows.get<float>() + row_begin * s.t, narrow.data(), count * sizeof(float),
                              cudaMemcpyHostToDevice, stream));
      FC_CUDA(cudaStreamSynchronize(stream));
    }
  }

  void triu(const SeriesView& s, fc_triu_order order, int64_t row_begin, int64_t row_end, const Output& out,
            const RunSettings& run) override {
    DeviceScope scope(device_);
    check_int_range(s);
    const uint8_t* constant = constant_flags(s);
    set_math_mode(run, storage_of(s).f64);
    const cuda::Operand z = operand(s, run);
    const int64_t slice = cuda::triu_start(s.n, order, row_end) - cuda::triu_start(s.n, order, row_begin);
    triangles(s.n, storage_of(s).f64, order, row_begin, row_end, out, slice, 1,
              [&](int64_t, bool, cudaStream_t) { return std::make_pair(z, constant); }, run);
  }

  // Every window's bands through one pipeline (backend.hpp): a group of windows at a time, each
  // window normalized and transposed on the compute stream of its first band as that band is
  // enqueued (no host round trip), so the copy engine goes on with window k's values while window
  // k + 1 is made and multiplied. The same kernels as create_window, operand and triu: the same bits.
  bool triu_windows(const SeriesView& s, const std::vector<int64_t>& begins, int64_t length, const double* weights,
                    fc_triu_order order, int64_t row_begin, int64_t row_end, const Output& out, int64_t per_window,
                    const RunSettings& run) override {
    DeviceScope scope(device_);
    check_int_range(s);
    const CudaSeries& src = storage_of(s);
    const int64_t n = s.n, count = static_cast<int64_t>(begins.size());
    if (count == 0) return true;
    const size_t elem = src.f64 ? 8 : 4;
    const bool kmajor = src.f64 || run.precision != FC_PRECISION_TF32;  // operand(): TF32 reads the rows
    const int64_t t_pad = kernels::kmajor_t_pad(length), ld = kernels::kmajor_ld(n);
    // Each window's rows, k-major copy and flags start on a 256-byte boundary, as cudaMalloc's do.
    auto aligned = [](int64_t bytes) { return (bytes + 255) / 256 * 256; };
    const int64_t rows_stride = aligned(n * length * static_cast<int64_t>(elem));
    const int64_t zt_stride = kmajor ? aligned(t_pad * ld * static_cast<int64_t>(elem)) : 0, flags_stride = aligned(n);
    const int64_t window_bytes = rows_stride + zt_stride + flags_stride;
    // Windows held at once: what kWindowGroupBytes (or half a memory limit) holds, at least one.
    constexpr int64_t kWindowGroupBytes = int64_t(256) << 20;
    const cuda::WorkBudget budget = work_budget(run);
    const int64_t group_bytes = budget.user_limit ? std::min(kWindowGroupBytes, budget.bytes / 2) : kWindowGroupBytes;
    const int64_t group = std::max<int64_t>(1, std::min(count, group_bytes / std::max<int64_t>(1, window_bytes)));
    // Kept from the last call when large enough (a cudaFree waits for the whole device, and the
    // allocations cost more than a run of small windows' work).
    WindowGroup& kept = window_group_;
    auto room = [&](cuda::DeviceBuffer& b, int64_t bytes) {
      if (static_cast<int64_t>(b.bytes()) >= bytes) return true;
      b.release();
      return b.try_allocate(device_, static_cast<size_t>(bytes));
    };
    if (!room(kept.rows, group * rows_stride) || (kmajor && !room(kept.zt, group * zt_stride)) ||
        !room(kept.flags, group * flags_stride) ||
        (weights != nullptr && !room(kept.weights, length * static_cast<int64_t>(sizeof(double))))) {
      kept = WindowGroup();
      return false;  // out of device memory: the caller makes one window at a time
    }
    cuda::DeviceBuffer &rows = kept.rows, &zt = kept.zt, &flags = kept.flags, &device_weights = kept.weights;
    // The taper's weights on the device, or null for rectangular windows (the kept buffer may
    // still hold an earlier call's taper).
    const double* const taper = weights != nullptr ? device_weights.get<double>() : nullptr;
    if (weights != nullptr) {
      FC_CUDA(cudaMemcpyAsync(device_weights.get(), weights, static_cast<size_t>(length) * sizeof(double),
                              cudaMemcpyHostToDevice, res_->copy_stream()));
      FC_CUDA(cudaStreamSynchronize(res_->copy_stream()));
    }
    std::vector<std::unique_ptr<cuda::Event>>& ready = kept.ready;  // the window-by-window path's
    set_math_mode(run, src.f64);
    const size_t out_elem = out.type == ScalarType::F64 ? 8 : 4;
    for (int64_t g0 = 0; g0 < count; g0 += group) {
      const int64_t g1 = std::min(count, g0 + group);
      Output part = out;
      part.data = static_cast<char*>(out.data) + static_cast<size_t>(g0 * per_window) * out_elem;
      const WindowStore store{rows.get<char>(), kmajor ? zt.get<char>() : nullptr, flags.get<uint8_t>(), rows_stride,
                              zt_stride, flags_stride, taper};
      if (batched_triangles(src, s.t, begins, g0, g1, length, store, order, row_begin, row_end, part, per_window, run))
        continue;
      while (static_cast<int64_t>(ready.size()) < g1 - g0) ready.push_back(std::make_unique<cuda::Event>());
      triangles(n, src.f64, order, row_begin, row_end, part, per_window, g1 - g0,
                [&](int64_t j, bool first, cudaStream_t stream) {
                  char* const w_rows = rows.get<char>() + j * rows_stride;
                  uint8_t* const w_flags = flags.get<uint8_t>() + j * flags_stride;
                  cuda::Operand z;
                  z.rows = w_rows;
                  z.t = length;
                  z.t_pad = t_pad;
                  z.ld = ld;
                  z.f64 = src.f64;
                  char* const w_kmajor = kmajor ? zt.get<char>() + j * zt_stride : nullptr;
                  z.kmajor = w_kmajor;
                  cudaEvent_t made = ready[static_cast<size_t>(j)]->get();
                  if (!first) {
                    FC_CUDA(cudaStreamWaitEvent(stream, made, 0));
                    return std::make_pair(z, static_cast<const uint8_t*>(w_flags));
                  }
                  const kernels::WindowShape ks{n, s.t, begins[static_cast<size_t>(g0 + j)], length};
                  const double* wd = taper;
                  cudaError_t launched =
                      src.f64 ? kernels::window_normalize(src.rows.get<double>(), ks, wd, reinterpret_cast<double*>(w_rows), w_flags, stream)
                              : kernels::window_normalize(src.rows.get<float>(), ks, wd, reinterpret_cast<float*>(w_rows), w_flags, stream);
                  cuda::check_cuda(launched, "window_normalize kernel launch");
                  if (kmajor) {
                    launched = src.f64 ? kernels::transpose_pad(reinterpret_cast<const double*>(w_rows), n, length,
                                                                reinterpret_cast<double*>(w_kmajor), ld, t_pad, stream)
                                       : kernels::transpose_pad(reinterpret_cast<const float*>(w_rows), n, length,
                                                                reinterpret_cast<float*>(w_kmajor), ld, t_pad, stream);
                    cuda::check_cuda(launched, "transpose_pad kernel launch");
                  }
                  FC_CUDA(cudaEventRecord(made, stream));
                  return std::make_pair(z, static_cast<const uint8_t*>(w_flags));
                },
                run);
    }
    return true;
  }

  void cross(const SeriesView& a, const SeriesView& b, int64_t a_begin, int64_t a_end, bool same_set, const Output& out,
             int64_t ld, const RunSettings& run) override {
    DeviceScope scope(device_);
    check_int_range(a);
    check_int_range(b);
    if (ld > std::numeric_limits<int>::max())
      fail(FC_ERR_INVALID_ARG, "ld " + std::to_string(ld) + " exceeds the 32-bit leading dimension cuBLAS takes");
    const CudaSeries& sa = storage_of(a);
    const int64_t nb = b.n, rows_total = a_end - a_begin;
    if (rows_total <= 0 || nb <= 0) return;
    const bool out_f64 = out.type == ScalarType::F64;
    const size_t out_elem = out_f64 ? sizeof(double) : sizeof(float);
    const size_t span = static_cast<size_t>((rows_total - 1) * ld + nb) * out_elem;
    const Destination dest = destination(out, span);
    const uint8_t* ca = constant_flags(a);
    const uint8_t* cb = constant_flags(b);

    // A float device output of float products takes them directly and is finished in place: no tile.
    const bool direct = dest == Destination::Device && !sa.f64 && !out_f64;
    const size_t tile_elem = direct ? 0 : (sa.f64 ? 8 : 4);
    const int64_t tile_values = plan_tiles(run, nb, tile_elem, dest == Destination::Device ? 0 : out_elem,
                                           "cross PCC against " + std::to_string(nb) + " series");

    std::vector<cuda::CrossBand> bands;
    std::vector<cuda::BandTransfer> transfers;
    for (int64_t i = a_begin; i < a_end;) {
      const cuda::CrossBand cb_ = cuda::next_cross_band(i, a_end, nb, tile_values);
      bands.push_back(cb_);
      cuda::BandTransfer t;
      t.rows = cb_.a1 - cb_.a0;
      t.width = nb;
      t.values = t.rows * nb;
      t.dst_offset = (cb_.a0 - a_begin) * ld;
      t.dst_pitch = ld;
      transfers.push_back(t);
      i = cb_.a1;
    }
    set_math_mode(run, sa.f64);
    const cuda::Operand za = operand(a, run), zb = operand(b, run);

    char* const out_base = static_cast<char*>(out.data);
    const cuda::ComputeBand compute = [&](size_t k, cudaStream_t stream, cublasHandle_t blas, void* tile, void* packed) {
      const cuda::CrossBand& band = bands[k];
      const int64_t rows = band.a1 - band.a0;
      char* const final_rows = out_base + static_cast<size_t>((band.a0 - a_begin) * ld) * out_elem;
      void* const dst = packed != nullptr ? packed : final_rows;
      const int64_t ld_dst = packed != nullptr ? nb : ld;
      // the products: in the tile, or (direct) in the output rows themselves
      void* const products = direct ? final_rows : tile;
      const int64_t ld_products = direct ? ld : nb;
      cuda::pair_products(blas, zb, 0, nb, za, band.a0, rows, products, ld_products);
      const kernels::CrossBand kb{band.a0, rows, nb, ld_products, ld_dst, same_set ? 1 : 0};
      cudaError_t launched;
      if (out_f64) {
        const double fill = policy_value<double>(run.constant_policy);
        launched = sa.f64 ? kernels::cross_finish(static_cast<const double*>(products), kb, ca, cb, fill, static_cast<double*>(dst), stream)
                          : kernels::cross_finish(static_cast<const float*>(products), kb, ca, cb, fill, static_cast<double*>(dst), stream);
      } else {
        const float fill = policy_value<float>(run.constant_policy);
        launched = sa.f64 ? kernels::cross_finish(static_cast<const double*>(products), kb, ca, cb, fill, static_cast<float*>(dst), stream)
                          : kernels::cross_finish(static_cast<const float*>(products), kb, ca, cb, fill, static_cast<float*>(dst), stream);
      }
      cuda::check_cuda(launched, "cross_finish kernel launch");
    };
    cuda::run_bands(*res_, dest, out_base, out_elem, user_stream_, host_threads(run), transfers, compute, *run.progress);
  }

  // --- networks (cuda_graph.cpp does the work; here: validation, tile planning, buffers) --------

  // Tiles and edge arena of threshold_edges / threshold_graph: the tile's values, and the arena's
  // capacity in edges (12 bytes each).
  struct EdgePlan {
    int64_t tile = 0, arena_edges = 0, tile_bytes = 0;
  };
  static constexpr int64_t kArenaEdgeBytes = sizeof(int64_t) + sizeof(float);

  EdgePlan plan_edges(const SeriesView& s, const CudaSeries& st, const RunSettings& run) {
    // Scratch of an int32 column and a float per tile value (the packed buffers); under a memory
    // limit the edge arena must hold at least one tile's edges besides.
    EdgePlan p;
    p.tile = plan_tiles(run, s.n - 1, st.f64 ? 8 : 4, sizeof(int32_t) + sizeof(float),
                        "the graph of " + std::to_string(s.n) + " series", kArenaEdgeBytes);
    p.tile_bytes = p.tile * static_cast<int64_t>(2 * (st.f64 ? 8 : 4) + 2 * 8);
    int64_t largest_band = 0;
    for (const cuda::TriuBand& b : cuda::triangle_bands(s.n, p.tile)) largest_band = std::max(largest_band, b.count);
    int64_t want = largest_band;
    if (run.memory_limit > 0) {
      want = std::max(want, (run.memory_limit - p.tile_bytes) / kArenaEdgeBytes);
    } else {
      size_t free_bytes = 0, total_bytes = 0;
      FC_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
      // Up to 4 GiB (358 M edges) or a quarter of what is free: a denser graph flushes the arena
      // to the host and carries on.
      const int64_t room = std::min<int64_t>(int64_t(4) << 30, static_cast<int64_t>(free_bytes / 4)) +
                           arena_.capacity * kArenaEdgeBytes;
      want = std::max(want, room / kArenaEdgeBytes);
    }
    want = std::min(want, fc_triu_size(s.n));
    if (arena_.capacity > want && arena_.capacity >= largest_band) want = arena_.capacity;  // keep a larger one
    p.arena_edges = want;
    return p;
  }

  void threshold_edges(const SeriesView& s, const EdgeTest& test, UpperEdges& out, const RunSettings& run) override {
    DeviceScope scope(device_);
    check_int_range(s);
    out.row_count.assign(static_cast<size_t>(s.n), 0);
    out.columns.clear();
    out.values.clear();
    if (s.n < 2) return;
    const CudaSeries& st = storage_of(s);
    const EdgePlan p = plan_edges(s, st, run);
    set_math_mode(run, st.f64);
    cuda::threshold_edges(graph_job(s, run, p.tile), test, arena_, p.arena_edges, out);
  }

  // The edge pass of threshold_graph and threshold_graph_device (the caller holds a DeviceScope):
  // the edges passing `test`, left in the arena while it holds them all (kept.on_device), else
  // in `edges`; with the plan and job it ran.
  struct EdgePass {
    EdgePlan plan;
    cuda::GraphJob job;
    cuda::DeviceEdges kept;
  };
  EdgePass edge_pass(const SeriesView& s, const EdgeTest& test, UpperEdges& edges, const RunSettings& run) {
    check_int_range(s);
    const CudaSeries& st = storage_of(s);
    EdgePass pass;
    pass.plan = plan_edges(s, st, run);
    set_math_mode(run, st.f64);
    pass.job = graph_job(s, run, pass.plan.tile);
    const auto t0 = cuda::GraphProfile::Clock::now();
    cuda::threshold_edges(pass.job, test, arena_, pass.plan.arena_edges, edges, &pass.kept);
    cuda::profile_phase(cuda::GraphProfile::get(), cuda::GraphProfile::kEdges, t0);
    return pass;
  }

  // The edges stay in the arena and the CSR is assembled next to them (cuda_csr.cpp) when the
  // arena holds them all and the assembly's buffers fit the memory limit (what the limit leaves
  // past the tiles and the arena) and the device; otherwise the edges come to the host.
  bool threshold_graph(const SeriesView& s, const EdgeTest& test, int weights, SymmetricCsr& csr, UpperEdges& edges,
                       const RunSettings& run) override {
    if (s.n < 2) {
      threshold_edges(s, test, edges, run);
      return false;
    }
    DeviceScope scope(device_);
    const EdgePass pass = edge_pass(s, test, edges, run);
    cuda::GraphProfile* const profile = cuda::GraphProfile::get();
    if (!pass.kept.on_device) {
      if (profile != nullptr) profile->graph_done(false);
      return false;
    }
    int64_t budget = 0;
    if (run.memory_limit > 0) {
      budget = run.memory_limit - pass.plan.tile_bytes - arena_.capacity * kArenaEdgeBytes;
      if (budget <= 0) budget = -1;  // nothing left: symmetric_csr declines
    }
    const bool assembled = budget >= 0 && cuda::symmetric_csr(pass.job, arena_, pass.kept, weights, budget, csr);
    if (!assembled) cuda::edges_to_host(pass.job, arena_, pass.kept, edges);
    if (profile != nullptr) profile->graph_done(assembled);
    return assembled;
  }

  // Without a memory limit only (a kept CSR is device memory a limit does not plan for). The
  // edges' pass and the assembly are threshold_graph's; when the edges do not stay on the device
  // or the assembly does not fit, null (the caller's threshold_graph then does the work again:
  // graphs past the arena's 4 GiB, or a device out of memory).
  std::unique_ptr<DeviceCsr> threshold_graph_device(const SeriesView& s, const EdgeTest& test, int weights,
                                                    const RunSettings& run) override {
    if (s.n < 2 || run.memory_limit > 0) return nullptr;
    DeviceScope scope(device_);
    UpperEdges edges;
    const EdgePass pass = edge_pass(s, test, edges, run);
    if (!pass.kept.on_device || !cuda::build_csr(pass.job, arena_, pass.kept, weights, 0)) return nullptr;
    cuda::GraphProfile* const profile = cuda::GraphProfile::get();
    auto g = std::make_unique<CudaDeviceCsr>(this, host_threads(run));
    g->n = s.n;
    g->n_edges = pass.kept.count;
    // The CSR leaves with g; the arena's next assembly gets the spare set.
    cuda::CsrBuffers& b = arena_.csr;
    std::swap(g->offsets, b.offsets);
    std::swap(g->columns, b.columns);
    std::swap(g->weights, b.weights);
    std::swap(b.offsets, spare_csr_.offsets);
    std::swap(b.columns, spare_csr_.columns);
    std::swap(b.weights, spare_csr_.weights);
    FC_CUDA(cudaEventRecord(g->assembled.get(), res_->assembly_stream()));
    if (profile != nullptr) profile->graph_done(true);
    return g;
  }

  void copy_device_csr(DeviceCsr& g, SymmetricCsr& csr, const std::function<void()>& meanwhile) override {
    auto& c = static_cast<CudaDeviceCsr&>(g);
    DeviceScope scope(device_);
    // Its own stream: the next graph's work (meanwhile) synchronizes the copy stream.
    if (!csr_copy_) csr_copy_ = std::make_unique<cuda::Stream>();
    FC_CUDA(cudaStreamWaitEvent(csr_copy_->get(), c.assembled.get(), 0));
    cuda::copy_csr(*res_, c.host_threads, c.offsets, c.columns, c.weights, c.n, c.n_edges, csr_copy_->get(), csr, meanwhile);
  }

  // A kept CSR's buffers, once copied: the spare set keeps the larger of the two.
  void give_back(CudaDeviceCsr& g) noexcept {
    if (g.columns.bytes() <= spare_csr_.columns.bytes()) return;  // freed with g
    std::swap(spare_csr_.offsets, g.offsets);
    std::swap(spare_csr_.columns, g.columns);
    std::swap(spare_csr_.weights, g.weights);
  }

  void threshold_degree(const SeriesView& s, const EdgeTest& test, int64_t* degree, double* strength,
                        const RunSettings& run) override {
    DeviceScope scope(device_);
    check_int_range(s);
    if (s.n < 2) {
      for (int64_t i = 0; i < s.n; ++i) {
        if (degree != nullptr) degree[i] = 0;
        if (strength != nullptr) strength[i] = 0.0;
      }
      return;
    }
    const CudaSeries& st = storage_of(s);
    set_math_mode(run, st.f64);
    // Float products without TF32: no tiles (cuda_graph.cpp), when its memory fits the limit and
    // the device. Its bands only pace progress: as many pairs as a tile of the tiled path holds.
    const int64_t fused_bytes = cuda::fused_degree_bytes(s.n, s.t);
    if (cuda::fused_degree_enabled(st.f64, run.precision == FC_PRECISION_TF32) &&
        (run.memory_limit <= 0 || fused_bytes <= run.memory_limit)) {
      int64_t pairs = cuda::max_tile_values();
      if (run.memory_limit > 0) pairs = std::min(pairs, (run.memory_limit - fused_bytes) / 9);
      if (cuda::fused_threshold_degree(graph_job(s, run, std::max(s.n - 1, pairs)), test, degree, strength)) return;
    }
    // Partial sums: 8 bytes per 256 and per 32 tile values, two bands at a time (the n degrees
    // and sums are the outputs' device copies).
    const int64_t tile = plan_tiles(run, s.n - 1, st.f64 ? 8 : 4, 0, "the degrees of " + std::to_string(s.n) + " series",
                                    1);
    cuda::threshold_degree(graph_job(s, run, tile), test, degree, strength);
  }

  void abs_histogram(const SeriesView& s, std::vector<int64_t>& counts, const RunSettings& run) override {
    DeviceScope scope(device_);
    check_int_range(s);
    if (s.n < 2) {
      counts.assign(static_cast<size_t>(kAbsHistogramBins), 0);
      return;
    }
    const CudaSeries& st = storage_of(s);
    // Working memory: the tiles only (the counts are the output's device copy).
    const int64_t tile = plan_tiles(run, s.n - 1, st.f64 ? 8 : 4, 0, "the |r| histogram of " + std::to_string(s.n) + " series");
    set_math_mode(run, st.f64);
    cuda::abs_histogram(graph_job(s, run, tile), counts);
  }

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

  void top_k(const SeriesView& s, int64_t k, int64_t* columns, float* values, const RunSettings& run) override {
    DeviceScope scope(device_);
    check_int_range(s);
    if (s.n == 0 || k <= 0) return;
    const CudaSeries& st = storage_of(s);
    // Full rows (n products each); the n x k result stays on the device until the end.
    const int64_t tile = plan_tiles(run, s.n, st.f64 ? 8 : 4, 0, "the top-" + std::to_string(k) + " of " + std::to_string(s.n) + " series",
                                    0, s.n * k * 12);
    set_math_mode(run, st.f64);
    cuda::top_k(graph_job(s, run, tile), k, columns, values);
  }

 private:
  cuda::GraphJob graph_job(const SeriesView& s, const RunSettings& run, int64_t tile_values) {
    const CudaSeries& st = storage_of(s);
    cuda::GraphJob job;
    job.res = res_.get();
    job.n = s.n;
    job.t = s.t;
    job.f64 = st.f64;
    job.rows = st.rows.get();
    job.z = operand(s, run);
    job.constant = constant_flags(s);
    job.user_stream = user_stream_;
    job.tile_values = tile_values;
    job.progress = run.progress;
    job.host_threads = host_threads(run);
    return job;
  }

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

  // triu_extract of a band's tile (storage type: f64) into dst (out_f64), constant pairs filled
  // by the policy's value.
  static void pack_band(const void* tile, bool f64, bool out_f64, const kernels::TriuBand& kb, const uint8_t* constant,
                        fc_constant_policy policy, void* dst, cudaStream_t stream, const kernels::TriuBatch& batch) {
    auto pack = [&](auto in, auto out) {
      using In = decltype(in);
      using Out = decltype(out);
      cuda::check_cuda(kernels::triu_extract(static_cast<const In*>(tile), kb, constant, policy_value<Out>(policy),
                                             static_cast<Out*>(dst), stream, batch),
                       "triu_extract kernel launch");
    };
    if (f64) {
      if (out_f64) pack(double(), double());
      else pack(double(), float());
    } else {
      if (out_f64) pack(float(), double());
      else pack(float(), float());
    }
  }

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
                         int64_t row_end, const Output& out, int64_t per_window, const RunSettings& run) {
    const int64_t n = src.n, count = g1 - g0;
    if (store.kmajor == nullptr || count < 2 || row_end <= row_begin) return false;
    const int64_t step = begins[static_cast<size_t>(g0 + 1)] - begins[static_cast<size_t>(g0)];
    for (int64_t j = g0 + 1; j < g1; ++j)
      if (begins[static_cast<size_t>(j)] - begins[static_cast<size_t>(j - 1)] != step) return false;
    const size_t out_elem = out.type == ScalarType::F64 ? 8 : 4, elem = src.f64 ? 8 : 4;
    const int64_t slice = cuda::triu_start(n, order, row_end) - cuda::triu_start(n, order, row_begin);
    const Destination dest = destination(out, static_cast<size_t>((count - 1) * per_window + slice) * out_elem);
    const int64_t tile_values = plan_tiles(run, order == FC_TRIU_ROW ? n - 1 - row_begin : row_end - 1, elem, dest == Destination::Device ? 0 : out_elem,
                                           "PCC of " + std::to_string(n) + " series");
    const cuda::TriuBand b = cuda::next_triu_band(n, order, row_begin, row_end, row_begin, tile_values);
    if (b.q1 != row_end) return false;  // the rows take more than one band
    const int64_t band_values = (b.q1 - b.q0) * b.ld;
    const int64_t fit = std::min<int64_t>(tile_values / band_values, 65535);
    // Past a quarter of a tile a window's products are long enough to hide their launches (N =
    // 5000 runs at the copy floor window by window, bench/RESULTS-gpu.md).
    if (fit < 4) return false;
    // About 16 batches, so that the copies out overlap the next batches' work; at least 2 windows
    // each.
    const int64_t per_batch = std::min(fit, std::max<int64_t>(2, (count + 15) / 16));
    std::vector<cuda::BandTransfer> transfers;
    for (int64_t j0 = 0; j0 < count; j0 += per_batch) {
      cuda::BandTransfer tr;
      tr.rows = std::min(per_batch, count - j0);
      tr.width = slice;
      tr.values = tr.rows * slice;
      tr.dst_offset = j0 * per_window;
      tr.dst_pitch = per_window;
      transfers.push_back(tr);
    }
    const int64_t t_pad = kernels::kmajor_t_pad(length), ld = kernels::kmajor_ld(n);
    char* const out_base = static_cast<char*>(out.data);
    const bool out_f64 = out.type == ScalarType::F64;
    const cuda::ComputeBand compute = [&](size_t k, cudaStream_t stream, cublasHandle_t, void* tile, void* packed) {
      const int64_t j0 = static_cast<int64_t>(k) * per_batch, m = transfers[k].rows;
      char* const w_rows = store.rows + j0 * store.rows_stride;
      char* const w_kmajor = store.kmajor + j0 * store.zt_stride;
      uint8_t* const w_flags = store.flags + j0 * store.flags_stride;
      const kernels::WindowShape ks{n, t, begins[static_cast<size_t>(g0 + j0)], length};
      const kernels::WindowBatch wb{m, step, store.rows_stride / static_cast<int64_t>(elem), store.flags_stride};
      const kernels::SeriesBatch tb{m, store.rows_stride / static_cast<int64_t>(elem), store.zt_stride / static_cast<int64_t>(elem)};
      const kernels::SeriesBatch pb{m, store.zt_stride / static_cast<int64_t>(elem), band_values};
      auto make_and_multiply = [&](auto type) {
        using T = decltype(type);
        cuda::check_cuda(kernels::window_normalize(src.rows.get<T>(), ks, wb, store.weights, reinterpret_cast<T*>(w_rows),
                                                   w_flags, stream),
                         "window_normalize kernel launch");
        cuda::check_cuda(kernels::transpose_pad(reinterpret_cast<const T*>(w_rows), n, length, reinterpret_cast<T*>(w_kmajor),
                                                ld, t_pad, stream, tb),
                         "transpose_pad kernel launch");
        cuda::check_cuda(kernels::pair_products(reinterpret_cast<const T*>(w_kmajor), ld, b.p0, b.ld,
                                                reinterpret_cast<const T*>(w_kmajor), ld, b.q0, b.q1 - b.q0, t_pad,
                                                static_cast<T*>(tile), b.ld, stream, pb),
                         "pair_products kernel launch");
      };
      if (src.f64) make_and_multiply(double());
      else make_and_multiply(float());
      // Host outputs: the batch's triangles one after another in `packed`; a device output takes
      // them in place.
      void* dst = packed != nullptr ? packed : out_base + static_cast<size_t>(transfers[k].dst_offset) * out_elem;
      const kernels::TriuBand kb{n, b.q0, b.q1 - b.q0, b.p0, b.ld, order == FC_TRIU_ROW ? 0 : 1};
      const kernels::TriuBatch xb{m, band_values, store.flags_stride, packed != nullptr ? slice : per_window};
      pack_band(tile, src.f64, out_f64, kb, w_flags, run.constant_policy, dst, stream, xb);
    };
    cuda::run_bands(*res_, dest, out_base, out_elem, user_stream_, host_threads(run), transfers, compute, *run.progress);
    return true;
  }

  // The triangles of `count` series of n rows (one for triu, a group of windows for
  // triu_windows), series j's rows [row_begin, row_end) in `order` into out + j * per_window
  // values, all through one run of the band pipeline. prepare(j, first, stream) is called as each
  // band of series j is enqueued on `stream` (first: its first band, enqueued before the others)
  // and returns the operand the products read and the device constant flags (null: none).
  template <class Prepare>
  void triangles(int64_t n, bool f64, fc_triu_order order, int64_t row_begin, int64_t row_end, const Output& out,
                 int64_t per_window, int64_t count, Prepare&& prepare, const RunSettings& run) {
    const size_t out_elem = out.type == ScalarType::F64 ? 8 : 4;
    const int64_t slice = cuda::triu_start(n, order, row_end) - cuda::triu_start(n, order, row_begin);
    const Destination dest = destination(out, static_cast<size_t>((count - 1) * per_window + slice) * out_elem);

    // The widest row of this run needs the most tile columns.
    const int64_t widest = order == FC_TRIU_ROW ? n - 1 - row_begin : row_end - 1;
    const size_t tile_elem = f64 ? 8 : 4;
    const int64_t tile_values = plan_tiles(run, widest, tile_elem, dest == Destination::Device ? 0 : out_elem,
                                           "PCC of " + std::to_string(n) + " series");

    std::vector<cuda::TriuBand> bands;
    for (int64_t q = row_begin; q < row_end;) {
      bands.push_back(cuda::next_triu_band(n, order, q, row_end, row_begin, tile_values));
      q = bands.back().q1;
    }
    const size_t per_series = bands.size();
    std::vector<cuda::BandTransfer> transfers;
    for (int64_t j = 0; j < count; ++j)
      for (const cuda::TriuBand& b : bands) {
        cuda::BandTransfer t;
        t.values = t.width = t.dst_pitch = b.count;
        t.dst_offset = j * per_window + b.offset;
        transfers.push_back(t);
      }

    char* const out_base = static_cast<char*>(out.data);
    const bool out_f64 = out.type == ScalarType::F64;
    const cuda::ComputeBand compute = [&](size_t k, cudaStream_t stream, cublasHandle_t blas, void* tile, void* packed) {
      const int64_t j = static_cast<int64_t>(k / per_series);
      const cuda::TriuBand& b = bands[k % per_series];
      const auto [z, constant] = prepare(j, k % per_series == 0, stream);
      const int64_t rows = b.q1 - b.q0;
      void* dst = packed != nullptr ? packed : out_base + static_cast<size_t>(transfers[k].dst_offset) * out_elem;
      const kernels::TriuBand kb{n, b.q0, rows, b.p0, b.ld, order == FC_TRIU_ROW ? 0 : 1};
      cuda::gemm_triangle_band(blas, b, z, tile);
      pack_band(tile, f64, out_f64, kb, constant, run.constant_policy, dst, stream, kernels::TriuBatch());
    };
    cuda::run_bands(*res_, dest, out_base, out_elem, user_stream_, host_threads(run), transfers, compute, *run.progress);
  }

  Destination destination(const Output& out, size_t bytes) const {
    if (!out.on_device) return cuda::classify_host_output(out.data, bytes);
    cudaPointerAttributes a;
    const cudaError_t status = cudaPointerGetAttributes(&a, out.data);
    if (status != cudaSuccess) cudaGetLastError();
    if (status != cudaSuccess || (a.type != cudaMemoryTypeDevice && a.type != cudaMemoryTypeManaged))
      fail(FC_ERR_INVALID_ARG, "out is not device memory (allocate it with cudaMalloc, or use the host functions of fastconn.h)");
    if (a.type == cudaMemoryTypeDevice && a.device != device_)
      fail(FC_ERR_INVALID_ARG, "out is memory of CUDA device " + std::to_string(a.device) + " but the context computes on device " +
                                   std::to_string(device_));
    return Destination::Device;
  }

  // Device copy of the constant flags (null when no series is constant: the kernels then skip the test).
  const uint8_t* constant_flags(const SeriesView& s) {
    if (s.n_constant == 0) return nullptr;
    const CudaSeries& st = storage_of(s);
    if (!st.constant_ready) {
      st.constant.allocate(device_, static_cast<size_t>(s.n), "the constant-series flags");
      FC_CUDA(cudaMemcpyAsync(st.constant.get(), s.constant->data(), static_cast<size_t>(s.n), cudaMemcpyHostToDevice,
                              res_->copy_stream()));
      FC_CUDA(cudaStreamSynchronize(res_->copy_stream()));
      st.constant_ready = true;
    }
    return st.constant.get<uint8_t>();
  }

  // The series as the products read them (gemm.hpp): its k-major copy, made on first use and kept
  // with the series, except under TF32 (cuBLAS reads the rows themselves).
  cuda::Operand operand(const SeriesView& s, const RunSettings& run) {
    const CudaSeries& st = storage_of(s);
    cuda::Operand z;
    z.rows = st.rows.get();
    z.t = s.t;
    z.t_pad = kernels::kmajor_t_pad(s.t);
    z.ld = kernels::kmajor_ld(s.n);
    z.f64 = st.f64;
    if (!st.f64 && run.precision == FC_PRECISION_TF32) return z;
    if (!st.kmajor_ready) {
      const size_t bytes = static_cast<size_t>(z.t_pad * z.ld) * (st.f64 ? sizeof(double) : sizeof(float));
      if (st.kmajor.bytes() < bytes) st.kmajor.allocate(device_, bytes, "the k-major copy of the series");  // a reused window's may do
      const cudaStream_t copy = res_->copy_stream();
      const cudaError_t launched =
          st.f64 ? kernels::transpose_pad(st.rows.get<double>(), s.n, s.t, st.kmajor.get<double>(), z.ld, z.t_pad, copy)
                 : kernels::transpose_pad(st.rows.get<float>(), s.n, s.t, st.kmajor.get<float>(), z.ld, z.t_pad, copy);
      cuda::check_cuda(launched, "transpose_pad kernel launch");
      FC_CUDA(cudaStreamSynchronize(copy));
      st.kmajor_ready = true;
    }
    z.kmajor = st.kmajor.get();
    return z;
  }

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
                     const std::string& what, int64_t extra_per_value = 0, int64_t extra_fixed = 0) {
    const int packed_count = packed_elem > 0 ? cuda::PipelineResources::kComputeStreams : 0;
    const int64_t per_value = static_cast<int64_t>(cuda::PipelineResources::kComputeStreams * tile_elem + packed_count * packed_elem);
    min_values = std::max<int64_t>(1, min_values);
    const int64_t max_tile = cuda::max_tile_values();
    int64_t tile = max_tile;
    if (per_value > 0) {
      if (run.memory_limit > 0) {
        tile = std::min(max_tile, (run.memory_limit - extra_fixed) / (per_value + extra_per_value));
        if (tile < min_values)
          fail(FC_ERR_OUT_OF_MEMORY, "memory limit of " + std::to_string(run.memory_limit) + " bytes is below the " +
                                         std::to_string(min_values * (per_value + extra_per_value) + extra_fixed) +
                                         " bytes that one band of " + what +
                                         " needs on the GPU; raise it with fc_context_set_memory_limit (0 = automatic)");
      } else {
        size_t free_bytes = 0, total_bytes = 0;
        FC_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
        const int64_t budget = std::min<int64_t>(kDefaultBudget, static_cast<int64_t>(free_bytes / 2));
        tile = std::max(min_values, std::min(max_tile, budget / per_value));
      }
    }
    tile = std::max(tile, min_values);
    for (;;) {
      if (res_->reserve(tile, tile_elem, packed_elem, packed_count)) return tile;
      if (tile == min_values)
        fail(FC_ERR_OUT_OF_MEMORY, "cudaMalloc failed for the GPU working memory of " + what + " even with one row per band (" +
                                       std::to_string(min_values * per_value) + " bytes): the device is out of memory");
      tile = std::max(min_values, tile / 2);
    }
  }

  int device_;
  std::string name_;
  std::unique_ptr<cuda::PipelineResources> res_;
  cuda::GraphArena arena_;  // edges of threshold_edges, kept between calls
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
  cudaStream_t user_stream_ = nullptr;
};

CudaDeviceCsr::~CudaDeviceCsr() { home->give_back(*this); }

CudaBackend& cuda_backend_of(Backend& backend) {
  auto* cuda_backend = dynamic_cast<CudaBackend*>(&backend);
  if (cuda_backend == nullptr)
    fail(FC_ERR_INVALID_ARG, "the context runs on the " + backend.describe() + " backend; CUDA streams and device pointers need a context created with FC_BACKEND_CUDA");
  return *cuda_backend;
}

}  // namespace

bool cuda_backend_compiled() { return true; }

std::shared_ptr<Backend> make_cuda_backend(int device) {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    cudaGetLastError();
    fail(FC_ERR_BACKEND_UNAVAILABLE, std::string("no usable CUDA device: cudaGetDeviceCount failed: ") + cudaGetErrorName(status) +
                                         " (" + cudaGetErrorString(status) + ")");
  }
  if (count == 0) fail(FC_ERR_BACKEND_UNAVAILABLE, "no CUDA device is visible");
  const int index = device < 0 ? 0 : device;
  if (index >= count)
    fail(FC_ERR_BACKEND_UNAVAILABLE, "CUDA device " + std::to_string(index) + " requested but only " + std::to_string(count) +
                                         " visible");
  return std::make_shared<CudaBackend>(index);
}

void cuda_set_stream(Backend& backend, CUstream_st* stream) { cuda_backend_of(backend).set_stream(stream); }

CUstream_st* cuda_get_stream(const Backend& backend) {
  return cuda_backend_of(const_cast<Backend&>(backend)).stream();
}

int cuda_device(const Backend& backend) { return cuda_backend_of(const_cast<Backend&>(backend)).device(); }

}  // namespace fc
