/* check.h - the few helpers the C API tests share: checks that report file:line and keep going,
 * seeded structured test data, and a plain float64 Pearson reference.
 *
 * Every test program calls CHECK* as often as it likes and ends with `return check_report();`,
 * which prints the tally and returns non-zero if any check failed (CTest reads the exit code). */
#ifndef FASTCONN_TESTS_CHECK_H
#define FASTCONN_TESTS_CHECK_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fastconn/fastconn.h"

static int check_failures = 0;
static int check_count = 0;

static inline void check_fail(const char* file, int line, const char* what) {
  ++check_failures;
  fprintf(stderr, "%s:%d: FAILED: %s\n", file, line, what);
}

/* A boolean check. */
#define CHECK(cond)                                           \
  do {                                                        \
    ++check_count;                                            \
    if (!(cond)) check_fail(__FILE__, __LINE__, #cond);       \
  } while (0)

/* A call that must return `expected`; on a mismatch prints both statuses and fc_last_error(). */
#define CHECK_STATUS(call, expected)                                                             \
  do {                                                                                           \
    fc_status got_ = (call);                                                                     \
    ++check_count;                                                                               \
    if (got_ != (expected)) {                                                                    \
      check_fail(__FILE__, __LINE__, #call);                                                     \
      fprintf(stderr, "    returned %s, expected %s\n    fc_last_error: %s\n",                   \
              fc_status_string(got_), fc_status_string(expected), fc_last_error());              \
    }                                                                                            \
  } while (0)

#define CHECK_OK(call) CHECK_STATUS(call, FC_OK)

/* fc_last_error() must contain `needle` (the message names the offending argument or index). */
#define CHECK_ERROR_MENTIONS(needle)                                                             \
  do {                                                                                           \
    ++check_count;                                                                               \
    if (strstr(fc_last_error(), (needle)) == NULL) {                                             \
      check_fail(__FILE__, __LINE__, "fc_last_error() mentions \"" needle "\"");                \
      fprintf(stderr, "    fc_last_error: %s\n", fc_last_error());                               \
    }                                                                                            \
  } while (0)

/* A setup step without which the rest of the program is meaningless: stop right here. */
#define REQUIRE_OK(call)                                                                         \
  do {                                                                                           \
    fc_status got_ = (call);                                                                     \
    if (got_ != FC_OK) {                                                                         \
      fprintf(stderr, "%s:%d: setup failed: %s returned %s: %s\n", __FILE__, __LINE__, #call,    \
              fc_status_string(got_), fc_last_error());                                          \
      exit(2);                                                                                   \
    }                                                                                            \
  } while (0)

static inline int check_report(void) {
  fprintf(stderr, "%d of %d checks failed\n", check_failures, check_count);
  return check_failures == 0 ? 0 : 1;
}

static inline void* check_malloc(size_t bytes) {
  void* p = malloc(bytes == 0 ? 1 : bytes);
  if (p == NULL) {
    fprintf(stderr, "out of memory allocating %lu bytes\n", (unsigned long)bytes);
    exit(2);
  }
  return p;
}

/* A fixed-seed generator (xorshift64*) so every run sees the same data. */
typedef struct check_rng { uint64_t state; } check_rng;

static inline double check_uniform(check_rng* g) {
  g->state ^= g->state >> 12;
  g->state ^= g->state << 25;
  g->state ^= g->state >> 27;
  return (double)((g->state * 2685821657736338717ULL) >> 11) * (1.0 / 9007199254740992.0);
}

static inline double check_gaussian(check_rng* g) { /* Box-Muller; one value per call is enough here */
  double u = check_uniform(g), v = check_uniform(g);
  if (u < 1e-300) u = 1e-300;
  return sqrt(-2.0 * log(u)) * cos(6.283185307179586 * v);
}

/* fMRI-like data in the R/MATLAB layout (T x N column-major: series s is x[s*T .. s*T+T-1]):
 * a few slow shared "network" signals mixed with series-specific weights, AR(1) noise, a large
 * series-specific baseline (as raw BOLD has, which tests the mean removal) and a linear drift.
 * Correlations then spread over (-1, 1) instead of clustering at 0. */
static inline void check_fmri_like(double* x, int64_t n, int64_t t, uint64_t seed) {
  enum { NETWORKS = 4 };
  check_rng g;
  int64_t s, k;
  int q;
  double* net = (double*)check_malloc(sizeof(double) * (size_t)(NETWORKS * t));
  g.state = seed * 0x9E3779B97F4A7C15ULL + 1;
  for (q = 0; q < NETWORKS; ++q) {
    double a = 0.0;
    for (k = 0; k < t; ++k) {
      a = 0.9 * a + check_gaussian(&g);
      net[q * t + k] = a + sin(0.05 * (double)(q + 1) * (double)k);
    }
  }
  for (s = 0; s < n; ++s) {
    double w[NETWORKS];
    double baseline = 1000.0 + 9000.0 * check_uniform(&g);
    double drift = 0.01 * check_gaussian(&g);
    double noise = 0.0;
    for (q = 0; q < NETWORKS; ++q) w[q] = check_gaussian(&g);
    for (k = 0; k < t; ++k) {
      double v = baseline + drift * (double)k;
      noise = 0.5 * noise + check_gaussian(&g);
      for (q = 0; q < NETWORKS; ++q) v += w[q] * net[q * t + k];
      x[s * t + k] = v + 0.7 * noise;
    }
  }
  free(net);
}

/* Pearson r of every pair, float64 two-pass, dense row-major n x n; x in the T x N layout above.
 * A plain textbook formula on purpose: it shares nothing with the library. */
static inline void check_reference_dense(const double* x, int64_t n, int64_t t, double* r) {
  double* z = (double*)check_malloc(sizeof(double) * (size_t)(n * t));
  int64_t i, j, k;
  for (i = 0; i < n; ++i) {
    double mean = 0.0, ss = 0.0;
    for (k = 0; k < t; ++k) mean += x[i * t + k];
    mean /= (double)t;
    for (k = 0; k < t; ++k) {
      z[i * t + k] = x[i * t + k] - mean;
      ss += z[i * t + k] * z[i * t + k];
    }
    for (k = 0; k < t; ++k) z[i * t + k] /= sqrt(ss);
  }
  for (i = 0; i < n; ++i)
    for (j = 0; j < n; ++j) {
      double dot = 0.0;
      for (k = 0; k < t; ++k) dot += z[i * t + k] * z[j * t + k];
      r[i * n + j] = (i == j) ? 1.0 : dot;
    }
  free(z);
}

/* Fill n floats with a sentinel bit pattern, and check that all of them still hold it. */
#define CHECK_SENTINEL (-12345.75f)

static inline void check_fill_sentinel(float* buf, int64_t n) {
  int64_t i;
  for (i = 0; i < n; ++i) buf[i] = CHECK_SENTINEL;
}

static inline int check_all_sentinel(const float* buf, int64_t n) {
  const float sentinel = CHECK_SENTINEL;
  int64_t i;
  for (i = 0; i < n; ++i)
    if (memcmp(&buf[i], &sentinel, sizeof(float)) != 0) return 0;
  return 1;
}

/* Two float arrays hold the same bits; on a mismatch says how many values differ and by how much. */
#define CHECK_SAME_BITS(a, b, n, what) check_same_bits((a), (b), (n), (what), __FILE__, __LINE__)

static inline void check_same_bits(const float* a, const float* b, int64_t n, const char* what, const char* file,
                                   int line) {
  int64_t i, differ = 0, first = -1;
  double worst = 0.0;
  ++check_count;
  for (i = 0; i < n; ++i)
    if (memcmp(&a[i], &b[i], sizeof(float)) != 0) {
      const double d = fabs((double)a[i] - (double)b[i]);
      if (first < 0) first = i;
      ++differ;
      if (!(d <= worst)) worst = d;
    }
  if (differ != 0) {
    ++check_failures;
    fprintf(stderr, "%s:%d: FAILED: %s: not bit-identical: %ld of %ld values differ (first at %ld: %.9g vs %.9g), "
            "max |difference| %.3g\n", file, line, what, (long)differ, (long)n, (long)first, (double)a[first],
            (double)b[first], worst);
  }
}

/* A CPU context with a series set made from x (T x N layout); exits on failure. */
static inline void check_make_cpu(const double* x, int64_t n, int64_t t, fc_context** ctx, fc_series** s) {
  REQUIRE_OK(fc_context_create(FC_BACKEND_CPU, -1, ctx));
  REQUIRE_OK(fc_series_create_f64(*ctx, x, n, t, t, 1, s));
}

#endif /* FASTCONN_TESTS_CHECK_H */
