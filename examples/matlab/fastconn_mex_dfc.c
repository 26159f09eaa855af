/* fastconn_mex_dfc.c - the MEX gateway's commands for dynamic connectivity (sliding windows),
 * low rank and modules: 'dfc', 'dfc_degree', 'dfc_graphs', 'dfc_summary', 'lowrank',
 * 'dfc_lowrank', 'modularity', 'modularity_score' (see the list in fastconn_mex.c). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "fastconn_mex.h"

/* Starts the window iterator, which checks the window spec (width, step, sigma) once for every
 * dfc command and gives W and N to size the results. */
static void begin_windows(fc_context* ctx, call_state* call, const window_spec* w, int64_t* n_windows, int64_t* n) {
  check(fc_dfc_begin(ctx, call->x, w->width, w->step, w->taper, w->sigma, &call->dfc), call, "setting up the windows");
  check(fc_dfc_info(call->dfc, n_windows, n, NULL), call, "reading the window count");
}

static void internal_error(call_state* call, const char* format, ...) {
  char message[512];
  va_list args;
  va_start(args, format);
  vsnprintf(message, sizeof(message), format, args);
  va_end(args);
  release_call(call);
  mexErrMsgIdAndTxt("fastconn:internal", "fastconn returned an inconsistent result (please report): %s", message);
}

/* One warning for the windows in which some series is constant (NaN there), naming the first
 * such window's constant columns. */
static void warn_constant_windows(int64_t windows_hit, int64_t first, const window_spec* w, const options* opt,
                                  call_state* call) {
  fc_series* window = NULL;
  char what[160];
  if (windows_hit == 0 || opt->constant != FC_CONSTANT_NAN) return;
  check(fc_dfc_window(call->dfc, first, &window), call, "reading a window");
  snprintf(what, sizeof(what), "of X in %lld window(s) (the first is window %lld, rows %lld to %lld)",
           (long long)windows_hit, (long long)(first + 1), (long long)(first * w->step + 1),
           (long long)(first * w->step + w->width));
  fc_series_destroy(call->y);
  call->y = window; /* released with the call */
  warn_constant(window, what, opt, call);
}

/* R(k, p) = r of pair p in window k: the iterator gives window after window in row (squareform)
 * order, one window per call, written into column-major W x P without a W x P scratch copy.
 * FP64 and double output: each window as a series (fc_dfc_window) through fc_pcc_triu_f64, so
 * that the values are float64 throughout. */
static mxArray* dfc_triangles(fc_context* ctx, call_state* call, const window_spec* w, int single_output,
                              const options* opt) {
  int64_t n_windows = 0, n = 0, pairs, q, k, hit = 0, first_hit = -1;
  mxArray* r;
  float* buf;
  begin_windows(ctx, call, w, &n_windows, &n);
  pairs = fc_triu_size(n);
  r = mxCreateNumericMatrix((mwSize)n_windows, (mwSize)pairs, single_output ? mxSINGLE_CLASS : mxDOUBLE_CLASS, mxREAL);
  if (pairs == 0 || n_windows == 0) return r;
  if (opt->precision == FC_PRECISION_FP64 && !single_output) {
    double* tri;
    call->scratch = mxMalloc((size_t)pairs * sizeof(double));
    tri = (double*)call->scratch;
    for (k = 0; k < n_windows; ++k) {
      int64_t n_constant = 0;
      fc_series_destroy(call->y);
      call->y = NULL;
      check(fc_dfc_window(call->dfc, k, &call->y), call, "reading a window");
      check(fc_pcc_triu_f64(ctx, call->y, FC_TRIU_ROW, tri, pairs), call, "computing the windows' correlations");
      check(fc_series_info(call->y, NULL, NULL, &n_constant), call, "reading a window");
      if (n_constant > 0 && hit++ == 0) first_hit = k;
      for (q = 0; q < pairs; ++q) mxGetPr(r)[k + q * n_windows] = tri[q];
    }
    warn_constant_windows(hit, first_hit, w, opt, call);
    return r;
  }
  call->scratch = mxMalloc((size_t)pairs * sizeof(float));
  buf = (float*)call->scratch;
  for (;;) {
    fc_dfc_block_info info;
    const fc_status status = fc_dfc_next_triu(call->dfc, buf, pairs, &info);
    check(status, call, "computing the windows' correlations");
    if (status == FC_DONE) break;
    if (info.triu_offset == 0 && info.n_constant > 0 && hit++ == 0) first_hit = info.window;
    if (info.window < 0 || info.window >= n_windows || info.triu_offset < 0 || info.count < 0 ||
        info.triu_offset + info.count > pairs)
      internal_error(call, "fc_dfc_next_triu gave window %lld, offset %lld, count %lld for %lld windows of %lld pairs",
                     (long long)info.window, (long long)info.triu_offset, (long long)info.count,
                     (long long)n_windows, (long long)pairs);
    if (single_output) {
      float* out = (float*)mxGetData(r) + info.window;
      for (q = 0; q < info.count; ++q) out[(info.triu_offset + q) * n_windows] = buf[q];
    } else {
      double* out = mxGetPr(r) + info.window;
      for (q = 0; q < info.count; ++q) out[(info.triu_offset + q) * n_windows] = buf[q];
    }
  }
  warn_constant_windows(hit, first_hit, w, opt, call);
  return r;
}

/* [k, s]: W x N, from the library's window-major W x N (row k = window k) transposed. */
static void dfc_degree(fc_context* ctx, call_state* call, const window_spec* w, fc_edge_rule rule, double param,
                       mxArray** k_out, mxArray** s_out) {
  int64_t n_windows = 0, n = 0, k, v;
  mxArray *kd, *sd;
  int64_t* counts;
  double* sums;
  begin_windows(ctx, call, w, &n_windows, &n);
  kd = mxCreateDoubleMatrix((mwSize)n_windows, (mwSize)n, mxREAL);
  sd = mxCreateDoubleMatrix((mwSize)n_windows, (mwSize)n, mxREAL);
  if (n_windows * n > 0) {
    call->scratch = mxMalloc((size_t)(n_windows * n) * sizeof(int64_t));
    call->scratch2 = mxMalloc((size_t)(n_windows * n) * sizeof(double));
    counts = (int64_t*)call->scratch;
    sums = (double*)call->scratch2;
    check(fc_dfc_degree(ctx, call->x, w->width, w->step, w->taper, w->sigma, rule, param, counts, sums), call,
          "computing the windows' degrees");
    for (k = 0; k < n_windows; ++k)
      for (v = 0; v < n; ++v) {
        mxGetPr(kd)[k + v * n_windows] = (double)counts[k * n + v];
        mxGetPr(sd)[k + v * n_windows] = sums[k * n + v];
      }
  }
  *k_out = kd;
  *s_out = sd;
}

/* W x 1 cell array of sparse networks, one fc_graph at a time (each freed before the next). */
static mxArray* dfc_graphs(fc_context* ctx, call_state* call, const window_spec* w, fc_edge_rule rule, double param,
                           fc_graph_weights weights) {
  int64_t n_windows = 0, n = 0, delivered = 0;
  mxArray* cells;
  begin_windows(ctx, call, w, &n_windows, &n);
  cells = mxCreateCellMatrix((mwSize)n_windows, 1);
  for (;;) {
    int64_t window = -1;
    fc_status status;
    fc_graph_destroy(call->graph);
    call->graph = NULL;
    status = fc_dfc_next_graph(call->dfc, rule, param, (int)weights, &call->graph, &window);
    check(status, call, "building the windows' networks");
    if (status == FC_DONE) break;
    if (window < 0 || window >= n_windows || call->graph == NULL || mxGetCell(cells, (mwIndex)window) != NULL)
      internal_error(call, "fc_dfc_next_graph gave window %lld (graph %s) of %lld windows", (long long)window,
                     call->graph ? "set" : "NULL", (long long)n_windows);
    mxSetCell(cells, (mwIndex)window, sparse_of_graph(call));
    ++delivered;
  }
  if (delivered != n_windows)
    internal_error(call, "fc_dfc_next_graph delivered %lld of %lld windows", (long long)delivered, (long long)n_windows);
  return cells;
}

/* [m, sd]: 1 x P rows, written by the library in row (squareform) order. */
static void dfc_summary(fc_context* ctx, call_state* call, const window_spec* w, mxArray** m_out, mxArray** sd_out) {
  int64_t n_windows = 0, n = 0, pairs;
  mxArray *m, *sd;
  begin_windows(ctx, call, w, &n_windows, &n);
  pairs = fc_triu_size(n);
  m = mxCreateDoubleMatrix(1, (mwSize)pairs, mxREAL);
  sd = mxCreateDoubleMatrix(1, (mwSize)pairs, mxREAL);
  if (pairs > 0)
    check(fc_dfc_summary(ctx, call->x, w->width, w->step, w->taper, w->sigma, FC_TRIU_ROW, mxGetPr(m), mxGetPr(sd),
                         pairs),
          call, "summarizing the windows");
  *m_out = m;
  *sd_out = sd;
}

/* [V, err] of the whole series (windows = 0) or of every window: the library's row-major
 * N x rank factor(s) transposed into column-major N x rank (x W). A rank outside 1..T is passed
 * on with an empty buffer so that the library's message names it. */
static void lowrank(fc_context* ctx, call_state* call, const window_spec* w, int64_t rank, int single_output,
                    mxArray** v_out, mxArray** e_out) {
  int64_t n_windows = 1, n = 0, t = 0, k, s, l, size;
  mxArray *v, *e;
  float* factors;
  static float no_room[1];
  mwSize dims[3];
  if (w != NULL) {
    begin_windows(ctx, call, w, &n_windows, &n);
    t = w->width;
  } else {
    check(fc_series_info(call->x, &n, &t, NULL), call, "reading the series shape");
  }
  if (rank < 1 || rank > t) {
    if (w != NULL)
      check(fc_dfc_lowrank(ctx, call->x, w->width, w->step, w->taper, w->sigma, rank, no_room, 0, NULL), call,
            "computing the windows' low-rank factors");
    else
      check(fc_pcc_lowrank(ctx, call->x, rank, no_room, 0, NULL), call, "computing the low-rank factor");
    internal_error(call, "rank %lld outside 1..%lld was accepted", (long long)rank, (long long)t);
  }
  size = n_windows * n * rank;
  dims[0] = (mwSize)n;
  dims[1] = (mwSize)rank;
  dims[2] = (mwSize)n_windows;
  v = mxCreateNumericArray(w != NULL ? 3 : 2, dims, single_output ? mxSINGLE_CLASS : mxDOUBLE_CLASS, mxREAL);
  e = mxCreateDoubleMatrix((mwSize)n_windows, 1, mxREAL);
  if (size == 0) {
    *v_out = v;
    *e_out = e;
    return;
  }
  call->scratch = mxMalloc((size_t)size * sizeof(float));
  factors = (float*)call->scratch;
  if (w != NULL)
    check(fc_dfc_lowrank(ctx, call->x, w->width, w->step, w->taper, w->sigma, rank, factors, size, mxGetPr(e)), call,
          "computing the windows' low-rank factors");
  else
    check(fc_pcc_lowrank(ctx, call->x, rank, factors, size, mxGetPr(e)), call, "computing the low-rank factor");
  for (k = 0; k < n_windows; ++k)
    for (s = 0; s < n; ++s)
      for (l = 0; l < rank; ++l) {
        const float f = factors[(k * n + s) * rank + l];
        const int64_t at = s + l * n + k * n * rank;
        if (single_output) ((float*)mxGetData(v))[at] = f;
        else mxGetPr(v)[at] = f;
      }
  *v_out = v;
  *e_out = e;
}

/* Element (i, j) of a full or sparse double/single/logical matrix: read through the class. */
static double full_value(const mxArray* g, size_t index) {
  if (mxIsLogical(g)) return mxGetLogicals(g)[index] ? 1.0 : 0.0;
  if (mxIsSingle(g)) return ((const float*)mxGetData(g))[index];
  return mxGetPr(g)[index];
}

/* Value of sparse G(row, column), 0 when not stored (rows are sorted within a column). */
static double sparse_value(const mxArray* g, mwIndex row, mwIndex column) {
  const mwIndex* jc = mxGetJc(g);
  const mwIndex* ir = mxGetIr(g);
  mwIndex lo = jc[column], hi = jc[column + 1];
  while (lo < hi) {
    const mwIndex mid = lo + (hi - lo) / 2;
    if (ir[mid] < row) lo = mid + 1;
    else hi = mid;
  }
  if (lo < jc[column + 1] && ir[lo] == row) return mxIsLogical(g) ? (mxGetLogicals(g)[lo] ? 1.0 : 0.0) : mxGetPr(g)[lo];
  return 0.0;
}

/* call->graph from a symmetric N x N matrix, as the Brain Connectivity Toolbox takes it: column j
 * of G is row j of fastconn's symmetric CSR. Checked here so that messages use MATLAB's 1-based
 * G(i, j): square, real, finite, zero diagonal, G(i, j) == G(j, i). Stored zeros are dropped. */
void graph_of_matrix(const mxArray* g, call_state* call) {
  const int64_t n = (int64_t)mxGetM(g);
  const int sparse = mxIsSparse(g);
  int64_t nnz = 0, i, j, e;
  int64_t *offsets, *columns;
  float* weights;
  char text[32];
  if (!(mxIsDouble(g) || mxIsSingle(g) || mxIsLogical(g)) || mxIsComplex(g) || mxGetNumberOfDimensions(g) != 2 ||
      (int64_t)mxGetN(g) != n)
    usage_error(call, "G must be a real, square N x N double, single or logical matrix, sparse or full (got %lld x %lld %s%s)",
                (long long)mxGetM(g), (long long)mxGetN(g), mxIsComplex(g) ? "complex " : "", mxGetClassName(g));
  /* Count first: offsets, columns, weights in one scratch block of the exact size. */
  for (j = 0; j < n; ++j) {
    if (sparse) {
      const mwIndex* jc = mxGetJc(g);
      for (e = (int64_t)jc[j]; e < (int64_t)jc[j + 1]; ++e)
        nnz += (mxIsLogical(g) ? mxGetLogicals(g)[e] != 0 : mxGetPr(g)[e] != 0);
    } else {
      for (i = 0; i < n; ++i) nnz += full_value(g, (size_t)(i + j * n)) != 0;
    }
  }
  call->scratch2 = mxMalloc((size_t)(n + 1 + nnz) * sizeof(int64_t) + (size_t)(nnz > 0 ? nnz : 1) * sizeof(float));
  offsets = (int64_t*)call->scratch2;
  columns = offsets + n + 1;
  weights = (float*)(columns + nnz);
  offsets[0] = 0;
  for (j = 0, e = 0; j < n; ++j) {
    int64_t first = 0, last = n;
    if (sparse) {
      first = (int64_t)mxGetJc(g)[j];
      last = (int64_t)mxGetJc(g)[j + 1];
    }
    for (; first < last; ++first) {
      const int64_t row = sparse ? (int64_t)mxGetIr(g)[first] : first;
      const double value =
          sparse ? (mxIsLogical(g) ? (mxGetLogicals(g)[first] ? 1.0 : 0.0) : mxGetPr(g)[first]) : full_value(g, (size_t)(first + j * n));
      double mirror;
      if (value == 0) continue;
      if (!isfinite(value))
        usage_error(call, "G(%lld,%lld) = %s: G must be finite", (long long)(row + 1), (long long)(j + 1),
                    number_text(value, text, sizeof(text)));
      if (row == j)
        usage_error(call, "G(%lld,%lld) = %g: the diagonal must be zero (no self-loops); set G(1:N+1:end) = 0",
                    (long long)(j + 1), (long long)(j + 1), value);
      mirror = sparse ? sparse_value(g, (mwIndex)j, (mwIndex)row) : full_value(g, (size_t)(j + row * n));
      if (mirror != value)
        usage_error(call, "G must be symmetric: G(%lld,%lld) = %.17g but G(%lld,%lld) = %.17g (G = (G + G.')/2 averages it)",
                    (long long)(row + 1), (long long)(j + 1), value, (long long)(j + 1), (long long)(row + 1), mirror);
      columns[e] = row;
      weights[e] = (float)value;
      ++e;
    }
    offsets[j + 1] = e;
  }
  check(fc_graph_create_csr(n, offsets, columns, weights, &call->graph), call, "reading G");
  mxFree(call->scratch2);
  call->scratch2 = NULL;
}

/* 'modularity' options: name/value pairs from prhs[first], then an optional opts struct. */
static int parse_modularity_options(int nrhs, const mxArray* prhs[], int first, fc_modularity_options* mo,
                                    call_state* call) {
  char name[32], value[32];
  int a = first;
  check(fc_modularity_options_default(mo), call, "reading the default options");
  while (a < nrhs && mxIsChar(prhs[a])) {
    lowercase_copy(name, sizeof(name), prhs[a]);
    if (a + 1 >= nrhs) usage_error(call, "option '%s' has no value", name);
    if (strcmp(name, "resolution") == 0) mo->resolution = real_arg(prhs[a + 1], "resolution", call);
    else if (strcmp(name, "threshold") == 0) mo->eigen_threshold = real_arg(prhs[a + 1], "threshold", call);
    else if (strcmp(name, "maxcommunities") == 0) mo->max_communities = integer_arg(prhs[a + 1], "maxcommunities", call);
    else if (strcmp(name, "minsize") == 0) mo->min_community_size = integer_arg(prhs[a + 1], "minsize", call);
    else if (strcmp(name, "seed") == 0) {
      const int64_t seed = integer_arg(prhs[a + 1], "seed", call);
      if (seed < 0) usage_error(call, "seed must be a whole number >= 0, not %lld", (long long)seed);
      mo->seed = (uint64_t)seed;
    } else if (strcmp(name, "signed") == 0) {
      lowercase_copy(value, sizeof(value), prhs[a + 1]);
      if (strcmp(value, "gomez") == 0) mo->signed_mode = FC_SIGNED_GOMEZ;
      else if (strcmp(value, "rubinov") == 0) mo->signed_mode = FC_SIGNED_RUBINOV;
      else usage_error(call, "'signed' must be 'gomez' or 'rubinov'");
    } else if (strcmp(name, "refine") == 0) {
      const double r = real_arg(prhs[a + 1], "refine", call);
      if (r != 0 && r != 1) usage_error(call, "refine must be true or false, not %g", r);
      mo->refine = (int32_t)r;
    } else {
      usage_error(call, "unknown modularity option '%s' (known: resolution, threshold, maxcommunities, minsize, seed, "
                        "signed, refine)", name);
    }
    a += 2;
  }
  return a;
}

/* labels (1-based), Q and the division tree (ids 1-based: 1 = the whole graph). */
void modules_outputs(call_state* call, int nlhs, mxArray** labels_out, mxArray** q_out, mxArray** tree_out) {
  static const char* fields[] = {"parent", "child_a", "child_b", "eigenvalue", "gain", "iterations", "residual"};
  int64_t n = 0, k = 0, splits = 0, i;
  double q = 0;
  int64_t* labels;
  mxArray* out;
  check(fc_modules_info(call->modules, &n, &k, &q, &splits), call, "reading the modules");
  call->scratch = mxMalloc((size_t)(n > 0 ? n : 1) * sizeof(int64_t));
  labels = (int64_t*)call->scratch;
  check(fc_modules_labels(call->modules, labels, n), call, "reading the labels");
  out = mxCreateDoubleMatrix((mwSize)n, 1, mxREAL);
  for (i = 0; i < n; ++i) {
    if (labels[i] < 0 || labels[i] >= k)
      internal_error(call, "label %lld of node %lld is outside 0..K-1 = %lld", (long long)labels[i], (long long)i,
                     (long long)(k - 1));
    mxGetPr(out)[i] = (double)labels[i] + 1;
  }
  *labels_out = out;
  *q_out = mxCreateDoubleScalar(q);
  if (nlhs > 2) {
    int64_t* ids;
    double* reals;
    mxFree(call->scratch);
    call->scratch = NULL;
    call->scratch = mxMalloc((size_t)(splits > 0 ? splits : 1) * 4 * sizeof(int64_t));
    call->scratch2 = mxMalloc((size_t)(splits > 0 ? splits : 1) * 3 * sizeof(double));
    ids = (int64_t*)call->scratch;
    reals = (double*)call->scratch2;
    if (splits > 0)
      check(fc_modules_splits(call->modules, ids, ids + splits, ids + 2 * splits, reals, reals + splits,
                              ids + 3 * splits, reals + 2 * splits, splits),
            call, "reading the division tree");
    out = mxCreateStructMatrix(1, (mwSize)splits, 7, fields);
    for (i = 0; i < splits; ++i) {
      mxSetField(out, (mwIndex)i, "parent", mxCreateDoubleScalar((double)ids[i] + 1));
      mxSetField(out, (mwIndex)i, "child_a", mxCreateDoubleScalar((double)ids[splits + i] + 1));
      mxSetField(out, (mwIndex)i, "child_b", mxCreateDoubleScalar((double)ids[2 * splits + i] + 1));
      mxSetField(out, (mwIndex)i, "eigenvalue", mxCreateDoubleScalar(reals[i]));
      mxSetField(out, (mwIndex)i, "gain", mxCreateDoubleScalar(reals[splits + i]));
      mxSetField(out, (mwIndex)i, "iterations", mxCreateDoubleScalar((double)ids[3 * splits + i]));
      mxSetField(out, (mwIndex)i, "residual", mxCreateDoubleScalar(reals[2 * splits + i]));
    }
    *tree_out = out;
  }
}

static void modularity(fc_context* ctx, call_state* call, const fc_modularity_options* mo, int nlhs, mxArray** labels_out,
                       mxArray** q_out, mxArray** tree_out) {
  check(fc_modularity(ctx, call->graph, mo, &call->modules), call, "finding the modules");
  modules_outputs(call, nlhs, labels_out, q_out, tree_out);
}

void read_labels(const mxArray* labels_arg, int64_t n, const char* name, int64_t* labels, call_state* call) {
  int64_t i;
  if (!(mxIsNumeric(labels_arg) || mxIsLogical(labels_arg)) || mxIsComplex(labels_arg) || mxIsSparse(labels_arg) ||
      (int64_t)mxGetNumberOfElements(labels_arg) != n ||
      (n > 0 && mxGetM(labels_arg) != 1 && mxGetN(labels_arg) != 1))
    usage_error(call, "%s must be a real vector of %lld integers (one per node of G), not %lld x %lld", name,
                (long long)n, (long long)mxGetM(labels_arg), (long long)mxGetN(labels_arg));
  {
    mxArray* as_double = NULL;
    const double* v;
    if (mxIsDouble(labels_arg)) {
      v = mxGetPr(labels_arg);
    } else {
      /* Integer, single or logical labels: converted by MATLAB's own rules. */
      mxArray* in = (mxArray*)labels_arg;
      if (mexCallMATLAB(1, &as_double, 1, &in, "double") != 0) usage_error(call, "%s could not be converted to double", name);
      v = mxGetPr(as_double);
    }
    for (i = 0; i < n; ++i) {
      if (!(v[i] >= 0 && v[i] == floor(v[i]) && v[i] <= 9007199254740992.0)) {
        const double bad = v[i];
        if (as_double) mxDestroyArray(as_double);
        usage_error(call, "%s(%lld) = %g: %s must be whole numbers >= 0", name, (long long)(i + 1), bad, name);
      }
      labels[i] = (int64_t)v[i];
    }
    if (as_double) mxDestroyArray(as_double);
  }
}

/* Q of labels (N integers >= 0, any numbering: 1-based MATLAB labels pass as they are). */
static double modularity_score(const mxArray* labels_arg, double gamma, call_state* call) {
  int64_t n = 0;
  int64_t* labels;
  double q = 0;
  check(fc_graph_info(call->graph, &n, NULL), call, "reading G");
  call->scratch = mxMalloc((size_t)(n > 0 ? n : 1) * sizeof(int64_t));
  labels = (int64_t*)call->scratch;
  read_labels(labels_arg, n, "labels", labels, call);
  check(fc_modularity_score(call->graph, labels, gamma, &q), call, "scoring the labels");
  return q;
}

/* The commands above: positional arguments, then (dfc_*) a taper, then an opts struct. */
int dfc_module_command(const char* command, int nlhs, mxArray* plhs[], int nrhs, const mxArray* prhs[]) {
  call_state call = {NULL, NULL, NULL, NULL, NULL, NULL, NULL};
  int windows = 0, a, n_out = 1, single_output = 0;
  window_spec w = {0, 0, FC_TAPER_RECTANGULAR, 0};
  fc_edge_rule rule = FC_EDGE_ABS_THRESHOLD;
  double param = 0;
  int64_t rank = 0;
  options opt;
  fc_context* ctx;
  fc_modularity_options mo;
  mxArray* out[3] = {NULL, NULL, NULL};
  int is_dfc = strcmp(command, "dfc") == 0, is_degree = strcmp(command, "dfc_degree") == 0,
      is_graphs = strcmp(command, "dfc_graphs") == 0, is_summary = strcmp(command, "dfc_summary") == 0,
      is_lowrank = strcmp(command, "lowrank") == 0, is_dfc_lowrank = strcmp(command, "dfc_lowrank") == 0,
      is_modularity = strcmp(command, "modularity") == 0, is_score = strcmp(command, "modularity_score") == 0;
  if (!(is_dfc || is_degree || is_graphs || is_summary || is_lowrank || is_dfc_lowrank || is_modularity || is_score))
    return 0;
  windows = is_dfc || is_degree || is_graphs || is_summary || is_dfc_lowrank;
  n_out = is_modularity ? 3 : (is_degree || is_summary || is_lowrank || is_dfc_lowrank) ? 2 : 1;
  if (nlhs > n_out) usage_error(&call, "'%s' returns %d output(s), not %d", command, n_out, nlhs);

  if (is_score) {
    double gamma = 1, q;
    if (nrhs < 3 || nrhs > 4)
      usage_error(&call, "usage: Q = fastconn_mex('modularity_score', G, labels [, resolution]) (got %d arguments)", nrhs - 1);
    if (nrhs == 4) gamma = real_arg(prhs[3], "resolution", &call);
    graph_of_matrix(prhs[1], &call);
    q = modularity_score(prhs[2], gamma, &call);
    release_call(&call);
    plhs[0] = mxCreateDoubleScalar(q);
    return 1;
  }

  if (is_modularity) {
    if (nrhs < 2) usage_error(&call, "usage: [labels, Q, tree] = fastconn_mex('modularity', G, name, value, ...)");
    a = parse_modularity_options(nrhs, prhs, 2, &mo, &call);
  } else {
    /* Positional: X, then width, step for windows, then rule, p or rank. */
    const int positional = 1 + (windows ? 2 : 0) + ((is_degree || is_graphs) ? 2 : 0) + ((is_lowrank || is_dfc_lowrank) ? 1 : 0);
    if (nrhs < 1 + positional)
      usage_error(&call, "'%s' takes %d positional argument(s) (%s), not %d", command, positional,
                  is_dfc || is_summary ? "X, width, step"
                  : is_lowrank        ? "X, rank"
                  : is_dfc_lowrank    ? "X, width, step, rank"
                                      : "X, width, step, rule, p",
                  nrhs - 1);
    require_matrix(prhs[1], "X", &call);
    single_output = mxIsSingle(prhs[1]);
    a = 2;
    if (windows) {
      w.width = integer_arg(prhs[2], "width", &call);
      w.step = integer_arg(prhs[3], "step", &call);
      a = 4;
    }
    if (is_degree || is_graphs) {
      rule = parse_rule(prhs[4], prhs[5], &param, &call);
      a = 6;
    }
    if (is_lowrank || is_dfc_lowrank) rank = integer_arg(prhs[a++], "rank", &call);
    if (windows) a = parse_taper(nrhs, prhs, a, &w, &call);
  }
  if (a < nrhs - 1 || (a == nrhs - 1 && !mxIsStruct(prhs[a])))
    usage_error(&call, "'%s': argument %d is not understood (after the %s comes only an options struct)", command, a,
                is_modularity ? "name/value options" : windows ? "arguments and taper" : "arguments");
  opt = parse_options(a == nrhs - 1 ? prhs[a] : NULL, &call);
  if (opt.order_given)
    usage_error(&call, "options.order applies to 'triu' only, not to '%s'", command);
  if (opt.weights_given && !is_graphs)
    usage_error(&call, "options.weights applies to 'graph' and 'dfc_graphs' only, not to '%s'", command);
  ctx = context_for(&opt, &call);

  if (is_modularity) {
    graph_of_matrix(prhs[1], &call);
    modularity(ctx, &call, &mo, nlhs, &out[0], &out[1], &out[2]);
  } else {
    call.x = upload(ctx, prhs[1], "X", &opt, &call);
    if (is_dfc) out[0] = dfc_triangles(ctx, &call, &w, single_output, &opt);
    else if (is_degree) dfc_degree(ctx, &call, &w, rule, param, &out[0], &out[1]);
    else if (is_graphs) out[0] = dfc_graphs(ctx, &call, &w, rule, param, opt.weights);
    else if (is_summary) dfc_summary(ctx, &call, &w, &out[0], &out[1]);
    else lowrank(ctx, &call, is_dfc_lowrank ? &w : NULL, rank, single_output, &out[0], &out[1]);
  }
  release_call(&call);
  for (a = 0; a < n_out; ++a) {
    if (out[a] == NULL) continue;
    if (a == 0 || a < nlhs) plhs[a] = out[a];
    else mxDestroyArray(out[a]);
  }
  return 1;
}
