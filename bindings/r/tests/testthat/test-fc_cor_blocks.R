collect_blocks <- function(x, rows, ...) {
  fc_cor_blocks(x, rows, function(values, info) list(values = values, info = info), ..., progress = FALSE)
}

test_that("blocks concatenate to the dist vector, with consistent 1-based info", {
  x <- fmri_roi()
  n <- ncol(x)
  d <- fc_cor_dist(x)
  for (rows in c(1, 4, 7, 29, 30, 100, 0)) {
    blocks <- collect_blocks(x, rows)
    values <- unlist(lapply(blocks, `[[`, "values"))
    # Same order and the same float values up to float rounding: the CPU backend's GEMM tiles
    # start at each block's first row, so a few last-bit differences are expected; a wrong
    # order or offset would differ by far more than that.
    expect_length(values, length(d))
    expect_lte(max_abs_diff(values, as.vector(d)), tol_float_rounding)
    info <- lapply(blocks, `[[`, "info")
    row_begin <- vapply(info, `[[`, 0, "row_begin")
    row_end <- vapply(info, `[[`, 0, "row_end")
    offset <- vapply(info, `[[`, 0, "triu_offset")
    count <- vapply(info, `[[`, 0, "count")
    expect_identical(row_begin[1], 1)
    expect_identical(row_end[length(row_end)], n - 1)
    expect_identical(row_begin[-1], row_end[-length(row_end)] + 1)
    if (rows > 0) expect_true(all(row_end - row_begin + 1 <= rows))
    expect_identical(offset, c(0, cumsum(count)[-length(count)]))
    # A block holds the pairs (i, j), row_begin <= i <= row_end, j > i, so that
    # d[triu_offset + seq_len(count)] is the block, as documented.
    expect_identical(count, vapply(seq_along(info), function(k) sum(n - row_begin[k]:row_end[k]), 0))
  }
})

test_that("blocks match cor() on larger structured data", {
  x <- structured_series()
  ref <- as.vector(as.dist(cor(x)))
  blocks <- collect_blocks(x, 37)
  expect_length(blocks, ceiling((ncol(x) - 1) / 37))
  expect_lte(max_abs_diff(unlist(lapply(blocks, `[[`, "values")), ref), tol_fp32)
})

test_that("FUN results are returned in order, NULL results included", {
  x <- fmri_roi()
  out <- fc_cor_blocks(x, 10, function(values, info) if (info$row_begin == 11) NULL else info$row_begin,
                       progress = FALSE)
  expect_identical(out, list(1, NULL, 21))
  expect_invisible(fc_cor_blocks(x, 10, function(values, info) 0, progress = FALSE))
})

test_that("a thresholded network built block by block equals the one from cor()", {
  skip_if_not_installed("igraph")
  x <- fmri_roi()
  n <- ncol(x)
  threshold <- 0.5
  edges <- fc_cor_blocks(x, 6, function(values, info) {
    i <- rep(info$row_begin:info$row_end, times = n - info$row_begin:info$row_end)
    j <- unlist(lapply(info$row_begin:info$row_end, function(r) seq.int(r + 1, n)))
    keep <- abs(values) >= threshold
    cbind(i[keep], j[keep])
  }, progress = FALSE)
  edges <- do.call(rbind, edges)
  g <- igraph::make_graph(as.vector(t(edges)), n = n, directed = FALSE)
  adjacency <- abs(cor(x)) >= threshold
  diag(adjacency) <- FALSE
  g_ref <- igraph::graph_from_adjacency_matrix(adjacency * 1, mode = "undirected")
  expect_gt(igraph::ecount(g_ref), 10)  # the threshold keeps a real network, not nothing
  expect_identical(igraph::as_adjacency_matrix(g, sparse = FALSE),
                   unname(igraph::as_adjacency_matrix(g_ref, sparse = FALSE)))
  expect_identical(igraph::degree(g), unname(igraph::degree(g_ref)))
})

test_that("an error in FUN stops the loop and propagates; the iterator is freed", {
  x <- fmri_roi()
  calls <- 0
  expect_error(fc_cor_blocks(x, 5, function(values, info) {
    calls <<- calls + 1
    if (calls == 2) stop("stop at the second block")
  }, progress = FALSE), "stop at the second block")
  expect_identical(calls, 2)
  gc()
  expect_length(fc_cor_blocks(x, 5, function(values, info) 1, progress = FALSE), 6L)
})

test_that("progress = TRUE draws a text progress bar up to 100%", {
  x <- fmri_roi()
  expect_output(fc_cor_blocks(x, 8, function(values, info) NULL, progress = TRUE), "100%")
})

test_that("fc_cor_blocks: constant columns, non-finite input and bad arguments", {
  x <- fmri_roi()[, 1:9]
  x[, 4] <- 1
  expect_warning(fc_cor_blocks(x, 3, function(values, info) NULL, progress = FALSE), "column 4 \\('LCau'\\)")
  v <- unlist(fc_cor_blocks(x, 3, function(values, info) values, constant = "zero", progress = FALSE))
  ref <- suppressWarnings(as.vector(as.dist(cor(x))))
  expect_true(all(v[is.na(ref)] == 0))
  x[50, 9] <- NaN
  expect_error(fc_cor_blocks(x, 3, identity, progress = FALSE), "column 9 \\('LSupraM'\\) of 'x' holds NaN at row 50")
  y <- fmri_roi()
  expect_error(fc_cor_blocks(y, -1, identity), "'rows' must be one whole number >= 0")
  expect_error(fc_cor_blocks(y, 2.5, identity), "'rows' must be one whole number >= 0")
  expect_error(fc_cor_blocks(y, c(1, 2), identity), "'rows' must be one whole number >= 0")
  expect_error(fc_cor_blocks(y, 3, "no_such_function_here"), "no_such_function_here")
  expect_error(fc_cor_blocks(y, 3, identity, progress = NA), "'progress' must be TRUE or FALSE")
})
