// The CUDA backend's network primitives (graph_ops.hpp): the GEMM tiles of fc_pcc_triu,
// thresholded, counted or ranked on the device; only edges, counts and sums cross to the host.
// The float degree has no tiles at all (fused_threshold_degree, at the end): its kernel computes
// the products and counts them in one pass.
//
// Bands run as in band_pipeline, tile k % 2 for band k, at most kBandsInFlight queued, but each
// band in two steps: its GEMM on compute stream k % 2, then its pass over the tile (the kernels
// below) on pass stream k % 2, of the highest priority. cuBLAS's SGEMM blocks fill the GPU, and
// blocks of kernels queued behind them on other streams of equal priority wait for the whole GEMM
// (profiled on the H100: GEMM 0.6 ms, then the pass's 0.13 ms, band after band, the sum of the
// two); at a higher priority the pass's blocks start as the GEMM's blocks finish, and its memory
// traffic overlaps the next band's arithmetic. FASTCONN_CUDA_PASS_STREAMS=0 runs both steps on
// the compute stream (the benchmark compares the two).
// The calling thread completes bands in order and reports progress
// (the callback may throw FC_ERR_ABORTED: the streams are drained before the error propagates).
// Steps that update state shared by bands of both streams (the edge arena's offset, the column
// sums of the strength, the histogram's counts) are chained by an event in band order, so every
// result is the same from run to run.
//
// threshold_edges moves each completed band's edges out of the device arena while later bands
// compute: the calling thread, completing band k in order, gives it the next positions of the
// output vectors, queues D2H copies of its arena range on the copy stream (after band k's
// event) into the pinned staging ring, and the host copy pool moves them into the vectors.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <limits>
#include <string>

#include "backend/cuda/gemm.hpp"
#include "backend/cuda/graph_buffers.hpp"
#include "backend/cuda/graph_ops.hpp"
#include "backend/cuda/staging_ring.hpp"
#include "backend/cuda/tc_operands.hpp"
#include "base/triangle_index.hpp"
#include "kernels/graph_tiles.cuh"
#include "kernels/host_store.cuh"
#include "kernels/tc_bound.hpp"

namespace fc {
namespace cuda {
namespace {

// The triangle bands of the job's rows.
std::vector<TriuBand> job_bands(const GraphJob& job) {
  return triangle_bands(job.n, job.tile_values, job.row_begin, job.row_end);
}

using Gemm = std::function<void(size_t k, cublasHandle_t blas, void* tile)>;       // on blas's stream
using Pass = std::function<void(size_t k, int s, cudaStream_t stream, void* tile)>;  // reads the tile
using Complete = std::function<bool(size_t k)>;  // false: band k was not placed; run it again
using Recover = std::function<void(size_t k)>;   // makes room before band k runs again

void launched(cudaError_t status, const char* kernel) { check_cuda(status, kernel); }

// Drains the streams when a run unwinds (CUDA error, cancel), so nothing is left running on
// buffers about to be freed.
class DrainOnUnwind {
 public:
  explicit DrainOnUnwind(PipelineResources& res) : res_(res) {}
  ~DrainOnUnwind() {
    if (!done_) res_.quiesce();
  }
  void done() { done_ = true; }

 private:
  PipelineResources& res_;
  bool done_ = false;
};

// Orders one step of each band after the same step of the band before, across the two streams.
class BandChain {
 public:
  void wait(cudaStream_t stream) {
    if (marked_) FC_CUDA(cudaStreamWaitEvent(stream, event_.get(), 0));
  }
  void mark(cudaStream_t stream) {
    FC_CUDA(cudaEventRecord(event_.get(), stream));
    marked_ = true;
  }

 private:
  Event event_;
  bool marked_ = false;
};

void sync_compute(PipelineResources& res) {
  for (int s = 0; s < PipelineResources::kComputeStreams; ++s) {
    FC_CUDA(cudaStreamSynchronize(res.compute_stream(s)));
    FC_CUDA(cudaStreamSynchronize(res.pass_stream(s)));
  }
}

bool use_pass_streams() {
  const char* env = std::getenv("FASTCONN_CUDA_PASS_STREAMS");
  return env == nullptr || std::strcmp(env, "0") != 0;
}

void run_in_order(const GraphJob& job, size_t count, const std::function<int64_t(size_t)>& units, const Gemm& gemm,
                  const Pass& pass, const Complete& complete, const Recover& recover) {
  PipelineResources& res = *job.res;
  constexpr size_t kWindow = PipelineResources::kBandsInFlight;
  const bool split = use_pass_streams();
  // Ordered after the work the caller queued on its stream.
  FC_CUDA(cudaEventRecord(res.start_event(), job.user_stream));
  for (int s = 0; s < PipelineResources::kComputeStreams; ++s) {
    FC_CUDA(cudaStreamWaitEvent(res.compute_stream(s), res.start_event(), 0));
    FC_CUDA(cudaStreamWaitEvent(res.pass_stream(s), res.start_event(), 0));
  }
  // Tile s is free for a GEMM once the pass over its previous band is done (pass_done is
  // recorded on the pass stream; before its first record in this run it was last recorded by an
  // earlier run, which completed).
  std::deque<size_t> in_flight;
  size_t k = 0;
  while (k < count || !in_flight.empty()) {
    if (k < count && in_flight.size() < kWindow) {
      const int s = static_cast<int>(k % PipelineResources::kComputeStreams);
      const cudaStream_t compute = res.compute_stream(s);
      const cudaStream_t stream = split ? res.pass_stream(s) : compute;
      if (split) FC_CUDA(cudaStreamWaitEvent(compute, res.pass_done(s), 0));
      gemm(k, res.blas(s), res.tile(s));
      if (split) {
        FC_CUDA(cudaEventRecord(res.gemm_done(s), compute));
        FC_CUDA(cudaStreamWaitEvent(stream, res.gemm_done(s), 0));
      }
      pass(k, s, stream, res.tile(s));
      if (split) FC_CUDA(cudaEventRecord(res.pass_done(s), stream));
      FC_CUDA(cudaEventRecord(res.band_ready(static_cast<int>(k % kWindow)), stream));
      in_flight.push_back(k++);
      continue;
    }
    const size_t f = in_flight.front();
    FC_CUDA(cudaEventSynchronize(res.band_ready(static_cast<int>(f % kWindow))));
    in_flight.pop_front();
    if (complete(f)) {
      job.progress->advance(units(f));
      continue;
    }
    // Band f, and every band after it, skipped its placement: drain, make room, rerun from f.
    sync_compute(res);
    in_flight.clear();
    recover(f);
    k = f;
  }
  sync_compute(res);
}

kernels::GraphBand graph_band(const GraphJob& job, const TriuBand& b) {
  return kernels::GraphBand{job.n, b.q0, b.q1 - b.q0, b.p0, b.ld};
}


// run_in_order over the triangle's row bands: every band's GEMM is fc_pcc_triu's, the progress
// unit is the band's pairs; the primitives differ only in their pass (and edges in completion).
void run_triangle(const GraphJob& job, const std::vector<TriuBand>& bands, const Pass& pass,
                  const Complete& complete = [](size_t) { return true; }, const Recover& recover = [](size_t) {}) {
  const Gemm gemm = [&](size_t k, cublasHandle_t blas, void* tile) {
    gemm_triangle_band(blas, bands[k], job.z, tile);
  };
  run_in_order(job, bands.size(), [&](size_t k) { return bands[k].count; }, gemm, pass, complete, recover);
}

kernels::EdgeRule edge_rule(const EdgeTest& test) { return kernels::EdgeRule{test.absolute ? 1 : 0, test.threshold}; }

// The tensor-core edges' bands: row-order bands (p0 = q0 + 1, ld = n - 1 - q0, as
// triangle_bands) of whole 128-row tiles of the job's rows, each tile (rows x ld) within
// job.tile_values; empty when one tile of rows does not fit.
std::vector<TriuBand> tc_edge_bands(const GraphJob& job) {
  constexpr int64_t kTile = kernels::kFusedTile;
  static_assert(kMaxBandRows % kTile == 0, "whole tiles");
  std::vector<TriuBand> bands;
  const int64_t n = job.n, q_end = std::min(job.row_end, n);
  for (int64_t q = job.row_begin; q < std::min(q_end, n - 1);) {
    TriuBand b;
    b.q0 = q;
    b.p0 = q + 1;
    b.ld = n - 1 - q;
    const int64_t rows = std::min(job.tile_values / b.ld / kTile * kTile, kMaxBandRows);
    if (rows == 0) return {};
    b.q1 = std::min(q + rows, q_end);
    b.count = row_start(n, b.q1) - row_start(n, b.q0);
    bands.push_back(b);
    q = b.q1;
  }
  return bands;
}

// The bit words of a tensor-core band's row (TcEdgeOut::words).
int64_t tc_edge_words(const TriuBand& b) { return (b.ld + 31) / 32; }

}  // namespace

TcEdgePlan tc_edge_plan(const GraphJob& job) {
  TcEdgePlan p;
  if (!tc_edges_requested() || job.f64 || job.z.kmajor == nullptr) return p;
  p.bands = tc_edge_bands(job);
  for (const TriuBand& b : p.bands) {
    p.most = std::max(p.most, b.count);
    p.bit_words = std::max(p.bit_words, (b.q1 - b.q0) * tc_edge_words(b));
  }
  // The list: a 16th of a band's pairs (the edges and the band pairs near t; a tile with more
  // than its list holds recomputes them itself).
  p.list = std::min<int64_t>(std::max<int64_t>(p.most / 16, 4096), 1 << 24);
  if (!p.bands.empty())
    p.bytes = TcOperands::bytes(job.n, job.t, p.list) + PipelineResources::kComputeStreams * p.bit_words * 4;
  return p;
}

std::vector<TriuBand> triangle_bands(int64_t n, int64_t tile_values, int64_t q_begin, int64_t q_end) {
  std::vector<TriuBand> bands;
  q_end = std::min(q_end, n - 1);  // row n - 1 has no pairs
  for (int64_t q = q_begin; q < q_end;) {
    bands.push_back(next_triu_band(n, FC_TRIU_ROW, q, q_end, 0, tile_values));
    q = bands.back().q1;
  }
  return bands;
}

void threshold_edges(const GraphJob& job, const EdgeTest& test, GraphArena& arena, int64_t arena_edges,
                     UpperEdges& out, DeviceEdges* kept, const float* row_threshold) {
  PipelineResources& res = *job.res;
  const cudaStream_t copy = res.copy_stream();
  constexpr int kWindow = PipelineResources::kBandsInFlight;
  // FP32 products are decided on tensor cores where the device has them (tc_degree.cu, edge
  // mode: the same edges and values, bit for bit), when the operands, the lists and the bits fit
  // (the tile keeps the passing pairs' r) and the arena holds a band's pairs.
  TcOperands own;
  TcOperands& tco = job.tc != nullptr ? *job.tc : own;
  TcEdgePlan plan = tc_edge_plan(job);
  std::vector<TriuBand>& bands = plan.bands;
  const int64_t bits_words = plan.bit_words;
  if (!bands.empty() && (plan.most > arena_edges || !tco.reserve(job, plan.list, bits_words))) bands.clear();
  const bool tc = !bands.empty();
  // Per-row thresholds (the top-k candidates, cuda_topk.cpp) exist on tensor cores only: the
  // caller checks the plan and the operands first.
  if (row_threshold != nullptr && !tc) fail(FC_ERR_INTERNAL, "per-row thresholds without the tensor-core edges");
  if (!tc) bands = job_bands(job);
  // A dense graph gains nothing on tensor cores: every pass needs its FP32 r anyway, and the
  // recomputation of a listed pair costs more than its share of a GEMM. Once a completed band's
  // edges pass kTcDenseFraction of its pairs, the bands not yet launched take the FP32 tiles
  // (the same geometry and the same bits). band_tc[k]: band k's path, set when it is launched.
  constexpr double kTcDenseFraction = 0.02;
  std::vector<char> band_tc(bands.size(), 0);
  size_t fp32_from = tc ? bands.size() : 0;
  const bool may_switch = row_threshold == nullptr;
  int64_t max_chunks = 1;
  for (const TriuBand& b : bands) max_chunks = std::max(max_chunks, (b.q1 - b.q0) * kernels::edge_chunks_per_row(graph_band(job, b)));

  if (arena.capacity < arena_edges) {
    arena.cols.release();
    arena.vals.release();
    arena.capacity = 0;
    allocate<int64_t>(job, arena.cols, arena_edges, "the edge arena (columns)");
    allocate<float>(job, arena.vals, arena_edges, "the edge arena (values)");
    arena.capacity = arena_edges;
  }
  // The arena's scratch, grown when too small (kept between graphs: see GraphArena).
  EdgeScratch& sc = arena.scratch;
  DeviceBuffer(&counts)[2] = sc.counts;
  DeviceBuffer(&offsets)[2] = sc.offsets;
  DeviceBuffer &row_count = sc.row_count, &band_out = sc.band_out, &state = sc.state;
  if (kept != nullptr) kept->row_count = &row_count;
  // Edges stay in the arena, not staged to `out`, while kept != null and none was flushed.
  bool on_device = kept != nullptr;
  for (int s = 0; s < 2; ++s) {
    reserve<int32_t>(job, counts[s], max_chunks, "the edge chunk counts");
    reserve<int64_t>(job, offsets[s], max_chunks, "the edge chunk offsets");
  }
  reserve<int64_t>(job, row_count, job.n, "the edge row counts");
  reserve<int64_t>(job, band_out, 2 * kWindow, "the band edge totals");
  reserve<kernels::ArenaState>(job, state, 1, "the edge arena state");
  if (!sc.band_host) {
    auto fresh = std::make_unique<PinnedBuffer>();
    fresh->allocate(2 * kWindow * sizeof(int64_t), true);  // mapped: the bands' totals are stored there by a kernel
    sc.band_host = std::move(fresh);
  }
  PinnedBuffer& band_host = *sc.band_host;
  const int64_t* placed = reinterpret_cast<const int64_t*>(band_host.get());

  DrainOnUnwind drain(res);  // before the stager: unwinding stops its copies into `out` before leaving here
  res.ensure_staging(job.host_threads);
  StagingRing stager(res, job.host_threads);
  int64_t since_reset = 0;  // edges placed in the arena since it was last reset
  // The first scan after a reset waits for it on the device (the chain), not the host: the GEMMs
  // start meanwhile, while the last graph's assembly may still read the arena.
  BandChain chain;
  auto reset_arena = [&] {
    launched(kernels::edge_arena_reset(state.get<kernels::ArenaState>(), arena.capacity, copy), "edge_arena_reset kernel launch");
    chain.mark(copy);
    since_reset = 0;
  };
  // Waits until every placed band's edges are in `out`; the arena may then be reused. The
  // device's count of placed edges must be what the host staged.
  auto flush = [&] {
    stager.finish();
    kernels::ArenaState now{};
    res.read_small(&now, state.get(), sizeof now, copy);
    if (now.offset != since_reset)
      fail(FC_ERR_INTERNAL, "the edge arena holds " + std::to_string(now.offset) + " edges but the bands placed " +
                                std::to_string(since_reset));
  };
  out.columns.clear();
  out.values.clear();
  const kernels::EdgeRule rule = edge_rule(test);
  if (tc) {
    // (zero after every complete call: tc_edge_compact clears what it reads)
    for (DeviceBuffer& b : tco.bits) FC_CUDA(cudaMemsetAsync(b.get(), 0, static_cast<size_t>(bits_words) * 4, copy));
    tco.prepare(job, rule, true, nullptr, copy, row_threshold);
  }
  if (arena.assembled) FC_CUDA(cudaStreamWaitEvent(copy, arena.assembled->get(), 0));  // its reads of row_count and the arena
  FC_CUDA(cudaMemsetAsync(row_count.get(), 0, static_cast<size_t>(job.n) * sizeof(int64_t), copy));
  reset_arena();  // ordered after the memset

  auto tc_out = [&](size_t k, int s, void* tile) {
    const TriuBand& b = bands[k];
    return kernels::TcEdgeOut{static_cast<float*>(tile), tco.bits[s].get<unsigned>(), b.q0, b.p0, b.ld,
                              tc_edge_words(b)};
  };
  const Pass pass = [&](size_t k, int s, cudaStream_t stream, void* tile) {
    const TriuBand& b = bands[k];
    const kernels::GraphBand kb = graph_band(job, b);
    int32_t* scratch_cols = static_cast<int32_t*>(res.packed(s));
    float* scratch_vals = reinterpret_cast<float*>(static_cast<char*>(res.packed(s)) + job.tile_values * sizeof(int32_t));
    int64_t* slot_out = band_out.get<int64_t>() + 2 * (k % kWindow);
    if (band_tc[k]) {
      const kernels::TcEdgeOut e = tc_out(k, s, tile);
      launched(kernels::tc_edge_recompute(static_cast<const float*>(job.rows), job.t, rule, tco.list(s), e,
                                          tco.recompute_blocks, stream, row_threshold),
               "tc_edge_recompute kernel launch");
      launched(kernels::tc_edge_compact(e.bits, e.values, kb, e.words, scratch_cols, scratch_vals,
                                        counts[s].get<int32_t>(), stream),
               "tc_edge_compact kernel launch");
    } else {
      launched(job.f64 ? kernels::edge_compact(static_cast<const double*>(tile), kb, job.constant, rule, scratch_cols,
                                             scratch_vals, counts[s].get<int32_t>(), stream)
                     : kernels::edge_compact(static_cast<const float*>(tile), kb, job.constant, rule, scratch_cols,
                                             scratch_vals, counts[s].get<int32_t>(), stream),
               "edge_compact kernel launch");
    }
    chain.wait(stream);
    launched(kernels::edge_scan(counts[s].get<int32_t>(), kb, offsets[s].get<int64_t>(), row_count.get<int64_t>(),
                                state.get<kernels::ArenaState>(), slot_out, stream),
             "edge_scan kernel launch");
    chain.mark(stream);
    launched(kernels::edge_gather(scratch_cols, scratch_vals, counts[s].get<int32_t>(), offsets[s].get<int64_t>(), kb,
                                  slot_out, arena.cols.get<int64_t>(), arena.vals.get<float>(), stream),
             "edge_gather kernel launch");
    // Not a cudaMemcpyAsync: it would queue behind any large copy out (host_store.cuh).
    launched(kernels::store_to_host(slot_out, static_cast<char*>(band_host.device()) +
                                                  (slot_out - band_out.get<int64_t>()) * sizeof(int64_t),
                                    2 * sizeof(int64_t), stream),
             "store_to_host kernel launch");
  };
  int64_t pairs_total = 0;
  for (const TriuBand& b : bands) pairs_total += b.count;
  int64_t pairs_left = pairs_total;  // pairs of the bands not yet completed: a bound on the edges to come
  // Band k is done on the device (its band_ready event has completed, and is not recorded again
  // before this returns): its edges take the next positions of `out`, in band order, so the
  // edges stay in row order; they are copied there while later bands compute.
  const Complete complete = [&](size_t k) {
    const int64_t edges = placed[2 * (k % kWindow)];
    if (may_switch && band_tc[k] && static_cast<double>(edges) > kTcDenseFraction * static_cast<double>(bands[k].count))
      fp32_from = std::min(fp32_from, k + 1);
    const int64_t at = placed[2 * (k % kWindow) + 1];
    if (at < 0) return false;
    pairs_left -= bands[k].count;
    if (on_device) {
      since_reset += edges;
      return true;
    }
    if (edges > 0) {
      const size_t end = out.columns.size() + static_cast<size_t>(edges);
      // Moving the vectors would pull their memory from under the pool: let it finish first, and
      // reserve for the density seen so far (1/8 more) so that it seldom happens twice.
      if (end > out.columns.capacity() || end > out.values.capacity()) stager.finish();
      const double expected =
          static_cast<double>(end) * static_cast<double>(pairs_total) / static_cast<double>(pairs_total - pairs_left) * 1.125;
      const int64_t hint = std::min(static_cast<int64_t>(expected), static_cast<int64_t>(end) + pairs_left);
      int64_t* cols = grow(out.columns, edges, hint);
      float* vals = grow(out.values, edges, hint);
      FC_CUDA(cudaStreamWaitEvent(copy, res.band_ready(static_cast<int>(k % kWindow)), 0));
      stager.stage_bytes(arena.cols.get<int64_t>() + at, cols, static_cast<size_t>(edges) * sizeof(int64_t));
      stager.stage_bytes(arena.vals.get<float>() + at, vals, static_cast<size_t>(edges) * sizeof(float));
      since_reset += edges;
    }
    stager.dispatch_ready();
    return true;
  };
  const Recover recover = [&](size_t) {
    if (on_device) {  // the arena is full: its edges go to `out`, and the rest as they come
      on_device = false;
      if (since_reset > 0) {
        stager.stage_bytes(arena.cols.get<int64_t>(), grow(out.columns, since_reset, 0), static_cast<size_t>(since_reset) * sizeof(int64_t));
        stager.stage_bytes(arena.vals.get<float>(), grow(out.values, since_reset, 0), static_cast<size_t>(since_reset) * sizeof(float));
      }
    }
    flush();
    reset_arena();
  };
  if (tc) {
    // The band's "GEMM": its pairs decided on tensor cores, those that may pass listed (or
    // recorded in the tile by the blocks); the pass recomputes the list and compacts the bits.
    const Gemm gemm = [&](size_t k, cublasHandle_t blas, void* tile) {
      band_tc[k] = k < fp32_from;
      if (!band_tc[k]) {
        gemm_triangle_band(blas, bands[k], job.z, tile);
        return;
      }
      cudaStream_t stream = nullptr;
      FC_CUBLAS(cublasGetStream(blas, &stream));
      const int s = static_cast<int>(k % PipelineResources::kComputeStreams);
      kernels::TcDegreeArgs band = tco.band(bands[k].q0, bands[k].q1, s);
      band.edges = tc_out(k, s, tile);
      FC_CUDA(cudaMemsetAsync(band.list.count, 0, sizeof(unsigned long long), stream));
      launched(kernels::tc_degree_band(band, stream), "tc_degree_band kernel launch (edges)");
    };
    run_in_order(job, bands.size(), [&](size_t k) { return bands[k].count; }, gemm, pass, complete, recover);
  } else {
    run_triangle(job, bands, pass, complete, recover);
  }
  flush();
  if (tc) tco.report(job, "edges", copy);
  if (kept != nullptr) {
    kept->on_device = on_device;
    kept->count = on_device ? since_reset : 0;
    if (on_device) {
      drain.done();
      return;
    }
  }
  const int64_t band_rows = job.row_end - job.row_begin;
  out.row_count.assign(static_cast<size_t>(band_rows), 0);
  copy_to_host(out.row_count.data(), row_count.get<int64_t>() + job.row_begin, band_rows, copy);
  FC_CUDA(cudaStreamSynchronize(copy));
  drain.done();
}

void threshold_degree(const GraphJob& job, const EdgeTest& test, int64_t* degree, double* strength) {
  PipelineResources& res = *job.res;
  const cudaStream_t copy = res.copy_stream();
  const std::vector<TriuBand> bands = job_bands(job);
  int64_t max_row_partial = 1, max_col_partial = 1;
  for (const TriuBand& b : bands) {
    const kernels::GraphBand kb = graph_band(job, b);
    max_row_partial = std::max(max_row_partial, kb.rows * kernels::degree_col_blocks(kb));
    max_col_partial = std::max(max_col_partial, kernels::degree_row_groups(kb) * kb.ld);
  }
  DeviceBuffer count, rows_sum, cols_sum, row_partial[2], col_partial[2];
  allocate<unsigned long long>(job, count, job.n, "the degrees");
  allocate<double>(job, rows_sum, job.n, "the strengths (rows)");
  allocate<double>(job, cols_sum, job.n, "the strengths (columns)");
  for (int s = 0; s < 2; ++s) {
    allocate<double>(job, row_partial[s], max_row_partial, "the strength partial sums (rows)");
    allocate<double>(job, col_partial[s], max_col_partial, "the strength partial sums (columns)");
  }
  DrainOnUnwind drain(res);
  zero_async(count, copy);
  zero_async(rows_sum, copy);
  zero_async(cols_sum, copy);
  FC_CUDA(cudaStreamSynchronize(copy));

  const kernels::EdgeRule rule = edge_rule(test);
  BandChain chain;
  const Pass pass = [&](size_t k, int s, cudaStream_t stream, void* tile) {
    const TriuBand& b = bands[k];
    const kernels::GraphBand kb = graph_band(job, b);
    unsigned long long* d = count.get<unsigned long long>();
    launched(job.f64 ? kernels::degree_band(static_cast<const double*>(tile), kb, job.constant, rule, d,
                                            row_partial[s].get<double>(), col_partial[s].get<double>(), stream)
                     : kernels::degree_band(static_cast<const float*>(tile), kb, job.constant, rule, d,
                                            row_partial[s].get<double>(), col_partial[s].get<double>(), stream),
             "degree_band kernel launch");
    launched(kernels::degree_finish_rows(row_partial[s].get<double>(), kb, rows_sum.get<double>(), stream),
             "degree_finish_rows kernel launch");
    chain.wait(stream);
    launched(kernels::degree_finish_cols(col_partial[s].get<double>(), kb, cols_sum.get<double>(), stream),
             "degree_finish_cols kernel launch");
    chain.mark(stream);
  };
  run_triangle(job, bands, pass);
  std::vector<unsigned long long> c(static_cast<size_t>(job.n));
  std::vector<double> r(static_cast<size_t>(job.n)), q(static_cast<size_t>(job.n));
  copy_to_host(c.data(), count.get(), job.n, copy);
  copy_to_host(r.data(), rows_sum.get(), job.n, copy);
  copy_to_host(q.data(), cols_sum.get(), job.n, copy);
  FC_CUDA(cudaStreamSynchronize(copy));
  drain.done();
  for (int64_t i = 0; i < job.n; ++i) {
    if (degree != nullptr) degree[i] += static_cast<int64_t>(c[static_cast<size_t>(i)]);
    if (strength != nullptr) strength[i] = r[static_cast<size_t>(i)] + q[static_cast<size_t>(i)];
  }
}

namespace {

int64_t round_up(int64_t v, int64_t m) { return (v + m - 1) / m * m; }

// Pairs (q, p), p > q, of the rows q in [a, b) of n series: sum of n - 1 - q.
int64_t pairs_of_rows(int64_t n, int64_t a, int64_t b) { return row_start(n, b) - row_start(n, a); }

struct FusedBand {
  int64_t q0, q1, pairs;
};

// Whole 128-row tiles of rows [q_begin, q_end) (the fused kernel's loads need aligned row starts;
// q_begin is a multiple of 128, q_end one too or n), as many as keep a band within `budget` pairs
// (at least one tile; at most 65,535 tiles, the grid's y limit).
std::vector<FusedBand> fused_bands(int64_t n, int64_t budget, int64_t q_begin, int64_t q_end) {
  constexpr int64_t kTile = kernels::kFusedTile;
  std::vector<FusedBand> bands;
  q_end = std::min(q_end, n);
  for (int64_t q = q_begin; q < std::min(q_end, n - 1);) {
    int64_t q1 = std::min(q_end, q + kTile);
    while (q1 < q_end && q1 - q < 65535 * kTile && pairs_of_rows(n, q, std::min(q_end, q1 + kTile)) <= budget)
      q1 = std::min(q_end, q1 + kTile);
    bands.push_back(FusedBand{q, q1, pairs_of_rows(n, q, q1)});
    q = q1;
  }
  return bands;
}

// Fixed-point bits of the strength sums: every partial sum and every total is below n in
// magnitude (at most n - 1 weights of magnitude <= 1), so n * 2^bits <= 2^62 cannot overflow.
int fixed_point_bits(int64_t n) {
  int bits = 0;
  while ((int64_t(1) << bits) < n) ++bits;
  return 62 - bits;
}

}  // namespace

bool fused_degree_enabled(bool f64, bool tf32) {
  const char* env = std::getenv("FASTCONN_CUDA_FUSED_DEGREE");
  return !f64 && !tf32 && (env == nullptr || std::strcmp(env, "0") != 0);
}

int64_t fused_degree_bytes(int64_t n, int64_t t) {
  // the series' k-major copy (which the fused kernel shares with the products) and the sums
  return kernels::kmajor_t_pad(t) * kernels::kmajor_ld(n) * int64_t(sizeof(float)) +
         2 * n * int64_t(sizeof(unsigned long long));
}

bool tc_degree_requested() {
  const char* env = std::getenv("FASTCONN_TC_DEGREE");
  return env == nullptr ? kTcDegreeDefault : std::strcmp(env, "0") != 0;
}

bool tc_topk_requested() {
  const char* env = std::getenv("FASTCONN_TC_TOPK");
  return env == nullptr ? kTcEdgesDefault : std::strcmp(env, "0") != 0;
}

bool tc_edges_requested() {
  const char* env = std::getenv("FASTCONN_TC_EDGES");
  return env == nullptr ? kTcEdgesDefault : std::strcmp(env, "0") != 0;
}

int fused_strength_bits(int64_t n) { return fixed_point_bits(n); }

bool fused_degree_rows(const GraphJob& job, const EdgeTest& test, int64_t* degree, int64_t* strength) {
  PipelineResources& res = *job.res;
  const cudaStream_t copy = res.copy_stream();
  // The series' k-major copy (gemm.hpp's Operand): ld a multiple of kFusedTile, t_pad of kFusedK.
  static_assert(kernels::kProductTile % kernels::kFusedTile == 0 && kernels::kProductK == kernels::kFusedK,
                "the fused kernel reads the products' k-major copy");
  if (job.z.kmajor == nullptr || job.z.f64) return false;
  const float* zt = static_cast<const float*>(job.z.kmajor);
  const int64_t ld = job.z.ld, t_pad = job.z.t_pad;
  DeviceBuffer count, sums;
  const int dev = res.device();
  if (!count.try_allocate(dev, static_cast<size_t>(job.n) * sizeof(unsigned long long)) ||
      !sums.try_allocate(dev, static_cast<size_t>(job.n) * sizeof(unsigned long long)))
    return false;
  auto max_pairs = [](const std::vector<FusedBand>& bands) {
    int64_t most = 0;
    for (const FusedBand& b : bands) most = std::max(most, b.pairs);
    return most;
  };
  // Degrees alone are decided on tensor cores where the device has them and the memory fits
  // (tc_degree.cu: the same bits); the strength needs every kept pair's FP32 r, which the FP32
  // kernel computes anyway. Without a memory limit their bands hold kTcBandScale bands' worth of
  // pairs: each band costs launches and a last partial wave (H100, 1,000,000 x 200: 2.29 s with
  // 64 M-pair bands, 2.09 s with 1 G).
  constexpr int64_t kTcBandScale = 16;
  std::vector<FusedBand> bands = fused_bands(job.n, job.tile_values * (job.memory_left < 0 ? kTcBandScale : 1),
                                             job.row_begin, job.row_end);
  // The list: a 128th of a band's pairs (about 4x the band's share of pairs on fMRI-like data; a
  // fuller band recomputes the rest in its blocks).
  TcOperands own;
  TcOperands& tco = job.tc != nullptr ? *job.tc : own;
  const bool tc = strength == nullptr && tc_degree_requested() &&
                  tco.reserve(job, std::min<int64_t>(std::max<int64_t>(max_pairs(bands) / 128, 4096), 1 << 24));
  if (!tc) bands = fused_bands(job.n, job.tile_values, job.row_begin, job.row_end);
  DrainOnUnwind drain(res);
  // The zeroed sums, after the work the caller queued on its stream.
  FC_CUDA(cudaEventRecord(res.start_event(), job.user_stream));
  FC_CUDA(cudaStreamWaitEvent(copy, res.start_event(), 0));
  zero_async(count, copy);
  zero_async(sums, copy);

  const kernels::EdgeRule rule = edge_rule(test);
  const int bits = fixed_point_bits(job.n);
  if (tc) tco.prepare(job, rule, false, count.get<unsigned long long>(), copy);
  FC_CUDA(cudaStreamSynchronize(copy));

  unsigned long long* strength_fixed = strength != nullptr ? sums.get<unsigned long long>() : nullptr;
  // The band's "GEMM" is the whole computation; it runs on the compute stream of blas, and there
  // is no tile. Integer atomics: bands on both streams may add at once. The tensor-core bands'
  // listed pairs are decided in the pass, beside the next band.
  const Gemm gemm = [&](size_t k, cublasHandle_t blas, void*) {
    cudaStream_t stream = nullptr;
    FC_CUBLAS(cublasGetStream(blas, &stream));
    if (tc) {
      const int s = static_cast<int>(k % PipelineResources::kComputeStreams);
      const kernels::TcDegreeArgs band = tco.band(bands[k].q0, bands[k].q1, s);
      FC_CUDA(cudaMemsetAsync(band.list.count, 0, sizeof(unsigned long long), stream));
      launched(kernels::tc_degree_band(band, stream), "tc_degree_band kernel launch");
    } else {
      launched(kernels::fused_degree_band(zt, ld, t_pad, job.n, bands[k].q0, bands[k].q1, job.constant, rule,
                                          bits, count.get<unsigned long long>(), strength_fixed, stream),
               "fused_degree_band kernel launch");
    }
  };
  const Pass pass = [&](size_t, int s, cudaStream_t stream, void*) {
    if (tc)
      launched(kernels::tc_degree_recompute(static_cast<const float*>(job.rows), job.t, rule, tco.list(s),
                                            count.get<unsigned long long>(), tco.recompute_blocks, stream),
               "tc_degree_recompute kernel launch");
  };
  run_in_order(job, bands.size(), [&](size_t k) { return bands[k].pairs; }, gemm, pass,
               [](size_t) { return true; }, [](size_t) {});
  std::vector<unsigned long long> c(static_cast<size_t>(job.n)), f(static_cast<size_t>(job.n));
  copy_to_host(c.data(), count.get(), job.n, copy);
  copy_to_host(f.data(), sums.get(), job.n, copy);
  FC_CUDA(cudaStreamSynchronize(copy));
  drain.done();
  if (tc) tco.report(job, "degree", copy);
  for (int64_t i = 0; i < job.n; ++i) {
    if (degree != nullptr) degree[i] += static_cast<int64_t>(c[static_cast<size_t>(i)]);
    if (strength != nullptr) strength[i] += static_cast<int64_t>(f[static_cast<size_t>(i)]);
  }
  return true;
}

// The whole triangle's band, then the fixed point to double.
bool fused_threshold_degree(const GraphJob& job, const EdgeTest& test, int64_t* degree, double* strength) {
  const size_t n = static_cast<size_t>(job.n);
  std::vector<int64_t> count(n, 0), fixed(strength != nullptr ? n : 0, 0);
  GraphJob whole = job;
  whole.row_begin = 0;
  whole.row_end = job.n;
  if (!fused_degree_rows(whole, test, count.data(), strength != nullptr ? fixed.data() : nullptr)) return false;
  const int bits = fixed_point_bits(job.n);
  for (size_t i = 0; i < n; ++i) {
    if (degree != nullptr) degree[i] = count[i];
    if (strength != nullptr) strength[i] = std::ldexp(static_cast<double>(fixed[i]), -bits);
  }
  return true;
}

void abs_histogram(const GraphJob& job, std::vector<int64_t>& counts) {
  PipelineResources& res = *job.res;
  const cudaStream_t copy = res.copy_stream();
  const std::vector<TriuBand> bands = job_bands(job);
  const int64_t bins = kAbsHistogramBins;
  DeviceBuffer total;  // the output's device copy
  allocate<unsigned long long>(job, total, bins, "the histogram");
  DrainOnUnwind drain(res);
  zero_async(total, copy);
  FC_CUDA(cudaStreamSynchronize(copy));
  unsigned long long* d = total.get<unsigned long long>();
  const Pass pass = [&](size_t k, int, cudaStream_t stream, void* tile) {
    const kernels::GraphBand kb = graph_band(job, bands[k]);
    // Integer atomics into the one histogram: bands of both streams may add at once.
    launched(job.f64 ? kernels::abs_histogram_band(static_cast<const double*>(tile), kb, job.constant,
                                                   kAbsHistogramShift, bins, d, stream)
                     : kernels::abs_histogram_band(static_cast<const float*>(tile), kb, job.constant,
                                                   kAbsHistogramShift, bins, d, stream),
             "abs_histogram_band kernel launch");
  };
  run_triangle(job, bands, pass);
  std::vector<unsigned long long> c(static_cast<size_t>(bins));
  copy_to_host(c.data(), total.get(), bins, copy);
  FC_CUDA(cudaStreamSynchronize(copy));
  drain.done();
  for (int64_t b = 0; b < bins; ++b) counts[static_cast<size_t>(b)] += static_cast<int64_t>(c[static_cast<size_t>(b)]);
}

void top_k(const GraphJob& job, int64_t k, int64_t* columns, float* values) {
  PipelineResources& res = *job.res;
  const cudaStream_t copy = res.copy_stream();
  if (k > kernels::kTopKMax)
    fail(FC_ERR_INVALID_ARG, "k = " + std::to_string(k) + " exceeds the " + std::to_string(kernels::kTopKMax) +
                                 " strongest edges per node the CUDA backend selects");
  std::vector<CrossBand> bands;
  for (int64_t a = job.row_begin; a < job.row_end;) {
    bands.push_back(next_cross_band(a, job.row_end, job.n, job.tile_values));
    a = bands.back().a1;
  }
  const int64_t cells = (job.row_end - job.row_begin) * k;
  DeviceBuffer out_cols, out_vals;
  allocate<int64_t>(job, out_cols, cells, "the top-k columns");
  allocate<float>(job, out_vals, cells, "the top-k values");
  DrainOnUnwind drain(res);
  // Full rows: tile[(i - a0) * n + j] = <z_j, z_i> for every j.
  const Gemm gemm = [&](size_t b, cublasHandle_t blas, void* tile) {
    const CrossBand& band = bands[b];
    pair_products(blas, job.z, 0, job.n, job.z, band.a0, band.a1 - band.a0, tile, job.n);
  };
  const Pass pass = [&](size_t b, int, cudaStream_t stream, void* tile) {
    const CrossBand& band = bands[b];
    const int64_t rows = band.a1 - band.a0;
    launched(job.f64 ? kernels::row_topk(static_cast<const double*>(tile), job.n, band.a0, rows, job.constant, k,
                                         job.row_begin, out_cols.get<int64_t>(), out_vals.get<float>(), stream)
                     : kernels::row_topk(static_cast<const float*>(tile), job.n, band.a0, rows, job.constant, k,
                                         job.row_begin, out_cols.get<int64_t>(), out_vals.get<float>(), stream),
             "row_topk kernel launch");
  };
  run_in_order(job, bands.size(), [&](size_t b) { return bands[b].a1 - bands[b].a0; }, gemm, pass,
               [](size_t) { return true; }, [](size_t) {});
  copy_to_host(columns, out_cols.get(), cells, copy);
  copy_to_host(values, out_vals.get(), cells, copy);
  FC_CUDA(cudaStreamSynchronize(copy));
  drain.done();
}

}  // namespace cuda
}  // namespace fc
