/* test_constant.c - zero-variance series (a voxel outside the brain): counted by
 * fc_series_info, flagged by fc_series_is_constant, and every pair that involves one is NaN by
 * default or 0 under FC_CONSTANT_ZERO, in the triangle (float and double) and the dense matrix
 * (diagonal included); pairs of ordinary series are unaffected. */
#include "check.h"

enum { N = 7, T = 30 };
static double x[N * T];
static double ref[N * N];

static int is_const(int64_t i) { return i == 2 || i == 5; }

static void check_policy(fc_context* ctx, fc_series* s, fc_constant_policy policy) {
  float row[N * (N - 1) / 2], dense[N * N];
  double row64[N * (N - 1) / 2];
  int64_t i, j;
  int ok = 1;
  REQUIRE_OK(fc_context_set_constant_policy(ctx, policy));
  CHECK_OK(fc_pcc_triu(ctx, s, FC_TRIU_ROW, row, fc_triu_size(N)));
  CHECK_OK(fc_pcc_triu_f64(ctx, s, FC_TRIU_ROW, row64, fc_triu_size(N)));
  CHECK_OK(fc_pcc_dense(ctx, s, dense, N));
  for (i = 0; i < N; ++i)
    for (j = 0; j < N; ++j) {
      const float d = dense[i * N + j];
      if (is_const(i) || is_const(j)) {
        ok = ok && (policy == FC_CONSTANT_NAN ? isnan(d) : d == 0.0f);
        if (i < j) {
          const int64_t k = fc_triu_offset(N, FC_TRIU_ROW, i, j);
          ok = ok && (policy == FC_CONSTANT_NAN ? isnan(row[k]) && isnan(row64[k]) : row[k] == 0.0f && row64[k] == 0.0);
        }
      } else if (i == j) {
        ok = ok && d == 1.0f;
      } else {
        ok = ok && fabs((double)d - ref[i * N + j]) <= 1e-5;
        if (i < j) ok = ok && fabs(row64[fc_triu_offset(N, FC_TRIU_ROW, i, j)] - ref[i * N + j]) <= 1e-5;
      }
    }
  if (!ok) fprintf(stderr, "policy %d: wrong values\n", (int)policy);
  CHECK(ok);
}

int main(void) {
  fc_context* ctx = NULL;
  fc_series* s = NULL;
  int64_t n_constant = -1, k;
  int flag, i;
  check_fmri_like(x, N, T, 7);
  check_reference_dense(x, N, T, ref); /* before the constants go in: those rows are not used */
  for (k = 0; k < T; ++k) {
    x[2 * T + k] = 5.0;
    x[5 * T + k] = -1.0e-3; /* a constant need not be zero */
  }
  check_make_cpu(x, N, T, &ctx, &s);
  CHECK_OK(fc_series_info(s, NULL, NULL, &n_constant));
  CHECK(n_constant == 2);
  for (i = 0; i < N; ++i) {
    flag = -1;
    CHECK_OK(fc_series_is_constant(s, i, &flag));
    CHECK(flag == is_const(i));
  }
  check_policy(ctx, s, FC_CONSTANT_NAN);
  check_policy(ctx, s, FC_CONSTANT_ZERO);
  fc_series_destroy(s);
  fc_context_destroy(ctx);
  return check_report();
}
