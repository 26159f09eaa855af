# Dynamic connectivity: the fc_dfc() family over sliding windows of the rows (time points) of x.
# The data is uploaded once; every window is cut and normalized by the C library from it.
# Window k starts at time point (k - 1) * step + 1, 1-based, as R users count rows.

fc_dfc <- function(x, width, step = 1, taper = c("rectangular", "gaussian"), sigma = 3,
                   backend = c("auto", "cpu", "cuda"), precision = c("fp32", "fp64", "tf32"),
                   constant = c("na", "zero")) {
  call <- sys.call()
  taper <- match.arg(taper)
  backend <- match.arg(backend)
  precision <- match.arg(precision)
  constant <- match.arg(constant)
  x <- as_series_matrix(x, "x", call)
  spec <- window_spec(width, step, taper, sigma, nrow(x), call)

  context <- new_context(backend, precision, constant, call)
  on.exit(release(context))
  series <- new_series(context, x, "x", call)
  on.exit(release(series), add = TRUE)
  # W x N(N-1)/2; the columns are the pairs in the storage order of "dist".
  r <- glue_call(call, C_fcr_dfc_triu, context, series, spec)
  n_constant <- attr(r, "n_constant")
  attr(r, "n_constant") <- NULL
  starts <- window_starts(nrow(x), width, step)
  rownames(r) <- starts
  if (constant == "na") warn_constant_windows(n_constant, x, width, starts, "x", call)
  r
}

fc_dfc_graphs <- function(x, width, step = 1, taper = c("rectangular", "gaussian"), sigma = 3,
                          threshold = NULL, density = NULL, topk = NULL, signed = FALSE, weighted = TRUE,
                          as = c("dgCMatrix", "igraph"), backend = c("auto", "cpu", "cuda"),
                          precision = c("fp32", "fp64", "tf32"), progress = interactive()) {
  call <- sys.call()
  taper <- match.arg(taper)
  as <- match.arg(as)
  backend <- match.arg(backend)
  precision <- match.arg(precision)
  rule <- edge_rule(threshold, density, topk, signed, call)
  weights <- graph_weights(weighted, call)
  if (!is.logical(progress) || length(progress) != 1L || is.na(progress))
    stop(simpleError(sprintf("'progress' must be TRUE or FALSE, not %s", shown_value(progress)), call))
  if (as == "igraph" && !requireNamespace("igraph", quietly = TRUE))
    stop(simpleError(paste("as = \"igraph\" needs the 'igraph' package, which is not installed",
                           "(Debian: apt-get install r-cran-igraph; otherwise install.packages(\"igraph\"))"), call))
  x <- as_series_matrix(x, "x", call)
  spec <- window_spec(width, step, taper, sigma, nrow(x), call)
  starts <- window_starts(nrow(x), width, step)

  context <- new_context(backend, precision, "na", call)
  on.exit(release(context))
  series <- new_series(context, x, "x", call)
  on.exit(release(series), add = TRUE)
  # The C iterator is driven from this loop, one window's graph per call: Ctrl-C and errors
  # unwind between (and, through the progress callback, within) windows.
  windows <- glue_call(call, C_fcr_dfc_begin, context, series, spec)
  on.exit(release(windows), add = TRUE)
  bar <- NULL
  if (progress && length(starts) > 1L) {
    bar <- utils::txtProgressBar(min = 0, max = length(starts), style = 3)
    on.exit(close(bar), add = TRUE)
  }
  dimnames <- list(colnames(x), colnames(x))
  graphs <- vector("list", length(starts))
  repeat {
    item <- glue_call(call, C_fcr_dfc_next_graph, context, windows, rule$code, rule$param, weights, dimnames)
    if (is.null(item)) break
    graphs[[item$window]] <- if (as == "igraph") as_igraph(item$graph) else item$graph
    if (!is.null(bar)) utils::setTxtProgressBar(bar, item$window)
  }
  names(graphs) <- starts
  graphs
}

fc_dfc_degree <- function(x, width, step = 1, taper = c("rectangular", "gaussian"), sigma = 3,
                          threshold = NULL, density = NULL, topk = NULL, signed = FALSE,
                          backend = c("auto", "cpu", "cuda"), precision = c("fp32", "fp64", "tf32")) {
  call <- sys.call()
  taper <- match.arg(taper)
  backend <- match.arg(backend)
  precision <- match.arg(precision)
  rule <- edge_rule(threshold, density, topk, signed, call)
  x <- as_series_matrix(x, "x", call)
  spec <- window_spec(width, step, taper, sigma, nrow(x), call)

  context <- new_context(backend, precision, "na", call)
  on.exit(release(context))
  series <- new_series(context, x, "x", call)
  on.exit(release(series), add = TRUE)
  result <- glue_call(call, C_fcr_dfc_degree, context, series, spec, rule$code, rule$param)
  names <- list(window_starts(nrow(x), width, step), colnames(x))
  dimnames(result$degree) <- names
  dimnames(result$strength) <- names
  result
}

fc_dfc_summary <- function(x, width, step = 1, taper = c("rectangular", "gaussian"), sigma = 3,
                           backend = c("auto", "cpu", "cuda"), precision = c("fp32", "fp64", "tf32"),
                           constant = c("na", "zero")) {
  call <- sys.call()
  taper <- match.arg(taper)
  backend <- match.arg(backend)
  precision <- match.arg(precision)
  constant <- match.arg(constant)
  x <- as_series_matrix(x, "x", call)
  spec <- window_spec(width, step, taper, sigma, nrow(x), call)

  context <- new_context(backend, precision, constant, call)
  on.exit(release(context))
  series <- new_series(context, x, "x", call)
  on.exit(release(series), add = TRUE)
  result <- glue_call(call, C_fcr_dfc_summary, context, series, spec)
  list(mean = as_pair_dist(result$mean, x, call), sd = as_pair_dist(result$sd, x, call))
}

# Values in dist order (row-ordered pairs) as a "dist" object labelled like fc_cor_dist().
as_pair_dist <- function(values, x, call) {
  attr(values, "Size") <- ncol(x)
  if (!is.null(colnames(x))) attr(values, "Labels") <- colnames(x)
  attr(values, "Diag") <- FALSE
  attr(values, "Upper") <- FALSE
  attr(values, "call") <- call
  class(values) <- "dist"
  values
}
