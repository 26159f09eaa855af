// The CUDA backend: normalized series live on the device (float for FP32/TF32, double for FP64),
// products come from cuBLAS one band at a time, a kernel finishes each band (clamp, constant
// policy, packing into the ordered triangle), and band_pipeline moves the finished bands to the
// output while the next ones compute. Agrees with the CPU backend (the reference) to rounding.
#include "backend/cuda/cuda_backend_class.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "backend/cuda/cuda_backend.hpp"
#include "backend/split_backend.hpp"

namespace fc {
namespace cuda {

CudaBackend::CudaBackend(int device) : device_(device) {
  DeviceScope scope(device_);
  cudaDeviceProp prop;
  FC_CUDA(cudaGetDeviceProperties(&prop, device_));
  name_ = std::string(prop.name) + ", device " + std::to_string(device_) + ", compute capability " +
          std::to_string(prop.major) + "." + std::to_string(prop.minor);
  res_ = std::make_unique<cuda::PipelineResources>(device_);
}

CudaBackend::~CudaBackend() {
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

std::unique_ptr<SeriesStorage> CudaBackend::create_series(int64_t n, int64_t t, fc_precision precision) {
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

void CudaBackend::upload_rows(SeriesStorage& storage, int64_t row_begin, int64_t rows, const double* z) {
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

CudaBackend::EdgePlan CudaBackend::plan_edges(const SeriesView& s, const CudaSeries& st, const RunSettings& run) {
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
    int64_t left = run.memory_limit - p.tile_bytes;
    // The tensor-core edges' operands first, when the arena left after them still holds their
    // largest band (threshold_edges needs that); else the arena takes it all (the FP32 tiles).
    const cuda::TcEdgePlan tc = cuda::tc_edge_plan(graph_job(s, run, p.tile, RowBand{0, s.n}));
    if (tc.bytes > 0 && (left - tc.bytes) / kArenaEdgeBytes >= std::max(tc.most, largest_band)) left -= tc.bytes;
    want = std::max(want, left / kArenaEdgeBytes);
  } else {
    size_t free_bytes = 0, total_bytes = 0;
    FC_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
    // Up to 4 GiB (358 M edges) or a quarter of what is free, the arena's own memory counted as
    // free: a denser graph flushes the arena to the host and carries on. (Counting the arena on
    // top of the quarter made every call want 4 GiB more than the last: a free and a larger
    // malloc per graph.)
    const int64_t usable = static_cast<int64_t>(free_bytes) + arena_.capacity * kArenaEdgeBytes;
    const int64_t room = std::min<int64_t>(int64_t(4) << 30, usable / 4);
    want = std::max(want, room / kArenaEdgeBytes);
  }
  want = std::min(want, fc_triu_size(s.n));
  if (arena_.capacity > want && arena_.capacity >= largest_band) want = arena_.capacity;  // keep a larger one
  p.arena_edges = want;
  return p;
}

void CudaBackend::threshold_edges(const SeriesView& s, const EdgeTest& test, UpperEdges& out, const RunSettings& run) {
  edges_of_rows(s, test, RowBand{0, s.n}, out, run);
}

void CudaBackend::edges_of_rows(const SeriesView& s, const EdgeTest& test, RowBand rows, UpperEdges& out,
                                const RunSettings& run) {
  DeviceScope scope(device_);
  check_int_range(s);
  out.row_count.assign(static_cast<size_t>(rows.end - rows.begin), 0);
  out.columns.clear();
  out.values.clear();
  if (s.n < 2) return;
  const CudaSeries& st = storage_of(s);
  const EdgePlan p = plan_edges(s, st, run);
  set_math_mode(run, st.f64);
  cuda::threshold_edges(edge_job(s, run, p, rows), test, arena_, p.arena_edges, out);
}

CudaBackend::EdgePass CudaBackend::edge_pass(const SeriesView& s, const EdgeTest& test, UpperEdges& edges, const RunSettings& run) {
  check_int_range(s);
  const CudaSeries& st = storage_of(s);
  EdgePass pass;
  pass.plan = plan_edges(s, st, run);
  set_math_mode(run, st.f64);
  pass.job = edge_job(s, run, pass.plan, RowBand{0, s.n});
  const auto t0 = cuda::GraphProfile::Clock::now();
  cuda::threshold_edges(pass.job, test, arena_, pass.plan.arena_edges, edges, &pass.kept);
  cuda::profile_phase(cuda::GraphProfile::get(), cuda::GraphProfile::kEdges, t0);
  return pass;
}

bool CudaBackend::threshold_graph(const SeriesView& s, const EdgeTest& test, int weights, SymmetricCsr& csr,
                                  UpperEdges& edges, const RunSettings& run) {
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

std::unique_ptr<DeviceCsr> CudaBackend::threshold_graph_device(const SeriesView& s, const EdgeTest& test, int weights,
                                                               const RunSettings& run) {
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

void CudaBackend::copy_device_csr(DeviceCsr& g, SymmetricCsr& csr, const std::function<void()>& meanwhile) {
  auto& c = static_cast<CudaDeviceCsr&>(g);
  DeviceScope scope(device_);
  // Its own stream: the next graph's work (meanwhile) synchronizes the copy stream.
  if (!csr_copy_) csr_copy_ = std::make_unique<cuda::Stream>();
  FC_CUDA(cudaStreamWaitEvent(csr_copy_->get(), c.assembled.get(), 0));
  cuda::copy_csr(*res_, c.host_threads, c.offsets, c.columns, c.weights, c.n, c.n_edges, csr_copy_->get(), csr, meanwhile);
}

void CudaBackend::give_back(CudaDeviceCsr& g) noexcept {
  if (g.columns.bytes() <= spare_csr_.columns.bytes()) return;  // freed with g
  std::swap(spare_csr_.offsets, g.offsets);
  std::swap(spare_csr_.columns, g.columns);
  std::swap(spare_csr_.weights, g.weights);
}

void CudaBackend::threshold_degree(const SeriesView& s, const EdgeTest& test, int64_t* degree, double* strength,
                                   const RunSettings& run) {
  DeviceScope scope(device_);
  check_int_range(s);
  if (degree != nullptr) std::fill(degree, degree + s.n, 0);  // the paths add into it
  if (s.n < 2) {
    if (strength != nullptr) std::fill(strength, strength + s.n, 0.0);
    return;
  }
  const CudaSeries& st = storage_of(s);
  set_math_mode(run, st.f64);
  if (fused_degree_fits(s, run) && cuda::fused_threshold_degree(fused_job(s, run, RowBand{0, s.n}), test, degree, strength))
    return;
  tiled_degree(s, test, RowBand{0, s.n}, degree, strength, run);
}

bool CudaBackend::fused_degree_fits(const SeriesView& s, const RunSettings& run) {
  // Float products without TF32: no tiles (cuda_graph.cpp), when its memory fits the limit (and,
  // fused_degree_rows finds, the device).
  return cuda::fused_degree_enabled(storage_of(s).f64, run.precision == FC_PRECISION_TF32) &&
         (run.memory_limit <= 0 || cuda::fused_degree_bytes(s.n, s.t) <= run.memory_limit);
}

cuda::GraphJob CudaBackend::fused_job(const SeriesView& s, const RunSettings& run, RowBand rows) {
  // Its bands only pace progress: as many pairs as a tile of the tiled path holds.
  int64_t pairs = cuda::max_tile_values();
  if (run.memory_limit > 0) pairs = std::min(pairs, (run.memory_limit - cuda::fused_degree_bytes(s.n, s.t)) / 9);
  cuda::GraphJob job = graph_job(s, run, std::max(s.n - 1, pairs), rows);
  if (run.memory_limit > 0) job.memory_left = run.memory_limit - cuda::fused_degree_bytes(s.n, s.t);
  return job;
}

void CudaBackend::tiled_degree(const SeriesView& s, const EdgeTest& test, RowBand rows, int64_t* degree, double* strength,
                               const RunSettings& run) {
  // Partial sums: 8 bytes per 256 and per 32 tile values, two bands at a time (the n degrees
  // and sums are the outputs' device copies).
  const int64_t tile = plan_tiles(run, s.n - 1, storage_of(s).f64 ? 8 : 4, 0,
                                  "the degrees of " + std::to_string(s.n) + " series", 1);
  cuda::threshold_degree(graph_job(s, run, tile, rows), test, degree, strength);
}

void CudaBackend::abs_histogram(const SeriesView& s, std::vector<int64_t>& counts, const RunSettings& run) {
  counts.assign(static_cast<size_t>(kAbsHistogramBins), 0);
  histogram_of_rows(s, RowBand{0, s.n}, counts, run);
}

bool CudaBackend::density_guess(const SeriesView& s, int64_t target, int64_t eligible, float& guess,
                                const RunSettings& run) {
  DeviceScope scope(device_);
  check_int_range(s);
  if (s.n < 2) return false;
  return cuda::density_guess(graph_job(s, run, 1, RowBand{0, s.n}), target, eligible, guess);
}

void CudaBackend::histogram_of_rows(const SeriesView& s, RowBand rows, std::vector<int64_t>& counts, const RunSettings& run) {
  DeviceScope scope(device_);
  check_int_range(s);
  if (s.n < 2) return;
  const CudaSeries& st = storage_of(s);
  // Working memory: the tiles only (the counts are the output's device copy).
  const int64_t tile = plan_tiles(run, s.n - 1, st.f64 ? 8 : 4, 0, "the |r| histogram of " + std::to_string(s.n) + " series");
  set_math_mode(run, st.f64);
  cuda::abs_histogram(graph_job(s, run, tile, rows), counts);
}

void CudaBackend::top_k(const SeriesView& s, int64_t k, int64_t* columns, float* values, const RunSettings& run) {
  top_k_of_rows(s, k, RowBand{0, s.n}, columns, values, run);
}

void CudaBackend::top_k_of_rows(const SeriesView& s, int64_t k, RowBand rows, int64_t* columns, float* values,
                                const RunSettings& run) {
  DeviceScope scope(device_);
  check_int_range(s);
  if (rows.begin >= rows.end || k <= 0) return;
  if (rows.begin == 0 && rows.end == s.n && tc_top_k(s, k, columns, values, run)) return;
  const CudaSeries& st = storage_of(s);
  // Full rows (n products each); the rows' n x k result stays on the device until the end.
  const int64_t tile = plan_tiles(run, s.n, st.f64 ? 8 : 4, 0, "the top-" + std::to_string(k) + " of " + std::to_string(s.n) + " series",
                                  0, (rows.end - rows.begin) * k * 12);
  set_math_mode(run, st.f64);
  cuda::top_k(graph_job(s, run, tile, rows), k, columns, values);
}

bool CudaBackend::tc_top_k(const SeriesView& s, int64_t k, int64_t* columns, float* values, const RunSettings& run) {
  // Sparse candidates only (k a small share of n; the sample has more than k columns), without a
  // memory limit, on float products with tensor cores (threshold_edges' plan and operands).
  const CudaSeries& st = storage_of(s);
  if (!cuda::tc_topk_requested() || !cuda::tc_edges_requested() || run.memory_limit > 0 || st.f64 ||
      run.precision == FC_PRECISION_TF32 || s.n < 512 || k > kernels::kTopKMax || 8 * k > s.n)
    return false;
  set_math_mode(run, st.f64);
  const EdgePlan p = plan_edges(s, st, run);
  cuda::GraphJob job = edge_job(s, run, p, RowBand{0, s.n});
  // The pass's progress is in pairs, the call's in rows: the pass reports to a quiet counter and
  // the rows are reported at the end (the pass takes a fraction of a second where it applies).
  Progress quiet(nullptr, nullptr, fc_triu_size(s.n));
  Progress* rows_progress = job.progress;
  job.progress = &quiet;
  const cuda::TcEdgePlan plan = cuda::tc_edge_plan(job);
  if (plan.bands.empty() || plan.most > p.arena_edges || job.tc == nullptr ||
      !job.tc->reserve(job, plan.list, plan.bit_words))
    return false;
  using Clock = std::chrono::steady_clock;
  const Clock::time_point t0 = Clock::now();
  DeviceBuffer bound;
  if (!cuda::sample_row_bounds(job, k, bound)) return false;
  const Clock::time_point t1 = Clock::now();
  UpperEdges spilled;  // the candidates, were the arena to fill up (then the FP32 rows run)
  cuda::DeviceEdges kept;
  cuda::threshold_edges(job, EdgeTest{true, 0.0f}, arena_, p.arena_edges, spilled, &kept, bound.get<float>());
  const Clock::time_point t2 = Clock::now();
  if (!kept.on_device || !cuda::build_csr(job, arena_, kept, FC_GRAPH_WEIGHTED, 0)) return false;
  cuda::csr_top_k(job, arena_, k, columns, values);
  if (std::getenv("FASTCONN_TC_STATS") != nullptr) {
    auto seconds = [](Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); };
    std::fprintf(stderr,
                 "fastconn tc_topk: n %lld k %lld sample every %lld-th series, %lld candidate pairs (sample %.4f s, "
                 "candidates %.4f s, their CSR and choice %.4f s)\n",
                 static_cast<long long>(s.n), static_cast<long long>(k), static_cast<long long>(cuda::topk_sample_stride(s.n)),
                 static_cast<long long>(kept.count), seconds(t0, t1), seconds(t1, t2), seconds(t2, Clock::now()));
  }
  if (rows_progress != nullptr) rows_progress->advance(s.n);
  return true;
}

// --- row bands (graph_backend.hpp). In FP32 and FP64 a pair's r is one fma chain wherever it is
// computed (gemm.hpp), so a band's edges, histogram, top-k and degrees are the whole call's for
// any split; the fused degree's strength is rounded to fixed point per 128 x 128 tile of a grid
// anchored at row 0, hence bands at multiples of kFusedTile. No band path (false) where the
// bits depend on the split: TF32 (cuBLAS's tensor-core products, whose bits may depend on the
// GEMM's shape, which a band's plan changes) and the tiled path's strength (FP64,
// FASTCONN_CUDA_FUSED_DEGREE=0, a fused degree that does not fit): its column sums are doubles
// added band after band.

int64_t CudaBackend::graph_row_granularity(const SeriesView&, const RunSettings&) const { return kernels::kFusedTile; }

bool CudaBackend::cublas_products(const SeriesView& s, const RunSettings& run) const {
  return !storage_of(s).f64 && run.precision == FC_PRECISION_TF32;
}

bool CudaBackend::threshold_edges_rows(const SeriesView& s, const EdgeTest& test, int64_t row_begin, int64_t row_end,
                                       UpperEdges& out, const RunSettings& run) {
  const RowBand rows = checked_row_band(s.n, row_begin, row_end, kernels::kFusedTile);
  if (cublas_products(s, run)) return false;
  edges_of_rows(s, test, rows, out, run);
  return true;
}

bool CudaBackend::threshold_degree_rows(const SeriesView& s, const EdgeTest& test, int64_t row_begin, int64_t row_end,
                                        int64_t* degree, int64_t* strength_fixed, const RunSettings& run) {
  const RowBand rows = checked_row_band(s.n, row_begin, row_end, kernels::kFusedTile);
  DeviceScope scope(device_);
  check_int_range(s);
  const bool fused = fused_degree_fits(s, run);
  if (!fused && (strength_fixed != nullptr || cublas_products(s, run))) return false;  // the tiled path's strength, TF32
  if (s.n < 2) return true;  // no pairs: nothing to add
  set_math_mode(run, storage_of(s).f64);
  if (fused && cuda::fused_degree_rows(fused_job(s, run, rows), test, degree, strength_fixed)) return true;
  // No room for the fused kernel: the whole call's strength would come from the tiled path.
  if (strength_fixed != nullptr) return false;
  tiled_degree(s, test, rows, degree, nullptr, run);
  return true;
}

int CudaBackend::strength_fraction_bits(const SeriesView& s) const { return cuda::fused_strength_bits(s.n); }

bool CudaBackend::abs_histogram_rows(const SeriesView& s, int64_t row_begin, int64_t row_end, std::vector<int64_t>& counts,
                                     const RunSettings& run) {
  const RowBand rows = checked_row_band(s.n, row_begin, row_end, kernels::kFusedTile);
  check_histogram_bins(counts);
  if (cublas_products(s, run)) return false;
  histogram_of_rows(s, rows, counts, run);
  return true;
}

bool CudaBackend::top_k_rows(const SeriesView& s, int64_t k, int64_t row_begin, int64_t row_end, int64_t* columns,
                             float* values, const RunSettings& run) {
  const RowBand rows = checked_row_band(s.n, row_begin, row_end, kernels::kFusedTile);
  if (cublas_products(s, run)) return false;
  top_k_of_rows(s, k, rows, columns, values, run);
  return true;
}

cuda::GraphJob CudaBackend::edge_job(const SeriesView& s, const RunSettings& run, const EdgePlan& p, RowBand rows) {
  cuda::GraphJob job = graph_job(s, run, p.tile, rows);
  // Under a memory limit the tensor-core path gets what plan_edges kept for it (and what the
  // tiles and the arena leave besides).
  if (run.memory_limit > 0)
    job.memory_left = std::max<int64_t>(0, run.memory_limit - p.tile_bytes - p.arena_edges * kArenaEdgeBytes);
  return job;
}

cuda::GraphJob CudaBackend::graph_job(const SeriesView& s, const RunSettings& run, int64_t tile_values, RowBand rows) {
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
  job.row_begin = rows.begin;
  job.row_end = rows.end;
  // Kept between calls without a memory limit only: under one, a call frees what it took.
  if (run.memory_limit <= 0) {
    if (!tc_) tc_ = std::make_unique<cuda::TcOperands>();
    job.tc = tc_.get();
  }
  return job;
}

Destination CudaBackend::destination(const Output& out, size_t bytes) const {
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

const uint8_t* CudaBackend::constant_flags(const SeriesView& s) {
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

cuda::Operand CudaBackend::operand(const SeriesView& s, const RunSettings& run) {
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

int64_t CudaBackend::plan_tiles(const RunSettings& run, int64_t min_values, size_t tile_elem, size_t packed_elem,
                                const std::string& what, int64_t extra_per_value, int64_t extra_fixed) {
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

CudaDeviceCsr::~CudaDeviceCsr() { home->give_back(*this); }

}  // namespace cuda

namespace {
// The CUDA backend the fastconn_cuda.h calls address: the context's, or a multi-device
// context's primary (its stream, its device, the device-pointer outputs).
cuda::CudaBackend& cuda_backend_of(Backend& backend) {
  auto* split = dynamic_cast<SplitBackend*>(&backend);
  auto* cuda_backend = dynamic_cast<cuda::CudaBackend*>(split != nullptr ? &split->primary() : &backend);
  if (cuda_backend == nullptr)
    fail(FC_ERR_INVALID_ARG, "the context runs on the " + backend.describe() + " backend; CUDA streams and device pointers need a context created with FC_BACKEND_CUDA");
  return *cuda_backend;
}

}  // namespace

bool cuda_backend_compiled() { return true; }

// The number of visible devices; FC_ERR_BACKEND_UNAVAILABLE when there is none.
int visible_devices() {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    cudaGetLastError();
    fail(FC_ERR_BACKEND_UNAVAILABLE, std::string("no usable CUDA device: cudaGetDeviceCount failed: ") + cudaGetErrorName(status) +
                                         " (" + cudaGetErrorString(status) + ")");
  }
  if (count == 0) fail(FC_ERR_BACKEND_UNAVAILABLE, "no CUDA device is visible");
  return count;
}

std::shared_ptr<Backend> make_cuda_backend(int device) {
  const int count = visible_devices();
  const int index = device < 0 ? 0 : device;
  if (index >= count)
    fail(FC_ERR_BACKEND_UNAVAILABLE, "CUDA device " + std::to_string(index) + " requested but only " + std::to_string(count) +
                                         " visible");
  return std::make_shared<cuda::CudaBackend>(index);
}

std::shared_ptr<Backend> make_cuda_devices_backend(const std::vector<int>& devices) {
  const int count = visible_devices();
  std::vector<int> ids = devices;
  if (ids.empty())
    for (int d = 0; d < count; ++d) ids.push_back(d);
  for (size_t i = 0; i < ids.size(); ++i)
    if (ids[i] >= count)
      fail(FC_ERR_INVALID_ARG, "devices[" + std::to_string(i) + "] is " + std::to_string(ids[i]) + " but only " +
                                   std::to_string(count) + " CUDA devices are visible (ids 0 to " + std::to_string(count - 1) + ")");
  std::vector<std::shared_ptr<Backend>> parts;
  std::vector<std::string> labels;
  for (int id : ids) {
    parts.push_back(std::make_shared<cuda::CudaBackend>(id));
    labels.push_back("device " + std::to_string(id));
  }
  auto* primary = static_cast<cuda::CudaBackend*>(parts[0].get());
  // The other devices start once the work queued on the caller's stream (a stream of the primary
  // device) has finished: the host waits for it, as no stream of theirs can be ordered after it
  // without an event the caller does not give us. The primary's own work is ordered on the device.
  auto before_split = [primary] {
    cuda::DeviceScope scope(primary->device());
    FC_CUDA(cudaStreamSynchronize(primary->stream()));
  };
  return make_split_backend(std::move(parts), std::move(labels), before_split);
}

std::vector<int> cuda_devices(const Backend& backend) {
  if (const auto* split = dynamic_cast<const SplitBackend*>(&backend)) {
    std::vector<int> ids;
    for (const auto& part : split->parts()) ids.push_back(cuda_device(*part));
    return ids;
  }
  return {cuda_device(backend)};
}

void cuda_set_stream(Backend& backend, CUstream_st* stream) { cuda_backend_of(backend).set_stream(stream); }

CUstream_st* cuda_get_stream(const Backend& backend) {
  return cuda_backend_of(const_cast<Backend&>(backend)).stream();
}

int cuda_device(const Backend& backend) { return cuda_backend_of(const_cast<Backend&>(backend)).device(); }

}  // namespace fc
