# Multilayer modularity (Mucha et al. 2010) of a list of networks on the same nodes, computed by
# the C library (fc_multilayer_modularity_v2): labels per node and layer, Q, flexibility and module
# allegiance. The algorithm's codes are fc_leiden.R's leiden_algorithm_codes (fc_leiden_algorithm).

# The C enum values (fastconn.h, fc_multilayer_coupling; explicit, only ever appended).
coupling_codes <- c(ordinal = 0L, categorical = 1L)

fc_multilayer <- function(layers, resolution = 1, omega = 1, coupling = c("ordinal", "categorical"), seed = 1,
                          max_iterations = 0, allegiance = TRUE, backend = c("auto", "cpu", "cuda"),
                          algorithm = c("queue", "synchronous")) {
  call <- sys.call()
  coupling <- match.arg(coupling)
  # match.arg's own message does not show the value given; this one does.
  algorithm <- tryCatch(match.arg(algorithm), error = function(e) {
    stop(simpleError(sprintf("'algorithm' must be \"queue\" or \"synchronous\", not %s", shown_value(algorithm)), call))
  })
  backend <- match.arg(backend)
  if (!is.list(layers) || inherits(layers, "igraph") || length(layers) < 1L)
    stop(simpleError(sprintf("'layers' must be a non-empty list of networks (e.g. fc_dfc_graphs()'s), not %s",
                             if (is.list(layers) && !inherits(layers, "igraph")) "an empty list"
                             else paste("an object of class", shQuote(class(layers)[1L], "cmd"))), call))
  n_layers <- length(layers)
  if (!is.numeric(resolution) || !(length(resolution) %in% c(1L, n_layers)) || anyNA(resolution) ||
      any(!is.finite(resolution)) || any(resolution < 0))
    stop(simpleError(sprintf("'resolution' must be one number >= 0 or %d of them (one per layer), not %s",
                             n_layers, shown_value(resolution)), call))
  if (!is_one_number(omega) || !is.finite(omega) || omega < 0)
    stop(simpleError(sprintf("'omega' must be one number >= 0, not %s", shown_value(omega)), call))
  as_pairs <- is.numeric(allegiance)
  if (!((is.logical(allegiance) && length(allegiance) == 1L && !is.na(allegiance)) ||
        (is_one_number(allegiance) && allegiance > 0 && allegiance <= 1)))
    stop(simpleError(sprintf("'allegiance' must be TRUE, FALSE or a floor in (0, 1], not %s", shown_value(allegiance)), call))
  options <- list(omega = as.double(omega), seed = check_seed(seed, call),
                  max_iterations = check_max_iterations(max_iterations, call), coupling = coupling_codes[[coupling]],
                  algorithm = leiden_algorithm_codes[[algorithm]])
  matrices <- lapply(seq_len(n_layers), function(s) as_network_matrix(layers[[s]], sprintf("layers[[%d]]", s), call))
  n <- ncol(matrices[[1L]])
  for (s in seq_len(n_layers)) {
    a <- matrices[[s]]
    if (ncol(a) != n)
      stop(simpleError(sprintf("every layer must have the same nodes: 'layers[[1]]' has %d, 'layers[[%d]]' has %d",
                               n, s, ncol(a)), call))
    if (any(a@x < 0))
      stop(simpleError(sprintf("'layers[[%d]]' holds the negative weight %s; multilayer modularity takes weights >= 0",
                               s, shown_value(a@x[which(a@x < 0)[1L]])), call))
  }
  slots <- lapply(matrices, function(a) list(p = a@p, i = a@i, x = a@x))

  context <- new_context(backend, "fp32", "na", call)
  on.exit(release(context))
  result <- glue_call(call, C_fcr_multilayer, context, slots, rep_len(as.double(resolution), n_layers), options,
                      if (as_pairs) as.double(allegiance) else allegiance)
  names <- colnames(matrices[[1L]])
  labels <- result$labels + 1L
  if (!is.null(names) || !is.null(names(layers))) dimnames(labels) <- list(names, names(layers))
  out <- list(labels = labels, q = result$q, n_communities = as.integer(result$n_communities),
              flexibility = stats::setNames(result$flexibility, names))
  if (as_pairs) {
    # The pairs at or above the floor, mirrored, and the diagonal (1): a symmetric sparse matrix.
    p <- result$allegiance
    out$allegiance <- Matrix::sparseMatrix(i = c(p$i + 1L, seq_len(n)), j = c(p$j + 1L, seq_len(n)),
                                           x = c(p$x, rep(1, n)), dims = c(n, n), symmetric = TRUE,
                                           dimnames = if (is.null(names)) NULL else list(names, names))
  } else if (allegiance) {
    out$allegiance <- result$allegiance
    if (!is.null(names)) dimnames(out$allegiance) <- list(names, names)
  }
  out
}
