// The CUDA backend's network primitives (Backend::threshold_edges, threshold_degree,
// abs_histogram, top_k), driven from the calling thread over the backend's streams, cuBLAS
// handles and tiles. CudaBackend validates, plans and reserves the tiles, then calls these.
#pragma once

#include <cstdint>
#include <vector>

#include "backend/backend.hpp"
#include "backend/cuda/band_pipeline.hpp"
#include "backend/cuda/band_plan.hpp"
#include "backend/cuda/cuda_resources.hpp"
#include "backend/cuda/gemm.hpp"

namespace fc {
namespace cuda {

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
};

// Device memory kept by the backend between calls: the edge arena (int64 columns, float values).
struct GraphArena {
  DeviceBuffer cols, vals;
  int64_t capacity = 0;
};

// The row-order bands of the whole triangle, as fc_pcc_triu plans them for these tiles.
std::vector<TriuBand> triangle_bands(int64_t n, int64_t tile_values);

// arena_edges: capacity the arena must have (at least the largest band's pairs).
void threshold_edges(const GraphJob& job, const EdgeTest& test, GraphArena& arena, int64_t arena_edges,
                     UpperEdges& out);
void threshold_degree(const GraphJob& job, const EdgeTest& test, int64_t* degree, double* strength);

// Degree and strength without tiles: the float products are computed 128 x 128 at a time and
// tested in registers (kernels/fused_degree.cu); r may differ from the cuBLAS tiles' by a float
// ulp or two where cuBLAS sums in another order (see there). Used unless the series are double, TF32 was asked for (the products must then be
// cuBLAS's tensor-core ones) or FASTCONN_CUDA_FUSED_DEGREE=0. fused_degree_bytes: the device
// memory it needs (a k-major copy of the series, the degrees and sums); job.tile_values is only
// the pairs per band (the unit of progress and cancellation). Returns false, having run nothing,
// when the device has no room for it.
bool fused_degree_enabled(bool f64, bool tf32);
int64_t fused_degree_bytes(int64_t n, int64_t t);
bool fused_threshold_degree(const GraphJob& job, const EdgeTest& test, int64_t* degree, double* strength);
void abs_histogram(const GraphJob& job, std::vector<int64_t>& counts);
// job.tile_values >= n (full rows); progress in rows.
void top_k(const GraphJob& job, int64_t k, int64_t* columns, float* values);

}  // namespace cuda
}  // namespace fc
