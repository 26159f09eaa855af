# Eigenvector centrality (fast ECM of the correlation matrix, and of any network), Spearman's rho
# (method = "spearman": series of ranks) and Fisher's z.

correlation_methods <- c("pearson", "spearman")

# match.arg() for `method`, with a message that names the value (as base R's cor() refuses it).
check_method <- function(method, call) {
  if (identical(method, correlation_methods)) return("pearson")
  if (!is.character(method) || length(method) != 1L || is.na(method) || !(method %in% correlation_methods))
    stop(simpleError(sprintf("'method' must be \"pearson\" or \"spearman\", not %s", shown_value(method)), call))
  method
}

# NULL: the library's default (1e-10); else one number in [1e-13, 0.1].
check_tolerance <- function(tolerance, call) {
  if (is.null(tolerance)) return(0)
  if (!is_one_number(tolerance) || !is.finite(tolerance) || tolerance < 1e-13 || tolerance > 0.1)
    stop(simpleError(sprintf("'tolerance' must be one number in [1e-13, 0.1] (or NULL for 1e-10), not %s",
                             shown_value(tolerance)), call))
  as.double(tolerance)
}

fc_ecm <- function(x, tolerance = NULL, method = c("pearson", "spearman"), backend = c("auto", "cpu", "cuda"),
                   precision = c("fp32", "fp64", "tf32"), constant = c("na", "zero"), threshold = NULL,
                   density = NULL, topk = NULL, signed = FALSE, weighted = FALSE) {
  call <- sys.call()
  method <- check_method(method, call)
  backend <- match.arg(backend)
  precision <- match.arg(precision)
  constant <- match.arg(constant)
  tolerance <- check_tolerance(tolerance, call)
  thresholded <- !(is.null(threshold) && is.null(density) && is.null(topk))
  if (thresholded) {
    rule <- edge_rule(threshold, density, topk, signed, call)
    weights <- graph_weights(weighted, call)
  } else if (!identical(signed, FALSE) || !identical(weighted, FALSE)) {
    stop(simpleError("'signed' and 'weighted' apply to the thresholded ECM: give 'threshold', 'density' or 'topk'",
                     call))
  }
  x <- as_series_matrix(x, "x", call)
  context <- new_context(backend, precision, constant, call)
  on.exit(release(context))
  series <- new_series(context, x, "x", call, method)
  on.exit(release(series), add = TRUE)
  if (thresholded) {
    result <- glue_call(call, C_fcr_pcc_ecm_thresholded, context, series, rule$code, rule$param, weights, tolerance)
  } else {
    result <- glue_call(call, C_fcr_pcc_ecm, context, series, tolerance)
    if (constant == "na") warn_constant(series, x, "x", call)
  }
  names(result$vector) <- colnames(x)
  result
}

fc_eigen_centrality <- function(g, weighted = TRUE, tolerance = NULL, backend = c("auto", "cpu", "cuda")) {
  call <- sys.call()
  backend <- match.arg(backend)
  if (!is.logical(weighted) || length(weighted) != 1L || is.na(weighted))
    stop(simpleError(sprintf("'weighted' must be TRUE or FALSE, not %s", shown_value(weighted)), call))
  tolerance <- check_tolerance(tolerance, call)
  a <- as_network_matrix(g, "g", call)
  if (weighted && any(a@x < 0)) {
    k <- which(a@x < 0)[1L]
    stop(simpleError(sprintf("'g' holds the negative weight %s at [%d, %d]; weighted eigenvector centrality needs weights >= 0 (or weighted = FALSE)",
                             format(a@x[k]), a@i[k] + 1L, findInterval(k - 1L, a@p)), call))
  }
  context <- new_context(backend, "fp32", "na", call)
  on.exit(release(context))
  result <- glue_call(call, C_fcr_graph_eigen_centrality, context, a@p, a@i, a@x, weighted, tolerance)
  names(result$vector) <- colnames(a)
  result
}

fc_fisher_z <- function(r) {
  call <- sys.call()
  if (!(is.numeric(r) || is.logical(r)) || is.object(r) && !inherits(r, "dist"))
    stop(simpleError(sprintf("'r' must be numeric correlations (a vector, matrix or \"dist\"), not %s",
                             if (is.object(r)) paste("an object of class", shQuote(class(r)[1L], "cmd")) else typeof(r)),
                     call))
  if (!is.double(r)) storage.mode(r) <- "double"
  bad <- which(!is.na(r) & (r < -1 | r > 1))
  if (length(bad))
    stop(simpleError(sprintf("'r' must hold correlations in [-1, 1]; element %d is %s", bad[1L], format(r[bad[1L]])),
                     call))
  glue_call(call, C_fcr_fisher_z, r)
}

fc_dfc_ecm <- function(x, width, step = 1, taper = c("rectangular", "gaussian"), sigma = 3, tolerance = NULL,
                       backend = c("auto", "cpu", "cuda"), precision = c("fp32", "fp64", "tf32"),
                       constant = c("na", "zero")) {
  call <- sys.call()
  taper <- match.arg(taper)
  backend <- match.arg(backend)
  precision <- match.arg(precision)
  constant <- match.arg(constant)
  tolerance <- check_tolerance(tolerance, call)
  x <- as_series_matrix(x, "x", call)
  spec <- window_spec(width, step, taper, sigma, nrow(x), call)
  context <- new_context(backend, precision, constant, call)
  on.exit(release(context))
  series <- new_series(context, x, "x", call)
  on.exit(release(series), add = TRUE)
  result <- glue_call(call, C_fcr_dfc_ecm, context, series, spec, tolerance)
  dimnames(result$centrality) <- list(window_starts(nrow(x), width, step), colnames(x))
  result
}
