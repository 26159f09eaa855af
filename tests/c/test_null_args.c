/* test_null_args.c - every required pointer of every entry point, passed as NULL, gives
 * FC_ERR_NULL_ARG with a message naming the argument, and leaves the other outputs alone. */
#include "check.h"

enum { N = 9, T = 40 };

static int never_called(const fc_block_info* info, const float* values, void* user) {
  (void)info;
  (void)values;
  (void)user;
  return 1;
}

int main(void) {
  static double x[N * T];
  float buf[N * N];
  double buf64[N * N];
  int marker = 0; /* its address stands for "an output the call must not overwrite" */
  fc_context* ctx = NULL;
  fc_series* s = NULL;
  fc_blocks* blocks = NULL;
  fc_backend backend = FC_BACKEND_AUTO;
  fc_precision precision = FC_PRECISION_TF32;
  fc_block_info info;
  int64_t count = -7;
  int flag = -7;

  check_fmri_like(x, N, T, 1);
  check_make_cpu(x, N, T, &ctx, &s);
  REQUIRE_OK(fc_pcc_blocks_begin(ctx, s, 2, &blocks));

  /* context */
  CHECK_STATUS(fc_context_create(FC_BACKEND_CPU, -1, NULL), FC_ERR_NULL_ARG);
  CHECK_ERROR_MENTIONS("out");
  CHECK_STATUS(fc_context_get_backend(NULL, &backend), FC_ERR_NULL_ARG);
  CHECK_ERROR_MENTIONS("ctx");
  CHECK(backend == FC_BACKEND_AUTO);
  CHECK_STATUS(fc_context_get_backend(ctx, NULL), FC_ERR_NULL_ARG);
  CHECK_STATUS(fc_context_set_precision(NULL, FC_PRECISION_FP64), FC_ERR_NULL_ARG);
  CHECK_STATUS(fc_context_get_precision(NULL, &precision), FC_ERR_NULL_ARG);
  CHECK(precision == FC_PRECISION_TF32);
  CHECK_STATUS(fc_context_get_precision(ctx, NULL), FC_ERR_NULL_ARG);
  CHECK_STATUS(fc_context_set_constant_policy(NULL, FC_CONSTANT_ZERO), FC_ERR_NULL_ARG);
  CHECK_STATUS(fc_context_set_memory_limit(NULL, 0), FC_ERR_NULL_ARG);
  CHECK_STATUS(fc_context_set_threads(NULL, 1), FC_ERR_NULL_ARG);
  CHECK_STATUS(fc_context_set_progress(NULL, NULL, NULL), FC_ERR_NULL_ARG);
  CHECK_OK(fc_context_set_progress(ctx, NULL, NULL)); /* fn = NULL is "no callback", not an error */

  /* series */
  {
    fc_series* out = (fc_series*)(void*)&marker;
    float xf[N * T];
    int k;
    for (k = 0; k < N * T; ++k) xf[k] = (float)x[k];
    CHECK_STATUS(fc_series_create_f64(NULL, x, N, T, T, 1, &out), FC_ERR_NULL_ARG);
    CHECK_ERROR_MENTIONS("ctx");
    CHECK_STATUS(fc_series_create_f64(ctx, NULL, N, T, T, 1, &out), FC_ERR_NULL_ARG);
    CHECK_ERROR_MENTIONS("data");
    CHECK_STATUS(fc_series_create_f64(ctx, x, N, T, T, 1, NULL), FC_ERR_NULL_ARG);
    CHECK_STATUS(fc_series_create_f32(NULL, xf, N, T, T, 1, &out), FC_ERR_NULL_ARG);
    CHECK_STATUS(fc_series_create_f32(ctx, NULL, N, T, T, 1, &out), FC_ERR_NULL_ARG);
    CHECK_ERROR_MENTIONS("data");
    CHECK_STATUS(fc_series_create_f32(ctx, xf, N, T, T, 1, NULL), FC_ERR_NULL_ARG);
    CHECK(out == (fc_series*)(void*)&marker);
  }
  CHECK_STATUS(fc_series_info(NULL, &count, NULL, NULL), FC_ERR_NULL_ARG);
  CHECK(count == -7);
  CHECK_OK(fc_series_info(s, NULL, NULL, NULL)); /* every output of fc_series_info is optional */
  CHECK_STATUS(fc_series_is_constant(NULL, 0, &flag), FC_ERR_NULL_ARG);
  CHECK(flag == -7);
  CHECK_STATUS(fc_series_is_constant(s, 0, NULL), FC_ERR_NULL_ARG);

  /* full-array PCC */
  check_fill_sentinel(buf, N * N);
  CHECK_STATUS(fc_pcc_triu(NULL, s, FC_TRIU_ROW, buf, N * N), FC_ERR_NULL_ARG);
  CHECK_ERROR_MENTIONS("ctx");
  CHECK_STATUS(fc_pcc_triu(ctx, NULL, FC_TRIU_ROW, buf, N * N), FC_ERR_NULL_ARG);
  CHECK_ERROR_MENTIONS("series");
  CHECK_STATUS(fc_pcc_triu(ctx, s, FC_TRIU_ROW, NULL, N * N), FC_ERR_NULL_ARG);
  CHECK_ERROR_MENTIONS("out");
  CHECK_STATUS(fc_pcc_triu_f64(NULL, s, FC_TRIU_COL, buf64, N * N), FC_ERR_NULL_ARG);
  CHECK_STATUS(fc_pcc_triu_f64(ctx, NULL, FC_TRIU_COL, buf64, N * N), FC_ERR_NULL_ARG);
  CHECK_STATUS(fc_pcc_triu_f64(ctx, s, FC_TRIU_COL, NULL, N * N), FC_ERR_NULL_ARG);
  CHECK_STATUS(fc_pcc_dense(NULL, s, buf, N), FC_ERR_NULL_ARG);
  CHECK_STATUS(fc_pcc_dense(ctx, NULL, buf, N), FC_ERR_NULL_ARG);
  CHECK_STATUS(fc_pcc_dense(ctx, s, NULL, N), FC_ERR_NULL_ARG);
  CHECK_STATUS(fc_pcc_cross(NULL, s, s, buf, N), FC_ERR_NULL_ARG);
  CHECK_STATUS(fc_pcc_cross(ctx, NULL, s, buf, N), FC_ERR_NULL_ARG);
  CHECK_ERROR_MENTIONS("a");
  CHECK_STATUS(fc_pcc_cross(ctx, s, NULL, buf, N), FC_ERR_NULL_ARG);
  CHECK_ERROR_MENTIONS("b");
  CHECK_STATUS(fc_pcc_cross(ctx, s, s, NULL, N), FC_ERR_NULL_ARG);
  CHECK(check_all_sentinel(buf, N * N));
  CHECK_STATUS(fc_pcc_dense_f64(NULL, s, buf64, N), FC_ERR_NULL_ARG);
  CHECK_STATUS(fc_pcc_dense_f64(ctx, NULL, buf64, N), FC_ERR_NULL_ARG);
  CHECK_STATUS(fc_pcc_dense_f64(ctx, s, NULL, N), FC_ERR_NULL_ARG);
  CHECK_STATUS(fc_pcc_cross_f64(NULL, s, s, buf64, N), FC_ERR_NULL_ARG);
  CHECK_STATUS(fc_pcc_cross_f64(ctx, NULL, s, buf64, N), FC_ERR_NULL_ARG);
  CHECK_STATUS(fc_pcc_cross_f64(ctx, s, NULL, buf64, N), FC_ERR_NULL_ARG);
  CHECK_STATUS(fc_pcc_cross_f64(ctx, s, s, NULL, N), FC_ERR_NULL_ARG);

  /* blocks */
  {
    fc_blocks* out = (fc_blocks*)(void*)&marker;
    CHECK_STATUS(fc_pcc_blocks_begin(NULL, s, 1, &out), FC_ERR_NULL_ARG);
    CHECK_STATUS(fc_pcc_blocks_begin(ctx, NULL, 1, &out), FC_ERR_NULL_ARG);
    CHECK_STATUS(fc_pcc_blocks_begin(ctx, s, 1, NULL), FC_ERR_NULL_ARG);
    CHECK(out == (fc_blocks*)(void*)&marker);
  }
  CHECK_STATUS(fc_blocks_max_count(NULL, &count), FC_ERR_NULL_ARG);
  CHECK(count == -7);
  CHECK_STATUS(fc_blocks_max_count(blocks, NULL), FC_ERR_NULL_ARG);
  CHECK_STATUS(fc_blocks_next(NULL, buf, N * N, &info), FC_ERR_NULL_ARG);
  CHECK_STATUS(fc_blocks_next(blocks, NULL, N * N, &info), FC_ERR_NULL_ARG);
  CHECK_ERROR_MENTIONS("buf");
  CHECK_STATUS(fc_blocks_next(blocks, buf, N * N, NULL), FC_ERR_NULL_ARG);
  CHECK_ERROR_MENTIONS("info");
  CHECK_STATUS(fc_blocks_next_f64(NULL, buf64, N * N, &info), FC_ERR_NULL_ARG);
  CHECK_STATUS(fc_blocks_next_f64(blocks, NULL, N * N, &info), FC_ERR_NULL_ARG);
  CHECK_STATUS(fc_blocks_next_f64(blocks, buf64, N * N, NULL), FC_ERR_NULL_ARG);
  CHECK(check_all_sentinel(buf, N * N));
  /* the failed calls did not advance the iterator: the first block still comes first */
  CHECK_OK(fc_blocks_next(blocks, buf, N * N, &info));
  CHECK(info.row_begin == 0 && info.row_end == 2 && info.triu_offset == 0);
  CHECK_STATUS(fc_pcc_blocks_foreach(ctx, s, 1, NULL, NULL), FC_ERR_NULL_ARG);
  CHECK_ERROR_MENTIONS("fn");
  CHECK_STATUS(fc_pcc_blocks_foreach(NULL, s, 1, never_called, NULL), FC_ERR_NULL_ARG);
  CHECK_STATUS(fc_pcc_blocks_foreach(ctx, NULL, 1, never_called, NULL), FC_ERR_NULL_ARG);

  fc_blocks_destroy(blocks);
  fc_series_destroy(s);
  fc_context_destroy(ctx);
  return check_report();
}
