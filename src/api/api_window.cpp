// extern "C" entry points for windows as series (fc_series_window and the window arithmetic)
// and the low-rank factor of any series set.
#include <string>

#include "api/api_checks.hpp"
#include "api/api_guard.hpp"
#include "api/context_use.hpp"
#include "api/handles.hpp"
#include "dfc/lowrank.hpp"
#include "pcc/window.hpp"

extern "C" {

FC_API int64_t fc_window_count(int64_t n_time, int64_t length, int64_t step) { return fc::window_count(n_time, length, step); }

FC_API int64_t fc_window_begin(int64_t n_time, int64_t length, int64_t step, int64_t index) {
  return fc::window_begin(n_time, length, step, index);
}

FC_API fc_status fc_series_window(fc_context* ctx, const fc_series* series, int64_t begin, int64_t length, int taper,
                                  double sigma, fc_series** out) {
  return fc::api_guard(__func__, [&] {
    fc::require_pair(ctx, series);
    fc::require_not_null(out, "out");
    const fc::ContextUse use(*ctx->state);
    auto window = std::make_unique<fc_series>();
    window->data = fc::create_window_series(*ctx->state, series->data, begin, length, taper, sigma);
    *out = window.release();
    return FC_OK;
  });
}

FC_API fc_status fc_pcc_lowrank(fc_context* ctx, const fc_series* series, int64_t rank, float* factor, int64_t capacity,
                                double* rel_error) {
  return fc::api_guard(__func__, [&] {
    fc::require_pair(ctx, series);
    const fc::ContextUse use(*ctx->state);
    const fc::SeriesData& s = *series->data;
    fc::require_rank(rank, s.t);
    fc::require_not_null(factor, "factor");
    int64_t needed = 0;
    if (__builtin_mul_overflow(s.n, rank, &needed) || capacity < needed)
      fc::fail(FC_ERR_BUFFER_TOO_SMALL, "capacity " + std::to_string(capacity) + " is smaller than the " + std::to_string(s.n) +
                                            " series x rank " + std::to_string(rank) + " values of the factor");
    fc::pcc_lowrank(*ctx->state, s, rank, factor, rel_error);
    return FC_OK;
  });
}

}  // extern "C"
