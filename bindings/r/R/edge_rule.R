# The arguments that choose a network's edges (threshold / density / topk, signed, weighted),
# checked in R's terms and turned into the C library's fc_edge_rule and fc_graph_weights codes.

# The C enum values (fastconn.h; values are explicit and only ever appended).
edge_rule_codes <- c(abs_threshold = 0L, threshold = 1L, density = 2L, topk = 3L)
graph_weight_codes <- c(binary = 0L, weighted = 1L, weighted_abs = 2L)

is_one_number <- function(v) is.numeric(v) && length(v) == 1L && !is.na(v)

shown_value <- function(v) {
  if (is.numeric(v) && length(v) == 1L) format(v, digits = 15)
  else paste(deparse(v, width.cutoff = 60L, nlines = 1L), collapse = "")
}

# list(code, param) for fc_pcc_graph / fc_pcc_degree. Exactly one of the three rules is given.
edge_rule <- function(threshold, density, topk, signed, call) {
  given <- c(threshold = !is.null(threshold), density = !is.null(density), topk = !is.null(topk))
  if (sum(given) != 1L) {
    values <- list(threshold = threshold, density = density, topk = topk)[given]
    stop(simpleError(paste0(
      "give exactly one of 'threshold', 'density' or 'topk'",
      if (any(given)) paste0(", not ", paste(sprintf("%s = %s", names(values), vapply(values, shown_value, "")),
                                              collapse = " and "))
      else " (e.g. threshold = 0.5, density = 0.1 or topk = 10)"), call))
  }
  if (!is.logical(signed) || length(signed) != 1L || is.na(signed))
    stop(simpleError(sprintf("'signed' must be TRUE or FALSE, not %s", shown_value(signed)), call))
  if (signed && !given[["threshold"]])
    stop(simpleError(sprintf("signed = TRUE applies to 'threshold' only: '%s' ranks pairs by |r|",
                             names(which(given))), call))

  if (given[["threshold"]]) {
    if (!is_one_number(threshold) || threshold < -1 || threshold > 1)
      stop(simpleError(sprintf("'threshold' must be one number in [-1, 1], not %s", shown_value(threshold)), call))
    if (!signed && threshold < 0)
      stop(simpleError(sprintf(paste("threshold = %s with signed = FALSE keeps every pair (|r| >= %s);",
                                     "use signed = TRUE for the edges with r >= %s"),
                               shown_value(threshold), shown_value(threshold), shown_value(threshold)), call))
    code <- if (signed) "threshold" else "abs_threshold"
    return(list(code = edge_rule_codes[[code]], param = as.double(threshold)))
  }
  if (given[["density"]]) {
    if (!is_one_number(density) || density < 0 || density > 1)
      stop(simpleError(sprintf("'density' must be one number in [0, 1] (the fraction of all pairs kept), not %s",
                               shown_value(density)), call))
    return(list(code = edge_rule_codes[["density"]], param = as.double(density)))
  }
  if (!is_one_number(topk) || !is.finite(topk) || topk < 1 || topk != round(topk))
    stop(simpleError(sprintf("'topk' must be one whole number >= 1 (partners kept per series), not %s",
                             shown_value(topk)), call))
  list(code = edge_rule_codes[["topk"]], param = as.double(topk))
}

# weighted: TRUE (r), "abs" (|r|) or FALSE (1 for every edge).
graph_weights <- function(weighted, call) {
  if (identical(weighted, TRUE)) graph_weight_codes[["weighted"]]
  else if (identical(weighted, FALSE)) graph_weight_codes[["binary"]]
  else if (identical(weighted, "abs")) graph_weight_codes[["weighted_abs"]]
  else stop(simpleError(sprintf("'weighted' must be TRUE (weights r), \"abs\" (weights |r|) or FALSE (binary), not %s",
                                shown_value(weighted)), call))
}
