// Partial correlation and precision for R, beside fastconn_bindings.cpp: fc_partial_correlation.
#include <Rcpp.h>

#include <fastconn/fastconn.h>

#include "glue.hpp"

using namespace fcr;

extern "C" {

// list(matrix = the N x N partial correlations (output 0) or precision (output 1), shrinkage = the
// intensity applied). The matrix is symmetric, so fastconn's row-major layout is R's column-major
// one as it is.
SEXP fcr_partial_correlation(SEXP context, SEXP series, SEXP shrinkage, SEXP output) {
  BEGIN_RCPP
  fc_context* ctx = unwrap_handle<fc_context>(context, kContextTag);
  const fc_series* s = unwrap_handle<fc_series>(series, kSeriesTag);
  int64_t n = 0;
  check(fc_series_info(s, &n, nullptr, nullptr));
  const double a = Rcpp::as<double>(shrinkage);
  const int kind = Rcpp::as<int>(output);
  double used = 0;
  Rcpp::NumericMatrix values(Rcpp::no_init(static_cast<int>(n), static_cast<int>(n)));
  run_interruptible(ctx, [&] { return fc_partial_correlation(ctx, s, a, kind, values.begin(), n, &used); });
  return Rcpp::List::create(Rcpp::Named("matrix") = values, Rcpp::Named("shrinkage") = used);
  END_RCPP
}

}  // extern "C"
