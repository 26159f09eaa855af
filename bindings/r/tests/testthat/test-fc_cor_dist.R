test_that("fc_cor_dist equals as.dist(cor(x)) on real data", {
  x <- fmri_roi()
  ref <- as.dist(cor(x))
  d <- fc_cor_dist(x)
  expect_s3_class(d, "dist")
  expect_length(d, 31 * 30 / 2)
  expect_identical(attr(d, "Size"), attr(ref, "Size"))
  expect_identical(attr(d, "Labels"), attr(ref, "Labels"))
  expect_false(attr(d, "Diag"))
  expect_false(attr(d, "Upper"))
  expect_identical(attr(d, "method"), "pearson")
  expect_lte(max_abs_diff(as.vector(d), as.vector(ref)), tol_fp32)
  expect_lte(max_abs_diff(as.vector(fc_cor_dist(x, precision = "fp64")), as.vector(ref)), tol_fp64)
  # Back to a matrix: the same as cor() off the diagonal.
  m <- as.matrix(d)
  expect_identical(dimnames(m), dimnames(cor(x)))
  off <- row(m) != col(m)
  expect_lte(max(abs(m[off] - cor(x)[off])), tol_fp32)
})

test_that("fc_cor_dist works on larger structured data and without labels", {
  x <- structured_series()
  ref <- as.dist(cor(x))
  expect_lte(max_abs_diff(as.vector(fc_cor_dist(x)), as.vector(ref)), tol_fp32)
  d <- fc_cor_dist(unname(x))
  expect_null(attr(d, "Labels"))
  expect_identical(attr(d, "Size"), ncol(x))
})

test_that("hclust(as.dist(1 - d)) gives the same tree as with cor()", {
  x <- fmri_roi()
  h <- hclust(as.dist(1 - fc_cor_dist(x, precision = "fp64")), method = "average")
  h_ref <- hclust(as.dist(1 - cor(x)), method = "average")
  expect_identical(h$merge, h_ref$merge)
  expect_identical(h$labels, colnames(x))
  expect_lte(max(abs(h$height - h_ref$height)), 1e-10)
  # And fp32 gives the same clusters at any cut.
  h32 <- hclust(as.dist(1 - fc_cor_dist(x)), method = "average")
  expect_identical(cutree(h32, k = 6), cutree(h_ref, k = 6))
})

test_that("fc_cor_dist: constant columns and bad input", {
  x <- fmri_roi()[, 1:6]
  x[, 2] <- 5
  expect_warning(d <- fc_cor_dist(x), "column 2 \\('Vent'\\)")
  ref <- suppressWarnings(as.dist(cor(x)))
  expect_identical(is.na(as.vector(d)), is.na(as.vector(ref)))
  expect_true(all(as.vector(fc_cor_dist(x, constant = "zero"))[is.na(as.vector(ref))] == 0))
  x[1, 1] <- NA
  expect_error(fc_cor_dist(x), "column 1 \\('WM'\\) of 'x' holds NA at row 1")
  expect_error(fc_cor_dist("a"), "'x' must be numeric")
})
