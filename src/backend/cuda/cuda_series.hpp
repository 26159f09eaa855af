// How the CUDA backend stores normalized series (a fc::SeriesStorage), shared by the backend and
// the window code that creates storages of its own (cuda_window.cpp).
#pragma once

#include <cstdint>

#include "backend/backend.hpp"
#include "backend/cuda/cuda_resources.hpp"

namespace fc {
namespace cuda {

class CudaSeries : public SeriesStorage {
 public:
  int64_t n = 0, t = 0;
  bool f64 = false;
  DeviceBuffer rows;               // n x t, row-major: series s at rows + s * t
  mutable DeviceBuffer constant;   // n flags, uploaded on the first computation that needs them
  mutable bool constant_ready = false;
  mutable DeviceBuffer kmajor;     // the k-major copy the products read (gemm.hpp), made on first use
  mutable bool kmajor_ready = false;
};

inline const CudaSeries& storage_of(const SeriesView& s) { return static_cast<const CudaSeries&>(*s.storage); }

}  // namespace cuda
}  // namespace fc
