/* fastconn_mex_api.c - the MEX gateway's commands for the rest of the C API (see the list in
 * fastconn_mex.c): one window (fc_series_window), windows streamed one at a time
 * (fc_dfc_begin / fc_dfc_window, held between calls in a small table of iterators), graph files
 * (fc_graph_save / fc_graph_load), triangle indices (fc_triu_offset / fc_triu_pair), the
 * library's version and CUDA. Indices are 1-based, as MATLAB counts. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fastconn_mex.h"

/* Streamed windows: MATLAB cannot hold a C pointer, so an iterator lives here under a number. */
#define MAX_STREAMS 64
typedef struct window_stream {
  fc_dfc* dfc;
  int64_t n_windows;
  int64_t next;
  int generation; /* of the cached context it was made on */
  int single_output;
  options opt;
} window_stream;
static window_stream g_streams[MAX_STREAMS];

void release_window_streams(void) {
  int k;
  for (k = 0; k < MAX_STREAMS; ++k) {
    fc_dfc_destroy(g_streams[k].dfc);
    memset(&g_streams[k], 0, sizeof(g_streams[k]));
  }
}

static fc_triu_order order_arg(int nrhs, const mxArray* prhs[], int at, call_state* call) {
  char name[16];
  if (at >= nrhs) return FC_TRIU_ROW;
  lowercase_copy(name, sizeof(name), prhs[at]);
  if (strcmp(name, "row") == 0) return FC_TRIU_ROW;
  if (strcmp(name, "col") == 0) return FC_TRIU_COL;
  usage_error(call, "the order must be 'row' (squareform) or 'col' (R(triu(true(N), 1)))");
  return FC_TRIU_ROW; /* not reached */
}

static const double* real_vector(const mxArray* a, const char* name, call_state* call) {
  if (!mxIsDouble(a) || mxIsComplex(a) || mxIsSparse(a))
    usage_error(call, "%s must be a real double vector", name);
  return mxGetPr(a);
}

/* k = positions of (i, j) in the triangle of n series: fc_triu_offset, 1-based both ways. */
static mxArray* triu_index(int nrhs, const mxArray* prhs[], call_state* call) {
  int64_t n, k, count;
  const double *i, *j;
  fc_triu_order order;
  mxArray* out;
  char a[32], b[32];
  if (nrhs < 4 || nrhs > 5) usage_error(call, "usage: k = fastconn_mex('triu_index', n, i, j [, 'row' | 'col'])");
  n = integer_arg(prhs[1], "n", call);
  if (n < 2) usage_error(call, "n must be a whole number of series >= 2, not %lld", (long long)n);
  i = real_vector(prhs[2], "i", call);
  j = real_vector(prhs[3], "j", call);
  count = (int64_t)mxGetNumberOfElements(prhs[2]);
  if ((int64_t)mxGetNumberOfElements(prhs[3]) != count) usage_error(call, "i and j must have the same number of elements");
  order = order_arg(nrhs, prhs, 4, call);
  out = mxCreateDoubleMatrix(mxGetM(prhs[2]), mxGetN(prhs[2]), mxREAL);
  for (k = 0; k < count; ++k) {
    const int64_t offset = (i[k] == floor(i[k]) && j[k] == floor(j[k]) && i[k] >= 1 && j[k] >= 1 && i[k] <= (double)n &&
                            j[k] <= (double)n)
                               ? fc_triu_offset(n, order, (int64_t)i[k] - 1, (int64_t)j[k] - 1)
                               : -1;
    if (offset < 0) {
      mxDestroyArray(out);
      usage_error(call, "(i, j) must be two different whole numbers in [1, %lld]; pair %lld is (%s, %s)", (long long)n,
                  (long long)(k + 1), number_text(i[k], a, sizeof(a)), number_text(j[k], b, sizeof(b)));
    }
    mxGetPr(out)[k] = (double)offset + 1;
  }
  return out;
}

/* [i, j] = the pairs at 1-based positions k (fc_triu_pair). */
static void triu_pair(int nrhs, const mxArray* prhs[], mxArray** i_out, mxArray** j_out, call_state* call) {
  int64_t n, k, count, size;
  const double* at;
  fc_triu_order order;
  mxArray *i, *j;
  char text[32];
  if (nrhs < 3 || nrhs > 4) usage_error(call, "usage: [i, j] = fastconn_mex('triu_pair', n, k [, 'row' | 'col'])");
  n = integer_arg(prhs[1], "n", call);
  if (n < 2) usage_error(call, "n must be a whole number of series >= 2, not %lld", (long long)n);
  size = fc_triu_size(n);
  at = real_vector(prhs[2], "k", call);
  count = (int64_t)mxGetNumberOfElements(prhs[2]);
  order = order_arg(nrhs, prhs, 3, call);
  for (k = 0; k < count; ++k)
    if (!(at[k] >= 1 && at[k] <= (double)size && at[k] == floor(at[k])))
      usage_error(call, "k must hold whole numbers in [1, %lld] (positions in the triangle of %lld series); k(%lld) is %s",
                  (long long)size, (long long)n, (long long)(k + 1), number_text(at[k], text, sizeof(text)));
  i = mxCreateDoubleMatrix(mxGetM(prhs[2]), mxGetN(prhs[2]), mxREAL);
  j = mxCreateDoubleMatrix(mxGetM(prhs[2]), mxGetN(prhs[2]), mxREAL);
  for (k = 0; k < count; ++k) {
    int64_t a = 0, b = 0;
    check(fc_triu_pair(n, order, (int64_t)at[k] - 1, &a, &b), call, "finding the pair");
    mxGetPr(i)[k] = (double)a + 1;
    mxGetPr(j)[k] = (double)b + 1;
  }
  *i_out = i;
  *j_out = j;
}

static void file_name(const mxArray* a, char* out, size_t size, call_state* call) {
  if (!mxIsChar(a) || mxGetString(a, out, (mwSize)size) != 0 || out[0] == '\0')
    usage_error(call, "the file name must be a nonempty character vector (of fewer than %d characters)", (int)size);
}

/* R = corr of one window of X: upload, cut (fc_series_window), dense matrix. */
static mxArray* one_window(int nrhs, const mxArray* prhs[], call_state* call) {
  window_spec w = {0, 0, FC_TAPER_RECTANGULAR, 0};
  int64_t start, n = 0;
  int a, single_output;
  options opt;
  fc_context* ctx;
  mxArray* r;
  if (nrhs < 4) usage_error(call, "usage: R = fastconn_mex('window', X, start, width [, 'gaussian', sigma] [, opts])");
  require_matrix(prhs[1], "X", call);
  single_output = mxIsSingle(prhs[1]);
  start = integer_arg(prhs[2], "start", call);
  w.width = integer_arg(prhs[3], "width", call);
  a = parse_taper(nrhs, prhs, 4, &w, call);
  if (a < nrhs - 1 || (a == nrhs - 1 && !mxIsStruct(prhs[a])))
    usage_error(call, "'window': argument %d is not understood (after X, start, width and the taper comes only an "
                      "options struct)", a);
  if (start < 1 || w.width < 2 || start - 1 + w.width > (int64_t)mxGetM(prhs[1]))
    usage_error(call, "the window of width %lld at row %lld does not fit in the %lld rows of X (start >= 1, width >= 2)",
                (long long)w.width, (long long)start, (long long)mxGetM(prhs[1]));
  opt = parse_options(a == nrhs - 1 ? prhs[a] : NULL, call);
  ctx = context_for(&opt, call);
  call->x = upload(ctx, prhs[1], "X", &opt, call);
  check(fc_series_window(ctx, call->x, start - 1, w.width, w.taper, w.sigma, &call->y), call, "cutting the window");
  check(fc_series_info(call->y, &n, NULL, NULL), call, "reading the window");
  if (single_output) {
    r = mxCreateNumericMatrix((mwSize)n, (mwSize)n, mxSINGLE_CLASS, mxREAL);
    check(fc_pcc_dense(ctx, call->y, (float*)mxGetData(r), n), call, "computing the correlations");
  } else {
    r = mxCreateDoubleMatrix((mwSize)n, (mwSize)n, mxREAL);
    check(fc_pcc_dense_f64(ctx, call->y, mxGetPr(r), n), call, "computing the correlations");
  }
  warn_constant(call->y, "of X in the window", &opt, call);
  return r;
}

static mxArray* stream_begin(int nrhs, const mxArray* prhs[], call_state* call) {
  window_spec w = {0, 0, FC_TAPER_RECTANGULAR, 0};
  int a, slot;
  fc_context* ctx;
  window_stream* s;
  for (slot = 0; slot < MAX_STREAMS && g_streams[slot].dfc != NULL; ++slot) {
  }
  if (slot == MAX_STREAMS)
    usage_error(call, "%d window iterators are open: end some with fastconn_mex('dfc_end', id)", MAX_STREAMS);
  if (nrhs < 4) usage_error(call, "usage: id = fastconn_mex('dfc_begin', X, width, step [, 'gaussian', sigma] [, opts])");
  s = &g_streams[slot];
  require_matrix(prhs[1], "X", call);
  w.width = integer_arg(prhs[2], "width", call);
  w.step = integer_arg(prhs[3], "step", call);
  a = parse_taper(nrhs, prhs, 4, &w, call);
  if (a < nrhs - 1 || (a == nrhs - 1 && !mxIsStruct(prhs[a])))
    usage_error(call, "'dfc_begin': argument %d is not understood (after X, width, step and the taper comes only an "
                      "options struct)", a);
  s->opt = parse_options(a == nrhs - 1 ? prhs[a] : NULL, call);
  ctx = context_for(&s->opt, call);
  call->x = upload(ctx, prhs[1], "X", &s->opt, call);
  check(fc_dfc_begin(ctx, call->x, w.width, w.step, w.taper, w.sigma, &call->dfc), call, "setting up the windows");
  check(fc_dfc_info(call->dfc, &s->n_windows, NULL, NULL), call, "reading the window count");
  s->dfc = call->dfc; /* the iterator keeps the series; the table owns the iterator from here */
  call->dfc = NULL;
  s->next = 0;
  s->generation = g_context_generation;
  s->single_output = mxIsSingle(prhs[1]);
  return mxCreateDoubleScalar((double)(slot + 1));
}

static window_stream* stream_of(int nrhs, const mxArray* prhs[], const char* command, call_state* call) {
  int64_t id;
  if (nrhs != 2) usage_error(call, "usage: fastconn_mex('%s', id) with id from fastconn_mex('dfc_begin', ...)", command);
  id = integer_arg(prhs[1], "id", call);
  if (id < 1 || id > MAX_STREAMS || g_streams[id - 1].dfc == NULL)
    usage_error(call, "%lld is not an open window iterator (it ended, or 'clear fastconn_mex' closed it)", (long long)id);
  return &g_streams[id - 1];
}

/* [r, k]: window k's triangle (row order, 1 x P), or [] and 0 after the last window. */
static void stream_next(window_stream* s, mxArray** r_out, mxArray** k_out, call_state* call) {
  int64_t n = 0, pairs;
  char what[64];
  mxArray* r;
  fc_context* ctx;
  if (s->generation != g_context_generation)
    usage_error(call, "the context this iterator was made on is gone (another backend was asked for since): "
                      "end it and begin again");
  if (s->next >= s->n_windows) {
    *r_out = mxCreateDoubleMatrix(0, 0, mxREAL);
    *k_out = mxCreateDoubleScalar(0);
    return;
  }
  ctx = context_for(&s->opt, call); /* the iterator's settings, whatever calls came between */
  check(fc_dfc_window(s->dfc, s->next, &call->x), call, "cutting the window");
  check(fc_series_info(call->x, &n, NULL, NULL), call, "reading the window");
  pairs = fc_triu_size(n);
  if (s->single_output) {
    r = mxCreateNumericMatrix(1, (mwSize)pairs, mxSINGLE_CLASS, mxREAL);
    if (pairs > 0) check(fc_pcc_triu(ctx, call->x, FC_TRIU_ROW, (float*)mxGetData(r), pairs), call, "computing the window");
  } else {
    r = mxCreateDoubleMatrix(1, (mwSize)pairs, mxREAL);
    if (pairs > 0) check(fc_pcc_triu_f64(ctx, call->x, FC_TRIU_ROW, mxGetPr(r), pairs), call, "computing the window");
  }
  ++s->next;
  snprintf(what, sizeof(what), "of X in window %lld", (long long)s->next);
  warn_constant(call->x, what, &s->opt, call);
  *r_out = r;
  *k_out = mxCreateDoubleScalar((double)s->next);
}

int api_command(const char* command, int nlhs, mxArray* plhs[], int nrhs, const mxArray* prhs[]) {
  call_state call = {NULL, NULL, NULL, NULL, NULL, NULL, NULL};
  mxArray* out[3] = {NULL, NULL, NULL};
  int n_out = 1, k;
  char path[4096];
  if (strcmp(command, "version") == 0) {
    int v[3] = {0, 0, 0};
    fc_version(&v[0], &v[1], &v[2]);
    n_out = 3;
    for (k = 0; k < 3; ++k) out[k] = mxCreateDoubleScalar(v[k]);
  } else if (strcmp(command, "cpu_info") == 0) {
    out[0] = mxCreateString(fc_cpu_info());
  } else if (strcmp(command, "has_cuda") == 0) {
    const int built = fc_has_cuda() != 0;
    int usable = 0;
    if (built) {
      fc_context* ctx = NULL;
      usable = fc_context_create(FC_BACKEND_CUDA, -1, &ctx) == FC_OK;
      fc_context_destroy(ctx);
    }
    n_out = 2;
    out[0] = mxCreateLogicalScalar(built);
    out[1] = mxCreateLogicalScalar(usable);
  } else if (strcmp(command, "triu_index") == 0) {
    out[0] = triu_index(nrhs, prhs, &call);
  } else if (strcmp(command, "triu_pair") == 0) {
    n_out = 2;
    triu_pair(nrhs, prhs, &out[0], &out[1], &call);
  } else if (strcmp(command, "graph_save") == 0) {
    n_out = 0;
    if (nrhs != 3) usage_error(&call, "usage: fastconn_mex('graph_save', G, file)");
    file_name(prhs[2], path, sizeof(path), &call);
    graph_of_matrix(prhs[1], &call);
    check(fc_graph_save(call.graph, path), &call, "saving the graph");
  } else if (strcmp(command, "graph_load") == 0) {
    if (nrhs != 2) usage_error(&call, "usage: G = fastconn_mex('graph_load', file)");
    file_name(prhs[1], path, sizeof(path), &call);
    check(fc_graph_load(path, &call.graph), &call, "loading the graph");
    out[0] = sparse_of_graph(&call);
  } else if (strcmp(command, "window") == 0) {
    out[0] = one_window(nrhs, prhs, &call);
  } else if (strcmp(command, "dfc_begin") == 0) {
    out[0] = stream_begin(nrhs, prhs, &call);
  } else if (strcmp(command, "dfc_next") == 0) {
    n_out = 2;
    stream_next(stream_of(nrhs, prhs, command, &call), &out[0], &out[1], &call);
  } else if (strcmp(command, "dfc_end") == 0) {
    window_stream* s = stream_of(nrhs, prhs, command, &call);
    n_out = 0;
    fc_dfc_destroy(s->dfc);
    memset(s, 0, sizeof(*s));
  } else {
    return 0;
  }
  if (nlhs > (n_out > 0 ? n_out : 1)) usage_error(&call, "'%s' returns %d output(s), not %d", command, n_out, nlhs);
  release_call(&call);
  for (k = 0; k < n_out; ++k) {
    if (k == 0 || k < nlhs) plhs[k] = out[k];
    else mxDestroyArray(out[k]);
  }
  return 1;
}
