# fc_graph(): the correlation network as a sparse symmetric Matrix::dgCMatrix, built by the C
# library tile by tile (the N x N matrix never exists); as_igraph() hands it to igraph.

fc_graph <- function(x, threshold = NULL, density = NULL, topk = NULL, signed = FALSE, weighted = TRUE,
                     backend = c("auto", "cpu", "cuda"), precision = c("fp32", "fp64", "tf32"),
                     method = c("pearson", "spearman")) {
  call <- sys.call()
  method <- check_method(method, call)
  backend <- match.arg(backend)
  precision <- match.arg(precision)
  rule <- edge_rule(threshold, density, topk, signed, call)
  weights <- graph_weights(weighted, call)
  x <- as_series_matrix(x, "x", call)

  context <- new_context(backend, precision, "na", call)
  on.exit(release(context))
  series <- new_series(context, x, "x", call, method)
  on.exit(release(series), add = TRUE)
  glue_call(call, C_fcr_pcc_graph, context, series, rule$code, rule$param, weights,
            list(colnames(x), colnames(x)))
}

# One igraph edge per stored pair of the upper triangle (row <= column, so a diagonal entry of a
# user's matrix becomes a self-loop); the weights go along unless the graph is binary.
as_igraph <- function(g) {
  call <- sys.call()
  if (!requireNamespace("igraph", quietly = TRUE))
    stop(simpleError(paste("as_igraph() needs the 'igraph' package, which is not installed",
                           "(Debian: apt-get install r-cran-igraph; otherwise install.packages(\"igraph\"))"), call))
  if (!is(g, "dgCMatrix"))
    stop(simpleError(sprintf("'g' must be a dgCMatrix as fc_graph() returns, not an object of class \"%s\"",
                             class(g)[1L]), call))
  if (nrow(g) != ncol(g) || !isSymmetric(g))
    stop(simpleError(sprintf("'g' must be a symmetric matrix (an undirected network); this %d x %d matrix is not",
                             nrow(g), ncol(g)), call))
  n <- ncol(g)
  column <- rep.int(seq_len(n), diff(g@p))
  row <- g@i + 1L
  upper <- row <= column
  graph <- igraph::make_graph(as.vector(rbind(row[upper], column[upper])), n = n, directed = FALSE)
  weight <- g@x[upper]
  if (!all(weight == 1)) graph <- igraph::set_edge_attr(graph, "weight", value = weight)
  if (!is.null(colnames(g))) graph <- igraph::set_vertex_attr(graph, "name", value = colnames(g))
  graph
}
