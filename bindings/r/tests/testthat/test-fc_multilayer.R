# fc_multilayer(): Q against Mucha et al.'s formula computed here from the returned labels
# (ordinal and categorical coupling, a resolution per layer), flexibility and allegiance against
# a direct computation from the labels, odd sizes, and argument errors.

mucha_q <- function(mats, labels, omega, gamma, categorical = FALSE) {
  n <- nrow(labels)
  layers <- length(mats)
  gamma <- rep_len(gamma, layers)
  total <- 0
  two_mu <- 0
  for (s in seq_len(layers)) {
    a <- as.matrix(mats[[s]])
    k <- rowSums(a)
    two_m <- sum(k)
    two_mu <- two_mu + two_m
    same <- outer(labels[, s], labels[, s], "==")
    null <- if (two_m > 0) gamma[s] * outer(k, k) / two_m else 0
    total <- total + sum((a - null)[same])
  }
  for (s in seq_len(layers)) for (r in seq_len(layers)) {
    if (s != r && (categorical || abs(s - r) == 1)) {
      total <- total + omega * sum(labels[, s] == labels[, r])
      two_mu <- two_mu + omega * n
    }
  }
  if (two_mu > 0) total / two_mu else 0
}

windows <- function() fc_dfc_graphs(fmri_roi(), width = 40, step = 20, threshold = 0.3, signed = TRUE,
                                    progress = FALSE)

test_that("fc_multilayer on the bundled data's windows: Q, flexibility and allegiance from the labels", {
  layers <- windows()
  for (case in list(list(omega = 0.1, coupling = "ordinal"), list(omega = 1, coupling = "ordinal"),
                    list(omega = 0.5, coupling = "categorical"))) {
    ml <- fc_multilayer(layers, omega = case$omega, coupling = case$coupling)
    expect_identical(dim(ml$labels), c(31L, length(layers)))
    expect_identical(ml$labels[1, 1], 1L)
    expect_identical(ml$n_communities, length(unique(as.vector(ml$labels))))
    expect_identical(rownames(ml$labels), colnames(fmri_roi()))
    expect_lte(abs(ml$q - mucha_q(layers, ml$labels, case$omega, 1, case$coupling == "categorical")), 1e-9)
    expect_gt(ml$q, 0)
    changes <- rowMeans(ml$labels[, -1] != ml$labels[, -ncol(ml$labels)])
    expect_equal(unname(ml$flexibility), unname(changes), tolerance = 0)
    shared <- Reduce(`+`, lapply(seq_len(ncol(ml$labels)), function(s) outer(ml$labels[, s], ml$labels[, s], "==")))
    expect_equal(unname(ml$allegiance), unname(shared) / ncol(ml$labels), tolerance = 1e-15)
  }
  gamma <- seq(0.5, 1.5, length.out = length(layers))
  ml <- fc_multilayer(layers, resolution = gamma, omega = 0.3, allegiance = FALSE)
  expect_null(ml$allegiance)
  expect_lte(abs(ml$q - mucha_q(layers, ml$labels, 0.3, gamma)), 1e-9)
  expect_identical(fc_multilayer(layers, seed = 4)$labels, fc_multilayer(layers, seed = 4)$labels)
  # Sparse allegiance: the dense matrix's values at or above the floor, and nothing else.
  dense <- fc_multilayer(layers, omega = 0.5)$allegiance
  for (floor in c(0.2, 0.5, 1)) {
    sparse <- fc_multilayer(layers, omega = 0.5, allegiance = floor)$allegiance
    expect_s4_class(sparse, "sparseMatrix")
    kept <- dense * (dense >= floor)
    expect_identical(unname(as.matrix(sparse)), unname(kept))
    expect_identical(dimnames(sparse), dimnames(dense))
  }
})

test_that("fc_multilayer on odd sizes", {
  one <- fc_multilayer(list(matrix(0, 1, 1), matrix(0, 1, 1)))
  expect_identical(one$labels, matrix(1L, 1, 2))
  expect_identical(one$q, 1)  # only the coupling: Q = 1
  expect_identical(one$allegiance, matrix(1, 1, 1))
  pair <- matrix(c(0, 1, 1, 0), 2)
  two <- fc_multilayer(list(pair, matrix(0, 2, 2)), omega = 0.2)
  expect_lte(abs(two$q - mucha_q(list(pair, matrix(0, 2, 2)), two$labels, 0.2, 1)), 1e-12)
  path <- matrix(c(0, 1, 0, 1, 0, 2, 0, 2, 0), 3)
  single <- fc_multilayer(list(path))
  expect_identical(unname(single$flexibility), c(0, 0, 0))
  expect_lte(abs(single$q - fc_modularity_score(path, single$labels[, 1])), 1e-12)
})

test_that("fc_multilayer refuses bad input, naming the value", {
  ring <- matrix(0, 5, 5)
  ring[cbind(1:5, c(2:5, 1))] <- 1
  ring <- ring + t(ring)
  expect_error(fc_multilayer(list()), "'layers' must be a non-empty list .*, not an empty list")
  expect_error(fc_multilayer(ring), "not an object of class \"matrix\"")
  expect_error(fc_multilayer(list(ring, matrix(0, 4, 4))), "'layers\\[\\[1\\]\\]' has 5, 'layers\\[\\[2\\]\\]' has 4")
  expect_error(fc_multilayer(list(ring, -ring)), "'layers\\[\\[2\\]\\]' holds the negative weight -1")
  expect_error(fc_multilayer(list(ring, ring), omega = -1), "'omega' must be one number >= 0, not -1")
  expect_error(fc_multilayer(list(ring, ring), resolution = c(1, 1, 1)), "one number >= 0 or 2 of them")
  expect_error(fc_multilayer(list(ring, ring), resolution = Inf), "not Inf")
  expect_error(fc_multilayer(list(ring, ring), coupling = "multiplex"), "'arg' should be one of")
  expect_error(fc_multilayer(list(ring, ring), allegiance = NA), "'allegiance' must be TRUE, FALSE or a floor in \\(0, 1\\]")
  expect_error(fc_multilayer(list(ring, ring), allegiance = 0), "not 0")
  expect_error(fc_multilayer(list(ring, list(1))), "'layers\\[\\[2\\]\\]' must be a network")
})

test_that("fc_multilayer(algorithm = \"synchronous\"): Mucha's Q of its labels, deterministic; \"queue\" the default", {
  layers <- windows()
  for (case in list(list(omega = 0.1, coupling = "ordinal"), list(omega = 0.5, coupling = "categorical"))) {
    s <- fc_multilayer(layers, omega = case$omega, coupling = case$coupling, algorithm = "synchronous")
    expect_identical(dim(s$labels), c(31L, length(layers)))
    expect_identical(s$n_communities, length(unique(as.vector(s$labels))))
    expect_lte(abs(s$q - mucha_q(layers, s$labels, case$omega, 1, case$coupling == "categorical")), 1e-9)
    expect_gt(s$q, 0)
  }
  gamma <- seq(0.5, 1.5, length.out = length(layers))
  s <- fc_multilayer(layers, resolution = gamma, omega = 0.3, algorithm = "synchronous", seed = 3)
  expect_lte(abs(s$q - mucha_q(layers, s$labels, 0.3, gamma)), 1e-9)
  again <- fc_multilayer(layers, resolution = gamma, omega = 0.3, algorithm = "syn", seed = 3)  # match.arg's prefixes
  expect_identical(again$labels, s$labels)
  expect_identical(again$q, s$q)
  expect_identical(fc_multilayer(layers, resolution = gamma, omega = 0.3, algorithm = "synchronous", seed = 3,
                                 backend = "cpu")$labels, s$labels)
  # "queue" is the default and the earlier versions' result.
  expect_identical(fc_multilayer(layers, seed = 5, algorithm = "queue"), fc_multilayer(layers, seed = 5))
  expect_error(fc_multilayer(layers, algorithm = "louvain"),
               "'algorithm' must be \"queue\" or \"synchronous\", not \"louvain\"")
  expect_error(fc_multilayer(layers, algorithm = 1), "'algorithm' must be \"queue\" or \"synchronous\", not 1")
})
