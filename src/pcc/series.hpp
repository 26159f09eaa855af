// The state behind an fc_series: shape, which series are constant, and the backend's storage of
// the normalized rows.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "backend/backend.hpp"
#include "context/context.hpp"

namespace fc {

struct SeriesData {
  std::shared_ptr<Backend> backend;  // keeps the backend alive as long as the series
  int64_t n = 0;
  int64_t t = 0;
  fc_precision precision = FC_PRECISION_FP32;
  bool ranked = false;            // stores ranks (fc_series_create_ranked_*): its r are Spearman's rho
  std::vector<uint8_t> constant;  // 1 where the series has zero variance
  int64_t n_constant = 0;
  std::unique_ptr<SeriesStorage> storage;

  SeriesView view() const {
    SeriesView v;
    v.n = n;
    v.t = t;
    v.precision = precision;
    v.constant = &constant;
    v.n_constant = n_constant;
    v.storage = storage.get();
    return v;
  }
};

// Validates the shape and strides, checks every value is finite (FC_ERR_NONFINITE_INPUT names
// the first bad series and time point), normalizes in float64 and stores the rows in the
// context's backend and precision. Nothing is created when any check fails. ranked: each series
// is replaced by its average ranks first (Spearman's rho; fc_series_create_ranked_*).
template <class T>
std::shared_ptr<SeriesData> create_series(const ContextState& ctx, const T* data, int64_t n_series, int64_t n_time,
                                          int64_t series_stride, int64_t time_stride, bool ranked = false);

// Throws FC_ERR_INVALID_ARG unless the series was created by a context on this same backend.
void require_same_backend(const ContextState& ctx, const SeriesData& s, const char* argument);

}  // namespace fc
