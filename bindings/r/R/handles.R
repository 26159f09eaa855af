# Handles to the C library: a context (backend and settings) and series (uploaded, normalized
# data). Both are external pointers with finalizers, so an error anywhere leaks nothing; callers
# also release them on exit, because a series can hold gigabytes until the next garbage
# collection.

# The C enum values (fastconn.h; values are explicit and only ever appended).
backend_codes <- c(auto = 0L, cpu = 1L, cuda = 2L)
precision_codes <- c(fp32 = 0L, fp64 = 1L, tf32 = 2L)

# Runs a .Call into the glue; errors (fastconn status + fc_last_error()) are reported against
# the user's call, e.g. "Error in fc_cor(x) : fastconn: ...", not against this helper.
glue_call <- function(call, routine, ...) {
  tryCatch(.Call(routine, ...), error = function(e) {
    e$call <- call
    stop(e)
  })
}

# backend "cuda" under fc_settings(devices = ...): one context over those GPUs (NULL: one device;
# integer(0): every visible one).
new_context <- function(backend, precision, constant, call) {
  devices <- settings$devices
  devices <- if (!identical(backend, "cuda") || identical(devices, "one")) NULL
             else if (identical(devices, "all")) integer(0) else devices
  context <- glue_call(call, C_fcr_context_create, backend_codes[[backend]], precision_codes[[precision]],
                       identical(constant, "zero"), devices)
  # fc_settings(): threads and memory limit for every context
  glue_call(call, C_fcr_context_configure, context, as.integer(settings$threads), settings$memory_limit)
  context
}

# x: a double matrix from as_series_matrix(); `arg` is its argument name for messages.
# method = "spearman": a series set of the columns' ranks, whose correlations are Spearman's rho.
new_series <- function(context, x, arg, call, method = "pearson") {
  create <- if (identical(method, "spearman")) C_fcr_series_create_ranked else C_fcr_series_create
  tryCatch(.Call(create, context, x), error = function(e) {
    if (grepl("FC_ERR_NONFINITE_INPUT", conditionMessage(e), fixed = TRUE))
      e <- simpleError(nonfinite_message(x, arg), call)
    else
      e$call <- call
    stop(e)
  })
}

# Warns, against the user's call, when columns of x have zero variance (their results are NA).
warn_constant <- function(series, x, arg, call) {
  which <- .Call(C_fcr_series_constant, series)
  if (length(which)) warning(simpleWarning(zero_variance_message(x, arg, which), call))
}

release <- function(handle) invisible(.Call(C_fcr_release, handle))
