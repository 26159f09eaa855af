// extern "C" entry points for multilayer modularity (modules/multilayer.hpp) and its copy-out
// accessors: labels per node and layer, flexibility and module allegiance.
#include <memory>
#include <string>
#include <vector>

#include "api/api_checks.hpp"
#include "api/api_guard.hpp"
#include "api/handles.hpp"
#include "modules/multilayer.hpp"
#include "modules/multilayer_sync.hpp"

extern "C" {

FC_API fc_status fc_multilayer_options_default(fc_multilayer_options* options) {
  return fc::api_guard(__func__, [&] {
    fc::require_not_null(options, "options");
    *options = fc::default_multilayer_options();
    return FC_OK;
  });
}

namespace {

// fc_multilayer_modularity and its _v2: the checks, then the algorithm's passes.
fc_status run_multilayer(const char* name, fc_context* ctx, const fc_graph* const* layers, int64_t n_layers,
                         const double* layer_resolutions, const fc_multilayer_options& o, int32_t algorithm,
                         fc_multilayer** out) {
  return fc::api_guard(name, [&] {
    fc::require_not_null(ctx, "ctx");
    fc::require_not_null(layers, "layers");
    fc::require_not_null(out, "out");
    if (n_layers < 1)
      fc::fail(FC_ERR_INVALID_ARG, "n_layers " + std::to_string(n_layers) + " is not >= 1");
    if (algorithm != FC_LEIDEN_QUEUE && algorithm != FC_LEIDEN_SYNCHRONOUS)
      fc::fail(FC_ERR_INVALID_ARG, "options->algorithm " + std::to_string(algorithm) +
                                       " is not FC_LEIDEN_QUEUE (0) or FC_LEIDEN_SYNCHRONOUS (1)");
    fc::validate_multilayer_options(o);
    std::vector<const fc::GraphData*> graphs(static_cast<size_t>(n_layers));
    for (int64_t s = 0; s < n_layers; ++s) {
      if (layers[s] == nullptr)
        fc::fail(FC_ERR_NULL_ARG, "layers[" + std::to_string(s) + "] is NULL");
      graphs[static_cast<size_t>(s)] = layers[s]->data.get();
    }
    fc::check_multilayer_input(graphs, layer_resolutions);
    std::vector<double> gamma(static_cast<size_t>(n_layers), o.resolution);
    if (layer_resolutions != nullptr) gamma.assign(layer_resolutions, layer_resolutions + n_layers);
    const fc::ContextState& state = *ctx->state;
    fc::Progress progress = state.make_progress(graphs[0]->n * n_layers);
    auto m = std::make_unique<fc_multilayer>();
    if (algorithm == FC_LEIDEN_QUEUE) {
      m->result = fc::find_multilayer(graphs, gamma, o, state.threads, progress);
    } else {
      const fc::RunSettings run = state.run_settings(progress);
      m->result = fc::find_multilayer_sync(graphs, gamma, o, *state.backend, run, progress);
    }
    *out = m.release();
    return FC_OK;
  });
}

}  // namespace

FC_API fc_status fc_multilayer_modularity(fc_context* ctx, const fc_graph* const* layers, int64_t n_layers,
                                          const double* layer_resolutions, const fc_multilayer_options* options,
                                          fc_multilayer** out) {
  const fc_multilayer_options o = options != nullptr ? *options : fc::default_multilayer_options();
  return run_multilayer(__func__, ctx, layers, n_layers, layer_resolutions, o, FC_LEIDEN_QUEUE, out);
}

FC_API fc_status fc_multilayer_options_v2_default(fc_multilayer_options_v2* options) {
  return fc::api_guard(__func__, [&] {
    fc::require_not_null(options, "options");
    options->size = sizeof(fc_multilayer_options_v2);
    options->algorithm = FC_LEIDEN_QUEUE;
    options->base = fc::default_multilayer_options();
    return FC_OK;
  });
}

FC_API fc_status fc_multilayer_modularity_v2(fc_context* ctx, const fc_graph* const* layers, int64_t n_layers,
                                             const double* layer_resolutions, const fc_multilayer_options_v2* options,
                                             fc_multilayer** out) {
  if (options != nullptr && options->size < sizeof(fc_multilayer_options_v2)) {
    // The size first: a caller built against an older header has fewer fields than read here.
    return fc::api_guard(__func__, [&]() -> fc_status {
      fc::fail(FC_ERR_INVALID_ARG, "options->size " + std::to_string(options->size) +
                                       " is below sizeof(fc_multilayer_options_v2) = " +
                                       std::to_string(sizeof(fc_multilayer_options_v2)) +
                                       " (fill the options with fc_multilayer_options_v2_default first)");
    });
  }
  const fc_multilayer_options o = options != nullptr ? options->base : fc::default_multilayer_options();
  return run_multilayer(__func__, ctx, layers, n_layers, layer_resolutions, o,
                        options != nullptr ? options->algorithm : int32_t(FC_LEIDEN_QUEUE), out);
}

FC_API fc_status fc_multilayer_info(const fc_multilayer* multilayer, int64_t* n_nodes, int64_t* n_layers,
                                    int64_t* n_communities, double* q) {
  return fc::api_guard(__func__, [&] {
    fc::require_not_null(multilayer, "multilayer");
    const fc::Multilayer& r = multilayer->result;
    if (n_nodes != nullptr) *n_nodes = r.n;
    if (n_layers != nullptr) *n_layers = r.layers;
    if (n_communities != nullptr) *n_communities = r.k;
    if (q != nullptr) *q = r.q;
    return FC_OK;
  });
}

FC_API fc_status fc_multilayer_labels(const fc_multilayer* multilayer, int64_t* labels, int64_t capacity) {
  return fc::api_guard(__func__, [&] {
    fc::require_not_null(multilayer, "multilayer");
    fc::require_not_null(labels, "labels");
    const fc::Multilayer& r = multilayer->result;
    fc::require_capacity(capacity, r.n * r.layers, "labels (n_nodes x n_layers)");
    for (size_t x = 0; x < r.labels.size(); ++x) labels[x] = r.labels[x];
    return FC_OK;
  });
}

FC_API fc_status fc_multilayer_flexibility(const fc_multilayer* multilayer, double* flexibility, int64_t capacity) {
  return fc::api_guard(__func__, [&] {
    fc::require_not_null(multilayer, "multilayer");
    fc::require_not_null(flexibility, "flexibility");
    fc::require_capacity(capacity, multilayer->result.n, "nodes");
    fc::multilayer_flexibility(multilayer->result, flexibility);
    return FC_OK;
  });
}

FC_API fc_status fc_multilayer_allegiance(const fc_multilayer* multilayer, double* allegiance, int64_t ld,
                                          int64_t capacity) {
  return fc::api_guard(__func__, [&] {
    fc::require_not_null(multilayer, "multilayer");
    fc::require_not_null(allegiance, "allegiance");
    const int64_t n = multilayer->result.n;
    if (ld < n) fc::fail(FC_ERR_INVALID_ARG, "ld " + std::to_string(ld) + " is smaller than n_nodes " + std::to_string(n));
    fc::require_capacity(capacity, n == 0 ? 0 : (n - 1) * ld + n, "entries ((n_nodes - 1) x ld + n_nodes)");
    fc::multilayer_allegiance(multilayer->result, allegiance, ld);
    return FC_OK;
  });
}

FC_API fc_status fc_multilayer_allegiance_pairs(const fc_multilayer* multilayer, double floor, int64_t* rows,
                                                int64_t* cols, double* values, int64_t capacity, int64_t* count) {
  return fc::api_guard(__func__, [&] {
    fc::require_not_null(multilayer, "multilayer");
    fc::require_not_null(count, "count");
    if (!(floor > 0 && floor <= 1))
      fc::fail(FC_ERR_INVALID_ARG, "floor " + fc::exact_text(floor) + " is not in (0, 1]");
    if (capacity < 0) fc::fail(FC_ERR_INVALID_ARG, "capacity " + std::to_string(capacity) + " is negative");
    if (capacity > 0) {
      fc::require_not_null(rows, "rows");
      fc::require_not_null(cols, "cols");
      fc::require_not_null(values, "values");
    }
    const int64_t total = fc::multilayer_allegiance_pairs(multilayer->result, floor, rows, cols, values, capacity);
    *count = total;
    if (capacity > 0) fc::require_capacity(capacity, total, "pairs of allegiance >= floor");
    return FC_OK;
  });
}

FC_API void fc_multilayer_destroy(fc_multilayer* multilayer) { delete multilayer; }

}  // extern "C"
