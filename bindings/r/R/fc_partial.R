# Partial correlation and precision (nilearn's ConnectivityMeasure kinds), with Ledoit-Wolf
# shrinkage by default.

partial_outputs <- c(partial = 0L, precision = 1L)

# "ledoit-wolf" gives the library's FC_SHRINKAGE_LEDOIT_WOLF (-1); else one number in [0, 1].
check_shrinkage <- function(shrinkage, call) {
  if (identical(shrinkage, "ledoit-wolf")) return(-1)
  if (!is_one_number(shrinkage) || shrinkage < 0 || shrinkage > 1)
    stop(simpleError(sprintf("'shrinkage' must be \"ledoit-wolf\" or one number in [0, 1], not %s",
                             shown_value(shrinkage)), call))
  as.double(shrinkage)
}

fc_partial_cor <- function(x, shrinkage = "ledoit-wolf", output = c("partial", "precision"),
                           backend = c("auto", "cpu", "cuda"), precision = c("fp32", "fp64", "tf32")) {
  call <- sys.call()
  output <- match.arg(output)
  backend <- match.arg(backend)
  precision <- match.arg(precision)
  a <- check_shrinkage(shrinkage, call)
  x <- as_series_matrix(x, "x", call)
  # Named here in R's terms (the library counts series from 0).
  constant <- which(vapply(seq_len(ncol(x)), function(j) all(x[, j] == x[1L, j]), logical(1)))
  if (length(constant))
    stop(simpleError(sprintf("column %d of 'x' is constant: its partial correlations and precision are undefined; leave constant columns out",
                             constant[1L]), call))
  context <- new_context(backend, precision, "na", call)
  on.exit(release(context))
  series <- new_series(context, x, "x", call)
  on.exit(release(series), add = TRUE)
  result <- glue_call(call, C_fcr_partial_correlation, context, series, a, partial_outputs[[output]])
  m <- result$matrix
  if (!is.null(colnames(x))) dimnames(m) <- list(colnames(x), colnames(x))
  attr(m, "shrinkage") <- result$shrinkage
  m
}
