// extern "C" entry points for networks: graphs built from correlations or given by the caller,
// their copy-out accessors, and degree centrality.
#include "api/api_checks.hpp"
#include "api/api_guard.hpp"
#include "api/context_use.hpp"
#include "graph/graph.hpp"
#include "graph/graph_file.hpp"
#include "api/handles.hpp"

namespace {

fc_graph* wrap(std::shared_ptr<const fc::GraphData> data) {
  auto g = std::make_unique<fc_graph>();
  g->data = std::move(data);
  return g.release();
}

}  // namespace

extern "C" {

FC_API fc_status fc_pcc_graph(fc_context* ctx, const fc_series* series, fc_edge_rule rule, double param, int weights,
                              fc_graph** out) {
  return fc::api_guard(__func__, [&] {
    fc::require_pair(ctx, series);
    const fc::ContextUse use(*ctx->state);
    fc::require_not_null(out, "out");
    *out = wrap(fc::pcc_graph(*ctx->state, *series->data, rule, param, weights));
    return FC_OK;
  });
}

FC_API fc_status fc_graph_info(const fc_graph* graph, int64_t* n_nodes, int64_t* n_edges) {
  return fc::api_guard(__func__, [&] {
    fc::require_not_null(graph, "graph");
    if (n_nodes != nullptr) *n_nodes = graph->data->n;
    if (n_edges != nullptr) *n_edges = graph->data->n_edges;
    return FC_OK;
  });
}

FC_API fc_status fc_graph_csr(const fc_graph* graph, int64_t* row_offsets, int64_t* columns, float* weights,
                              int64_t capacity) {
  return fc::api_guard(__func__, [&] {
    fc::require_not_null(graph, "graph");
    fc::graph_csr(*graph->data, row_offsets, columns, weights, capacity);
    return FC_OK;
  });
}

FC_API fc_status fc_graph_edges(const fc_graph* graph, int64_t* i, int64_t* j, float* weights, int64_t capacity) {
  return fc::api_guard(__func__, [&] {
    fc::require_not_null(graph, "graph");
    fc::graph_edges(*graph->data, i, j, weights, capacity);
    return FC_OK;
  });
}

FC_API fc_status fc_graph_create_csr(int64_t n_nodes, const int64_t* row_offsets, const int64_t* columns, const float* weights,
                                     fc_graph** out) {
  return fc::api_guard(__func__, [&] {
    fc::require_not_null(out, "out");
    *out = wrap(fc::graph_from_csr(n_nodes, row_offsets, columns, weights));
    return FC_OK;
  });
}

FC_API void fc_graph_destroy(fc_graph* graph) { delete graph; }

FC_API fc_status fc_graph_save(const fc_graph* graph, const char* path) {
  return fc::api_guard(__func__, [&] {
    fc::require_not_null(graph, "graph");
    fc::require_not_null(path, "path");
    fc::save_graph(*graph->data, path);
    return FC_OK;
  });
}

FC_API fc_status fc_graph_load(const char* path, fc_graph** out) {
  return fc::api_guard(__func__, [&] {
    fc::require_not_null(path, "path");
    fc::require_not_null(out, "out");
    *out = wrap(fc::load_graph(path));
    return FC_OK;
  });
}

FC_API fc_status fc_pcc_degree(fc_context* ctx, const fc_series* series, fc_edge_rule rule, double param, int64_t* degree,
                               double* strength) {
  return fc::api_guard(__func__, [&] {
    fc::require_pair(ctx, series);
    const fc::ContextUse use(*ctx->state);
    fc::pcc_degree(*ctx->state, *series->data, rule, param, degree, strength);
    return FC_OK;
  });
}

}  // extern "C"
