// extern "C" entry points for Leiden's modules (modules/leiden.hpp); the result is an fc_modules,
// whose accessors live in api_modularity.cpp.
#include "api/api_guard.hpp"
#include "api/handles.hpp"
#include "modules/leiden.hpp"
#include "modules/leiden_sync.hpp"

extern "C" {

FC_API fc_status fc_leiden_options_default(fc_leiden_options* options) {
  return fc::api_guard(__func__, [&] {
    fc::require_not_null(options, "options");
    *options = fc::default_leiden_options();
    return FC_OK;
  });
}

FC_API fc_status fc_leiden(fc_context* ctx, const fc_graph* graph, const fc_leiden_options* options,
                           const int64_t* initial_labels, fc_modules** out) {
  return fc::api_guard(__func__, [&] {
    fc::require_not_null(ctx, "ctx");
    fc::require_not_null(graph, "graph");
    fc::require_not_null(out, "out");
    const fc_leiden_options o = options != nullptr ? *options : fc::default_leiden_options();
    fc::validate_leiden_options(o);
    const fc::GraphData& g = *graph->data;
    if (initial_labels != nullptr) fc::check_initial_labels(initial_labels, g.n);
    // Host code for every backend (the same labels on CPU and CUDA contexts); the context gives
    // the thread count and the progress callback, which may cancel between levels.
    const fc::ContextState& state = *ctx->state;
    fc::Progress progress = state.make_progress(g.n);
    auto m = std::make_unique<fc_modules>();
    m->result = fc::find_leiden(g, o, initial_labels, state.threads, progress);
    *out = m.release();
    return FC_OK;
  });
}

FC_API fc_status fc_leiden_options_v2_default(fc_leiden_options_v2* options) {
  return fc::api_guard(__func__, [&] {
    fc::require_not_null(options, "options");
    options->size = sizeof(fc_leiden_options_v2);
    options->algorithm = FC_LEIDEN_QUEUE;
    options->base = fc::default_leiden_options();
    return FC_OK;
  });
}

FC_API fc_status fc_leiden_v2(fc_context* ctx, const fc_graph* graph, const fc_leiden_options_v2* options,
                              const int64_t* initial_labels, fc_modules** out) {
  return fc::api_guard(__func__, [&] {
    fc::require_not_null(ctx, "ctx");
    fc::require_not_null(graph, "graph");
    fc::require_not_null(out, "out");
    fc_leiden_options_v2 o;
    if (options != nullptr) {
      // The size first: a caller built against an older header has fewer fields than read here.
      if (options->size < sizeof(fc_leiden_options_v2))
        fc::fail(FC_ERR_INVALID_ARG, "options->size " + std::to_string(options->size) + " is below sizeof(fc_leiden_options_v2) = " +
                                         std::to_string(sizeof(fc_leiden_options_v2)) +
                                         " (fill the options with fc_leiden_options_v2_default first)");
      o = *options;
    } else {
      fc_leiden_options_v2_default(&o);
    }
    if (o.algorithm != FC_LEIDEN_QUEUE && o.algorithm != FC_LEIDEN_SYNCHRONOUS)
      fc::fail(FC_ERR_INVALID_ARG, "options->algorithm " + std::to_string(o.algorithm) +
                                       " is not FC_LEIDEN_QUEUE (0) or FC_LEIDEN_SYNCHRONOUS (1)");
    fc::validate_leiden_options(o.base);
    const fc::GraphData& g = *graph->data;
    if (initial_labels != nullptr) fc::check_initial_labels(initial_labels, g.n);
    const fc::ContextState& state = *ctx->state;
    fc::Progress progress = state.make_progress(g.n);
    auto m = std::make_unique<fc_modules>();
    if (o.algorithm == FC_LEIDEN_QUEUE) {
      m->result = fc::find_leiden(g, o.base, initial_labels, state.threads, progress);
    } else {
      const fc::RunSettings run = state.run_settings(progress);
      m->result = fc::find_leiden_sync(g, o.base, initial_labels, *state.backend, run, progress);
    }
    *out = m.release();
    return FC_OK;
  });
}

}  // extern "C"
