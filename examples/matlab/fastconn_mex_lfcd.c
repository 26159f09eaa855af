/* fastconn_mex_lfcd.c - the lFCD command of fastconn_mex:
 *   L = fastconn_mex('lfcd', X, coords, dims, rule, p [, neighbourhood] [, opts])
 *       local functional connectivity density (Tomasi and Volkow 2010; AFNI's 3dLFCD) of the
 *       columns of X, each a voxel: coords is N x 3 double, the 1-based (i, j, k) of column s in
 *       row s (as [i, j, k] = ind2sub(size(mask), find(mask)) gives them), dims the grid's size
 *       (e.g. size(mask), 3 values). L (N x 1 double) counts the voxels of the cluster grown from
 *       each seed: a voxel adjacent to the cluster joins when its r with the seed passes the rule
 *       ('signed': r >= p; 'abs': |r| >= p). neighbourhood: 6, 18 or 26 (default, AFNI's). The
 *       seed counts itself; a constant column scores 0 and never joins (fc_pcc_lfcd). */
#include <math.h>
#include <string.h>

#include "fastconn_mex.h"

/* A whole number that fits int32 (coordinates, 1-based here), else a usage error naming it. */
static int32_t coordinate(double value, int64_t row, int axis, call_state* call) {
  char text[32];
  if (!(value == floor(value) && value >= -2147483647.0 && value <= 2147483647.0))
    usage_error(call, "coords(%lld, %d) is %s, not a whole number (a 1-based voxel index)", (long long)(row + 1),
                axis + 1, number_text(value, text, sizeof(text)));
  return (int32_t)value;
}

static void lfcd(mxArray* plhs[], int nrhs, const mxArray* prhs[], call_state* call) {
  int64_t n, v, neighbourhood = 26;
  int64_t dims[3];
  int a = 6, axis;
  double p = 0;
  fc_edge_rule rule;
  options opt;
  fc_context* ctx;
  int32_t* coords;
  mxArray* out;
  if (nrhs < 6) usage_error(call, "usage: L = fastconn_mex('lfcd', X, coords, dims, rule, p [, neighbourhood] [, opts])");
  require_matrix(prhs[1], "X", call);
  n = (int64_t)mxGetN(prhs[1]);
  if (!mxIsDouble(prhs[2]) || mxIsComplex(prhs[2]) || mxIsSparse(prhs[2]) || mxGetNumberOfDimensions(prhs[2]) != 2 ||
      (int64_t)mxGetM(prhs[2]) != n || mxGetN(prhs[2]) != 3)
    usage_error(call, "coords must be a real double N x 3 matrix (N = %lld, the columns of X), one voxel (i, j, k) per row",
                (long long)n);
  if (!mxIsDouble(prhs[3]) || mxIsComplex(prhs[3]) || mxGetNumberOfElements(prhs[3]) != 3)
    usage_error(call, "dims must be 3 doubles, the grid's size (e.g. size(mask))");
  for (axis = 0; axis < 3; ++axis) {
    const double d = mxGetPr(prhs[3])[axis];
    if (!(d == floor(d) && fabs(d) <= 9007199254740992.0)) usage_error(call, "dims(%d) is not a whole number", axis + 1);
    dims[axis] = (int64_t)d;
  }
  rule = parse_rule(prhs[4], prhs[5], &p, call);
  if (a < nrhs && !mxIsStruct(prhs[a])) neighbourhood = integer_arg(prhs[a++], "neighbourhood", call);
  if (a < nrhs - 1 || (a == nrhs - 1 && !mxIsStruct(prhs[a])))
    usage_error(call, "'lfcd': argument %d is not understood (after the neighbourhood comes only an options struct)", a);
  opt = parse_options(a == nrhs - 1 ? prhs[a] : NULL, call);
  if (opt.weights_given || opt.order_given) usage_error(call, "options.weights and options.order do not apply to 'lfcd'");
  /* MATLAB's column-major, 1-based N x 3 to the library's 0-based (i, j, k) rows */
  call->scratch = mxMalloc((size_t)(n > 0 ? 3 * n : 1) * sizeof(int32_t));
  coords = (int32_t*)call->scratch;
  for (v = 0; v < n; ++v)
    for (axis = 0; axis < 3; ++axis) coords[3 * v + axis] = coordinate(mxGetPr(prhs[2])[axis * n + v], v, axis, call) - 1;
  ctx = context_for(&opt, call);
  call->x = upload(ctx, prhs[1], "X", &opt, call);
  call->scratch2 = mxMalloc((size_t)(n > 0 ? n : 1) * sizeof(int64_t));
  check(fc_pcc_lfcd(ctx, call->x, coords, dims, (int)neighbourhood, rule, p, (int64_t*)call->scratch2), call,
        "computing lFCD [fastconn counts from 0: series s is column s+1, voxel (i, j, k) is coords + 1]");
  out = mxCreateDoubleMatrix((mwSize)n, 1, mxREAL);
  for (v = 0; v < n; ++v) mxGetPr(out)[v] = (double)((const int64_t*)call->scratch2)[v];
  release_call(call);
  plhs[0] = out;
}

int lfcd_command(const char* command, int nlhs, mxArray* plhs[], int nrhs, const mxArray* prhs[]) {
  call_state call = {NULL, NULL, NULL, NULL, NULL, NULL, NULL};
  if (strcmp(command, "lfcd") != 0) return 0;
  if (nlhs > 1) usage_error(&call, "'lfcd' returns 1 output, not %d", nlhs);
  lfcd(plhs, nrhs, prhs, &call);
  return 1;
}
