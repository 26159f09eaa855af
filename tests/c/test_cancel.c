/* test_cancel.c - progress reports and cancellation: the progress callback sees monotone
 * progress up to the total and a non-zero return stops triu, dense, cross and fc_blocks_next
 * with FC_ERR_ABORTED at once; a non-zero return from the foreach callback stops the loop the
 * same way; afterwards the context computes normally again. */
#include "check.h"

enum { N = 80, T = 32, ROWS_PER_TILE = 8 };
static double x[N * T];

typedef struct progress_log {
  int calls;
  int cancel_at; /* return non-zero on this call (1-based); 0 = never */
  int64_t last_done, total;
  int monotone;
} progress_log;

static int on_progress(int64_t done, int64_t total, void* user) {
  progress_log* log = (progress_log*)user;
  ++log->calls;
  if (done <= log->last_done || done > total || (log->total != 0 && total != log->total)) log->monotone = 0;
  log->last_done = done;
  log->total = total;
  return log->cancel_at != 0 && log->calls >= log->cancel_at;
}

static void reset(progress_log* log, int cancel_at) {
  memset(log, 0, sizeof *log);
  log->cancel_at = cancel_at;
  log->last_done = -1;
  log->monotone = 1;
}

typedef struct block_log { int calls, stop_at; } block_log;

static int on_block(const fc_block_info* info, const float* values, void* user) {
  block_log* log = (block_log*)user;
  (void)info;
  (void)values;
  return ++log->calls >= log->stop_at;
}

int main(void) {
  static float out[N * N], reference[N * N];
  static double out64[N * N];
  const int64_t pairs = fc_triu_size(N);
  fc_context* ctx = NULL;
  fc_series* s = NULL;
  fc_blocks* blocks = NULL;
  fc_block_info info;
  progress_log log;
  block_log blocks_log;

  check_fmri_like(x, N, T, 4);
  check_make_cpu(x, N, T, &ctx, &s);
  /* a memory limit of a few rows splits every computation into several progress steps */
  REQUIRE_OK(fc_context_set_memory_limit(ctx, (int64_t)sizeof(float) * N * ROWS_PER_TILE));
  REQUIRE_OK(fc_pcc_triu(ctx, s, FC_TRIU_ROW, reference, pairs)); /* same settings, no callback */
  REQUIRE_OK(fc_context_set_progress(ctx, on_progress, &log));

  /* uncancelled: several monotone reports, the last one at the total */
  reset(&log, 0);
  CHECK_OK(fc_pcc_triu(ctx, s, FC_TRIU_ROW, out, pairs));
  CHECK(log.calls > 1 && log.monotone);
  CHECK(log.total == pairs && log.last_done == pairs);
  CHECK_SAME_BITS(out, reference, pairs, "with a progress callback vs without");
  reset(&log, 0);
  CHECK_OK(fc_pcc_dense(ctx, s, out, N));
  CHECK(log.calls > 1 && log.monotone && log.last_done == log.total);

  /* cancelled on the second report: FC_ERR_ABORTED, and no further report */
  reset(&log, 2);
  CHECK_STATUS(fc_pcc_triu(ctx, s, FC_TRIU_ROW, out, pairs), FC_ERR_ABORTED);
  CHECK(log.calls == 2);
  CHECK_ERROR_MENTIONS("cancel");
  reset(&log, 2);
  CHECK_STATUS(fc_pcc_triu(ctx, s, FC_TRIU_COL, out, pairs), FC_ERR_ABORTED);
  CHECK(log.calls == 2);
  reset(&log, 2);
  CHECK_STATUS(fc_pcc_triu_f64(ctx, s, FC_TRIU_ROW, out64, pairs), FC_ERR_ABORTED);
  reset(&log, 1);
  CHECK_STATUS(fc_pcc_dense(ctx, s, out, N), FC_ERR_ABORTED);
  CHECK(log.calls == 1);
  reset(&log, 3);
  CHECK_STATUS(fc_pcc_cross(ctx, s, s, out, N), FC_ERR_ABORTED);
  CHECK(log.calls == 3);

  /* the pull iterator: a block whose progress report cancels gives FC_ERR_ABORTED */
  REQUIRE_OK(fc_pcc_blocks_begin(ctx, s, 2 * ROWS_PER_TILE, &blocks));
  reset(&log, 0);
  CHECK_OK(fc_blocks_next(blocks, out, N * N, &info));
  CHECK(log.calls > 0 && log.total == pairs && log.last_done == info.count);
  reset(&log, 1);
  CHECK_STATUS(fc_blocks_next(blocks, out, N * N, &info), FC_ERR_ABORTED);
  CHECK(log.calls == 1);
  fc_blocks_destroy(blocks);

  /* the progress callback also cancels fc_pcc_blocks_foreach */
  reset(&log, 1);
  blocks_log.calls = 0;
  blocks_log.stop_at = 1000;
  CHECK_STATUS(fc_pcc_blocks_foreach(ctx, s, 2 * ROWS_PER_TILE, on_block, &blocks_log), FC_ERR_ABORTED);
  CHECK(blocks_log.calls == 0);

  /* the foreach callback returning non-zero on the second block stops the loop there */
  REQUIRE_OK(fc_context_set_progress(ctx, NULL, NULL));
  blocks_log.calls = 0;
  blocks_log.stop_at = 2;
  CHECK_STATUS(fc_pcc_blocks_foreach(ctx, s, 5, on_block, &blocks_log), FC_ERR_ABORTED);
  CHECK(blocks_log.calls == 2);
  CHECK_ERROR_MENTIONS("callback");

  /* after all the cancellations the context computes the same bits as before */
  CHECK_OK(fc_pcc_triu(ctx, s, FC_TRIU_ROW, out, pairs));
  CHECK_SAME_BITS(out, reference, pairs, "after the cancellations vs before");

  fc_series_destroy(s);
  fc_context_destroy(ctx);
  return check_report();
}
