// The windows capability of a backend: sliding windows made from stored series, and the Gram
// matrix and projections of the low-rank factors (cpu/cpu_window.cpp, cuda/cuda_window.cpp).
#pragma once

#include <cstdint>
#include <memory>

#include "backend/series_storage.hpp"
#include "base/run_settings.hpp"

namespace fc {

class WindowBackend {
 public:
  virtual ~WindowBackend() = default;

  // --- windows and low rank (src/pcc/window.cpp and src/dfc/lowrank.cpp drive these;
  // cpu/cpu_window.cpp, cuda/cuda_window.cpp implement them).

  // A new storage of s.n rows of `length` samples in s.precision: for each row x of s's
  // normalized rows, y = x[begin .. begin + length), m = sum(w y) / sum(w), and the stored row is
  // sqrt(w) (y - m) / ||sqrt(w) (y - m)||, computed in float64 (weights: `length` values > 0, or
  // null for all 1). Rows whose window holds equal values (compared exactly, as stored) are
  // stored as zeros and flagged: constant[i] = 1, else 0 (s.n entries, written by the backend).
  // The results must not depend on the thread count (same bits run to run).
  virtual std::unique_ptr<SeriesStorage> create_window(const SeriesView& s, int64_t begin, int64_t length,
                                                       const double* weights, uint8_t* constant,
                                                       const RunSettings& run) = 0;

  // gram (s.t x s.t, row-major, float64) = Z^T Z, Z the n x t normalized rows, summed in float64.
  virtual void gram(const SeriesView& s, double* gram, const RunSettings& run) = 0;

  // factor (s.n x l, row-major, float) = Z * basis, basis t x l row-major float64; the products
  // summed in float64, then rounded.
  virtual void project(const SeriesView& s, const double* basis, int64_t l, float* factor, const RunSettings& run) = 0;
};

}  // namespace fc
