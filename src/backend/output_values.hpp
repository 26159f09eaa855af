// The value types an Output may hold (series_storage.hpp's ScalarType) as C++ types, their sizes,
// and the constant policy's value in each: shared by the CPU writer and the CUDA launchers, so
// that a pair with a constant series has the same bits in every format on both backends.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>

#include "backend/series_storage.hpp"
#include "fastconn/fastconn.h"
#include "kernels/compact_values.cuh"

namespace fc {

inline size_t value_bytes(ScalarType type) {
  switch (type) {
    case ScalarType::F64: return 8;
    case ScalarType::I16:
    case ScalarType::F16: return 2;
    default: return 4;
  }
}

// The value of a pair with a constant series (NaN, or 0 under FC_CONSTANT_ZERO) as type O: for the
// compact types its code (kernels/compact_values.cuh).
template <class O>
O policy_value(fc_constant_policy policy) {
  return kernels::Encode<O>::of(policy == FC_CONSTANT_ZERO ? 0.0 : std::numeric_limits<double>::quiet_NaN());
}

// f(O()) with O the C++ type of `type`: float, double, int16_t (FC_VALUES_INT16 codes) or
// uint16_t (FC_VALUES_HALF bits).
template <class F>
void with_value_type(ScalarType type, F&& f) {
  switch (type) {
    case ScalarType::F32: f(float()); return;
    case ScalarType::F64: f(double()); return;
    case ScalarType::I16: f(int16_t()); return;
    case ScalarType::F16: f(uint16_t()); return;
  }
}

}  // namespace fc
