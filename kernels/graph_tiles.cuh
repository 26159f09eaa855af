// Launchers of the kernels that turn GEMM tiles into networks without leaving the device:
// thresholded edges compacted in row order (edge_compact.cu), degree and strength partial sums
// (degree_accumulate.cu; fused_degree.cu computes the products itself), the |r| histogram
// (abs_histogram.cu) and per-row top-k (row_topk.cu).
// Plain declarations over raw device pointers and a stream; each returns the launch status
// (cudaGetLastError) for the caller to check. Every result is deterministic: integer counts may
// use atomics, floating-point sums are reduced in a fixed order.
//
// r of a pair is the tile value clamped to [-1, 1] in the tile's type, then rounded to float:
// exactly what triu_extract writes into a float triangle. Pairs with a constant series never
// pass a test, are never counted in the histogram and are never chosen by top-k.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels/tc_bound.hpp"

namespace fc {
namespace kernels {

// A row-order band of the triangle (as cuda::TriuBand): tile row ql is series q = q0 + ql and
// holds the products with p in [p0, p0 + ld) at tile[ql * ld + (p - p0)]; the pairs are p > q.
struct GraphBand {
  int64_t n;
  int64_t q0;
  int64_t rows;
  int64_t p0;
  int64_t ld;
};

// |r| >= threshold (absolute != 0) or r >= threshold.
struct EdgeRule {
  int absolute;
  float threshold;
};

// --- edges (edge_compact.cu) ------------------------------------------------------------------
// A band is cut into chunks of kEdgeChunk tile values of one row: chunk c = ql * chunks_per_row
// + x / kEdgeChunk. Three launches per band:
//   edge_compact: each chunk's passing pairs, in column order, into the scratch slots of its own
//                 tile positions (scratch: rows * ld columns as int32 and r as float), and its
//                 count into chunk_counts;
//   edge_scan:    one block: chunk offsets in row order, row_count[q] for the band's rows, and
//                 the band's place in the arena: band_out[0] = edges of the band, band_out[1] =
//                 arena offset of its first edge, or -1 when the arena is full (then nothing of
//                 this band, nor of any later band, is placed until the host resets the arena);
//   edge_gather:  copies each chunk's edges to the arena (columns widened to int64).
// The arena state is { next offset, capacity, full flag } in device memory, updated in stream
// order by edge_scan (the host chains the scans of successive bands).
constexpr int64_t kEdgeChunk = 2048;
struct ArenaState {
  long long offset;
  long long capacity;
  int full;
};
inline int64_t edge_chunks_per_row(const GraphBand& b) { return (b.ld + kEdgeChunk - 1) / kEdgeChunk; }

cudaError_t edge_compact(const float* tile, const GraphBand& band, const uint8_t* constant, EdgeRule rule,
                         int32_t* scratch_cols, float* scratch_vals, int32_t* chunk_counts, cudaStream_t stream);
cudaError_t edge_compact(const double* tile, const GraphBand& band, const uint8_t* constant, EdgeRule rule,
                         int32_t* scratch_cols, float* scratch_vals, int32_t* chunk_counts, cudaStream_t stream);
cudaError_t edge_scan(const int32_t* chunk_counts, const GraphBand& band, int64_t* chunk_offsets, int64_t* row_count,
                      ArenaState* arena, int64_t* band_out, cudaStream_t stream);
// The arena emptied on the device (stream-ordered, no host round trip): { 0, capacity, 0 }.
cudaError_t edge_arena_reset(ArenaState* arena, int64_t capacity, cudaStream_t stream);
cudaError_t edge_gather(const int32_t* scratch_cols, const float* scratch_vals, const int32_t* chunk_counts,
                        const int64_t* chunk_offsets, const GraphBand& band, const int64_t* band_out,
                        int64_t* arena_cols, float* arena_vals, cudaStream_t stream);

// --- degree and strength (degree_accumulate.cu) -------------------------------------------------
// degree_band: degree[q] and degree[p] += 1 for every passing pair (integer atomics: exact in any
// order); the weights (|r| or r, as double) into fixed slots: row_partial[ql * col_blocks + cb]
// (sum over column block cb of row ql) and col_partial[rg * ld + x] (sum over row group rg of
// column x). degree_finish_rows: strength_rows[q] = the row's slots summed in order (each row
// lies in one band). degree_finish_cols: strength_cols[p] += the column's slots summed in order
// (bands add in the order the host chains them).
constexpr int kDegreeColumns = 256;  // columns of one column block
constexpr int kDegreeRowGroup = 32;  // rows of one row group
inline int64_t degree_col_blocks(const GraphBand& b) { return (b.ld + kDegreeColumns - 1) / kDegreeColumns; }
inline int64_t degree_row_groups(const GraphBand& b) { return (b.rows + kDegreeRowGroup - 1) / kDegreeRowGroup; }

cudaError_t degree_band(const float* tile, const GraphBand& band, const uint8_t* constant, EdgeRule rule,
                        unsigned long long* degree, double* row_partial, double* col_partial, cudaStream_t stream);
cudaError_t degree_band(const double* tile, const GraphBand& band, const uint8_t* constant, EdgeRule rule,
                        unsigned long long* degree, double* row_partial, double* col_partial, cudaStream_t stream);
cudaError_t degree_finish_rows(const double* row_partial, const GraphBand& band, double* strength_rows,
                               cudaStream_t stream);
cudaError_t degree_finish_cols(const double* col_partial, const GraphBand& band, double* strength_cols,
                               cudaStream_t stream);

// --- degree and strength from the products themselves (fused_degree.cu) ------------------------
// No tile: each block computes 128 x 128 float products of the triangle (one fmaf chain over k
// per product, k ascending) and tests them in registers. The series are read from
// zt, the k-major copy of pair_products.cuh (transpose_pad): zt[k * ld + i] = z[i * t + k], zero
// for i >= n or k >= t, ld a multiple of kFusedTile, t_pad of kFusedK. fused_degree_band covers rows q in
// [q0, q1) (q0 a multiple of kFusedTile) and their pairs p > q: degree[q], degree[p] += 1 and
// strength[q], strength[p] += the weight (|r| or r) as 64-bit fixed point, weight * 2^scale_bits
// rounded per tile row or column (integer atomics: exact in any order); strength may be null.
constexpr int64_t kFusedTile = 128;
constexpr int64_t kFusedK = 8;
cudaError_t fused_degree_band(const float* zt, int64_t ld, int64_t t_pad, int64_t n, int64_t q0, int64_t q1,
                              const uint8_t* constant, EdgeRule rule, int scale_bits, unsigned long long* degree,
                              unsigned long long* strength, cudaStream_t stream);

// --- the degree decided on tensor cores (tc_degree.cu) -----------------------------------------
// fused_degree_band's degrees (no strength), the same bits, from FP16 tensor-core products
// (kernels/tc_bound.hpp). tc_degree_prepare: the operands, from rows (the n x t row-major
// normalized series that zt transposes): halves (tc_rows_pad(n) x k_pad, k_pad = tc_k_pad(t),
// IEEE half bits) and row_delta[q] = a_q x 2^16 with a_q = E_q x row_factor rounded up
// (tc_row_factor(t); 0 makes every a_q 0). tc_degree_band: rows q in [q0, q1) (q0 a multiple of
// kFusedTile) and their pairs p > q; a pair is decided from its product x (|x| under |r| >= t,
// everything scaled by 2^16) when x < cut.fail_below (fails), x >= cut.pass_from (passes, cut
// from the largest d_qp), or it lies outside [t' - d_qp, t' + d_qp] with d_qp = row_delta[q] +
// row_delta[p] + pair_constant and t' = threshold_scaled (tc_threshold x 2^16); any other pair
// goes on `list` (or, when that is full or null, has its FP32 r recomputed in the block) and
// tc_degree_recompute decides the listed ones after the band (list.count: pairs listed, zeroed
// before each band; pairs past list.capacity were not listed). *recomputed (if not null) += the
// pairs in the band. tc_degree_available: whether `device` runs the tensor-core body (sm_80+ and
// a binary built for it). Series indices must be below 2^32.
struct TcBandList {
  uint2* pairs;  // (q, p)
  unsigned long long* count;
  int64_t capacity;
};
// Edge mode (threshold_edges on tensor cores, cuda_graph.cpp): with `values` set, tc_degree_band
// counts nothing; every pair that may pass (x >= the band's lower edge t' - d_qp) is decided by
// its FP32 r (listed, or recomputed in the tile), and a passing pair's r goes to
// values[(q - q0) * ld + (p - p0)] (its position in a row-order band's tile, p0 = q0 + 1; q0 a
// multiple of kFusedTile, q1 too or the job's last row, as for the degree) and its bit
// to bits[(q - q0) * words + (p - p0) / 32] (bit (p - p0) % 32; `words` per row, ld / 32 rounded
// up). tc_edge_recompute does the same for the listed pairs, and tc_edge_compact turns the bits
// into edge_compact's chunks (counts and compacted scratch: edge_scan and edge_gather follow as
// on the FP32 path), clearing the bits it read. So the edges are the FP32 path's, bit for bit.
struct TcEdgeOut {
  float* values;
  unsigned* bits;
  int64_t q0, p0, ld, words;
};
struct TcDegreeArgs {
  const uint16_t* halves;
  int64_t k_pad;
  const float* row_delta;
  float pair_constant, threshold_scaled;
  TcCutoffs cut;
  const float* rows;
  int t;
  int64_t n, q0, q1, row_tiles, col_tiles;  // tiles of the band: ceil((q1 - q0) / 128), ceil((n - q0) / 128)
  const uint8_t* constant;
  EdgeRule rule;
  TcBandList list;
  unsigned long long* degree;
  unsigned long long* recomputed;
  TcEdgeOut edges;  // values null: the degree
  // Edge mode only: per-row thresholds L (tc_rows_pad(n) values of |r|, padding rows 2; null: the
  // rule's threshold). Pair (q, p) then passes at |r| >= min(L_q, L_p) (the rule is |r| >= that),
  // and each tile's fail cut is its rows' and columns' smallest L less max_delta_scaled (the
  // largest d_qp, scaled).
  const float* row_threshold;
  float max_delta_scaled;
};
inline int64_t tc_rows_pad(int64_t n) { return (n + kFusedTile - 1) / kFusedTile * kFusedTile; }
bool tc_degree_available(int device);
cudaError_t tc_degree_prepare(const float* rows, int64_t t, int64_t n, const uint8_t* constant, int64_t k_pad,
                              double row_factor, uint16_t* halves, float* row_delta, cudaStream_t stream);
cudaError_t tc_degree_band(const TcDegreeArgs& args, cudaStream_t stream);
cudaError_t tc_degree_recompute(const float* rows, int64_t t, EdgeRule rule, TcBandList list,
                                unsigned long long* degree, int blocks, cudaStream_t stream);
cudaError_t tc_edge_recompute(const float* rows, int64_t t, EdgeRule rule, TcBandList list, TcEdgeOut out, int blocks,
                              cudaStream_t stream, const float* row_threshold = nullptr);
// The band's chunks (edge_compact's layout) from the bits and values of edge mode; the bits read
// are set to 0 again.
cudaError_t tc_edge_compact(unsigned* bits, const float* values, const GraphBand& band, int64_t words,
                            int32_t* scratch_cols, float* scratch_vals, int32_t* chunk_counts, cudaStream_t stream);

// --- a sample of |r| (pair_sample.cu) ------------------------------------------------------------
// sample_abs_histogram: `samples` draws of kernels/pair_sample.hpp's pairs (q, p) of `seed`,
// those with q == p or a constant series skipped; the others' |r| (over rows, n x t row-major,
// n < 2^32: floats by the fmaf chain of the FP32 kernels, doubles by an fma chain) counted as abs_histogram_band counts
// (counts[bits(|r|) >> shift], `bins` 64-bit counts) and their number added to *valid. An
// estimate for the density rule's guess (src/backend/density_guess.hpp), not a result.
cudaError_t sample_abs_histogram(const float* rows, int64_t t, int64_t n, const uint8_t* constant, uint64_t seed,
                                 int64_t samples, int shift, int64_t bins, unsigned long long* counts,
                                 unsigned long long* valid, cudaStream_t stream);
cudaError_t sample_abs_histogram(const double* rows, int64_t t, int64_t n, const uint8_t* constant, uint64_t seed,
                                 int64_t samples, int shift, int64_t bins, unsigned long long* counts,
                                 unsigned long long* valid, cudaStream_t stream);

// --- |r| histogram (abs_histogram.cu) -----------------------------------------------------------
// abs_histogram_band: counts[bits(|r|) >> shift] += 1 over the band's pairs of non-constant
// series. The top kHistogramSharedBins bins (|r| >= 2^-63 with shift 14) are counted in shared
// memory (128 KiB a block) and added to counts once per block, lower ones straight to counts:
// integer atomics only, so the counts are exact whatever the order. `blocks` blocks per band.
constexpr int kHistogramSharedBins = 32768;
constexpr int kHistogramBlocks = 132;  // one per SM of an H100 (the shared histogram fills an SM)
cudaError_t abs_histogram_band(const float* tile, const GraphBand& band, const uint8_t* constant, int shift,
                               int64_t bins, unsigned long long* counts, cudaStream_t stream);
cudaError_t abs_histogram_band(const double* tile, const GraphBand& band, const uint8_t* constant, int shift,
                               int64_t bins, unsigned long long* counts, cudaStream_t stream);

// --- top-k per row (row_topk.cu) ----------------------------------------------------------------
// Rows i in [a0, a0 + rows), each a full row of n products at tile[(i - a0) * n + j]: the k
// series j != i of largest |r| (ties: smaller j), in that order, into columns[(i - out_row0) * k ..]
// and their r into values (out_row0: the output's first row); fewer than k candidates are padded
// with column -1, value 0. k <= kTopKMax.
constexpr int64_t kTopKMax = 1024;
cudaError_t row_topk(const float* tile, int64_t n, int64_t a0, int64_t rows, const uint8_t* constant, int64_t k,
                     int64_t out_row0, int64_t* columns, float* values, cudaStream_t stream);
cudaError_t row_topk(const double* tile, int64_t n, int64_t a0, int64_t rows, const uint8_t* constant, int64_t k,
                     int64_t out_row0, int64_t* columns, float* values, cudaStream_t stream);
// The same choice over other rows (the same order and padding):
//   csr_topk: rows i in [a0, a0 + rows) of a symmetric CSR whose weights are r (columns ascending
//             within a row, no constant series and no self-pair in it): the k best of row i's
//             entries;
//   sample_topk: rows i of tile[(i - a0) * m + s] = <z_i, z_sample[s]> for m sample columns
//             (ascending): the k best of the sample (j == i and constant columns never chosen).
// topk_row_bounds: bound[i] = |values[(i - a0) * k + k - 1]| (the k-th best's |r|, 0 when the
// row had fewer than k) for the rows, 2 for a constant series.
cudaError_t csr_topk(const int64_t* offsets, const int64_t* csr_columns, const float* weights, int64_t a0, int64_t rows,
                     const uint8_t* constant, int64_t k, int64_t out_row0, int64_t* columns, float* values,
                     cudaStream_t stream);
cudaError_t sample_topk(const float* tile, int64_t m, const int64_t* sample, int64_t a0, int64_t rows,
                        const uint8_t* constant, int64_t k, int64_t out_row0, int64_t* columns, float* values,
                        cudaStream_t stream);
cudaError_t topk_row_bounds(const float* values, int64_t k, int64_t a0, int64_t rows, const uint8_t* constant,
                            float* bound, cudaStream_t stream);

}  // namespace kernels
}  // namespace fc
