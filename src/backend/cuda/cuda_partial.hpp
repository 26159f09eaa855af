// The CUDA backend's partial-correlation state (cuda_partial.cpp): a cuSOLVER handle and the
// device buffers, kept between calls (a handle costs milliseconds to make, a cudaMalloc
// synchronizes the device).
#pragma once

#include <cusolverDn.h>

#include "backend/cuda/cuda_resources.hpp"

namespace fc {
namespace cuda {

struct PartialScratch {
  PartialScratch() = default;
  ~PartialScratch() {
    if (solver != nullptr) cusolverDnDestroy(solver);
  }
  PartialScratch(const PartialScratch&) = delete;
  PartialScratch& operator=(const PartialScratch&) = delete;

  cusolverDnHandle_t solver = nullptr;  // made on first use
  // The n x n matrix, float rows widened to double, cuSOLVER's workspace, the sums' scratch
  // (samples' squares, blocks' partials, the three sums), the diagonal's roots, devInfo.
  DeviceBuffer matrix, wide, work, squares, partials, sums, root, info;
};

}  // namespace cuda
}  // namespace fc
