# The fc_dfc() family against base R computed window by window from the raw data: cor() of
# each window, and for the Gaussian taper the weighted correlation (cov.wt) with the header's
# weights w_k = sum_{j=0}^{L-1} exp(-(k - j)^2 / (2 sigma^2)) / max.

gaussian_taper <- function(width, sigma) {
  k <- 0:(width - 1)
  w <- vapply(k, function(i) sum(exp(-(i - k)^2 / (2 * sigma^2))), 0)
  w / max(w)
}

window_rows <- function(n_time, width, step) {
  lapply(seq.int(1, n_time - width + 1, by = step), function(s) s:(s + width - 1))
}

# W x N(N-1)/2, pairs in dist order (the lower triangle column by column = the row-ordered
# upper triangle).
dfc_reference <- function(x, width, step, weights = NULL) {
  rows <- window_rows(nrow(x), width, step)
  per_window <- lapply(rows, function(i) {
    r <- if (is.null(weights)) suppressWarnings(cor(x[i, , drop = FALSE]))
         else suppressWarnings(cov.wt(x[i, , drop = FALSE], wt = weights / sum(weights), cor = TRUE)$cor)
    r[lower.tri(r)]
  })
  matrix(unlist(per_window), nrow = length(rows), byrow = TRUE)
}

# A symmetric matrix with unit diagonal from one row of fc_dfc() (dist order).
pairs_to_matrix <- function(values, n) {
  m <- matrix(0, n, n)
  m[lower.tri(m)] <- values
  m <- m + t(m)
  diag(m) <- 1
  m
}

test_that("fc_dfc equals cor() of every window, odd sizes, step not dividing T - width", {
  x <- structured_series(n_time = 101, n_series = 37)
  width <- 23
  step <- 7  # floor(78 / 7) + 1 = 12 windows, the last ending 1 before T
  ref <- dfc_reference(x, width, step)
  for (precision in c("fp32", "fp64")) {
    r <- fc_dfc(x, width, step, precision = precision)
    expect_identical(dim(r), c(12L, 666L))
    expect_identical(rownames(r), as.character(seq(1, 78, by = 7)))
    tol <- if (precision == "fp64") 1e-10 else tol_fp32
    expect_lte(max_abs_diff(unname(r), ref), tol, label = precision)
  }
})

test_that("fc_dfc on the bundled data: windows, width = T, width = 2 and step > width", {
  x <- fmri_roi()
  r <- fc_dfc(x, width = 50, step = 10)
  expect_identical(nrow(r), 21L)  # floor((250 - 50) / 10) + 1
  expect_lte(max_abs_diff(unname(r), dfc_reference(x, 50, 10)), tol_fp32)
  # One window of all time points is the static triangle.
  whole <- fc_dfc(x, width = nrow(x))
  expect_identical(dim(whole), c(1L, 465L))
  expect_identical(rownames(whole), "1")
  expect_lte(max(abs(whole[1, ] - unclass(fc_cor_dist(x)))), tol_float_rounding * 4)
  # Two points: every r is +1 or -1 (no ties in this data).
  two <- fc_dfc(x[1:9, 1:5], width = 2, step = 3)
  expect_identical(rownames(two), c("1", "4", "7"))
  expect_lte(max(abs(abs(two) - 1)), 1e-6)
  expect_lte(max_abs_diff(unname(two), dfc_reference(x[1:9, 1:5], 2, 3)), tol_fp32)
  # A window as a pair matrix is cor() of the window.
  m <- pairs_to_matrix(r[3, ], ncol(x))
  expect_lte(max(abs(m - cor(x[21:70, ]))), tol_fp32)
  # step > width skips time points.
  far <- fc_dfc(x[, 1:6], width = 10, step = 31)
  expect_identical(rownames(far), as.character(seq(1, 241, by = 31)))
  expect_lte(max_abs_diff(unname(far), dfc_reference(x[, 1:6], 10, 31)), tol_fp32)
})

test_that("fc_dfc(taper = \"gaussian\") is the weighted correlation with the header's weights", {
  x <- structured_series(n_time = 90, n_series = 21)
  for (sigma in c(3, 0.7, 12.5)) {
    width <- 27
    ref <- dfc_reference(x, width, 9, weights = gaussian_taper(width, sigma))
    for (precision in c("fp32", "fp64")) {
      r <- fc_dfc(x, width, step = 9, taper = "gaussian", sigma = sigma, precision = precision)
      tol <- if (precision == "fp64") 1e-10 else tol_fp32
      expect_lte(max_abs_diff(unname(r), ref), tol, label = sprintf("sigma %g, %s", sigma, precision))
    }
  }
  # The taper matters: it is not the rectangular window.
  expect_gt(max_abs_diff(fc_dfc(x, 27, 9, taper = "gaussian", sigma = 3), fc_dfc(x, 27, 9)), 0.01)
})

test_that("a series constant within some windows gives NA there (with a warning), or 0", {
  x <- fmri_roi()[1:60, 1:6]
  x[11:30, 3] <- 5  # constant in rows 11..30 only
  width <- 10
  step <- 5
  expect_warning(r <- fc_dfc(x, width, step),
                 "3 window\\(s\\) hold series of 'x' with zero variance.*starts at time point 11: column 3 \\('Brain'\\)")
  starts <- as.integer(rownames(r))
  inside <- starts >= 11 & starts + width - 1 <= 30
  expect_identical(sum(inside), 3L)
  pair_has_3 <- which(col(diag(6))[lower.tri(diag(6))] == 3 | row(diag(6))[lower.tri(diag(6))] == 3)
  expect_true(all(is.na(r[inside, pair_has_3])))
  expect_false(anyNA(r[!inside, ]))
  expect_false(anyNA(r[, -pair_has_3]))
  ref <- dfc_reference(x, width, step)
  expect_lte(max(abs(unname(r) - ref), na.rm = TRUE), tol_fp32)
  expect_identical(is.na(unname(r)), is.na(ref))
  # FP64 too, and constant = "zero": 0 without a warning.
  expect_warning(r64 <- fc_dfc(x, width, step, precision = "fp64"), "zero variance")
  expect_identical(is.na(r64), is.na(r))
  expect_warning(z <- fc_dfc(x, width, step, constant = "zero"), NA)
  expect_true(all(z[inside, pair_has_3] == 0))
  expect_identical(z[!inside, ], r[!inside, ])
})

test_that("fc_dfc family refuses bad windows, naming the value", {
  x <- fmri_roi()
  fs <- list(fc_dfc = function(...) fc_dfc(x, ...),
             fc_dfc_degree = function(...) fc_dfc_degree(x, ..., threshold = 0.5),
             fc_dfc_graphs = function(...) fc_dfc_graphs(x, ..., threshold = 0.5),
             fc_dfc_summary = function(...) fc_dfc_summary(x, ...),
             fc_dfc_lowrank = function(...) fc_dfc_lowrank(x, ..., rank = 2))
  for (name in names(fs)) {
    f <- fs[[name]]
    expect_error(f(width = 1), "'width' must be a whole number of time points in \\[2, 250\\] .*, not 1$", label = name)
    expect_error(f(width = 251), "not 251", label = name)
    expect_error(f(width = 20.5), "not 20.5", label = name)
    expect_error(f(width = NA), "not NA", label = name)
    expect_error(f(width = 20, step = 0), "'step' must be a whole number >= 1 .*, not 0", label = name)
    expect_error(f(width = 20, step = 1.5), "not 1.5", label = name)
    expect_error(f(width = 20, taper = "gaussian", sigma = 0), "'sigma' must be one number > 0 .*, not 0", label = name)
    expect_error(f(width = 20, taper = "gaussian", sigma = -2), "not -2", label = name)
    expect_error(f(width = 20, taper = "hann"), "'arg' should be one of", label = name)
  }
  # sigma is read only by the Gaussian taper.
  expect_error(fc_dfc(x[, 1:3], 20, sigma = -1), NA)
  expect_error(fc_dfc(x[1, , drop = FALSE], 2), "'x' has 1 time point\\(s\\)")
  x[7, 2] <- NaN
  expect_error(fc_dfc(x, 20), "column 2 \\('Vent'\\) of 'x' holds NaN at row 7")
  expect_error(fc_dfc_lowrank(fmri_roi(), 20, rank = 21), "'rank' must be a whole number in \\[1, 20\\] .*, not 21")
  expect_error(fc_lowrank(fmri_roi(), rank = 0), "'rank' must be a whole number in \\[1, 250\\] .*, not 0")
  expect_error(fc_dfc_graphs(fmri_roi(), 20, threshold = 0.5, as = "network"), "'arg' should be one of")
})

test_that("fc_dfc_degree equals the row sums of fc_dfc_graphs, window by window", {
  x <- structured_series(n_time = 120, n_series = 45)
  cases <- list(list(threshold = 0.3), list(threshold = 0.2, signed = TRUE), list(density = 0.1), list(topk = 3))
  for (case in cases) {
    label <- paste(names(case), unlist(case), collapse = ", ")
    d <- do.call(fc_dfc_degree, c(list(x, 40, 16), case))
    expect_named(d, c("degree", "strength"))
    expect_identical(dim(d$degree), c(6L, 45L))
    expect_type(d$degree, "integer")
    expect_identical(dimnames(d$degree), list(as.character(seq(1, 81, by = 16)), colnames(x)))
    expect_identical(dimnames(d$strength), dimnames(d$degree))
    weighted <- if (isTRUE(case$signed)) TRUE else "abs"
    binary <- do.call(fc_dfc_graphs, c(list(x, 40, 16), case, list(weighted = FALSE)))
    graphs <- do.call(fc_dfc_graphs, c(list(x, 40, 16), case, list(weighted = weighted)))
    expect_identical(names(graphs), rownames(d$degree))
    degree_ref <- t(vapply(binary, function(g) as.integer(Matrix::rowSums(g)), integer(45)))
    strength_ref <- t(vapply(graphs, function(g) Matrix::rowSums(g), numeric(45)))
    expect_identical(unname(d$degree), unname(degree_ref), label = label)
    expect_lte(max_abs_diff(unname(d$strength), unname(strength_ref)), 1e-5)
    expect_gt(sum(d$degree), 0)
  }
})

test_that("fc_dfc_graphs keeps in each window the pairs cor() of that window puts over the threshold", {
  x <- structured_series(n_time = 150, n_series = 60)
  width <- 61
  step <- 22
  graphs <- fc_dfc_graphs(x, width, step, threshold = 0.3)
  rows <- window_rows(nrow(x), width, step)
  expect_length(graphs, length(rows))
  for (k in seq_along(rows)) {
    g <- graphs[[k]]
    expect_s4_class(g, "dgCMatrix")
    expect_identical(dimnames(g), list(colnames(x), colnames(x)))
    r <- cor(x[rows[[k]], ])
    ref <- threshold_reference(r, 0.3, signed = FALSE)
    expect_same_edges(g, ref$keep, ref$unsure(tol_fp32))
    stored <- edge_pattern(g)
    expect_lte(max(abs(as.matrix(g)[stored] - r[stored])), tol_fp32)
  }
  # Gaussian windows against the weighted correlation.
  tapered <- fc_dfc_graphs(x, width, step, taper = "gaussian", sigma = 8, density = 0.05, weighted = "abs")
  w <- gaussian_taper(width, 8)
  for (k in seq_along(rows)) {
    r <- cov.wt(x[rows[[k]], ], wt = w / sum(w), cor = TRUE)$cor
    a <- abs(r)[upper.tri(r)]
    chosen <- edge_pattern(tapered[[k]])[upper.tri(r)]
    expect_identical(sum(chosen), as.integer(ceiling(0.05 * 60 * 59 / 2)))
    expect_gte(min(a[chosen]), max(a[!chosen]) - tol_fp32)
  }
})

test_that("fc_dfc_graphs(as = \"igraph\") gives as_igraph() of each window's graph", {
  skip_if_not_installed("igraph")
  x <- fmri_roi()
  graphs <- fc_dfc_graphs(x, 80, 40, threshold = 0.4)
  igraphs <- fc_dfc_graphs(x, 80, 40, threshold = 0.4, as = "igraph")
  expect_identical(names(igraphs), names(graphs))
  for (k in seq_along(graphs)) {
    expect_s3_class(igraphs[[k]], "igraph")
    expect_identical(igraph::ecount(igraphs[[k]]), length(graphs[[k]]@x) / 2)
    expect_identical(igraph::V(igraphs[[k]])$name, colnames(x))
    expect_identical(igraph::as_adjacency_matrix(igraphs[[k]], attr = "weight", sparse = FALSE),
                     igraph::as_adjacency_matrix(as_igraph(graphs[[k]]), attr = "weight", sparse = FALSE))
  }
})

test_that("fc_dfc_summary is the mean and sd over windows of fc_dfc", {
  x <- structured_series(n_time = 130, n_series = 33)
  s <- fc_dfc_summary(x, 30, 11)
  expect_named(s, c("mean", "sd"))
  expect_s3_class(s$mean, "dist")
  expect_identical(attr(s$mean, "Size"), 33L)
  expect_identical(attr(s$sd, "Labels"), colnames(x))
  ref <- dfc_reference(x, 30, 11)
  expect_lte(max(abs(unclass(s$mean) - colMeans(ref))), tol_fp32)
  expect_lte(max(abs(unclass(s$sd) - apply(ref, 2, sd))), tol_fp32)
  # From the library's own windows, the same up to float64 summation order.
  r <- fc_dfc(x, 30, 11)
  expect_lte(max(abs(unclass(s$mean) - colMeans(r))), 1e-9)
  expect_lte(max(abs(unclass(s$sd) - apply(r, 2, sd))), 1e-9)
  # One window: the sd is NA (divisor W - 1), as sd() of one value.
  one <- fc_dfc_summary(x, 130)
  expect_true(all(is.na(one$sd)))
  expect_lte(max(abs(unclass(one$mean) - unclass(fc_cor_dist(x)))), 4 * tol_float_rounding)
  # A pair with a series constant in some window: NA.
  y <- x[, 1:4]
  y[1:40, 2] <- 0
  c_s <- fc_dfc_summary(y, 30, 11)
  expect_identical(which(is.na(unclass(c_s$mean))), c(1L, 4L, 5L))  # pairs (1,2), (2,3), (2,4)
  expect_false(anyNA(fc_dfc_summary(y, 30, 11, constant = "zero")$mean))
})

test_that("fc_lowrank: the relative error is the one eigen() gives, and V V^T is that close", {
  x <- fmri_roi()
  r <- cor(x)
  lambda <- eigen(r, symmetric = TRUE, only.values = TRUE)$values
  for (rank in c(1, 3, 10)) {
    low <- fc_lowrank(x, rank)
    expect_named(low, c("factor", "rel_error"))
    expect_identical(dim(low$factor), c(31L, as.integer(rank)))
    expect_identical(rownames(low$factor), colnames(x))
    expected <- sqrt(sum(lambda[-seq_len(rank)]^2) / sum(lambda^2))
    expect_equal(low$rel_error, expected, tolerance = 1e-6, label = sprintf("rank %d", rank))
    approx <- tcrossprod(low$factor)
    expect_equal(sqrt(sum((r - approx)^2)) / sqrt(sum(r^2)), expected, tolerance = 1e-4)
  }
  # Fewer time points than series: rank T - 1 (the rank of the centered data) is exact.
  y <- structured_series(n_time = 13, n_series = 40)
  exact <- fc_lowrank(y, 12)
  expect_lte(exact$rel_error, 1e-6)
  expect_lte(max(abs(tcrossprod(exact$factor) - cor(y))), tol_fp32)
})

test_that("fc_dfc_lowrank: each window's factor against eigen() of that window's cor()", {
  x <- structured_series(n_time = 75, n_series = 29)
  width <- 19
  step <- 8
  rank <- 4
  low <- fc_dfc_lowrank(x, width, step, rank)
  rows <- window_rows(nrow(x), width, step)
  expect_named(low, c("factors", "rel_error"))
  expect_length(low$factors, length(rows))
  expect_identical(names(low$rel_error), as.character(seq(1, 57, by = 8)))
  for (k in seq_along(rows)) {
    r <- cor(x[rows[[k]], ])
    lambda <- eigen(r, symmetric = TRUE, only.values = TRUE)$values
    expected <- sqrt(sum(lambda[-seq_len(rank)]^2) / sum(lambda^2))
    expect_equal(unname(low$rel_error[k]), expected, tolerance = 1e-6)
    v <- low$factors[[k]]
    expect_identical(dim(v), c(29L, 4L))
    expect_identical(rownames(v), colnames(x))
    expect_equal(sqrt(sum((r - tcrossprod(v))^2)) / sqrt(sum(r^2)), expected, tolerance = 1e-4)
  }
  # rank = width - 1 reproduces every r of every window.
  full <- fc_dfc_lowrank(x, width, step, width - 1)
  ref <- dfc_reference(x, width, step)
  for (k in seq_along(rows)) {
    m <- tcrossprod(full$factors[[k]])
    expect_lte(max(abs(m[lower.tri(m)] - ref[k, ])), tol_fp32)
  }
  # The Gaussian taper: eigen() of the weighted correlation.
  w <- gaussian_taper(width, 4)
  tapered <- fc_dfc_lowrank(x, width, step, rank, taper = "gaussian", sigma = 4)
  r <- cov.wt(x[rows[[2]], ], wt = w / sum(w), cor = TRUE)$cor
  lambda <- eigen(r, symmetric = TRUE, only.values = TRUE)$values
  expect_equal(unname(tapered$rel_error[2]), sqrt(sum(lambda[-(1:4)]^2) / sum(lambda^2)), tolerance = 1e-6)
})
