# fc_modularity() against igraph: the Q it reports must be igraph::modularity() of the labels it
# returns (to 1e-9), at least the Q of igraph's own leading-eigenvector method, and clear planted
# partitions must come back exactly.

zachary <- function() igraph::make_graph("Zachary")

# igraph's Q of a membership; this igraph version reads the weights only when given.
igraph_q <- function(g, membership, resolution = 1) {
  igraph::modularity(g, membership, weights = igraph::E(g)$weight, resolution = resolution)
}

expect_q_equal <- function(actual, expected, tolerance = 1e-9, label = NULL) {
  expect_lte(abs(actual - expected), tolerance, label = label)
}

# Weights exactly representable in float (the library stores weights in single precision).
with_weights <- function(g, seed = 7) {
  set.seed(seed)
  igraph::set_edge_attr(g, "weight", value = sample(1:5, igraph::ecount(g), replace = TRUE) / 4)
}

test_that("fc_modularity on the karate club: an igraph communities object whose Q igraph confirms", {
  skip_if_not_installed("igraph")
  g <- zachary()
  m <- fc_modularity(g)
  expect_s3_class(m, "communities")
  expect_identical(m$algorithm, "fastconn leading eigenvector")
  expect_identical(length(igraph::membership(m)), 34L)
  expect_identical(igraph::membership(m)[[1]], 1L)  # numbered by first appearance, from 1
  expect_q_equal(igraph::modularity(m), igraph_q(g, igraph::membership(m)))
  expect_q_equal(fc_modularity_score(g, igraph::membership(m)), igraph::modularity(m))
  expect_q_equal(fc_modularity_score(g, m), igraph::modularity(m))
  leading_q <- igraph::modularity(igraph::cluster_leading_eigen(g))
  expect_gte(igraph::modularity(m), leading_q)
  expect_gt(igraph::modularity(m), 0.39)
  expect_identical(length(m), max(m$membership))
  expect_identical(sum(igraph::sizes(m)), 34L)
  # The division tree: one row per kept split, gains adding up to Q (before refinement) or less.
  expect_s3_class(m$splits, "data.frame")
  expect_named(m$splits, c("parent", "child_a", "child_b", "eigenvalue", "gain", "iterations", "residual"))
  expect_gte(nrow(m$splits), 1L)
  expect_true(all(m$splits$eigenvalue > 0))
  expect_true(all(m$splits$gain > 0))
  expect_output(print(m), "IGRAPH clustering fastconn leading eigenvector")
  # The same graph as a sparse or dense adjacency matrix: the same labels.
  a <- igraph::as_adjacency_matrix(g)
  expect_identical(fc_modularity(a)$membership, m$membership)
  expect_identical(fc_modularity(as.matrix(a))$membership, m$membership)
  # Same seed, same labels.
  expect_identical(fc_modularity(g, seed = 5)$membership, fc_modularity(g, seed = 5)$membership)
})

test_that("fc_modularity on the weighted karate club", {
  skip_if_not_installed("igraph")
  g <- with_weights(zachary())
  m <- fc_modularity(g)
  expect_q_equal(igraph::modularity(m), igraph_q(g, igraph::membership(m)))
  expect_q_equal(fc_modularity_score(g, igraph::membership(m)), igraph::modularity(m))
  expect_gte(igraph::modularity(m), igraph::modularity(igraph::cluster_leading_eigen(g, weights = igraph::E(g)$weight)))
  # Through fc_graph()'s format: a symmetric dgCMatrix with the weights.
  a <- igraph::as_adjacency_matrix(g, attr = "weight")
  expect_identical(fc_modularity(a)$membership, m$membership)
  # Other resolutions, as igraph scores them.
  for (gamma in c(0.5, 2)) {
    mg <- fc_modularity(g, resolution = gamma)
    expect_q_equal(igraph::modularity(mg), igraph_q(g, igraph::membership(mg), resolution = gamma),
                   label = sprintf("resolution %g", gamma))
    expect_q_equal(fc_modularity_score(g, mg, resolution = gamma), igraph::modularity(mg))
  }
  expect_gt(length(fc_modularity(g, resolution = 2)), length(fc_modularity(g, resolution = 0.5)))
})

test_that("fc_modularity recovers planted partitions exactly (NMI = 1)", {
  skip_if_not_installed("igraph")
  for (case in list(list(sizes = rep(50, 4), p_in = 0.3, p_out = 0.01),
                    list(sizes = c(30, 45, 60, 75, 90), p_in = 0.25, p_out = 0.005),
                    list(sizes = rep(100, 8), p_in = 0.15, p_out = 0.004))) {
    set.seed(length(case$sizes))
    k <- length(case$sizes)
    pref <- matrix(case$p_out, k, k)
    diag(pref) <- case$p_in
    g <- igraph::sample_sbm(sum(case$sizes), pref, case$sizes)
    truth <- rep(seq_len(k), case$sizes)
    m <- fc_modularity(g)
    expect_equal(igraph::compare(igraph::membership(m), truth, method = "nmi"), 1, tolerance = 1e-12,
                 label = sprintf("%d planted communities", k))
    expect_q_equal(igraph::modularity(m), igraph::modularity(g, truth))
    expect_gte(igraph::modularity(m), igraph::modularity(igraph::cluster_leading_eigen(g, weights = igraph::E(g)$weight)))
  }
})

test_that("fc_modularity on a network of the bundled data, unsigned and signed", {
  skip_if_not_installed("igraph")
  x <- fmri_roi()
  g <- fc_graph(x, density = 0.15, weighted = "abs")
  m <- fc_modularity(g)
  expect_identical(names(igraph::membership(m)), colnames(x))
  expect_q_equal(igraph::modularity(m), igraph_q(as_igraph(g), igraph::membership(m)))

  # Signed weights (r): the positive and negative parts scored separately (Gomez et al. 2009,
  # and Rubinov and Sporns 2011), each part's Q from igraph.
  s <- fc_graph(x, threshold = 0.2, weighted = TRUE)
  expect_true(any(s@x < 0))
  part_q <- function(part, membership) {
    ig <- as_igraph(part)
    if (igraph::ecount(ig) == 0) return(0)
    igraph::modularity(ig, membership, weights = igraph::E(ig)$weight)
  }
  signed_q <- function(membership, mode) {
    pos <- s
    pos@x <- pmax(pos@x, 0)
    neg <- s
    neg@x <- pmax(-neg@x, 0)
    pos <- Matrix::drop0(pos)
    neg <- Matrix::drop0(neg)
    w_pos <- sum(pos@x)
    w_neg <- sum(neg@x)
    q_pos <- part_q(pos, membership)
    q_neg <- part_q(neg, membership)
    if (mode == "gomez") (w_pos * q_pos - w_neg * q_neg) / (w_pos + w_neg)
    else q_pos - w_neg / (w_pos + w_neg) * q_neg
  }
  for (mode in c("gomez", "rubinov")) {
    ms <- fc_modularity(s, signed = mode)
    expect_q_equal(igraph::modularity(ms), signed_q(ms$membership, mode), label = mode)
  }
  ms <- fc_modularity(s)
  expect_q_equal(fc_modularity_score(s, ms), signed_q(ms$membership, "gomez"))
})

test_that("fc_modularity: graphs without edges, one node, components, isolated nodes, options", {
  skip_if_not_installed("igraph")
  empty <- fc_modularity(Matrix::Matrix(0, 5, 5, sparse = TRUE))
  expect_identical(empty$membership, 1:5)
  expect_equal(empty$modularity, 0)
  one <- fc_modularity(Matrix::Matrix(0, 1, 1, sparse = TRUE))
  expect_identical(one$membership, 1L)
  expect_equal(one$modularity, 0)
  # Two triangles and an isolated node: Q = 2 (3/6 - (6/12)^2) = 0.5.
  g <- igraph::make_graph(c(1, 2, 2, 3, 1, 3, 4, 5, 5, 6, 4, 6), n = 7, directed = FALSE)
  m <- fc_modularity(g)
  expect_equal(igraph::modularity(m), 0.5, tolerance = 1e-12)
  expect_identical(m$membership, c(1L, 1L, 1L, 2L, 2L, 2L, 3L))
  expect_false(anyNA(m$modularity))
  # Limits on the splits.
  k <- zachary()
  expect_identical(length(fc_modularity(k, max_communities = 2)), 2L)
  expect_identical(length(fc_modularity(k, max_communities = 1)), 1L)
  expect_equal(fc_modularity(k, max_communities = 1)$modularity, 0, tolerance = 1e-12)
  expect_identical(length(fc_modularity(k, eigen_threshold = 1e6)), 1L)
  expect_gte(min(igraph::sizes(fc_modularity(k, min_size = 10, refine = FALSE))), 10L)
  unrefined <- fc_modularity(k, refine = FALSE)
  expect_gte(igraph::modularity(fc_modularity(k)), igraph::modularity(unrefined))
  expect_q_equal(igraph::modularity(unrefined), igraph_q(k, igraph::membership(unrefined)))
})

test_that("fc_modularity and fc_modularity_score refuse bad input, naming the value", {
  skip_if_not_installed("igraph")
  g <- zachary()
  expect_error(fc_modularity(g, resolution = 0), "'resolution' must be one number > 0, not 0")
  expect_error(fc_modularity(g, resolution = NA), "not NA")
  expect_error(fc_modularity(g, eigen_threshold = -1), "'eigen_threshold' must be one number >= 0, not -1")
  expect_error(fc_modularity(g, max_communities = 0), "'max_communities' must be a whole number >= 1, or Inf .*, not 0")
  expect_error(fc_modularity(g, max_communities = 2.5), "not 2.5")
  expect_error(fc_modularity(g, min_size = 0), "'min_size' must be a whole number >= 1, not 0")
  expect_error(fc_modularity(g, seed = -1), "'seed' must be a whole number in \\[0, 2\\^53\\], not -1")
  expect_error(fc_modularity(g, refine = NA), "'refine' must be TRUE or FALSE, not NA")
  expect_error(fc_modularity(g, signed = "newman"), "'arg' should be one of")
  expect_error(fc_modularity(igraph::make_graph(c(1, 2, 2, 3), directed = TRUE)), "directed")
  expect_error(fc_modularity(igraph::make_graph(c(1, 2, 2, 2), directed = FALSE)), "1 self-loop\\(s\\) \\(the first at vertex 2\\)")
  a <- Matrix::sparseMatrix(i = c(1, 2, 3), j = c(2, 1, 1), x = c(1, 1, 0.5), dims = c(3, 3))
  expect_error(fc_modularity(a), "must be symmetric .*: \\[3, 1\\] holds 0.5 but \\[1, 3\\] holds 0")
  b <- Matrix::sparseMatrix(i = c(1, 2, 2), j = c(2, 1, 2), x = c(1, 1, 3), dims = c(3, 3))
  expect_error(fc_modularity(b), "1 nonzero diagonal entry \\(self-loops; the first at \\[2, 2\\]\\)")
  expect_error(fc_modularity(Matrix::rsparsematrix(3, 4, 0.5)), "3 x 4")
  dense <- as.matrix(igraph::as_adjacency_matrix(g))
  dense[1, 2] <- dense[2, 1] <- Inf
  expect_error(fc_modularity(dense), "holds the weight Inf at \\[2, 1\\]")
  expect_error(fc_modularity(list(1, 2)), "not an object of class \"list\"")
  expect_error(fc_modularity_score(g, 1:3), "'membership' must be a vector of 34 community numbers .*, not 3 of them")
  expect_error(fc_modularity_score(g, c(-1, rep(1, 33))), "element 1 is -1")
  expect_error(fc_modularity_score(g, c(rep(1, 33), 1.5)), "element 34 is 1.5")
  expect_error(fc_modularity_score(g, rep("a", 34)), "not an object of class \"character\"")
  expect_error(fc_modularity_score(g, rep(1, 34), resolution = -1), "not -1")
  # Any non-negative labels, 0 included; factors by their codes.
  expect_equal(fc_modularity_score(g, rep(0, 34)), 0, tolerance = 1e-12)
  truth <- c(1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 1, 1, 1, 1, 2, 2, 1, 1, 2, 1, 2, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2)
  expect_q_equal(fc_modularity_score(g, factor(c("a", "b")[truth])), igraph::modularity(g, truth))
})
