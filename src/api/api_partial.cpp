// extern "C" entry points of partial correlation and precision (src/partial).
#include "api/api_checks.hpp"
#include "api/api_guard.hpp"
#include "api/context_use.hpp"
#include "api/handles.hpp"
#include "partial/partial.hpp"

extern "C" {

FC_API fc_status fc_partial_correlation(fc_context* ctx, const fc_series* series, double shrinkage, int output,
                                        double* out, int64_t ld, double* shrinkage_used) {
  return fc::api_guard(__func__, [&] {
    fc::require_pair(ctx, series);
    const fc::ContextUse use(*ctx->state);
    fc::partial_dense(*ctx->state, *series->data, shrinkage, output, out, ld, shrinkage_used);
    return FC_OK;
  });
}

FC_API fc_status fc_partial_correlation_triu(fc_context* ctx, const fc_series* series, double shrinkage, int output,
                                             int order, double* out, int64_t capacity, double* shrinkage_used) {
  return fc::api_guard(__func__, [&] {
    fc::require_pair(ctx, series);
    const fc::ContextUse use(*ctx->state);
    fc::partial_triu(*ctx->state, *series->data, shrinkage, output, order, out, capacity, shrinkage_used);
    return FC_OK;
  });
}

}  // extern "C"
