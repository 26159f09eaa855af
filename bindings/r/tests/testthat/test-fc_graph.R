test_that("fc_graph(threshold) keeps the pairs cor() puts at |r| >= threshold, weighted by r", {
  x <- structured_series()
  r <- cor(x)
  ref <- threshold_reference(r, 0.3, signed = FALSE)
  for (precision in c("fp64", "fp32")) {
    g <- fc_graph(x, threshold = 0.3, precision = precision)
    expect_s4_class(g, "dgCMatrix")
    expect_true(validObject(g))
    expect_identical(dim(g), c(ncol(x), ncol(x)))
    expect_identical(dimnames(g), list(colnames(x), colnames(x)))
    expect_true(Matrix::isSymmetric(g))
    expect_true(all(Matrix::diag(g) == 0))
    margin <- if (precision == "fp64") margin_fp64 else tol_fp32
    expect_same_edges(g, ref$keep, ref$unsure(margin))
    stored <- edge_pattern(g)
    expect_lte(max(abs(as.matrix(g)[stored] - r[stored])), margin)
  }
  # |r|, and 1 for every edge, on the same edges.
  g <- fc_graph(x, threshold = 0.3, precision = "fp64")
  g_abs <- fc_graph(x, threshold = 0.3, weighted = "abs", precision = "fp64")
  g_bin <- fc_graph(x, threshold = 0.3, weighted = FALSE, precision = "fp64")
  expect_identical(edge_pattern(g_abs), edge_pattern(g))
  expect_identical(edge_pattern(g_bin), edge_pattern(g))
  expect_identical(g_abs@x, abs(g@x))
  expect_true(all(g_bin@x == 1))
  expect_true(any(g@x < 0))  # the data has negative correlations above the cut, so "abs" was tested
})

test_that("fc_graph(threshold, signed = TRUE) keeps r >= threshold on the real ROI data", {
  x <- fmri_roi()
  r <- cor(x)
  for (threshold in c(0.25, -0.1)) {
    ref <- threshold_reference(r, threshold, signed = TRUE)
    g <- fc_graph(x, threshold = threshold, signed = TRUE, precision = "fp64")
    expect_same_edges(g, ref$keep, ref$unsure(margin_fp64))
    expect_identical(dimnames(g), list(colnames(x), colnames(x)))
  }
})

test_that("fc_graph(density) keeps exactly ceil(density * pairs) edges, the strongest |r|", {
  x <- structured_series()
  n <- ncol(x)
  a <- abs(cor(x))
  upper <- upper.tri(a)
  for (density in c(0.01, 0.05, 0.2)) {
    g <- fc_graph(x, density = density, weighted = FALSE)
    expected <- ceiling(density * n * (n - 1) / 2)
    expect_identical(length(g@x), as.integer(2 * expected))
    chosen <- edge_pattern(g)[upper]
    # Every kept pair is at least as strong as every dropped one, up to FP32 error.
    expect_gte(min(a[upper][chosen]), max(a[upper][!chosen]) - tol_fp32)
  }
  expect_identical(length(fc_graph(x, density = 0)@x), 0L)
  expect_identical(length(fc_graph(x, density = 1)@x), n * (n - 1L))
})

test_that("fc_graph(topk) is symmetric and holds each series' k strongest partners", {
  x <- structured_series()
  a <- abs(cor(x))
  diag(a) <- -Inf
  k <- 4
  g <- fc_graph(x, topk = k, weighted = "abs")
  expect_true(Matrix::isSymmetric(g))
  pattern <- edge_pattern(g)
  expect_true(all(rowSums(pattern) >= k))
  for (i in seq_len(ncol(x))) {
    strongest <- sort(a[i, ], decreasing = TRUE)
    # Partners clearly above the k-th strongest must be there, and the (k+1)-th strongest only
    # if some other series chose it (union), which the symmetry already covers.
    sure <- a[i, ] > strongest[k] + tol_fp32
    expect_true(all(pattern[i, sure]), label = sprintf("row %d holds its sure top-%d partners", i, k))
  }
  # The union means the graph is not just k edges per series: some series gain partners.
  expect_gt(max(rowSums(pattern)), k)
})

test_that("as_igraph() gives the same network as igraph's own conversion", {
  skip_if_not_installed("igraph")
  x <- fmri_roi()
  g <- fc_graph(x, threshold = 0.4)
  ig <- as_igraph(g)
  expect_false(igraph::is_directed(ig))
  expect_identical(igraph::vcount(ig), ncol(x))
  expect_identical(igraph::ecount(ig), length(g@x) / 2)
  expect_identical(igraph::V(ig)$name, colnames(x))
  ref <- igraph::graph_from_adjacency_matrix(as.matrix(g), mode = "undirected", weighted = TRUE)
  expect_true(igraph::isomorphic(ig, ref))
  expect_identical(igraph::as_adjacency_matrix(ig, attr = "weight", sparse = FALSE),
                   igraph::as_adjacency_matrix(ref, attr = "weight", sparse = FALSE))
  # Binary graphs carry no weights.
  expect_null(igraph::E(as_igraph(fc_graph(x, threshold = 0.4, weighted = FALSE)))$weight)
  expect_error(as_igraph(as.matrix(g)), "must be a dgCMatrix as fc_graph\\(\\) returns, not an object of class \"matrix\"")
  expect_error(as_igraph(Matrix::rsparsematrix(3, 4, 0.5)), "3 x 4 matrix")
})

test_that("fc_graph: constant and short input", {
  x <- fmri_roi()[, 1:8]
  x[, 3] <- 2
  g <- fc_graph(x, threshold = 0)
  # A zero-variance series gets no edges; every other pair has |r| >= 0.
  expect_true(all(edge_pattern(g)[3, ] == FALSE))
  expect_identical(length(g@x), 7L * 6L)
  one <- fc_graph(x[, 1, drop = FALSE], topk = 2)
  expect_identical(dim(one), c(1L, 1L))
  expect_identical(length(one@x), 0L)
  x[2, 5] <- Inf
  expect_error(fc_graph(x, threshold = 0.5), "column 5 \\('LPut'\\) of 'x' holds Inf at row 2")
})

test_that("fc_graph and fc_degree refuse bad rules, naming the value", {
  x <- fmri_roi()
  for (f in list(fc_graph, fc_degree)) {
    expect_error(f(x, threshold = 0.5, density = 0.1), "not threshold = 0.5 and density = 0.1")
    expect_error(f(x, density = 0.2, topk = 3), "not density = 0.2 and topk = 3")
    expect_error(f(x), "give exactly one of 'threshold', 'density' or 'topk'")
    expect_error(f(x, topk = -2), "'topk' must be one whole number >= 1 .*, not -2")
    expect_error(f(x, topk = 2.5), "not 2.5")
    expect_error(f(x, density = 1.5), "'density' must be one number in \\[0, 1\\] .*, not 1.5")
    expect_error(f(x, density = -0.01), "not -0.01")
    expect_error(f(x, threshold = 1.2), "'threshold' must be one number in \\[-1, 1\\], not 1.2")
    expect_error(f(x, threshold = NA_real_), "not NA")
    expect_error(f(x, threshold = -0.3), "threshold = -0.3 with signed = FALSE keeps every pair")
    expect_error(f(x, topk = 3, signed = TRUE), "signed = TRUE applies to 'threshold' only: 'topk'")
    expect_error(f(x, threshold = 0.5, backend = "tpu"), "'arg' should be one of")
  }
  expect_error(fc_graph(x, threshold = 0.5, weighted = "yes"), "'weighted' must be .*, not \"yes\"")
  expect_error(fc_graph(x, threshold = 0.5), NA)
})
