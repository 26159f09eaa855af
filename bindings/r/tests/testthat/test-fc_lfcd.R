# fc_lfcd() against a plain region growing in R (a queue per seed over the mask's voxels, cor()
# for r), on masks with holes and several components, the three neighbourhoods, both rules and
# constant columns; voxels touching only along an edge or at a corner; the argument errors.

grow_reference <- function(x, coords, neighbourhood, threshold, signed) {
  r <- suppressWarnings(cor(x))
  constant <- apply(x, 2, function(v) all(v == v[1]))
  key <- apply(coords, 1, paste, collapse = ",")
  steps <- as.matrix(expand.grid(-1:1, -1:1, -1:1))
  reach <- c(`6` = 1, `18` = 2, `26` = 3)[[as.character(neighbourhood)]]
  steps <- steps[rowSums(abs(steps)) >= 1 & rowSums(abs(steps)) <= reach, , drop = FALSE]
  vapply(seq_len(ncol(x)), function(seed) {
    if (constant[seed]) return(0L)
    cluster <- seed
    queue <- seed
    while (length(queue)) {
      v <- queue[1]
      queue <- queue[-1]
      for (s in seq_len(nrow(steps))) {
        u <- match(paste(coords[v, ] + steps[s, ], collapse = ","), key)
        if (is.na(u) || u %in% cluster || constant[u]) next
        value <- if (signed) r[seed, u] else abs(r[seed, u])
        if (value >= threshold) {
          cluster <- c(cluster, u)
          queue <- c(queue, u)
        }
      }
    }
    length(cluster)
  }, 0L)
}

test_that("fc_lfcd matches a plain region growing (holes, components, 6 / 18 / 26, both rules)", {
  set.seed(3)
  for (n in c(1, 3, 37, 97)) {
    mask <- array(FALSE, c(6, 5, 4))
    mask[sample(length(mask), n)] <- TRUE
    coords <- which(mask, arr.ind = TRUE)
    x <- structured_series(n_time = 30, n_series = n)
    if (n > 10) x[, 7] <- 5  # a constant column
    r <- suppressWarnings(cor(x))
    for (signed in c(TRUE, FALSE)) {
      # a threshold well clear of every r, so that no decision hangs on rounding
      threshold <- 0.3
      while (any(abs(c(r, abs(r)) - threshold) < 1e-4, na.rm = TRUE)) threshold <- threshold + 2e-4
      for (h in c(6L, 18L, 26L)) {
        got <- fc_lfcd(x, coords, dim(mask), threshold, signed = signed, neighbourhood = h, backend = "cpu")
        expect_identical(unname(got), grow_reference(x, coords, h, threshold, signed))
      }
    }
  }
})

test_that("6, 18 and 26 neighbours differ on voxels touching along an edge or at a corner", {
  coords <- rbind(c(1, 1, 1), c(2, 1, 1), c(3, 2, 1), c(4, 3, 2))  # face, edge, corner
  x <- matrix(rep(c(0, 1, 4, 9), 4), ncol = 4)
  expect_identical(fc_lfcd(x, coords, c(4, 3, 2), 0.9, neighbourhood = 6L), c(2L, 2L, 1L, 1L))
  expect_identical(fc_lfcd(x, coords, c(4, 3, 2), 0.9, neighbourhood = 18L), c(3L, 3L, 3L, 1L))
  expect_identical(fc_lfcd(x, coords, c(4, 3, 2), 0.9, neighbourhood = 26L), c(4L, 4L, 4L, 4L))
})

test_that("fc_lfcd refuses bad coordinates, dims and neighbourhoods, naming them", {
  coords <- rbind(c(1, 1, 1), c(2, 1, 1), c(3, 1, 1))
  x <- structured_series(n_time = 20, n_series = 3)
  expect_error(fc_lfcd(x, coords, c(2, 1, 1), 0.5), "column 3 of 'x' sits at voxel \\(3, 1, 1\\), off the grid")
  expect_error(fc_lfcd(x, coords - 1, c(3, 1, 1), 0.5), "column 1 of 'x' sits at voxel \\(0, 0, 0\\)")
  expect_error(fc_lfcd(x, rbind(coords[1:2, ], coords[2, ]), c(3, 1, 1), 0.5),
               "columns 2 and 3 of 'x' sit on the same voxel \\(2, 1, 1\\)")
  expect_error(fc_lfcd(x, coords, c(3, 1, 1), 0.5, neighbourhood = 7), "'neighbourhood' must be 6, 18 or 26")
  expect_error(fc_lfcd(x, coords[1:2, ], c(3, 1, 1), 0.5), "'coords' must be a matrix of 3 rows")
  expect_error(fc_lfcd(x, coords, c(3, 1), 0.5), "'dims' must be three whole numbers")
  expect_error(fc_lfcd(x, coords + 0.5, c(3, 1, 1), 0.5), "whole numbers")
  expect_error(fc_lfcd(x, coords, c(3, 1, 1), NA), "'threshold'")
})
