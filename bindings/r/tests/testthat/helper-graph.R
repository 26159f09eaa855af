# References for the network tests, from cor(). The library decides edges on float r: in FP64
# mode that is r64 rounded to float (off by < 1e-7), in FP32 mode off by up to tol_fp32. Pairs
# whose |r| (or r) lies within such a margin of the cut may legitimately go either way, so the
# comparisons leave exactly those pairs out, and only those.
margin_fp64 <- 1e-6

# The off-diagonal pairs a threshold rule keeps, and those too close to the cut to judge.
threshold_reference <- function(r, threshold, signed) {
  value <- if (signed) r else abs(r)
  off <- row(r) != col(r)
  list(keep = value >= threshold & off,
       unsure = function(margin) abs(value - threshold) < margin & off)
}

# The graph's stored pattern as a logical matrix (an explicit stored zero, r == 0, still counts).
edge_pattern <- function(g) {
  pattern <- matrix(FALSE, nrow(g), ncol(g))
  pattern[cbind(g@i + 1L, rep.int(seq_len(ncol(g)), diff(g@p)))] <- TRUE
  pattern
}

expect_same_edges <- function(g, keep, unsure) {
  pattern <- edge_pattern(g)
  expect_identical(pattern[!unsure], keep[!unsure])
  # The test means something only if the rule keeps some pairs and drops others.
  expect_gt(sum(keep & !unsure), 10)
  expect_gt(sum(!keep & !unsure), 10)
}
