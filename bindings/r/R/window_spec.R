# The sliding-window arguments (width, step, taper, sigma), checked in R's terms and turned into
# what the C library's all-windows calls take: list(length, step, taper code, sigma).

# The C enum values (fastconn.h, fc_taper; values are explicit and only ever appended).
taper_codes <- c(rectangular = 0L, gaussian = 1L)

is_whole_number <- function(v) is_one_number(v) && is.finite(v) && v == round(v)

window_spec <- function(width, step, taper, sigma, n_time, call) {
  if (n_time < 2)
    stop(simpleError(sprintf("'x' has %d time point(s) (rows); a window needs at least 2", n_time), call))
  if (!is_whole_number(width) || width < 2 || width > n_time)
    stop(simpleError(sprintf("'width' must be a whole number of time points in [2, %d] (the rows of 'x'), not %s",
                             n_time, shown_value(width)), call))
  if (!is_whole_number(step) || step < 1)
    stop(simpleError(sprintf("'step' must be a whole number >= 1 (time points between window starts), not %s",
                             shown_value(step)), call))
  if (taper == "gaussian" && (!is_one_number(sigma) || !is.finite(sigma) || sigma <= 0))
    stop(simpleError(sprintf("'sigma' must be one number > 0 (the Gaussian taper's standard deviation, in time points), not %s",
                             shown_value(sigma)), call))
  list(length = as.double(width), step = as.double(step), taper = taper_codes[[taper]],
       sigma = if (taper == "gaussian") as.double(sigma) else 0)
}

# Window k (1-based) covers rows starts[k] .. starts[k] + width - 1 of x.
window_starts <- function(n_time, width, step) seq.int(1, n_time - width + 1, by = step)

# Like cor(), say when series constant within some windows made NA there; names the first such
# window and its constant columns (equal values throughout the window, the library's definition).
warn_constant_windows <- function(n_constant, x, width, starts, arg, call) {
  hit <- which(n_constant > 0)
  if (!length(hit)) return(invisible())
  first <- starts[hit[1L]]
  rows <- first:(first + width - 1L)
  which <- which(apply(x[rows, , drop = FALSE], 2L, function(v) all(v == v[1L])))
  shown <- vapply(utils::head(which, 5L), function(j) column_label(x, j), "")
  warning(simpleWarning(sprintf(
    "%d window(s) hold series of '%s' with zero variance, so their correlations there are NA; the first starts at time point %d: %s%s",
    length(hit), arg, first, paste(shown, collapse = ", "), if (length(which) > 5L) ", ..." else ""), call))
}
