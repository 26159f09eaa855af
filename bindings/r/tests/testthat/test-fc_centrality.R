# fc_ecm(), fc_eigen_centrality(), fc_cor(method = "spearman") and fc_fisher_z() against base R
# (eigen(), cor(method = "spearman"), atanh()) and igraph::eigen_centrality().

dense_ecm <- function(x) {
  v <- eigen((cor(x) + 1) / 2, symmetric = TRUE)
  list(vector = abs(v$vectors[, 1]), value = v$values[1])
}

test_that("fc_ecm is the leading eigenvector of (R + 1) / 2 (eigen(), float64, relative 1e-6)", {
  for (n in c(2, 31, 120)) {
    x <- structured_series(n_time = 150, n_series = n)
    ref <- dense_ecm(x)
    e <- fc_ecm(x, precision = "fp64", backend = "cpu")
    expect_identical(names(e$vector), colnames(x))
    expect_lte(max(abs(e$vector - ref$vector)), 1e-6 * max(ref$vector))
    expect_lte(abs(e$value - ref$value), 1e-6 * ref$value)
    expect_lte(max(abs(fc_ecm(x, backend = "cpu")$vector - ref$vector)), 1e-4)
  }
  x <- fmri_roi()
  expect_lte(max(abs(fc_ecm(x, precision = "fp64")$vector - dense_ecm(x)$vector)), 1e-8)
})

test_that("fc_ecm with method = 'spearman' is the ECM of the ranks; constant columns NA with a warning", {
  x <- round(structured_series(n_time = 80, n_series = 25))  # ties
  ref <- dense_ecm(apply(x, 2, rank))
  expect_lte(max(abs(fc_ecm(x, method = "spearman", precision = "fp64")$vector - ref$vector)), 1e-8)
  x[, 4] <- 2
  expect_warning(e <- fc_ecm(x, precision = "fp64"), "column 4")
  expect_true(is.na(e$vector[4]))
  expect_lte(max(abs(e$vector[-4] - dense_ecm(x[, -4])$vector)), 1e-8)
  expect_silent(z <- fc_ecm(x, constant = "zero"))
  expect_true(all(is.finite(z$vector)))
})

test_that("fc_ecm refuses bad arguments, naming the value", {
  x <- structured_series(n_time = 40, n_series = 5)
  expect_error(fc_ecm(x, tolerance = 0.5), "'tolerance' must be .* not 0.5")
  expect_error(fc_ecm(x, method = "kendall"), "'method' must be .*kendall")
  x[3, 2] <- NA
  expect_error(fc_ecm(x), "column 2 .* row 3")
})

test_that("fc_eigen_centrality matches igraph::eigen_centrality and eigen()", {
  x <- structured_series(n_time = 120, n_series = 60)
  g <- fc_graph(x, density = 0.15, weighted = "abs")
  a <- as.matrix(g)
  v <- eigen(a, symmetric = TRUE)
  e <- fc_eigen_centrality(g)
  expect_identical(names(e$vector), colnames(x))
  expect_lte(max(abs(e$vector - abs(v$vectors[, 1]) / max(abs(v$vectors[, 1])))), 1e-6)
  expect_lte(abs(e$value - v$values[1]), 1e-6 * v$values[1])
  expect_identical(max(e$vector), 1)
  skip_if_not_installed("igraph")
  ig <- as_igraph(g)
  for (weighted in c(TRUE, FALSE)) {
    ref <- igraph::eigen_centrality(ig, scale = TRUE, weights = if (weighted) igraph::E(ig)$weight else NA)
    got <- fc_eigen_centrality(ig, weighted = weighted)
    expect_lte(max(abs(unname(got$vector) - unname(ref$vector))), 1e-6)
    expect_lte(abs(got$value - ref$value), 1e-6 * ref$value)
  }
  karate <- igraph::make_graph("Zachary")
  expect_lte(max(abs(fc_eigen_centrality(karate)$vector - igraph::eigen_centrality(karate)$vector)), 1e-6)
})

test_that("fc_eigen_centrality: no edges, negative weights, bad arguments", {
  empty <- fc_eigen_centrality(matrix(0, 3, 3))
  expect_identical(empty$vector, c(1, 1, 1))
  expect_identical(empty$value, 0)
  a <- matrix(0, 3, 3)
  a[1, 2] <- a[2, 1] <- 1
  a[2, 3] <- a[3, 2] <- -0.5
  expect_error(fc_eigen_centrality(a), "negative weight -0.5 at \\[3, 2\\]")
  expect_equal(fc_eigen_centrality(a, weighted = FALSE)$vector, c(sqrt(2) / 2, 1, sqrt(2) / 2), tolerance = 1e-9)
  expect_error(fc_eigen_centrality(a, weighted = NA), "'weighted' must be TRUE or FALSE")
  expect_error(fc_eigen_centrality(abs(a), tolerance = 1e-20), "'tolerance' .* not 1e-20")
  expect_error(fc_eigen_centrality("a"), "'g' must be a network")
})

test_that("fc_cor(method = 'spearman') is cor(method = 'spearman'), ties included", {
  x <- round(structured_series(n_time = 90, n_series = 40))
  expect_gt(sum(duplicated(x[, 1])), 0)
  expect_gt(min(apply(x, 2, sd)), 0)
  ref <- cor(x, method = "spearman")
  expect_lte(max_abs_diff(fc_cor(x, method = "spearman", precision = "fp64"), ref), tol_fp64)
  expect_lte(max_abs_diff(fc_cor(x, method = "spearman"), ref), tol_fp32)
  expect_lte(max_abs_diff(fc_cor(x[, 1:3], x, method = "spearman", precision = "fp64"),
                          cor(x[, 1:3], x, method = "spearman")), tol_fp64)
  expect_lte(max_abs_diff(fc_cor(x, method = "pearson", precision = "fp64"), cor(x)), tol_fp64)
  d <- fc_cor_dist(x, method = "spearman", precision = "fp64")
  expect_identical(attr(d, "method"), "spearman")
  expect_lte(max(abs(unclass(d) - ref[lower.tri(ref)])), tol_fp64)
  strong <- abs(ref) >= 0.3 & row(ref) != col(ref)
  expect_false(any(abs(abs(ref) - 0.3) < 1e-6))
  expect_identical(fc_degree(x, threshold = 0.3, method = "spearman")$degree, unname(as.integer(rowSums(strong))))
  expect_identical(unname(as.matrix(fc_graph(x, threshold = 0.3, method = "spearman")) != 0), unname(strong))
  expect_error(fc_cor(x, method = "kendall"), "'method' must be \"pearson\" or \"spearman\", not \"kendall\"")
})

test_that("fc_fisher_z is atanh(), keeps attributes and NA, refuses |r| > 1 naming it", {
  r <- fc_cor(fmri_roi()[, 1:6], precision = "fp64")
  z <- fc_fisher_z(r)
  expect_identical(dimnames(z), dimnames(r))
  off <- upper.tri(r) | lower.tri(r)
  expect_identical(z[off], atanh(r[off]))
  expect_true(all(diag(z) == Inf))
  expect_identical(r, fc_cor(fmri_roi()[, 1:6], precision = "fp64"))  # r unchanged
  expect_identical(fc_fisher_z(c(-1, NA, 0.5)), c(-Inf, NA, atanh(0.5)))
  d <- fc_fisher_z(fc_cor_dist(fmri_roi()[, 1:4]))
  expect_s3_class(d, "dist")
  expect_error(fc_fisher_z(c(0.2, 1.5)), "element 2 is 1.5")
  expect_error(fc_fisher_z("0.5"), "'r' must be numeric")
})
