/* fastconn_mex.c - MEX gateway to fastconn for MATLAB and GNU Octave.
 *
 *   R = fastconn_mex('cor', X)          N x N Pearson correlations of the columns of X (corr(X))
 *   v = fastconn_mex('triu', X)         the strict upper triangle of R as an N(N-1)/2 x 1 vector
 *   C = fastconn_mex('cross', X, Y)     Nx x Ny correlations between columns of X and Y (corr(X, Y))
 *   G = fastconn_mex('graph', X, rule, p)
 *                                       the network of the columns of X as a sparse, symmetric
 *                                       N x N matrix (zero diagonal; graph(G) in MATLAB), built
 *                                       without the N x N correlation matrix. rule:
 *         'abs'      |r| >= p              'signed'  r >= p (p > 0: positive edges only)
 *         'density'  the ceil(p * N(N-1)/2) pairs of largest |r| (0 <= p <= 1)
 *         'topk'     each series' p strongest |r|, the union of both ends' choices
 *   [k, s] = fastconn_mex('degree', X, rule, p)
 *                                       degree k and strength s (N x 1 doubles) of the same
 *                                       network, without building it: s sums r under 'signed',
 *                                       |r| otherwise
 *
 * Dynamic connectivity (fastconn_mex_dfc.c, as the low-rank and module commands): windows of
 * `width` time points every `step` (W = floor((T - width) / step) + 1 windows, the k-th starting
 * at row (k-1)*step + 1), each optionally followed by the taper 'gaussian', sigma (Allen et al.
 * 2014; default rectangular):
 *   R = fastconn_mex('dfc', X, width, step)
 *                                       W x N(N-1)/2: row k is window k's triangle in 'triu' order
 *   [k, s] = fastconn_mex('dfc_degree', X, width, step, rule, p)
 *                                       W x N degree and strength of each window's network
 *   G = fastconn_mex('dfc_graphs', X, width, step, rule, p)
 *                                       W x 1 cell array of sparse N x N networks, as 'graph'
 *   [m, sd] = fastconn_mex('dfc_summary', X, width, step)
 *                                       1 x N(N-1)/2 mean and standard deviation (divisor W - 1)
 *                                       of each pair's r over the windows, in 'triu' order
 *   [V, err] = fastconn_mex('lowrank', X, rank)
 *                                       N x rank V with corr(X) ~= V*V' (best in the Frobenius
 *                                       norm), err = norm(R - V*V', 'fro') / norm(R, 'fro')
 *   [V, err] = fastconn_mex('dfc_lowrank', X, width, step, rank)
 *                                       N x rank x W factors, W x 1 errors, one per window
 * Modules (Newman 2006 leading eigenvector, with vertex-move refinement):
 *   [labels, Q, tree] = fastconn_mex('modularity', G, name, value, ...)
 *                                       G: a symmetric N x N matrix (sparse or full, double or
 *                                       logical; zero diagonal), as the Brain Connectivity
 *                                       Toolbox takes. labels: N x 1, communities numbered 1..K
 *                                       by first appearance. tree: 1 x splits struct array
 *                                       (parent, child_a, child_b: community ids of the division
 *                                       tree, 1 = the whole graph; eigenvalue, gain, iterations,
 *                                       residual). Names: 'resolution' (gamma, 1), 'threshold'
 *                                       (leading eigenvalue needed to split, 1e-8),
 *                                       'maxcommunities' (0 = no limit), 'minsize' (1), 'seed' (1),
 *                                       'signed' ('gomez' | 'rubinov'), 'refine' (true)
 *   Q = fastconn_mex('modularity_score', G, labels [, resolution])
 *                                       Q of any partition (labels: N integers >= 0)
 *
 * Centrality, Fisher z and partial correlation (fastconn_mex_centrality.c): 'ecm', 'ecm_thresholded',
 * 'dfc_ecm', 'eigen_centrality', 'fisher_z', 'partial'.
 * lFCD (fastconn_mex_lfcd.c): 'lfcd'.
 * Leiden and multilayer modularity (fastconn_mex_modules.c): 'leiden', 'multilayer'.
 * The rest of the C API (fastconn_mex_api.c):
 *   R = fastconn_mex('window', X, start, width [, taper])
 *                                       N x N correlations of rows start..start+width-1 (tapered)
 *   id = fastconn_mex('dfc_begin', X, width, step [, taper])   a streamed-window iterator
 *   [r, k] = fastconn_mex('dfc_next', id)  the next window's 1 x N(N-1)/2 triangle and its number
 *                                       (r = [], k = 0 after the last window)
 *   fastconn_mex('dfc_end', id)         frees the iterator (also done by 'clear fastconn_mex')
 *   fastconn_mex('graph_save', G, file) G (as 'modularity' takes it) to a graph file (.fcg)
 *   G = fastconn_mex('graph_load', file) a graph file (fc_graph_save's, or fastconn graph's)
 *   k = fastconn_mex('triu_index', n, i, j [, order])  1-based positions of pairs (i, j)
 *   [i, j] = fastconn_mex('triu_pair', n, k [, order]) the pairs (i < j) at 1-based positions
 *   [major, minor, patch] = fastconn_mex('version'), [built, usable] = fastconn_mex('has_cuda')
 *
 *   ... = fastconn_mex(..., opts)       opts: struct with optional fields
 *         backend   'auto' (default) | 'cpu' | 'cuda'
 *         precision 'fp32' (default, alias 'single') | 'fp64' (alias 'double') | 'tf32'
 *         threads   CPU threads, 0 (default) = all cores
 *         memory_limit  bytes of working memory for one computation, 0 (default) = what is free
 *         devices   backend 'cuda' only: 'all' | CUDA device ids (0 = the first GPU, the first id
 *                   the primary): one context over several GPUs (fc_context_create_cuda_devices;
 *                   triangles, matrices, blocks and windows split, the same values as one GPU)
 *         constant  'nan' (default: a constant series correlates as NaN, with a warning
 *                   fastconn:constant naming its columns, once per call) | 'zero'
 *         order     'triu' only: 'row' (default, squareform) | 'col' (R(triu(true(N), 1)))
 *         values    'triu' only: 'int16' (an int16 column of codes round(r * 32767), ties to
 *                   even, -32768 for NaN: r = double(v) / 32767 within 1.53e-5) | 'half' (r
 *                   rounded to IEEE half precision, returned as single: within 2.44e-4). Both
 *                   through fc_pcc_triu_compact: 2 bytes a pair leave a GPU instead of 4.
 *         weights   'graph', 'dfc_graphs' and 'ecm_thresholded' only: 'r' (default; 'binary' for
 *                   'ecm_thresholded') | 'abs' (|r|) | 'binary' (every edge 1)
 *         method    'pearson' (default) | 'spearman': every command on X (and Y) gives Spearman's rho
 *                   (columns ranked first, ties sharing their average rank); windows of ranks of
 *                   the whole series (fastconn.h: not Spearman's rho of the window's values)
 *         ('modularity_score' takes no opts: it runs on the host without a context.)
 * Rules are checked as the R package checks them: 'abs' 0 <= p <= 1 (a negative p would keep
 * every pair: use 'signed'), 'signed' -1 <= p <= 1, 'density' 0 <= p <= 1, 'topk' whole p >= 1.
 *
 * X (and Y) are T x N real double or single matrices: rows are time points, columns are series,
 * as for MATLAB's corr. They are read in place (series_stride = T, time_stride = 1): no transpose,
 * no copy. The result is single if any input is single, else double. A constant column gives NaN
 * in its row and column (diagonal included), like corr. NaN or Inf in the input is an error that
 * names the series.
 *
 * 'triu' order: pairs (1,2),(1,3),...,(1,N),(2,3),... (FC_TRIU_ROW), which is the order of
 * MATLAB's pdist / squareform vectors: (2,1),(3,1),...,(N,1),(3,2),... of the lower triangle,
 * i.e. R(tril(true(N), -1)). squareform(v') rebuilds R with zeros on the diagonal.
 *
 * 'dfc', 'window' and 'dfc_next' with 'fp64' and double input are float64 throughout (each
 * window through fc_pcc_triu_f64); 'lowrank' and 'dfc_lowrank' come from float outputs of the C
 * API (fc_pcc_lowrank has no double twin): double results carry float rounding (about 6e-8).
 * 'modularity' and 'modularity_score' store G's weights as float (fc_graph).
 *
 * Ctrl-C: the MEX API common to MATLAB and Octave has no way to see an interrupt, so a running
 * call finishes before MATLAB/Octave responds (as for every entry here).
 *
 * Precision: with 'fp64', 'cor', 'cross' and 'triu' of double input are accurate to about 1e-12
 * (fc_pcc_dense_f64, fc_pcc_cross_f64, fc_pcc_triu_f64); the edge weights of 'graph' carry float
 * rounding (about 6e-8) whatever the precision (float in fc_graph).
 *
 * Build (the files fastconn_mex.c fastconn_mex_dfc.c fastconn_mex_api.c fastconn_mex_centrality.c
 *        fastconn_mex_lfcd.c, fastconn_mex_modules.c,
 *        written FILES):
 *   MATLAB  mex -I<prefix>/include -L<prefix>/lib -lfastconn FILES
 *   Octave  mkoctfile --mex -I<prefix>/include -L<prefix>/lib -lfastconn FILES
 * The functions fcCorr, fcGraph, fcDfc, ... in this folder wrap these commands with MATLAB-style
 * names, name/value options and help text (help fastconn lists them).
 * Only the public header <fastconn/fastconn.h> and MEX calls common to MATLAB and Octave are used.
 */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "fastconn_mex.h"

#include <fastconn/fastconn_cuda.h> /* fc_context_create_cuda_devices */

/* The context outlives one call: creating a CUDA context (cuBLAS handle, device memory) costs
 * far more than a small correlation, and MATLAB scripts call in loops. It is re-created only when
 * another backend is asked for, and destroyed when the MEX file is cleared or MATLAB exits. */
static fc_context* g_context = NULL;
static fc_backend g_context_backend = FC_BACKEND_AUTO;
static int g_context_n_devices = -1; /* options.devices of the cached context */
static int g_context_devices[64];
int g_context_generation = 0;

static void release_context(void) {
  release_window_streams(); /* iterators first: they hold on to the context */
  fc_context_destroy(g_context);
  g_context = NULL;
}

void release_call(call_state* call) {
  fc_series_destroy(call->x);
  fc_series_destroy(call->y);
  fc_graph_destroy(call->graph);
  fc_dfc_destroy(call->dfc);
  fc_modules_destroy(call->modules);
  for (int64_t s = 0; call->layers != NULL && s < call->n_layers; ++s) fc_graph_destroy(call->layers[s]);
  mxFree(call->layers);
  fc_multilayer_destroy(call->multilayer);
  mxFree(call->scratch);
  mxFree(call->scratch2);
  memset(call, 0, sizeof(*call));
}

void usage_error(call_state* call, const char* format, ...) {
  char message[512];
  va_list args;
  va_start(args, format);
  vsnprintf(message, sizeof(message), format, args);
  va_end(args);
  release_call(call);
  mexErrMsgIdAndTxt("fastconn:usage", "%s", message);
}

/* Raises a MATLAB error carrying fc_last_error(). The identifier is fastconn:<status name>
 * (e.g. fastconn:FC_ERR_NONFINITE_INPUT) so that callers can catch one kind of failure. */
void check(fc_status status, call_state* call, const char* what) {
  char detail[1024];
  char id[64];
  const char* name;
  if (status < 100) return; /* FC_OK and FC_DONE are not errors */
  /* Copy the message first: it is valid only until the next fastconn call (the destroys below). */
  snprintf(detail, sizeof(detail), "%s", fc_last_error());
  /* "FC_ERR_X: text": the identifier takes the name before ':' (a code added to the library
   * after this file was written has no name here, so it is spelled by number). */
  name = fc_status_string(status);
  if (strncmp(name, "FC_", 3) == 0)
    snprintf(id, sizeof(id), "fastconn:%.*s", (int)strcspn(name, ":"), name);
  else
    snprintf(id, sizeof(id), "fastconn:status%d", (int)status);
  release_call(call);
  mexErrMsgIdAndTxt(id, "%s: %s%s", what, detail,
                    status == FC_ERR_NONFINITE_INPUT
                        ? " [fastconn counts from 0: series s is column s+1, time point k is row k+1]"
                        : "");
}

void lowercase_copy(char* out, size_t size, const mxArray* text) {
  size_t i;
  if (!mxIsChar(text) || mxGetString(text, out, (mwSize)size) != 0) {
    out[0] = '\0';
    return;
  }
  for (i = 0; out[i]; ++i)
    if (out[i] >= 'A' && out[i] <= 'Z') out[i] = (char)(out[i] - 'A' + 'a');
}

options parse_options(const mxArray* s, call_state* call) {
  options opt;
  int f;
  char value[32];
  opt.backend = FC_BACKEND_AUTO;
  opt.precision = FC_PRECISION_FP32;
  opt.threads = 0;
  opt.memory_limit = 0;
  opt.constant = FC_CONSTANT_NAN;
  opt.order = FC_TRIU_ROW;
  opt.order_given = 0;
  opt.weights_given = 0;
  opt.weights = FC_GRAPH_WEIGHTED;
  opt.spearman = 0;
  opt.values = 0;
  opt.n_devices = -1;
  if (s == NULL) return opt;
  if (!mxIsStruct(s) || mxGetNumberOfElements(s) != 1)
    usage_error(call, "options must be a scalar struct with fields backend, precision, threads, memory_limit, "
                      "constant, order, weights");
  for (f = 0; f < mxGetNumberOfFields(s); ++f) {
    const char* field = mxGetFieldNameByNumber(s, f);
    const mxArray* v = mxGetFieldByNumber(s, 0, f);
    if (strcmp(field, "backend") == 0) {
      lowercase_copy(value, sizeof(value), v);
      if (strcmp(value, "auto") == 0) opt.backend = FC_BACKEND_AUTO;
      else if (strcmp(value, "cpu") == 0) opt.backend = FC_BACKEND_CPU;
      else if (strcmp(value, "cuda") == 0) opt.backend = FC_BACKEND_CUDA;
      else usage_error(call, "options.backend must be 'auto', 'cpu' or 'cuda'");
    } else if (strcmp(field, "precision") == 0) {
      lowercase_copy(value, sizeof(value), v);
      if (strcmp(value, "fp32") == 0 || strcmp(value, "single") == 0) opt.precision = FC_PRECISION_FP32;
      else if (strcmp(value, "fp64") == 0 || strcmp(value, "double") == 0) opt.precision = FC_PRECISION_FP64;
      else if (strcmp(value, "tf32") == 0) opt.precision = FC_PRECISION_TF32;
      else usage_error(call, "options.precision must be 'fp32' ('single'), 'fp64' ('double') or 'tf32'");
    } else if (strcmp(field, "threads") == 0) {
      double t;
      if (!mxIsNumeric(v) || mxGetNumberOfElements(v) != 1) usage_error(call, "options.threads must be a number");
      t = mxGetScalar(v);
      if (!(t >= 0 && t <= 4096 && t == (double)(int)t))
        usage_error(call, "options.threads must be an integer >= 0 (0 = all cores), not %g", t);
      opt.threads = (int)t;
    } else if (strcmp(field, "memory_limit") == 0) {
      double b;
      if (!mxIsNumeric(v) || mxGetNumberOfElements(v) != 1) usage_error(call, "options.memory_limit must be a number");
      b = mxGetScalar(v);
      if (!(b >= 0 && b <= 4.6e18 && b == floor(b)))
        usage_error(call, "options.memory_limit must be a whole number of bytes >= 0 (0 = what is free), not %s",
                    number_text(b, value, sizeof(value)));
      opt.memory_limit = (int64_t)b;
    } else if (strcmp(field, "constant") == 0) {
      lowercase_copy(value, sizeof(value), v);
      if (strcmp(value, "nan") == 0) opt.constant = FC_CONSTANT_NAN;
      else if (strcmp(value, "zero") == 0) opt.constant = FC_CONSTANT_ZERO;
      else usage_error(call, "options.constant must be 'nan' (a constant series correlates as NaN, with a warning) or 'zero'");
    } else if (strcmp(field, "order") == 0) {
      lowercase_copy(value, sizeof(value), v);
      if (strcmp(value, "row") == 0) opt.order = FC_TRIU_ROW;
      else if (strcmp(value, "col") == 0) opt.order = FC_TRIU_COL;
      else usage_error(call, "options.order must be 'row' (squareform order) or 'col' (R(triu(true(N), 1)) order)");
      opt.order_given = 1;
    } else if (strcmp(field, "weights") == 0) {
      lowercase_copy(value, sizeof(value), v);
      if (strcmp(value, "r") == 0) opt.weights = FC_GRAPH_WEIGHTED;
      else if (strcmp(value, "abs") == 0) opt.weights = FC_GRAPH_WEIGHTED_ABS;
      else if (strcmp(value, "binary") == 0) opt.weights = FC_GRAPH_BINARY;
      else usage_error(call, "options.weights must be 'r', 'abs' or 'binary'");
      opt.weights_given = 1;
    } else if (strcmp(field, "values") == 0) {
      lowercase_copy(value, sizeof(value), v);
      if (strcmp(value, "int16") == 0) opt.values = FC_VALUES_INT16;
      else if (strcmp(value, "half") == 0) opt.values = FC_VALUES_HALF;
      else usage_error(call, "options.values must be 'int16' (fixed-point codes) or 'half' (half precision, as single)");
    } else if (strcmp(field, "method") == 0) {
      lowercase_copy(value, sizeof(value), v);
      if (strcmp(value, "pearson") != 0 && strcmp(value, "spearman") != 0)
        usage_error(call, "options.method must be 'pearson' or 'spearman', not '%s'", value);
      opt.spearman = strcmp(value, "spearman") == 0;
    } else if (strcmp(field, "devices") == 0) {
      /* 'all', or CUDA device ids (0 = the first GPU): a context over several GPUs */
      size_t k, count = mxGetNumberOfElements(v);
      if (mxIsChar(v)) {
        lowercase_copy(value, sizeof(value), v);
        if (strcmp(value, "all") != 0) usage_error(call, "options.devices must be 'all' or CUDA device ids, not '%s'", value);
        opt.n_devices = 0;
      } else {
        if (!mxIsNumeric(v) || count < 1 || count > 64)
          usage_error(call, "options.devices must be 'all' or 1 to 64 CUDA device ids (0 = the first GPU)");
        for (k = 0; k < count; ++k) {
          const double d = ((const double*)mxGetData(v))[k];
          if (!mxIsDouble(v) || !(d >= -1e6 && d <= 1e6 && d == floor(d)))
            usage_error(call, "options.devices must hold whole numbers (CUDA device ids, 0 = the first GPU)");
          opt.devices[k] = (int)d;
        }
        opt.n_devices = (int)count;
      }
    } else {
      usage_error(call, "unknown option '%s' (known: backend, precision, threads, memory_limit, constant, order, weights, "
                        "method, values, devices)",
                  field);
    }
  }
  return opt;
}

/* The cached context, configured for this call. */
fc_context* context_for(const options* opt, call_state* call) {
  const int same_devices = g_context_n_devices == opt->n_devices &&
                           (opt->n_devices <= 0 ||
                            memcmp(g_context_devices, opt->devices, sizeof(int) * (size_t)opt->n_devices) == 0);
  if (opt->n_devices >= 0 && opt->backend != FC_BACKEND_CUDA)
    usage_error(call, "options.devices needs options.backend 'cuda'");
  if (g_context != NULL && (g_context_backend != opt->backend || !same_devices)) release_context();
  if (g_context == NULL) {
    fc_context* ctx = NULL;
    if (opt->n_devices >= 0)
      check(fc_context_create_cuda_devices(opt->n_devices > 0 ? opt->devices : NULL, opt->n_devices, &ctx), call,
            "creating the context over several GPUs");
    else
      check(fc_context_create(opt->backend, -1, &ctx), call, "creating the context");
    g_context = ctx;
    g_context_backend = opt->backend;
    g_context_n_devices = opt->n_devices;
    if (opt->n_devices > 0) memcpy(g_context_devices, opt->devices, sizeof(int) * (size_t)opt->n_devices);
    ++g_context_generation;
  }
  /* Settings persist in the cached context, so every call sets all of them. */
  check(fc_context_set_precision(g_context, opt->precision), call, "setting the precision");
  check(fc_context_set_threads(g_context, opt->threads), call, "setting the threads");
  check(fc_context_set_memory_limit(g_context, opt->memory_limit), call, "setting the memory limit");
  check(fc_context_set_constant_policy(g_context, opt->constant), call, "setting the constant policy");
  return g_context;
}

void require_matrix(const mxArray* a, const char* name, call_state* call) {
  if (!(mxIsDouble(a) || mxIsSingle(a)) || mxIsComplex(a) || mxIsSparse(a) || mxGetNumberOfDimensions(a) != 2)
    usage_error(call, "%s must be a real, full, 2-D double or single matrix (T x N: rows are time points, columns are series)",
                name);
}

/* A T x N column-major matrix is N series of T contiguous samples: series_stride = T, time_stride = 1. */
fc_series* upload(fc_context* ctx, const mxArray* a, const char* name, const options* opt, call_state* call) {
  fc_series* s = NULL;
  const int64_t t = (int64_t)mxGetM(a), n = (int64_t)mxGetN(a);
  char what[64];
  snprintf(what, sizeof(what), "in %s", name);
  if (opt->spearman && mxIsSingle(a))
    check(fc_series_create_ranked_f32(ctx, (const float*)mxGetData(a), n, t, t, 1, &s), call, what);
  else if (opt->spearman)
    check(fc_series_create_ranked_f64(ctx, (const double*)mxGetData(a), n, t, t, 1, &s), call, what);
  else if (mxIsSingle(a))
    check(fc_series_create_f32(ctx, (const float*)mxGetData(a), n, t, t, 1, &s), call, what);
  else
    check(fc_series_create_f64(ctx, (const double*)mxGetData(a), n, t, t, 1, &s), call, what);
  return s;
}

void warn_constant(const fc_series* series, const char* what, const options* opt, call_state* call) {
  char message[512];
  size_t used;
  int64_t n = 0, n_constant = 0, i, shown = 0;
  if (opt->constant != FC_CONSTANT_NAN) return;
  check(fc_series_info(series, &n, NULL, &n_constant), call, "reading the series shape");
  if (n_constant == 0) return;
  snprintf(message, sizeof(message), "%lld column(s) %s have zero variance, so their correlations are NaN: column",
           (long long)n_constant, what);
  for (i = 0; i < n && shown < 8; ++i) {
    int constant = 0;
    check(fc_series_is_constant(series, i, &constant), call, "reading the constant series");
    if (!constant) continue;
    used = strlen(message);
    snprintf(message + used, sizeof(message) - used, "%s %lld", shown ? "," : (n_constant > 1 ? "s" : ""),
             (long long)(i + 1));
    ++shown;
  }
  if (n_constant > shown) {
    used = strlen(message);
    snprintf(message + used, sizeof(message) - used, ", ...");
  }
  mexWarnMsgIdAndTxt("fastconn:constant", "%s", message);
}

/* R = corr(X): fc_pcc_dense (single) or fc_pcc_dense_f64 (double) writes straight into the
 * result (its row-major matrix is symmetric, so MATLAB's column-major reading sees the same
 * matrix); the diagonal is 1, or NaN for a constant series. */
static mxArray* correlation_matrix(fc_context* ctx, call_state* call, int single_output) {
  int64_t n = 0;
  mxArray* r;
  check(fc_series_info(call->x, &n, NULL, NULL), call, "reading the series shape");
  if (single_output) {
    r = mxCreateNumericMatrix((mwSize)n, (mwSize)n, mxSINGLE_CLASS, mxREAL);
    check(fc_pcc_dense(ctx, call->x, (float*)mxGetData(r), n), call, "computing the correlations");
  } else {
    r = mxCreateDoubleMatrix((mwSize)n, (mwSize)n, mxREAL);
    check(fc_pcc_dense_f64(ctx, call->x, mxGetPr(r), n), call, "computing the correlations");
  }
  return r;
}

/* v = R(tril(true(N), -1)): the row-ordered triangle (or the column-ordered one,
 * R(triu(true(N), 1))), straight into the result. */
static mxArray* correlation_triangle(fc_context* ctx, call_state* call, int single_output, fc_triu_order order,
                                     int values) {
  int64_t n = 0, pairs;
  mxArray* v;
  check(fc_series_info(call->x, &n, NULL, NULL), call, "reading the series shape");
  pairs = fc_triu_size(n);
  if (values == FC_VALUES_INT16) { /* the codes themselves: MATLAB's int16 */
    v = mxCreateNumericMatrix((mwSize)pairs, 1, mxINT16_CLASS, mxREAL);
    if (pairs > 0)
      check(fc_pcc_triu_compact(ctx, call->x, order, FC_VALUES_INT16, mxGetData(v), pairs), call,
            "computing the correlations");
    return v;
  }
  if (values == FC_VALUES_HALF) { /* half values widened to single (Octave has no half class) */
    uint16_t* codes = (uint16_t*)mxMalloc((size_t)(pairs > 0 ? pairs : 1) * sizeof(uint16_t));
    v = mxCreateNumericMatrix((mwSize)pairs, 1, mxSINGLE_CLASS, mxREAL);
    if (pairs > 0) {
      check(fc_pcc_triu_compact(ctx, call->x, order, FC_VALUES_HALF, codes, pairs), call, "computing the correlations");
      check(fc_decode_values(FC_VALUES_HALF, codes, pairs, (float*)mxGetData(v)), call, "decoding the half values");
    }
    mxFree(codes);
    return v;
  }
  v = mxCreateNumericMatrix((mwSize)pairs, 1, single_output ? mxSINGLE_CLASS : mxDOUBLE_CLASS, mxREAL);
  if (pairs == 0) return v; /* one series has no pairs */
  if (single_output)
    check(fc_pcc_triu(ctx, call->x, order, (float*)mxGetData(v), pairs), call, "computing the correlations");
  else
    check(fc_pcc_triu_f64(ctx, call->x, order, mxGetPr(v), pairs), call, "computing the correlations");
  return v;
}

/* C = corr(X, Y), Nx x Ny column-major. fc_pcc_cross(a, b) is row-major n_a x n_b, so asking
 * for r(Y, X) with ld = Nx lays out column j of C (series j of Y) contiguously: no transpose. */
static mxArray* cross_correlation(fc_context* ctx, call_state* call, int single_output) {
  int64_t nx = 0, ny = 0;
  mxArray* c;
  check(fc_series_info(call->x, &nx, NULL, NULL), call, "reading the shape of X");
  check(fc_series_info(call->y, &ny, NULL, NULL), call, "reading the shape of Y");
  c = mxCreateNumericMatrix((mwSize)nx, (mwSize)ny, single_output ? mxSINGLE_CLASS : mxDOUBLE_CLASS, mxREAL);
  if (single_output)
    check(fc_pcc_cross(ctx, call->y, call->x, (float*)mxGetData(c), nx), call, "computing the cross correlations");
  else
    check(fc_pcc_cross_f64(ctx, call->y, call->x, mxGetPr(c), nx), call, "computing the cross correlations");
  return c;
}

/* The edge rule and its parameter: prhs rule (text) and param (a real scalar; the library
 * checks its range and names it). */
/* Checked here as the R package checks them, so that no rule quietly keeps every pair or none:
 * 'abs' 0 <= p <= 1 (a negative p would keep the complete graph), 'signed' -1 <= p <= 1,
 * 'density' 0 <= p <= 1, 'topk' a whole number >= 1. */
fc_edge_rule parse_rule(const mxArray* rule, const mxArray* param, double* value, call_state* call) {
  char name[32], buf[32];
  const char* text;
  double p;
  lowercase_copy(name, sizeof(name), rule);
  if (!mxIsNumeric(param) || mxIsComplex(param) || mxGetNumberOfElements(param) != 1)
    usage_error(call, "the rule's parameter must be a real number (a threshold, a density or k)");
  p = *value = mxGetScalar(param);
  text = number_text(p, buf, sizeof(buf));
  if (strcmp(name, "abs") == 0) {
    if (p < 0 && p >= -1)
      usage_error(call, "threshold %s with rule 'abs' keeps every pair (|r| >= %s); use rule 'signed' for the edges "
                        "with r >= %s", text, text, text);
    if (!(p >= 0 && p <= 1)) usage_error(call, "the threshold of rule 'abs' must be in [0, 1] (|r| >= p), not %s", text);
    return FC_EDGE_ABS_THRESHOLD;
  }
  if (strcmp(name, "signed") == 0) {
    if (!(p >= -1 && p <= 1)) usage_error(call, "the threshold of rule 'signed' must be in [-1, 1] (r >= p), not %s", text);
    return FC_EDGE_THRESHOLD;
  }
  if (strcmp(name, "density") == 0) {
    if (!(p >= 0 && p <= 1))
      usage_error(call, "the density must be in [0, 1] (the fraction of all pairs kept), not %s", text);
    return FC_EDGE_DENSITY;
  }
  if (strcmp(name, "topk") == 0) {
    if (!(p >= 1 && p == floor(p) && p <= 9007199254740992.0))
      usage_error(call, "k of rule 'topk' must be a whole number >= 1 (partners kept per series), not %s", text);
    return FC_EDGE_TOP_K;
  }
  usage_error(call, "the rule must be 'abs', 'signed', 'density' or 'topk'");
  return FC_EDGE_ABS_THRESHOLD; /* not reached */
}

/* G = the network as a sparse matrix. fc_graph's CSR is symmetric, so its rows are G's columns:
 * jc = row offsets, ir = columns (sorted, as MATLAB requires), pr = weights. */
mxArray* sparse_of_graph(call_state* call) {
  int64_t n = 0, edges = 0, nnz, i;
  int64_t* offsets;
  int64_t* columns;
  float* values;
  mxArray* g;
  mwIndex *jc, *ir;
  double* pr;
  check(fc_graph_info(call->graph, &n, &edges), call, "reading the network's size");
  nnz = 2 * edges;
  if ((int64_t)(mwIndex)nnz != nnz || nnz < 0)
    usage_error(call, "the network has %lld edges, more than this MATLAB's sparse indices hold", (long long)edges);
  /* One scratch block: offsets, columns, weights. */
  call->scratch = mxMalloc((size_t)(n + 1 + nnz) * sizeof(int64_t) + (size_t)(nnz > 0 ? nnz : 1) * sizeof(float));
  offsets = (int64_t*)call->scratch;
  columns = offsets + n + 1;
  values = (float*)(columns + nnz);
  check(fc_graph_csr(call->graph, offsets, columns, values, nnz), call, "reading the network");
  g = mxCreateSparse((mwSize)n, (mwSize)n, (mwSize)(nnz > 0 ? nnz : 1), mxREAL);
  jc = mxGetJc(g);
  ir = mxGetIr(g);
  pr = mxGetPr(g);
  for (i = 0; i <= n; ++i) jc[i] = (mwIndex)offsets[i];
  for (i = 0; i < nnz; ++i) {
    ir[i] = (mwIndex)columns[i];
    pr[i] = values[i];
  }
  mxFree(call->scratch);
  call->scratch = NULL;
  return g;
}

static mxArray* network(fc_context* ctx, call_state* call, fc_edge_rule rule, double param, fc_graph_weights weights) {
  check(fc_pcc_graph(ctx, call->x, rule, param, weights, &call->graph), call, "building the network");
  return sparse_of_graph(call);
}

/* [k, s] = degree and strength, N x 1 doubles (degree counts are exact in a double below 2^53). */
static void degree(fc_context* ctx, call_state* call, fc_edge_rule rule, double param, mxArray** k_out,
                   mxArray** s_out) {
  int64_t n = 0, i;
  mxArray *k, *s;
  int64_t* counts;
  check(fc_series_info(call->x, &n, NULL, NULL), call, "reading the series shape");
  call->scratch = mxMalloc((size_t)(n > 0 ? n : 1) * sizeof(int64_t));
  counts = (int64_t*)call->scratch;
  k = mxCreateDoubleMatrix((mwSize)n, 1, mxREAL);
  s = mxCreateDoubleMatrix((mwSize)n, 1, mxREAL);
  check(fc_pcc_degree(ctx, call->x, rule, param, counts, mxGetPr(s)), call, "computing the degrees");
  for (i = 0; i < n; ++i) mxGetPr(k)[i] = (double)counts[i];
  *k_out = k;
  *s_out = s;
}

/* ---------------------------------------------------------------------------------------------
 * Argument readers shared with fastconn_mex_dfc.c and fastconn_mex_api.c.
 * ------------------------------------------------------------------------------------------- */

/* A number as MATLAB prints it in a message: NaN and Inf spelled its way, not the C library's. */
const char* number_text(double v, char* buf, size_t size) {
  if (isnan(v)) return "NaN";
  if (isinf(v)) return v > 0 ? "Inf" : "-Inf";
  snprintf(buf, size, "%g", v);
  return buf;
}

/* A real scalar that must be a whole number (a width, step, rank, count or seed). Its range is
 * the library's to check, so that the message is the library's and names the value. */
int64_t integer_arg(const mxArray* a, const char* name, call_state* call) {
  double v;
  char text[32];
  if (!mxIsNumeric(a) || mxIsComplex(a) || mxGetNumberOfElements(a) != 1)
    usage_error(call, "%s must be a real integer scalar", name);
  v = mxGetScalar(a);
  if (!(v == floor(v) && fabs(v) <= 9007199254740992.0))
    usage_error(call, "%s must be a whole number, not %s", name, number_text(v, text, sizeof(text)));
  return (int64_t)v;
}

double real_arg(const mxArray* a, const char* name, call_state* call) {
  if (!(mxIsNumeric(a) || mxIsLogical(a)) || mxIsComplex(a) || mxGetNumberOfElements(a) != 1)
    usage_error(call, "%s must be a real scalar", name);
  return mxGetScalar(a);
}

/* The optional taper after a dfc command's positional arguments: nothing, 'rectangular', or
 * 'gaussian', sigma. Returns the index of the first argument after it. */
int parse_taper(int nrhs, const mxArray* prhs[], int first, window_spec* w, call_state* call) {
  char name[32];
  w->taper = FC_TAPER_RECTANGULAR;
  w->sigma = 0;
  if (first >= nrhs || !mxIsChar(prhs[first])) return first;
  lowercase_copy(name, sizeof(name), prhs[first]);
  if (strcmp(name, "rectangular") == 0) return first + 1;
  if (strcmp(name, "gaussian") != 0)
    usage_error(call, "the taper must be 'rectangular' or 'gaussian', sigma; not '%s'", name);
  if (first + 1 >= nrhs) usage_error(call, "'gaussian' must be followed by sigma (in samples)");
  w->taper = FC_TAPER_GAUSSIAN;
  w->sigma = real_arg(prhs[first + 1], "sigma", call);
  return first + 2;
}

void mexFunction(int nlhs, mxArray* plhs[], int nrhs, const mxArray* prhs[]) {
  call_state call = {NULL, NULL, NULL, NULL, NULL, NULL, NULL};
  char command[32];
  int n_data = 0, n_args = 0, n_out = 1, single_output;
  options opt;
  fc_context* ctx;
  mxArray* result = NULL;

  mexAtExit(release_context);
  if (nrhs < 1 || !mxIsChar(prhs[0]))
    usage_error(&call, "usage: R = fastconn_mex('cor', X), v = fastconn_mex('triu', X), C = fastconn_mex('cross', X, Y), "
                       "G = fastconn_mex('graph', X, rule, p), [k, s] = fastconn_mex('degree', X, rule, p), "
                       "R = fastconn_mex('dfc', X, width, step), ... (see fastconn_mex.c or README.md for the dfc_*, "
                       "lowrank and modularity commands), with an optional options struct last");
  lowercase_copy(command, sizeof(command), prhs[0]);
  if (dfc_module_command(command, nlhs, plhs, nrhs, prhs)) return;
  if (api_command(command, nlhs, plhs, nrhs, prhs)) return;
  if (centrality_command(command, nlhs, plhs, nrhs, prhs)) return;
  if (lfcd_command(command, nlhs, plhs, nrhs, prhs)) return;
  if (modules_command(command, nlhs, plhs, nrhs, prhs)) return;
  /* n_args: the positional arguments after the command; n_data of them are data matrices. */
  if (strcmp(command, "cor") == 0 || strcmp(command, "triu") == 0) n_data = n_args = 1;
  else if (strcmp(command, "cross") == 0) n_data = n_args = 2;
  else if (strcmp(command, "graph") == 0) n_data = 1, n_args = 3;
  else if (strcmp(command, "degree") == 0) n_data = 1, n_args = 3, n_out = 2;
  else usage_error(&call, "unknown command '%s' (known: 'cor', 'triu', 'cross', 'graph', 'degree', 'dfc', 'dfc_degree', "
                          "'dfc_graphs', 'dfc_summary', 'lowrank', 'dfc_lowrank', 'modularity', 'modularity_score', "
                          "'window', 'dfc_begin', 'dfc_next', 'dfc_end', 'graph_save', 'graph_load', 'triu_index', "
                          "'triu_pair', 'version', 'has_cuda', 'ecm', 'ecm_thresholded', 'dfc_ecm', 'eigen_centrality', 'fisher_z', 'partial', 'lfcd', 'cpu_info', 'leiden', 'multilayer')", command);
  if (nrhs < 1 + n_args || nrhs > 2 + n_args)
    usage_error(&call, "'%s' takes %d argument(s)%s and an optional options struct, not %d arguments", command, n_args,
                n_args > n_data ? " (X, rule, p)" : "", nrhs - 1);
  if (nlhs > n_out) usage_error(&call, "'%s' returns %d output(s)", command, n_out);

  require_matrix(prhs[1], "X", &call);
  single_output = mxIsSingle(prhs[1]);
  if (n_data == 2) {
    require_matrix(prhs[2], "Y", &call);
    single_output = single_output || mxIsSingle(prhs[2]); /* as in MATLAB, single wins */
    if (mxGetM(prhs[1]) != mxGetM(prhs[2]))
      usage_error(&call, "X has %lld rows (time points) but Y has %lld; corr(X, Y) needs equal lengths",
                  (long long)mxGetM(prhs[1]), (long long)mxGetM(prhs[2]));
  }
  opt = parse_options(nrhs > 1 + n_args ? prhs[1 + n_args] : NULL, &call);
  if (opt.weights_given && strcmp(command, "graph") != 0)
    usage_error(&call, "options.weights applies to 'graph' only, not to '%s'", command);
  if (opt.order_given && strcmp(command, "triu") != 0)
    usage_error(&call, "options.order applies to 'triu' only, not to '%s'", command);
  if (opt.values != 0 && strcmp(command, "triu") != 0)
    usage_error(&call, "options.values applies to 'triu' only, not to '%s'", command);

  ctx = context_for(&opt, &call);
  call.x = upload(ctx, prhs[1], "X", &opt, &call);
  if (n_data == 2) call.y = upload(ctx, prhs[2], "Y", &opt, &call);

  if (n_args > n_data) {
    double param = 0;
    const fc_edge_rule rule = parse_rule(prhs[2], prhs[3], &param, &call);
    if (strcmp(command, "graph") == 0) {
      result = network(ctx, &call, rule, param, opt.weights);
    } else {
      mxArray *k = NULL, *s = NULL;
      degree(ctx, &call, rule, param, &k, &s);
      release_call(&call);
      plhs[0] = k;
      if (nlhs > 1) plhs[1] = s;
      else mxDestroyArray(s);
      return;
    }
  } else if (strcmp(command, "cor") == 0) {
    result = correlation_matrix(ctx, &call, single_output);
  } else if (strcmp(command, "triu") == 0) {
    result = correlation_triangle(ctx, &call, single_output, opt.order, opt.values);
  } else {
    result = cross_correlation(ctx, &call, single_output);
  }
  /* Like corr's NaN, said once per call (not for networks: a constant series has no edges). */
  if (n_args == n_data) {
    warn_constant(call.x, "of X", &opt, &call);
    if (n_data == 2) warn_constant(call.y, "of Y", &opt, &call);
  }

  release_call(&call);
  plhs[0] = result;
}
