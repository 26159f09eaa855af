// The device state of the tensor-core decisions (kernels/tc_degree.cu) for one call: the half
// operands and a_q of every series, a list of pairs for the FP32 recomputation per compute
// stream, and the kernel's arguments. Shared by the degree (fused_degree_rows) and the edges
// (threshold_edges' tensor-core path), which differ in what a passing pair does.
#pragma once

#include <cstdint>

#include "backend/cuda/cuda_resources.hpp"
#include "backend/cuda/graph_ops.hpp"
#include "kernels/graph_tiles.cuh"

namespace fc {
namespace cuda {

// The backend keeps one (GraphJob::tc) between calls, so that the windows of a sliding-window
// call do not each allocate and free it (a cudaFree waits for the whole device); buffers grow,
// never shrink, and the edges' bit words are reserved by threshold_edges only.
struct TcOperands {
  DeviceBuffer halves, row_delta, pairs[PipelineResources::kComputeStreams], counts, recomputed;
  DeviceBuffer bits[PipelineResources::kComputeStreams];  // threshold_edges' (TcEdgeOut::bits)
  int64_t k_pad = 0, capacity = 0;
  float max_delta = 0.0f;
  int recompute_blocks = 0;  // the recomputation kernels' grid (set by prepare)
  kernels::TcDegreeArgs args{};  // the band's fields (q0, q1, tiles, list) set by band()

  // Device bytes for n series of t samples with lists of `list_pairs` entries.
  static int64_t bytes(int64_t n, int64_t t, int64_t list_pairs);
  // The operands and lists (and, with bit_words > 0, that many bit words a stream, zeroed),
  // reusing what is there, or false (buffers released) when the device or job.memory_left has no
  // room for what this call needs. Requires FP32 rows with a k-major copy, n < 2^32 and a device
  // with tensor cores.
  bool reserve(const GraphJob& job, int64_t list_pairs, int64_t bit_words = 0);
  // Makes the operands on `stream` and fills args for `rule` (edges: every pair that may pass is
  // listed, none counted; degree: counts into `degree`; row_threshold: edges only, per-row
  // thresholds as TcDegreeArgs says). Waits for the stream.
  void prepare(const GraphJob& job, const kernels::EdgeRule& rule, bool edges, unsigned long long* degree,
               cudaStream_t stream, const float* row_threshold = nullptr);
  kernels::TcBandList list(int s);
  // args for the rows [q0, q1) of the triangle, with stream s's list.
  kernels::TcDegreeArgs band(int64_t q0, int64_t q1, int s);
  // FASTCONN_TC_STATS=1: one stderr line with the pairs recomputed in FP32 (the benchmark's
  // fraction; no API carries it). Synchronizes `stream`.
  void report(const GraphJob& job, const char* what, cudaStream_t stream);
};

}  // namespace cuda
}  // namespace fc
