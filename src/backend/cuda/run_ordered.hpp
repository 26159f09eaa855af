// The one-stream pattern of the CUDA backend's computations that return to the host when done
// (cuda_window.cpp's low rank, cuda_partial.cpp): ordered after the caller's stream, waited for,
// and drained on an exception.
#pragma once

#include <cuda_runtime_api.h>

#include "backend/cuda/band_pipeline.hpp"
#include "backend/cuda/cuda_check.hpp"

namespace fc {
namespace cuda {

// Runs body(stream, blas) on the first compute stream, ordered after the work queued on the
// caller's stream (as run_bands orders its streams), and waits for it. On an exception the
// backend's streams are drained before it propagates, so that the caller's buffers (declared
// outside body) are never freed under a running kernel or copy.
template <class Body>
void run_ordered(PipelineResources& res, cudaStream_t user_stream, Body&& body) {
  const cudaStream_t stream = res.compute_stream(0);
  try {
    FC_CUDA(cudaEventRecord(res.start_event(), user_stream));
    FC_CUDA(cudaStreamWaitEvent(stream, res.start_event(), 0));
    body(stream, res.blas(0));
    FC_CUDA(cudaStreamSynchronize(stream));
  } catch (...) {
    res.quiesce();
    throw;
  }
}

}  // namespace cuda
}  // namespace fc
