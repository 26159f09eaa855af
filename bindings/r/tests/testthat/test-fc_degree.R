# fc_degree() computes without a graph (threshold rules: straight from the tiles); it must agree
# with the graph fc_graph() builds, seen through igraph and through plain row sums.

degree_cases <- list(
  list(threshold = 0.3),
  list(threshold = 0.2, signed = TRUE),
  list(density = 0.05),
  list(topk = 3)
)

test_that("fc_degree equals igraph's degree and strength of as_igraph(fc_graph(...))", {
  skip_if_not_installed("igraph")
  x <- structured_series()
  for (case in degree_cases) {
    label <- paste(names(case), unlist(case), collapse = ", ")
    d <- do.call(fc_degree, c(list(x), case))
    # Strength sums r under the signed threshold and |r| otherwise.
    weighted <- if (isTRUE(case$signed)) TRUE else "abs"
    ig <- as_igraph(do.call(fc_graph, c(list(x), case, list(weighted = weighted))))
    expect_identical(d$degree, as.integer(unname(igraph::degree(ig))), label = label)
    expect_equal(d$strength, unname(igraph::strength(ig)), tolerance = 1e-6, label = label)
    expect_gt(sum(d$degree), 0)
  }
})

test_that("fc_degree equals the row sums of the binary and weighted matrices", {
  x <- fmri_roi()
  for (case in degree_cases) {
    label <- paste(names(case), unlist(case), collapse = ", ")
    d <- do.call(fc_degree, c(list(x), case))
    expect_s3_class(d, "data.frame")
    expect_identical(names(d), c("degree", "strength"))
    expect_identical(rownames(d), colnames(x))
    expect_type(d$degree, "integer")
    binary <- do.call(fc_graph, c(list(x), case, list(weighted = FALSE)))
    weighted <- do.call(fc_graph, c(list(x), case, list(weighted = if (isTRUE(case$signed)) TRUE else "abs")))
    expect_identical(d$degree, as.integer(unname(Matrix::rowSums(binary))), label = label)
    expect_equal(d$strength, unname(Matrix::rowSums(weighted)), tolerance = 1e-6, label = label)
  }
  # topk: every series has at least k partners.
  expect_true(all(fc_degree(x, topk = 3)$degree >= 3))
  # density: the degrees add up to twice the exact edge count.
  expect_identical(sum(fc_degree(x, density = 0.1)$degree), as.integer(2 * ceiling(0.1 * 31 * 30 / 2)))
})

test_that("fc_degree against cor() on FP64, without names", {
  x <- unname(structured_series(n_series = 120))
  r <- cor(x)
  ref <- threshold_reference(r, 0.35, signed = FALSE)
  d <- fc_degree(x, threshold = 0.35, precision = "fp64")
  expect_identical(.row_names_info(d), -nrow(d))  # automatic row names: x had no colnames
  # Rows without a pair near the cut must match the reference count exactly.
  clear <- rowSums(ref$unsure(margin_fp64)) == 0
  expect_gt(sum(clear), 100)
  expect_identical(d$degree[clear], as.integer(rowSums(ref$keep))[clear])
  strength_ref <- rowSums(abs(r) * ref$keep)
  expect_lte(max(abs(d$strength[clear] - strength_ref[clear])), 1e-5)
})
