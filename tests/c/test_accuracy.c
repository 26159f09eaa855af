/* test_accuracy.c - the numbers: every output form against a float64 reference computed here in
 * plain C (FP32 mode <= 1e-5, FP64 mode <= 1e-12); triangle orders, dense, cross and the f64
 * triangle agree with each other; both documented stride layouts and a padded one give the
 * same bits; values stay in [-1, 1] even for a perfectly correlated pair. */
#include "check.h"

enum { N = 150, T = 600 };
static double x[N * T];      /* T x N column-major (R / MATLAB) */
static double x_np[T * N];   /* the same data as numpy (T, N), C order */
static double ref[N * N];    /* float64 reference, dense */

static double max_error_triu(const float* r, fc_triu_order order) {
  double worst = 0.0;
  int64_t i, j;
  for (i = 0; i < N; ++i)
    for (j = i + 1; j < N; ++j) {
      const double e = fabs((double)r[fc_triu_offset(N, order, i, j)] - ref[i * N + j]);
      if (!(e <= worst)) worst = e; /* a NaN makes worst NaN, which fails every <= check */
    }
  return worst;
}

#define CHECK_ERROR_AT_MOST(what, err, tol)                                                     \
  do {                                                                                          \
    ++check_count;                                                                              \
    if (!((err) <= (tol))) {                                                                    \
      ++check_failures;                                                                         \
      fprintf(stderr, "%s:%d: %s: max |r - r64| = %.3g > %.0g\n", __FILE__, __LINE__, what,     \
              (double)(err), (double)(tol));                                                    \
    }                                                                                           \
  } while (0)

/* Every output form of one context's precision, against the reference and against each other. */
static void all_forms(fc_precision precision, double tol) {
  /* a float output carries float rounding (half an ulp, 3e-8 below 1) on top of the mode's error */
  const double tol_float = tol < 6e-8 ? 6e-8 : tol;
  static float row[N * (N - 1) / 2], col[N * (N - 1) / 2], dense[N * N], cross[N * N], half[N * (N / 2)];
  static double row64[N * (N - 1) / 2];
  const int64_t pairs = fc_triu_size(N);
  fc_context* ctx = NULL;
  fc_series *s = NULL, *top = NULL, *bottom = NULL;
  double worst = 0.0;
  int64_t i, j;
  int dense_matches = 1, symmetric = 1, diagonal_one = 1, cross_matches = 1, half_ok = 1, col_matches = 1;

  REQUIRE_OK(fc_context_create(FC_BACKEND_CPU, -1, &ctx));
  REQUIRE_OK(fc_context_set_precision(ctx, precision));
  REQUIRE_OK(fc_series_create_f64(ctx, x, N, T, T, 1, &s));
  CHECK_OK(fc_pcc_triu(ctx, s, FC_TRIU_ROW, row, pairs));
  CHECK_OK(fc_pcc_triu(ctx, s, FC_TRIU_COL, col, pairs));
  CHECK_OK(fc_pcc_triu_f64(ctx, s, FC_TRIU_ROW, row64, pairs));
  CHECK_OK(fc_pcc_dense(ctx, s, dense, N));
  CHECK_OK(fc_pcc_cross(ctx, s, s, cross, N));

  CHECK_ERROR_AT_MOST("triu row order", max_error_triu(row, FC_TRIU_ROW), tol_float);
  CHECK_ERROR_AT_MOST("triu column order", max_error_triu(col, FC_TRIU_COL), tol_float);
  for (i = 0; i < N; ++i)
    for (j = 0; j < N; ++j) {
      const double e = fabs((i == j ? 1.0 : (double)dense[i * N + j]) - ref[i * N + j]);
      if (!(e <= worst)) worst = e;
    }
  CHECK_ERROR_AT_MOST("dense", worst, tol_float);
  worst = 0.0;
  for (i = 0; i < pairs; ++i) {
    int64_t a = 0, b = 0;
    double e;
    REQUIRE_OK(fc_triu_pair(N, FC_TRIU_ROW, i, &a, &b));
    e = fabs(row64[i] - ref[a * N + b]);
    if (!(e <= worst)) worst = e;
  }
  CHECK_ERROR_AT_MOST("triu_f64", worst, tol);

  /* the forms agree: dense == triangle in both orders, dense is symmetric with an exact unit
   * diagonal, cross(s, s) == dense off the diagonal; the f64 triangle of an FP64 context is
   * the float triangle's source, so rounding it gives the float triangle */
  for (i = 0; i < N; ++i) {
    diagonal_one = diagonal_one && dense[i * N + i] == 1.0f;
    CHECK(fabs((double)cross[i * N + i] - 1.0) <= tol_float);
    for (j = 0; j < N; ++j) {
      if (i == j) continue;
      symmetric = symmetric && dense[i * N + j] == dense[j * N + i];
      cross_matches = cross_matches && cross[i * N + j] == dense[i * N + j];
      if (i < j) {
        dense_matches = dense_matches && dense[i * N + j] == row[fc_triu_offset(N, FC_TRIU_ROW, i, j)];
        col_matches = col_matches && col[fc_triu_offset(N, FC_TRIU_COL, i, j)] == row[fc_triu_offset(N, FC_TRIU_ROW, i, j)];
      }
    }
  }
  CHECK(dense_matches);
  CHECK(col_matches);
  CHECK(symmetric);
  CHECK(diagonal_one);
  CHECK(cross_matches);
  if (precision == FC_PRECISION_FP64) {
    int rounds = 1;
    for (i = 0; i < pairs; ++i) rounds = rounds && (float)row64[i] == row[i];
    CHECK(rounds);
  }

  /* seed-to-voxel shape: the first N/2 series against the last N/2 (the data of series s
   * starts at x + s*T), row-major with a padded leading dimension */
  REQUIRE_OK(fc_series_create_f64(ctx, x, N / 2, T, T, 1, &top));
  REQUIRE_OK(fc_series_create_f64(ctx, x + (N - N / 2) * T, N / 2, T, T, 1, &bottom));
  check_fill_sentinel(half, N * (N / 2));
  CHECK_OK(fc_pcc_cross(ctx, top, bottom, half, N));
  worst = 0.0;
  for (i = 0; i < N / 2; ++i) {
    for (j = 0; j < N / 2; ++j) {
      const double e = fabs((double)half[i * N + j] - ref[i * N + (N - N / 2) + j]);
      if (!(e <= worst)) worst = e;
    }
    half_ok = half_ok && check_all_sentinel(half + i * N + N / 2, N - N / 2); /* padding untouched */
  }
  CHECK_ERROR_AT_MOST("cross, seed-to-voxel", worst, tol_float);
  CHECK(half_ok);

  fc_series_destroy(top);
  fc_series_destroy(bottom);
  fc_series_destroy(s);
  fc_context_destroy(ctx);
}

/* R/MATLAB T x N, numpy (T, N) and a padded T x N layout: the same series, the same bits. */
static void layouts(void) {
  static float a[N * (N - 1) / 2], b[N * (N - 1) / 2], c[N * (N - 1) / 2];
  enum { LD = T + 7 };
  static double padded[N * LD];
  const int64_t pairs = fc_triu_size(N);
  fc_context* ctx = NULL;
  fc_series *sa = NULL, *sb = NULL, *sc = NULL;
  int64_t s, k;
  for (s = 0; s < N; ++s)
    for (k = 0; k < LD; ++k) padded[s * LD + k] = k < T ? x[s * T + k] : 1e30; /* junk in the padding */
  REQUIRE_OK(fc_context_create(FC_BACKEND_CPU, -1, &ctx));
  REQUIRE_OK(fc_series_create_f64(ctx, x, N, T, T, 1, &sa));     /* R / MATLAB */
  REQUIRE_OK(fc_series_create_f64(ctx, x_np, N, T, 1, N, &sb));  /* numpy (T, N) C order */
  REQUIRE_OK(fc_series_create_f64(ctx, padded, N, T, LD, 1, &sc));
  CHECK_OK(fc_pcc_triu(ctx, sa, FC_TRIU_ROW, a, pairs));
  CHECK_OK(fc_pcc_triu(ctx, sb, FC_TRIU_ROW, b, pairs));
  CHECK_OK(fc_pcc_triu(ctx, sc, FC_TRIU_ROW, c, pairs));
  CHECK_SAME_BITS(a, b, pairs, "numpy (T, N) layout vs R / MATLAB layout");
  CHECK_SAME_BITS(a, c, pairs, "padded layout vs R / MATLAB layout");
  fc_series_destroy(sa);
  fc_series_destroy(sb);
  fc_series_destroy(sc);
  fc_context_destroy(ctx);
}

/* float input: the reference is computed from the same float values, widened. */
static void float_input(void) {
  static float xf[N * T], r[N * (N - 1) / 2];
  static double widened[N * T];
  const int64_t pairs = fc_triu_size(N);
  fc_context* ctx = NULL;
  fc_series* s = NULL;
  int64_t k;
  for (k = 0; k < N * T; ++k) {
    xf[k] = (float)x[k];
    widened[k] = (double)xf[k];
  }
  check_reference_dense(widened, N, T, ref);
  REQUIRE_OK(fc_context_create(FC_BACKEND_CPU, -1, &ctx));
  REQUIRE_OK(fc_series_create_f32(ctx, xf, N, T, T, 1, &s));
  CHECK_OK(fc_pcc_triu(ctx, s, FC_TRIU_ROW, r, pairs));
  CHECK_ERROR_AT_MOST("float input", max_error_triu(r, FC_TRIU_ROW), 1e-5);
  fc_series_destroy(s);
  fc_context_destroy(ctx);
}

/* r of an exact affine copy is 1 up to rounding, and the clamp keeps it at most 1. */
static void clamped(void) {
  enum { M = 3 };
  static double y[M * T];
  float r[3], dense[M * M];
  fc_context* ctx = NULL;
  fc_series* s = NULL;
  int64_t k;
  for (k = 0; k < T; ++k) {
    y[k] = x[k];
    y[T + k] = 2.5 * x[k] + 100.0;
    y[2 * T + k] = -0.5 * x[k] - 3.0;
  }
  REQUIRE_OK(fc_context_create(FC_BACKEND_CPU, -1, &ctx));
  REQUIRE_OK(fc_series_create_f64(ctx, y, M, T, T, 1, &s));
  CHECK_OK(fc_pcc_triu(ctx, s, FC_TRIU_ROW, r, 3));
  CHECK(r[0] <= 1.0f && r[0] >= 1.0f - 1e-6f);   /* (0,1) */
  CHECK(r[1] >= -1.0f && r[1] <= -1.0f + 1e-6f); /* (0,2) */
  CHECK(r[2] >= -1.0f && r[2] <= -1.0f + 1e-6f); /* (1,2) */
  CHECK_OK(fc_pcc_dense(ctx, s, dense, M));
  for (k = 0; k < M * M; ++k) CHECK(dense[k] >= -1.0f && dense[k] <= 1.0f);
  fc_series_destroy(s);
  fc_context_destroy(ctx);
}

int main(void) {
  int64_t s, k;
  check_fmri_like(x, N, T, 6);
  for (s = 0; s < N; ++s)
    for (k = 0; k < T; ++k) x_np[k * N + s] = x[s * T + k];
  check_reference_dense(x, N, T, ref);
  {
    /* the data must exercise the whole range, or a small error bound proves little */
    double lo = 1.0, hi = -1.0;
    for (k = 0; k < N * N; ++k)
      if (k % (N + 1) != 0) {
        if (ref[k] < lo) lo = ref[k];
        if (ref[k] > hi) hi = ref[k];
      }
    CHECK(lo < -0.5 && hi > 0.5);
  }
  all_forms(FC_PRECISION_FP32, 1e-5);
  all_forms(FC_PRECISION_FP64, 1e-12);
  all_forms(FC_PRECISION_TF32, 1e-5); /* the CPU computes TF32 requests in FP32 */
  layouts();
  clamped();
  float_input(); /* last: it replaces ref */
  return check_report();
}
