// Leiden and multilayer modularity for R, beside fastconn_bindings.cpp's fc_modularity: each
// graph comes as a symmetric dgCMatrix's slots (p, i, x), checked in R.
#include <Rcpp.h>

#include <vector>

#include <fastconn/fastconn.h>

#include "glue.hpp"

using namespace fcr;

namespace {

using MultilayerHandle = Rcpp::XPtr<fc_multilayer, Rcpp::PreserveStorage, fc_multilayer_destroy, false>;
const char* const kMultilayerTag = "fastconn_multilayer";

}  // namespace

extern "C" {

// options: list(resolution, randomness, seed, max_iterations, quality, signed_mode, algorithm);
// initial: NULL or one whole number >= 0 per node (doubles). Returns list(labels = 0-based
// integers, q, n_communities). Always fc_leiden_v2: its FC_LEIDEN_QUEUE is fc_leiden bit for bit.
SEXP fcr_leiden(SEXP context, SEXP p, SEXP i, SEXP x, SEXP options, SEXP initial) {
  BEGIN_RCPP
  fc_context* ctx = unwrap_handle<fc_context>(context, kContextTag);
  GraphHandle graph = graph_from_csc(p, i, x);
  Rcpp::List opt(options);
  fc_leiden_options_v2 v2;
  check(fc_leiden_options_v2_default(&v2));
  v2.algorithm = Rcpp::as<int>(opt["algorithm"]);
  fc_leiden_options& o = v2.base;
  o.resolution = Rcpp::as<double>(opt["resolution"]);
  o.randomness = Rcpp::as<double>(opt["randomness"]);
  o.seed = static_cast<uint64_t>(Rcpp::as<double>(opt["seed"]));
  o.max_iterations = as_int64(opt["max_iterations"]);
  o.quality = Rcpp::as<int>(opt["quality"]);
  o.signed_mode = Rcpp::as<int>(opt["signed_mode"]);
  std::vector<int64_t> start;
  if (!Rf_isNull(initial)) {
    Rcpp::NumericVector l(initial);
    start.assign(l.begin(), l.end());
  }
  fc_modules* raw = nullptr;
  run_interruptible(ctx,
                    [&] { return fc_leiden_v2(ctx, graph.get(), &v2, start.empty() ? nullptr : start.data(), &raw); });
  ModulesHandle modules = make_handle<ModulesHandle>(raw, kModulesTag);
  graph.release();
  int64_t n = 0, k = 0;
  double q = 0;
  check(fc_modules_info(raw, &n, &k, &q, nullptr));
  std::vector<int64_t> labels(static_cast<size_t>(n));
  check(fc_modules_labels(raw, labels.data(), n));
  modules.release();
  return Rcpp::List::create(Rcpp::Named("labels") = Rcpp::IntegerVector(labels.begin(), labels.end()),
                            Rcpp::Named("q") = q, Rcpp::Named("n_communities") = static_cast<double>(k));
  END_RCPP
}

// layers: a list of list(p, i, x); resolutions: one gamma per layer; options: list(omega, seed,
// max_iterations, coupling, algorithm); dense: TRUE for the allegiance matrix, FALSE for none, or a
// floor (double) for its pairs i < j at or above it. Returns list(labels = n x L integer matrix of
// 0-based ids, q, n_communities, flexibility, allegiance (n x n, list(i, j, x) of 0-based pairs,
// or NULL)). Always fc_multilayer_modularity_v2: its FC_LEIDEN_QUEUE is fc_multilayer_modularity
// bit for bit.
SEXP fcr_multilayer(SEXP context, SEXP layers, SEXP resolutions, SEXP options, SEXP dense) {
  BEGIN_RCPP
  fc_context* ctx = unwrap_handle<fc_context>(context, kContextTag);
  Rcpp::List list(layers);
  std::vector<GraphHandle> graphs;
  std::vector<const fc_graph*> raw_graphs;
  for (R_xlen_t s = 0; s < list.size(); ++s) {
    Rcpp::List slots(list[s]);
    graphs.push_back(graph_from_csc(slots["p"], slots["i"], slots["x"]));
    raw_graphs.push_back(graphs.back().get());
  }
  Rcpp::NumericVector gamma(resolutions);
  Rcpp::List opt(options);
  fc_multilayer_options_v2 v2;
  check(fc_multilayer_options_v2_default(&v2));
  v2.algorithm = Rcpp::as<int>(opt["algorithm"]);
  fc_multilayer_options& o = v2.base;
  o.omega = Rcpp::as<double>(opt["omega"]);
  o.seed = static_cast<uint64_t>(Rcpp::as<double>(opt["seed"]));
  o.max_iterations = as_int64(opt["max_iterations"]);
  o.coupling = Rcpp::as<int>(opt["coupling"]);
  fc_multilayer* raw = nullptr;
  run_interruptible(ctx, [&] {
    return fc_multilayer_modularity_v2(ctx, raw_graphs.data(), static_cast<int64_t>(raw_graphs.size()), gamma.begin(),
                                       &v2, &raw);
  });
  MultilayerHandle result = make_handle<MultilayerHandle>(raw, kMultilayerTag);
  for (GraphHandle& g : graphs) g.release();
  int64_t n = 0, n_layers = 0, k = 0;
  double q = 0;
  check(fc_multilayer_info(raw, &n, &n_layers, &k, &q));
  // fastconn's layer-major labels are R's column-major n x L matrix as they stand.
  std::vector<int64_t> labels(static_cast<size_t>(n * n_layers));
  check(fc_multilayer_labels(raw, labels.data(), n * n_layers));
  Rcpp::IntegerMatrix label_matrix(static_cast<int>(n), static_cast<int>(n_layers));
  std::copy(labels.begin(), labels.end(), label_matrix.begin());
  Rcpp::NumericVector flexibility(Rcpp::no_init(static_cast<R_xlen_t>(n)));
  check(fc_multilayer_flexibility(raw, flexibility.begin(), n));
  // allegiance: TRUE (dense), FALSE (none) or a floor (a double: the pairs i < j at or above it).
  SEXP allegiance = R_NilValue;
  Rcpp::NumericMatrix a;
  Rcpp::List pairs;
  if (TYPEOF(dense) == REALSXP) {
    const double floor = Rcpp::as<double>(dense);
    int64_t count = 0;
    check(fc_multilayer_allegiance_pairs(raw, floor, nullptr, nullptr, nullptr, 0, &count));
    std::vector<int64_t> rows(static_cast<size_t>(count)), cols(static_cast<size_t>(count));
    Rcpp::NumericVector values(static_cast<R_xlen_t>(count));
    if (count > 0) check(fc_multilayer_allegiance_pairs(raw, floor, rows.data(), cols.data(), values.begin(), count, &count));
    Rcpp::IntegerVector i(rows.begin(), rows.end()), j(cols.begin(), cols.end());
    pairs = Rcpp::List::create(Rcpp::Named("i") = i, Rcpp::Named("j") = j, Rcpp::Named("x") = values);
    allegiance = pairs;
  } else if (Rcpp::as<bool>(dense)) {
    // Symmetric: fastconn's row-major matrix is the same read column-major.
    a = Rcpp::NumericMatrix(static_cast<int>(n), static_cast<int>(n));
    check(fc_multilayer_allegiance(raw, a.begin(), n, n * n));
    allegiance = a;
  }
  result.release();
  return Rcpp::List::create(Rcpp::Named("labels") = label_matrix, Rcpp::Named("q") = q,
                            Rcpp::Named("n_communities") = static_cast<double>(k),
                            Rcpp::Named("flexibility") = flexibility, Rcpp::Named("allegiance") = allegiance);
  END_RCPP
}

}  // extern "C"
