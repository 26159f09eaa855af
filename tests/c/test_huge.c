/* Huge inputs (issue 12): sizes past 2^31 series are refused before anything is read or
 * allocated; a memory limit too small for one tile gives FC_ERR_OUT_OF_MEMORY naming the minimum,
 * and that minimum works; a triangle of more than 2^32 values streams through the pull iterator
 * with exact 64-bit offsets (N = 92,683: 4,295,022,903 pairs, the size where 32-bit tools fail).
 * The last part computes every pair on the CPU backend: with T = 2 each r is exactly +-1 (the
 * product of the two series' slopes' signs), so the values are checked in closed form. */
#include <stdint.h>

#include "check.h"

static int slope_sign(int64_t s) { return ((uint64_t)s * 2654435761u >> 7) & 1u ? 1 : -1; }

/* Value k of the block is r(i, j) = sign(i) sign(j) for the pair its offset names, in its rows. */
static int pair_is_right(int64_t n, const fc_block_info* info, const float* values, int64_t k) {
  int64_t i = -1, j = -1;
  if (fc_triu_pair(n, FC_TRIU_ROW, info->triu_offset + k, &i, &j) != FC_OK) return 0;
  if (i < info->row_begin || i >= info->row_end) return 0;
  return fabsf(values[k] - (float)(slope_sign(i) * slope_sign(j))) <= 1e-6f;
}

int main(void) {
  fc_context* ctx = NULL;
  fc_series* const sentinel = (fc_series*)(uintptr_t)0x5e5e;
  fc_series* s = sentinel;
  const float tiny[4] = {1.0f, 2.0f, 3.0f, 5.0f};
  const double tiny64[4] = {1.0, 2.0, 3.0, 5.0};
  REQUIRE_OK(fc_context_create(FC_BACKEND_CPU, -1, &ctx));

  /* 1. 2^31 series: refused before the data (4 values here) is read. */
  CHECK_STATUS(fc_series_create_f32(ctx, tiny, INT64_C(2147483648), 2, 1, INT64_C(2147483648), &s), FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("2147483648");
  CHECK(s == sentinel);
  CHECK_STATUS(fc_series_create_f64(ctx, tiny64, INT64_MAX / 4, 2, 2, 1, &s), FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("n_series");
  CHECK(s == sentinel);
  /* n_series x n_time past what can be addressed (each alone is allowed) */
  CHECK_STATUS(fc_series_create_f32(ctx, tiny, INT64_C(1) << 30, INT64_C(1) << 40, INT64_C(1) << 40, 1, &s),
               FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("exceed");
  CHECK(s == sentinel);

  /* 2. A memory limit below one tile's row: FC_ERR_OUT_OF_MEMORY naming the bytes it needs,
   *    and a limit of exactly that many bytes works. */
  {
    enum { N = 3001, T = 20 };
    double* x = (double*)check_malloc(sizeof(double) * N * T);
    float* r = (float*)check_malloc(sizeof(float) * (size_t)fc_triu_size(N));
    const char* text;
    long long needed = -1;
    check_fmri_like(x, N, T, 7);
    s = NULL;
    REQUIRE_OK(fc_series_create_f64(ctx, x, N, T, T, 1, &s));
    REQUIRE_OK(fc_context_set_memory_limit(ctx, 4096));
    CHECK_STATUS(fc_pcc_triu(ctx, s, FC_TRIU_ROW, r, fc_triu_size(N)), FC_ERR_OUT_OF_MEMORY);
    CHECK_ERROR_MENTIONS("4096");
    text = strstr(fc_last_error(), "below the ");
    CHECK(text != NULL);
    if (text != NULL) needed = strtoll(text + strlen("below the "), NULL, 10);
    CHECK(needed > 4096);
    if (needed > 4096) {
      REQUIRE_OK(fc_context_set_memory_limit(ctx, (int64_t)needed));
      CHECK_OK(fc_pcc_triu(ctx, s, FC_TRIU_ROW, r, fc_triu_size(N)));
    }
    REQUIRE_OK(fc_context_set_memory_limit(ctx, 0));
    fc_series_destroy(s);
    free(r);
    free(x);
  }

  /* 3. More than 2^32 values through the pull iterator. */
  {
    const int64_t n = 92683, pairs = fc_triu_size(n);
    double* x = (double*)check_malloc(sizeof(double) * (size_t)n * 2);
    fc_blocks* it = NULL;
    fc_block_info info;
    float* buf;
    int64_t max_count = 0, next_offset = 0, blocks = 0, bad = 0, i;
    fc_status st;
    CHECK(pairs > (INT64_C(1) << 32));
    for (i = 0; i < n; ++i) { /* series i: (0, +-(1 + i % 7)), R layout */
      x[2 * i] = 0.0;
      x[2 * i + 1] = slope_sign(i) * (1.0 + (double)(i % 7));
    }
    s = NULL;
    REQUIRE_OK(fc_series_create_f64(ctx, x, n, 2, 2, 1, &s));
    REQUIRE_OK(fc_pcc_blocks_begin(ctx, s, 0, &it));
    REQUIRE_OK(fc_blocks_max_count(it, &max_count));
    buf = (float*)check_malloc(sizeof(float) * (size_t)max_count);
    while ((st = fc_blocks_next(it, buf, max_count, &info)) == FC_OK) {
      int64_t k;
      ++blocks;
      if (info.triu_offset != next_offset) ++bad;
      next_offset = info.triu_offset + info.count;
      /* closed form at every 4099th pair and the block's last: the offset <-> pair arithmetic
       * past 2^32 and the values */
      for (k = 0; k < info.count; k += 4099) bad += !pair_is_right(n, &info, buf, k);
      bad += !pair_is_right(n, &info, buf, info.count - 1);
    }
    CHECK(st == FC_DONE);
    CHECK(next_offset == pairs);
    CHECK(bad == 0);
    CHECK(blocks > 1);
    fprintf(stderr, "%lld pairs in %lld blocks of at most %lld values, last offset %lld\n", (long long)pairs,
            (long long)blocks, (long long)max_count, (long long)next_offset);
    fc_blocks_destroy(it);
    fc_series_destroy(s);
    free(buf);
    free(x);
  }

  fc_context_destroy(ctx);
  return check_report();
}
