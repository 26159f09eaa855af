# fc_dfc_ecm() against eigen() of (R_k + 1) / 2 for every window, and fc_ecm() of each window.

test_that("fc_dfc_ecm row k is the leading eigenvector of window k's (R + 1) / 2 (float64, 1e-6)", {
  for (n in c(1, 2, 3, 37)) {
    x <- structured_series(n_time = 130, n_series = n, seed = n)
    e <- fc_dfc_ecm(x, 40, step = 15, precision = "fp64", backend = "cpu")
    starts <- seq(1, 130 - 40 + 1, by = 15)
    expect_equal(dim(e$centrality), c(length(starts), n))
    expect_identical(colnames(e$centrality), colnames(x))
    for (k in seq_along(starts)) {
      w <- x[starts[k]:(starts[k] + 39), , drop = FALSE]
      v <- eigen((cor(w) + 1) / 2, symmetric = TRUE)
      ref <- abs(v$vectors[, 1])
      expect_lte(sqrt(sum((e$centrality[k, ] - ref)^2)), 1e-6 * sqrt(sum(ref^2)))
      expect_lte(abs(e$value[k] - v$values[1]), 1e-6 * v$values[1])
      expect_lte(max(abs(e$centrality[k, ] - fc_ecm(w, precision = "fp64", backend = "cpu")$vector)), 1e-12)
    }
  }
})

test_that("fc_dfc_ecm: a column constant in one window is NA there; bad arguments named", {
  x <- structured_series(n_time = 60, n_series = 8, seed = 3)
  x[1:20, 2] <- 5
  e <- fc_dfc_ecm(x, 20, step = 20, precision = "fp64")
  expect_true(is.na(e$centrality[1, 2]))
  expect_true(all(is.finite(e$centrality[-1, ])))
  expect_true(all(is.finite(fc_dfc_ecm(x, 20, step = 20, constant = "zero")$centrality)))
  expect_error(fc_dfc_ecm(x, 20, tolerance = 0.5), "'tolerance' must be")
  expect_error(fc_dfc_ecm(x, 1), "width")
})
