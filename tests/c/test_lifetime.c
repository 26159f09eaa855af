/* test_lifetime.c - handles are reference counted: destroying a context before its series and
 * iterators, or a series before its iterator, leaves the survivors usable with the same results.
 * Registered twice: plain, and under valgrind when it is installed (use-after-free shows there). */
#include "check.h"

enum { N = 29, T = 64, ROWS = 3 /* rows per block of every iterator here */ };
static double x[N * T];
static float reference[N * (N - 1) / 2];        /* fc_pcc_triu on a live context */
static float reference_blocks[N * (N - 1) / 2]; /* fc_blocks_next, ROWS rows per block, live context */
static const int64_t pairs = N * (N - 1) / 2;

/* Drains an iterator into a fresh triangle and compares it with the live iterator's result. */
static void drain_and_compare(fc_blocks* blocks) {
  static float joined[N * (N - 1) / 2];
  float buf[N * (N - 1) / 2];
  fc_block_info info;
  fc_status status;
  int64_t covered = 0;
  check_fill_sentinel(joined, pairs);
  while ((status = fc_blocks_next(blocks, buf, pairs, &info)) == FC_OK) {
    memcpy(joined + info.triu_offset, buf, sizeof(float) * (size_t)info.count);
    covered += info.count;
  }
  CHECK(status == FC_DONE);
  CHECK(covered == pairs);
  CHECK_SAME_BITS(joined, reference_blocks, pairs, "iterator that outlived its owners vs a live one");
}

int main(void) {
  fc_context* ctx = NULL;
  fc_series* s = NULL;
  fc_blocks* blocks = NULL;
  int64_t n = 0, t = 0;
  check_fmri_like(x, N, T, 5);

  check_make_cpu(x, N, T, &ctx, &s);
  REQUIRE_OK(fc_pcc_triu(ctx, s, FC_TRIU_ROW, reference, pairs));
  REQUIRE_OK(fc_pcc_blocks_begin(ctx, s, ROWS, &blocks));
  {
    float buf[N * (N - 1) / 2];
    fc_block_info info;
    while (fc_blocks_next(blocks, buf, pairs, &info) == FC_OK)
      memcpy(reference_blocks + info.triu_offset, buf, sizeof(float) * (size_t)info.count);
  }
  fc_blocks_destroy(blocks);
  fc_series_destroy(s);
  fc_context_destroy(ctx);

  /* context destroyed first: the series and the iterator outlive it */
  check_make_cpu(x, N, T, &ctx, &s);
  REQUIRE_OK(fc_pcc_blocks_begin(ctx, s, ROWS, &blocks));
  fc_context_destroy(ctx);
  CHECK_OK(fc_series_info(s, &n, &t, NULL));
  CHECK(n == N && t == T);
  drain_and_compare(blocks);
  fc_blocks_destroy(blocks);
  fc_series_destroy(s);

  /* context and series destroyed, one block already taken: the iterator finishes alone */
  check_make_cpu(x, N, T, &ctx, &s);
  REQUIRE_OK(fc_pcc_blocks_begin(ctx, s, ROWS, &blocks));
  {
    float buf[N * (N - 1) / 2];
    fc_block_info info;
    CHECK_OK(fc_blocks_next(blocks, buf, pairs, &info));
    CHECK_SAME_BITS(buf, reference_blocks, info.count, "first block vs a live iterator's");
  }
  fc_series_destroy(s);
  fc_context_destroy(ctx);
  {
    /* the rest of the triangle, after the first block */
    static float rest[N * (N - 1) / 2];
    float buf[N * (N - 1) / 2];
    fc_block_info info;
    int64_t next = fc_triu_offset(N, FC_TRIU_ROW, ROWS, ROWS + 1);
    memcpy(rest, reference_blocks, sizeof(float) * (size_t)next);
    while (fc_blocks_next(blocks, buf, pairs, &info) == FC_OK) {
      CHECK(info.triu_offset == next);
      memcpy(rest + info.triu_offset, buf, sizeof(float) * (size_t)info.count);
      next += info.count;
    }
    CHECK(next == pairs);
    CHECK_SAME_BITS(rest, reference_blocks, pairs, "iterator finished alone vs a live one");
  }
  fc_blocks_destroy(blocks);

  /* series destroyed before the iterator, the context still alive and used meanwhile */
  check_make_cpu(x, N, T, &ctx, &s);
  REQUIRE_OK(fc_pcc_blocks_begin(ctx, s, ROWS, &blocks));
  fc_series_destroy(s);
  {
    fc_series* other = NULL;
    static float other_out[N * (N - 1) / 2];
    REQUIRE_OK(fc_series_create_f64(ctx, x, N, T, T, 1, &other));
    CHECK_OK(fc_pcc_triu(ctx, other, FC_TRIU_ROW, other_out, pairs));
    CHECK_SAME_BITS(other_out, reference, pairs, "fc_pcc_triu while an iterator holds a destroyed series");
    fc_series_destroy(other);
  }
  drain_and_compare(blocks);
  fc_blocks_destroy(blocks);
  fc_context_destroy(ctx);

  /* two contexts destroyed in creation order, their series in the opposite order */
  {
    fc_context *a = NULL, *b = NULL;
    fc_series *sa = NULL, *sb = NULL;
    check_make_cpu(x, N, T, &a, &sa);
    check_make_cpu(x, N, T, &b, &sb);
    fc_context_destroy(a);
    fc_context_destroy(b);
    CHECK_OK(fc_series_info(sb, &n, NULL, NULL));
    CHECK_OK(fc_series_info(sa, &n, NULL, NULL));
    fc_series_destroy(sb);
    fc_series_destroy(sa);
  }
  return check_report();
}
