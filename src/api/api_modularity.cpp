// extern "C" entry points for modules: Newman's leading-eigenvector modularity of a graph, its
// copy-out accessors, and the modularity Q of any partition.
#include <string>

#include "api/api_checks.hpp"
#include "api/api_guard.hpp"
#include "api/handles.hpp"
#include "modules/modularity.hpp"

extern "C" {

FC_API fc_status fc_modularity_options_default(fc_modularity_options* options) {
  return fc::api_guard(__func__, [&] {
    fc::require_not_null(options, "options");
    *options = fc::default_modularity_options();
    return FC_OK;
  });
}

FC_API fc_status fc_modularity(fc_context* ctx, const fc_graph* graph, const fc_modularity_options* options,
                               fc_modules** out) {
  return fc::api_guard(__func__, [&] {
    fc::require_not_null(ctx, "ctx");
    fc::require_not_null(graph, "graph");
    fc::require_not_null(out, "out");
    const fc_modularity_options o = options != nullptr ? *options : fc::default_modularity_options();
    fc::validate_modularity_options(o);
    // Host code for every backend; a backend with a device (CUDA) does the eigensolver's sparse
    // products of large groups there, with the host's bits, so the labels are the same. The
    // context gives the thread count, the memory limit and the progress callback, which may
    // cancel between splits.
    const fc::ContextState& state = *ctx->state;
    const fc::GraphData& g = *graph->data;
    fc::Progress progress = state.make_progress(g.n);
    const fc::RunSettings run = state.run_settings(progress);
    const fc::GroupProductsFactory device = [&](double c_pos, double c_neg, int engines) {
      return state.backend->group_products(g, g.n, c_pos, c_neg, engines, run);
    };
    auto m = std::make_unique<fc_modules>();
    m->result = fc::find_modules(g, o, state.threads, progress, device);
    *out = m.release();
    return FC_OK;
  });
}

FC_API fc_status fc_modules_info(const fc_modules* modules, int64_t* n_nodes, int64_t* n_communities, double* q,
                                 int64_t* n_splits) {
  return fc::api_guard(__func__, [&] {
    fc::require_not_null(modules, "modules");
    const fc::Modules& r = modules->result;
    if (n_nodes != nullptr) *n_nodes = r.n;
    if (n_communities != nullptr) *n_communities = r.k;
    if (q != nullptr) *q = r.q;
    if (n_splits != nullptr) *n_splits = int64_t(r.splits.size());
    return FC_OK;
  });
}

FC_API fc_status fc_modules_labels(const fc_modules* modules, int64_t* labels, int64_t capacity) {
  return fc::api_guard(__func__, [&] {
    fc::require_not_null(modules, "modules");
    fc::require_not_null(labels, "labels");
    const fc::Modules& r = modules->result;
    fc::require_capacity(capacity, r.n, "nodes");
    for (int64_t i = 0; i < r.n; ++i) labels[i] = r.labels[static_cast<size_t>(i)];
    return FC_OK;
  });
}

FC_API fc_status fc_modules_splits(const fc_modules* modules, int64_t* parent, int64_t* child_a, int64_t* child_b,
                                   double* eigenvalue, double* gain, int64_t* iterations, double* residual,
                                   int64_t capacity) {
  return fc::api_guard(__func__, [&] {
    fc::require_not_null(modules, "modules");
    const auto& splits = modules->result.splits;
    fc::require_capacity(capacity, int64_t(splits.size()), "splits");
    for (size_t x = 0; x < splits.size(); ++x) {
      if (parent != nullptr) parent[x] = splits[x].parent;
      if (child_a != nullptr) child_a[x] = splits[x].child_a;
      if (child_b != nullptr) child_b[x] = splits[x].child_b;
      if (eigenvalue != nullptr) eigenvalue[x] = splits[x].eigenvalue;
      if (gain != nullptr) gain[x] = splits[x].gain;
      if (iterations != nullptr) iterations[x] = splits[x].iterations;
      if (residual != nullptr) residual[x] = splits[x].residual;
    }
    return FC_OK;
  });
}

FC_API void fc_modules_destroy(fc_modules* modules) { delete modules; }

FC_API fc_status fc_modularity_score(const fc_graph* graph, const int64_t* labels, double gamma, double* q) {
  return fc::api_guard(__func__, [&] {
    fc::require_not_null(graph, "graph");
    fc::require_not_null(labels, "labels");
    fc::require_not_null(q, "q");
    *q = fc::modularity_score(*graph->data, labels, gamma);
    return FC_OK;
  });
}

}  // extern "C"
