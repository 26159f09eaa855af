/* The threshold rules keep r >= t (FC_EDGE_THRESHOLD) and |r| >= t (FC_EDGE_ABS_THRESHOLD),
 * equality included (issue 35), from C on the AUTO backend (CUDA where a device is usable, else
 * the CPU). Series 0-5 are exact: values 3 +- 2 in pairs of samples, so their normalized rows are
 * +-1/8 over T = 64 samples and +-1/4 over every window of 16 that begins at an even sample, and
 * every product and sum of products is exact: a copy correlates at exactly 1, a negated copy at
 * -1, two patterns at a multiple of 1/32. The other series are fMRI-like. For thresholds 1, -1 and
 * r values the library returned, fc_pcc_graph's edges, fc_pcc_degree, and per window
 * fc_dfc_next_graph's edges and fc_dfc_degree equal what the library's own triangle implies. */
#include "check.h"

#define N 40
#define T 64
#define L 16
#define STEP 8
#define W 7 /* (T - L) / STEP + 1 */
#define P (N * (N - 1) / 2)

typedef struct threshold { int absolute; float t; } threshold;

static int passes(float r, threshold th) { return r == r && (th.absolute ? fabsf(r) >= th.t : r >= th.t); }

/* The edges (i < j, ascending) and degrees the triangle implies; returns how many edges lie
 * exactly at the threshold. */
static int64_t expected(const float* tri, threshold th, int64_t* ei, int64_t* ej, int64_t* n_edges, int64_t* degree) {
  int64_t i, j, p = 0, at = 0;
  *n_edges = 0;
  for (i = 0; i < N; ++i) degree[i] = 0;
  for (i = 0; i < N; ++i)
    for (j = i + 1; j < N; ++j, ++p)
      if (passes(tri[p], th)) {
        ei[*n_edges] = i, ej[(*n_edges)++] = j;
        ++degree[i], ++degree[j];
        at += (th.absolute ? fabsf(tri[p]) : tri[p]) == th.t;
      }
  return at;
}

/* The graph holds exactly the edges (ei, ej). */
static int same_edges(const fc_graph* g, const int64_t* ei, const int64_t* ej, int64_t n_edges) {
  static int64_t gi[P], gj[P];
  int64_t n = -1, m = -1, e;
  if (fc_graph_info(g, &n, &m) != FC_OK || n != N || m != n_edges) return 0;
  if (fc_graph_edges(g, gi, gj, NULL, P) != FC_OK) return 0;
  for (e = 0; e < m; ++e)
    if (gi[e] != ei[e] || gj[e] != ej[e]) return 0;
  return 1;
}

static int same_degree(const int64_t* a, const int64_t* b) {
  int64_t i;
  for (i = 0; i < N; ++i)
    if (a[i] != b[i]) return 0;
  return 1;
}

/* 3 +- 2 in pairs (+2, -2) / (-2, +2), the signs from `seed`; `sign` -1 negates around 3. */
static void pattern(double* x, unsigned seed, double sign) {
  int64_t k;
  for (k = 0; k < T; k += 2) {
    const double s = ((seed >> (k / 2 % 31)) & 1u) ? 2.0 : -2.0;
    seed = seed * 1103515245u + 12345u;
    x[k] = 3.0 + sign * s;
    x[k + 1] = 3.0 - sign * s;
  }
}

/* Thresholds: 1 and -1 (first checked to be r of a copy and of a negated copy), then r and |r| of
 * the given pairs. Returns the count. */
static int thresholds(const float* tri, const int64_t (*pairs)[2], int n_pairs, threshold* out) {
  int k, c = 0;
  CHECK(tri[0] == 1.0f);  /* (0, 1): copies */
  CHECK(tri[1] == -1.0f); /* (0, 2): negated */
  out[c].absolute = 1, out[c++].t = 1.0f;
  out[c].absolute = 0, out[c++].t = 1.0f;
  out[c].absolute = 0, out[c++].t = -1.0f;
  for (k = 0; k < n_pairs; ++k) {
    const int64_t i = pairs[k][0], j = pairs[k][1];
    const float r = tri[i * (2 * N - i - 1) / 2 + (j - i - 1)];
    out[c].absolute = 1, out[c++].t = fabsf(r);
    out[c].absolute = 0, out[c++].t = r;
  }
  return c;
}

int main(void) {
  static double x[N * T];
  static float tri[P], all[W * P];
  static int64_t ei[P], ej[P], degree[W * N], expect[N];
  /* exact pairs (multiples of 1/32, 1/8 in a window) and, for graphs only, general ones (the
   * CUDA backend's fused FP32 degree may round a general r an ulp away from the triangle's) */
  const int64_t exact_pairs[][2] = {{0, 3}, {3, 5}, {2, 5}};
  const int64_t general_pairs[][2] = {{0, 3}, {3, 5}, {2, 5}, {7, 8}, {10, 31}};
  fc_context* ctx = NULL;
  fc_series* s = NULL;
  threshold list[16];
  int n_list, k, general;
  int64_t w, n_edges, at, i;

  check_fmri_like(x, N, T, 35u);
  pattern(x + 0 * T, 0x2545F491u, 1.0);
  for (i = 0; i < T; ++i) x[1 * T + i] = x[i], x[2 * T + i] = 6.0 - x[i];
  pattern(x + 3 * T, 0x9E3779B9u, 1.0);
  pattern(x + 4 * T, 0x9E3779B9u, -1.0);
  pattern(x + 5 * T, 0x7F4A7C15u, 1.0);
  REQUIRE_OK(fc_context_create(FC_BACKEND_AUTO, -1, &ctx));
  REQUIRE_OK(fc_context_set_threads(ctx, 1)); /* a hundred tiny calls: thread teams only cost here */
  REQUIRE_OK(fc_series_create_f64(ctx, x, N, T, T, 1, &s));
  REQUIRE_OK(fc_pcc_triu(ctx, s, FC_TRIU_ROW, tri, P));
  CHECK(tri[3 * (2 * N - 3 - 1) / 2 + (4 - 3 - 1)] == -1.0f); /* (3, 4) */

  /* one series set: graphs (general thresholds) and degree (exact ones) */
  for (general = 1; general >= 0; --general) {
    n_list = general ? thresholds(tri, general_pairs, 5, list) : thresholds(tri, exact_pairs, 3, list);
    for (k = 0; k < n_list; ++k) {
      const fc_edge_rule rule = list[k].absolute ? FC_EDGE_ABS_THRESHOLD : FC_EDGE_THRESHOLD;
      at = expected(tri, list[k], ei, ej, &n_edges, expect);
      CHECK(at > 0);
      if (general) {
        fc_graph* g = NULL;
        CHECK_OK(fc_pcc_graph(ctx, s, rule, (double)list[k].t, FC_GRAPH_BINARY, &g));
        if (!same_edges(g, ei, ej, n_edges)) {
          check_fail(__FILE__, __LINE__, "fc_pcc_graph's edges are the triangle's at the threshold");
          fprintf(stderr, "    %s %.9g: %lld edges expected, %lld at the threshold\n", list[k].absolute ? "|r| >=" : "r >=",
                  (double)list[k].t, (long long)n_edges, (long long)at);
        }
        fc_graph_destroy(g);
      } else {
        CHECK_OK(fc_pcc_degree(ctx, s, rule, (double)list[k].t, degree, NULL));
        if (!same_degree(degree, expect)) {
          check_fail(__FILE__, __LINE__, "fc_pcc_degree is the triangle's at the threshold");
          fprintf(stderr, "    %s %.9g\n", list[k].absolute ? "|r| >=" : "r >=", (double)list[k].t);
        }
      }
    }
  }

  /* every window: one threshold for all, each window against its own triangle */
  REQUIRE_OK(fc_dfc_triu(ctx, s, L, STEP, FC_TAPER_RECTANGULAR, 0.0, FC_TRIU_ROW, all, W * P));
  for (w = 0; w < W; ++w) {
    CHECK(all[w * P + 0] == 1.0f);
    CHECK(all[w * P + 1] == -1.0f);
  }
  for (general = 1; general >= 0; --general) {
    n_list = general ? thresholds(all, general_pairs, 5, list) : thresholds(all, exact_pairs, 3, list);
    for (k = 0; k < n_list; ++k) {
      const fc_edge_rule rule = list[k].absolute ? FC_EDGE_ABS_THRESHOLD : FC_EDGE_THRESHOLD;
      fc_dfc* it = NULL;
      int64_t total_at = 0;
      if (general) REQUIRE_OK(fc_dfc_begin(ctx, s, L, STEP, FC_TAPER_RECTANGULAR, 0.0, &it));
      else CHECK_OK(fc_dfc_degree(ctx, s, L, STEP, FC_TAPER_RECTANGULAR, 0.0, rule, (double)list[k].t, degree, NULL));
      for (w = 0; w < W; ++w) {
        total_at += expected(all + w * P, list[k], ei, ej, &n_edges, expect);
        if (general) {
          fc_graph* g = NULL;
          int64_t index = -1;
          CHECK_OK(fc_dfc_next_graph(it, rule, (double)list[k].t, FC_GRAPH_BINARY, &g, &index));
          CHECK(index == w);
          if (!same_edges(g, ei, ej, n_edges)) {
            check_fail(__FILE__, __LINE__, "fc_dfc_next_graph's edges are the window's triangle's at the threshold");
            fprintf(stderr, "    window %lld, %s %.9g\n", (long long)w, list[k].absolute ? "|r| >=" : "r >=", (double)list[k].t);
          }
          fc_graph_destroy(g);
        } else if (!same_degree(degree + w * N, expect)) {
          check_fail(__FILE__, __LINE__, "fc_dfc_degree is the window's triangle's at the threshold");
          fprintf(stderr, "    window %lld, %s %.9g\n", (long long)w, list[k].absolute ? "|r| >=" : "r >=", (double)list[k].t);
        }
      }
      CHECK(total_at > 0);
      fc_dfc_destroy(it);
    }
  }

  fc_series_destroy(s);
  fc_context_destroy(ctx);
  return check_report();
}
