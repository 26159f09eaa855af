// Argument checks shared by the extern "C" entry points.
#pragma once

#include <cstdint>
#include <string>

#include "base/error.hpp"
#include "api/handles.hpp"
#include "backend/series_storage.hpp"
#include "pcc/series.hpp"

namespace fc {

// ctx and series must be non-NULL and belong together (series named `name` in the message).
inline void require_pair(const fc_context* ctx, const fc_series* series, const char* name = "series") {
  require_not_null(ctx, "ctx");
  require_not_null(series, name);
  require_same_backend(*ctx->state, *series->data, name);
}

// A caller's buffer of `capacity` elements must hold `needed` of them (`what` names them).
inline void require_capacity(int64_t capacity, int64_t needed, const char* what) {
  if (capacity < needed)
    fail(FC_ERR_BUFFER_TOO_SMALL, "capacity " + std::to_string(capacity) + " is smaller than the " +
                                      std::to_string(needed) + " " + what);
}

// The output type of a compact value format; FC_ERR_INVALID_ARG names any other value (read as
// its raw int before it is used as the enum).
inline ScalarType compact_type(const fc_value_format& format) {
  const int f = raw_enum(format);
  if (f == FC_VALUES_INT16) return ScalarType::I16;
  if (f == FC_VALUES_HALF) return ScalarType::F16;
  fail(FC_ERR_INVALID_ARG, "format " + std::to_string(f) + " is not FC_VALUES_INT16 (1) or FC_VALUES_HALF (2)");
}

}  // namespace fc
