/* test_compact.c - the compact value formats (fc_value_format): every code of the triangle,
 * dense, blocks and all-windows calls is the nearest code of the float call's r (int16: |code -
 * 32767 r| <= 1/2; half: no half is nearer), so the decoded values are within the documented
 * error (1.53e-5, 2.44e-4) of the FP32 values and of a float64 reference; NaN pairs (constant
 * series) carry the NaN code; the four front doors give the same codes; bad formats, short
 * buffers and NULLs are refused with the buffer untouched; odd sizes N = 1, 2, 3, 37. */
#include "check.h"

enum { T = 300, NMAX = 150 };

/* binary16 bits -> double, written here from the IEEE definition (shares nothing with the library) */
static double half_value(uint16_t h) {
  const int e = (h >> 10) & 31, m = h & 1023;
  const double sign = (h & 0x8000) ? -1.0 : 1.0;
  if (e == 31) return m ? NAN : sign * INFINITY;
  return sign * (e == 0 ? ldexp((double)m, -24) : ldexp((double)(1024 + m), e - 25));
}

/* The next half above h (h positive finite or +0) and below it, as values. */
static int half_is_nearest(uint16_t h, double r) {
  const double v = half_value(h), err = fabs(v - r);
  const uint16_t mag = h & 0x7FFF;
  const double up = half_value((uint16_t)((h & 0x8000) | (mag + 1)));
  const double down = mag == 0 ? -half_value(1) : half_value((uint16_t)((h & 0x8000) | (mag - 1)));
  return err <= fabs(up - r) && err <= fabs(down - r);
}

/* Every code against the values of the same call in double (fc_*_f64: in FP32 mode the float
 * values widened): the nearest code, NaN where r is NaN. */
static void check_codes(const double* r, const void* codes, int64_t count, fc_value_format format, const char* what) {
  int64_t x, bad = 0, first = -1;
  ++check_count;
  for (x = 0; x < count; ++x) {
    int ok;
    if (format == FC_VALUES_INT16) {
      const int16_t c = ((const int16_t*)codes)[x];
      ok = isnan(r[x]) ? c == -32768 : (c != -32768 && fabs((double)c - 32767.0 * r[x]) <= 0.5);
    } else {
      const uint16_t h = ((const uint16_t*)codes)[x];
      ok = isnan(r[x]) ? isnan(half_value(h)) : half_is_nearest(h, r[x]);
    }
    if (!ok) {
      if (first < 0) first = x;
      ++bad;
    }
  }
  if (bad) {
    ++check_failures;
    fprintf(stderr, "%s:%d: FAILED: %s: %ld of %ld codes are not the nearest (first at %ld, r = %.9g)\n", __FILE__,
            __LINE__, what, (long)bad, (long)count, (long)first, r[first]);
  }
}

/* The decoded codes against a float64 reference: |r' - r64| <= the format's error + FP32's 1e-5. */
static void check_against_reference(const void* codes, fc_value_format format, const double* ref, int64_t n,
                                    const uint8_t* constant, const char* what) {
  const double tol = (format == FC_VALUES_INT16 ? 0.5 / 32767.0 : 1.0 / 4096.0) + 1e-5;
  float* decoded = (float*)check_malloc(sizeof(float) * (size_t)(fc_triu_size(n) + 1));
  double worst = 0.0;
  int64_t i, j;
  CHECK_OK(fc_decode_values(format, codes, fc_triu_size(n), decoded));
  for (i = 0; i < n; ++i)
    for (j = i + 1; j < n; ++j) {
      const float v = decoded[fc_triu_offset(n, FC_TRIU_ROW, i, j)];
      if (constant[i] || constant[j]) {
        CHECK(isnan(v));
      } else {
        const double e = fabs((double)v - ref[i * n + j]);
        if (!(e <= worst)) worst = e;
      }
    }
  ++check_count;
  if (!(worst <= tol)) {
    ++check_failures;
    fprintf(stderr, "%s:%d: FAILED: %s: max |decoded - r64| = %.3g > %.3g\n", __FILE__, __LINE__, what, worst, tol);
  }
  free(decoded);
}

typedef struct block_sink { unsigned char* codes; int64_t written; } block_sink;

static int collect(const fc_block_info* info, const void* codes, void* user) {
  block_sink* sink = (block_sink*)user;
  memcpy(sink->codes + info->triu_offset * 2, codes, (size_t)info->count * 2);
  sink->written += info->count;
  return 0;
}

/* All front doors of one format on n series (series `constant_at` made constant, -1: none). */
static void front_doors(fc_precision precision, int64_t n, int64_t constant_at, fc_value_format format) {
  static double x[NMAX * T], ref[NMAX * NMAX];
  static double r[NMAX * NMAX], dense_r[NMAX * NMAX];
  static int16_t codes[NMAX * NMAX], col[NMAX * NMAX], dense[NMAX * NMAX], blocks[NMAX * NMAX], pulled[NMAX * NMAX];
  const int64_t pairs = fc_triu_size(n);
  uint8_t constant[NMAX] = {0};
  fc_context* ctx = NULL;
  fc_series* s = NULL;
  fc_blocks* it = NULL;
  fc_block_info info;
  block_sink sink;
  int64_t i, j, k, at = 0;
  char what[160];

  check_fmri_like(x, n, T, (uint64_t)(n * 7 + format));
  if (constant_at >= 0) {
    for (k = 0; k < T; ++k) x[constant_at * T + k] = 5.0;
    constant[constant_at] = 1;
  }
  check_reference_dense(x, n, T, ref);
  REQUIRE_OK(fc_context_create(FC_BACKEND_CPU, -1, &ctx));
  REQUIRE_OK(fc_context_set_precision(ctx, precision));
  REQUIRE_OK(fc_series_create_f64(ctx, x, n, T, T, 1, &s));
  snprintf(what, sizeof what, "%s N=%ld format %d constant %ld", precision == FC_PRECISION_FP64 ? "FP64" : "FP32",
           (long)n, (int)format, (long)constant_at);

  CHECK_OK(fc_pcc_triu_f64(ctx, s, FC_TRIU_ROW, r, pairs));
  CHECK_OK(fc_pcc_triu_compact(ctx, s, FC_TRIU_ROW, format, codes, pairs));
  check_codes(r, codes, pairs, format, what);
  if (precision == FC_PRECISION_FP32) check_against_reference(codes, format, ref, n, constant, what);

  /* column order: the same codes at the pairs' column-order offsets */
  CHECK_OK(fc_pcc_triu_compact(ctx, s, FC_TRIU_COL, format, col, pairs));
  for (i = 0; i < n; ++i)
    for (j = i + 1; j < n; ++j)
      if (col[fc_triu_offset(n, FC_TRIU_COL, i, j)] != codes[fc_triu_offset(n, FC_TRIU_ROW, i, j)]) ++at;
  CHECK(at == 0);

  /* dense: the triangle's codes above and below the diagonal, the code of 1 (or of the policy) on it */
  CHECK_OK(fc_pcc_dense_f64(ctx, s, dense_r, n));
  CHECK_OK(fc_pcc_dense_compact(ctx, s, format, dense, n));
  check_codes(dense_r, dense, n * n, format, what);
  at = 0;
  for (i = 0; i < n; ++i)
    for (j = 0; j < n; ++j) {
      const int16_t want = i == j ? dense[i * n + j] : codes[fc_triu_offset(n, FC_TRIU_ROW, i, j)];
      if (dense[i * n + j] != want) ++at;
    }
  CHECK(at == 0);
  for (i = 0; i < n; ++i) {
    const int16_t one = format == FC_VALUES_INT16 ? 32767 : 0x3C00;
    if (constant[i]) CHECK(format == FC_VALUES_INT16 ? dense[i * n + i] == -32768 : isnan(half_value((uint16_t)dense[i * n + i])));
    else CHECK(dense[i * n + i] == one);
  }

  /* blocks, pulled (mixed with float blocks on one iterator) and pushed */
  REQUIRE_OK(fc_pcc_blocks_begin(ctx, s, 7, &it));
  at = 0;
  k = 0;
  for (;;) {
    const fc_status st = (k++ % 2 == 0) ? fc_blocks_next_compact(it, format, pulled + at, pairs - at + 1, &info)
                                        : fc_blocks_next_f64(it, r + at, pairs - at + 1, &info);
    if (st != FC_OK) {
      CHECK(st == FC_DONE);
      break;
    }
    if (k % 2 == 0) { /* a float block: the triangle's codes are the nearest to its values */
      for (i = 0; i < info.count; ++i) pulled[at + i] = codes[at + i];
      check_codes(r + at, pulled + at, info.count, format, what);
    }
    at += info.count;
  }
  fc_blocks_destroy(it);
  CHECK(at == pairs);
  CHECK(memcmp(pulled, codes, (size_t)pairs * 2) == 0);
  sink.codes = (unsigned char*)blocks;
  sink.written = 0;
  CHECK_OK(fc_pcc_blocks_foreach_compact(ctx, s, 5, format, collect, &sink));
  CHECK(sink.written == pairs);
  CHECK(memcmp(blocks, codes, (size_t)pairs * 2) == 0);

  fc_series_destroy(s);
  fc_context_destroy(ctx);
}

/* fc_dfc_triu_compact: window k's codes are fc_pcc_triu_compact's of fc_series_window k. */
static void windows(fc_value_format format) {
  enum { N = 23, TW = 120, LEN = 40, STEP = 9 };
  static double x[N * TW];
  const int64_t pairs = fc_triu_size(N), w = fc_window_count(TW, LEN, STEP);
  int16_t* all = (int16_t*)check_malloc(sizeof(int16_t) * (size_t)(w * pairs));
  int16_t* one = (int16_t*)check_malloc(sizeof(int16_t) * (size_t)pairs);
  fc_context* ctx = NULL;
  fc_series *s = NULL, *win = NULL;
  int64_t k, same = 1;
  check_fmri_like(x, N, TW, 99);
  for (k = 0; k < 50; ++k) x[3 * TW + k] = 2.0; /* series 3 constant in the first windows */
  check_make_cpu(x, N, TW, &ctx, &s);
  CHECK_STATUS(fc_dfc_triu_compact(ctx, s, LEN, STEP, FC_TAPER_RECTANGULAR, 0, FC_TRIU_ROW, format, all, w * pairs - 1),
               FC_ERR_BUFFER_TOO_SMALL);
  CHECK_OK(fc_dfc_triu_compact(ctx, s, LEN, STEP, FC_TAPER_RECTANGULAR, 0, FC_TRIU_ROW, format, all, w * pairs));
  for (k = 0; k < w; ++k) {
    REQUIRE_OK(fc_series_window(ctx, s, k * STEP, LEN, FC_TAPER_RECTANGULAR, 0, &win));
    CHECK_OK(fc_pcc_triu_compact(ctx, win, FC_TRIU_ROW, format, one, pairs));
    if (memcmp(one, all + k * pairs, (size_t)pairs * 2) != 0) same = 0;
    fc_series_destroy(win);
  }
  CHECK(same);
  CHECK(all[fc_triu_offset(N, FC_TRIU_ROW, 2, 3)] == (format == FC_VALUES_INT16 ? -32768 : 0x7E00));
  free(all);
  free(one);
  fc_series_destroy(s);
  fc_context_destroy(ctx);
}

/* Known codes decode to known values, in float and double. */
static void decoding(void) {
  const int16_t fixed[] = {32767, -32767, 0, -32768, 1, -1, 16384};
  const uint16_t halves[] = {0x3C00, 0xBC00, 0x0000, 0x8000, 0x7E00, 0x3800, 0x0001, 0x7C00};
  float f[8];
  double d[8];
  CHECK_OK(fc_decode_values(FC_VALUES_INT16, fixed, 7, f));
  CHECK_OK(fc_decode_values_f64(FC_VALUES_INT16, fixed, 7, d));
  CHECK(f[0] == 1.0f && f[1] == -1.0f && f[2] == 0.0f && isnan(f[3]) && isnan(d[3]));
  CHECK(d[4] == 1.0 / 32767.0 && d[5] == -1.0 / 32767.0 && d[6] == 16384.0 / 32767.0);
  CHECK(f[4] == (float)(1.0 / 32767.0) && f[6] == (float)(16384.0 / 32767.0));
  CHECK_OK(fc_decode_values(FC_VALUES_HALF, halves, 8, f));
  CHECK_OK(fc_decode_values_f64(FC_VALUES_HALF, halves, 8, d));
  CHECK(f[0] == 1.0f && f[1] == -1.0f && f[2] == 0.0f && f[3] == 0.0f && signbit(f[3]) && isnan(f[4]));
  CHECK(f[5] == 0.5f && d[6] == ldexp(1.0, -24) && isinf(d[7]));
  CHECK_OK(fc_decode_values(FC_VALUES_HALF, halves, 0, f)); /* count 0 */
}

/* Refusals: the buffer keeps its sentinel. */
static void refusals(void) {
  static double x[9 * T];
  float sentinel[64], r[64];
  fc_context* ctx = NULL;
  fc_series* s = NULL;
  fc_blocks* it = NULL;
  fc_block_info info;
  const int bad_formats[] = {0, 3, 7, -1};
  size_t b;
  check_fmri_like(x, 9, T, 5);
  check_make_cpu(x, 9, T, &ctx, &s);
  for (b = 0; b < sizeof bad_formats / sizeof bad_formats[0]; ++b) {
    const fc_value_format f = (fc_value_format)bad_formats[b];
    char mention[32];
    check_fill_sentinel(sentinel, 64);
    CHECK_STATUS(fc_pcc_triu_compact(ctx, s, FC_TRIU_ROW, f, sentinel, 128), FC_ERR_INVALID_ARG);
    snprintf(mention, sizeof mention, "format %d", bad_formats[b]);
    ++check_count;
    if (strstr(fc_last_error(), mention) == NULL) {
      ++check_failures;
      fprintf(stderr, "%s:%d: FAILED: message does not name %s: %s\n", __FILE__, __LINE__, mention, fc_last_error());
    }
    CHECK_STATUS(fc_pcc_dense_compact(ctx, s, f, sentinel, 9), FC_ERR_INVALID_ARG);
    CHECK_STATUS(fc_dfc_triu_compact(ctx, s, 50, 50, 0, 0, FC_TRIU_ROW, f, sentinel, 128), FC_ERR_INVALID_ARG);
    CHECK_STATUS(fc_decode_values(f, sentinel, 4, r), FC_ERR_INVALID_ARG);
    REQUIRE_OK(fc_pcc_blocks_begin(ctx, s, 2, &it));
    CHECK_STATUS(fc_blocks_next_compact(it, f, sentinel, 128, &info), FC_ERR_INVALID_ARG);
    fc_blocks_destroy(it);
    CHECK_STATUS(fc_pcc_blocks_foreach_compact(ctx, s, 2, f, collect, NULL), FC_ERR_INVALID_ARG);
    CHECK(check_all_sentinel(sentinel, 64));
  }
  /* 36 pairs: 35 codes do not fit */
  CHECK_STATUS(fc_pcc_triu_compact(ctx, s, FC_TRIU_ROW, FC_VALUES_INT16, sentinel, 35), FC_ERR_BUFFER_TOO_SMALL);
  CHECK_ERROR_MENTIONS("capacity 35");
  CHECK_STATUS(fc_pcc_dense_compact(ctx, s, FC_VALUES_HALF, sentinel, 8), FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("ld 8");
  CHECK(check_all_sentinel(sentinel, 64));
  CHECK_STATUS(fc_pcc_triu_compact(ctx, s, FC_TRIU_ROW, FC_VALUES_HALF, NULL, 36), FC_ERR_NULL_ARG);
  CHECK_STATUS(fc_pcc_triu_compact(ctx, s, (fc_triu_order)5, FC_VALUES_HALF, sentinel, 36), FC_ERR_INVALID_ARG);
  CHECK_STATUS(fc_pcc_triu_compact(NULL, s, FC_TRIU_ROW, FC_VALUES_HALF, sentinel, 36), FC_ERR_NULL_ARG);
  CHECK_STATUS(fc_decode_values(FC_VALUES_INT16, NULL, 4, r), FC_ERR_NULL_ARG);
  CHECK_STATUS(fc_decode_values_f64(FC_VALUES_INT16, sentinel, 4, NULL), FC_ERR_NULL_ARG);
  CHECK_STATUS(fc_decode_values(FC_VALUES_INT16, sentinel, -2, r), FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("count -2");
  REQUIRE_OK(fc_pcc_blocks_begin(ctx, s, 2, &it));
  CHECK_STATUS(fc_blocks_next_compact(it, FC_VALUES_INT16, sentinel, 3, &info), FC_ERR_BUFFER_TOO_SMALL);
  CHECK(info.count == 15);
  fc_blocks_destroy(it);
  CHECK_STATUS(fc_pcc_blocks_foreach_compact(ctx, s, 2, FC_VALUES_INT16, NULL, NULL), FC_ERR_NULL_ARG);
  CHECK(check_all_sentinel(sentinel, 64));
  fc_series_destroy(s);
  fc_context_destroy(ctx);
}

int main(void) {
  const int64_t sizes[] = {1, 2, 3, 37, NMAX};
  const fc_value_format formats[] = {FC_VALUES_INT16, FC_VALUES_HALF};
  size_t a, f;
  for (f = 0; f < 2; ++f) {
    for (a = 0; a < sizeof sizes / sizeof sizes[0]; ++a) {
      front_doors(FC_PRECISION_FP32, sizes[a], -1, formats[f]);
      if (sizes[a] >= 3) front_doors(FC_PRECISION_FP32, sizes[a], sizes[a] / 2, formats[f]);
    }
    front_doors(FC_PRECISION_FP64, 37, 4, formats[f]);
    windows(formats[f]);
  }
  decoding();
  refusals();
  return check_report();
}
