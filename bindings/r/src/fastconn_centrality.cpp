// Centrality, rank correlation and Fisher z for R, beside fastconn_bindings.cpp: ranked series
// (fc_series_create_ranked_f64, whose correlations are Spearman's rho), fast and thresholded ECM
// (fc_pcc_ecm, fc_pcc_ecm_thresholded), eigenvector centrality of a graph
// (fc_graph_eigenvector_centrality) and fc_fisher_z_f64.
#include <Rcpp.h>

#include <vector>

#include <fastconn/fastconn.h>

#include "glue.hpp"

using namespace fcr;

namespace {

// list(vector = N centralities (NaN as NA), value = the eigenvalue) of an ECM call on a series
// set: solve(ctx, s, centrality, n, &value) is fc_pcc_ecm or fc_pcc_ecm_thresholded with its
// other arguments bound.
template <class Solve>
SEXP ecm_result(SEXP context, SEXP series, Solve&& solve) {
  fc_context* ctx = unwrap_handle<fc_context>(context, kContextTag);
  const fc_series* s = unwrap_handle<fc_series>(series, kSeriesTag);
  int64_t n = 0;
  check(fc_series_info(s, &n, nullptr, nullptr));
  Rcpp::NumericVector centrality(Rcpp::no_init(static_cast<R_xlen_t>(n)));
  double value = 0;
  run_interruptible(ctx, [&] { return solve(ctx, s, centrality.begin(), n, &value); });
  nan_to_na(centrality.begin(), centrality.size());
  return Rcpp::List::create(Rcpp::Named("vector") = centrality, Rcpp::Named("value") = value);
}

}  // namespace

extern "C" {

// A series set of the columns' ranks (x: a double T x N matrix, checked in R).
SEXP fcr_series_create_ranked(SEXP context, SEXP x) {
  BEGIN_RCPP
  return series_from_matrix(context, x, fc_series_create_ranked_f64);
  END_RCPP
}

SEXP fcr_pcc_ecm(SEXP context, SEXP series, SEXP tolerance) {
  BEGIN_RCPP
  const double tol = Rcpp::as<double>(tolerance);
  return ecm_result(context, series, [&](fc_context* ctx, const fc_series* s, double* c, int64_t n, double* value) {
    return fc_pcc_ecm(ctx, s, tol, c, n, value);
  });
  END_RCPP
}

// rule, weights: the C codes, checked in R.
SEXP fcr_pcc_ecm_thresholded(SEXP context, SEXP series, SEXP rule, SEXP param, SEXP weights, SEXP tolerance) {
  BEGIN_RCPP
  const auto r = static_cast<fc_edge_rule>(Rcpp::as<int>(rule));
  const double p = Rcpp::as<double>(param), tol = Rcpp::as<double>(tolerance);
  const int w = Rcpp::as<int>(weights);
  return ecm_result(context, series, [&](fc_context* ctx, const fc_series* s, double* c, int64_t n, double* value) {
    return fc_pcc_ecm_thresholded(ctx, s, r, p, w, tol, c, n, value);
  });
  END_RCPP
}

// list(vector, value) of fc_graph_eigenvector_centrality on a symmetric dgCMatrix's slots.
SEXP fcr_graph_eigen_centrality(SEXP context, SEXP p, SEXP i, SEXP x, SEXP weighted, SEXP tolerance) {
  BEGIN_RCPP
  fc_context* ctx = unwrap_handle<fc_context>(context, kContextTag);
  GraphHandle graph = graph_from_csc(p, i, x);
  int64_t n = 0;
  check(fc_graph_info(graph.get(), &n, nullptr));
  Rcpp::NumericVector centrality(Rcpp::no_init(static_cast<R_xlen_t>(n)));
  double value = 0;
  const int w = Rcpp::as<bool>(weighted) ? 1 : 0;
  const double tol = Rcpp::as<double>(tolerance);
  run_interruptible(ctx, [&] {
    return fc_graph_eigenvector_centrality(ctx, graph.get(), w, tol, centrality.begin(), n, &value);
  });
  graph.release();
  return Rcpp::List::create(Rcpp::Named("vector") = centrality, Rcpp::Named("value") = value);
  END_RCPP
}

// atanh of a copy of the double vector r (attributes kept); NA stays NA (R's NA is a NaN with a
// payload that the arithmetic need not keep, so its places are restored after).
SEXP fcr_fisher_z(SEXP r) {
  BEGIN_RCPP
  if (TYPEOF(r) != REALSXP) Rcpp::stop("fastconn: internal error: fisher_z takes doubles");
  Rcpp::NumericVector z = Rcpp::clone(Rcpp::NumericVector(r));
  std::vector<R_xlen_t> na;
  for (R_xlen_t k = 0; k < z.size(); ++k)
    if (R_IsNA(z[k])) na.push_back(k);
  check(fc_fisher_z_f64(z.begin(), static_cast<int64_t>(z.size())));
  for (R_xlen_t k : na) z[k] = NA_REAL;
  return z;
  END_RCPP
}

}  // extern "C"
