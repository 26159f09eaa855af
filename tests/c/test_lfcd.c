/* lFCD through the C header (issue 34): fc_pcc_lfcd against a brute-force seed-based region growing
 * written here from the float64 Pearson reference (check.h), on grids with holes, several
 * components, voxels touching only along an edge or at a corner (6, 18 and 26 give different
 * counts), odd N, T = 2 and constant series; the header's example; every bad value refused with
 * its status and a message naming it, the output untouched. */
#include "check.h"

#define SENTINEL_COUNT (-77)

/* Two voxels are adjacent under `neighbourhood` when they differ by at most 1 on every axis and
 * in at most 1 (6), 2 (18) or 3 (26) axes. */
static int adjacent(const int32_t* a, const int32_t* b, int neighbourhood) {
  int axis, moved = 0;
  for (axis = 0; axis < 3; ++axis) {
    int d = a[axis] - b[axis];
    if (d < -1 || d > 1) return 0;
    moved += d != 0;
  }
  return moved >= 1 && moved <= (neighbourhood == 6 ? 1 : neighbourhood == 18 ? 2 : 3);
}

/* The reference: grow each seed's cluster by sweeps over every voxel until a sweep adds none; a
 * voxel joins when it is adjacent to a member and its float64 r with the seed passes. Constant
 * series (r undefined: NaN in the reference) never join, and a constant seed gets 0. */
static void reference_lfcd(const double* r, const int* constant, const int32_t* coords, int64_t n, int neighbourhood,
                           int absolute, double t, int64_t* out) {
  char* in = (char*)check_malloc((size_t)n);
  int64_t seed, v, m;
  for (seed = 0; seed < n; ++seed) {
    int grew = 1;
    if (constant[seed]) {
      out[seed] = 0;
      continue;
    }
    memset(in, 0, (size_t)n);
    in[seed] = 1;
    while (grew) {
      grew = 0;
      for (v = 0; v < n; ++v) {
        double rv = r[seed * n + v];
        if (in[v] || constant[v] || !((absolute ? fabs(rv) : rv) >= t)) continue;
        for (m = 0; m < n; ++m)
          if (in[m] && adjacent(coords + 3 * m, coords + 3 * v, neighbourhood)) {
            in[v] = 1;
            grew = 1;
            break;
          }
      }
    }
    out[seed] = 0;
    for (v = 0; v < n; ++v) out[seed] += in[v];
  }
  free(in);
}

/* Series with zero variance in x (T x N layout). */
static void constant_flags(const double* x, int64_t n, int64_t t, int* constant) {
  int64_t s, k;
  for (s = 0; s < n; ++s) {
    constant[s] = 1;
    for (k = 1; k < t; ++k)
      if (x[s * t + k] != x[s * t]) constant[s] = 0;
  }
}

/* A threshold near `want` at least `margin` away from every |r| and r of the set, so that no pair's
 * decision hangs on rounding. */
static double clear_threshold(const double* r, int64_t n, double want, double margin) {
  double t = want;
  int64_t p;
  int moved = 1;
  while (moved) {
    moved = 0;
    for (p = 0; p < n * n; ++p)
      if (fabs(fabs(r[p]) - t) < margin || fabs(r[p] - t) < margin) {
        t += 2 * margin;
        moved = 1;
      }
  }
  return t;
}

static int same_counts(const int64_t* a, const int64_t* b, int64_t n) {
  int64_t i;
  for (i = 0; i < n; ++i)
    if (a[i] != b[i]) {
      fprintf(stderr, "    series %ld: %ld vs reference %ld\n", (long)i, (long)a[i], (long)b[i]);
      return 0;
    }
  return 1;
}

/* n voxels (a prime or small n) scattered on the box `place` (its corner at 0) of the grid dims,
 * with holes: voxel positions are a seeded random choice of the box's cells, so the mask has holes and often several components; series
 * from check_fmri_like with every seventh series made constant. Compared with the reference for
 * both rules, all three neighbourhoods, FP32 and FP64, 1 and 2 threads. */
static void test_against_reference(int64_t n, int64_t t, const int64_t* dims, const int64_t* place, uint64_t seed,
                                   double want) {
  const int64_t cells = place[0] * place[1] * place[2];
  double* x = (double*)check_malloc(sizeof(double) * (size_t)(n * t));
  double* r = (double*)check_malloc(sizeof(double) * (size_t)(n * n));
  int32_t* coords = (int32_t*)check_malloc(sizeof(int32_t) * (size_t)(3 * n));
  int* constant = (int*)check_malloc(sizeof(int) * (size_t)n);
  int64_t* got = (int64_t*)check_malloc(sizeof(int64_t) * (size_t)n);
  int64_t* again = (int64_t*)check_malloc(sizeof(int64_t) * (size_t)n);
  int64_t* want_counts = (int64_t*)check_malloc(sizeof(int64_t) * (size_t)n);
  char* used = (char*)check_malloc((size_t)cells);
  check_rng g;
  int64_t s, k, p;
  int h, absolute, precision;
  g.state = seed;
  memset(used, 0, (size_t)cells);
  for (s = 0; s < n; ++s) { /* distinct random cells */
    int64_t c;
    do c = (int64_t)(check_uniform(&g) * (double)cells); while (used[c]);
    used[c] = 1;
    coords[3 * s] = (int32_t)(c % place[0]);
    coords[3 * s + 1] = (int32_t)(c / place[0] % place[1]);
    coords[3 * s + 2] = (int32_t)(c / (place[0] * place[1]));
  }
  check_fmri_like(x, n, t, seed);
  for (s = 6; s < n; s += 7)
    for (k = 0; k < t; ++k) x[s * t + k] = 3.5;
  constant_flags(x, n, t, constant);
  check_reference_dense(x, n, t, r);
  for (p = 0; p < n * n; ++p)
    if (constant[p / n] || constant[p % n]) r[p] = NAN;
  for (precision = 0; precision < 2; ++precision)
    for (absolute = 0; absolute < 2; ++absolute) {
      const double th = clear_threshold(r, n, want, precision ? 1e-9 : 1e-4);
      fc_context* ctx;
      fc_series* ser;
      REQUIRE_OK(fc_context_create(FC_BACKEND_CPU, -1, &ctx));
      REQUIRE_OK(fc_context_set_precision(ctx, precision ? FC_PRECISION_FP64 : FC_PRECISION_FP32));
      REQUIRE_OK(fc_context_set_constant_policy(ctx, (absolute ^ precision) ? FC_CONSTANT_ZERO : FC_CONSTANT_NAN));
      REQUIRE_OK(fc_series_create_f64(ctx, x, n, t, t, 1, &ser));
      for (h = 0; h < 3; ++h) {
        const int hood = h == 0 ? 6 : h == 1 ? 18 : 26;
        const fc_edge_rule rule = absolute ? FC_EDGE_ABS_THRESHOLD : FC_EDGE_THRESHOLD;
        reference_lfcd(r, constant, coords, n, hood, absolute, th, want_counts);
        REQUIRE_OK(fc_context_set_threads(ctx, 1));
        CHECK_OK(fc_pcc_lfcd(ctx, ser, coords, dims, hood, rule, th, got));
        ++check_count;
        if (!same_counts(got, want_counts, n)) {
          ++check_failures;
          fprintf(stderr, "FAILED: n %ld, t %ld, neighbourhood %d, %s, threshold %.6f, %s\n", (long)n, (long)t, hood,
                  absolute ? "|r|" : "r", th, precision ? "FP64" : "FP32");
        }
        REQUIRE_OK(fc_context_set_threads(ctx, 2));
        CHECK_OK(fc_pcc_lfcd(ctx, ser, coords, dims, hood, rule, th, again));
        CHECK(memcmp(got, again, sizeof(int64_t) * (size_t)n) == 0);
      }
      fc_series_destroy(ser);
      fc_context_destroy(ctx);
    }
  free(x), free(r), free(coords), free(constant), free(got), free(again), free(want_counts), free(used);
}

/* Identical series (r = 1) on A = (0,0,0), B = (1,0,0) (a face of A), C = (2,1,0) (an edge of B)
 * and D = (3,2,1) (a corner of C): 6 joins A-B, 18 adds C, 26 adds D. A fifth voxel E = (5,2,1),
 * identical too, touches nothing. */
static void test_edges_and_corners(void) {
  const int32_t coords[] = {0, 0, 0, 1, 0, 0, 2, 1, 0, 3, 2, 1, 5, 2, 1};
  const int64_t dims[] = {6, 3, 2};
  const int64_t six[] = {2, 2, 1, 1, 1}, eighteen[] = {3, 3, 3, 1, 1}, twenty_six[] = {4, 4, 4, 4, 1};
  double x[5 * 4];
  int64_t got[5];
  fc_context* ctx;
  fc_series* s;
  int i;
  for (i = 0; i < 5 * 4; ++i) x[i] = (double)((i % 4) * (i % 4)); /* each series 0, 1, 4, 9 */
  check_make_cpu(x, 5, 4, &ctx, &s);
  CHECK_OK(fc_pcc_lfcd(ctx, s, coords, dims, 6, FC_EDGE_THRESHOLD, 0.9, got));
  CHECK(memcmp(got, six, sizeof six) == 0);
  CHECK_OK(fc_pcc_lfcd(ctx, s, coords, dims, 18, FC_EDGE_THRESHOLD, 0.9, got));
  CHECK(memcmp(got, eighteen, sizeof eighteen) == 0);
  CHECK_OK(fc_pcc_lfcd(ctx, s, coords, dims, 26, FC_EDGE_THRESHOLD, 0.9, got));
  CHECK(memcmp(got, twenty_six, sizeof twenty_six) == 0);
  /* a threshold above 1: nothing joins, and every seed counts itself */
  CHECK_OK(fc_pcc_lfcd(ctx, s, coords, dims, 26, FC_EDGE_THRESHOLD, 1.5, got));
  for (i = 0; i < 5; ++i) CHECK(got[i] == 1);
  fc_series_destroy(s);
  fc_context_destroy(ctx);
}

/* The header's example: a row of three voxels at k = 0 and one above the first. Series 0, 1 and
 * 3 rise together, series 2 falls: r(0, 2), r(1, 2) and r(3, 2) are about -0.93. With r >= 0.5 and 6 neighbours: 0 reaches 1 and
 * 3 (3 voxels), 1 reaches 0 and then 3 through 0 (3), 2 only itself (1), 3 reaches 0 and 1 (3).
 * With |r| >= 0.5 everything joins (4 each). A constant series 2 gets 0 and blocks nothing else,
 * under both constant policies; a seed with no series next to it counts 1. */
static void test_header_example(void) {
  const int32_t coords[] = {0, 0, 0, 1, 0, 0, 2, 0, 0, 0, 0, 1};
  const int64_t dims[] = {3, 1, 2};
  double x[4 * 3] = {1, 2, 4, 1, 2, 4.5, 4, 2, 1, 2, 4, 8};
  const int64_t signed_counts[] = {3, 3, 1, 3}, abs_counts[] = {4, 4, 4, 4}, with_constant[] = {3, 3, 0, 3};
  int64_t lfcd[4];
  fc_context* ctx;
  fc_series* s;
  int policy;
  check_make_cpu(x, 4, 3, &ctx, &s);
  if (fc_pcc_lfcd(ctx, s, coords, dims, 6, FC_EDGE_THRESHOLD, 0.5, lfcd) != FC_OK)
    fprintf(stderr, "fastconn: %s\n", fc_last_error());
  CHECK(memcmp(lfcd, signed_counts, sizeof lfcd) == 0);
  CHECK_OK(fc_pcc_lfcd(ctx, s, coords, dims, 6, FC_EDGE_ABS_THRESHOLD, 0.5, lfcd));
  CHECK(memcmp(lfcd, abs_counts, sizeof lfcd) == 0);
  fc_series_destroy(s);
  x[6] = x[7] = x[8] = 2; /* series 2 constant */
  for (policy = 0; policy < 2; ++policy) {
    REQUIRE_OK(fc_context_set_constant_policy(ctx, policy ? FC_CONSTANT_ZERO : FC_CONSTANT_NAN));
    REQUIRE_OK(fc_series_create_f64(ctx, x, 4, 3, 3, 1, &s));
    /* even a threshold every r passes (r >= -2) leaves the constant voxel out */
    CHECK_OK(fc_pcc_lfcd(ctx, s, coords, dims, 26, FC_EDGE_THRESHOLD, -2, lfcd));
    CHECK(memcmp(lfcd, with_constant, sizeof lfcd) == 0);
    fc_series_destroy(s);
  }
  fc_context_destroy(ctx);
}

/* T = 2: every r is +1 or -1. A line of 5 voxels whose series go up, up, down, up, up: with r >= 0
 * the middle one cuts the line (2, 2, 1, 2, 2); with |r| >= 0 nothing does (5 each). */
static void test_two_samples(void) {
  const int32_t coords[] = {0, 0, 0, 1, 0, 0, 2, 0, 0, 3, 0, 0, 4, 0, 0};
  const int64_t dims[] = {5, 1, 1};
  const double x[5 * 2] = {0, 1, 3, 5, 2, 1, 0, 7, -1, 1};
  const int64_t cut[] = {2, 2, 1, 2, 2}, whole[] = {5, 5, 5, 5, 5};
  int64_t got[5];
  fc_context* ctx;
  fc_series* s;
  check_make_cpu(x, 5, 2, &ctx, &s);
  CHECK_OK(fc_pcc_lfcd(ctx, s, coords, dims, 26, FC_EDGE_THRESHOLD, 0, got));
  CHECK(memcmp(got, cut, sizeof got) == 0);
  CHECK_OK(fc_pcc_lfcd(ctx, s, coords, dims, 26, FC_EDGE_ABS_THRESHOLD, 0, got));
  CHECK(memcmp(got, whole, sizeof got) == 0);
  fc_series_destroy(s);
  fc_context_destroy(ctx);
}

/* Every bad value: its status, a message naming it, and lfcd untouched. */
static void test_bad_input(void) {
  int32_t coords[] = {0, 0, 0, 1, 0, 0, 2, 0, 0};
  int64_t dims[] = {3, 1, 1};
  double x[3 * 5];
  int64_t out[3] = {SENTINEL_COUNT, SENTINEL_COUNT, SENTINEL_COUNT};
  fc_context *ctx, *other;
  fc_series* s;
  check_fmri_like(x, 3, 5, 3);
  check_make_cpu(x, 3, 5, &ctx, &s);
  REQUIRE_OK(fc_context_create(FC_BACKEND_CPU, -1, &other));

  CHECK_STATUS(fc_pcc_lfcd(NULL, s, coords, dims, 6, FC_EDGE_THRESHOLD, 0.5, out), FC_ERR_NULL_ARG);
  CHECK_ERROR_MENTIONS("ctx");
  CHECK_STATUS(fc_pcc_lfcd(ctx, NULL, coords, dims, 6, FC_EDGE_THRESHOLD, 0.5, out), FC_ERR_NULL_ARG);
  CHECK_ERROR_MENTIONS("series");
  CHECK_STATUS(fc_pcc_lfcd(ctx, s, NULL, dims, 6, FC_EDGE_THRESHOLD, 0.5, out), FC_ERR_NULL_ARG);
  CHECK_ERROR_MENTIONS("coords");
  CHECK_STATUS(fc_pcc_lfcd(ctx, s, coords, NULL, 6, FC_EDGE_THRESHOLD, 0.5, out), FC_ERR_NULL_ARG);
  CHECK_ERROR_MENTIONS("dims");
  CHECK_STATUS(fc_pcc_lfcd(ctx, s, coords, dims, 6, FC_EDGE_THRESHOLD, 0.5, NULL), FC_ERR_NULL_ARG);
  CHECK_ERROR_MENTIONS("lfcd");
  CHECK_STATUS(fc_pcc_lfcd(other, s, coords, dims, 6, FC_EDGE_THRESHOLD, 0.5, out), FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("another context");
  CHECK_STATUS(fc_pcc_lfcd(ctx, s, coords, dims, 7, FC_EDGE_THRESHOLD, 0.5, out), FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("neighbourhood is 7");
  CHECK_STATUS(fc_pcc_lfcd(ctx, s, coords, dims, 0, FC_EDGE_THRESHOLD, 0.5, out), FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("neighbourhood is 0");
  CHECK_STATUS(fc_pcc_lfcd(ctx, s, coords, dims, 6, FC_EDGE_DENSITY, 0.5, out), FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("FC_EDGE_DENSITY");
  CHECK_STATUS(fc_pcc_lfcd(ctx, s, coords, dims, 6, FC_EDGE_TOP_K, 2, out), FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("FC_EDGE_TOP_K");
  CHECK_STATUS(fc_pcc_lfcd(ctx, s, coords, dims, 6, (fc_edge_rule)9, 0.5, out), FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("rule 9");
  CHECK_STATUS(fc_pcc_lfcd(ctx, s, coords, dims, 6, FC_EDGE_THRESHOLD, NAN, out), FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("threshold is NaN");
  CHECK_STATUS(fc_pcc_lfcd(ctx, s, coords, dims, 6, FC_EDGE_THRESHOLD, INFINITY, out), FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("inf");
  coords[4] = 1; /* series 1 at (1, 1, 0): j off the grid [0, 1) */
  CHECK_STATUS(fc_pcc_lfcd(ctx, s, coords, dims, 6, FC_EDGE_THRESHOLD, 0.5, out), FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("series 1 sits at voxel (1, 1, 0): its j = 1 is off the grid [0, 1)");
  coords[4] = 0;
  coords[6] = -1;
  CHECK_STATUS(fc_pcc_lfcd(ctx, s, coords, dims, 6, FC_EDGE_THRESHOLD, 0.5, out), FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("i = -1");
  coords[6] = 1; /* series 2 on series 1's voxel */
  CHECK_STATUS(fc_pcc_lfcd(ctx, s, coords, dims, 6, FC_EDGE_THRESHOLD, 0.5, out), FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("series 2 and series 1 sit on the same voxel (1, 0, 0)");
  { /* the same on a sparse grid, where the lookup is a hash */
    int64_t big[] = {1000000, 1000, 1000};
    CHECK_STATUS(fc_pcc_lfcd(ctx, s, coords, big, 6, FC_EDGE_THRESHOLD, 0.5, out), FC_ERR_INVALID_ARG);
    CHECK_ERROR_MENTIONS("series 2 and series 1 sit on the same voxel (1, 0, 0)");
  }
  coords[6] = 2;
  dims[2] = 0;
  CHECK_STATUS(fc_pcc_lfcd(ctx, s, coords, dims, 6, FC_EDGE_THRESHOLD, 0.5, out), FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("dims[2] (nz) is 0");
  dims[2] = (int64_t)1 << 62;
  CHECK_STATUS(fc_pcc_lfcd(ctx, s, coords, dims, 6, FC_EDGE_THRESHOLD, 0.5, out), FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("2^62");
  CHECK(out[0] == SENTINEL_COUNT && out[1] == SENTINEL_COUNT && out[2] == SENTINEL_COUNT);
  dims[2] = 1;
  CHECK_OK(fc_pcc_lfcd(ctx, s, coords, dims, 6, FC_EDGE_THRESHOLD, 0.5, out));
  CHECK(out[0] >= 1 && out[1] >= 1 && out[2] >= 1);
  fc_series_destroy(s);
  fc_context_destroy(other);
  fc_context_destroy(ctx);
}

/* The progress callback counts seeds and can cancel. */
static int64_t seen_done, seen_total;
static int record(int64_t done, int64_t total, void* user) {
  seen_done = done, seen_total = total;
  return user != NULL;
}

static void test_progress(void) {
  enum { N = 5000, T = 3 };
  double* x = (double*)check_malloc(sizeof(double) * N * T);
  int32_t* coords = (int32_t*)check_malloc(sizeof(int32_t) * 3 * N);
  int64_t* out = (int64_t*)check_malloc(sizeof(int64_t) * N);
  const int64_t dims[] = {50, 10, 10};
  fc_context* ctx;
  fc_series* s;
  int cancel = 1;
  int64_t v;
  for (v = 0; v < N; ++v) {
    coords[3 * v] = (int32_t)(v % 50), coords[3 * v + 1] = (int32_t)(v / 50 % 10), coords[3 * v + 2] = (int32_t)(v / 500);
  }
  check_fmri_like(x, N, T, 11);
  check_make_cpu(x, N, T, &ctx, &s);
  REQUIRE_OK(fc_context_set_progress(ctx, record, NULL));
  CHECK_OK(fc_pcc_lfcd(ctx, s, coords, dims, 26, FC_EDGE_THRESHOLD, 0.2, out));
  CHECK(seen_done == N && seen_total == N);
  REQUIRE_OK(fc_context_set_progress(ctx, record, &cancel));
  CHECK_STATUS(fc_pcc_lfcd(ctx, s, coords, dims, 26, FC_EDGE_THRESHOLD, 0.2, out), FC_ERR_ABORTED);
  CHECK(seen_done == 4096 && seen_total == N);
  fc_series_destroy(s);
  fc_context_destroy(ctx);
  free(x), free(coords), free(out);
}

int main(void) {
  const int64_t box[] = {7, 6, 5}, flat[] = {17, 11, 1}, sparse[] = {40, 30, 20}, huge[] = {2000, 1000, 1000};
  static const int64_t sizes[] = {1, 2, 3, 5, 37, 101, 173};
  size_t i;
  for (i = 0; i < sizeof sizes / sizeof sizes[0]; ++i) {
    test_against_reference(sizes[i], 17, box, box, 100 + i, 0.3);
    test_against_reference(sizes[i], 2, flat, flat, 200 + i, 0.5);
  }
  test_against_reference(131, 29, sparse, sparse, 7, 0.1); /* few neighbours: many small components */
  test_against_reference(97, 40, box, box, 8, -0.2);       /* a negative signed threshold */
  test_against_reference(173, 23, huge, box, 9, 0.2);      /* a grid of 2e9 voxels: the hashed lookup */
  test_edges_and_corners();
  test_header_example();
  test_two_samples();
  test_bad_input();
  test_progress();
  return check_report();
}
