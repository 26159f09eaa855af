// The C++ side of the R package (with fastconn_api.cpp; shared helpers in glue.hpp): thin .Call
// entry points over the public C API (fastconn.h only). R-facing argument handling lives in R/; here we only move memory, map
// every non-OK status to an R error carrying fc_last_error(), and own handles through
// external pointers with finalizers so that an error or an interrupt at any point leaks nothing.
//
// Threads: fastconn runs its own worker threads, but it calls the progress callback and
// returns from every call on the calling (R main) thread; no R API is touched elsewhere.
#include <Rcpp.h>
#include <R_ext/Rdynload.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include <fastconn/fastconn.h>
#include <fastconn/fastconn_cuda.h>

#include "glue.hpp"

namespace fcr {

// ---------------------------------------------------------------------------------------------
// Output conversion. R has no float vectors, so float results are written into the front half
// of the final double vector and widened in place from the back (element i moves from bytes
// [4i, 4i+4) to [8i, 8i+8); every float it overwrites has index > i and was already read), so
// no second output-sized buffer is needed. NaN becomes R's NA, as cor() reports it.
// ---------------------------------------------------------------------------------------------

void widen_floats_in_place(double* data, R_xlen_t n) {
  unsigned char* bytes = reinterpret_cast<unsigned char*>(data);
  for (R_xlen_t i = n - 1; i >= 0; --i) {
    float value;
    std::memcpy(&value, bytes + sizeof(float) * i, sizeof(float));
    const double widened = std::isnan(value) ? NA_REAL : static_cast<double>(value);
    std::memcpy(bytes + sizeof(double) * i, &widened, sizeof(double));
  }
}

void nan_to_na(double* data, R_xlen_t n) {
  for (R_xlen_t i = 0; i < n; ++i)
    if (std::isnan(data[i])) data[i] = NA_REAL;
}

float* as_float_buffer(SEXP doubles) { return reinterpret_cast<float*>(REAL(doubles)); }

SEXP alloc_matrix(int64_t rows, int64_t cols) {
  // allocVector + dim instead of allocMatrix: results past 2^31 elements are long vectors.
  Rcpp::NumericVector result(Rcpp::no_init(static_cast<R_xlen_t>(rows * cols)));
  result.attr("dim") = Rcpp::IntegerVector::create(static_cast<int>(rows), static_cast<int>(cols));
  return result;
}

int64_t series_count(const fc_series* series) {
  int64_t n = 0;
  check(fc_series_info(series, &n, nullptr, nullptr));
  return n;
}

fc_precision precision_of(const fc_context* ctx) {
  fc_precision precision = FC_PRECISION_FP32;
  check(fc_context_get_precision(ctx, &precision));
  return precision;
}

// cor() puts exactly 1 on the diagonal, constant columns included.
void set_unit_diagonal(double* matrix, int64_t n) {
  for (int64_t i = 0; i < n; ++i) matrix[i + i * n] = 1.0;
}

// The graph's symmetric CSR arrays as a Matrix::dgCMatrix: the CSR form of a symmetric matrix is
// also its CSC form, so row offsets are the column pointers (p) and columns the row indices (i).
// fc_graph_csr writes int64 columns into x's storage and float weights into i's (the same
// element sizes), and one pass then converts each element in place to its final type, so the
// nonzeros are never held twice.
SEXP graph_as_dgCMatrix(const fc_graph* graph, SEXP dimnames) {
  static_assert(sizeof(int64_t) == sizeof(double) && sizeof(float) == sizeof(int),
                "the in-place conversion needs 8-byte doubles and 4-byte ints");
  int64_t n = 0, n_edges = 0;
  check(fc_graph_info(graph, &n, &n_edges));
  const int64_t nnz = 2 * n_edges;  // each undirected edge is stored at (i, j) and (j, i)
  if (nnz > INT_MAX)
    Rcpp::stop("fastconn: the graph has %d edges, i.e. %d nonzeros in its symmetric matrix, more than a "
               "dgCMatrix can index (2^31 - 1 = %d); use a higher threshold or a smaller density or topk",
               n_edges, nnz, INT_MAX);
  Rcpp::IntegerVector p(Rcpp::no_init(static_cast<R_xlen_t>(n + 1)));
  Rcpp::IntegerVector i(Rcpp::no_init(static_cast<R_xlen_t>(nnz)));
  Rcpp::NumericVector x(Rcpp::no_init(static_cast<R_xlen_t>(nnz)));
  std::vector<int64_t> offsets(static_cast<size_t>(n + 1));
  unsigned char* x_bytes = reinterpret_cast<unsigned char*>(x.begin());
  unsigned char* i_bytes = reinterpret_cast<unsigned char*>(i.begin());
  check(fc_graph_csr(graph, offsets.data(), reinterpret_cast<int64_t*>(x_bytes), reinterpret_cast<float*>(i_bytes), nnz));
  for (int64_t k = 0; k < nnz; ++k) {
    int64_t column;
    float weight;
    std::memcpy(&column, x_bytes + sizeof(double) * k, sizeof column);
    std::memcpy(&weight, i_bytes + sizeof(int) * k, sizeof weight);
    const double value = weight;
    const int row = static_cast<int>(column);  // < n <= INT_MAX: n is ncol() of an R matrix
    std::memcpy(x_bytes + sizeof(double) * k, &value, sizeof value);
    std::memcpy(i_bytes + sizeof(int) * k, &row, sizeof row);
  }
  for (int64_t k = 0; k <= n; ++k) p[static_cast<R_xlen_t>(k)] = static_cast<int>(offsets[static_cast<size_t>(k)]);

  Rcpp::S4 matrix("dgCMatrix");
  matrix.slot("i") = i;
  matrix.slot("p") = p;
  matrix.slot("x") = x;
  matrix.slot("Dim") = Rcpp::IntegerVector::create(static_cast<int>(n), static_cast<int>(n));
  matrix.slot("Dimnames") = dimnames;
  return matrix;
}


// float r to R's double, NaN (a pair with a constant series) to NA.
inline double widen(float value) { return std::isnan(value) ? NA_REAL : static_cast<double>(value); }

int64_t as_int64(SEXP value) { return static_cast<int64_t>(Rcpp::as<double>(value)); }

// A window specification as R passes it: list(length, step, taper, sigma), checked in R.
struct WindowSpec {
  int64_t length, step;
  int taper;
  double sigma;
};

WindowSpec window_spec(SEXP spec) {
  Rcpp::List list(spec);
  return {as_int64(list["length"]), as_int64(list["step"]), Rcpp::as<int>(list["taper"]),
          Rcpp::as<double>(list["sigma"])};
}

int64_t window_count(const fc_series* series, const WindowSpec& w) {
  int64_t n_time = 0;
  check(fc_series_info(series, nullptr, &n_time, nullptr));
  const int64_t count = fc_window_count(n_time, w.length, w.step);
  if (count < 1)
    Rcpp::stop("fastconn: no window of %d time points every %d fits in %d time points", w.length, w.step, n_time);
  return count;
}

// A symmetric dgCMatrix (slots p, i, x; checked in R: square, symmetric, no diagonal entries,
// finite weights) as a library graph. Its CSC form is the CSR form of the symmetric matrix.
// Weights travel as float, as the library stores them.
GraphHandle graph_from_csc(SEXP p_slot, SEXP i_slot, SEXP x_slot) {
  Rcpp::IntegerVector p(p_slot), i(i_slot);
  Rcpp::NumericVector x(x_slot);
  const R_xlen_t n = p.size() - 1, nnz = i.size();
  std::vector<int64_t> offsets(p.begin(), p.end());
  std::vector<int64_t> columns(i.begin(), i.end());
  std::vector<float> weights(static_cast<size_t>(nnz));
  for (R_xlen_t k = 0; k < nnz; ++k) weights[static_cast<size_t>(k)] = static_cast<float>(x[k]);
  fc_graph* raw = nullptr;
  check(fc_graph_create_csr(static_cast<int64_t>(n), offsets.data(), columns.data(), weights.data(), &raw));
  return make_handle<GraphHandle>(raw, kGraphTag);
}

// The library's row-major N x rank factor (series s at s * rank) as R's column-major matrix.
Rcpp::NumericVector factor_matrix(const float* factor, int64_t n, int64_t rank) {
  Rcpp::NumericVector result(alloc_matrix(n, rank));
  for (int64_t s = 0; s < n; ++s)
    for (int64_t c = 0; c < rank; ++c) result[static_cast<R_xlen_t>(s + c * n)] = factor[s * rank + c];
  return result;
}

SEXP series_from_matrix(SEXP context, SEXP x, SeriesCreate create) {
  fc_context* ctx = unwrap_handle<fc_context>(context, kContextTag);
  if (TYPEOF(x) != REALSXP) Rcpp::stop("fastconn: internal error: series data must be a double matrix");
  SEXP dim = Rf_getAttrib(x, R_DimSymbol);
  if (Rf_length(dim) != 2) Rcpp::stop("fastconn: internal error: series data must have 2 dimensions");
  const int64_t n_time = INTEGER(dim)[0], n_series = INTEGER(dim)[1];
  fc_series* raw = nullptr;
  run_interruptible(ctx, [&] { return create(ctx, REAL(x), n_series, n_time, n_time, 1, &raw); });
  return make_handle<SeriesHandle>(raw, kSeriesTag);
}

}  // namespace fcr

using namespace fcr;

// ---------------------------------------------------------------------------------------------
// Entry points (registered below as C_<name>).
// ---------------------------------------------------------------------------------------------

extern "C" {

// devices: NULL for one device, else the ids of a context over several GPUs (empty: every
// visible one, fc_context_create_cuda_devices).
SEXP fcr_context_create(SEXP backend, SEXP precision, SEXP constant_zero, SEXP devices) {
  BEGIN_RCPP
  fc_context* raw = nullptr;
  if (Rf_isNull(devices)) {
    check(fc_context_create(static_cast<fc_backend>(Rcpp::as<int>(backend)), -1, &raw));
  } else {
    const std::vector<int> ids = Rcpp::as<std::vector<int>>(devices);
    check(fc_context_create_cuda_devices(ids.empty() ? nullptr : ids.data(), static_cast<int>(ids.size()), &raw));
  }
  ContextHandle handle = make_handle<ContextHandle>(raw, kContextTag);
  check(fc_context_set_precision(raw, static_cast<fc_precision>(Rcpp::as<int>(precision))));
  check(fc_context_set_constant_policy(raw, Rcpp::as<bool>(constant_zero) ? FC_CONSTANT_ZERO : FC_CONSTANT_NAN));
  return handle;
  END_RCPP
}

// x: a double matrix, T rows (time) x N columns (series), checked in R (series_from_matrix).
SEXP fcr_series_create(SEXP context, SEXP x) {
  BEGIN_RCPP
  return series_from_matrix(context, x, fc_series_create_f64);
  END_RCPP
}

// 1-based indices of the zero-variance series.
SEXP fcr_series_constant(SEXP series) {
  BEGIN_RCPP
  const fc_series* s = unwrap_handle<fc_series>(series, kSeriesTag);
  int64_t n = 0, n_constant = 0;
  check(fc_series_info(s, &n, nullptr, &n_constant));
  std::vector<double> which;
  which.reserve(static_cast<size_t>(n_constant));
  for (int64_t i = 0; i < n && static_cast<int64_t>(which.size()) < n_constant; ++i) {
    int constant = 0;
    check(fc_series_is_constant(s, i, &constant));
    if (constant) which.push_back(static_cast<double>(i + 1));
  }
  return Rcpp::wrap(which);
  END_RCPP
}

// Frees a handle now rather than at garbage collection (series may hold gigabytes).
SEXP fcr_release(SEXP handle) {
  BEGIN_RCPP
  if (TYPEOF(handle) != EXTPTRSXP) Rcpp::stop("fastconn: internal error: not a handle");
  SEXP tag = R_ExternalPtrTag(handle);
  if (tag == Rf_install(kSeriesTag)) SeriesHandle(handle).release();
  else if (tag == Rf_install(kContextTag)) ContextHandle(handle).release();
  else if (tag == Rf_install(kCursorTag)) CursorHandle(handle).release();
  else if (tag == Rf_install(kDfcTag)) DfcHandle(handle).release();
  else Rcpp::stop("fastconn: internal error: unknown handle");
  return R_NilValue;
  END_RCPP
}

// The dense N x N matrix, straight into R's doubles (fc_pcc_dense_f64: FP64 values unrounded,
// FP32 values widened; symmetric, so R's column-major reading sees the same matrix).
SEXP fcr_pcc_dense(SEXP context, SEXP series) {
  BEGIN_RCPP
  fc_context* ctx = unwrap_handle<fc_context>(context, kContextTag);
  const fc_series* s = unwrap_handle<fc_series>(series, kSeriesTag);
  const int64_t n = series_count(s);
  Rcpp::NumericVector result(alloc_matrix(n, n));
  double* out = result.begin();
  run_interruptible(ctx, [&] { return fc_pcc_dense_f64(ctx, s, out, n); });
  nan_to_na(out, result.size());
  set_unit_diagonal(out, n);
  return result;
  END_RCPP
}

// cor(x, y): n_x x n_y, column-major. fc_pcc_cross writes row-major a x b, so asking for
// (a = y, b = x) gives exactly R's column-major n_x x n_y layout without a transpose.
SEXP fcr_pcc_cross(SEXP context, SEXP series_x, SEXP series_y) {
  BEGIN_RCPP
  fc_context* ctx = unwrap_handle<fc_context>(context, kContextTag);
  const fc_series* x = unwrap_handle<fc_series>(series_x, kSeriesTag);
  const fc_series* y = unwrap_handle<fc_series>(series_y, kSeriesTag);
  const int64_t n_x = series_count(x), n_y = series_count(y);
  Rcpp::NumericVector result(alloc_matrix(n_x, n_y));
  run_interruptible(ctx, [&] { return fc_pcc_cross_f64(ctx, y, x, result.begin(), n_x); });
  nan_to_na(result.begin(), result.size());
  return result;
  END_RCPP
}

// The row-ordered strict upper triangle: exactly the storage order of R's "dist".
SEXP fcr_pcc_triu(SEXP context, SEXP series) {
  BEGIN_RCPP
  fc_context* ctx = unwrap_handle<fc_context>(context, kContextTag);
  const fc_series* s = unwrap_handle<fc_series>(series, kSeriesTag);
  const int64_t pairs = fc_triu_size(series_count(s));
  Rcpp::NumericVector result(Rcpp::no_init(static_cast<R_xlen_t>(pairs)));
  if (precision_of(ctx) == FC_PRECISION_FP64) {
    run_interruptible(ctx, [&] { return fc_pcc_triu_f64(ctx, s, FC_TRIU_ROW, result.begin(), pairs); });
    nan_to_na(result.begin(), result.size());
  } else {
    run_interruptible(ctx, [&] { return fc_pcc_triu(ctx, s, FC_TRIU_ROW, as_float_buffer(result), pairs); });
    widen_floats_in_place(result.begin(), result.size());
  }
  return result;
  END_RCPP
}

// The pull iterator; R drives the loop (and calls the user's function) between these calls.
SEXP fcr_blocks_begin(SEXP context, SEXP series, SEXP rows_per_block) {
  BEGIN_RCPP
  fc_context* ctx = unwrap_handle<fc_context>(context, kContextTag);
  const fc_series* s = unwrap_handle<fc_series>(series, kSeriesTag);
  auto* cursor = new BlockCursor;
  CursorHandle handle = make_handle<CursorHandle>(cursor, kCursorTag);
  check(fc_pcc_blocks_begin(ctx, s, static_cast<int64_t>(Rcpp::as<double>(rows_per_block)), &cursor->blocks));
  int64_t max_count = 0;
  check(fc_blocks_max_count(cursor->blocks, &max_count));
  cursor->buffer.resize(static_cast<size_t>(max_count));
  return handle;
  END_RCPP
}

// The next block as list(values, info), or NULL once every block was delivered. info uses R's
// conventions: rows row_begin..row_end (1-based, inclusive); values are
// dist[triu_offset + seq_len(count)] (triu_offset = pairs before the block).
SEXP fcr_blocks_next(SEXP cursor_handle) {
  BEGIN_RCPP
  Rcpp::checkUserInterrupt();
  BlockCursor* cursor = unwrap_handle<BlockCursor>(cursor_handle, kCursorTag);
  fc_block_info info{};
  const fc_status status =
      fc_blocks_next_f64(cursor->blocks, cursor->buffer.data(), static_cast<int64_t>(cursor->buffer.size()), &info);
  if (status == FC_DONE) return R_NilValue;
  check(status);
  Rcpp::NumericVector values(cursor->buffer.begin(), cursor->buffer.begin() + info.count);
  nan_to_na(values.begin(), values.size());
  // int64 counts travel as doubles (exact below 2^53); R integers stop at 2^31.
  Rcpp::List r_info = Rcpp::List::create(Rcpp::Named("row_begin") = static_cast<double>(info.row_begin + 1),
                                         Rcpp::Named("row_end") = static_cast<double>(info.row_end),
                                         Rcpp::Named("triu_offset") = static_cast<double>(info.triu_offset),
                                         Rcpp::Named("count") = static_cast<double>(info.count));
  return Rcpp::List::create(Rcpp::Named("values") = values, Rcpp::Named("info") = r_info);
  END_RCPP
}

// The network under an edge rule (fc_edge_rule code and parameter, fc_graph_weights code) as a
// symmetric dgCMatrix; dimnames is list(names, names) (or of NULLs). The library's graph lives
// only during this call, in a handle so that an R error on the way frees it too.
SEXP fcr_pcc_graph(SEXP context, SEXP series, SEXP rule, SEXP param, SEXP weights, SEXP dimnames) {
  BEGIN_RCPP
  fc_context* ctx = unwrap_handle<fc_context>(context, kContextTag);
  const fc_series* s = unwrap_handle<fc_series>(series, kSeriesTag);
  fc_graph* raw = nullptr;
  run_interruptible(ctx, [&] {
    return fc_pcc_graph(ctx, s, static_cast<fc_edge_rule>(Rcpp::as<int>(rule)), Rcpp::as<double>(param),
                        Rcpp::as<int>(weights), &raw);
  });
  GraphHandle handle = make_handle<GraphHandle>(raw, kGraphTag);
  Rcpp::RObject matrix = graph_as_dgCMatrix(raw, dimnames);
  handle.release();  // free the library's copy now rather than at garbage collection
  return matrix;
  END_RCPP
}

// Degree and strength per series (fc_pcc_degree) as list(degree = integer, strength = double);
// a degree is at most N - 1, and N is an R column count, so it fits an R integer.
SEXP fcr_pcc_degree(SEXP context, SEXP series, SEXP rule, SEXP param) {
  BEGIN_RCPP
  fc_context* ctx = unwrap_handle<fc_context>(context, kContextTag);
  const fc_series* s = unwrap_handle<fc_series>(series, kSeriesTag);
  const int64_t n = series_count(s);
  std::vector<int64_t> degree(static_cast<size_t>(n));
  Rcpp::NumericVector strength(Rcpp::no_init(static_cast<R_xlen_t>(n)));
  run_interruptible(ctx, [&] {
    return fc_pcc_degree(ctx, s, static_cast<fc_edge_rule>(Rcpp::as<int>(rule)), Rcpp::as<double>(param), degree.data(),
                         strength.begin());
  });
  Rcpp::IntegerVector r_degree(degree.begin(), degree.end());
  return Rcpp::List::create(Rcpp::Named("degree") = r_degree, Rcpp::Named("strength") = strength);
  END_RCPP
}


// ---------------------------------------------------------------------------------------------
// Dynamic connectivity (sliding windows). `spec` is list(length, step, taper, sigma).
// ---------------------------------------------------------------------------------------------

// Every window's triangle as a W x P matrix (R's windows-in-rows layout, pairs in dist order),
// and per window the number of series constant in it (attribute "n_constant"). FP32 / TF32:
// the pull iterator delivers whole windows (or row blocks of very large ones) into a float
// buffer of at most 64 MiB, scattered into the W x P result, so nothing of W x P size exists
// twice. FP64: each window as a series (fc_dfc_window) through fc_pcc_triu_f64.
SEXP fcr_dfc_triu(SEXP context, SEXP series, SEXP spec) {
  BEGIN_RCPP
  fc_context* ctx = unwrap_handle<fc_context>(context, kContextTag);
  const fc_series* s = unwrap_handle<fc_series>(series, kSeriesTag);
  const WindowSpec w = window_spec(spec);
  fc_dfc* raw = nullptr;
  check(fc_dfc_begin(ctx, s, w.length, w.step, w.taper, w.sigma, &raw));
  DfcHandle handle = make_handle<DfcHandle>(raw, kDfcTag);
  int64_t n_windows = 0, n = 0;
  check(fc_dfc_info(raw, &n_windows, &n, nullptr));
  const int64_t pairs = fc_triu_size(n);
  Rcpp::NumericVector result(alloc_matrix(n_windows, pairs));
  Rcpp::IntegerVector n_constant(static_cast<R_xlen_t>(n_windows));
  double* out = result.begin();
  if (precision_of(ctx) == FC_PRECISION_FP64) {
    std::vector<double> triangle(static_cast<size_t>(pairs));
    for (int64_t k = 0; k < n_windows; ++k) {
      fc_series* window = nullptr;
      check(fc_dfc_window(raw, k, &window));
      SeriesHandle window_handle = make_handle<SeriesHandle>(window, kSeriesTag);
      run_interruptible(ctx, [&] { return fc_pcc_triu_f64(ctx, window, FC_TRIU_ROW, triangle.data(), pairs); });
      int64_t constant = 0;
      check(fc_series_info(window, nullptr, nullptr, &constant));
      n_constant[static_cast<R_xlen_t>(k)] = static_cast<int>(constant);
      for (int64_t p = 0; p < pairs; ++p) {
        const double v = triangle[static_cast<size_t>(p)];
        out[k + p * n_windows] = std::isnan(v) ? NA_REAL : v;
      }
      window_handle.release();
      Rcpp::checkUserInterrupt();
    }
  } else {
    // Windows arrive whole (capacity >= one triangle) and are staged up to 16 at a time, up to
    // 2^24 values (64 MiB), so that the transposing scatter into the W x P result writes runs of
    // adjacent doubles instead of one value per cache line per window. A window larger than
    // that arrives in row blocks, each scattered as it comes; one row always fits.
    const int64_t whole_limit = int64_t(1) << 24;
    const int64_t staged = (pairs > 0 && pairs <= whole_limit) ? std::min<int64_t>(16, whole_limit / pairs) : 1;
    const int64_t capacity = staged > 1 ? pairs : std::max<int64_t>(std::min<int64_t>(pairs, whole_limit), std::max<int64_t>(n - 1, 1));
    std::vector<float> buffer(static_cast<size_t>(staged * capacity));
    int64_t first = 0, filled = 0;  // windows first .. first + filled - 1 are staged
    auto flush = [&] {
      for (int64_t p = 0; p < pairs; ++p) {
        double* row = out + first + p * n_windows;
        for (int64_t b = 0; b < filled; ++b) row[b] = widen(buffer[static_cast<size_t>(b * pairs + p)]);
      }
      first += filled;
      filled = 0;
    };
    for (;;) {
      fc_dfc_block_info info{};
      float* slot = buffer.data() + (staged > 1 ? filled * pairs : 0);
      const fc_status status = run_interruptible(ctx, [&] { return fc_dfc_next_triu(raw, slot, capacity, &info); });
      if (status == FC_DONE) break;
      n_constant[static_cast<R_xlen_t>(info.window)] = static_cast<int>(info.n_constant);
      if (staged > 1 && info.triu_offset == 0 && info.count == pairs && info.window == first + filled) {
        if (++filled == staged) flush();
      } else {  // a row block (or, against the header, a partial window): scatter it now
        if (filled > 0) flush();  // reads only the slots before `slot`
        double* column = out + info.window + info.triu_offset * n_windows;
        for (int64_t c = 0; c < info.count; ++c) column[c * n_windows] = widen(slot[c]);
        first = info.window + 1;
      }
      Rcpp::checkUserInterrupt();  // between blocks, whether or not the library reported progress
    }
    if (filled > 0) flush();
  }
  handle.release();
  result.attr("n_constant") = n_constant;
  return result;
  END_RCPP
}

// The window iterator, for R loops over windows (graphs).
SEXP fcr_dfc_begin(SEXP context, SEXP series, SEXP spec) {
  BEGIN_RCPP
  fc_context* ctx = unwrap_handle<fc_context>(context, kContextTag);
  const fc_series* s = unwrap_handle<fc_series>(series, kSeriesTag);
  const WindowSpec w = window_spec(spec);
  fc_dfc* raw = nullptr;
  check(fc_dfc_begin(ctx, s, w.length, w.step, w.taper, w.sigma, &raw));
  return make_handle<DfcHandle>(raw, kDfcTag);
  END_RCPP
}

// c(windows, series, length) of an iterator.
SEXP fcr_dfc_info(SEXP dfc) {
  BEGIN_RCPP
  const fc_dfc* d = unwrap_handle<fc_dfc>(dfc, kDfcTag);
  int64_t n_windows = 0, n = 0, length = 0;
  check(fc_dfc_info(d, &n_windows, &n, &length));
  return Rcpp::NumericVector::create(static_cast<double>(n_windows), static_cast<double>(n), static_cast<double>(length));
  END_RCPP
}

// The next window's network as list(window = 1-based index, graph = dgCMatrix), or NULL after
// the last window. The context is the iterator's (for Ctrl-C through its progress callback).
SEXP fcr_dfc_next_graph(SEXP context, SEXP dfc, SEXP rule, SEXP param, SEXP weights, SEXP dimnames) {
  BEGIN_RCPP
  fc_context* ctx = unwrap_handle<fc_context>(context, kContextTag);
  fc_dfc* d = unwrap_handle<fc_dfc>(dfc, kDfcTag);
  fc_graph* raw = nullptr;
  int64_t window = -1;
  const fc_status status = run_interruptible(ctx, [&] {
    return fc_dfc_next_graph(d, static_cast<fc_edge_rule>(Rcpp::as<int>(rule)), Rcpp::as<double>(param),
                             Rcpp::as<int>(weights), &raw, &window);
  });
  if (status == FC_DONE) {
    fc_graph_destroy(raw);  // NULL by contract; harmless otherwise
    return R_NilValue;
  }
  GraphHandle handle = make_handle<GraphHandle>(raw, kGraphTag);
  Rcpp::RObject matrix = graph_as_dgCMatrix(raw, dimnames);
  handle.release();
  return Rcpp::List::create(Rcpp::Named("window") = static_cast<double>(window + 1), Rcpp::Named("graph") = matrix);
  END_RCPP
}

// Time-resolved degree and strength as W x N matrices (R layout: window k, series s at
// k + s * W; the library writes window-major k * N + s).
SEXP fcr_dfc_degree(SEXP context, SEXP series, SEXP spec, SEXP rule, SEXP param) {
  BEGIN_RCPP
  fc_context* ctx = unwrap_handle<fc_context>(context, kContextTag);
  const fc_series* s = unwrap_handle<fc_series>(series, kSeriesTag);
  const WindowSpec w = window_spec(spec);
  const int64_t n = series_count(s), n_windows = window_count(s, w);
  std::vector<int64_t> degree(static_cast<size_t>(n_windows * n));
  std::vector<double> strength(static_cast<size_t>(n_windows * n));
  run_interruptible(ctx, [&] {
    return fc_dfc_degree(ctx, s, w.length, w.step, w.taper, w.sigma, static_cast<fc_edge_rule>(Rcpp::as<int>(rule)),
                         Rcpp::as<double>(param), degree.data(), strength.data());
  });
  Rcpp::IntegerVector r_degree(Rcpp::no_init(static_cast<R_xlen_t>(n_windows * n)));
  Rcpp::NumericVector r_strength(Rcpp::no_init(static_cast<R_xlen_t>(n_windows * n)));
  for (int64_t k = 0; k < n_windows; ++k)
    for (int64_t i = 0; i < n; ++i) {
      r_degree[static_cast<R_xlen_t>(k + i * n_windows)] = static_cast<int>(degree[static_cast<size_t>(k * n + i)]);
      r_strength[static_cast<R_xlen_t>(k + i * n_windows)] = strength[static_cast<size_t>(k * n + i)];
    }
  const Rcpp::IntegerVector dim = Rcpp::IntegerVector::create(static_cast<int>(n_windows), static_cast<int>(n));
  r_degree.attr("dim") = dim;
  r_strength.attr("dim") = dim;
  return Rcpp::List::create(Rcpp::Named("degree") = r_degree, Rcpp::Named("strength") = r_strength);
  END_RCPP
}

// list(centrality = W x N fast ECM, one row per window (NaN as NA), value = W eigenvalues) of
// fc_dfc_ecm, whose window-major layout is transposed into R's column-major matrix.
SEXP fcr_dfc_ecm(SEXP context, SEXP series, SEXP spec, SEXP tolerance) {
  BEGIN_RCPP
  fc_context* ctx = unwrap_handle<fc_context>(context, kContextTag);
  const fc_series* s = unwrap_handle<fc_series>(series, kSeriesTag);
  const WindowSpec w = window_spec(spec);
  const int64_t n = series_count(s), n_windows = window_count(s, w);
  std::vector<double> centrality(static_cast<size_t>(n_windows * n));
  Rcpp::NumericVector values(Rcpp::no_init(static_cast<R_xlen_t>(n_windows)));
  const double tol = Rcpp::as<double>(tolerance);
  run_interruptible(ctx, [&] {
    return fc_dfc_ecm(ctx, s, w.length, w.step, w.taper, w.sigma, tol, centrality.data(), n_windows * n, values.begin());
  });
  Rcpp::NumericMatrix r_centrality(Rcpp::no_init(static_cast<int>(n_windows), static_cast<int>(n)));
  for (int64_t k = 0; k < n_windows; ++k)
    for (int64_t i = 0; i < n; ++i) r_centrality(k, i) = centrality[static_cast<size_t>(k * n + i)];
  nan_to_na(r_centrality.begin(), r_centrality.size());
  return Rcpp::List::create(Rcpp::Named("centrality") = r_centrality, Rcpp::Named("value") = values);
  END_RCPP
}

// Per-pair mean and sd of r over the windows, in dist order.
SEXP fcr_dfc_summary(SEXP context, SEXP series, SEXP spec) {
  BEGIN_RCPP
  fc_context* ctx = unwrap_handle<fc_context>(context, kContextTag);
  const fc_series* s = unwrap_handle<fc_series>(series, kSeriesTag);
  const WindowSpec w = window_spec(spec);
  const int64_t pairs = fc_triu_size(series_count(s));
  Rcpp::NumericVector mean(Rcpp::no_init(static_cast<R_xlen_t>(pairs)));
  Rcpp::NumericVector sd(Rcpp::no_init(static_cast<R_xlen_t>(pairs)));
  run_interruptible(ctx, [&] {
    return fc_dfc_summary(ctx, s, w.length, w.step, w.taper, w.sigma, FC_TRIU_ROW, mean.begin(), sd.begin(), pairs);
  });
  nan_to_na(mean.begin(), mean.size());
  nan_to_na(sd.begin(), sd.size());
  return Rcpp::List::create(Rcpp::Named("mean") = mean, Rcpp::Named("sd") = sd);
  END_RCPP
}

// list(factor = N x rank, rel_error) of the whole series set.
SEXP fcr_pcc_lowrank(SEXP context, SEXP series, SEXP rank_value) {
  BEGIN_RCPP
  fc_context* ctx = unwrap_handle<fc_context>(context, kContextTag);
  const fc_series* s = unwrap_handle<fc_series>(series, kSeriesTag);
  const int64_t n = series_count(s), rank = as_int64(rank_value);
  std::vector<float> factor(static_cast<size_t>(n * rank));
  double rel_error = 0;
  run_interruptible(ctx, [&] {
    return fc_pcc_lowrank(ctx, s, rank, factor.data(), static_cast<int64_t>(factor.size()), &rel_error);
  });
  return Rcpp::List::create(Rcpp::Named("factor") = factor_matrix(factor.data(), n, rank),
                            Rcpp::Named("rel_error") = rel_error);
  END_RCPP
}

// list(factors = W matrices N x rank, rel_error = W values) of every window.
SEXP fcr_dfc_lowrank(SEXP context, SEXP series, SEXP spec, SEXP rank_value) {
  BEGIN_RCPP
  fc_context* ctx = unwrap_handle<fc_context>(context, kContextTag);
  const fc_series* s = unwrap_handle<fc_series>(series, kSeriesTag);
  const WindowSpec w = window_spec(spec);
  const int64_t n = series_count(s), n_windows = window_count(s, w), rank = as_int64(rank_value);
  std::vector<float> factors(static_cast<size_t>(n_windows * n * rank));
  Rcpp::NumericVector rel_error(Rcpp::no_init(static_cast<R_xlen_t>(n_windows)));
  run_interruptible(ctx, [&] {
    return fc_dfc_lowrank(ctx, s, w.length, w.step, w.taper, w.sigma, rank, factors.data(),
                          static_cast<int64_t>(factors.size()), rel_error.begin());
  });
  Rcpp::List list(static_cast<R_xlen_t>(n_windows));
  for (int64_t k = 0; k < n_windows; ++k) list[static_cast<R_xlen_t>(k)] = factor_matrix(factors.data() + k * n * rank, n, rank);
  return Rcpp::List::create(Rcpp::Named("factors") = list, Rcpp::Named("rel_error") = rel_error);
  END_RCPP
}

// ---------------------------------------------------------------------------------------------
// Modules. The graph comes as a symmetric dgCMatrix's slots (p, i, x).
// ---------------------------------------------------------------------------------------------

// options: list(eigen_threshold, resolution, max_communities, min_size, seed, signed_mode, refine).
// Returns list(labels = 0-based integer labels, q, splits = list of the division tree's columns).
SEXP fcr_modularity(SEXP context, SEXP p, SEXP i, SEXP x, SEXP options) {
  BEGIN_RCPP
  fc_context* ctx = unwrap_handle<fc_context>(context, kContextTag);
  GraphHandle graph = graph_from_csc(p, i, x);
  Rcpp::List opt(options);
  fc_modularity_options o;
  check(fc_modularity_options_default(&o));
  o.eigen_threshold = Rcpp::as<double>(opt["eigen_threshold"]);
  o.resolution = Rcpp::as<double>(opt["resolution"]);
  o.max_communities = as_int64(opt["max_communities"]);
  o.min_community_size = as_int64(opt["min_size"]);
  o.seed = static_cast<uint64_t>(Rcpp::as<double>(opt["seed"]));
  o.signed_mode = Rcpp::as<int>(opt["signed_mode"]);
  o.refine = Rcpp::as<bool>(opt["refine"]) ? 1 : 0;
  fc_modules* raw = nullptr;
  run_interruptible(ctx, [&] { return fc_modularity(ctx, graph.get(), &o, &raw); });
  ModulesHandle modules = make_handle<ModulesHandle>(raw, kModulesTag);
  graph.release();
  int64_t n = 0, k = 0, n_splits = 0;
  double q = 0;
  check(fc_modules_info(raw, &n, &k, &q, &n_splits));
  std::vector<int64_t> labels(static_cast<size_t>(n));
  check(fc_modules_labels(raw, labels.data(), n));
  const size_t m = static_cast<size_t>(n_splits);
  std::vector<int64_t> parent(m), child_a(m), child_b(m), iterations(m);
  Rcpp::NumericVector eigenvalue(m), gain(m), residual(m);
  if (n_splits > 0)
    check(fc_modules_splits(raw, parent.data(), child_a.data(), child_b.data(), eigenvalue.begin(), gain.begin(),
                            iterations.data(), residual.begin(), n_splits));
  modules.release();
  auto as_doubles = [](const std::vector<int64_t>& v) { return Rcpp::NumericVector(v.begin(), v.end()); };
  Rcpp::List splits = Rcpp::List::create(
      Rcpp::Named("parent") = as_doubles(parent), Rcpp::Named("child_a") = as_doubles(child_a),
      Rcpp::Named("child_b") = as_doubles(child_b), Rcpp::Named("eigenvalue") = eigenvalue,
      Rcpp::Named("gain") = gain, Rcpp::Named("iterations") = as_doubles(iterations),
      Rcpp::Named("residual") = residual);
  return Rcpp::List::create(Rcpp::Named("labels") = Rcpp::IntegerVector(labels.begin(), labels.end()),
                            Rcpp::Named("q") = q, Rcpp::Named("n_communities") = static_cast<double>(k),
                            Rcpp::Named("splits") = splits);
  END_RCPP
}

// Q of a partition (labels: non-negative whole numbers, one per node, checked in R).
SEXP fcr_modularity_score(SEXP p, SEXP i, SEXP x, SEXP labels, SEXP resolution) {
  BEGIN_RCPP
  GraphHandle graph = graph_from_csc(p, i, x);
  Rcpp::NumericVector l(labels);
  std::vector<int64_t> values(l.begin(), l.end());
  double q = 0;
  check(fc_modularity_score(graph.get(), values.data(), Rcpp::as<double>(resolution), &q));
  graph.release();
  return Rcpp::wrap(q);
  END_RCPP
}

// fastconn_api.cpp
SEXP fcr_version();
SEXP fcr_cuda_status();
SEXP fcr_cpu_info();
SEXP fcr_context_configure(SEXP, SEXP, SEXP);
SEXP fcr_context_backend(SEXP);
SEXP fcr_pcc_triu_order(SEXP, SEXP, SEXP);
SEXP fcr_pcc_triu_compact(SEXP, SEXP, SEXP, SEXP, SEXP);
SEXP fcr_triu_offset(SEXP, SEXP, SEXP, SEXP);
SEXP fcr_triu_pair(SEXP, SEXP, SEXP);
SEXP fcr_graph_save(SEXP, SEXP, SEXP, SEXP);
SEXP fcr_graph_load(SEXP);
SEXP fcr_series_window(SEXP, SEXP, SEXP, SEXP, SEXP, SEXP);
SEXP fcr_dfc_window(SEXP, SEXP);
// fastconn_centrality.cpp
SEXP fcr_series_create_ranked(SEXP, SEXP);
SEXP fcr_pcc_ecm(SEXP, SEXP, SEXP);
SEXP fcr_pcc_ecm_thresholded(SEXP, SEXP, SEXP, SEXP, SEXP, SEXP);
SEXP fcr_graph_eigen_centrality(SEXP, SEXP, SEXP, SEXP, SEXP, SEXP);
SEXP fcr_fisher_z(SEXP);
// fastconn_partial.cpp
SEXP fcr_partial_correlation(SEXP, SEXP, SEXP, SEXP);
// fastconn_lfcd.cpp
SEXP fcr_pcc_lfcd(SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP);
// fastconn_modules.cpp
SEXP fcr_leiden(SEXP, SEXP, SEXP, SEXP, SEXP, SEXP);
SEXP fcr_multilayer(SEXP, SEXP, SEXP, SEXP, SEXP);

static const R_CallMethodDef call_methods[] = {
    {"fcr_context_create", (DL_FUNC)&fcr_context_create, 4},
    {"fcr_series_create", (DL_FUNC)&fcr_series_create, 2},
    {"fcr_series_constant", (DL_FUNC)&fcr_series_constant, 1},
    {"fcr_release", (DL_FUNC)&fcr_release, 1},
    {"fcr_pcc_dense", (DL_FUNC)&fcr_pcc_dense, 2},
    {"fcr_pcc_cross", (DL_FUNC)&fcr_pcc_cross, 3},
    {"fcr_pcc_triu", (DL_FUNC)&fcr_pcc_triu, 2},
    {"fcr_blocks_begin", (DL_FUNC)&fcr_blocks_begin, 3},
    {"fcr_blocks_next", (DL_FUNC)&fcr_blocks_next, 1},
    {"fcr_pcc_graph", (DL_FUNC)&fcr_pcc_graph, 6},
    {"fcr_pcc_degree", (DL_FUNC)&fcr_pcc_degree, 4},
    {"fcr_dfc_triu", (DL_FUNC)&fcr_dfc_triu, 3},
    {"fcr_dfc_begin", (DL_FUNC)&fcr_dfc_begin, 3},
    {"fcr_dfc_info", (DL_FUNC)&fcr_dfc_info, 1},
    {"fcr_dfc_next_graph", (DL_FUNC)&fcr_dfc_next_graph, 6},
    {"fcr_dfc_degree", (DL_FUNC)&fcr_dfc_degree, 5},
    {"fcr_dfc_summary", (DL_FUNC)&fcr_dfc_summary, 3},
    {"fcr_dfc_ecm", (DL_FUNC)&fcr_dfc_ecm, 4},
    {"fcr_pcc_lowrank", (DL_FUNC)&fcr_pcc_lowrank, 3},
    {"fcr_dfc_lowrank", (DL_FUNC)&fcr_dfc_lowrank, 4},
    {"fcr_modularity", (DL_FUNC)&fcr_modularity, 5},
    {"fcr_modularity_score", (DL_FUNC)&fcr_modularity_score, 5},
    {"fcr_version", (DL_FUNC)&fcr_version, 0},
    {"fcr_cuda_status", (DL_FUNC)&fcr_cuda_status, 0},
    {"fcr_cpu_info", (DL_FUNC)&fcr_cpu_info, 0},
    {"fcr_context_configure", (DL_FUNC)&fcr_context_configure, 3},
    {"fcr_context_backend", (DL_FUNC)&fcr_context_backend, 1},
    {"fcr_pcc_triu_order", (DL_FUNC)&fcr_pcc_triu_order, 3},
    {"fcr_pcc_triu_compact", (DL_FUNC)&fcr_pcc_triu_compact, 5},
    {"fcr_triu_offset", (DL_FUNC)&fcr_triu_offset, 4},
    {"fcr_triu_pair", (DL_FUNC)&fcr_triu_pair, 3},
    {"fcr_graph_save", (DL_FUNC)&fcr_graph_save, 4},
    {"fcr_graph_load", (DL_FUNC)&fcr_graph_load, 1},
    {"fcr_series_window", (DL_FUNC)&fcr_series_window, 6},
    {"fcr_dfc_window", (DL_FUNC)&fcr_dfc_window, 2},
    {"fcr_series_create_ranked", (DL_FUNC)&fcr_series_create_ranked, 2},
    {"fcr_pcc_ecm", (DL_FUNC)&fcr_pcc_ecm, 3},
    {"fcr_pcc_ecm_thresholded", (DL_FUNC)&fcr_pcc_ecm_thresholded, 6},
    {"fcr_graph_eigen_centrality", (DL_FUNC)&fcr_graph_eigen_centrality, 6},
    {"fcr_fisher_z", (DL_FUNC)&fcr_fisher_z, 1},
    {"fcr_partial_correlation", (DL_FUNC)&fcr_partial_correlation, 4},
    {"fcr_pcc_lfcd", (DL_FUNC)&fcr_pcc_lfcd, 7},
    {"fcr_leiden", (DL_FUNC)&fcr_leiden, 6},
    {"fcr_multilayer", (DL_FUNC)&fcr_multilayer, 5},
    {nullptr, nullptr, 0}};

void R_init_fastconn(DllInfo* dll) {
  R_registerRoutines(dll, nullptr, call_methods, nullptr, nullptr);
  R_useDynamicSymbols(dll, FALSE);
}

}  // extern "C"
