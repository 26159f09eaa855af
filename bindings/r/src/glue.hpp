// glue.hpp - what the .Call entry points of this package share (fastconn_bindings.cpp and
// fastconn_api.cpp): errors carrying fc_last_error(), handles as tagged external pointers with
// finalizers, Ctrl-C wired to the library's progress callback, and graph conversions.
#pragma once

#include <Rcpp.h>

#include <cstdint>
#include <string>
#include <vector>

#include <fastconn/fastconn.h>

namespace fcr {

// ---------------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------------

// The message names the failing C function and the offending value (fc_last_error); the status
// name is appended so that R code can recognize a category (e.g. FC_ERR_NONFINITE_INPUT).
[[noreturn]] inline void stop_with_last_error(fc_status status) {
  std::string text = fc_last_error();
  if (text.empty()) text = "unknown failure";
  Rcpp::stop("fastconn: %s [%s]", text, fc_status_string(status));
}

inline void check(fc_status status) {
  if (status != FC_OK) stop_with_last_error(status);
}

// ---------------------------------------------------------------------------------------------
// Handles: external pointers tagged with their type, freed by a finalizer or explicitly.
// ---------------------------------------------------------------------------------------------

struct BlockCursor {
  fc_blocks* blocks = nullptr;
  // One block; sized once from fc_blocks_max_count. Doubles: fc_blocks_next_f64 gives FP64
  // precision's values unrounded and FP32's widened bit for bit, what R holds either way.
  std::vector<double> buffer;
  ~BlockCursor() { fc_blocks_destroy(blocks); }
};
inline void delete_cursor(BlockCursor* cursor) { delete cursor; }

using ContextHandle = Rcpp::XPtr<fc_context, Rcpp::PreserveStorage, fc_context_destroy, false>;
using SeriesHandle = Rcpp::XPtr<fc_series, Rcpp::PreserveStorage, fc_series_destroy, false>;
using CursorHandle = Rcpp::XPtr<BlockCursor, Rcpp::PreserveStorage, delete_cursor, false>;
using GraphHandle = Rcpp::XPtr<fc_graph, Rcpp::PreserveStorage, fc_graph_destroy, false>;
using DfcHandle = Rcpp::XPtr<fc_dfc, Rcpp::PreserveStorage, fc_dfc_destroy, false>;
using ModulesHandle = Rcpp::XPtr<fc_modules, Rcpp::PreserveStorage, fc_modules_destroy, false>;

const char* const kContextTag = "fastconn_context";
const char* const kSeriesTag = "fastconn_series";
const char* const kCursorTag = "fastconn_blocks";
const char* const kGraphTag = "fastconn_graph";
const char* const kDfcTag = "fastconn_dfc";
const char* const kModulesTag = "fastconn_modules";

// A new handle owns `pointer` from here on: if a later step fails, the finalizer frees it.
template <class Handle, class T>
Handle make_handle(T* pointer, const char* tag) {
  // The tag lets every entry point refuse a handle of the wrong kind instead of crashing.
  return Handle(pointer, true, Rf_install(tag));
}

template <class T>
T* unwrap_handle(SEXP handle, const char* tag) {
  if (TYPEOF(handle) != EXTPTRSXP || R_ExternalPtrTag(handle) != Rf_install(tag))
    Rcpp::stop("fastconn: internal error: expected a %s handle", tag);
  T* pointer = static_cast<T*>(R_ExternalPtrAddr(handle));
  if (pointer == nullptr) Rcpp::stop("fastconn: the %s handle was already released", tag);
  return pointer;
}

// ---------------------------------------------------------------------------------------------
// Interrupts during one long C call: fastconn's progress callback runs on this thread, so it
// may look for a pending Ctrl-C. R_ToplevelExec keeps R's longjmp from crossing C++ frames;
// the callback then asks fastconn to stop (FC_ERR_ABORTED) and we re-raise the interrupt.
// ---------------------------------------------------------------------------------------------

inline void check_interrupt_unsafe(void*) { R_CheckUserInterrupt(); }

struct InterruptState {
  bool interrupted = false;
};

inline int progress_checks_interrupt(int64_t, int64_t, void* user) {
  auto* state = static_cast<InterruptState*>(user);
  if (!R_ToplevelExec(check_interrupt_unsafe, nullptr)) state->interrupted = true;
  return state->interrupted ? 1 : 0;
}

// Runs `call` (which returns fc_status) with Ctrl-C wired to cancellation. Returns the status
// when it is FC_OK or FC_DONE (an iterator's end); any error becomes an R error.
template <class Call>
fc_status run_interruptible(fc_context* ctx, Call&& call) {
  InterruptState state;
  check(fc_context_set_progress(ctx, progress_checks_interrupt, &state));
  const fc_status status = call();
  fc_context_set_progress(ctx, nullptr, nullptr);
  if (state.interrupted) throw Rcpp::internal::InterruptedException();
  if (status != FC_DONE) check(status);
  return status;
}

// A series set made by `create` (fc_series_create_f64 or fc_series_create_ranked_f64) from x, a
// double matrix of T rows (time) x N columns (series), used in place: column-major storage is
// series_stride = T, time_stride = 1, so nothing is transposed or copied on the R side.
using SeriesCreate = fc_status (*)(fc_context*, const double*, int64_t, int64_t, int64_t, int64_t, fc_series**);
SEXP series_from_matrix(SEXP context, SEXP x, SeriesCreate create);

// The graph's CSR as a symmetric Matrix::dgCMatrix (dimnames: list(names, names) or of NULLs).
SEXP graph_as_dgCMatrix(const fc_graph* graph, SEXP dimnames);
// A symmetric dgCMatrix's slots (checked in R) as a library graph.
GraphHandle graph_from_csc(SEXP p_slot, SEXP i_slot, SEXP x_slot);
// A whole number that R holds as a double (checked in R) as int64_t.
int64_t as_int64(SEXP value);
// NaN (a pair with a constant series) to R's NA.
void nan_to_na(double* data, R_xlen_t n);

}  // namespace fcr
