# fc_leiden() against igraph: Q equal to igraph::modularity() of its own labels (to 1e-9), at least
# igraph's Louvain and Leiden (less a small tolerance: every method is a heuristic), connected
# communities, planted partitions recovered, initial labels, determinism and argument errors.

zachary <- function() igraph::make_graph("Zachary")

leiden_q <- function(g, membership, resolution = 1) {
  igraph::modularity(g, membership, weights = igraph::E(g)$weight, resolution = resolution)
}

all_connected <- function(g, membership) {
  all(vapply(unique(membership), function(c) {
    igraph::is_connected(igraph::induced_subgraph(g, which(membership == c)))
  }, NA))
}

test_that("fc_leiden on the karate club: a communities object at igraph's Q or better", {
  skip_if_not_installed("igraph")
  g <- zachary()
  m <- fc_leiden(g)
  expect_s3_class(m, "communities")
  expect_identical(m$algorithm, "fastconn Leiden")
  expect_identical(igraph::membership(m)[[1]], 1L)
  expect_lte(abs(igraph::modularity(m) - leiden_q(g, igraph::membership(m))), 1e-9)
  expect_lte(abs(fc_modularity_score(g, m) - igraph::modularity(m)), 1e-12)
  expect_gte(igraph::modularity(m), 0.41978)  # the optimum, 0.4197896
  set.seed(1)
  expect_gte(igraph::modularity(m), igraph::modularity(igraph::cluster_louvain(g)) - 2e-3)
  expect_true(all_connected(g, m$membership))
  expect_output(print(m), "IGRAPH clustering fastconn Leiden")
  a <- igraph::as_adjacency_matrix(g)
  expect_identical(fc_leiden(a)$membership, m$membership)
  expect_identical(fc_leiden(as.matrix(a), seed = 3)$membership, fc_leiden(g, seed = 3)$membership)
  for (gamma in c(0.5, 2)) {
    mg <- fc_leiden(g, resolution = gamma)
    expect_lte(abs(igraph::modularity(mg) - leiden_q(g, mg$membership, gamma)), 1e-9)
  }
})

test_that("fc_leiden on weighted planted partitions: recovered, connected, Q at least igraph's", {
  skip_if_not_installed("igraph")
  set.seed(4)
  pref <- matrix(0.01, 5, 5)
  diag(pref) <- 0.3
  g <- igraph::sample_sbm(250, pref, rep(50, 5))
  g <- igraph::set_edge_attr(g, "weight", value = sample(1:5, igraph::ecount(g), replace = TRUE) / 4)
  m <- fc_leiden(g)
  truth <- rep(1:5, each = 50)
  expect_equal(igraph::compare(m$membership, truth, method = "nmi"), 1)
  expect_lte(abs(m$modularity - leiden_q(g, m$membership)), 1e-9)
  set.seed(2)
  peer <- igraph::cluster_leiden(g, objective_function = "modularity", n_iterations = -1)
  expect_gte(m$modularity, leiden_q(g, peer$membership) - 2e-3)
  expect_true(all_connected(g, m$membership))
  # From a given partition (the spectral one), Q does not drop.
  spectral <- fc_modularity(g)
  expect_gte(fc_leiden(g, initial = spectral)$modularity, spectral$modularity - 1e-12)
  expect_gte(fc_leiden(g, initial = factor(spectral$membership))$modularity, spectral$modularity - 1e-12)
})

test_that("fc_leiden with the Constant Potts Model, on the bundled data and odd sizes", {
  x <- fmri_roi()
  g <- fc_graph(x, density = 0.2, weighted = "abs")
  m <- fc_leiden(g)
  expect_lte(abs(fc_modularity_score(g, m$membership) - m$modularity), 1e-12)
  # Below every edge's weight density, CPM gives the connected components.
  cpm <- fc_leiden(g, quality = "cpm", resolution = 1e-6)
  ig <- as_igraph(g)
  expect_equal(igraph::compare(cpm$membership, igraph::components(ig)$membership, method = "nmi"), 1)
  expect_identical(fc_leiden(Matrix::Matrix(0, 1, 1, sparse = TRUE))$membership, 1L)
  two <- fc_leiden(matrix(c(0, 1, 1, 0), 2))
  expect_identical(two$membership, c(1L, 1L))
  expect_identical(fc_leiden(matrix(0, 3, 3))$membership, 1:3)
  expect_identical(fc_leiden(g, backend = "cpu")$membership, m$membership)
})

test_that("fc_leiden refuses bad input, naming the value", {
  skip_if_not_installed("igraph")
  g <- zachary()
  expect_error(fc_leiden(g, resolution = 0), "'resolution' must be one number > 0, not 0")
  expect_error(fc_leiden(g, randomness = 0), "'randomness' must be one number > 0, not 0")
  expect_error(fc_leiden(g, max_iterations = -1), "'max_iterations' must be a whole number in \\[0, 1000\\].*not -1")
  expect_error(fc_leiden(g, seed = 1.5), "'seed' must be a whole number in \\[0, 2\\^53\\], not 1.5")
  expect_error(fc_leiden(g, quality = "surprise"), "'arg' should be one of")
  expect_error(fc_leiden(g, initial = 1:3), "'initial' must be a vector of 34 community numbers .*, not 3 of them")
  expect_error(fc_leiden(g, initial = c(-1, rep(1, 33))), "'initial' must hold whole numbers >= 0; element 1 is -1")
  expect_error(fc_leiden(list(1, 2)), "not an object of class \"list\"")
})

test_that("fc_leiden(algorithm = \"synchronous\"): deterministic, its own Q, a planted partition recovered", {
  # A planted partition without igraph: 4 groups of 30 nodes, edges inside with p 0.4, across 0.01.
  set.seed(7)
  truth <- rep(1:4, each = 30)
  p <- ifelse(outer(truth, truth, "=="), 0.4, 0.01)
  upper <- upper.tri(p) & matrix(runif(length(p)), nrow(p)) < p
  a <- (upper | t(upper)) * 1
  s <- fc_leiden(a, algorithm = "synchronous", seed = 3)
  expect_identical(s$membership, fc_leiden(a, algorithm = "synchronous", seed = 3)$membership)
  expect_identical(fc_leiden(a, algorithm = "syn", seed = 3)$membership, s$membership)  # match.arg's prefixes
  expect_lte(abs(fc_modularity_score(a, s$membership) - s$modularity), 1e-12)
  expect_identical(unname(table(s$membership, truth) > 0), diag(4) > 0)  # the groups, one module each
  expect_identical(fc_leiden(a, algorithm = "synchronous", backend = "cpu")$membership, s$membership)
  g <- fc_graph(fmri_roi(), density = 0.2, weighted = "abs")
  for (gamma in c(0.5, 2)) {
    m <- fc_leiden(g, resolution = gamma, algorithm = "synchronous")
    expect_lte(abs(fc_modularity_score(g, m$membership, gamma) - m$modularity), 1e-12)
  }
  # "queue" is the default and fc_leiden's result.
  expect_identical(fc_leiden(g, seed = 5, algorithm = "queue")$membership, fc_leiden(g, seed = 5)$membership)
  expect_error(fc_leiden(g, algorithm = "louvain"), "'algorithm' must be \"queue\" or \"synchronous\", not \"louvain\"")
  expect_error(fc_leiden(g, algorithm = 1), "'algorithm' must be \"queue\" or \"synchronous\", not 1")
})
