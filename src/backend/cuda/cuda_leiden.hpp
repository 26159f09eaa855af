// The CUDA engine of the synchronous Leiden (cuda_leiden.cpp; backend/leiden_engine.hpp).
#pragma once

#include <cstdint>
#include <memory>

#include "backend/cuda/cuda_resources.hpp"
#include "backend/leiden_engine.hpp"

namespace fc {
namespace cuda {

// Device bytes the engine takes for level-0 graph z (an upper bound).
int64_t leiden_engine_bytes(const LeidenLevelZero& z);

// The engine on `device`, or null where the host engine should run (the same labels): n >= 2^30
// (its ids are int32, below 2n), more bytes than memory_limit (> 0) or than the device has free.
// threads: the host threads that stage the graph for its copy (0 = OpenMP's default). staging:
// pinned host memory kept by the caller from call to call (grown when a layered graph needs more;
// null: the engine's own), for the layered level 0's copy.
std::unique_ptr<LeidenEngine> make_leiden_engine(int device, const LeidenLevelZero& z, const kernels::SyncTerms& terms,
                                                 int64_t memory_limit, int threads, PinnedBuffer* staging);

}  // namespace cuda
}  // namespace fc
