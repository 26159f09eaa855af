# fc_degree(): degree and strength of every series without building the network.

fc_degree <- function(x, threshold = NULL, density = NULL, topk = NULL, signed = FALSE,
                      backend = c("auto", "cpu", "cuda"), precision = c("fp32", "fp64", "tf32"),
                     method = c("pearson", "spearman")) {
  call <- sys.call()
  method <- check_method(method, call)
  backend <- match.arg(backend)
  precision <- match.arg(precision)
  rule <- edge_rule(threshold, density, topk, signed, call)
  x <- as_series_matrix(x, "x", call)

  context <- new_context(backend, precision, "na", call)
  on.exit(release(context))
  series <- new_series(context, x, "x", call, method)
  on.exit(release(series), add = TRUE)
  result <- glue_call(call, C_fcr_pcc_degree, context, series, rule$code, rule$param)
  data.frame(degree = result$degree, strength = result$strength,
             row.names = if (is.null(colnames(x))) NULL else make.unique(colnames(x)))
}
