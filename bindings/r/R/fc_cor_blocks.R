# fc_cor_blocks(): the correlation triangle block by block, for results too large to hold.
# The C pull iterator (fc_pcc_blocks_begin / fc_blocks_next) is driven from this R loop, so the
# user's function runs at R level between C calls: its errors and Ctrl-C unwind normally, and
# the iterator's finalizer (or the on.exit below) frees it.

fc_cor_blocks <- function(x, rows = 0, FUN, backend = c("auto", "cpu", "cuda"),
                          precision = c("fp32", "fp64", "tf32"), constant = c("na", "zero"),
                          progress = interactive()) {
  call <- sys.call()
  FUN <- match.fun(FUN)
  backend <- match.arg(backend)
  precision <- match.arg(precision)
  constant <- match.arg(constant)
  if (!is.numeric(rows) || length(rows) != 1L || !is.finite(rows) || rows < 0 || rows != round(rows))
    stop(simpleError("'rows' must be one whole number >= 0 (rows of the triangle per block; 0 lets the memory limit choose)", call))
  if (!is.logical(progress) || length(progress) != 1L || is.na(progress))
    stop(simpleError("'progress' must be TRUE or FALSE", call))
  x <- as_series_matrix(x, "x", call)

  context <- new_context(backend, precision, constant, call)
  on.exit(release(context))
  series <- new_series(context, x, "x", call)
  on.exit(release(series), add = TRUE)
  blocks <- glue_call(call, C_fcr_blocks_begin, context, series, as.double(rows))
  on.exit(release(blocks), add = TRUE)

  total <- ncol(x) * (ncol(x) - 1) / 2
  bar <- NULL
  if (progress && total > 0) {
    bar <- utils::txtProgressBar(min = 0, max = total, style = 3)
    on.exit(close(bar), add = TRUE)
  }
  results <- list()
  repeat {
    block <- glue_call(call, C_fcr_blocks_next, blocks)
    if (is.null(block)) break
    # list(...) so that a NULL result keeps its slot instead of deleting one.
    results[length(results) + 1L] <- list(FUN(block$values, c(block$info, precision = precision)))
    if (!is.null(bar)) utils::setTxtProgressBar(bar, block$info$triu_offset + block$info$count)
  }
  if (constant == "na") warn_constant(series, x, "x", call)
  invisible(results)
}
