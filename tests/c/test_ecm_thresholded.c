/* Thresholded ECM (fc_pcc_ecm_thresholded, issue 34) through the C header: every bad value refused
 * with its status and a message naming it, outputs untouched; the answer is the eigenvector
 * centrality of fc_pcc_graph's network rescaled to unit norm (same bits up to that division);
 * the complete graph (density 1), a network without edges, a constant series, odd sizes. The
 * float64 accuracy against numpy's eigh and igraph is in bindings/python/tests/test_ecm_thresholded.py. */
#include "check.h"

enum { N = 7, T = 40 };

static void fill(double* c, int64_t n, double v) {
  int64_t i;
  for (i = 0; i < n; ++i) c[i] = v;
}

static int untouched(const double* c, int64_t n) {
  int64_t i;
  for (i = 0; i < n; ++i)
    if (c[i] != -7) return 0;
  return 1;
}

static void test_bad_input(void) {
  double x[N * T], c[N + 1], lambda = -7;
  fc_context *ctx, *other;
  fc_series* s;
  int64_t t;
  check_fmri_like(x, N, T, 11);
  for (t = 0; t < T; ++t) x[T + t] = -x[t]; /* r(0, 1) = -1: a negative edge for FC_GRAPH_WEIGHTED */
  check_make_cpu(x, N, T, &ctx, &s);
  REQUIRE_OK(fc_context_create(FC_BACKEND_CPU, -1, &other));
  fill(c, N + 1, -7);

  CHECK_STATUS(fc_pcc_ecm_thresholded(NULL, s, FC_EDGE_DENSITY, 0.2, FC_GRAPH_BINARY, 0, c, N, &lambda),
               FC_ERR_NULL_ARG);
  CHECK_ERROR_MENTIONS("ctx");
  CHECK_STATUS(fc_pcc_ecm_thresholded(ctx, NULL, FC_EDGE_DENSITY, 0.2, FC_GRAPH_BINARY, 0, c, N, &lambda),
               FC_ERR_NULL_ARG);
  CHECK_ERROR_MENTIONS("series");
  CHECK_STATUS(fc_pcc_ecm_thresholded(ctx, s, FC_EDGE_DENSITY, 0.2, FC_GRAPH_BINARY, 0, NULL, N, &lambda),
               FC_ERR_NULL_ARG);
  CHECK_ERROR_MENTIONS("centrality");
  CHECK_STATUS(fc_pcc_ecm_thresholded(ctx, s, FC_EDGE_DENSITY, 0.2, FC_GRAPH_BINARY, 0, c, N - 1, &lambda),
               FC_ERR_BUFFER_TOO_SMALL);
  CHECK_ERROR_MENTIONS("capacity 6");
  CHECK_STATUS(fc_pcc_ecm_thresholded(ctx, s, FC_EDGE_ABS_THRESHOLD, NAN, FC_GRAPH_BINARY, 0, c, N, &lambda),
               FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("NaN");
  CHECK_STATUS(fc_pcc_ecm_thresholded(ctx, s, FC_EDGE_THRESHOLD, NAN, FC_GRAPH_BINARY, 0, c, N, &lambda),
               FC_ERR_INVALID_ARG);
  CHECK_STATUS(fc_pcc_ecm_thresholded(ctx, s, FC_EDGE_DENSITY, -0.1, FC_GRAPH_BINARY, 0, c, N, &lambda),
               FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("-0.1");
  CHECK_STATUS(fc_pcc_ecm_thresholded(ctx, s, FC_EDGE_DENSITY, 1.5, FC_GRAPH_BINARY, 0, c, N, &lambda),
               FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("1.5");
  CHECK_STATUS(fc_pcc_ecm_thresholded(ctx, s, (fc_edge_rule)9, 0.5, FC_GRAPH_BINARY, 0, c, N, &lambda),
               FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("9");
  CHECK_STATUS(fc_pcc_ecm_thresholded(ctx, s, FC_EDGE_DENSITY, 0.2, 3, 0, c, N, &lambda), FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("3");
  CHECK_STATUS(fc_pcc_ecm_thresholded(ctx, s, FC_EDGE_DENSITY, 0.2, FC_GRAPH_BINARY, 0.5, c, N, &lambda),
               FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("tolerance");
  CHECK_STATUS(fc_pcc_ecm_thresholded(other, s, FC_EDGE_DENSITY, 0.2, FC_GRAPH_BINARY, 0, c, N, &lambda),
               FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("another context");
  /* r weights with negative edges (all pairs by |r|): Perron-Frobenius does not hold */
  CHECK_STATUS(fc_pcc_ecm_thresholded(ctx, s, FC_EDGE_DENSITY, 1.0, FC_GRAPH_WEIGHTED, 0, c, N, &lambda),
               FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("weight");
  CHECK(untouched(c, N + 1));
  CHECK(lambda == -7);
  fc_series_destroy(s);
  fc_context_destroy(other);
  fc_context_destroy(ctx);
}

/* The answer is fc_graph_eigenvector_centrality of fc_pcc_graph's network with its nodes without
 * edges set to 0 (exactly), over its L2 norm. */
static void test_is_graph_centrality(fc_context* ctx, const fc_series* s, int64_t n, fc_edge_rule rule, double param,
                                     int weights) {
  double* c = (double*)check_malloc((size_t)n * sizeof(double));
  double* g = (double*)check_malloc((size_t)n * sizeof(double));
  int64_t* degree = (int64_t*)check_malloc((size_t)n * sizeof(int64_t));
  double lambda = 0, glambda = 0, norm = 0, worst = 0;
  fc_graph* graph;
  int64_t i;
  CHECK_OK(fc_pcc_ecm_thresholded(ctx, s, rule, param, weights, 0, c, n, &lambda));
  REQUIRE_OK(fc_pcc_graph(ctx, s, rule, param, weights, &graph));
  CHECK_OK(fc_graph_eigenvector_centrality(ctx, graph, weights == FC_GRAPH_BINARY ? 0 : 1, 0, g, n, &glambda));
  fc_graph_destroy(graph);
  REQUIRE_OK(fc_pcc_degree(ctx, s, rule, param, degree, NULL));
  for (i = 0; i < n; ++i) {
    if (degree[i] == 0) g[i] = 0;
    norm += g[i] * g[i];
  }
  norm = sqrt(norm);
  for (i = 0; i < n; ++i) {
    const double d = fabs(c[i] - g[i] / norm);
    if (d > worst) worst = d;
    CHECK(c[i] >= 0);
    if (degree[i] == 0) CHECK(c[i] == 0);
  }
  CHECK(worst == 0);
  CHECK(lambda == glambda);
  free(c);
  free(g);
  free(degree);
}

static void test_answers(void) {
  double x[N * T], c[N], lambda = -7, norm = 0;
  fc_context* ctx;
  fc_series* s;
  int64_t i;
  check_fmri_like(x, N, T, 5);
  check_make_cpu(x, N, T, &ctx, &s);
  REQUIRE_OK(fc_context_set_precision(ctx, FC_PRECISION_FP64));
  fc_series_destroy(s);
  REQUIRE_OK(fc_series_create_f64(ctx, x, N, T, T, 1, &s));

  test_is_graph_centrality(ctx, s, N, FC_EDGE_DENSITY, 0.3, FC_GRAPH_BINARY);
  test_is_graph_centrality(ctx, s, N, FC_EDGE_ABS_THRESHOLD, 0.2, FC_GRAPH_WEIGHTED_ABS);
  test_is_graph_centrality(ctx, s, N, FC_EDGE_THRESHOLD, 0.1, FC_GRAPH_WEIGHTED);
  test_is_graph_centrality(ctx, s, N, FC_EDGE_TOP_K, 2, FC_GRAPH_BINARY);
  test_is_graph_centrality(ctx, s, N, FC_EDGE_DENSITY, 0.05, FC_GRAPH_BINARY); /* one edge: 5 isolated nodes */

  /* density 1, binary: the complete graph K_N, whose leading eigenvector is 1/sqrt(N), lambda N - 1 */
  CHECK_OK(fc_pcc_ecm_thresholded(ctx, s, FC_EDGE_DENSITY, 1.0, FC_GRAPH_BINARY, 0, c, N, &lambda));
  CHECK(fabs(lambda - (N - 1)) < 1e-12);
  for (i = 0; i < N; ++i) CHECK(fabs(c[i] - 1 / sqrt((double)N)) < 1e-12);

  /* |r| >= 1 holds for no pair of distinct series: no edges, 1/sqrt(N) everywhere, lambda 0 */
  CHECK_OK(fc_pcc_ecm_thresholded(ctx, s, FC_EDGE_ABS_THRESHOLD, 1.0, FC_GRAPH_BINARY, 0, c, N, &lambda));
  CHECK(lambda == 0);
  for (i = 0; i < N; ++i) CHECK(c[i] == 1 / sqrt((double)N));
  fc_series_destroy(s);

  /* a constant series never gets an edge: 0, and the others have unit norm; under either policy */
  for (i = 0; i < T; ++i) x[2 * T + i] = 4.0;
  REQUIRE_OK(fc_series_create_f64(ctx, x, N, T, T, 1, &s));
  CHECK_OK(fc_pcc_ecm_thresholded(ctx, s, FC_EDGE_DENSITY, 1.0, FC_GRAPH_BINARY, 0, c, N, &lambda));
  CHECK(c[2] == 0);
  CHECK(fabs(lambda - (N - 2)) < 1e-12);
  for (i = 0; i < N; ++i) norm += c[i] * c[i];
  CHECK(fabs(norm - 1) < 1e-12);
  fc_series_destroy(s);
  REQUIRE_OK(fc_context_set_constant_policy(ctx, FC_CONSTANT_ZERO));
  REQUIRE_OK(fc_series_create_f64(ctx, x, N, T, T, 1, &s));
  CHECK_OK(fc_pcc_ecm_thresholded(ctx, s, FC_EDGE_THRESHOLD, -1.0, FC_GRAPH_BINARY, 0, c, N, &lambda));
  CHECK(c[2] == 0);
  fc_series_destroy(s);

  /* odd sizes, complete graphs: one series (no pair), two, three */
  for (i = 1; i <= 3; ++i) {
    int64_t k;
    REQUIRE_OK(fc_series_create_f64(ctx, x + 3 * T, i, T, T, 1, &s));
    CHECK_OK(fc_pcc_ecm_thresholded(ctx, s, FC_EDGE_DENSITY, 1.0, FC_GRAPH_BINARY, 0, c, i, &lambda));
    for (k = 0; k < i; ++k) CHECK(fabs(c[k] - 1 / sqrt((double)i)) < 1e-12);
    fc_series_destroy(s);
  }
  fc_context_destroy(ctx);
}

int main(void) {
  test_bad_input();
  test_answers();
  return check_report();
}
