// extern "C" entry points for fc_series.
#include "api/api_guard.hpp"
#include "api/context_use.hpp"
#include "api/handles.hpp"

namespace {
template <class T>
fc_status create(const char* function, fc_context* ctx, const T* data, int64_t n, int64_t t, int64_t ss, int64_t ts,
                 fc_series** out, bool ranked = false) {
  return fc::api_guard(function, [&] {
    fc::require_not_null(ctx, "ctx");
    fc::require_not_null(out, "out");
    const fc::ContextUse use(*ctx->state);
    auto series = std::make_unique<fc_series>();
    series->data = fc::create_series(*ctx->state, data, n, t, ss, ts, ranked);
    *out = series.release();
    return FC_OK;
  });
}
}  // namespace

extern "C" {

FC_API fc_status fc_series_create_f32(fc_context* ctx, const float* data, int64_t n_series, int64_t n_time,
                                      int64_t series_stride, int64_t time_stride, fc_series** out) {
  return create(__func__, ctx, data, n_series, n_time, series_stride, time_stride, out);
}

FC_API fc_status fc_series_create_f64(fc_context* ctx, const double* data, int64_t n_series, int64_t n_time,
                                      int64_t series_stride, int64_t time_stride, fc_series** out) {
  return create(__func__, ctx, data, n_series, n_time, series_stride, time_stride, out);
}

FC_API fc_status fc_series_create_ranked_f32(fc_context* ctx, const float* data, int64_t n_series, int64_t n_time,
                                             int64_t series_stride, int64_t time_stride, fc_series** out) {
  return create(__func__, ctx, data, n_series, n_time, series_stride, time_stride, out, true);
}

FC_API fc_status fc_series_create_ranked_f64(fc_context* ctx, const double* data, int64_t n_series, int64_t n_time,
                                             int64_t series_stride, int64_t time_stride, fc_series** out) {
  return create(__func__, ctx, data, n_series, n_time, series_stride, time_stride, out, true);
}

FC_API void fc_series_destroy(fc_series* series) { delete series; }

FC_API fc_status fc_series_info(const fc_series* series, int64_t* n_series, int64_t* n_time, int64_t* n_constant) {
  return fc::api_guard(__func__, [&] {
    fc::require_not_null(series, "series");
    if (n_series) *n_series = series->data->n;
    if (n_time) *n_time = series->data->t;
    if (n_constant) *n_constant = series->data->n_constant;
    return FC_OK;
  });
}

FC_API fc_status fc_series_is_constant(const fc_series* series, int64_t index, int* out) {
  return fc::api_guard(__func__, [&] {
    fc::require_not_null(series, "series");
    fc::require_not_null(out, "out");
    const int64_t n = series->data->n;
    if (index < 0 || index >= n)
      fc::fail(FC_ERR_INVALID_ARG, "index " + std::to_string(index) + " is outside [0, " + std::to_string(n) + ")");
    *out = series->data->constant[static_cast<size_t>(index)] ? 1 : 0;
    return FC_OK;
  });
}

}  // extern "C"
