# Compact values (fc_cor_triu(compact = ...)): the int16 codes are R's own round(r * 32767) of
# the float call's r (R's round() goes to even at exact halves, as the library does), decoded
# values are within the documented error of cor(), NA pairs stay NA (code -32768), and the half
# codes decode to within 2^-12.

test_that("int16 codes are round(r * 32767) of the float triangle, NA as -32768", {
  x <- structured_series(120, 40)
  x[, 7] <- 3  # a constant series: NA under constant = "na"
  r <- suppressWarnings(fc_cor_triu(x))
  codes <- suppressWarnings(fc_cor_triu(x, compact = "int16", codes = TRUE))
  expect_type(codes, "integer")
  expect_identical(codes, ifelse(is.na(r), -32768L, as.integer(round(r * 32767))))
  decoded <- suppressWarnings(fc_cor_triu(x, compact = "int16"))
  expect_identical(is.na(decoded), is.na(r))
  expect_identical(decoded, ifelse(codes == -32768L, NA_real_, codes / 32767))
  for (order in c("row", "col")) {
    ref <- cor(x[, -7])
    v <- fc_cor_triu(x[, -7], order = order, compact = "int16")
    want <- if (order == "row") ref[lower.tri(ref)] else ref[upper.tri(ref)]
    expect_lte(max_abs_diff(v, want), 0.5 / 32767 + tol_fp32)
  }
})

test_that("half values decode to within 2^-12 of r; bad arguments are refused", {
  x <- fmri_roi()
  r <- fc_cor_triu(x)
  h <- fc_cor_triu(x, compact = "half")
  expect_lte(max_abs_diff(h, r), 2^-12)
  bits <- fc_cor_triu(x, compact = "half", codes = TRUE)
  expect_true(all(bits >= 0L & bits <= 65535L))
  # IEEE half: sign bit, 5 exponent bits (bias 15), 10 fraction bits, decoded here in R
  e <- bitwAnd(bitwShiftR(bits, 10L), 31L)
  f <- bitwAnd(bits, 1023L)
  value <- ifelse(bitwAnd(bits, 32768L) != 0L, -1, 1) * ifelse(e == 0L, f * 2^-24, (1 + f / 1024) * 2^(e - 15))
  expect_identical(value, h)
  expect_error(fc_cor_triu(x, compact = "int8"), "'arg' should be one of")
  expect_error(fc_cor_triu(x, codes = TRUE), "needs compact")
  expect_error(fc_cor_triu(x, compact = "half", codes = NA), "'codes' must be TRUE or FALSE")
  one <- fc_cor_triu(x[, 1:2], compact = "int16", codes = TRUE)
  expect_length(one, 1L)
})
