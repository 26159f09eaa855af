# The rest of the C API in R's terms: the library's version and CUDA build, the settings every
# context gets (threads, memory limit), the triangle in either order and its index helpers
# (1-based), graph files, and single or streamed windows.

# Settings applied to every context this package creates (fc_settings()).
settings <- new.env(parent = emptyenv())
settings$threads <- 0
settings$memory_limit <- 0
settings$devices <- "one"

fc_settings <- function(threads = NULL, memory_limit = NULL, devices = NULL) {
  call <- sys.call()
  old <- list(threads = settings$threads, memory_limit = settings$memory_limit, devices = settings$devices)
  if (!is.null(threads)) {
    if (!is_whole_number(threads) || threads < 0 || threads > 2^20)
      stop(simpleError(sprintf("'threads' must be a whole number >= 0 (0 = every core), not %s",
                               shown_value(threads)), call))
    settings$threads <- as.double(threads)
  }
  if (!is.null(memory_limit)) {
    if (!is_whole_number(memory_limit) || memory_limit < 0 || memory_limit > 2^62)
      stop(simpleError(sprintf("'memory_limit' must be a whole number of bytes >= 0 (0 = what is free), not %s",
                               shown_value(memory_limit)), call))
    settings$memory_limit <- as.double(memory_limit)
  }
  if (!is.null(devices)) {
    ids <- is.numeric(devices) && length(devices) >= 1L && all(is.finite(devices)) && all(devices == round(devices))
    if (!ids && !identical(devices, "one") && !identical(devices, "all"))
      stop(simpleError(sprintf("'devices' must be \"one\", \"all\" or CUDA device ids (whole numbers, 0 = the first GPU), not %s",
                               shown_value(devices)), call))
    settings$devices <- if (ids) as.integer(devices) else devices
  }
  invisible(old)
}

fc_version <- function() package_version(.Call(C_fcr_version))

fc_has_cuda <- function() .Call(C_fcr_cuda_status)[1L]

fc_cuda_available <- function() .Call(C_fcr_cuda_status)[2L]

fc_cpu_info <- function() .Call(C_fcr_cpu_info)

fc_backend <- function(backend = c("auto", "cpu", "cuda")) {
  call <- sys.call()
  backend <- match.arg(backend)
  context <- new_context(backend, "fp32", "na", call)
  on.exit(release(context))
  glue_call(call, C_fcr_context_backend, context)
}

# C enum fc_triu_order (fastconn.h; values are explicit and only ever appended).
triu_order_codes <- c(row = 0L, col = 1L)

# C enum fc_value_format: the compact values (2 bytes a pair).
value_format_codes <- c(int16 = 1L, half = 2L)

fc_cor_triu <- function(x, order = c("row", "col"), backend = c("auto", "cpu", "cuda"),
                        precision = c("fp32", "fp64", "tf32"), constant = c("na", "zero"),
                        compact = c("none", "int16", "half"), codes = FALSE) {
  call <- sys.call()
  order <- match.arg(order)
  backend <- match.arg(backend)
  precision <- match.arg(precision)
  constant <- match.arg(constant)
  compact <- match.arg(compact)
  if (!is.logical(codes) || length(codes) != 1L || is.na(codes))
    stop(simpleError(sprintf("'codes' must be TRUE or FALSE, not %s", shown_value(codes)), call))
  if (codes && compact == "none")
    stop(simpleError("'codes = TRUE' needs compact = \"int16\" or \"half\"", call))
  x <- as_series_matrix(x, "x", call)
  context <- new_context(backend, precision, constant, call)
  on.exit(release(context))
  series <- new_series(context, x, "x", call)
  on.exit(release(series), add = TRUE)
  r <- if (compact == "none") {
    glue_call(call, C_fcr_pcc_triu_order, context, series, triu_order_codes[[order]])
  } else {
    glue_call(call, C_fcr_pcc_triu_compact, context, series, triu_order_codes[[order]],
              value_format_codes[[compact]], codes)
  }
  if (constant == "na") warn_constant(series, x, "x", call)
  r
}

check_series_count <- function(n, call) {
  if (!is_whole_number(n) || n < 2 || n > 2^31)
    stop(simpleError(sprintf("'n' must be a whole number of series >= 2, not %s", shown_value(n)), call))
  as.double(n)
}

fc_triu_index <- function(n, i, j, order = c("row", "col")) {
  call <- sys.call()
  order <- match.arg(order)
  n <- check_series_count(n, call)
  if (!is.numeric(i) || !is.numeric(j) || length(i) != length(j))
    stop(simpleError("'i' and 'j' must be numeric vectors of the same length", call))
  bad <- which(is.na(i) | is.na(j) | i != round(i) | j != round(j) | i < 1 | j < 1 | i > n | j > n | i == j)
  if (length(bad))
    stop(simpleError(sprintf("(i, j) must be two different whole numbers in [1, %s]; pair %d is (%s, %s)",
                             format(n), bad[1L], shown_value(i[bad[1L]]), shown_value(j[bad[1L]])), call))
  .Call(C_fcr_triu_offset, n, triu_order_codes[[order]], as.double(i) - 1, as.double(j) - 1) + 1
}

fc_triu_pair <- function(n, k, order = c("row", "col")) {
  call <- sys.call()
  order <- match.arg(order)
  n <- check_series_count(n, call)
  size <- n * (n - 1) / 2
  if (!is.numeric(k))
    stop(simpleError(sprintf("'k' must be numeric positions in [1, %s], not %s", format(size), shown_value(k)), call))
  bad <- which(is.na(k) | k != round(k) | k < 1 | k > size)
  if (length(bad))
    stop(simpleError(sprintf("'k' must hold whole numbers in [1, %s] (positions in the triangle of %s series); element %d is %s",
                             format(size), format(n), bad[1L], shown_value(k[bad[1L]])), call))
  pair <- .Call(C_fcr_triu_pair, n, triu_order_codes[[order]], as.double(k) - 1)
  cbind(i = pair$i + 1, j = pair$j + 1)
}

fc_graph_save <- function(g, file) {
  call <- sys.call()
  if (!is.character(file) || length(file) != 1L || is.na(file))
    stop(simpleError(sprintf("'file' must be one file name, not %s", shown_value(file)), call))
  a <- as_network_matrix(g, "g", call)
  glue_call(call, C_fcr_graph_save, a@p, a@i, a@x, path.expand(file))
  invisible(file)
}

fc_graph_load <- function(file) {
  call <- sys.call()
  if (!is.character(file) || length(file) != 1L || is.na(file))
    stop(simpleError(sprintf("'file' must be one file name, not %s", shown_value(file)), call))
  if (!file.exists(file))
    stop(simpleError(sprintf("cannot open graph file '%s': no such file", file), call))
  glue_call(call, C_fcr_graph_load, path.expand(file))
}

fc_window_cor <- function(x, start, width, taper = c("rectangular", "gaussian"), sigma = 3,
                          backend = c("auto", "cpu", "cuda"), precision = c("fp32", "fp64", "tf32"),
                          constant = c("na", "zero")) {
  call <- sys.call()
  taper <- match.arg(taper)
  backend <- match.arg(backend)
  precision <- match.arg(precision)
  constant <- match.arg(constant)
  x <- as_series_matrix(x, "x", call)
  spec <- window_spec(width, 1, taper, sigma, nrow(x), call)
  if (!is_whole_number(start) || start < 1 || start + width - 1 > nrow(x))
    stop(simpleError(sprintf("'start' must be a whole number in [1, %d] (a window of %s rows within the %d rows of 'x'), not %s",
                             nrow(x) - as.integer(width) + 1L, shown_value(width), nrow(x), shown_value(start)), call))

  context <- new_context(backend, precision, constant, call)
  on.exit(release(context))
  series <- new_series(context, x, "x", call)
  on.exit(release(series), add = TRUE)
  window <- glue_call(call, C_fcr_series_window, context, series, as.double(start) - 1, spec$length, spec$taper,
                      spec$sigma)
  on.exit(release(window), add = TRUE)
  r <- glue_call(call, C_fcr_pcc_dense, context, window)
  if (!is.null(colnames(x))) dimnames(r) <- list(colnames(x), colnames(x))
  if (constant == "na")
    warn_constant_windows(length(.Call(C_fcr_series_constant, window)), x, width, start, "x", call)
  r
}

fc_dfc_windows <- function(x, width, step = 1, FUN, taper = c("rectangular", "gaussian"), sigma = 3,
                           backend = c("auto", "cpu", "cuda"), precision = c("fp32", "fp64", "tf32"),
                           constant = c("na", "zero"), progress = interactive()) {
  call <- sys.call()
  FUN <- match.fun(FUN)
  taper <- match.arg(taper)
  backend <- match.arg(backend)
  precision <- match.arg(precision)
  constant <- match.arg(constant)
  if (!is.logical(progress) || length(progress) != 1L || is.na(progress))
    stop(simpleError(sprintf("'progress' must be TRUE or FALSE, not %s", shown_value(progress)), call))
  x <- as_series_matrix(x, "x", call)
  spec <- window_spec(width, step, taper, sigma, nrow(x), call)
  starts <- window_starts(nrow(x), width, step)

  context <- new_context(backend, precision, constant, call)
  on.exit(release(context))
  series <- new_series(context, x, "x", call)
  on.exit(release(series), add = TRUE)
  windows <- glue_call(call, C_fcr_dfc_begin, context, series, spec)
  on.exit(release(windows), add = TRUE)
  bar <- NULL
  if (progress && length(starts) > 1L) {
    bar <- utils::txtProgressBar(min = 0, max = length(starts), style = 3)
    on.exit(close(bar), add = TRUE)
  }
  # One window at a time, computed when the loop comes to it: only one triangle is held.
  n_constant <- integer(length(starts))
  results <- vector("list", length(starts))
  for (k in seq_along(starts)) {
    window <- glue_call(call, C_fcr_dfc_window, windows, k - 1)
    values <- tryCatch(glue_call(call, C_fcr_pcc_triu_order, context, window, triu_order_codes[["row"]]),
                       finally = release(window))
    n_constant[k] <- as.integer(sum(is.na(values)) > 0)
    info <- list(window = k, start = starts[k], end = starts[k] + width - 1, precision = precision)
    results[k] <- list(FUN(values, info))
    if (!is.null(bar)) utils::setTxtProgressBar(bar, k)
  }
  names(results) <- starts
  if (constant == "na") warn_constant_windows(n_constant, x, width, starts, "x", call)
  invisible(results)
}
