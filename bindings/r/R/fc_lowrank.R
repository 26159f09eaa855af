# Optimal low-rank correlation matrices: R = Z Z^T exactly (Z the normalized series), so the best
# rank-l approximation (Eckart-Young) is V V^T, V = Z U_l from the small T x T (or, per window,
# w x w) eigenproblem. The C library returns V and the exact relative Frobenius error.

check_rank <- function(rank, most, what, call) {
  if (!is_whole_number(rank) || rank < 1 || rank > most)
    stop(simpleError(sprintf("'rank' must be a whole number in [1, %d] (%s), not %s",
                             most, what, shown_value(rank)), call))
  as.double(rank)
}

fc_lowrank <- function(x, rank, backend = c("auto", "cpu", "cuda"), precision = c("fp32", "fp64", "tf32")) {
  call <- sys.call()
  backend <- match.arg(backend)
  precision <- match.arg(precision)
  x <- as_series_matrix(x, "x", call)
  rank <- check_rank(rank, nrow(x), "at most the number of time points, the rows of 'x'", call)
  if (nrow(x) < 2)
    stop(simpleError(sprintf("'x' has %d time point(s) (rows); correlations need at least 2", nrow(x)), call))

  context <- new_context(backend, precision, "na", call)
  on.exit(release(context))
  series <- new_series(context, x, "x", call)
  on.exit(release(series), add = TRUE)
  result <- glue_call(call, C_fcr_pcc_lowrank, context, series, rank)
  rownames(result$factor) <- colnames(x)
  result
}

fc_dfc_lowrank <- function(x, width, step = 1, rank, taper = c("rectangular", "gaussian"), sigma = 3,
                           backend = c("auto", "cpu", "cuda"), precision = c("fp32", "fp64", "tf32")) {
  call <- sys.call()
  taper <- match.arg(taper)
  backend <- match.arg(backend)
  precision <- match.arg(precision)
  x <- as_series_matrix(x, "x", call)
  spec <- window_spec(width, step, taper, sigma, nrow(x), call)
  rank <- check_rank(rank, width, "at most 'width', the time points of a window", call)

  context <- new_context(backend, precision, "na", call)
  on.exit(release(context))
  series <- new_series(context, x, "x", call)
  on.exit(release(series), add = TRUE)
  result <- glue_call(call, C_fcr_dfc_lowrank, context, series, spec, rank)
  starts <- window_starts(nrow(x), width, step)
  if (!is.null(colnames(x))) result$factors <- lapply(result$factors, function(v) { rownames(v) <- colnames(x); v })
  names(result$factors) <- starts
  names(result$rel_error) <- starts
  result
}
