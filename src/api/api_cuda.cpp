// extern "C" entry points of fastconn_cuda.h: the caller's stream and device-pointer outputs.
// Built with the CUDA backend; needs no CUDA header (the backend holds the stream).
#include "api/api_guard.hpp"
#include "api/context_use.hpp"
#include "backend/cuda/cuda_backend.hpp"
#include "api/handles.hpp"
#include "fastconn/fastconn_cuda.h"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

namespace {

// ctx and series must be non-NULL, belong together, and run on the CUDA backend.
void require_cuda_pair(const fc_context* ctx, const fc_series* series, const char* name) {
  fc::require_not_null(ctx, "ctx");
  fc::require_not_null(series, name);
  fc::cuda_device(*ctx->state->backend);  // throws FC_ERR_INVALID_ARG unless CUDA
  fc::require_same_backend(*ctx->state, *series->data, name);
}

fc::Output device_output(void* data, fc::ScalarType type) {
  fc::Output out;
  out.data = data;
  out.type = type;
  out.on_device = true;
  return out;
}

}  // namespace

extern "C" {

FC_API fc_status fc_context_create_cuda_devices(const int* devices, int n_devices, fc_context** out) {
  return fc::api_guard(__func__, [&] {
    fc::require_not_null(out, "out");
    auto ctx = std::make_unique<fc_context>();
    ctx->state = fc::create_context_cuda_devices(devices, n_devices);
    *out = ctx.release();
    return FC_OK;
  });
}

FC_API fc_status fc_context_get_cuda_devices(const fc_context* ctx, int* devices, int capacity, int* n_devices) {
  return fc::api_guard(__func__, [&] {
    fc::require_not_null(ctx, "ctx");
    fc::require_not_null(n_devices, "n_devices");
    if (capacity < 0) fc::fail(FC_ERR_INVALID_ARG, "capacity is " + std::to_string(capacity) + "; use >= 0");
    const std::vector<int> ids = fc::cuda_devices(*ctx->state->backend);
    const int count = static_cast<int>(ids.size());
    *n_devices = count;
    if (capacity < count)
      fc::fail(FC_ERR_BUFFER_TOO_SMALL, "capacity " + std::to_string(capacity) + " is smaller than the context's " +
                                            std::to_string(count) + " devices (n_devices now holds the count)");
    fc::require_not_null(devices, "devices");
    std::copy(ids.begin(), ids.end(), devices);
    return FC_OK;
  });
}

FC_API fc_status fc_context_set_cuda_stream(fc_context* ctx, struct CUstream_st* stream) {
  return fc::api_guard(__func__, [&] {
    fc::require_not_null(ctx, "ctx");
    const fc::ContextUse use(*ctx->state);
    fc::cuda_set_stream(*ctx->state->backend, stream);
    return FC_OK;
  });
}

FC_API fc_status fc_context_get_cuda_stream(const fc_context* ctx, struct CUstream_st** out) {
  return fc::api_guard(__func__, [&] {
    fc::require_not_null(ctx, "ctx");
    fc::require_not_null(out, "out");
    *out = fc::cuda_get_stream(*ctx->state->backend);
    return FC_OK;
  });
}

FC_API fc_status fc_context_get_cuda_device(const fc_context* ctx, int* out) {
  return fc::api_guard(__func__, [&] {
    fc::require_not_null(ctx, "ctx");
    fc::require_not_null(out, "out");
    *out = fc::cuda_device(*ctx->state->backend);
    return FC_OK;
  });
}

FC_API fc_status fc_pcc_triu_device(fc_context* ctx, const fc_series* series, fc_triu_order order, float* out,
                                    int64_t capacity) {
  return fc::api_guard(__func__, [&] {
    fc::require_order(order);  // first, so that an out-of-range value is named on any backend
    require_cuda_pair(ctx, series, "series");
    const fc::ContextUse use(*ctx->state);
    fc::pcc_triu(*ctx->state, *series->data, order, device_output(out, fc::ScalarType::F32), capacity);
    return FC_OK;
  });
}

FC_API fc_status fc_pcc_triu_device_f64(fc_context* ctx, const fc_series* series, fc_triu_order order, double* out,
                                        int64_t capacity) {
  return fc::api_guard(__func__, [&] {
    fc::require_order(order);  // first, so that an out-of-range value is named on any backend
    require_cuda_pair(ctx, series, "series");
    const fc::ContextUse use(*ctx->state);
    fc::pcc_triu(*ctx->state, *series->data, order, device_output(out, fc::ScalarType::F64), capacity);
    return FC_OK;
  });
}

FC_API fc_status fc_pcc_dense_device(fc_context* ctx, const fc_series* series, float* out, int64_t ld) {
  return fc::api_guard(__func__, [&] {
    require_cuda_pair(ctx, series, "series");
    const fc::ContextUse use(*ctx->state);
    fc::pcc_cross(*ctx->state, *series->data, *series->data, true, device_output(out, fc::ScalarType::F32), ld);
    return FC_OK;
  });
}

FC_API fc_status fc_pcc_cross_device(fc_context* ctx, const fc_series* a, const fc_series* b, float* out, int64_t ld) {
  return fc::api_guard(__func__, [&] {
    require_cuda_pair(ctx, a, "a");
    require_cuda_pair(ctx, b, "b");
    const fc::ContextUse use(*ctx->state);
    fc::pcc_cross(*ctx->state, *a->data, *b->data, false, device_output(out, fc::ScalarType::F32), ld);
    return FC_OK;
  });
}

}  // extern "C"
