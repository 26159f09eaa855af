# Test data: the bundled real resting-state ROI time series (nitime, BSD-3: 250 time points of
# 31 regions), and a larger seeded synthetic set with shared latent signals, so that the
# correlations span weak to strong and results cross the library's tile boundaries.

fmri_roi <- function() {
  path <- system.file("extdata", "fmri_timeseries.csv", package = "fastconn", mustWork = TRUE)
  as.matrix(utils::read.csv(path, check.names = FALSE))
}

structured_series <- function(n_time = 400, n_series = 260, seed = 20240611) {
  set.seed(seed)
  latent <- matrix(stats::rnorm(n_time * 6), n_time, 6)
  loadings <- matrix(stats::rnorm(6 * n_series, sd = 0.8), 6, n_series)
  noise <- matrix(stats::rnorm(n_time * n_series), n_time, n_series)
  x <- latent %*% loadings + noise + rep(stats::runif(n_series, -50, 50), each = n_time)
  colnames(x) <- sprintf("v%03d", seq_len(n_series))
  x
}

# FP32 (float64 normalization, float32 products) against the float64 reference, T <= 2000.
tol_fp32 <- 1e-5
tol_fp64 <- 1e-12
# Two float32 rounding steps at |r| <= 1: the same float result computed through other tiles.
tol_float_rounding <- 2.5e-7

max_abs_diff <- function(a, b) max(abs(unclass(a) - unclass(b)))
