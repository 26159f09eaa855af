/* test_front_doors.c - the three front doors of the row-ordered triangle agree bit for bit:
 * fc_pcc_triu, the concatenated blocks of fc_blocks_next, and the blocks passed to the
 * fc_pcc_blocks_foreach callback, for several rows_per_block (1, small, 0 = automatic, N - 1,
 * N, > N) and under a memory limit; plus the short-buffer retry of fc_blocks_next. */
#include "check.h"

enum { N = 37, T = 120 };
static double x[N * T];
static float whole[N * (N - 1) / 2]; /* fc_pcc_triu, row order: the reference of this file */
static const int64_t pairs = N * (N - 1) / 2;

/* The invariants of one block delivered after `previous` (rows_per_block 0 = automatic). */
static void check_block(const fc_block_info* info, const fc_block_info* previous, int64_t rows_per_block) {
  CHECK(info->row_begin == previous->row_end);
  CHECK(info->row_end > info->row_begin && info->row_end <= N - 1);
  if (rows_per_block > 0) CHECK(info->row_end - info->row_begin <= rows_per_block);
  CHECK(info->triu_offset == fc_triu_offset(N, FC_TRIU_ROW, info->row_begin, info->row_begin + 1));
  CHECK(info->triu_offset == previous->triu_offset + previous->count);
  /* rows i in [row_begin, row_end) hold N-1-i pairs each */
  CHECK(info->count == (info->row_end - info->row_begin) * (2 * N - info->row_begin - info->row_end - 1) / 2);
}

/* Pull: every block, in order, equal to its slice of the whole triangle; returns the block count. */
static float joined[N * (N - 1) / 2]; /* the last pull's blocks, joined */

static int pull(fc_context* ctx, fc_series* s, int64_t rows_per_block) {
  fc_blocks* blocks = NULL;
  fc_block_info info, previous = {0, 0, 0, 0};
  int64_t max_count = -1;
  float* buf;
  fc_status status;
  int n_blocks = 0;
  REQUIRE_OK(fc_pcc_blocks_begin(ctx, s, rows_per_block, &blocks));
  CHECK_OK(fc_blocks_max_count(blocks, &max_count));
  CHECK(max_count > 0 && max_count <= pairs);
  buf = (float*)check_malloc(sizeof(float) * (size_t)max_count);
  check_fill_sentinel(joined, pairs);
  while ((status = fc_blocks_next(blocks, buf, max_count, &info)) == FC_OK) {
    check_block(&info, &previous, rows_per_block);
    CHECK(info.count <= max_count);
    if (info.triu_offset + info.count <= pairs) memcpy(joined + info.triu_offset, buf, sizeof(float) * (size_t)info.count);
    previous = info;
    ++n_blocks;
  }
  CHECK(status == FC_DONE);
  CHECK(info.count == 0);
  CHECK(previous.row_end == N - 1 && previous.triu_offset + previous.count == pairs);
  CHECK_SAME_BITS(joined, whole, pairs, "fc_blocks_next blocks vs fc_pcc_triu");
  /* a finished iterator stays finished */
  CHECK_STATUS(fc_blocks_next(blocks, buf, max_count, &info), FC_DONE);
  CHECK(info.count == 0);
  free(buf);
  fc_blocks_destroy(blocks);
  return n_blocks;
}

typedef struct push_state {
  float joined[N * (N - 1) / 2];
  fc_block_info previous;
  int64_t rows_per_block;
  int calls;
} push_state;

static int on_block(const fc_block_info* info, const float* values, void* user) {
  push_state* p = (push_state*)user;
  check_block(info, &p->previous, p->rows_per_block);
  if (info->triu_offset + info->count <= pairs)
    memcpy(p->joined + info->triu_offset, values, sizeof(float) * (size_t)info->count);
  p->previous = *info;
  ++p->calls;
  return 0;
}

/* Push: the callback sees the same blocks as the pull loop it is built on (compared with the
 * last pull's result) and as fc_pcc_triu; returns the block count. */
static int push(fc_context* ctx, fc_series* s, int64_t rows_per_block) {
  static push_state p;
  memset(&p, 0, sizeof p);
  p.rows_per_block = rows_per_block;
  check_fill_sentinel(p.joined, pairs);
  CHECK_OK(fc_pcc_blocks_foreach(ctx, s, rows_per_block, on_block, &p));
  CHECK(p.previous.row_end == N - 1);
  CHECK_SAME_BITS(p.joined, joined, pairs, "fc_pcc_blocks_foreach blocks vs fc_blocks_next blocks");
  CHECK_SAME_BITS(p.joined, whole, pairs, "fc_pcc_blocks_foreach blocks vs fc_pcc_triu");
  return p.calls;
}

static void agree(fc_context* ctx, fc_series* s, int64_t rows_per_block, int expected_blocks) {
  const int pulled = pull(ctx, s, rows_per_block);
  const int pushed = push(ctx, s, rows_per_block);
  CHECK(pulled == pushed);
  if (expected_blocks > 0 && pulled != expected_blocks) {
    ++check_failures;
    fprintf(stderr, "rows_per_block %ld: %d blocks, expected %d\n", (long)rows_per_block, pulled, expected_blocks);
  }
}

/* A buffer one value short: FC_ERR_BUFFER_TOO_SMALL, info describes the block, the buffer is
 * untouched, the iterator does not advance, and a retry with enough room delivers that block. */
static void short_buffer_retry(fc_context* ctx, fc_series* s) {
  static float buf[N * (N - 1) / 2];
  fc_blocks* blocks = NULL;
  fc_block_info info;
  int round;
  REQUIRE_OK(fc_pcc_blocks_begin(ctx, s, 4, &blocks));
  for (round = 0; round < 2; ++round) { /* the first block, and one in the middle of the stream */
    const int64_t row = 4 * round;
    const int64_t count = 4 * (2 * N - 2 * row - 4 - 1) / 2; /* rows row..row+3 */
    memset(&info, 0, sizeof info);
    check_fill_sentinel(buf, pairs);
    CHECK_STATUS(fc_blocks_next(blocks, buf, count - 1, &info), FC_ERR_BUFFER_TOO_SMALL);
    CHECK(check_all_sentinel(buf, pairs));
    CHECK(info.row_begin == row && info.row_end == row + 4 && info.count == count);
    CHECK(info.triu_offset == fc_triu_offset(N, FC_TRIU_ROW, row, row + 1));
    CHECK_STATUS(fc_blocks_next(blocks, buf, 0, &info), FC_ERR_BUFFER_TOO_SMALL);
    CHECK(check_all_sentinel(buf, pairs));
    CHECK_OK(fc_blocks_next(blocks, buf, count, &info));
    CHECK(info.row_begin == row && info.count == count);
    CHECK_SAME_BITS(buf, whole + info.triu_offset, count, "block after a short-buffer retry vs fc_pcc_triu");
    CHECK(check_all_sentinel(buf + count, pairs - count));
  }
  fc_blocks_destroy(blocks);
}

int main(void) {
  fc_context* ctx = NULL;
  fc_series* s = NULL;
  static float again[N * (N - 1) / 2];
  check_fmri_like(x, N, T, 3);
  check_make_cpu(x, N, T, &ctx, &s);
  REQUIRE_OK(fc_pcc_triu(ctx, s, FC_TRIU_ROW, whole, pairs));
  /* the same call twice gives the same bits */
  REQUIRE_OK(fc_pcc_triu(ctx, s, FC_TRIU_ROW, again, pairs));
  CHECK_SAME_BITS(again, whole, pairs, "fc_pcc_triu run twice");

  agree(ctx, s, 1, N - 1);
  agree(ctx, s, 2, (N - 1 + 1) / 2);
  agree(ctx, s, 5, (N - 1 + 4) / 5);
  agree(ctx, s, 0, 0);
  agree(ctx, s, N - 1, 1);
  agree(ctx, s, N, 1);
  agree(ctx, s, 1000, 1);
  short_buffer_retry(ctx, s);

  /* A memory limit of a few rows: the automatic block size follows it (several blocks), and
   * the values stay bit-identical, through all three doors. */
  REQUIRE_OK(fc_context_set_memory_limit(ctx, (int64_t)sizeof(float) * N * 3));
  REQUIRE_OK(fc_pcc_triu(ctx, s, FC_TRIU_ROW, again, pairs));
  CHECK_SAME_BITS(again, whole, pairs, "fc_pcc_triu under a memory limit vs unlimited");
  CHECK(pull(ctx, s, 0) > 1);
  agree(ctx, s, 0, 0);
  agree(ctx, s, 7, (N - 1 + 6) / 7);

  fc_series_destroy(s);
  fc_context_destroy(ctx);
  return check_report();
}
