// The CUDA backend's windows and low-rank primitives (Backend::create_window, gram, project):
// host side. CudaBackend validates, makes its device current and calls these; they run on the
// backend's first compute stream, ordered after the caller's stream, and return when done.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <memory>

#include "backend/cuda/band_pipeline.hpp"
#include "backend/cuda/cuda_series.hpp"

namespace fc {
namespace cuda {

// Device working memory a pass may use: the context's limit, or the backend's fixed default
// without one (fixed, not "what is free", so that chunking, hence the summation order and the
// bits, never depends on what else is on the device).
struct WorkBudget {
  int64_t bytes = 0;
  bool user_limit = false;  // bytes came from fc_context_set_memory_limit
};

// Backend::create_window on stored rows `src`: a new storage of src.n x length in src's
// precision; constant (src.n host flags) written. The new storage's device flags are filled too.
// Its buffers come from `pool` when a dropped window of the same shape left them there, and go
// back there when it is dropped.
std::unique_ptr<CudaSeries> create_window(PipelineResources& res, cudaStream_t user_stream, const CudaSeries& src,
                                          int64_t begin, int64_t length, const double* weights, uint8_t* constant,
                                          const std::shared_ptr<SeriesBufferPool>& pool);

// Device memory of gram and project, kept by the backend between calls and grown when a call
// needs more: the low-rank loop calls them window after window, and a cudaMalloc and cudaFree
// (which waits for the device) of each buffer every window cost more than the products.
struct LowRankScratch {
  DeviceBuffer wide, partial, gram, basis, products, products_float;
};

// Backend::gram: gram (host, t x t row-major) = Z^T Z in float64.
void gram(PipelineResources& res, cudaStream_t user_stream, const CudaSeries& s, const WorkBudget& budget,
          LowRankScratch& scratch, double* gram);

// Backend::project: factor (host, n x l row-major float) = Z * basis (host, t x l row-major).
void project(PipelineResources& res, cudaStream_t user_stream, const CudaSeries& s, const double* basis, int64_t l,
             const WorkBudget& budget, LowRankScratch& scratch, float* factor);

}  // namespace cuda
}  // namespace fc
