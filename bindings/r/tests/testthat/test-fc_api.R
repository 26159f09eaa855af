# fp64 everywhere, and the capabilities of fastconn.h beyond the correlation calls: settings,
# version and CUDA, the triangle in either order and its indices, graph files, single and
# streamed windows.

test_that("fp64 cross correlations and blocks are float64, fp32 ones float rounded", {
  x <- fmri_roi()
  a <- x[, 1:5]
  b <- x[, 6:31]
  ref <- cor(a, b)
  expect_lte(max_abs_diff(fc_cor(a, b, precision = "fp64"), ref), tol_fp64)
  expect_gt(max_abs_diff(fc_cor(a, b, precision = "fp32"), ref), tol_fp64)
  ref_dist <- as.vector(as.dist(cor(x)))
  for (rows in c(0, 7)) {
    blocks <- fc_cor_blocks(x, rows, function(values, info) list(values = values, info = info),
                            precision = "fp64", progress = FALSE)
    v <- unlist(lapply(blocks, `[[`, "values"))
    expect_lte(max_abs_diff(v, ref_dist), tol_fp64)
    expect_identical(blocks[[1]]$info$precision, "fp64")
  }
  v32 <- unlist(fc_cor_blocks(x, 0, function(values, info) values, progress = FALSE))
  expect_gt(max_abs_diff(v32, ref_dist), tol_fp64)
  expect_lte(max_abs_diff(v32, ref_dist), tol_fp32)
})

test_that("settings reach the library: threads and a small memory limit give the same result", {
  x <- structured_series(200, 300)
  ref <- fc_cor_dist(x, backend = "cpu")
  old <- fc_settings(threads = 1, memory_limit = 2^20)
  on.exit(do.call(fc_settings, old))
  expect_identical(old, list(threads = 0, memory_limit = 0, devices = "one"))
  expect_lte(max_abs_diff(fc_cor_dist(x, backend = "cpu"), ref), tol_float_rounding)
  # a limit too small for even one row of tiles is refused by the library: the limit is applied
  fc_settings(memory_limit = 1)
  expect_error(fc_cor(x, backend = "cpu"), "memory|FC_ERR")
  expect_error(fc_settings(threads = -1), "'threads' must be a whole number >= 0")
  expect_error(fc_settings(memory_limit = 1.5), "'memory_limit' must be a whole number of bytes")
})

test_that("devices: several GPUs for backend = 'cuda', checked here and by the library", {
  x <- structured_series(60, 30)
  old <- fc_settings(devices = c(0, 1))
  on.exit(do.call(fc_settings, old))
  expect_identical(old$devices, "one")
  expect_identical(fc_settings()$devices, c(0L, 1L))
  expect_equal(fc_cor(x, backend = "cpu"), cor(x), tolerance = 1e-5)  # CPU contexts ignore it
  if (!fc_cuda_available())
    expect_error(fc_cor(x, backend = "cuda"), if (fc_has_cuda()) "CUDA" else "built without CUDA")
  fc_settings(devices = c(0, 0))
  expect_error(fc_cor(x, backend = "cuda"), "devices\\[1\\] is 0, which devices lists twice")
  fc_settings(devices = c(1, -2))
  expect_error(fc_cor(x, backend = "cuda"), "devices\\[1\\] is -2, a negative device id")
  expect_error(fc_settings(devices = "two"), "'devices' must be \"one\", \"all\" or CUDA device ids")
  expect_error(fc_settings(devices = 0.5), "'devices' must be")
  fc_settings(devices = "all")
  if (fc_cuda_available()) expect_equal(fc_cor(x, backend = "cuda"), fc_cor(x, backend = "cpu"), tolerance = 1e-5)
})

test_that("version, CUDA build and backend", {
  v <- fc_version()
  expect_s3_class(v, "package_version")
  expect_true(v >= "0.1.0")
  expect_type(fc_has_cuda(), "logical")
  expect_type(fc_cuda_available(), "logical")
  if (!fc_has_cuda()) expect_false(fc_cuda_available())
  expect_match(fc_cpu_info(), "^pair kernels: (avx512|avx2|portable) .*BLAS: ")
  expect_identical(fc_backend("cpu"), "cpu")
  expect_identical(fc_backend(), if (fc_cuda_available()) "cuda" else "cpu")
})

test_that("the triangle in row and column order, and the index helpers", {
  x <- fmri_roi()[, 1:9]
  r <- cor(x)
  expect_lte(max_abs_diff(fc_cor_triu(x, "col", precision = "fp64"), r[upper.tri(r)]), tol_fp64)
  expect_lte(max_abs_diff(fc_cor_triu(x, "row", precision = "fp64"), as.vector(as.dist(r))), tol_fp64)
  n <- 9
  pairs <- which(upper.tri(r), arr.ind = TRUE)  # column order
  expect_identical(fc_triu_index(n, pairs[, 1], pairs[, 2], "col"), as.double(seq_len(nrow(pairs))))
  expect_identical(fc_triu_index(n, pairs[, 2], pairs[, 1], "col"), as.double(seq_len(nrow(pairs))))
  expect_identical(unname(fc_triu_pair(n, seq_len(36), "col")), unname(matrix(as.double(pairs), ncol = 2)))
  k <- fc_triu_index(n, pairs[, 1], pairs[, 2], "row")
  expect_identical(fc_cor_triu(x, "row")[k], fc_cor_triu(x, "col"))
  expect_identical(fc_triu_pair(n, k, "row")[, "i"], as.double(pairs[, 1]))
  expect_error(fc_triu_index(n, 3, 3), "two different whole numbers in \\[1, 9\\]; pair 1 is \\(3, 3\\)")
  expect_error(fc_triu_index(n, 1, 10), "pair 1 is \\(1, 10\\)")
  expect_error(fc_triu_pair(n, 37), "whole numbers in \\[1, 36\\].*element 1 is 37")
  expect_error(fc_triu_pair(1, 1), "'n' must be a whole number of series >= 2")
})

test_that("graphs round-trip through files, and the command line's files load", {
  x <- fmri_roi()
  g <- fc_graph(x, density = 0.2)
  file <- tempfile(fileext = ".fcg")
  on.exit(unlink(file))
  expect_identical(fc_graph_save(g, file), file)
  h <- fc_graph_load(file)
  expect_s4_class(h, "dgCMatrix")
  expect_identical(unname(as.matrix(h)), unname(as.matrix(g)))
  expect_error(fc_graph_load(file.path(tempdir(), "no-such.fcg")), "no such file")
  writeLines("not a graph", file)
  expect_error(fc_graph_load(file), "FC_ERR")
  expect_error(fc_graph_save(matrix(1:4, 2), file), "symmetric")
})

test_that("one window, and every window streamed, match cor() of the rows", {
  x <- fmri_roi()
  r <- fc_window_cor(x, start = 101, width = 50, precision = "fp64")
  expect_lte(max_abs_diff(r, cor(x[101:150, ])), tol_fp64)
  expect_identical(dimnames(r), list(colnames(x), colnames(x)))
  g <- fc_window_cor(x, 1, 50, taper = "gaussian", sigma = 5)
  expect_gt(max_abs_diff(g, cor(x[1:50, ])), 1e-3)  # the taper weighs the rows
  expect_error(fc_window_cor(x, 202, 50), "'start' must be a whole number in \\[1, 201\\]")
  got <- fc_dfc_windows(x, 50, 25, function(values, info) list(values = values, info = info),
                        precision = "fp64", progress = FALSE)
  expect_identical(names(got), as.character(seq(1, 201, by = 25)))
  for (w in got) {
    rows <- w$info$start:w$info$end
    expect_lte(max_abs_diff(w$values, as.vector(as.dist(cor(x[rows, ])))), tol_fp64)
    expect_identical(w$info$precision, "fp64")
  }
  all <- fc_dfc(x, 50, 25)
  streamed <- fc_dfc_windows(x, 50, 25, function(values, info) values, progress = FALSE)
  expect_identical(unname(do.call(rbind, streamed)), unname(unclass(all)))
  x[1:60, 3] <- 7
  expect_warning(fc_dfc_windows(x, 50, 25, function(values, info) NULL, progress = FALSE),
                 "1 window\\(s\\) hold series of 'x' with zero variance.*column 3")
  expect_warning(fc_window_cor(x, 1, 50), "column 3")
})
