test_that("fc_cor matches cor() on real fMRI ROI data (fp32 and fp64)", {
  x <- fmri_roi()
  ref <- cor(x)
  r32 <- fc_cor(x)
  r64 <- fc_cor(x, precision = "fp64")
  expect_true(is.double(r32) && is.matrix(r32))
  expect_equal(dim(r32), c(31L, 31L))
  expect_lte(max_abs_diff(r32, ref), tol_fp32)
  expect_lte(max_abs_diff(r64, ref), tol_fp64)
  expect_identical(dimnames(r32), dimnames(ref))
  expect_identical(dimnames(r64), dimnames(ref))
  expect_identical(unname(diag(r32)), rep(1, 31))
  expect_true(isSymmetric(r32))
  expect_true(isSymmetric(r64))
  # The data really are correlated: homologous regions (left/right putamen) are strongly so.
  expect_gt(r32["LPut", "RPut"], 0.5)
})

test_that("fc_cor matches cor() on larger structured data, every backend choice that runs here", {
  x <- structured_series()
  ref <- cor(x)
  expect_lte(max_abs_diff(fc_cor(x), ref), tol_fp32)
  expect_lte(max_abs_diff(fc_cor(x, backend = "cpu"), ref), tol_fp32)
  expect_lte(max_abs_diff(fc_cor(x, precision = "fp64"), ref), tol_fp64)
  # TF32 is a GPU mode (about 1e-3); the CPU computes FP32 instead.
  expect_lte(max_abs_diff(fc_cor(x, precision = "tf32"), ref), 2e-3)
})

test_that("dimnames follow cor(): none without colnames, x's and y's names with y", {
  x <- fmri_roi()
  unnamed <- unname(x)
  expect_null(dimnames(fc_cor(unnamed)))
  expect_null(dimnames(fc_cor(unnamed[, 1:3], unnamed[, 4:6])))
  expect_identical(dimnames(fc_cor(x[, 1:3], unnamed[, 4:6])), dimnames(cor(x[, 1:3], unnamed[, 4:6])))
  expect_identical(dimnames(fc_cor(unnamed[, 1:3], x[, 4:6])), dimnames(cor(unnamed[, 1:3], x[, 4:6])))
})

test_that("y gives cor(x, y), including seed vectors and scalars", {
  x <- fmri_roi()
  a <- x[, 1:12]
  b <- x[, 13:31]
  r <- fc_cor(a, b)
  expect_equal(dim(r), c(12L, 19L))
  expect_lte(max_abs_diff(r, cor(a, b)), tol_fp32)
  expect_identical(dimnames(r), dimnames(cor(a, b)))
  # A seed region as a plain vector: one row, like cor(vector, matrix).
  seed <- x[, "LPCC"]
  expect_equal(dim(fc_cor(seed, x)), dim(cor(seed, x)))
  expect_lte(max_abs_diff(fc_cor(seed, x), cor(seed, x)), tol_fp32)
  expect_lte(max_abs_diff(fc_cor(x, seed), cor(x, seed)), tol_fp32)
  # Two vectors: a single number, like cor().
  s <- fc_cor(x[, "LPut"], x[, "RPut"])
  expect_null(dim(s))
  expect_length(s, 1L)
  expect_lte(abs(s - cor(x[, "LPut"], x[, "RPut"])), tol_fp32)
})

test_that("integer matrices, data frames and logical data are accepted like cor()", {
  x <- fmri_roi()
  xi <- round(x * 10)
  storage.mode(xi) <- "integer"
  expect_lte(max_abs_diff(fc_cor(xi), cor(xi)), tol_fp32)
  df <- as.data.frame(x[, 1:6])
  expect_lte(max_abs_diff(fc_cor(df), cor(df)), tol_fp32)
  expect_identical(dimnames(fc_cor(df)), dimnames(cor(df)))
  lg <- cbind(p = x[, 4] > 0, q = x[, 5] > 0, r = x[, 20] > 0)
  expect_lte(max_abs_diff(fc_cor(lg), cor(lg)), tol_fp32)
  # The caller's data are untouched.
  before <- x
  fc_cor(x)
  expect_identical(x, before)
})

test_that("constant columns give NA with a warning, or 0 under constant = 'zero'", {
  x <- fmri_roi()[, 1:8]
  x[, 3] <- 42
  x[, 6] <- 0
  expect_warning(r <- fc_cor(x), "2 column\\(s\\) of 'x' have zero variance.*column 3 \\('Brain'\\).*column 6")
  ref <- suppressWarnings(cor(x))
  expect_identical(is.na(r), is.na(ref))
  expect_true(all(is.na(r[3, -3])) && all(is.na(r[-3, 3])))
  expect_true(all(!is.nan(r[is.na(r)])))  # R's NA, not NaN, as cor() gives
  expect_lte(max(abs(r - ref), na.rm = TRUE), tol_fp32)
  expect_identical(diag(r), diag(ref))

  expect_warning(r64 <- fc_cor(x, precision = "fp64"), "zero variance")
  expect_identical(is.na(r64), is.na(ref))
  expect_lte(max(abs(r64 - ref), na.rm = TRUE), tol_fp64)

  expect_silent(z <- fc_cor(x, constant = "zero"))
  expect_false(anyNA(z))
  expect_true(all(z[3, -3] == 0) && all(z[-6, 6] == 0))
  expect_lte(max_abs_diff(z[-c(3, 6), -c(3, 6)], ref[-c(3, 6), -c(3, 6)]), tol_fp32)

  # In y too: the warning names 'y'.
  expect_warning(ry <- fc_cor(fmri_roi()[, 1:4], x), "of 'y' have zero variance")
  expect_identical(is.na(ry), is.na(suppressWarnings(cor(fmri_roi()[, 1:4], x))))
})

test_that("non-finite input is an R error naming the column and row", {
  x <- fmri_roi()
  x[7, 4] <- NA
  expect_error(fc_cor(x), "column 4 \\('LCau'\\) of 'x' holds NA at row 7")
  x[7, 4] <- 1
  x[100, 20] <- Inf
  expect_error(fc_cor(x[, 1:10], x), "column 20 \\('RThal'\\) of 'y' holds Inf at row 100")
  x[100, 20] <- 1
  x[3, 2] <- NaN
  expect_error(fc_cor(unname(x)), "column 2 of 'x' holds NaN at row 3")
})

test_that("bad arguments give clear errors", {
  x <- fmri_roi()
  expect_error(fc_cor(letters), "supply both 'x' and 'y' or a matrix-like 'x'")
  expect_error(fc_cor(matrix(letters, 13, 2)), "'x' must be numeric")
  expect_error(fc_cor(x, matrix("a", 250, 2)), "'y' must be numeric")
  expect_error(fc_cor(array(1, c(4, 3, 2))), "not an array with 3 dimensions")
  expect_error(fc_cor(x, x[1:10, ]), "'x' has 250 rows \\(time points\\) but 'y' has 10")
  expect_error(fc_cor(x[1, , drop = FALSE]), "n_time is 1; a correlation needs at least 2 time points")
  expect_error(fc_cor(x, backend = "gpu"), "should be one of")
  expect_error(fc_cor(x, precision = "fp16"), "should be one of")
  expect_error(fc_cor(x, constant = "drop"), "should be one of")
  # The error is reported against the user's call, not an internal helper.
  err <- tryCatch(fc_cor(x[1, , drop = FALSE]), error = identity)
  expect_identical(conditionCall(err)[[1]], as.name("fc_cor"))
  expect_match(conditionMessage(err), "FC_ERR_INVALID_ARG")
})

test_that("backend = 'cuda' without a usable GPU is an R error, not a crash", {
  # Where a GPU is present this runs on it and must agree with cor().
  x <- fmri_roi()
  r <- tryCatch(fc_cor(x, backend = "cuda"), error = identity)
  if (inherits(r, "error")) {
    expect_match(conditionMessage(r), "FC_ERR_BACKEND_UNAVAILABLE")
  } else {
    expect_lte(max_abs_diff(r, cor(x)), tol_fp32)
  }
})
