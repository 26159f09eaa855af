// The rest of the C API for R, beside fastconn_bindings.cpp: the library's version and CUDA
// build, context settings (threads, memory limit), the triangle in either order and its index
// helpers, graph files (fc_graph_save / fc_graph_load), and single windows as series
// (fc_series_window, fc_dfc_window) that the other entry points then take like any series.
#include <Rcpp.h>
#include <algorithm>
#include <cstdint>

#include <string>
#include <vector>

#include <fastconn/fastconn.h>

#include "glue.hpp"

using namespace fcr;

extern "C" {

// "major.minor.patch" of the loaded library (not of the package).
SEXP fcr_version() {
  BEGIN_RCPP
  int major = 0, minor = 0, patch = 0;
  fc_version(&major, &minor, &patch);
  return Rcpp::wrap(std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch));
  END_RCPP
}

// fc_cpu_info: the CPU backend's pair-kernel path and BLAS kernel, one line.
SEXP fcr_cpu_info() {
  BEGIN_RCPP
  return Rcpp::wrap(std::string(fc_cpu_info()));
  END_RCPP
}

// c(built_in, usable): CUDA compiled into the library, and a context on it can be created now.
SEXP fcr_cuda_status() {
  BEGIN_RCPP
  const bool built = fc_has_cuda() != 0;
  bool usable = false;
  if (built) {
    fc_context* ctx = nullptr;
    usable = fc_context_create(FC_BACKEND_CUDA, -1, &ctx) == FC_OK;
    fc_context_destroy(ctx);
  }
  return Rcpp::LogicalVector::create(built, usable);
  END_RCPP
}

// Threads (0 = every core) and the memory limit in bytes (0 = what is free), checked in R.
SEXP fcr_context_configure(SEXP context, SEXP threads, SEXP memory_limit) {
  BEGIN_RCPP
  fc_context* ctx = unwrap_handle<fc_context>(context, kContextTag);
  check(fc_context_set_threads(ctx, Rcpp::as<int>(threads)));
  check(fc_context_set_memory_limit(ctx, static_cast<int64_t>(Rcpp::as<double>(memory_limit))));
  return R_NilValue;
  END_RCPP
}

// The name of the backend the context runs on ("cpu" or "cuda": what "auto" chose).
SEXP fcr_context_backend(SEXP context) {
  BEGIN_RCPP
  const fc_context* ctx = unwrap_handle<fc_context>(context, kContextTag);
  fc_backend backend = FC_BACKEND_AUTO;
  check(fc_context_get_backend(ctx, &backend));
  return Rcpp::wrap(std::string(backend == FC_BACKEND_CUDA ? "cuda" : "cpu"));
  END_RCPP
}

namespace {

// What a triangle call works on: the context, the series, their pair count and the order.
struct TriangleCall {
  fc_context* ctx;
  const fc_series* s;
  int64_t pairs;
  fc_triu_order order;
};

TriangleCall triangle_call(SEXP context, SEXP series, SEXP order) {
  TriangleCall t;
  t.ctx = unwrap_handle<fc_context>(context, kContextTag);
  t.s = unwrap_handle<fc_series>(series, kSeriesTag);
  int64_t n = 0;
  check(fc_series_info(t.s, &n, nullptr, nullptr));
  t.pairs = fc_triu_size(n);
  t.order = static_cast<fc_triu_order>(Rcpp::as<int>(order));
  return t;
}

}  // namespace

// The strict upper triangle in `order` (0 row, 1 column): doubles, FP64 values unrounded and
// the others' float values widened bit for bit (fc_pcc_triu_f64), NaN as NA.
SEXP fcr_pcc_triu_order(SEXP context, SEXP series, SEXP order) {
  BEGIN_RCPP
  const TriangleCall t = triangle_call(context, series, order);
  Rcpp::NumericVector result(Rcpp::no_init(static_cast<R_xlen_t>(t.pairs)));
  run_interruptible(t.ctx, [&] { return fc_pcc_triu_f64(t.ctx, t.s, t.order, result.begin(), t.pairs); });
  nan_to_na(result.begin(), result.size());
  return result;
  END_RCPP
}

// The triangle in `order` through fc_pcc_triu_compact (format 1 int16, 2 half: 2 bytes a pair
// leave a GPU), then either decoded into doubles (fc_decode_values_f64, NaN as NA) or, with
// `codes` TRUE, the codes themselves as integers (int16 codes, or half's 16 bits 0 .. 65535).
SEXP fcr_pcc_triu_compact(SEXP context, SEXP series, SEXP order, SEXP format, SEXP codes) {
  BEGIN_RCPP
  const TriangleCall t = triangle_call(context, series, order);
  const int64_t pairs = t.pairs;
  const auto f = static_cast<fc_value_format>(Rcpp::as<int>(format));
  std::vector<uint16_t> raw(static_cast<size_t>(std::max<int64_t>(pairs, 1)));
  run_interruptible(t.ctx, [&] { return fc_pcc_triu_compact(t.ctx, t.s, t.order, f, raw.data(), pairs); });
  if (Rcpp::as<bool>(codes)) {
    Rcpp::IntegerVector result(Rcpp::no_init(static_cast<R_xlen_t>(pairs)));
    for (int64_t k = 0; k < pairs; ++k)
      result[k] = f == FC_VALUES_INT16 ? static_cast<int>(static_cast<int16_t>(raw[k])) : static_cast<int>(raw[k]);
    return result;
  }
  Rcpp::NumericVector result(Rcpp::no_init(static_cast<R_xlen_t>(pairs)));
  check(fc_decode_values_f64(f, raw.data(), pairs, result.begin()));
  nan_to_na(result.begin(), result.size());
  return result;
  END_RCPP
}

// 0-based offsets of the pairs (i, j) (0-based, vectors of equal length) in the triangle of n
// series in `order`; -1 where a pair does not exist (checked in R before).
SEXP fcr_triu_offset(SEXP n_series, SEXP order, SEXP i, SEXP j) {
  BEGIN_RCPP
  const int64_t n = static_cast<int64_t>(Rcpp::as<double>(n_series));
  const auto o = static_cast<fc_triu_order>(Rcpp::as<int>(order));
  Rcpp::NumericVector vi(i), vj(j);
  Rcpp::NumericVector out(vi.size());
  for (R_xlen_t k = 0; k < vi.size(); ++k)
    out[k] = static_cast<double>(fc_triu_offset(n, o, static_cast<int64_t>(vi[k]), static_cast<int64_t>(vj[k])));
  return out;
  END_RCPP
}

// The 0-based pairs (i < j) at 0-based offsets of the triangle: list(i, j).
SEXP fcr_triu_pair(SEXP n_series, SEXP order, SEXP offsets) {
  BEGIN_RCPP
  const int64_t n = static_cast<int64_t>(Rcpp::as<double>(n_series));
  const auto o = static_cast<fc_triu_order>(Rcpp::as<int>(order));
  Rcpp::NumericVector v(offsets);
  Rcpp::NumericVector out_i(v.size()), out_j(v.size());
  for (R_xlen_t k = 0; k < v.size(); ++k) {
    int64_t a = 0, b = 0;
    check(fc_triu_pair(n, o, static_cast<int64_t>(v[k]), &a, &b));
    out_i[k] = static_cast<double>(a);
    out_j[k] = static_cast<double>(b);
  }
  return Rcpp::List::create(Rcpp::Named("i") = out_i, Rcpp::Named("j") = out_j);
  END_RCPP
}

// Writes a symmetric dgCMatrix's slots (checked in R) as a graph file (fc_graph_save).
SEXP fcr_graph_save(SEXP p, SEXP i, SEXP x, SEXP path) {
  BEGIN_RCPP
  GraphHandle graph = graph_from_csc(p, i, x);
  check(fc_graph_save(graph.get(), Rcpp::as<std::string>(path).c_str()));
  graph.release();
  return R_NilValue;
  END_RCPP
}

// A graph file (fc_graph_load: the command line's .fcg, or fc_graph_save's) as a dgCMatrix.
SEXP fcr_graph_load(SEXP path) {
  BEGIN_RCPP
  fc_graph* raw = nullptr;
  check(fc_graph_load(Rcpp::as<std::string>(path).c_str(), &raw));
  GraphHandle graph = make_handle<GraphHandle>(raw, kGraphTag);
  Rcpp::RObject matrix = graph_as_dgCMatrix(raw, Rcpp::List::create(R_NilValue, R_NilValue));
  graph.release();
  return matrix;
  END_RCPP
}

// Time points [begin, begin + length) of a series (0-based begin), tapered, as a new series.
SEXP fcr_series_window(SEXP context, SEXP series, SEXP begin, SEXP length, SEXP taper, SEXP sigma) {
  BEGIN_RCPP
  fc_context* ctx = unwrap_handle<fc_context>(context, kContextTag);
  const fc_series* s = unwrap_handle<fc_series>(series, kSeriesTag);
  fc_series* raw = nullptr;
  check(fc_series_window(ctx, s, static_cast<int64_t>(Rcpp::as<double>(begin)),
                         static_cast<int64_t>(Rcpp::as<double>(length)), Rcpp::as<int>(taper), Rcpp::as<double>(sigma),
                         &raw));
  return make_handle<SeriesHandle>(raw, kSeriesTag);
  END_RCPP
}

// Window `index` (0-based) of an iterator as a series, without moving the iterator.
SEXP fcr_dfc_window(SEXP dfc, SEXP index) {
  BEGIN_RCPP
  const fc_dfc* d = unwrap_handle<fc_dfc>(dfc, kDfcTag);
  fc_series* raw = nullptr;
  check(fc_dfc_window(d, static_cast<int64_t>(Rcpp::as<double>(index)), &raw));
  return make_handle<SeriesHandle>(raw, kSeriesTag);
  END_RCPP
}

}  // extern "C"
