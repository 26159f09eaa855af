# fc_partial_cor() against a direct computation in base R: the columns standardized with the
# population sd, Ledoit-Wolf's intensity by its formula (as scikit-learn's ledoit_wolf_shrinkage
# writes it), the shrunk matrix inverted by solve().

direct_partial <- function(x, shrinkage) {
  n <- nrow(x)
  p <- ncol(x)
  z <- sweep(x, 2, colMeans(x))
  z <- sweep(z, 2, sqrt(colSums(z^2) / n), "/")
  r <- crossprod(z) / n
  if (identical(shrinkage, "ledoit-wolf")) {
    z2 <- z^2
    trace_terms <- colSums(z2) / n
    mu <- sum(trace_terms) / p
    beta_sum <- sum(crossprod(z2))
    delta_sum <- sum(crossprod(z)^2) / n^2
    beta <- (beta_sum / n - delta_sum) / (p * n)
    delta <- (delta_sum - 2 * mu * sum(trace_terms) + p * mu^2) / p
    beta <- min(beta, delta)
    shrinkage <- if (beta == 0) 0 else beta / delta
  }
  s <- (1 - shrinkage) * r + shrinkage * diag(p)
  prec <- solve(s)
  partial <- -prec / sqrt(outer(diag(prec), diag(prec)))
  diag(partial) <- 1
  list(partial = partial, precision = prec, shrinkage = shrinkage)
}

test_that("fc_partial_cor matches the direct computation (float64, 1e-6), more columns than rows too", {
  for (dims in list(c(50, 2), c(40, 3), c(150, 31), c(30, 47), c(60, 101))) {
    x <- structured_series(n_time = dims[1], n_series = dims[2], seed = sum(dims))
    for (a in list("ledoit-wolf", 0.3)) {
      ref <- direct_partial(x, a)
      p <- fc_partial_cor(x, shrinkage = a, precision = "fp64", backend = "cpu")
      expect_equal(dim(p), c(dims[2], dims[2]))
      expect_identical(dimnames(p), list(colnames(x), colnames(x)))
      expect_lte(abs(attr(p, "shrinkage") - ref$shrinkage), 1e-12)
      expect_lte(max(abs(p - ref$partial)), 1e-6)
      expect_true(all(diag(p) == 1))
      q <- fc_partial_cor(x, shrinkage = a, output = "precision", precision = "fp64", backend = "cpu")
      expect_lte(max(abs(q - ref$precision)), 1e-6 * max(abs(ref$precision)))
    }
  }
  x <- fmri_roi()
  expect_lte(max(abs(fc_partial_cor(x, precision = "fp64") - direct_partial(x, "ledoit-wolf")$partial)), 1e-6)
})

test_that("fc_partial_cor refuses bad arguments, naming the value", {
  x <- structured_series(n_time = 40, n_series = 6)
  expect_error(fc_partial_cor(x, shrinkage = 1.5), "'shrinkage' must be .* not 1.5")
  expect_error(fc_partial_cor(x, shrinkage = "oas"), "'shrinkage' must be")
  expect_error(fc_partial_cor(x, output = "covariance"), "'arg' should be one of")
  x[, 3] <- 2
  expect_error(fc_partial_cor(x), "column 3 of 'x' is constant")
  expect_error(fc_partial_cor(structured_series(n_time = 10, n_series = 20), shrinkage = 0))
})
