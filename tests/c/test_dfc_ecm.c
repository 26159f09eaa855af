/* Time-resolved fast ECM (fc_dfc_ecm, issue 34) through the C header: row k is fc_pcc_ecm of
 * window k (fc_series_window), bit for bit, with rectangular and Gaussian windows, odd sizes,
 * a series constant in one window under both policies; bad window specs, tolerance, capacity and
 * NULLs refused before anything is written. The float64 check against numpy is in
 * bindings/python/tests/test_dfc_ecm.py. */
#include "check.h"

enum { N = 9, T = 61 };

/* fc_dfc_ecm equals fc_pcc_ecm on each window, bit for bit. */
static void check_windows(fc_context* ctx, const fc_series* s, int64_t n, int64_t t, int64_t length, int64_t step,
                          int taper, double sigma) {
  const int64_t w = fc_window_count(t, length, step);
  double* all = (double*)check_malloc((size_t)(w * n) * sizeof(double));
  double* values = (double*)check_malloc((size_t)w * sizeof(double));
  double* one = (double*)check_malloc((size_t)n * sizeof(double));
  int64_t k, i, differ = 0;
  CHECK_OK(fc_dfc_ecm(ctx, s, length, step, taper, sigma, 0, all, w * n, values));
  for (k = 0; k < w; ++k) {
    fc_series* win;
    double lambda = 0;
    REQUIRE_OK(fc_series_window(ctx, s, fc_window_begin(t, length, step, k), length, taper, sigma, &win));
    CHECK_OK(fc_pcc_ecm(ctx, win, 0, one, n, &lambda));
    for (i = 0; i < n; ++i)
      if (memcmp(&one[i], &all[k * n + i], sizeof(double)) != 0) ++differ;
    if (memcmp(&lambda, &values[k], sizeof(double)) != 0) ++differ;
    fc_series_destroy(win);
  }
  CHECK(differ == 0);
  free(all);
  free(values);
  free(one);
}

static void test_same_as_windows(void) {
  double x[N * T];
  fc_context* ctx;
  fc_series* s;
  int64_t i;
  check_fmri_like(x, N, T, 3);
  for (i = 0; i < 15; ++i) x[4 * T + i] = 2.0; /* series 4 constant in the first window of 15 */
  check_make_cpu(x, N, T, &ctx, &s);
  check_windows(ctx, s, N, T, 15, 7, FC_TAPER_RECTANGULAR, 0);
  check_windows(ctx, s, N, T, 20, 3, FC_TAPER_GAUSSIAN, 4.0);
  check_windows(ctx, s, N, T, T, 1, FC_TAPER_RECTANGULAR, 0); /* one window: the whole series */
  { /* the constant series is NaN in window 0 only (FC_CONSTANT_NAN) */
    const int64_t w = fc_window_count(T, 15, 7);
    double* c = (double*)check_malloc((size_t)(w * N) * sizeof(double));
    CHECK_OK(fc_dfc_ecm(ctx, s, 15, 7, FC_TAPER_RECTANGULAR, 0, 0, c, w * N, NULL));
    CHECK(isnan(c[4]) && !isnan(c[N + 4]));
    free(c);
  }
  fc_series_destroy(s);
  REQUIRE_OK(fc_context_set_precision(ctx, FC_PRECISION_FP64));
  REQUIRE_OK(fc_context_set_constant_policy(ctx, FC_CONSTANT_ZERO));
  for (i = 1; i <= 3; ++i) { /* odd sizes */
    REQUIRE_OK(fc_series_create_f64(ctx, x, i, T, T, 1, &s));
    check_windows(ctx, s, i, T, 13, 5, FC_TAPER_RECTANGULAR, 0);
    fc_series_destroy(s);
  }
  REQUIRE_OK(fc_series_create_f64(ctx, x, N, T, T, 1, &s));
  check_windows(ctx, s, N, T, 15, 7, FC_TAPER_RECTANGULAR, 0); /* the constant series stays in, r = 0 */
  fc_series_destroy(s);
  fc_context_destroy(ctx);
}

static void test_bad_input(void) {
  double x[N * T], c[6 * N + 1], e[7];
  fc_context* ctx;
  fc_series* s;
  int64_t i;
  const int64_t w = fc_window_count(T, 15, 9); /* 6 */
  check_fmri_like(x, N, T, 9);
  check_make_cpu(x, N, T, &ctx, &s);
  for (i = 0; i < 6 * N + 1; ++i) c[i] = -7;
  for (i = 0; i < 7; ++i) e[i] = -7;
  CHECK(w == 6);
  CHECK_STATUS(fc_dfc_ecm(NULL, s, 15, 9, FC_TAPER_RECTANGULAR, 0, 0, c, w * N, e), FC_ERR_NULL_ARG);
  CHECK_STATUS(fc_dfc_ecm(ctx, NULL, 15, 9, FC_TAPER_RECTANGULAR, 0, 0, c, w * N, e), FC_ERR_NULL_ARG);
  CHECK_STATUS(fc_dfc_ecm(ctx, s, 15, 9, FC_TAPER_RECTANGULAR, 0, 0, NULL, w * N, e), FC_ERR_NULL_ARG);
  CHECK_ERROR_MENTIONS("centrality");
  CHECK_STATUS(fc_dfc_ecm(ctx, s, 15, 9, FC_TAPER_RECTANGULAR, 0, 0, c, w * N - 1, e), FC_ERR_BUFFER_TOO_SMALL);
  CHECK_ERROR_MENTIONS("53");
  CHECK_STATUS(fc_dfc_ecm(ctx, s, 1, 9, FC_TAPER_RECTANGULAR, 0, 0, c, w * N, e), FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("length");
  CHECK_STATUS(fc_dfc_ecm(ctx, s, T + 1, 9, FC_TAPER_RECTANGULAR, 0, 0, c, w * N, e), FC_ERR_INVALID_ARG);
  CHECK_STATUS(fc_dfc_ecm(ctx, s, 15, 0, FC_TAPER_RECTANGULAR, 0, 0, c, w * N, e), FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("step");
  CHECK_STATUS(fc_dfc_ecm(ctx, s, 15, 9, 5, 0, 0, c, w * N, e), FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("taper");
  CHECK_STATUS(fc_dfc_ecm(ctx, s, 15, 9, FC_TAPER_GAUSSIAN, NAN, 0, c, w * N, e), FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("sigma");
  CHECK_STATUS(fc_dfc_ecm(ctx, s, 15, 9, FC_TAPER_RECTANGULAR, 0, 0.5, c, w * N, e), FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("tolerance");
  for (i = 0; i < 6 * N + 1; ++i) CHECK(c[i] == -7);
  for (i = 0; i < 7; ++i) CHECK(e[i] == -7);
  CHECK_OK(fc_dfc_ecm(ctx, s, 15, 9, FC_TAPER_RECTANGULAR, 0, 0, c, w * N + 1, NULL)); /* no eigenvalues: fine */
  CHECK(c[w * N] == -7);
  fc_series_destroy(s);
  fc_context_destroy(ctx);
}

int main(void) {
  test_same_as_windows();
  test_bad_input();
  return check_report();
}
