# fc_cor() and fc_cor_dist(): the whole correlation matrix or triangle in one call.

fc_cor <- function(x, y = NULL, backend = c("auto", "cpu", "cuda"),
                   precision = c("fp32", "fp64", "tf32"), constant = c("na", "zero"),
                   method = c("pearson", "spearman")) {
  call <- sys.call()
  method <- check_method(method, call)
  backend <- match.arg(backend)
  precision <- match.arg(precision)
  constant <- match.arg(constant)
  x_is_vector <- is.null(dim(x)) && !is.data.frame(x)
  y_is_vector <- is.null(dim(y)) && !is.data.frame(y)
  if (is.null(y) && x_is_vector)
    stop(simpleError("supply both 'x' and 'y' or a matrix-like 'x'", call))
  x <- as_series_matrix(x, "x", call)
  if (!is.null(y)) {
    y <- as_series_matrix(y, "y", call)
    if (nrow(y) != nrow(x))
      stop(simpleError(sprintf("incompatible dimensions: 'x' has %d rows (time points) but 'y' has %d",
                               nrow(x), nrow(y)), call))
  }

  context <- new_context(backend, precision, constant, call)
  on.exit(release(context))
  series_x <- new_series(context, x, "x", call, method)
  on.exit(release(series_x), add = TRUE)
  if (is.null(y)) {
    r <- glue_call(call, C_fcr_pcc_dense, context, series_x)
    if (!is.null(colnames(x))) dimnames(r) <- list(colnames(x), colnames(x))
  } else {
    series_y <- new_series(context, y, "y", call, method)
    on.exit(release(series_y), add = TRUE)
    r <- glue_call(call, C_fcr_pcc_cross, context, series_x, series_y)
    if (!is.null(colnames(x)) || !is.null(colnames(y))) dimnames(r) <- list(colnames(x), colnames(y))
  }
  # Like cor(), say when zero-variance columns turned into NA.
  if (constant == "na") {
    warn_constant(series_x, x, "x", call)
    if (!is.null(y)) warn_constant(series_y, y, "y", call)
  }
  if (x_is_vector && y_is_vector && !is.null(y)) r[1L] else r
}

# The strict upper triangle as a "dist" object (values are correlations, not distances).
fc_cor_dist <- function(x, backend = c("auto", "cpu", "cuda"),
                        precision = c("fp32", "fp64", "tf32"), constant = c("na", "zero"),
                        method = c("pearson", "spearman")) {
  call <- sys.call()
  method <- check_method(method, call)
  backend <- match.arg(backend)
  precision <- match.arg(precision)
  constant <- match.arg(constant)
  x <- as_series_matrix(x, "x", call)

  context <- new_context(backend, precision, constant, call)
  on.exit(release(context))
  series <- new_series(context, x, "x", call, method)
  on.exit(release(series), add = TRUE)
  # fastconn's row-ordered triangle (FC_TRIU_ROW) is exactly the storage order of "dist".
  d <- glue_call(call, C_fcr_pcc_triu, context, series)
  attr(d, "Size") <- ncol(x)
  if (!is.null(colnames(x))) attr(d, "Labels") <- colnames(x)
  attr(d, "Diag") <- FALSE
  attr(d, "Upper") <- FALSE
  attr(d, "method") <- method
  attr(d, "call") <- call
  class(d) <- "dist"
  if (constant == "na") warn_constant(series, x, "x", call)
  d
}
