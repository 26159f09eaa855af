// The CUDA backend's network primitives (Backend::threshold_edges, threshold_degree,
// abs_histogram, top_k), driven from the calling thread over the backend's streams, cuBLAS
// handles and tiles. CudaBackend validates, plans and reserves the tiles, then calls these.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <vector>

#include "backend/backend.hpp"
#include "backend/cuda/band_pipeline.hpp"
#include "backend/cuda/band_plan.hpp"
#include "backend/cuda/cuda_resources.hpp"
#include "backend/cuda/gemm.hpp"

namespace fc {
namespace cuda {

struct TcOperands;  // tc_operands.hpp

// What the primitives need of one computation. The tiles (and, for threshold_edges, the scratch
// in the packed buffers: tile_values int32 columns then tile_values floats) are reserved.
struct GraphJob {
  PipelineResources* res = nullptr;
  int64_t n = 0, t = 0;
  bool f64 = false;
  const void* rows = nullptr;        // normalized series on the device, n x t
  Operand z;                         // the same rows as the products read them (gemm.hpp)
  const uint8_t* constant = nullptr;  // device flags, null when no series is constant
  cudaStream_t user_stream = nullptr;
  int64_t tile_values = 0;
  Progress* progress = nullptr;
  int host_threads = 1;  // threads of the host copy pool that moves edges into pageable vectors
  // The row band computed (graph_backend.hpp): pairs (q, p), p > q, of the rows q in
  // [row_begin, row_end) (top_k: those rows); the whole call's is [0, n).
  int64_t row_begin = 0, row_end = 0;
  // Device bytes an optional faster path may take beyond the job's plan (the tensor-core degree's
  // operands); -1: no memory limit.
  int64_t memory_left = -1;
  // The tensor-core paths' buffers kept by the backend between calls (null: the call's own).
  TcOperands* tc = nullptr;
};

// The device buffers of symmetric_csr (cuda_csr.cpp says what each holds).
struct CsrBuffers {
  DeviceBuffer lower, first_edge, lower_start, offsets, columns, weights, key[2], record[2], scan, sort;
};

// threshold_edges' small buffers: per-chunk counts and offsets of the two bands in flight, each
// row's edge count, the bands' totals and the arena's state on the device, the totals' pinned
// host copy.
struct EdgeScratch {
  DeviceBuffer counts[2], offsets[2], row_count, band_out, state;
  std::unique_ptr<PinnedBuffer> band_host;  // (PinnedBuffer does not move)
};

// Device memory kept by the backend between calls: the edge arena (int64 columns, float values),
// threshold_edges' scratch and the CSR assembly's buffers (grown, not reallocated, when graph
// after graph is built: a cudaMalloc and cudaFree of a window's buffers cost more than its
// assembly, and a cudaFree or cudaFreeHost waits for the whole device).
// `assembled`: recorded after the last assembly (build_csr does not wait for it): it reads the
// arena's edges and row counts, so the next edge pass's writes are ordered after it.
struct GraphArena {
  DeviceBuffer cols, vals;
  int64_t capacity = 0;
  EdgeScratch scratch;
  CsrBuffers csr;
  std::unique_ptr<Event> assembled;
};

// The row-order bands of the whole triangle, as fc_pcc_triu plans them for these tiles, or of
// its rows [q_begin, q_end) (a row band: the same pairs, FP32 / FP64 products of the same bits).
std::vector<TriuBand> triangle_bands(int64_t n, int64_t tile_values, int64_t q_begin = 0,
                                     int64_t q_end = std::numeric_limits<int64_t>::max());

// Edges left on the device by threshold_edges (for symmetric_csr): the arena's first `count`
// entries, in row order, and each row's count (n values).
struct DeviceEdges {
  bool on_device = false;  // false: the arena filled up, and the edges went to the host instead
  int64_t count = 0;
  const DeviceBuffer* row_count = nullptr;  // the arena's scratch.row_count
};

// The edges of the job's rows (out.row_count: one entry per row of the band).
// FP32 products are decided on tensor cores (kernels/tc_degree.cu, edge mode) where the device has
// them, with the same edges and values bit for bit (every pass's r is the FP32 one), when the
// operands fit the device and job.memory_left (kTcEdgesDefault; FASTCONN_TC_EDGES=0 turns it off,
// 1 on; FASTCONN_TC_STATS=1 prints the pairs recomputed in FP32 to stderr); otherwise from the
// FP32 tiles.
// arena_edges: capacity the arena must have (at least the largest band's pairs). With `kept` (the
// whole triangle only),
// the edges stay on the device while the arena holds them all (kept->on_device; `out` is then
// left empty); once it fills up, they go to `out` as without it.
void threshold_edges(const GraphJob& job, const EdgeTest& test, GraphArena& arena, int64_t arena_edges,
                     UpperEdges& out, DeviceEdges* kept = nullptr, const float* row_threshold = nullptr);

// The symmetric CSR (backend.hpp) of edges kept on the device, with fc_graph_weights `weights`,
// assembled there and copied to the host once. Returns false, having written nothing, when its
// device buffers (cuda_csr.cpp: buffers_bytes and cub's scratch) would pass `budget` bytes (0: no
// limit) or do not fit on the device; the caller then brings the edges to the host (edges_to_host).
bool symmetric_csr(const GraphJob& job, GraphArena& arena, const DeviceEdges& edges, int weights, int64_t budget,
                   SymmetricCsr& out);
// symmetric_csr in two halves. build_csr: the CSR assembled in arena.csr's offsets (n + 1),
// columns and weights (2 x edges each), or false as symmetric_csr. copy_csr: such a CSR (n nodes,
// e edges) to `out` on `stream`; meanwhile (if set) runs on this thread while the copy goes on
// when the host arrays take it directly (reused, page-locked arrays), else after it.
bool build_csr(const GraphJob& job, GraphArena& arena, const DeviceEdges& edges, int weights, int64_t budget);
void copy_csr(PipelineResources& res, int host_threads, const DeviceBuffer& offsets, const DeviceBuffer& columns,
              const DeviceBuffer& weights, int64_t n, int64_t e, cudaStream_t stream, SymmetricCsr& out,
              const std::function<void()>& meanwhile);
void edges_to_host(const GraphJob& job, const GraphArena& arena, const DeviceEdges& edges, UpperEdges& out);
// The tiled path: the degrees of the job's rows ADDED into degree (either may be null);
// strength (the whole triangle only, job rows [0, n): its column sums are doubles added band
// after band, which no split can reproduce) written.
void threshold_degree(const GraphJob& job, const EdgeTest& test, int64_t* degree, double* strength);

// Degree and strength without tiles: the float products are computed 128 x 128 at a time and
// tested in registers (kernels/fused_degree.cu); r may differ from the cuBLAS tiles' by a float
// ulp or two where cuBLAS sums in another order (see there). Used unless the series are double, TF32 was asked for (the products must then be
// cuBLAS's tensor-core ones) or FASTCONN_CUDA_FUSED_DEGREE=0. fused_degree_bytes: the device
// memory it needs (a k-major copy of the series, the degrees and sums); job.tile_values is only
// the pairs per band (the unit of progress and cancellation). Returns false, having run nothing,
// when the device has no room for it.
// Degrees without strength are decided on tensor cores where the device has them (sm_80+,
// kernels/tc_degree.cu), with the same bits, when its operands fit job.memory_left and the device
// (kTcDegreeDefault; FASTCONN_TC_DEGREE=0 turns it off, 1 on); FASTCONN_TC_STATS=1 prints the
// pairs that kernel recomputed in FP32 to stderr.
constexpr bool kTcDegreeDefault = true;
constexpr bool kTcEdgesDefault = true;
bool fused_degree_enabled(bool f64, bool tf32);
bool tc_degree_requested();
bool tc_edges_requested();
bool tc_topk_requested();  // FASTCONN_TC_TOPK=0: top-k on the FP32 rows
// The tensor-core edges' geometry for a job (empty bands: no such path for it): row-order bands
// of whole 128-row tiles, the largest band's pairs, the list's pairs, the bit words and the device
// bytes TcOperands needs for them (plan_edges keeps them free under a memory limit).
struct TcEdgePlan {
  std::vector<TriuBand> bands;
  int64_t most = 0, list = 0, bit_words = 0, bytes = 0;
};
TcEdgePlan tc_edge_plan(const GraphJob& job);
int64_t fused_degree_bytes(int64_t n, int64_t t);
// fused_degree_rows: the job's rows (row_begin a multiple of kernels::kFusedTile, row_end one
// too or n: the kernel rounds the strength per 128 x 128 tile anchored at row 0), degrees and
// fixed-point strengths (fused_strength_bits(n) bits after the point) ADDED into degree and
// strength_fixed (either may be null). fused_threshold_degree: the whole triangle, then the
// fixed point to double.
int fused_strength_bits(int64_t n);
bool fused_degree_rows(const GraphJob& job, const EdgeTest& test, int64_t* degree, int64_t* strength_fixed);
bool fused_threshold_degree(const GraphJob& job, const EdgeTest& test, int64_t* degree, double* strength);
// The job's rows' counts ADDED into counts (kAbsHistogramBins entries).
void abs_histogram(const GraphJob& job, std::vector<int64_t>& counts);
// The density rule's guess (graph_backend.hpp, density_guess.hpp) from a sample of pairs drawn
// and counted on the device (cuda_density.cpp).
bool density_guess(const GraphJob& job, int64_t target, int64_t eligible, float& guess);
// The job's rows, row i's k at (i - job.row_begin) * k. job.tile_values >= n (full rows);
// progress in rows.
void top_k(const GraphJob& job, int64_t k, int64_t* columns, float* values);
// Top-k with the pairs decided on tensor cores (cuda_topk.cpp says how; CudaBackend::tc_top_k
// drives it). sample_row_bounds: bound (tc_rows_pad(n) floats) = each row's lower bound on its
// k-th largest |r| from a sample of columns (2 for constant series and padding); false when the
// job has no float k-major rows or the sample has no more than k columns.
// csr_top_k: every row's k best of the arena's assembled CSR (weights r) into the host arrays.
int64_t topk_sample_stride(int64_t n);  // sample columns 0, d, 2d, ...: n / 16 of them or 4,096
bool sample_row_bounds(const GraphJob& job, int64_t k, DeviceBuffer& bound);
void csr_top_k(const GraphJob& job, GraphArena& arena, int64_t k, int64_t* columns, float* values);

}  // namespace cuda
}  // namespace fc
