// extern "C" entry points of centrality and rank correlation: fast ECM, thresholded ECM (a graph,
// then its centrality), the eigenvector centrality of a graph, and Fisher's z (the ranked series
// are created in api_series.cpp).
#include "api/api_checks.hpp"
#include "api/api_guard.hpp"
#include "api/context_use.hpp"
#include "api/handles.hpp"
#include "centrality/centrality.hpp"
#include "pcc/fisher_z.hpp"

extern "C" {

FC_API fc_status fc_pcc_ecm(fc_context* ctx, const fc_series* series, double tolerance, double* centrality,
                            int64_t capacity, double* eigenvalue) {
  return fc::api_guard(__func__, [&] {
    fc::require_pair(ctx, series);
    const fc::ContextUse use(*ctx->state);
    fc::fast_ecm(*ctx->state, *series->data, tolerance, centrality, capacity, eigenvalue);
    return FC_OK;
  });
}

FC_API fc_status fc_pcc_ecm_thresholded(fc_context* ctx, const fc_series* series, fc_edge_rule rule, double param,
                                        int weights, double tolerance, double* centrality, int64_t capacity,
                                        double* eigenvalue) {
  return fc::api_guard(__func__, [&] {
    fc::require_pair(ctx, series);
    const fc::ContextUse use(*ctx->state);
    fc::thresholded_ecm(*ctx->state, *series->data, rule, param, weights, tolerance, centrality, capacity, eigenvalue);
    return FC_OK;
  });
}

FC_API fc_status fc_graph_eigenvector_centrality(fc_context* ctx, const fc_graph* graph, int weighted, double tolerance,
                                                 double* centrality, int64_t capacity, double* eigenvalue) {
  return fc::api_guard(__func__, [&] {
    fc::require_not_null(ctx, "ctx");
    fc::require_not_null(graph, "graph");
    const fc::ContextUse use(*ctx->state);
    fc::graph_eigenvector_centrality(*ctx->state, *graph->data, weighted, tolerance, centrality, capacity, eigenvalue);
    return FC_OK;
  });
}

FC_API fc_status fc_fisher_z_f32(float* values, int64_t count) {
  return fc::api_guard(__func__, [&] {
    fc::fisher_z(values, count);
    return FC_OK;
  });
}

FC_API fc_status fc_fisher_z_f64(double* values, int64_t count) {
  return fc::api_guard(__func__, [&] {
    fc::fisher_z(values, count);
    return FC_OK;
  });
}

}  // extern "C"
