# lFCD, local functional connectivity density (Tomasi and Volkow 2010, AFNI's 3dLFCD): the voxel
# coordinates are R's 1-based indices (as which(mask, arr.ind = TRUE) gives them).

lfcd_neighbourhoods <- c(6L, 18L, 26L)

fc_lfcd <- function(x, coords, dims, threshold, signed = FALSE, neighbourhood = 26L,
                    backend = c("auto", "cpu", "cuda"), precision = c("fp32", "fp64", "tf32"),
                    method = c("pearson", "spearman")) {
  call <- sys.call()
  method <- check_method(method, call)
  backend <- match.arg(backend)
  precision <- match.arg(precision)
  rule <- edge_rule(threshold, NULL, NULL, signed, call)
  if (!is_one_number(neighbourhood) || !(neighbourhood %in% lfcd_neighbourhoods))
    stop(simpleError(sprintf("'neighbourhood' must be 6, 18 or 26, not %s", shown_value(neighbourhood)), call))
  x <- as_series_matrix(x, "x", call)
  if (!is.matrix(coords) || !is.numeric(coords) || ncol(coords) != 3L || nrow(coords) != ncol(x))
    stop(simpleError(sprintf("'coords' must be a matrix of %d rows (one voxel per column of 'x') and 3 columns (i, j, k), not %s",
                             ncol(x), if (is.matrix(coords)) paste(dim(coords), collapse = " x ") else class(coords)[1L]),
                     call))
  if (anyNA(coords) || any(coords != round(coords)))
    stop(simpleError("'coords' must hold whole numbers (1-based voxel indices), without NA", call))
  if (!is.numeric(dims) || length(dims) != 3L || anyNA(dims) || any(dims != round(dims)))
    stop(simpleError(sprintf("'dims' must be three whole numbers (e.g. dim(mask)), not %s", shown_value(dims)), call))
  if (any(abs(coords) > .Machine$integer.max - 1))
    stop(simpleError("'coords' holds values beyond R's integers", call))
  # Off the grid or on one voxel twice: named here in R's 1-based terms (the library checks again).
  off <- which(coords < 1 | coords > matrix(dims, nrow(coords), 3L, byrow = TRUE), arr.ind = TRUE)
  if (nrow(off)) {
    v <- min(off[, 1L])
    stop(simpleError(sprintf("column %d of 'x' sits at voxel (%s), off the grid of dims (%s)", v,
                             paste(coords[v, ], collapse = ", "), paste(dims, collapse = ", ")), call))
  }
  twice <- which(duplicated(coords))
  if (length(twice)) {
    v <- twice[1L]
    first <- which(apply(coords, 1L, function(c) all(c == coords[v, ])))[1L]
    stop(simpleError(sprintf("columns %d and %d of 'x' sit on the same voxel (%s); each voxel holds one series", first, v,
                             paste(coords[v, ], collapse = ", ")), call))
  }
  zero_based <- matrix(as.integer(coords) - 1L, ncol = 3L)

  context <- new_context(backend, precision, "na", call)
  on.exit(release(context))
  series <- new_series(context, x, "x", call, method)
  on.exit(release(series), add = TRUE)
  counts <- glue_call(call, C_fcr_pcc_lfcd, context, series, zero_based, as.double(dims), as.integer(neighbourhood),
                      rule$code, rule$param)
  names(counts) <- colnames(x)
  counts
}
