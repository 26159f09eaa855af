/* fastconn_mex_centrality.c - the centrality and Fisher z commands of fastconn_mex:
 *   [c, lambda] = fastconn_mex('ecm', X [, tolerance] [, opts])
 *                 fast eigenvector centrality (Wink et al. 2012; AFNI's 3dECM -fecm) of the
 *                 columns of X: the N x 1 leading eigenvector of (R + 1) / 2, R = corr(X), unit
 *                 norm, entries >= 0, and its eigenvalue, without forming R (fc_pcc_ecm).
 *                 tolerance: the residual test, [] or 0 for 1e-10, else in [1e-13, 0.1]. A
 *                 constant column gets NaN (with the fastconn:constant warning) and is left out,
 *                 or, with opts.constant 'zero', stays in with r = 0. opts.method 'spearman':
 *                 of Spearman's rho.
 *   [c, lambda] = fastconn_mex('ecm_thresholded', X, rule, p [, tolerance] [, opts])
 *                 thresholded ECM (Lohmann et al. 2010): the leading eigenvector of the network
 *                 'graph' builds under (rule, p) ('abs', 'signed', 'density', 'topk'), with
 *                 opts.weights 'binary' (the default here), 'abs' or 'r'; unit norm, entries >= 0;
 *                 series without edges (constant ones among them) get 0 (fc_pcc_ecm_thresholded).
 *   [C, lambda] = fastconn_mex('dfc_ecm', X, width, step [, 'gaussian', sigma] [, tolerance] [, opts])
 *                 the fast ECM of every sliding window (fc_dfc_ecm): C is W x N, row k the 'ecm'
 *                 of window k; lambda the W x 1 eigenvalues.
 *   [c, lambda] = fastconn_mex('eigen_centrality', G [, weighted [, tolerance]] [, opts])
 *                 eigenvector centrality of the network G (as 'modularity' takes it; weights
 *                 >= 0 when weighted, true by default; else every edge counts 1), scaled to a
 *                 largest entry of 1 (igraph's eigen_centrality); on the host whatever the
 *                 backend (fc_graph_eigenvector_centrality).
 *   Z = fastconn_mex('fisher_z', R)
 *                 atanh(R) of a real double or single array (its class and shape kept): r = +-1
 *                 gives +-Inf, NaN stays NaN; a value outside [-1, 1] is an error naming it
 *                 (fc_fisher_z_f64 / _f32, on a copy).
 *   [P, a] = fastconn_mex('partial', X [, shrinkage [, output]] [, opts])
 *                 the N x N partial correlation (output 'partial', the default) or precision
 *                 ('precision') of the columns of X, with Ledoit-Wolf shrinkage (shrinkage [] or
 *                 'ledoit-wolf', the default) or a given intensity in [0, 1]; a: the intensity
 *                 applied (fc_partial_correlation). A constant column is an error naming it.
 * c, lambda, P and a are double (the library computes them in float64). */
#include <string.h>

#include "fastconn_mex.h"

/* [] or a scalar: the tolerance (0 = the library's default). */
static double tolerance_arg(const mxArray* a, call_state* call) {
  if (mxIsEmpty(a)) return 0;
  return real_arg(a, "tolerance", call);
}

static void ecm(int nlhs, mxArray* plhs[], int nrhs, const mxArray* prhs[], call_state* call) {
  double tolerance = 0, lambda = 0;
  int64_t n;
  options opt;
  fc_context* ctx;
  mxArray* c;
  int a = 2;
  if (nrhs < 2) usage_error(call, "usage: [c, lambda] = fastconn_mex('ecm', X [, tolerance] [, opts])");
  require_matrix(prhs[1], "X", call);
  if (a < nrhs && !mxIsStruct(prhs[a])) tolerance = tolerance_arg(prhs[a++], call);
  if (a < nrhs - 1 || (a == nrhs - 1 && !mxIsStruct(prhs[a])))
    usage_error(call, "'ecm': argument %d is not understood (after X and the tolerance comes only an options struct)", a);
  opt = parse_options(a == nrhs - 1 ? prhs[a] : NULL, call);
  if (opt.weights_given || opt.order_given) usage_error(call, "options.weights and options.order do not apply to 'ecm'");
  ctx = context_for(&opt, call);
  call->x = upload(ctx, prhs[1], "X", &opt, call);
  n = (int64_t)mxGetN(prhs[1]);
  c = mxCreateDoubleMatrix((mwSize)n, 1, mxREAL);
  {
    const fc_status status = fc_pcc_ecm(ctx, call->x, tolerance, mxGetPr(c), n, &lambda);
    if (status >= 100) mxDestroyArray(c);
    check(status, call, "computing the ECM");
  }
  warn_constant(call->x, "of X", &opt, call);
  release_call(call);
  plhs[0] = c;
  if (nlhs > 1) plhs[1] = mxCreateDoubleScalar(lambda);
}

static void ecm_thresholded(int nlhs, mxArray* plhs[], int nrhs, const mxArray* prhs[], call_state* call) {
  double tolerance = 0, lambda = 0, param = 0;
  int64_t n;
  options opt;
  fc_context* ctx;
  fc_edge_rule rule;
  mxArray* c;
  int a = 4;
  if (nrhs < 4) usage_error(call, "usage: [c, lambda] = fastconn_mex('ecm_thresholded', X, rule, p [, tolerance] [, opts])");
  require_matrix(prhs[1], "X", call);
  rule = parse_rule(prhs[2], prhs[3], &param, call);
  if (a < nrhs && !mxIsStruct(prhs[a])) tolerance = tolerance_arg(prhs[a++], call);
  if (a < nrhs - 1 || (a == nrhs - 1 && !mxIsStruct(prhs[a])))
    usage_error(call, "'ecm_thresholded': argument %d is not understood (after X, rule, p and the tolerance comes only "
                      "an options struct)", a);
  opt = parse_options(a == nrhs - 1 ? prhs[a] : NULL, call);
  if (opt.order_given) usage_error(call, "options.order does not apply to 'ecm_thresholded'");
  if (!opt.weights_given) opt.weights = FC_GRAPH_BINARY;
  ctx = context_for(&opt, call);
  call->x = upload(ctx, prhs[1], "X", &opt, call);
  n = (int64_t)mxGetN(prhs[1]);
  c = mxCreateDoubleMatrix((mwSize)n, 1, mxREAL);
  {
    const fc_status status = fc_pcc_ecm_thresholded(ctx, call->x, rule, param, opt.weights, tolerance, mxGetPr(c), n,
                                                    &lambda);
    if (status >= 100) mxDestroyArray(c);
    check(status, call, "computing the thresholded ECM");
  }
  release_call(call);
  plhs[0] = c;
  if (nlhs > 1) plhs[1] = mxCreateDoubleScalar(lambda);
}

static void dfc_ecm(int nlhs, mxArray* plhs[], int nrhs, const mxArray* prhs[], call_state* call) {
  window_spec w;
  double tolerance = 0;
  int64_t n, t, n_windows, k, v;
  options opt;
  fc_context* ctx;
  mxArray *c, *lambda;
  int a;
  if (nrhs < 4)
    usage_error(call, "usage: [C, lambda] = fastconn_mex('dfc_ecm', X, width, step [, 'gaussian', sigma] [, tolerance] "
                      "[, opts])");
  require_matrix(prhs[1], "X", call);
  w.width = integer_arg(prhs[2], "width", call);
  w.step = integer_arg(prhs[3], "step", call);
  a = parse_taper(nrhs, prhs, 4, &w, call);
  if (a < nrhs && !mxIsStruct(prhs[a])) tolerance = tolerance_arg(prhs[a++], call);
  if (a < nrhs - 1 || (a == nrhs - 1 && !mxIsStruct(prhs[a])))
    usage_error(call, "'dfc_ecm': argument %d is not understood (after X, width, step, the taper and the tolerance "
                      "comes only an options struct)", a);
  opt = parse_options(a == nrhs - 1 ? prhs[a] : NULL, call);
  if (opt.weights_given || opt.order_given) usage_error(call, "options.weights and options.order do not apply to 'dfc_ecm'");
  ctx = context_for(&opt, call);
  call->x = upload(ctx, prhs[1], "X", &opt, call);
  n = (int64_t)mxGetN(prhs[1]);
  t = (int64_t)mxGetM(prhs[1]);
  n_windows = fc_window_count(t, w.width, w.step);
  /* A bad window spec: the library's call names it (and writes nothing). */
  if (n_windows < 1) check(fc_dfc_ecm(ctx, call->x, w.width, w.step, w.taper, w.sigma, tolerance, NULL, 0, NULL), call,
                           "computing the windows' ECM");
  c = mxCreateDoubleMatrix((mwSize)n_windows, (mwSize)n, mxREAL);
  lambda = mxCreateDoubleMatrix((mwSize)n_windows, 1, mxREAL);
  call->scratch = mxMalloc((size_t)(n_windows * n) * sizeof(double));
  {
    const fc_status status = fc_dfc_ecm(ctx, call->x, w.width, w.step, w.taper, w.sigma, tolerance,
                                        (double*)call->scratch, n_windows * n, mxGetPr(lambda));
    if (status >= 100) {
      mxDestroyArray(c);
      mxDestroyArray(lambda);
    }
    check(status, call, "computing the windows' ECM");
  }
  for (k = 0; k < n_windows; ++k) /* window-major (row k) into MATLAB's column-major W x N */
    for (v = 0; v < n; ++v) mxGetPr(c)[k + v * n_windows] = ((const double*)call->scratch)[k * n + v];
  release_call(call);
  plhs[0] = c;
  if (nlhs > 1) plhs[1] = lambda;
  else mxDestroyArray(lambda);
}

static void eigen_centrality(int nlhs, mxArray* plhs[], int nrhs, const mxArray* prhs[], call_state* call) {
  double tolerance = 0, lambda = 0;
  int weighted = 1, a = 2;
  int64_t n = 0;
  options opt;
  fc_context* ctx;
  mxArray* c;
  if (nrhs < 2)
    usage_error(call, "usage: [c, lambda] = fastconn_mex('eigen_centrality', G [, weighted [, tolerance]] [, opts])");
  if (a < nrhs && !mxIsStruct(prhs[a])) {
    const double w = real_arg(prhs[a++], "weighted", call);
    if (w != 0 && w != 1) usage_error(call, "weighted must be true or false, not %g", w);
    weighted = (int)w;
  }
  if (a < nrhs && !mxIsStruct(prhs[a])) tolerance = tolerance_arg(prhs[a++], call);
  if (a < nrhs - 1 || (a == nrhs - 1 && !mxIsStruct(prhs[a])))
    usage_error(call, "'eigen_centrality': argument %d is not understood (after G, weighted and the tolerance comes "
                      "only an options struct)", a);
  opt = parse_options(a == nrhs - 1 ? prhs[a] : NULL, call);
  ctx = context_for(&opt, call);
  graph_of_matrix(prhs[1], call);
  check(fc_graph_info(call->graph, &n, NULL), call, "reading the graph");
  c = mxCreateDoubleMatrix((mwSize)n, 1, mxREAL);
  {
    const fc_status status = fc_graph_eigenvector_centrality(ctx, call->graph, weighted, tolerance, mxGetPr(c), n,
                                                             &lambda);
    if (status >= 100) mxDestroyArray(c);
    check(status, call, "computing the eigenvector centrality");
  }
  release_call(call);
  plhs[0] = c;
  if (nlhs > 1) plhs[1] = mxCreateDoubleScalar(lambda);
}

static void fisher_z(mxArray* plhs[], int nrhs, const mxArray* prhs[], call_state* call) {
  mxArray* z;
  fc_status status;
  const int64_t count = (int64_t)(nrhs == 2 ? mxGetNumberOfElements(prhs[1]) : 0);
  if (nrhs != 2) usage_error(call, "usage: Z = fastconn_mex('fisher_z', R)");
  if (!(mxIsDouble(prhs[1]) || mxIsSingle(prhs[1])) || mxIsComplex(prhs[1]) || mxIsSparse(prhs[1]))
    usage_error(call, "R must be a real, full double or single array of correlations");
  z = mxDuplicateArray(prhs[1]);
  status = mxIsSingle(z) ? fc_fisher_z_f32((float*)mxGetData(z), count) : fc_fisher_z_f64(mxGetPr(z), count);
  if (status >= 100) {
    mxDestroyArray(z);
    check(status, call, "Fisher z [fastconn counts from 0: value k is R(k+1)]");
  }
  plhs[0] = z;
}

/* [] or 'ledoit-wolf': FC_SHRINKAGE_LEDOIT_WOLF; else a scalar (fastconn checks [0, 1]). */
static double shrinkage_arg(const mxArray* a, call_state* call) {
  char text[32];
  if (mxIsEmpty(a)) return FC_SHRINKAGE_LEDOIT_WOLF;
  if (!mxIsChar(a)) return real_arg(a, "shrinkage", call);
  lowercase_copy(text, sizeof(text), a);
  if (strcmp(text, "ledoit-wolf") != 0) usage_error(call, "shrinkage must be 'ledoit-wolf' or a number in [0, 1], not '%s'", text);
  return FC_SHRINKAGE_LEDOIT_WOLF;
}

static void partial(int nlhs, mxArray* plhs[], int nrhs, const mxArray* prhs[], call_state* call) {
  double shrinkage = FC_SHRINKAGE_LEDOIT_WOLF, used = 0;
  int output = FC_PARTIAL_CORRELATION, a = 2;
  int64_t n;
  options opt;
  fc_context* ctx;
  mxArray* p;
  if (nrhs < 2) usage_error(call, "usage: [P, a] = fastconn_mex('partial', X [, shrinkage [, output]] [, opts])");
  require_matrix(prhs[1], "X", call);
  if (a < nrhs && !mxIsStruct(prhs[a])) shrinkage = shrinkage_arg(prhs[a++], call);
  if (a < nrhs && !mxIsStruct(prhs[a])) {
    char text[32];
    lowercase_copy(text, sizeof(text), prhs[a++]);
    if (strcmp(text, "precision") == 0) output = FC_PARTIAL_PRECISION;
    else if (strcmp(text, "partial") != 0) usage_error(call, "output must be 'partial' or 'precision', not '%s'", text);
  }
  if (a < nrhs - 1 || (a == nrhs - 1 && !mxIsStruct(prhs[a])))
    usage_error(call, "'partial': argument %d is not understood (after X, shrinkage and output comes only an options "
                      "struct)", a);
  opt = parse_options(a == nrhs - 1 ? prhs[a] : NULL, call);
  if (opt.weights_given || opt.order_given || opt.spearman)
    usage_error(call, "options.weights, options.order and options.method do not apply to 'partial'");
  ctx = context_for(&opt, call);
  call->x = upload(ctx, prhs[1], "X", &opt, call);
  n = (int64_t)mxGetN(prhs[1]);
  p = mxCreateDoubleMatrix((mwSize)n, (mwSize)n, mxREAL);
  {
    /* The matrix is symmetric: fastconn's row-major layout is MATLAB's column-major one. */
    const fc_status status = fc_partial_correlation(ctx, call->x, shrinkage, output, mxGetPr(p), n, &used);
    if (status >= 100) mxDestroyArray(p);
    check(status, call, "computing the partial correlation [fastconn counts series from 0: series k is X(:, k+1)]");
  }
  release_call(call);
  plhs[0] = p;
  if (nlhs > 1) plhs[1] = mxCreateDoubleScalar(used);
}

int centrality_command(const char* command, int nlhs, mxArray* plhs[], int nrhs, const mxArray* prhs[]) {
  call_state call = {NULL, NULL, NULL, NULL, NULL, NULL, NULL};
  const int is_ecm = strcmp(command, "ecm") == 0, is_eigen = strcmp(command, "eigen_centrality") == 0,
            is_fisher = strcmp(command, "fisher_z") == 0, is_partial = strcmp(command, "partial") == 0,
            is_thresholded = strcmp(command, "ecm_thresholded") == 0, is_dfc = strcmp(command, "dfc_ecm") == 0;
  if (!(is_ecm || is_eigen || is_fisher || is_partial || is_thresholded || is_dfc)) return 0;
  if (nlhs > (is_fisher ? 1 : 2)) usage_error(&call, "'%s' returns %d output(s), not %d", command, is_fisher ? 1 : 2, nlhs);
  if (is_ecm) ecm(nlhs, plhs, nrhs, prhs, &call);
  else if (is_eigen) eigen_centrality(nlhs, plhs, nrhs, prhs, &call);
  else if (is_partial) partial(nlhs, plhs, nrhs, prhs, &call);
  else if (is_thresholded) ecm_thresholded(nlhs, plhs, nrhs, prhs, &call);
  else if (is_dfc) dfc_ecm(nlhs, plhs, nrhs, prhs, &call);
  else fisher_z(plhs, nrhs, prhs, &call);
  return 1;
}
