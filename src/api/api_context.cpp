// extern "C" entry points for fc_context.
#include "api/api_guard.hpp"
#include "api/context_use.hpp"
#include "api/handles.hpp"

namespace {
// Settings change only while no other thread computes with the context (the caller holds a
// ContextUse for the rest of the call).
fc::ContextState& state_of(fc_context* ctx) {
  fc::require_not_null(ctx, "ctx");
  return *ctx->state;
}
}  // namespace

extern "C" {

FC_API fc_status fc_context_create(fc_backend backend, int device, fc_context** out) {
  return fc::api_guard(__func__, [&] {
    fc::require_not_null(out, "out");
    auto ctx = std::make_unique<fc_context>();
    ctx->state = fc::create_context(backend, device);
    *out = ctx.release();
    return FC_OK;
  });
}

FC_API void fc_context_destroy(fc_context* ctx) { delete ctx; }

FC_API fc_status fc_context_get_backend(const fc_context* ctx, fc_backend* out) {
  return fc::api_guard(__func__, [&] {
    fc::require_not_null(ctx, "ctx");
    fc::require_not_null(out, "out");
    *out = ctx->state->backend->kind();
    return FC_OK;
  });
}

FC_API fc_status fc_context_set_precision(fc_context* ctx, fc_precision precision) {
  return fc::api_guard(__func__, [&] {
    auto& s = state_of(ctx);
    const fc::ContextUse use(s);
    const int p = fc::raw_enum(precision);
    if (p != FC_PRECISION_FP32 && p != FC_PRECISION_FP64 && p != FC_PRECISION_TF32)
      fc::fail(FC_ERR_INVALID_ARG, "precision " + std::to_string(p) +
                                       " is not FC_PRECISION_FP32 (0), FC_PRECISION_FP64 (1) or FC_PRECISION_TF32 (2)");
    s.precision = precision;
    return FC_OK;
  });
}

FC_API fc_status fc_context_get_precision(const fc_context* ctx, fc_precision* out) {
  return fc::api_guard(__func__, [&] {
    fc::require_not_null(ctx, "ctx");
    fc::require_not_null(out, "out");
    const fc::ContextUse use(*ctx->state);
    *out = ctx->state->precision;
    return FC_OK;
  });
}

FC_API fc_status fc_context_set_constant_policy(fc_context* ctx, fc_constant_policy policy) {
  return fc::api_guard(__func__, [&] {
    auto& s = state_of(ctx);
    const fc::ContextUse use(s);
    const int p = fc::raw_enum(policy);
    if (p != FC_CONSTANT_NAN && p != FC_CONSTANT_ZERO)
      fc::fail(FC_ERR_INVALID_ARG, "constant policy " + std::to_string(p) +
                                       " is not FC_CONSTANT_NAN (0) or FC_CONSTANT_ZERO (1)");
    s.constant_policy = policy;
    return FC_OK;
  });
}

FC_API fc_status fc_context_set_memory_limit(fc_context* ctx, int64_t bytes) {
  return fc::api_guard(__func__, [&] {
    auto& s = state_of(ctx);
    const fc::ContextUse use(s);
    if (bytes < 0) fc::fail(FC_ERR_INVALID_ARG, "memory limit " + std::to_string(bytes) + " is negative (0 = automatic)");
    s.memory_limit = bytes;
    return FC_OK;
  });
}

FC_API fc_status fc_context_set_threads(fc_context* ctx, int n) {
  return fc::api_guard(__func__, [&] {
    auto& s = state_of(ctx);
    const fc::ContextUse use(s);
    if (n < 0) fc::fail(FC_ERR_INVALID_ARG, "thread count " + std::to_string(n) + " is negative (0 = all cores)");
    s.threads = n;
    return FC_OK;
  });
}

FC_API fc_status fc_context_set_progress(fc_context* ctx, fc_progress_fn fn, void* user) {
  return fc::api_guard(__func__, [&] {
    auto& s = state_of(ctx);
    const fc::ContextUse use(s);
    s.progress_fn = fn;
    s.progress_user = user;
    return FC_OK;
  });
}

}  // extern "C"
