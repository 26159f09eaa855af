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
 *   ... = fastconn_mex(..., opts)       opts: struct with optional fields
 *         backend   'auto' (default) | 'cpu' | 'cuda'
 *         precision 'fp32' (default, alias 'single') | 'fp64' (alias 'double') | 'tf32'
 *         threads   CPU threads, 0 (default) = all cores
 *         weights   'graph' only: 'r' (default) | 'abs' (|r|) | 'binary' (every edge 1)
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
 * Precision: with 'fp64', 'cor' and 'triu' of double input are accurate to about 1e-12. 'cross'
 * has only a float output in the C API (fc_pcc_cross), so its values carry float rounding
 * (about 6e-8) whatever the precision; so do the edge weights of 'graph' (float in fc_graph).
 *
 * Build: MATLAB  mex -I<prefix>/include -L<prefix>/lib -lfastconn fastconn_mex.c
 *        Octave  mkoctfile --mex -I<prefix>/include -L<prefix>/lib -lfastconn fastconn_mex.c
 * Only the public header <fastconn/fastconn.h> and MEX calls common to MATLAB and Octave are used.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "mex.h"

#include <fastconn/fastconn.h>

/* The context outlives one call: creating a CUDA context (cuBLAS handle, device memory) costs
 * far more than a small correlation, and MATLAB scripts call in loops. It is re-created only when
 * another backend is asked for, and destroyed when the MEX file is cleared or MATLAB exits. */
static fc_context* g_context = NULL;
static fc_backend g_context_backend = FC_BACKEND_AUTO;

static void release_context(void) {
  fc_context_destroy(g_context);
  g_context = NULL;
}

typedef struct options {
  fc_backend backend;
  fc_precision precision;
  int threads;
  int weights_given;
  fc_graph_weights weights;
} options;

/* Handles and scratch buffers of one call, released before any error is raised: mexErrMsg*
 * does not return, and MATLAB frees only memory it allocated itself. */
typedef struct call_state {
  fc_series* x;
  fc_series* y;
  fc_graph* graph;
  void* scratch;
} call_state;

static void release_call(call_state* call) {
  fc_series_destroy(call->x);
  fc_series_destroy(call->y);
  fc_graph_destroy(call->graph);
  mxFree(call->scratch);
  memset(call, 0, sizeof(*call));
}

static void usage_error(call_state* call, const char* format, ...) {
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
static void check(fc_status status, call_state* call, const char* what) {
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

static void lowercase_copy(char* out, size_t size, const mxArray* text) {
  size_t i;
  if (!mxIsChar(text) || mxGetString(text, out, (mwSize)size) != 0) {
    out[0] = '\0';
    return;
  }
  for (i = 0; out[i]; ++i)
    if (out[i] >= 'A' && out[i] <= 'Z') out[i] = (char)(out[i] - 'A' + 'a');
}

static options parse_options(const mxArray* s, call_state* call) {
  options opt;
  int f;
  char value[32];
  opt.backend = FC_BACKEND_AUTO;
  opt.precision = FC_PRECISION_FP32;
  opt.threads = 0;
  opt.weights_given = 0;
  opt.weights = FC_GRAPH_WEIGHTED;
  if (s == NULL) return opt;
  if (!mxIsStruct(s) || mxGetNumberOfElements(s) != 1)
    usage_error(call, "options must be a scalar struct with fields backend, precision, threads, weights");
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
    } else if (strcmp(field, "weights") == 0) {
      lowercase_copy(value, sizeof(value), v);
      if (strcmp(value, "r") == 0) opt.weights = FC_GRAPH_WEIGHTED;
      else if (strcmp(value, "abs") == 0) opt.weights = FC_GRAPH_WEIGHTED_ABS;
      else if (strcmp(value, "binary") == 0) opt.weights = FC_GRAPH_BINARY;
      else usage_error(call, "options.weights must be 'r', 'abs' or 'binary'");
      opt.weights_given = 1;
    } else {
      usage_error(call, "unknown option '%s' (known: backend, precision, threads, weights)", field);
    }
  }
  return opt;
}

/* The cached context, configured for this call. */
static fc_context* context_for(const options* opt, call_state* call) {
  if (g_context != NULL && g_context_backend != opt->backend) release_context();
  if (g_context == NULL) {
    fc_context* ctx = NULL;
    check(fc_context_create(opt->backend, -1, &ctx), call, "creating the context");
    g_context = ctx;
    g_context_backend = opt->backend;
  }
  /* Settings persist in the cached context, so every call sets all of them. */
  check(fc_context_set_precision(g_context, opt->precision), call, "setting the precision");
  check(fc_context_set_threads(g_context, opt->threads), call, "setting the threads");
  return g_context;
}

static void require_matrix(const mxArray* a, const char* name, call_state* call) {
  if (!(mxIsDouble(a) || mxIsSingle(a)) || mxIsComplex(a) || mxIsSparse(a) || mxGetNumberOfDimensions(a) != 2)
    usage_error(call, "%s must be a real, full, 2-D double or single matrix (T x N: rows are time points, columns are series)",
                name);
}

/* A T x N column-major matrix is N series of T contiguous samples: series_stride = T, time_stride = 1. */
static fc_series* upload(fc_context* ctx, const mxArray* a, const char* name, call_state* call) {
  fc_series* s = NULL;
  const int64_t t = (int64_t)mxGetM(a), n = (int64_t)mxGetN(a);
  char what[64];
  snprintf(what, sizeof(what), "in %s", name);
  if (mxIsSingle(a))
    check(fc_series_create_f32(ctx, (const float*)mxGetData(a), n, t, t, 1, &s), call, what);
  else
    check(fc_series_create_f64(ctx, (const double*)mxGetData(a), n, t, t, 1, &s), call, what);
  return s;
}

/* R = corr(X). Single output: fc_pcc_dense writes straight into the result (its row-major
 * matrix is symmetric, so MATLAB's column-major reading sees the same matrix). Double output:
 * the float64 triangle (fc_pcc_triu_f64, full FP64 accuracy when asked) mirrored into R. */
static mxArray* correlation_matrix(fc_context* ctx, call_state* call, int single_output) {
  int64_t n = 0, i, j, k;
  mxArray* r;
  check(fc_series_info(call->x, &n, NULL, NULL), call, "reading the series shape");
  if (single_output) {
    r = mxCreateNumericMatrix((mwSize)n, (mwSize)n, mxSINGLE_CLASS, mxREAL);
    check(fc_pcc_dense(ctx, call->x, (float*)mxGetData(r), n), call, "computing the correlations");
    return r;
  }
  r = mxCreateDoubleMatrix((mwSize)n, (mwSize)n, mxREAL);
  {
    double* out = mxGetPr(r);
    const int64_t pairs = fc_triu_size(n);
    const double* tri;
    if (pairs > 0) {
      call->scratch = mxMalloc((size_t)pairs * sizeof(double));
      /* Column order lists pair (i, j), i < j, grouped by j: column j of R's upper half is
       * contiguous in both the triangle and R. */
      check(fc_pcc_triu_f64(ctx, call->x, FC_TRIU_COL, (double*)call->scratch, pairs), call,
            "computing the correlations");
    }
    tri = (const double*)call->scratch;
    for (j = 0, k = 0; j < n; ++j) {
      int constant = 0;
      for (i = 0; i < j; ++i, ++k) {
        out[i + j * n] = tri[k];
        out[j + i * n] = tri[k];
      }
      check(fc_series_is_constant(call->x, j, &constant), call, "reading constant series");
      /* The diagonal follows fc_pcc_dense: 1, or NaN for a constant series (its r(j, j) is 0/0). */
      out[j + j * n] = constant ? mxGetNaN() : 1.0;
    }
  }
  return r;
}

/* v = R(tril(true(N), -1)): the row-ordered triangle, straight into the result. */
static mxArray* correlation_triangle(fc_context* ctx, call_state* call, int single_output) {
  int64_t n = 0, pairs;
  mxArray* v;
  check(fc_series_info(call->x, &n, NULL, NULL), call, "reading the series shape");
  pairs = fc_triu_size(n);
  v = mxCreateNumericMatrix((mwSize)pairs, 1, single_output ? mxSINGLE_CLASS : mxDOUBLE_CLASS, mxREAL);
  if (pairs == 0) return v; /* one series has no pairs */
  if (single_output)
    check(fc_pcc_triu(ctx, call->x, FC_TRIU_ROW, (float*)mxGetData(v), pairs), call, "computing the correlations");
  else
    check(fc_pcc_triu_f64(ctx, call->x, FC_TRIU_ROW, mxGetPr(v), pairs), call, "computing the correlations");
  return v;
}

/* C = corr(X, Y), Nx x Ny column-major. fc_pcc_cross(a, b) is row-major n_a x n_b, so asking
 * for r(Y, X) with ld = Nx lays out column j of C (series j of Y) contiguously: no transpose. */
static mxArray* cross_correlation(fc_context* ctx, call_state* call, int single_output) {
  int64_t nx = 0, ny = 0, i;
  mxArray* c;
  float* values;
  check(fc_series_info(call->x, &nx, NULL, NULL), call, "reading the shape of X");
  check(fc_series_info(call->y, &ny, NULL, NULL), call, "reading the shape of Y");
  c = mxCreateNumericMatrix((mwSize)nx, (mwSize)ny, single_output ? mxSINGLE_CLASS : mxDOUBLE_CLASS, mxREAL);
  if (single_output) {
    values = (float*)mxGetData(c);
  } else {
    call->scratch = mxMalloc((size_t)(nx * ny) * sizeof(float));
    values = (float*)call->scratch;
  }
  check(fc_pcc_cross(ctx, call->y, call->x, values, nx), call, "computing the cross correlations");
  if (!single_output) {
    double* out = mxGetPr(c);
    for (i = 0; i < nx * ny; ++i) out[i] = values[i];
  }
  return c;
}

/* The edge rule and its parameter: prhs rule (text) and param (a real scalar; the library
 * checks its range and names it). */
static fc_edge_rule parse_rule(const mxArray* rule, const mxArray* param, double* value, call_state* call) {
  char name[32];
  lowercase_copy(name, sizeof(name), rule);
  if (!mxIsNumeric(param) || mxIsComplex(param) || mxGetNumberOfElements(param) != 1)
    usage_error(call, "the rule's parameter must be a real number (a threshold, a density or k)");
  *value = mxGetScalar(param);
  if (strcmp(name, "abs") == 0) return FC_EDGE_ABS_THRESHOLD;
  if (strcmp(name, "signed") == 0) return FC_EDGE_THRESHOLD;
  if (strcmp(name, "density") == 0) return FC_EDGE_DENSITY;
  if (strcmp(name, "topk") == 0) return FC_EDGE_TOP_K;
  usage_error(call, "the rule must be 'abs', 'signed', 'density' or 'topk'");
  return FC_EDGE_ABS_THRESHOLD; /* not reached */
}

/* G = the network as a sparse matrix. fc_graph's CSR is symmetric, so its rows are G's columns:
 * jc = row offsets, ir = columns (sorted, as MATLAB requires), pr = weights. */
static mxArray* network(fc_context* ctx, call_state* call, fc_edge_rule rule, double param, fc_graph_weights weights) {
  int64_t n = 0, edges = 0, nnz, i;
  int64_t* offsets;
  int64_t* columns;
  float* values;
  mxArray* g;
  mwIndex *jc, *ir;
  double* pr;
  check(fc_pcc_graph(ctx, call->x, rule, param, weights, &call->graph), call, "building the network");
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
  return g;
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

void mexFunction(int nlhs, mxArray* plhs[], int nrhs, const mxArray* prhs[]) {
  call_state call = {NULL, NULL, NULL, NULL};
  char command[32];
  int n_data = 0, n_args = 0, n_out = 1, single_output;
  options opt;
  fc_context* ctx;
  mxArray* result = NULL;

  mexAtExit(release_context);
  if (nrhs < 1 || !mxIsChar(prhs[0]))
    usage_error(&call, "usage: R = fastconn_mex('cor', X), v = fastconn_mex('triu', X), C = fastconn_mex('cross', X, Y), "
                       "G = fastconn_mex('graph', X, rule, p), [k, s] = fastconn_mex('degree', X, rule, p), "
                       "with an optional options struct last");
  lowercase_copy(command, sizeof(command), prhs[0]);
  /* n_args: the positional arguments after the command; n_data of them are data matrices. */
  if (strcmp(command, "cor") == 0 || strcmp(command, "triu") == 0) n_data = n_args = 1;
  else if (strcmp(command, "cross") == 0) n_data = n_args = 2;
  else if (strcmp(command, "graph") == 0) n_data = 1, n_args = 3;
  else if (strcmp(command, "degree") == 0) n_data = 1, n_args = 3, n_out = 2;
  else usage_error(&call, "unknown command '%s' (known: 'cor', 'triu', 'cross', 'graph', 'degree')", command);
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

  ctx = context_for(&opt, &call);
  call.x = upload(ctx, prhs[1], "X", &call);
  if (n_data == 2) call.y = upload(ctx, prhs[2], "Y", &call);

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
    result = correlation_triangle(ctx, &call, single_output);
  } else {
    result = cross_correlation(ctx, &call, single_output);
  }

  release_call(&call);
  plhs[0] = result;
}
