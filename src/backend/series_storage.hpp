// What every backend capability works on: normalized series as a backend stores them, and
// where results go.
#pragma once

#include <cstdint>
#include <vector>

#include "fastconn/fastconn.h"

namespace fc {

// Normalized series as a backend stores them: row s holds z_s = (x_s - mean_s) / ||x_s - mean_s||
// (all zeros for a constant series), so that r(a, b) = <z_a, z_b>.
class SeriesStorage {
 public:
  virtual ~SeriesStorage() = default;
};

// What a backend needs to know about a series set besides its storage.
struct SeriesView {
  int64_t n = 0;                        // number of series
  int64_t t = 0;                        // samples per series
  fc_precision precision = FC_PRECISION_FP32;  // precision the storage was created in
  const std::vector<uint8_t>* constant = nullptr;  // constant[s] != 0: series s has zero variance
  int64_t n_constant = 0;
  const SeriesStorage* storage = nullptr;
};

// F32 / F64: float / double values; I16 and F16: the 2-byte codes of FC_VALUES_INT16 and
// FC_VALUES_HALF (output_values.hpp, kernels/compact_values.cuh).
enum class ScalarType { F32, F64, I16, F16 };

// Where results go: host memory the caller owns (typed), or device memory (CUDA backend only).
struct Output {
  void* data = nullptr;
  ScalarType type = ScalarType::F32;
  bool on_device = false;
};

}  // namespace fc
