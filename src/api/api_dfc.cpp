// extern "C" entry points for dynamic connectivity over all windows: the full-array triangles,
// the pull iterator (triangles in row blocks, graphs) and its callback twin built on it, degree,
// fast ECM, summaries and low-rank factors.
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "api/api_checks.hpp"
#include "api/api_guard.hpp"
#include "api/context_use.hpp"
#include "dfc/dfc.hpp"
#include "api/handles.hpp"
#include "base/triangle_index.hpp"

namespace {

// ctx and series present and of one backend; the window spec checked against the series.
fc::WindowSpec checked_spec(const fc_context* ctx, const fc_series* series, int64_t length, int64_t step, int taper,
                            double sigma) {
  fc::require_pair(ctx, series);
  return fc::WindowSpec(series->data->t, length, step, taper, sigma);
}

}  // namespace

extern "C" {

FC_API fc_status fc_dfc_triu(fc_context* ctx, const fc_series* series, int64_t length, int64_t step, int taper, double sigma,
                             fc_triu_order order, float* out, int64_t capacity) {
  return fc::api_guard(__func__, [&] {
    const fc::WindowSpec spec = checked_spec(ctx, series, length, step, taper, sigma);
    const fc::ContextUse use(*ctx->state);
    fc::Output all;
    all.data = out;
    fc::dfc_triu(*ctx->state, series->data, spec, order, all, capacity);
    return FC_OK;
  });
}

FC_API fc_status fc_dfc_triu_compact(fc_context* ctx, const fc_series* series, int64_t length, int64_t step, int taper,
                                     double sigma, fc_triu_order order, fc_value_format format, void* out,
                                     int64_t capacity) {
  return fc::api_guard(__func__, [&] {
    const fc::ScalarType type = fc::compact_type(format);
    const fc::WindowSpec spec = checked_spec(ctx, series, length, step, taper, sigma);
    const fc::ContextUse use(*ctx->state);
    fc::Output all;
    all.data = out;
    all.type = type;
    fc::dfc_triu(*ctx->state, series->data, spec, order, all, capacity);
    return FC_OK;
  });
}

FC_API fc_status fc_dfc_begin(fc_context* ctx, const fc_series* series, int64_t length, int64_t step, int taper, double sigma,
                              fc_dfc** out) {
  return fc::api_guard(__func__, [&] {
    const fc::WindowSpec spec = checked_spec(ctx, series, length, step, taper, sigma);
    fc::require_not_null(out, "out");
    const fc::ContextUse use(*ctx->state);
    auto dfc = std::make_unique<fc_dfc>();
    dfc->iterator = std::make_unique<fc::DfcIterator>(ctx->state, series->data, spec);
    *out = dfc.release();
    return FC_OK;
  });
}

FC_API fc_status fc_dfc_info(const fc_dfc* dfc, int64_t* n_windows, int64_t* n_series, int64_t* length) {
  return fc::api_guard(__func__, [&] {
    fc::require_not_null(dfc, "dfc");
    if (n_windows != nullptr) *n_windows = dfc->iterator->windows();
    if (n_series != nullptr) *n_series = dfc->iterator->n();
    if (length != nullptr) *length = dfc->iterator->length();
    return FC_OK;
  });
}

FC_API fc_status fc_dfc_window(const fc_dfc* dfc, int64_t index, fc_series** out) {
  return fc::api_guard(__func__, [&] {
    fc::require_not_null(dfc, "dfc");
    fc::require_not_null(out, "out");
    const fc::ContextUse use(dfc->iterator->context());
    auto window = std::make_unique<fc_series>();
    window->data = dfc->iterator->window(index);
    *out = window.release();
    return FC_OK;
  });
}

FC_API fc_status fc_dfc_next_triu(fc_dfc* dfc, float* buf, int64_t capacity, fc_dfc_block_info* info) {
  return fc::api_guard(__func__, [&] {
    fc::require_not_null(dfc, "dfc");
    const fc::ContextUse use(dfc->iterator->context());
    return dfc->iterator->next_triu(buf, capacity, info);
  });
}

FC_API fc_status fc_dfc_next_graph(fc_dfc* dfc, fc_edge_rule rule, double param, int weights, fc_graph** out, int64_t* window) {
  return fc::api_guard(__func__, [&] {
    fc::require_not_null(dfc, "dfc");
    fc::require_not_null(out, "out");
    const fc::ContextUse use(dfc->iterator->context());
    std::shared_ptr<fc::GraphData> graph;
    const fc_status status = dfc->iterator->next_graph(rule, param, weights, &graph, window);
    if (status != FC_OK) {
      *out = nullptr;
      return status;
    }
    auto g = std::make_unique<fc_graph>();
    g->data = std::move(graph);
    *out = g.release();
    return FC_OK;
  });
}

FC_API void fc_dfc_destroy(fc_dfc* dfc) { delete dfc; }

FC_API fc_status fc_dfc_foreach_triu(fc_context* ctx, const fc_series* series, int64_t length, int64_t step, int taper,
                                     double sigma, int64_t capacity, fc_dfc_block_fn fn, void* user) {
  fc_dfc* dfc = nullptr;
  std::optional<fc::ContextUse> use;  // held from the start to the last block
  fc_status status = fc::api_guard(__func__, [&] {
    fc::require_not_null(fn, "fn");
    checked_spec(ctx, series, length, step, taper, sigma);
    use.emplace(*ctx->state);
    const int64_t n = series->data->n;
    if (capacity < 0) fc::fail(FC_ERR_INVALID_ARG, "capacity is " + std::to_string(capacity) + "; use >= N - 1, or 0 for automatic");
    if (capacity > 0 && capacity < n - 1)
      fc::fail(FC_ERR_BUFFER_TOO_SMALL, "capacity " + std::to_string(capacity) + " is smaller than one row of the triangle (N - 1 = " +
                                            std::to_string(n - 1) + " values)");
    return FC_OK;
  });
  if (status != FC_OK) return status;
  status = fc_dfc_begin(ctx, series, length, step, taper, sigma, &dfc);
  if (status != FC_OK) return status;
  return fc::api_guard(__func__, [&] {
    std::unique_ptr<fc_dfc, void (*)(fc_dfc*)> owner(dfc, fc_dfc_destroy);
    const int64_t n = series->data->n;
    const int64_t size = capacity > 0 ? std::min(capacity, fc::triu_count(n)) : fc::default_dfc_capacity(*ctx->state, n);
    std::vector<float> buf(static_cast<size_t>(std::max<int64_t>(1, size)));
    fc_dfc_block_info info;
    while (dfc->iterator->next_triu(buf.data(), size, &info) == FC_OK) {
      if (fn(&info, buf.data(), user) != 0)
        fc::fail(FC_ERR_ABORTED, "stopped by the block callback after rows [" + std::to_string(info.row_begin) + ", " +
                                     std::to_string(info.row_end) + ") of window " + std::to_string(info.window));
    }
    return FC_OK;
  });
}

FC_API fc_status fc_dfc_degree(fc_context* ctx, const fc_series* series, int64_t length, int64_t step, int taper, double sigma,
                               fc_edge_rule rule, double param, int64_t* degree, double* strength) {
  return fc::api_guard(__func__, [&] {
    const fc::WindowSpec spec = checked_spec(ctx, series, length, step, taper, sigma);
    const fc::ContextUse use(*ctx->state);
    fc::dfc_degree(*ctx->state, series->data, spec, rule, param, degree, strength);
    return FC_OK;
  });
}

FC_API fc_status fc_dfc_ecm(fc_context* ctx, const fc_series* series, int64_t length, int64_t step, int taper, double sigma,
                            double tolerance, double* centrality, int64_t capacity, double* eigenvalue) {
  return fc::api_guard(__func__, [&] {
    const fc::WindowSpec spec = checked_spec(ctx, series, length, step, taper, sigma);
    const fc::ContextUse use(*ctx->state);
    fc::dfc_ecm(*ctx->state, series->data, spec, tolerance, centrality, capacity, eigenvalue);
    return FC_OK;
  });
}

FC_API fc_status fc_dfc_summary(fc_context* ctx, const fc_series* series, int64_t length, int64_t step, int taper, double sigma,
                                fc_triu_order order, double* mean, double* sd, int64_t capacity) {
  return fc::api_guard(__func__, [&] {
    const fc::WindowSpec spec = checked_spec(ctx, series, length, step, taper, sigma);
    const fc::ContextUse use(*ctx->state);
    fc::dfc_summary(*ctx->state, series->data, spec, order, mean, sd, capacity);
    return FC_OK;
  });
}

FC_API fc_status fc_dfc_lowrank(fc_context* ctx, const fc_series* series, int64_t length, int64_t step, int taper, double sigma,
                                int64_t rank, float* factors, int64_t capacity, double* rel_error) {
  return fc::api_guard(__func__, [&] {
    const fc::WindowSpec spec = checked_spec(ctx, series, length, step, taper, sigma);
    const fc::ContextUse use(*ctx->state);
    fc::dfc_lowrank(*ctx->state, series->data, spec, rank, factors, capacity, rel_error);
    return FC_OK;
  });
}

}  // extern "C"
