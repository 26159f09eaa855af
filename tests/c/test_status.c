/* test_status.c - every error status the CPU backend can reach besides FC_ERR_NULL_ARG (see
 * test_null_args.c): invalid enums and ranges, bad strides and shapes, NaN/Inf naming the series,
 * short outputs left untouched, an unavailable backend, a memory limit below one row, and series
 * used with a context that did not create them. */
#include "check.h"

enum { N = 12, T = 50 };
static double x[N * T]; /* T x N column-major: series s is x[s*T .. s*T+T-1] */

static void invalid_settings(fc_context* ctx) {
  fc_context* other = NULL;
  fc_precision p = FC_PRECISION_FP32;
  CHECK_STATUS(fc_context_create((fc_backend)3, -1, &other), FC_ERR_INVALID_ARG);
  CHECK_STATUS(fc_context_create((fc_backend)-1, -1, &other), FC_ERR_INVALID_ARG);
  CHECK_STATUS(fc_context_create(FC_BACKEND_CPU, -2, &other), FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("-2");
  CHECK(other == NULL);
  CHECK_STATUS(fc_context_set_precision(ctx, (fc_precision)3), FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("3");
  CHECK_OK(fc_context_get_precision(ctx, &p));
  CHECK(p == FC_PRECISION_FP32); /* the failed call changed nothing */
  CHECK_STATUS(fc_context_set_constant_policy(ctx, (fc_constant_policy)2), FC_ERR_INVALID_ARG);
  CHECK_STATUS(fc_context_set_memory_limit(ctx, -1), FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("-1");
  CHECK_STATUS(fc_context_set_threads(ctx, -1), FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("-1");
  /* the valid values are accepted */
  CHECK_OK(fc_context_set_memory_limit(ctx, 0));
  CHECK_OK(fc_context_set_threads(ctx, 0));
  CHECK_OK(fc_context_set_constant_policy(ctx, FC_CONSTANT_NAN));
}

static void invalid_shapes(fc_context* ctx) {
  fc_series* s = NULL;
  CHECK_STATUS(fc_series_create_f64(ctx, x, 0, T, T, 1, &s), FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("n_series");
  CHECK_STATUS(fc_series_create_f64(ctx, x, -3, T, T, 1, &s), FC_ERR_INVALID_ARG);
  CHECK_STATUS(fc_series_create_f64(ctx, x, N, 1, T, 1, &s), FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("n_time");
  CHECK_STATUS(fc_series_create_f64(ctx, x, N, 0, T, 1, &s), FC_ERR_INVALID_ARG);
  CHECK_STATUS(fc_series_create_f64(ctx, x, N, T, 0, 1, &s), FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("stride");
  CHECK_STATUS(fc_series_create_f64(ctx, x, N, T, T, 0, &s), FC_ERR_INVALID_ARG);
  CHECK_STATUS(fc_series_create_f64(ctx, x, N, T, -T, 1, &s), FC_ERR_INVALID_ARG);
  CHECK_STATUS(fc_series_create_f64(ctx, x, N, T, T, -1, &s), FC_ERR_INVALID_ARG);
  /* overlapping layouts: neither dimension nests inside the other */
  CHECK_STATUS(fc_series_create_f64(ctx, x, N, T, 1, 1, &s), FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("overlap");
  CHECK_STATUS(fc_series_create_f64(ctx, x, N, T, T - 1, 1, &s), FC_ERR_INVALID_ARG);
  CHECK_STATUS(fc_series_create_f64(ctx, x, N, T - 1, 1, N - 1, &s), FC_ERR_INVALID_ARG);
  CHECK(s == NULL);
  /* the smallest valid shapes: 1 series (no pairs), 2 time points */
  CHECK_OK(fc_series_create_f64(ctx, x, 1, T, T, 1, &s));
  fc_series_destroy(s);
  s = NULL;
  CHECK_OK(fc_series_create_f64(ctx, x, N, 2, T, 1, &s));
  fc_series_destroy(s);
}

/* NaN or Inf is an error naming the first bad series and time point, in either layout. */
static void nonfinite(fc_context* ctx) {
  static double bad[N * T];
  static float badf[N * T];
  fc_series* s = NULL;
  int k;
  memcpy(bad, x, sizeof bad);
  bad[7 * T + 13] = NAN; /* series 7, time 13 in the T x N layout */
  CHECK_STATUS(fc_series_create_f64(ctx, bad, N, T, T, 1, &s), FC_ERR_NONFINITE_INPUT);
  CHECK_ERROR_MENTIONS("series 7 ");
  CHECK_ERROR_MENTIONS("time point 13");
  CHECK(s == NULL);
  /* the same element seen as numpy (T, N) C order: element (series 13, time 7) */
  CHECK_STATUS(fc_series_create_f64(ctx, bad, T, N, 1, T, &s), FC_ERR_NONFINITE_INPUT);
  CHECK_ERROR_MENTIONS("series 13 ");
  CHECK_ERROR_MENTIONS("time point 7");
  for (k = 0; k < N * T; ++k) badf[k] = (float)x[k];
  badf[3 * T + T - 1] = INFINITY; /* the last sample of series 3 */
  CHECK_STATUS(fc_series_create_f32(ctx, badf, N, T, T, 1, &s), FC_ERR_NONFINITE_INPUT);
  CHECK_ERROR_MENTIONS("series 3 ");
  badf[3 * T + T - 1] = (float)x[3 * T + T - 1];
  badf[(N - 1) * T] = -INFINITY; /* the first sample of the last series */
  CHECK_STATUS(fc_series_create_f32(ctx, badf, N, T, T, 1, &s), FC_ERR_NONFINITE_INPUT);
  CHECK_ERROR_MENTIONS("series 11 ");
  CHECK(s == NULL);
}

/* Short capacities and leading dimensions: an error, and not one element of the buffer written. */
static void short_outputs(fc_context* ctx, fc_series* s) {
  const int64_t pairs = fc_triu_size(N);
  static float buf[N * N + 8];
  static double buf64[N * N + 8];
  const double sentinel64 = -54321.25;
  int k, order, ok64 = 1;
  for (order = 0; order < 2; ++order) {
    check_fill_sentinel(buf, N * N + 8);
    CHECK_STATUS(fc_pcc_triu(ctx, s, (fc_triu_order)order, buf, pairs - 1), FC_ERR_BUFFER_TOO_SMALL);
    CHECK_ERROR_MENTIONS("65"); /* the needed count, N(N-1)/2 = 66, and the given 65 */
    CHECK_ERROR_MENTIONS("66");
    CHECK_STATUS(fc_pcc_triu(ctx, s, (fc_triu_order)order, buf, 0), FC_ERR_BUFFER_TOO_SMALL);
    CHECK_STATUS(fc_pcc_triu(ctx, s, (fc_triu_order)order, buf, -1), FC_ERR_BUFFER_TOO_SMALL);
    CHECK(check_all_sentinel(buf, N * N + 8));
    /* exactly enough: the pairs are written, nothing past them */
    CHECK_OK(fc_pcc_triu(ctx, s, (fc_triu_order)order, buf, pairs));
    CHECK(!check_all_sentinel(buf, 1));
    CHECK(check_all_sentinel(buf + pairs, N * N + 8 - pairs));
  }
  for (k = 0; k < N * N + 8; ++k) buf64[k] = sentinel64;
  CHECK_STATUS(fc_pcc_triu_f64(ctx, s, FC_TRIU_ROW, buf64, pairs - 1), FC_ERR_BUFFER_TOO_SMALL);
  for (k = 0; k < N * N + 8; ++k) ok64 = ok64 && memcmp(&buf64[k], &sentinel64, sizeof sentinel64) == 0;
  CHECK(ok64);
  CHECK_STATUS(fc_pcc_triu(ctx, s, (fc_triu_order)2, buf, pairs), FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("order");

  check_fill_sentinel(buf, N * N + 8);
  CHECK_STATUS(fc_pcc_dense(ctx, s, buf, N - 1), FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("ld");
  CHECK_STATUS(fc_pcc_cross(ctx, s, s, buf, N - 1), FC_ERR_INVALID_ARG);
  CHECK(check_all_sentinel(buf, N * N + 8));
  for (k = 0; k < N * N + 8; ++k) buf64[k] = sentinel64;
  CHECK_STATUS(fc_pcc_dense_f64(ctx, s, buf64, N - 1), FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("ld");
  CHECK_STATUS(fc_pcc_cross_f64(ctx, s, s, buf64, N - 1), FC_ERR_INVALID_ARG);
  ok64 = 1;
  for (k = 0; k < N * N + 8; ++k) ok64 = ok64 && memcmp(&buf64[k], &sentinel64, sizeof sentinel64) == 0;
  CHECK(ok64);
}

static void series_queries(fc_series* s) {
  int flag = -1;
  int64_t n = 0, t = 0, c = -1;
  CHECK_OK(fc_series_info(s, &n, &t, &c));
  CHECK(n == N && t == T && c == 0);
  CHECK_STATUS(fc_series_is_constant(s, -1, &flag), FC_ERR_INVALID_ARG);
  CHECK_STATUS(fc_series_is_constant(s, N, &flag), FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("12");
  CHECK(flag == -1);
  CHECK_OK(fc_series_is_constant(s, N - 1, &flag));
  CHECK(flag == 0);
}

/* Cross correlation needs equal n_time and equal precision; rows_per_block must be >= 0. */
static void inconsistent_arguments(fc_context* ctx, fc_series* s) {
  static float buf[N * N];
  fc_series* shorter = NULL;
  fc_series* fp64 = NULL;
  fc_blocks* blocks = NULL;
  REQUIRE_OK(fc_series_create_f64(ctx, x, N, T - 1, T, 1, &shorter));
  check_fill_sentinel(buf, N * N);
  CHECK_STATUS(fc_pcc_cross(ctx, s, shorter, buf, N), FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("time points");
  REQUIRE_OK(fc_context_set_precision(ctx, FC_PRECISION_FP64));
  REQUIRE_OK(fc_series_create_f64(ctx, x, N, T, T, 1, &fp64));
  REQUIRE_OK(fc_context_set_precision(ctx, FC_PRECISION_FP32));
  CHECK_STATUS(fc_pcc_cross(ctx, s, fp64, buf, N), FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("precision");
  CHECK(check_all_sentinel(buf, N * N));
  CHECK_STATUS(fc_pcc_blocks_begin(ctx, s, -1, &blocks), FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("rows_per_block");
  CHECK(blocks == NULL);
  fc_series_destroy(shorter);
  fc_series_destroy(fp64);
}

/* CUDA without a device is unavailable and AUTO then runs on the CPU; with a GPU (the GPU
 * machine) CUDA must work and AUTO must choose it. */
static void backends(void) {
  fc_context* cuda = NULL;
  fc_context* automatic = NULL;
  fc_backend chosen = FC_BACKEND_AUTO;
  const fc_status cuda_status = fc_context_create(FC_BACKEND_CUDA, -1, &cuda);
  REQUIRE_OK(fc_context_create(FC_BACKEND_AUTO, -1, &automatic));
  CHECK_OK(fc_context_get_backend(automatic, &chosen));
  if (!fc_has_cuda()) CHECK(cuda_status == FC_ERR_BACKEND_UNAVAILABLE);
  if (cuda_status == FC_OK) {
    fprintf(stderr, "note: a CUDA device is usable here; AUTO must pick it\n");
    CHECK(chosen == FC_BACKEND_CUDA);
  } else {
    CHECK(cuda_status == FC_ERR_BACKEND_UNAVAILABLE);
    CHECK(cuda == NULL);
    CHECK(chosen == FC_BACKEND_CPU);
  }
  fc_context_destroy(cuda);
  fc_context_destroy(automatic);
  cuda = NULL;
  /* no machine has device 4096 */
  CHECK_STATUS(fc_context_create(FC_BACKEND_CUDA, 4096, &cuda), FC_ERR_BACKEND_UNAVAILABLE);
  CHECK(cuda == NULL);
}

/* A memory limit below one row of work: FC_ERR_OUT_OF_MEMORY from every computation, naming the
 * limit, and the outputs untouched. Raising the limit makes the same calls work. */
static void memory_limit(fc_context* ctx, fc_series* s) {
  static float buf[N * N];
  fc_blocks* blocks = NULL;
  fc_block_info info;
  REQUIRE_OK(fc_pcc_blocks_begin(ctx, s, 3, &blocks));
  CHECK_OK(fc_context_set_memory_limit(ctx, 1));
  check_fill_sentinel(buf, N * N);
  CHECK_STATUS(fc_pcc_triu(ctx, s, FC_TRIU_ROW, buf, N * N), FC_ERR_OUT_OF_MEMORY);
  CHECK_ERROR_MENTIONS("memory limit of 1 bytes");
  CHECK_STATUS(fc_pcc_triu(ctx, s, FC_TRIU_COL, buf, N * N), FC_ERR_OUT_OF_MEMORY);
  CHECK_STATUS(fc_pcc_dense(ctx, s, buf, N), FC_ERR_OUT_OF_MEMORY);
  CHECK_STATUS(fc_pcc_cross(ctx, s, s, buf, N), FC_ERR_OUT_OF_MEMORY);
  CHECK_STATUS(fc_blocks_next(blocks, buf, N * N, &info), FC_ERR_OUT_OF_MEMORY);
  CHECK(check_all_sentinel(buf, N * N));
  CHECK_OK(fc_context_set_memory_limit(ctx, 0));
  CHECK_OK(fc_pcc_triu(ctx, s, FC_TRIU_ROW, buf, N * N));
  CHECK_OK(fc_blocks_next(blocks, buf, N * N, &info)); /* the iterator did not advance */
  CHECK(info.row_begin == 0);
  fc_blocks_destroy(blocks);
}

/* A series belongs to the context that created it. */
static void foreign_series(fc_context* ctx, fc_series* s) {
  static float buf[N * N];
  fc_context* other = NULL;
  fc_series* foreign = NULL;
  fc_blocks* blocks = NULL;
  REQUIRE_OK(fc_context_create(FC_BACKEND_CPU, -1, &other));
  REQUIRE_OK(fc_series_create_f64(other, x, N, T, T, 1, &foreign));
  check_fill_sentinel(buf, N * N);
  CHECK_STATUS(fc_pcc_triu(ctx, foreign, FC_TRIU_ROW, buf, N * N), FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("another context");
  CHECK_STATUS(fc_pcc_dense(ctx, foreign, buf, N), FC_ERR_INVALID_ARG);
  CHECK_STATUS(fc_pcc_cross(ctx, s, foreign, buf, N), FC_ERR_INVALID_ARG);
  CHECK_STATUS(fc_pcc_cross(ctx, foreign, s, buf, N), FC_ERR_INVALID_ARG);
  CHECK_STATUS(fc_pcc_cross(other, s, foreign, buf, N), FC_ERR_INVALID_ARG);
  CHECK_STATUS(fc_pcc_blocks_begin(ctx, foreign, 1, &blocks), FC_ERR_INVALID_ARG);
  CHECK(blocks == NULL);
  CHECK(check_all_sentinel(buf, N * N));
  /* in its own context the foreign series works */
  CHECK_OK(fc_pcc_triu(other, foreign, FC_TRIU_ROW, buf, N * N));
  fc_series_destroy(foreign);
  fc_context_destroy(other);
}

int main(void) {
  fc_context* ctx = NULL;
  fc_series* s = NULL;
  check_fmri_like(x, N, T, 2);
  check_make_cpu(x, N, T, &ctx, &s);
  invalid_settings(ctx);
  invalid_shapes(ctx);
  nonfinite(ctx);
  short_outputs(ctx, s);
  series_queries(s);
  inconsistent_arguments(ctx, s);
  backends();
  memory_limit(ctx, s);
  foreign_series(ctx, s);
  fc_series_destroy(s);
  fc_context_destroy(ctx);
  return check_report();
}
