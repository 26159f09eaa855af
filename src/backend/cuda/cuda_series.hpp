// How the CUDA backend stores normalized series (a fc::SeriesStorage), shared by the backend and
// the window code that creates storages of its own (cuda_window.cpp).
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "backend/backend.hpp"
#include "backend/cuda/cuda_resources.hpp"

namespace fc {
namespace cuda {

// The device buffers of window storages, kept for the next windows. A sliding-window loop makes
// and drops a window's storage every step, and a cudaMalloc or cudaFree is a point where the
// device's streams synchronize (cudaFree waits for all of them): fc_dfc_lowrank's 108 windows went
// from 0.185 to 0.161 s on the H100 with these kept (bench/RESULTS-gpu.md). Shared by a backend
// and the window storages it made (the last of them frees it). Thread-safe.
class SeriesBufferPool {
 public:
  struct Buffers {
    DeviceBuffer rows, constant, kmajor;
  };
  SeriesBufferPool() { kept_.reserve(kKept); }
  // A kept set whose rows hold exactly `rows_bytes` and whose flags hold at least
  // `constant_bytes` (windows of one shape come back to the same sizes), or empty buffers.
  Buffers take(size_t rows_bytes, size_t constant_bytes) {
    std::lock_guard<std::mutex> lock(mutex_);
    for (size_t i = 0; i < kept_.size(); ++i) {
      if (kept_[i].rows.bytes() != rows_bytes || kept_[i].constant.bytes() < constant_bytes) continue;
      Buffers b = std::move(kept_[i]);
      kept_[i] = std::move(kept_.back());
      kept_.pop_back();
      return b;
    }
    return Buffers();
  }
  // Keeps `b` unless kKept sets are kept already (then it is freed here).
  void give(Buffers&& b) noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    if (kept_.size() < kKept) kept_.push_back(std::move(b));  // reserved: no allocation
  }

 private:
  static constexpr size_t kKept = 4;
  std::mutex mutex_;
  std::vector<Buffers> kept_;
};

class CudaSeries : public SeriesStorage {
 public:
  ~CudaSeries() override {
    if (pool) pool->give(SeriesBufferPool::Buffers{std::move(rows), std::move(constant), std::move(kmajor)});
  }
  int64_t n = 0, t = 0;
  bool f64 = false;
  DeviceBuffer rows;               // n x t, row-major: series s at rows + s * t
  mutable DeviceBuffer constant;   // n flags, uploaded on the first computation that needs them
  mutable bool constant_ready = false;
  mutable DeviceBuffer kmajor;     // the k-major copy the products read (gemm.hpp), made on first use
  mutable bool kmajor_ready = false;
  std::shared_ptr<SeriesBufferPool> pool;  // a window's: its buffers go back there
};

inline const CudaSeries& storage_of(const SeriesView& s) { return static_cast<const CudaSeries&>(*s.storage); }

}  // namespace cuda
}  // namespace fc
