// lFCD for R, beside fastconn_bindings.cpp: fc_pcc_lfcd on the voxel coordinates R holds as an
// n x 3 integer matrix (column-major, 0-based here: fc_lfcd subtracts R's 1 before the call).
#include <Rcpp.h>

#include <vector>

#include <fastconn/fastconn.h>

#include "glue.hpp"

using namespace fcr;

extern "C" {

// The N counts of fc_pcc_lfcd as an integer vector; coords: an n x 3 integer matrix, dims: 3
// doubles (checked in R; the library checks them again and names any bad value).
SEXP fcr_pcc_lfcd(SEXP context, SEXP series, SEXP coords, SEXP dims, SEXP neighbourhood, SEXP rule, SEXP threshold) {
  BEGIN_RCPP
  fc_context* ctx = unwrap_handle<fc_context>(context, kContextTag);
  const fc_series* s = unwrap_handle<fc_series>(series, kSeriesTag);
  int64_t n = 0;
  check(fc_series_info(s, &n, nullptr, nullptr));
  if (TYPEOF(coords) != INTSXP || Rf_xlength(coords) != 3 * n)
    Rcpp::stop("fastconn: internal error: coords must be an n x 3 integer matrix");
  if (TYPEOF(dims) != REALSXP || Rf_xlength(dims) != 3) Rcpp::stop("fastconn: internal error: dims must be 3 doubles");
  // R's column-major n x 3 to the library's row-major (i, j, k) per series.
  const int* column = INTEGER(coords);
  std::vector<int32_t> ijk(static_cast<size_t>(3 * n));
  for (int64_t v = 0; v < n; ++v)
    for (int a = 0; a < 3; ++a) ijk[static_cast<size_t>(3 * v + a)] = column[a * n + v];
  const int64_t grid[3] = {static_cast<int64_t>(REAL(dims)[0]), static_cast<int64_t>(REAL(dims)[1]),
                           static_cast<int64_t>(REAL(dims)[2])};
  std::vector<int64_t> counts(static_cast<size_t>(n));
  const int hood = Rcpp::as<int>(neighbourhood);
  const fc_edge_rule code = static_cast<fc_edge_rule>(Rcpp::as<int>(rule));
  const double t = Rcpp::as<double>(threshold);
  run_interruptible(ctx, [&] { return fc_pcc_lfcd(ctx, s, ijk.data(), grid, hood, code, t, counts.data()); });
  return Rcpp::IntegerVector(counts.begin(), counts.end());
  END_RCPP
}

}  // extern "C"
