# fc_ecm() with an edge rule (the thresholded ECM) against base R: the dense cor() matrix,
# thresholded, binary or weighted, and eigen(); and against igraph::eigen_centrality.

dense_thresholded <- function(x, keep, weights) {
  r <- cor(x)
  a <- switch(weights, binary = keep * 1, abs = keep * abs(r), r = keep * r)
  diag(a) <- 0
  a
}

leading <- function(a) {
  v <- eigen(a, symmetric = TRUE)
  list(vector = abs(v$vectors[, 1]), value = v$values[1])
}

test_that("fc_ecm(threshold = ) is the leading eigenvector of the thresholded matrix (eigen(), float64, 1e-6)", {
  for (n in c(3, 41, 301)) {
    x <- structured_series(n_time = 120, n_series = n, seed = n)
    r <- cor(x)
    cases <- list(list(args = list(threshold = 0.3), keep = abs(r) >= 0.3, weights = "binary", w = FALSE),
                  list(args = list(threshold = 0.25), keep = abs(r) >= 0.25, weights = "abs", w = "abs"),
                  list(args = list(threshold = 0.2, signed = TRUE), keep = r >= 0.2, weights = "r", w = TRUE))
    for (case in cases) {
      ref <- leading(dense_thresholded(x, case$keep, case$weights))
      e <- do.call(fc_ecm, c(list(x, precision = "fp64", backend = "cpu", weighted = case$w), case$args))
      expect_identical(names(e$vector), colnames(x))
      expect_lte(sqrt(sum((e$vector - ref$vector)^2)), 1e-6 * sqrt(sum(ref$vector^2)))
      expect_lte(abs(e$value - ref$value), 1e-6 * ref$value)
    }
  }
})

test_that("fc_ecm(density = ) matches igraph::eigen_centrality of fc_graph's network", {
  skip_if_not_installed("igraph")
  x <- structured_series(n_time = 150, n_series = 97, seed = 4)
  g <- fc_graph(x, density = 0.08, weighted = "abs", precision = "fp64", backend = "cpu")
  ig <- as_igraph(g)
  ref <- igraph::eigen_centrality(ig, scale = TRUE, weights = igraph::E(ig)$weight)$vector
  e <- fc_ecm(x, density = 0.08, weighted = "abs", precision = "fp64", backend = "cpu")
  expect_lte(max(abs(e$vector / max(e$vector) - ref)), 1e-6)
})

test_that("fc_ecm thresholded: constant columns get 0, no edges 1/sqrt(N), bad arguments named", {
  x <- structured_series(n_time = 60, n_series = 7, seed = 8)
  x[, 4] <- 2.5
  e <- fc_ecm(x, threshold = 0, precision = "fp64")
  expect_equal(unname(e$vector[4]), 0)
  none <- fc_ecm(x[, -4], threshold = 1, precision = "fp64")
  expect_equal(unname(none$vector), rep(1 / sqrt(6), 6), tolerance = 1e-15)
  expect_equal(none$value, 0)
  expect_error(fc_ecm(x, density = 1.5), "'density' must be .* not 1.5")
  expect_error(fc_ecm(x, threshold = NaN), "'threshold' must be")
  expect_error(fc_ecm(x, weighted = "abs"), "apply to the thresholded ECM")
  expect_error(fc_ecm(x, density = 0.5, weighted = "log"), "'weighted' must be")
  expect_error(fc_ecm(x[, -4], density = 1, weighted = TRUE), "weight")
})
