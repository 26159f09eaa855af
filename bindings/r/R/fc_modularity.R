# Modules of a network: Newman's leading-eigenvector modularity computed by the C library
# (fc_modularity), on a graph given as a symmetric sparse matrix (fc_graph()'s result, any
# Matrix or base matrix) or an igraph graph. The result is an igraph "communities" object when
# igraph is installed, so membership(), modularity(), sizes() and compare() work on it.

# The C enum values (fastconn.h, fc_signed_modularity; values are explicit and only ever appended).
signed_modularity_codes <- c(gomez = 0L, rubinov = 1L)

# The largest finite float: weights travel to the library in single precision.
float_max <- 3.4028234663852886e38

# g as a symmetric dgCMatrix without diagonal entries or stored zeros, checked so that the C
# library's own checks (fc_graph_create_csr) never have to speak in 0-based terms.
as_network_matrix <- function(g, arg, call) {
  if (inherits(g, "igraph")) {
    if (igraph::is_directed(g))
      stop(simpleError(sprintf("'%s' must be an undirected graph; this igraph graph is directed (igraph::as.undirected() makes it undirected)", arg), call))
    n <- igraph::vcount(g)
    ends <- igraph::as_edgelist(g, names = FALSE)
    weight <- igraph::edge_attr(g, "weight")
    if (is.null(weight)) weight <- rep(1, nrow(ends))
    loops <- which(ends[, 1L] == ends[, 2L])
    if (length(loops))
      stop(simpleError(sprintf("'%s' has %d self-loop(s) (the first at vertex %d); modularity here takes graphs without them (igraph::simplify(g, remove.multiple = FALSE))",
                               arg, length(loops), ends[loops[1L], 1L]), call))
    # Parallel edges add up, as in igraph::modularity().
    a <- Matrix::sparseMatrix(i = c(ends[, 1L], ends[, 2L]), j = c(ends[, 2L], ends[, 1L]),
                              x = as.double(c(weight, weight)), dims = c(n, n))
    names <- igraph::vertex_attr(g, "name")
    if (!is.null(names)) dimnames(a) <- list(names, names)
  } else if (is(g, "Matrix") || (is.matrix(g) && (is.numeric(g) || is.logical(g)))) {
    a <- methods::as(methods::as(methods::as(g, "CsparseMatrix"), "generalMatrix"), "dMatrix")
  } else {
    stop(simpleError(sprintf("'%s' must be a network: a symmetric sparse matrix as fc_graph() returns, another symmetric matrix, or an igraph graph; not an object of class \"%s\"",
                             arg, class(g)[1L]), call))
  }
  if (nrow(a) != ncol(a))
    stop(simpleError(sprintf("'%s' must be a square matrix (an adjacency matrix); this one is %d x %d", arg, nrow(a), ncol(a)), call))
  bad <- which(!is.finite(a@x) | abs(a@x) > float_max)
  if (length(bad)) {
    k <- bad[1L]
    stop(simpleError(sprintf("'%s' holds the weight %s at [%d, %d]; weights must be finite (and within single precision)",
                             arg, format(a@x[k]), a@i[k] + 1L, findInterval(k - 1L, a@p)), call))
  }
  a <- Matrix::drop0(a)
  if (!isSymmetric(a, tol = 0)) {
    d <- Matrix::drop0(a - Matrix::t(a))
    j <- which(diff(d@p) > 0L)[1L]
    i <- d@i[d@p[j] + 1L] + 1L
    stop(simpleError(sprintf("'%s' must be symmetric (an undirected network): [%d, %d] holds %s but [%d, %d] holds %s",
                             arg, i, j, format(a[i, j]), j, i, format(a[j, i])), call))
  }
  loops <- which(Matrix::diag(a) != 0)
  if (length(loops))
    stop(simpleError(sprintf("'%s' has %d nonzero diagonal entr%s (self-loops; the first at [%d, %d]); modularity here takes graphs without them: set diag(%s) <- 0",
                             arg, length(loops), if (length(loops) == 1L) "y" else "ies", loops[1L], loops[1L], arg), call))
  a
}

check_resolution <- function(resolution, call) {
  if (!is_one_number(resolution) || !is.finite(resolution) || resolution <= 0)
    stop(simpleError(sprintf("'resolution' must be one number > 0, not %s", shown_value(resolution)), call))
  as.double(resolution)
}

fc_modularity <- function(g, resolution = 1, eigen_threshold = 1e-8, max_communities = Inf, min_size = 1,
                          seed = 1, signed = c("gomez", "rubinov"), refine = TRUE,
                          backend = c("auto", "cpu", "cuda")) {
  call <- sys.call()
  signed <- match.arg(signed)
  backend <- match.arg(backend)
  resolution <- check_resolution(resolution, call)
  if (!is_one_number(eigen_threshold) || !is.finite(eigen_threshold) || eigen_threshold < 0)
    stop(simpleError(sprintf("'eigen_threshold' must be one number >= 0, not %s", shown_value(eigen_threshold)), call))
  if (!(identical(max_communities, Inf) || (is_whole_number(max_communities) && max_communities >= 1)))
    stop(simpleError(sprintf("'max_communities' must be a whole number >= 1, or Inf for no limit, not %s",
                             shown_value(max_communities)), call))
  if (!is_whole_number(min_size) || min_size < 1)
    stop(simpleError(sprintf("'min_size' must be a whole number >= 1, not %s", shown_value(min_size)), call))
  seed <- check_seed(seed, call)
  if (!is.logical(refine) || length(refine) != 1L || is.na(refine))
    stop(simpleError(sprintf("'refine' must be TRUE or FALSE, not %s", shown_value(refine)), call))
  a <- as_network_matrix(g, "g", call)

  options <- list(eigen_threshold = as.double(eigen_threshold), resolution = resolution,
                  max_communities = if (is.infinite(max_communities)) 0 else as.double(max_communities),
                  min_size = as.double(min_size), seed = seed,
                  signed_mode = signed_modularity_codes[[signed]], refine = refine)
  context <- new_context(backend, "fp32", "na", call)
  on.exit(release(context))
  result <- glue_call(call, C_fcr_modularity, context, a@p, a@i, a@x, options)
  splits <- as.data.frame(result$splits)
  membership <- result$labels + 1L
  if (!requireNamespace("igraph", quietly = TRUE))
    return(list(membership = membership, modularity = result$q, splits = splits))
  structure(list(membership = membership, modularity = result$q, names = colnames(a), vcount = ncol(a),
                 algorithm = "fastconn leading eigenvector", splits = splits),
            class = "communities")
}

fc_modularity_score <- function(g, membership, resolution = 1) {
  call <- sys.call()
  resolution <- check_resolution(resolution, call)
  a <- as_network_matrix(g, "g", call)
  membership <- check_membership(membership, ncol(a), "membership", call)
  glue_call(call, C_fcr_modularity_score, a@p, a@i, a@x, membership, resolution)
}
