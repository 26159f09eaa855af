# Leiden modules (Traag, Waltman and van Eck 2019) computed by the C library (fc_leiden_v2), on a
# graph as fc_modularity() takes it; the result is an igraph "communities" object when igraph is
# installed, as fc_modularity()'s.

# The C enum values (fastconn.h, fc_leiden_quality; values are explicit and only ever appended).
leiden_quality_codes <- c(modularity = 0L, cpm = 1L)
# fc_leiden_algorithm: "queue" is fc_leiden's own result (bit for bit), "synchronous" the rounds of
# simultaneous moves that run on the GPU of a CUDA context.
leiden_algorithm_codes <- c(queue = 0L, synchronous = 1L)

# A membership vector (or communities object) of n whole numbers >= 0, as doubles; `arg` names it.
check_membership <- function(membership, n, arg, call) {
  if (inherits(membership, "communities")) membership <- membership$membership
  if (is.factor(membership)) membership <- as.integer(membership)
  if (!is.numeric(membership) || length(membership) != n)
    stop(simpleError(sprintf("'%s' must be a vector of %d community numbers (one per node), not %s", arg, n,
                             if (is.numeric(membership)) sprintf("%d of them", length(membership))
                             else paste("an object of class", shQuote(class(membership)[1L], "cmd"))), call))
  bad <- which(is.na(membership) | membership < 0 | membership != round(membership) | membership > 2^53)
  if (length(bad))
    stop(simpleError(sprintf("'%s' must hold whole numbers >= 0; element %d is %s",
                             arg, bad[1L], shown_value(membership[bad[1L]])), call))
  as.double(membership)
}

check_seed <- function(seed, call) {
  if (!is_whole_number(seed) || seed < 0 || seed > 2^53)
    stop(simpleError(sprintf("'seed' must be a whole number in [0, 2^53], not %s", shown_value(seed)), call))
  as.double(seed)
}

check_max_iterations <- function(max_iterations, call) {
  if (!is_whole_number(max_iterations) || max_iterations < 0 || max_iterations > 1000)
    stop(simpleError(sprintf("'max_iterations' must be a whole number in [0, 1000] (0: until nothing moves), not %s",
                             shown_value(max_iterations)), call))
  as.double(max_iterations)
}

fc_leiden <- function(g, resolution = 1, quality = c("modularity", "cpm"), initial = NULL, seed = 1,
                      max_iterations = 0, randomness = 1e-4, signed = c("gomez", "rubinov"),
                      backend = c("auto", "cpu", "cuda"), algorithm = c("queue", "synchronous")) {
  call <- sys.call()
  quality <- match.arg(quality)
  # match.arg's own message does not show the value given; this one does.
  algorithm <- tryCatch(match.arg(algorithm), error = function(e) {
    stop(simpleError(sprintf("'algorithm' must be \"queue\" or \"synchronous\", not %s", shown_value(algorithm)), call))
  })
  signed <- match.arg(signed)
  backend <- match.arg(backend)
  resolution <- check_resolution(resolution, call)
  if (!is_one_number(randomness) || !is.finite(randomness) || randomness <= 0)
    stop(simpleError(sprintf("'randomness' must be one number > 0, not %s", shown_value(randomness)), call))
  options <- list(resolution = resolution, randomness = as.double(randomness), seed = check_seed(seed, call),
                  max_iterations = check_max_iterations(max_iterations, call),
                  quality = leiden_quality_codes[[quality]], signed_mode = signed_modularity_codes[[signed]],
                  algorithm = leiden_algorithm_codes[[algorithm]])
  a <- as_network_matrix(g, "g", call)
  if (!is.null(initial)) initial <- check_membership(initial, ncol(a), "initial", call)

  context <- new_context(backend, "fp32", "na", call)
  on.exit(release(context))
  result <- glue_call(call, C_fcr_leiden, context, a@p, a@i, a@x, options, initial)
  membership <- result$labels + 1L
  if (!requireNamespace("igraph", quietly = TRUE))
    return(list(membership = membership, modularity = result$q))
  structure(list(membership = membership, modularity = result$q, names = colnames(a), vcount = ncol(a),
                 algorithm = "fastconn Leiden"),
            class = "communities")
}
