# Turning user input into what the C library reads without a copy: a double matrix whose
# columns are the series (R's column-major T x N is series_stride = T, time_stride = 1).

# Data frames go through as.matrix(), vectors become one column (as in cor()), integer and
# logical data are converted to double once; double matrices are passed through untouched.
as_series_matrix <- function(x, arg, call) {
  if (is.data.frame(x)) x <- as.matrix(x)
  if (!(is.numeric(x) || is.logical(x)))
    stop(simpleError(sprintf("'%s' must be numeric (a matrix, data frame or vector), not %s",
                             arg, if (is.null(dim(x))) typeof(x) else paste(typeof(x), "matrix")),
                     call))
  if (is.null(dim(x))) x <- matrix(x, ncol = 1L)
  if (length(dim(x)) != 2L)
    stop(simpleError(sprintf("'%s' must be a matrix (time points in rows, series in columns), not an array with %d dimensions",
                             arg, length(dim(x))), call))
  if (!is.double(x)) storage.mode(x) <- "double"
  x
}

column_label <- function(x, j) {
  name <- colnames(x)[j]
  if (is.null(name) || is.na(name) || name == "") sprintf("column %d", j)
  else sprintf("column %d ('%s')", j, name)
}

# Only called after the library refused the data, to say where the bad value is in R's terms
# (1-based row and column, NA / NaN / Inf as R prints them).
nonfinite_message <- function(x, arg) {
  k <- which(!is.finite(x))[1L] - 1
  i <- k %% nrow(x) + 1
  j <- k %/% nrow(x) + 1
  sprintf("%s of '%s' holds %s at row %d: correlations need finite values; remove or interpolate it first",
          column_label(x, j), arg, format(x[i, j]), i)
}

zero_variance_message <- function(x, arg, which) {
  shown <- vapply(utils::head(which, 5L), function(j) column_label(x, j), "")
  sprintf("%d column(s) of '%s' have zero variance, so their correlations are NA: %s%s",
          length(which), arg, paste(shown, collapse = ", "), if (length(which) > 5L) ", ..." else "")
}
