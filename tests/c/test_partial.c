/* Partial correlation and precision through the C header (issue 34 item 3): every bad value of
 * fc_partial_correlation and fc_partial_correlation_triu refused with its status and a message
 * naming it, outputs untouched; plus the good paths on small inputs (a closed form for two series,
 * the triangle equal to the dense matrix, N > T with shrinkage, a constant series refused). */
#include "check.h"

#define NS 5
#define NT 8

static void test_bad_values(void) {
  double x[NS * NT], out[NS * NS], tri[NS * NS], used = -7;
  fc_context *ctx, *other;
  fc_series* s;
  int i;
  check_fmri_like(x, NS, NT, 3);
  check_make_cpu(x, NS, NT, &ctx, &s);
  REQUIRE_OK(fc_context_create(FC_BACKEND_CPU, -1, &other));
  for (i = 0; i < NS * NS; ++i) out[i] = tri[i] = -7;

  CHECK_STATUS(fc_partial_correlation(NULL, s, -1, FC_PARTIAL_CORRELATION, out, NS, &used), FC_ERR_NULL_ARG);
  CHECK_ERROR_MENTIONS("ctx");
  CHECK_STATUS(fc_partial_correlation(ctx, NULL, -1, FC_PARTIAL_CORRELATION, out, NS, &used), FC_ERR_NULL_ARG);
  CHECK_ERROR_MENTIONS("series");
  CHECK_STATUS(fc_partial_correlation(ctx, s, -1, FC_PARTIAL_CORRELATION, NULL, NS, &used), FC_ERR_NULL_ARG);
  CHECK_ERROR_MENTIONS("out");
  CHECK_STATUS(fc_partial_correlation(ctx, s, -1, FC_PARTIAL_CORRELATION, out, NS - 1, &used), FC_ERR_BUFFER_TOO_SMALL);
  CHECK_ERROR_MENTIONS("ld 4");
  CHECK_STATUS(fc_partial_correlation(ctx, s, 1.5, FC_PARTIAL_CORRELATION, out, NS, &used), FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("shrinkage 1.5");
  CHECK_STATUS(fc_partial_correlation(ctx, s, -0.5, FC_PARTIAL_CORRELATION, out, NS, &used), FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("shrinkage -0.5");
  CHECK_STATUS(fc_partial_correlation(ctx, s, -2, FC_PARTIAL_CORRELATION, out, NS, &used), FC_ERR_INVALID_ARG);
  CHECK_STATUS(fc_partial_correlation(ctx, s, NAN, FC_PARTIAL_CORRELATION, out, NS, &used), FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("nan");
  CHECK_STATUS(fc_partial_correlation(ctx, s, INFINITY, FC_PARTIAL_CORRELATION, out, NS, &used), FC_ERR_INVALID_ARG);
  CHECK_STATUS(fc_partial_correlation(ctx, s, -1, 2, out, NS, &used), FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("output 2");
  CHECK_STATUS(fc_partial_correlation(ctx, s, -1, -1, out, NS, &used), FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("output -1");
  CHECK_STATUS(fc_partial_correlation(other, s, -1, FC_PARTIAL_CORRELATION, out, NS, &used), FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("another context");

  CHECK_STATUS(fc_partial_correlation_triu(ctx, s, -1, FC_PARTIAL_CORRELATION, 2, tri, 10, &used), FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("order 2");
  CHECK_STATUS(fc_partial_correlation_triu(ctx, s, -1, FC_PARTIAL_CORRELATION, FC_TRIU_ROW, tri, 9, &used),
               FC_ERR_BUFFER_TOO_SMALL);
  CHECK_ERROR_MENTIONS("capacity 9");
  CHECK_STATUS(fc_partial_correlation_triu(ctx, s, -1, FC_PARTIAL_CORRELATION, FC_TRIU_ROW, NULL, 10, &used),
               FC_ERR_NULL_ARG);
  CHECK_STATUS(fc_partial_correlation_triu(ctx, s, 2, FC_PARTIAL_CORRELATION, FC_TRIU_ROW, tri, 10, &used),
               FC_ERR_INVALID_ARG);
  CHECK_STATUS(fc_partial_correlation_triu(ctx, s, -1, 7, FC_TRIU_ROW, tri, 10, &used), FC_ERR_INVALID_ARG);
  CHECK_STATUS(fc_partial_correlation_triu(NULL, s, -1, 0, FC_TRIU_ROW, tri, 10, &used), FC_ERR_NULL_ARG);
  for (i = 0; i < NS * NS; ++i) CHECK(out[i] == -7 && tri[i] == -7);
  CHECK(used == -7);

  /* Good paths: the triangle is the dense matrix's upper part in both orders; diagonal 1. */
  CHECK_OK(fc_partial_correlation(ctx, s, FC_SHRINKAGE_LEDOIT_WOLF, FC_PARTIAL_CORRELATION, out, NS, &used));
  CHECK(used >= 0 && used <= 1);
  for (i = 0; i < NS; ++i) CHECK(out[i * NS + i] == 1);
  CHECK_OK(fc_partial_correlation_triu(ctx, s, FC_SHRINKAGE_LEDOIT_WOLF, FC_PARTIAL_CORRELATION, FC_TRIU_ROW, tri,
                                       10, NULL));
  CHECK(tri[0] == out[1] && tri[3] == out[4] && tri[4] == out[1 * NS + 2] && tri[9] == out[3 * NS + 4]);
  CHECK(tri[10] == -7);
  CHECK_OK(fc_partial_correlation_triu(ctx, s, 0.25, FC_PARTIAL_PRECISION, FC_TRIU_COL, tri, 10, &used));
  CHECK(used == 0.25);
  CHECK_OK(fc_partial_correlation(ctx, s, 0.25, FC_PARTIAL_PRECISION, out, NS, NULL));
  CHECK(tri[0] == out[1] && tri[1] == out[2] && tri[2] == out[1 * NS + 2] && tri[9] == out[3 * NS + 4]);
  for (i = 0; i < NS; ++i) CHECK(out[i * NS + i] > 0);

  fc_series_destroy(s);
  fc_context_destroy(other);
  fc_context_destroy(ctx);
}

static void test_closed_form_and_limits(void) {
  fc_context* ctx;
  fc_series* s;
  double out[12 * 12], used = -7;
  int i;
  REQUIRE_OK(fc_context_create(FC_BACKEND_CPU, -1, &ctx));
  REQUIRE_OK(fc_context_set_precision(ctx, FC_PRECISION_FP64));
  { /* Two series: S = [[1, (1-a) r], [(1-a) r, 1]]; its partial correlation is (1-a) r itself, and
       P_00 = 1 / (1 - ((1-a) r)^2). */
    double two[2 * 4] = {1, 2, 4, 3, 2, 1, 4, 5};
    double r, c;
    REQUIRE_OK(fc_series_create_f64(ctx, two, 2, 4, 4, 1, &s));
    CHECK_OK(fc_pcc_cross_f64(ctx, s, s, out, 2));
    r = out[1];
    CHECK_OK(fc_partial_correlation(ctx, s, 0.5, FC_PARTIAL_CORRELATION, out, 2, &used));
    CHECK(fabs(out[1] - 0.5 * r) < 1e-14 && out[1] == out[2] && out[0] == 1 && out[3] == 1);
    CHECK_OK(fc_partial_correlation(ctx, s, 0.5, FC_PARTIAL_PRECISION, out, 2, &used));
    c = 0.5 * r;
    CHECK(fabs(out[0] - 1 / (1 - c * c)) < 1e-13 && fabs(out[1] + c / (1 - c * c)) < 1e-13);
    fc_series_destroy(s);
  }
  { /* N > T: fine with shrinkage (automatic or given), refused without it. */
    double x[12 * 6];
    check_fmri_like(x, 12, 6, 9);
    REQUIRE_OK(fc_series_create_f64(ctx, x, 12, 6, 6, 1, &s));
    for (i = 0; i < 144; ++i) out[i] = -7;
    used = -7;
    CHECK_STATUS(fc_partial_correlation(ctx, s, 0, FC_PARTIAL_CORRELATION, out, 12, &used), FC_ERR_INVALID_ARG);
    CHECK_ERROR_MENTIONS("not positive definite");
    CHECK(out[0] == -7 && used == -7);
    CHECK_OK(fc_partial_correlation(ctx, s, FC_SHRINKAGE_LEDOIT_WOLF, FC_PARTIAL_CORRELATION, out, 12, &used));
    CHECK(used > 0 && used <= 1);
    for (i = 0; i < 144; ++i) CHECK(out[i] >= -1 && out[i] <= 1);
    CHECK_OK(fc_partial_correlation(ctx, s, 0.1, FC_PARTIAL_PRECISION, out, 12, &used));
    fc_series_destroy(s);
  }
  { /* A constant series is refused, named. */
    double x[3 * 4] = {1, 2, 4, 3, 5, 5, 5, 5, 2, 1, 4, 5};
    REQUIRE_OK(fc_series_create_f64(ctx, x, 3, 4, 4, 1, &s));
    CHECK_STATUS(fc_partial_correlation(ctx, s, 0.5, FC_PARTIAL_CORRELATION, out, 3, &used), FC_ERR_INVALID_ARG);
    CHECK_ERROR_MENTIONS("series 1 is constant");
    fc_series_destroy(s);
  }
  fc_context_destroy(ctx);
}

/* One answer for any thread count: 301 series (three levels of the CPU's block inverse, past its
 * 128-row leaves) on 1, 2 and 3 threads, the same bytes. */
static void test_same_bits_for_any_thread_count(void) {
  enum { N = 301, T = 400 };
  static double x[N * T], first[N * N], other[N * N];
  fc_context* ctx = NULL;
  fc_series* s = NULL;
  double used1 = -1, used = -2;
  int threads;
  check_fmri_like(x, N, T, 11);
  REQUIRE_OK(fc_context_create(FC_BACKEND_CPU, -1, &ctx));
  REQUIRE_OK(fc_context_set_precision(ctx, FC_PRECISION_FP64));
  REQUIRE_OK(fc_series_create_f64(ctx, x, N, T, T, 1, &s));
  REQUIRE_OK(fc_context_set_threads(ctx, 1));
  CHECK_OK(fc_partial_correlation(ctx, s, FC_SHRINKAGE_LEDOIT_WOLF, FC_PARTIAL_PRECISION, first, N, &used1));
  for (threads = 2; threads <= 3; ++threads) {
    REQUIRE_OK(fc_context_set_threads(ctx, threads));
    CHECK_OK(fc_partial_correlation(ctx, s, FC_SHRINKAGE_LEDOIT_WOLF, FC_PARTIAL_PRECISION, other, N, &used));
    CHECK(used == used1 && memcmp(first, other, sizeof first) == 0);
  }
  fc_series_destroy(s);
  fc_context_destroy(ctx);
}

int main(void) {
  test_bad_values();
  test_closed_form_and_limits();
  test_same_bits_for_any_thread_count();
  return check_report();
}
