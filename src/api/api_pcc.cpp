// extern "C" entry points for the triangle arithmetic and the full-array PCC calls.
#include "api/api_checks.hpp"
#include "api/api_guard.hpp"
#include "api/context_use.hpp"
#include "api/handles.hpp"
#include "base/triangle_index.hpp"
#include "kernels/compact_values.cuh"

namespace {

fc::Output host_output(void* data, fc::ScalarType type) {
  fc::Output out;
  out.data = data;
  out.type = type;
  return out;
}

// fc_decode_values(_f64): each code's value (computed in double, then rounded once to O).
template <class O>
void decode_values(const fc_value_format& format, const void* codes, int64_t count, O* out) {
  const fc::ScalarType type = fc::compact_type(format);
  fc::require_not_null(codes, "codes");
  fc::require_not_null(out, "out");
  if (count < 0) fc::fail(FC_ERR_INVALID_ARG, "count " + std::to_string(count) + " is negative");
  if (type == fc::ScalarType::I16) {
    const int16_t* in = static_cast<const int16_t*>(codes);
    for (int64_t x = 0; x < count; ++x) out[x] = static_cast<O>(fc::kernels::decode_int16(in[x]));
  } else {
    const uint16_t* in = static_cast<const uint16_t*>(codes);
    for (int64_t x = 0; x < count; ++x) out[x] = static_cast<O>(fc::kernels::decode_half(in[x]));
  }
}

}  // namespace

extern "C" {

FC_API int64_t fc_triu_size(int64_t n_series) {
  if (n_series < 0 || n_series > fc::kMaxTriangleSeries) return -1;
  return fc::triu_count(n_series);
}

FC_API int64_t fc_triu_offset(int64_t n, fc_triu_order order, int64_t i, int64_t j) {
  if (n < 2 || n > fc::kMaxTriangleSeries || i < 0 || j < 0 || i >= n || j >= n || i == j) return -1;
  const int o = fc::raw_enum(order);
  if (o != FC_TRIU_ROW && o != FC_TRIU_COL) return -1;
  if (i > j) std::swap(i, j);
  return order == FC_TRIU_ROW ? fc::row_offset(n, i, j) : fc::col_offset(i, j);
}

FC_API fc_status fc_triu_pair(int64_t n, fc_triu_order order, int64_t offset, int64_t* i, int64_t* j) {
  return fc::api_guard(__func__, [&] {
    fc::require_not_null(i, "i");
    fc::require_not_null(j, "j");
    fc::require_order(order);
    if (n < 2 || n > fc::kMaxTriangleSeries)
      fc::fail(FC_ERR_INVALID_ARG, "n_series " + std::to_string(n) + " has no pairs or is too large");
    if (offset < 0 || offset >= fc::triu_count(n))
      fc::fail(FC_ERR_INVALID_ARG, "offset " + std::to_string(offset) + " is outside [0, " + std::to_string(fc::triu_count(n)) + ")");
    if (order == FC_TRIU_ROW) {
      const int64_t row = fc::row_of_offset(n, offset);
      *i = row;
      *j = offset - fc::row_start(n, row) + row + 1;
    } else {
      const int64_t col = fc::col_of_offset(offset);
      *i = offset - fc::col_start(col);
      *j = col;
    }
    return FC_OK;
  });
}

FC_API fc_status fc_pcc_triu(fc_context* ctx, const fc_series* series, fc_triu_order order, float* out, int64_t capacity) {
  return fc::api_guard(__func__, [&] {
    fc::require_pair(ctx, series, "series");
    const fc::ContextUse use(*ctx->state);
    fc::pcc_triu(*ctx->state, *series->data, order, host_output(out, fc::ScalarType::F32), capacity);
    return FC_OK;
  });
}

FC_API fc_status fc_pcc_triu_f64(fc_context* ctx, const fc_series* series, fc_triu_order order, double* out,
                                 int64_t capacity) {
  return fc::api_guard(__func__, [&] {
    fc::require_pair(ctx, series, "series");
    const fc::ContextUse use(*ctx->state);
    fc::pcc_triu(*ctx->state, *series->data, order, host_output(out, fc::ScalarType::F64), capacity);
    return FC_OK;
  });
}

FC_API fc_status fc_pcc_dense(fc_context* ctx, const fc_series* series, float* out, int64_t ld) {
  return fc::api_guard(__func__, [&] {
    fc::require_pair(ctx, series, "series");
    const fc::ContextUse use(*ctx->state);
    fc::pcc_cross(*ctx->state, *series->data, *series->data, true, host_output(out, fc::ScalarType::F32), ld);
    return FC_OK;
  });
}

FC_API fc_status fc_pcc_dense_f64(fc_context* ctx, const fc_series* series, double* out, int64_t ld) {
  return fc::api_guard(__func__, [&] {
    fc::require_pair(ctx, series, "series");
    const fc::ContextUse use(*ctx->state);
    fc::pcc_cross(*ctx->state, *series->data, *series->data, true, host_output(out, fc::ScalarType::F64), ld);
    return FC_OK;
  });
}

FC_API fc_status fc_pcc_cross(fc_context* ctx, const fc_series* a, const fc_series* b, float* out, int64_t ld) {
  return fc::api_guard(__func__, [&] {
    fc::require_pair(ctx, a, "a");
    fc::require_pair(ctx, b, "b");
    const fc::ContextUse use(*ctx->state);
    // r(s, s) is fc_pcc_dense's matrix: the same symmetric values (BLAS kernels are not
    // symmetric, so the product of a series set with itself is computed as one, see cpu_backend.cpp).
    const bool same_set = a->data == b->data;
    fc::pcc_cross(*ctx->state, *a->data, *b->data, same_set, host_output(out, fc::ScalarType::F32), ld);
    return FC_OK;
  });
}

FC_API fc_status fc_pcc_cross_f64(fc_context* ctx, const fc_series* a, const fc_series* b, double* out, int64_t ld) {
  return fc::api_guard(__func__, [&] {
    fc::require_pair(ctx, a, "a");
    fc::require_pair(ctx, b, "b");
    const fc::ContextUse use(*ctx->state);
    fc::pcc_cross(*ctx->state, *a->data, *b->data, a->data == b->data, host_output(out, fc::ScalarType::F64), ld);
    return FC_OK;
  });
}

FC_API fc_status fc_pcc_triu_compact(fc_context* ctx, const fc_series* series, fc_triu_order order, fc_value_format format,
                                     void* out, int64_t capacity) {
  return fc::api_guard(__func__, [&] {
    const fc::ScalarType type = fc::compact_type(format);
    fc::require_pair(ctx, series, "series");
    const fc::ContextUse use(*ctx->state);
    fc::pcc_triu(*ctx->state, *series->data, order, host_output(out, type), capacity);
    return FC_OK;
  });
}

FC_API fc_status fc_pcc_dense_compact(fc_context* ctx, const fc_series* series, fc_value_format format, void* out,
                                      int64_t ld) {
  return fc::api_guard(__func__, [&] {
    const fc::ScalarType type = fc::compact_type(format);
    fc::require_pair(ctx, series, "series");
    const fc::ContextUse use(*ctx->state);
    fc::pcc_cross(*ctx->state, *series->data, *series->data, true, host_output(out, type), ld);
    return FC_OK;
  });
}

FC_API fc_status fc_decode_values(fc_value_format format, const void* codes, int64_t count, float* out) {
  return fc::api_guard(__func__, [&] {
    decode_values(format, codes, count, out);
    return FC_OK;
  });
}

FC_API fc_status fc_decode_values_f64(fc_value_format format, const void* codes, int64_t count, double* out) {
  return fc::api_guard(__func__, [&] {
    decode_values(format, codes, count, out);
    return FC_OK;
  });
}

}  // extern "C"
