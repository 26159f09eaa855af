// extern "C" entry point of lFCD, local functional connectivity density (src/lfcd).
#include "api/api_checks.hpp"
#include "api/api_guard.hpp"
#include "api/context_use.hpp"
#include "api/handles.hpp"
#include "lfcd/lfcd.hpp"

extern "C" {

FC_API fc_status fc_pcc_lfcd(fc_context* ctx, const fc_series* series, const int32_t* coords, const int64_t* dims,
                             int neighbourhood, fc_edge_rule rule, double threshold, int64_t* lfcd) {
  return fc::api_guard(__func__, [&] {
    fc::require_pair(ctx, series);
    const fc::ContextUse use(*ctx->state);
    fc::pcc_lfcd(*ctx->state, *series->data, coords, dims, neighbourhood, rule, threshold, lfcd);
    return FC_OK;
  });
}

}  // extern "C"
