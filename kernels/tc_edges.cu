// The tensor-core edges' compaction (graph_tiles.cuh, TcEdgeOut): edge mode of tc_degree.cu
// leaves each passing pair's FP32 r at its tile position and a bit per pair; this turns the bits
// into edge_compact's chunks, so that edge_scan and edge_gather (edge_compact.cu) place the edges
// in row order exactly as on the FP32 path. It reads 1 bit a pair instead of the FP32 tile's 4
// bytes, and the values of passing pairs only.
#include "kernels/graph_pair.cuh"

namespace fc {
namespace kernels {
namespace {

constexpr int kWarps = 8;
constexpr int kChunkWords = static_cast<int>(kEdgeChunk / 32);  // 64: two words a lane
static_assert(kChunkWords == 64, "a warp covers a chunk with two bit words a lane");

// One warp a chunk (chunk c = ql * chunks_per_row + cc: row ql's columns [2048 cc, 2048 cc + 2048)
// of the tile). Lane l holds words 2 l and 2 l + 1 of the chunk, so ascending (lane, word, bit)
// is ascending column and the exclusive scan of the lanes' counts gives each edge's position in
// the chunk's compacted scratch, as edge_compact writes it.
__global__ void __launch_bounds__(32 * kWarps) tc_edge_compact_kernel(unsigned* __restrict__ bits,
                                                                     const float* __restrict__ values, GraphBand b,
                                                                     int64_t words, int64_t chunks_per_row,
                                                                     int32_t* __restrict__ scratch_cols,
                                                                     float* __restrict__ scratch_vals,
                                                                     int32_t* __restrict__ chunk_counts) {
  const int lane = threadIdx.x & 31;
  const int64_t chunk = int64_t(blockIdx.x) * kWarps + (threadIdx.x >> 5);
  if (chunk >= b.rows * chunks_per_row) return;
  const int64_t ql = chunk / chunks_per_row, cc = chunk % chunks_per_row;
  const int64_t w0 = cc * kChunkWords + 2 * lane;  // this lane's first word in the row
  unsigned* row_bits = bits + ql * words;
  const unsigned lo = w0 < words ? row_bits[w0] : 0u;
  const unsigned hi = w0 + 1 < words ? row_bits[w0 + 1] : 0u;
  const int mine = __popc(lo) + __popc(hi);
  int inc = mine;
#pragma unroll
  for (int d = 1; d < 32; d <<= 1) {
    const int up = __shfl_up_sync(0xffffffffu, inc, d);
    if (lane >= d) inc += up;
  }
  if (lane == 31) chunk_counts[chunk] = inc;
  if (mine == 0) return;
  // The chunk's scratch slots are its own tile positions, as in edge_compact.
  const int64_t c0 = cc * kEdgeChunk;
  int32_t* cols = scratch_cols + ql * b.ld + c0;
  float* vals = scratch_vals + ql * b.ld + c0;
  const float* row_values = values + ql * b.ld;
  int pos = inc - mine;
  for (int h = 0; h < 2; ++h) {
    unsigned w = h == 0 ? lo : hi;
    const int64_t x0 = (w0 + h) * 32;
    while (w != 0u) {
      const int j = __ffs(w) - 1;
      w &= w - 1u;
      cols[pos] = static_cast<int32_t>(b.p0 + x0 + j);
      vals[pos] = row_values[x0 + j];
      ++pos;
    }
  }
  if (lo != 0u) row_bits[w0] = 0u;
  if (hi != 0u) row_bits[w0 + 1] = 0u;
}

}  // namespace

cudaError_t tc_edge_compact(unsigned* bits, const float* values, const GraphBand& band, int64_t words,
                            int32_t* scratch_cols, float* scratch_vals, int32_t* chunk_counts, cudaStream_t stream) {
  const int64_t chunks = band.rows * edge_chunks_per_row(band);
  if (chunks <= 0) return cudaSuccess;
  const int64_t blocks = (chunks + kWarps - 1) / kWarps;
  if (blocks > 0x7fffffff) return cudaErrorInvalidConfiguration;
  tc_edge_compact_kernel<<<static_cast<unsigned>(blocks), 32 * kWarps, 0, stream>>>(
      bits, values, band, words, edge_chunks_per_row(band), scratch_cols, scratch_vals, chunk_counts);
  return cudaGetLastError();
}

}  // namespace kernels
}  // namespace fc
