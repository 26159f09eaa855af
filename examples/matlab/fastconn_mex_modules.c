/* fastconn_mex_modules.c - the Leiden and multilayer-modularity commands of fastconn_mex:
 *   [labels, Q] = fastconn_mex('leiden', G, name, value, ... [, opts])
 *                 Leiden modules (Traag et al. 2019; fc_leiden_v2) of G (as 'modularity' takes it):
 *                 labels N x 1, numbered 1..K by first appearance, every module connected; Q the
 *                 modularity (at 'resolution' for quality 'modularity', at 1 for 'cpm'). Names:
 *                 'resolution' (gamma > 0, 1), 'quality' ('modularity' | 'cpm'), 'initial' (N
 *                 labels >= 0 to start from, e.g. 'modularity''s), 'seed' (1), 'maxiterations'
 *                 (passes, 0 = until nothing moves), 'randomness' (1e-4), 'signed' ('gomez' |
 *                 'rubinov'), 'algorithm' ('queue': fc_leiden's result | 'synchronous': rounds of
 *                 simultaneous moves, on the GPU of a CUDA context).
 *   [S, Q, flexibility, allegiance] = fastconn_mex('multilayer', layers, name, value, ... [, opts])
 *                 multilayer modularity (Mucha et al. 2010; fc_multilayer_modularity_v2) of a cell
 *                 array of L networks on the same N nodes (each as 'modularity' takes it, weights
 *                 >= 0; e.g. 'dfc_graphs''s): S is N x L (GenLouvain's layout), module ids 1..K
 *                 shared across layers; Q the multilayer modularity; flexibility N x 1 (the
 *                 fraction of consecutive layer pairs in which a node changes module); allegiance
 *                 N x N (the fraction of layers in which two nodes share a module; computed only
 *                 when asked for). Names: 'resolution' (gamma >= 0, one value or L values, 1),
 *                 'omega' (coupling >= 0, 1), 'coupling' ('ordinal' | 'categorical'), 'seed' (1),
 *                 'maxiterations' (passes, 0 = until nothing moves), 'allegiancefloor' (f in
 *                 (0, 1]: allegiance is then a sparse symmetric matrix of the pairs at or above f
 *                 and the diagonal, computed without the dense one: fc_multilayer_allegiance_pairs),
 *                 'algorithm' ('queue': fc_multilayer_modularity's result | 'synchronous': rounds
 *                 of simultaneous moves, the same labels on every backend and thread count).
 * Both run on the host whatever the backend (except the 'synchronous' algorithm on a CUDA
 * context); opts gives the threads. */
#include <string.h>

#include "fastconn_mex.h"

/* 'seed' and 'maxiterations', shared by both commands. Returns 1 when `name` was one of them. */
static int common_option(const char* name, const mxArray* value, uint64_t* seed, int64_t* max_iterations,
                         call_state* call) {
  if (strcmp(name, "seed") == 0) {
    const int64_t s = integer_arg(value, "seed", call);
    if (s < 0) usage_error(call, "seed must be a whole number >= 0, not %lld", (long long)s);
    *seed = (uint64_t)s;
    return 1;
  }
  if (strcmp(name, "maxiterations") == 0) {
    *max_iterations = integer_arg(value, "maxiterations", call);
    return 1;
  }
  return 0;
}

/* 'algorithm', shared by both commands: FC_LEIDEN_QUEUE or FC_LEIDEN_SYNCHRONOUS. */
static int32_t algorithm_arg(const mxArray* value_array, call_state* call) {
  char value[32];
  lowercase_copy(value, sizeof(value), value_array);
  if (strcmp(value, "queue") == 0) return FC_LEIDEN_QUEUE;
  if (strcmp(value, "synchronous") == 0) return FC_LEIDEN_SYNCHRONOUS;
  if (value[0]) usage_error(call, "'algorithm' must be 'queue' or 'synchronous', not '%s'", value);
  usage_error(call, "'algorithm' must be 'queue' or 'synchronous' (a char array of at most 31 characters)");
  return FC_LEIDEN_QUEUE; /* not reached: usage_error does not return */
}

/* After the name/value pairs from prhs[a]: only an options struct. */
static fc_context* context_after(const char* command, int nrhs, const mxArray* prhs[], int a, call_state* call) {
  options opt;
  if (a < nrhs - 1 || (a == nrhs - 1 && !mxIsStruct(prhs[a])))
    usage_error(call, "'%s': argument %d is not understood (after the name/value options comes only an options struct)",
                command, a);
  opt = parse_options(a == nrhs - 1 ? prhs[a] : NULL, call);
  if (opt.order_given || opt.weights_given)
    usage_error(call, "options.order and options.weights do not apply to '%s'", command);
  return context_for(&opt, call);
}

static void leiden(int nlhs, mxArray* plhs[], int nrhs, const mxArray* prhs[], call_state* call) {
  char name[32], value[32];
  fc_leiden_options_v2 v2; /* FC_LEIDEN_QUEUE, the default, is fc_leiden bit for bit */
  fc_leiden_options* lo = &v2.base;
  const mxArray* initial = NULL;
  int64_t* start = NULL;
  fc_context* ctx;
  mxArray* out[3] = {NULL, NULL, NULL};
  int a = 2;
  if (nrhs < 2) usage_error(call, "usage: [labels, Q] = fastconn_mex('leiden', G, name, value, ...)");
  if (nlhs > 2) usage_error(call, "'leiden' returns 2 outputs, not %d", nlhs);
  check(fc_leiden_options_v2_default(&v2), call, "reading the default options");
  for (; a < nrhs && mxIsChar(prhs[a]); a += 2) {
    lowercase_copy(name, sizeof(name), prhs[a]);
    if (a + 1 >= nrhs) usage_error(call, "option '%s' has no value", name);
    if (common_option(name, prhs[a + 1], &lo->seed, &lo->max_iterations, call)) continue;
    if (strcmp(name, "resolution") == 0) lo->resolution = real_arg(prhs[a + 1], "resolution", call);
    else if (strcmp(name, "randomness") == 0) lo->randomness = real_arg(prhs[a + 1], "randomness", call);
    else if (strcmp(name, "initial") == 0) initial = prhs[a + 1];
    else if (strcmp(name, "quality") == 0) {
      lowercase_copy(value, sizeof(value), prhs[a + 1]);
      if (strcmp(value, "modularity") == 0) lo->quality = FC_LEIDEN_MODULARITY;
      else if (strcmp(value, "cpm") == 0) lo->quality = FC_LEIDEN_CPM;
      else usage_error(call, "'quality' must be 'modularity' or 'cpm'");
    } else if (strcmp(name, "signed") == 0) {
      lowercase_copy(value, sizeof(value), prhs[a + 1]);
      if (strcmp(value, "gomez") == 0) lo->signed_mode = FC_SIGNED_GOMEZ;
      else if (strcmp(value, "rubinov") == 0) lo->signed_mode = FC_SIGNED_RUBINOV;
      else usage_error(call, "'signed' must be 'gomez' or 'rubinov'");
    } else if (strcmp(name, "algorithm") == 0) {
      v2.algorithm = algorithm_arg(prhs[a + 1], call);
    } else {
      usage_error(call, "unknown leiden option '%s' (known: resolution, quality, initial, seed, maxiterations, "
                        "randomness, signed, algorithm)", name);
    }
  }
  ctx = context_after("leiden", nrhs, prhs, a, call);
  graph_of_matrix(prhs[1], call);
  if (initial != NULL) {
    int64_t n = 0;
    check(fc_graph_info(call->graph, &n, NULL), call, "reading G");
    call->scratch2 = mxMalloc((size_t)(n > 0 ? n : 1) * sizeof(int64_t));
    start = (int64_t*)call->scratch2;
    read_labels(initial, n, "initial", start, call);
  }
  check(fc_leiden_v2(ctx, call->graph, &v2, start, &call->modules), call, "finding the modules");
  modules_outputs(call, nlhs, &out[0], &out[1], &out[2]);
  release_call(call);
  plhs[0] = out[0];
  if (nlhs > 1) plhs[1] = out[1];
  else mxDestroyArray(out[1]);
}

/* The sparse symmetric N x N allegiance of the pairs >= floor (and the diagonal), column by column
 * in ascending rows: (i, j < i) pairs, the diagonal, then (i, j > i) pairs. */
static mxArray* allegiance_sparse(int64_t n, double floor, call_state* call) {
  int64_t count = 0, x, c;
  int64_t *rows, *cols, *next;
  double* values;
  mxArray* out;
  mwIndex *jc, *ir;
  double* pr;
  check(fc_multilayer_allegiance_pairs(call->multilayer, floor, NULL, NULL, NULL, 0, &count), call, "counting the pairs");
  mxFree(call->scratch);
  call->scratch = mxMalloc((size_t)(2 * count + n + 1) * sizeof(int64_t) + (size_t)(count > 0 ? count : 1) * sizeof(double));
  rows = (int64_t*)call->scratch;
  cols = rows + count;
  next = cols + count;
  values = (double*)(next + n + 1);
  if (count > 0)
    check(fc_multilayer_allegiance_pairs(call->multilayer, floor, rows, cols, values, count, &count), call,
          "reading the pairs");
  out = mxCreateSparse((mwSize)n, (mwSize)n, (mwSize)(2 * count + n > 0 ? 2 * count + n : 1), mxREAL);
  jc = mxGetJc(out);
  ir = mxGetIr(out);
  pr = mxGetPr(out);
  for (c = 0; c <= n; ++c) next[c] = 0;
  for (x = 0; x < count; ++x) ++next[rows[x] + 1], ++next[cols[x] + 1];
  for (c = 0; c < n; ++c) next[c + 1] += next[c] + 1; /* + 1: the diagonal */
  for (c = 0; c <= n; ++c) jc[c] = (mwIndex)next[c];
  for (x = 0; x < count; ++x) { /* above the diagonal: row i of column j, i ascending */
    ir[next[cols[x]]] = (mwIndex)rows[x];
    pr[next[cols[x]]++] = values[x];
  }
  for (c = 0; c < n; ++c) {
    ir[next[c]] = (mwIndex)c;
    pr[next[c]++] = 1.0;
  }
  for (x = 0; x < count; ++x) { /* below: row j of column i, j ascending */
    ir[next[rows[x]]] = (mwIndex)cols[x];
    pr[next[rows[x]]++] = values[x];
  }
  return out;
}

/* The layers of a cell array, each built by graph_of_matrix and kept in call->layers. */
static void layers_of_cell(const mxArray* cell, call_state* call) {
  int64_t s;
  if (!mxIsCell(cell) || mxGetNumberOfElements(cell) == 0)
    usage_error(call, "layers must be a non-empty cell array of networks (e.g. fcDfcGraphs' result)");
  call->n_layers = (int64_t)mxGetNumberOfElements(cell);
  call->layers = (fc_graph**)mxCalloc((size_t)call->n_layers, sizeof(fc_graph*));
  for (s = 0; s < call->n_layers; ++s) {
    const mxArray* g = mxGetCell(cell, (mwIndex)s);
    if (g == NULL) usage_error(call, "layers{%lld} is empty; every layer must be a network", (long long)(s + 1));
    graph_of_matrix(g, call);
    call->layers[s] = call->graph;
    call->graph = NULL;
  }
}

static void multilayer(int nlhs, mxArray* plhs[], int nrhs, const mxArray* prhs[], call_state* call) {
  char name[32], value[32];
  fc_multilayer_options_v2 v2; /* FC_LEIDEN_QUEUE, the default, is fc_multilayer_modularity bit for bit */
  fc_multilayer_options* mo = &v2.base;
  const mxArray* gammas = NULL;
  double floor = 0; /* 0: the dense allegiance */
  fc_context* ctx;
  int64_t n = 0, layers = 0, i;
  double q = 0;
  int64_t* labels;
  mxArray *s_out, *flex_out, *allegiance_out = NULL;
  int a = 2;
  if (nrhs < 2)
    usage_error(call, "usage: [S, Q, flexibility, allegiance] = fastconn_mex('multilayer', layers, name, value, ...)");
  if (nlhs > 4) usage_error(call, "'multilayer' returns 4 outputs, not %d", nlhs);
  check(fc_multilayer_options_v2_default(&v2), call, "reading the default options");
  for (; a < nrhs && mxIsChar(prhs[a]); a += 2) {
    lowercase_copy(name, sizeof(name), prhs[a]);
    if (a + 1 >= nrhs) usage_error(call, "option '%s' has no value", name);
    if (common_option(name, prhs[a + 1], &mo->seed, &mo->max_iterations, call)) continue;
    if (strcmp(name, "omega") == 0) mo->omega = real_arg(prhs[a + 1], "omega", call);
    else if (strcmp(name, "resolution") == 0) gammas = prhs[a + 1];
    else if (strcmp(name, "allegiancefloor") == 0) {
      floor = real_arg(prhs[a + 1], "allegiancefloor", call);
      if (!(floor > 0 && floor <= 1)) usage_error(call, "allegiancefloor must be in (0, 1], not %g", floor);
    } else if (strcmp(name, "coupling") == 0) {
      lowercase_copy(value, sizeof(value), prhs[a + 1]);
      if (strcmp(value, "ordinal") == 0) mo->coupling = FC_COUPLING_ORDINAL;
      else if (strcmp(value, "categorical") == 0) mo->coupling = FC_COUPLING_CATEGORICAL;
      else usage_error(call, "'coupling' must be 'ordinal' or 'categorical'");
    } else if (strcmp(name, "algorithm") == 0) {
      v2.algorithm = algorithm_arg(prhs[a + 1], call);
    } else {
      usage_error(call, "unknown multilayer option '%s' (known: resolution, omega, coupling, seed, maxiterations, "
                        "allegiancefloor, algorithm)", name);
    }
  }
  ctx = context_after("multilayer", nrhs, prhs, a, call);
  layers_of_cell(prhs[1], call);
  if (gammas != NULL) {
    const int64_t count = (int64_t)mxGetNumberOfElements(gammas);
    if (!mxIsDouble(gammas) || mxIsComplex(gammas) || mxIsSparse(gammas) || (count != 1 && count != call->n_layers))
      usage_error(call, "resolution must be one real double or %lld of them (one per layer), not %lld",
                  (long long)call->n_layers, (long long)count);
    call->scratch2 = mxMalloc((size_t)call->n_layers * sizeof(double));
    for (i = 0; i < call->n_layers; ++i) ((double*)call->scratch2)[i] = mxGetPr(gammas)[count == 1 ? 0 : i];
  }
  check(fc_multilayer_modularity_v2(ctx, (const fc_graph* const*)call->layers, call->n_layers,
                                    (const double*)call->scratch2, &v2, &call->multilayer),
        call, "finding the multilayer modules");
  check(fc_multilayer_info(call->multilayer, &n, &layers, NULL, &q), call, "reading the modules");
  call->scratch = mxMalloc((size_t)(n * layers > 0 ? n * layers : 1) * sizeof(int64_t));
  labels = (int64_t*)call->scratch;
  check(fc_multilayer_labels(call->multilayer, labels, n * layers), call, "reading the labels");
  /* fastconn's layer-major labels are the N x L column-major S as they stand. */
  s_out = mxCreateDoubleMatrix((mwSize)n, (mwSize)layers, mxREAL);
  for (i = 0; i < n * layers; ++i) mxGetPr(s_out)[i] = (double)labels[i] + 1;
  flex_out = mxCreateDoubleMatrix((mwSize)n, 1, mxREAL);
  check(fc_multilayer_flexibility(call->multilayer, mxGetPr(flex_out), n), call, "reading the flexibility");
  if (nlhs > 3 && floor > 0) {
    allegiance_out = allegiance_sparse(n, floor, call);
  } else if (nlhs > 3) {
    /* Symmetric: the row-major matrix reads the same column-major. */
    allegiance_out = mxCreateDoubleMatrix((mwSize)n, (mwSize)n, mxREAL);
    check(fc_multilayer_allegiance(call->multilayer, mxGetPr(allegiance_out), n, n * n), call, "reading the allegiance");
  }
  release_call(call);
  plhs[0] = s_out;
  if (nlhs > 1) plhs[1] = mxCreateDoubleScalar(q);
  if (nlhs > 2) plhs[2] = flex_out;
  else mxDestroyArray(flex_out);
  if (nlhs > 3) plhs[3] = allegiance_out;
}

int modules_command(const char* command, int nlhs, mxArray* plhs[], int nrhs, const mxArray* prhs[]) {
  call_state call;
  memset(&call, 0, sizeof call);
  if (strcmp(command, "leiden") == 0) leiden(nlhs, plhs, nrhs, prhs, &call);
  else if (strcmp(command, "multilayer") == 0) multilayer(nlhs, plhs, nrhs, prhs, &call);
  else return 0;
  return 1;
}
