/* The network API from C99: every status path of fc_pcc_graph, fc_graph_* and fc_pcc_degree,
 * NULL handling, short buffers left untouched, fc_graph_create_csr naming the first bad entry,
 * and the edge list, CSR and degree of one graph agreeing with each other and with a float64
 * reference threshold (pairs within 1e-6 of it skipped). */
#include "check.h"

#define N 97
#define T 60

static int64_t count_reference_edges(const double* r, double threshold, int64_t* ambiguous) {
  int64_t i, j, edges = 0;
  *ambiguous = 0;
  for (i = 0; i < N; ++i)
    for (j = i + 1; j < N; ++j) {
      const double a = fabs(r[i * N + j]);
      if (fabs(a - threshold) <= 1e-6) ++*ambiguous;
      else if (a >= threshold) ++edges;
    }
  return edges;
}

int main(void) {
  double* x = (double*)check_malloc(sizeof(double) * N * T);
  double* r = (double*)check_malloc(sizeof(double) * N * N);
  fc_context* ctx;
  fc_series* s;
  fc_graph* g = NULL;
  int64_t n_nodes = -1, n_edges = -1, ambiguous = 0, expected, e, i, k;
  int64_t *offsets, *columns, *ei, *ej, *degree;
  float *weights, *ew;
  double* strength;
  fc_edge_rule bad_rule;
  int bad = 9;

  check_fmri_like(x, N, T, 4u);
  check_reference_dense(x, N, T, r);
  check_make_cpu(x, N, T, &ctx, &s);

  /* NULL and bad arguments */
  CHECK_STATUS(fc_pcc_graph(NULL, s, FC_EDGE_ABS_THRESHOLD, 0.5, FC_GRAPH_BINARY, &g), FC_ERR_NULL_ARG);
  CHECK_STATUS(fc_pcc_graph(ctx, NULL, FC_EDGE_ABS_THRESHOLD, 0.5, FC_GRAPH_BINARY, &g), FC_ERR_NULL_ARG);
  CHECK_STATUS(fc_pcc_graph(ctx, s, FC_EDGE_ABS_THRESHOLD, 0.5, FC_GRAPH_BINARY, NULL), FC_ERR_NULL_ARG);
  CHECK_ERROR_MENTIONS("out");
  memcpy(&bad_rule, &bad, sizeof bad_rule);
  CHECK_STATUS(fc_pcc_graph(ctx, s, bad_rule, 0.5, FC_GRAPH_BINARY, &g), FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("rule 9");
  CHECK_STATUS(fc_pcc_graph(ctx, s, FC_EDGE_TOP_K, 2.5, FC_GRAPH_BINARY, &g), FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("2.5");
  CHECK_STATUS(fc_pcc_graph(ctx, s, FC_EDGE_DENSITY, 1.25, FC_GRAPH_BINARY, &g), FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("1.25");
  CHECK_STATUS(fc_pcc_graph(ctx, s, FC_EDGE_ABS_THRESHOLD, 0.5, 3, &g), FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("weights 3");
  CHECK_STATUS(fc_pcc_degree(ctx, NULL, FC_EDGE_ABS_THRESHOLD, 0.5, NULL, NULL), FC_ERR_NULL_ARG);
  CHECK_STATUS(fc_graph_info(NULL, &n_nodes, &n_edges), FC_ERR_NULL_ARG);
  fc_graph_destroy(NULL);

  /* A graph at |r| >= 0.5, against the reference. */
  REQUIRE_OK(fc_pcc_graph(ctx, s, FC_EDGE_ABS_THRESHOLD, 0.5, FC_GRAPH_WEIGHTED, &g));
  CHECK_OK(fc_graph_info(g, &n_nodes, &n_edges));
  CHECK_OK(fc_graph_info(g, NULL, NULL));
  CHECK(n_nodes == N);
  expected = count_reference_edges(r, 0.5, &ambiguous);
  CHECK(n_edges >= expected && n_edges <= expected + ambiguous);
  CHECK(n_edges > 0);

  offsets = (int64_t*)check_malloc(sizeof(int64_t) * (N + 1));
  columns = (int64_t*)check_malloc(sizeof(int64_t) * (size_t)(2 * n_edges));
  weights = (float*)check_malloc(sizeof(float) * (size_t)(2 * n_edges));
  ei = (int64_t*)check_malloc(sizeof(int64_t) * (size_t)n_edges);
  ej = (int64_t*)check_malloc(sizeof(int64_t) * (size_t)n_edges);
  ew = (float*)check_malloc(sizeof(float) * (size_t)n_edges);
  degree = (int64_t*)check_malloc(sizeof(int64_t) * N);
  strength = (double*)check_malloc(sizeof(double) * N);

  /* Short buffers: FC_ERR_BUFFER_TOO_SMALL and nothing written. */
  check_fill_sentinel(weights, 2 * n_edges);
  for (i = 0; i <= N; ++i) offsets[i] = -5;
  CHECK_STATUS(fc_graph_csr(g, offsets, columns, weights, 2 * n_edges - 1), FC_ERR_BUFFER_TOO_SMALL);
  CHECK(check_all_sentinel(weights, 2 * n_edges));
  CHECK(offsets[0] == -5 && offsets[N] == -5);
  check_fill_sentinel(ew, n_edges);
  CHECK_STATUS(fc_graph_edges(g, ei, ej, ew, n_edges - 1), FC_ERR_BUFFER_TOO_SMALL);
  CHECK(check_all_sentinel(ew, n_edges));
  CHECK_STATUS(fc_graph_csr(g, NULL, columns, weights, 2 * n_edges), FC_ERR_NULL_ARG);
  CHECK_STATUS(fc_graph_edges(g, ei, NULL, ew, n_edges), FC_ERR_NULL_ARG);

  /* CSR, edge list and degree agree. */
  CHECK_OK(fc_graph_csr(g, offsets, columns, weights, 2 * n_edges));
  CHECK_OK(fc_graph_csr(g, offsets, columns, NULL, 2 * n_edges));
  CHECK_OK(fc_graph_edges(g, ei, ej, ew, n_edges));
  CHECK_OK(fc_pcc_degree(ctx, s, FC_EDGE_ABS_THRESHOLD, 0.5, degree, strength));
  CHECK(offsets[0] == 0 && offsets[N] == 2 * n_edges);
  for (i = 0, e = 0; i < N; ++i) {
    double sum = 0.0;
    CHECK(degree[i] == offsets[i + 1] - offsets[i]);
    for (k = offsets[i]; k < offsets[i + 1]; ++k) {
      sum += fabs((double)weights[k]);
      if (k > offsets[i] && columns[k] <= columns[k - 1]) CHECK(!"columns sorted within a row");
      CHECK(fabs((double)weights[k] - r[i * N + columns[k]]) <= 1e-5);
      if (columns[k] > i) {
        CHECK(e < n_edges && ei[e] == i && ej[e] == columns[k] && ew[e] == weights[k]);
        ++e;
      }
    }
    CHECK(fabs(sum - strength[i]) <= 1e-9);
  }
  CHECK(e == n_edges);

  /* The same arrays make the same graph; broken ones are refused, naming the entry. */
  {
    fc_graph* copy = NULL;
    int64_t c_nodes = 0, c_edges = 0, saved;
    CHECK_OK(fc_graph_create_csr(N, offsets, columns, weights, &copy));
    CHECK_OK(fc_graph_info(copy, &c_nodes, &c_edges));
    CHECK(c_nodes == N && c_edges == n_edges);
    fc_graph_destroy(copy);
    copy = NULL;
    CHECK_STATUS(fc_graph_create_csr(N, offsets, columns, weights, NULL), FC_ERR_NULL_ARG);
    CHECK_STATUS(fc_graph_create_csr(-1, offsets, columns, weights, &copy), FC_ERR_INVALID_ARG);
    saved = columns[3];
    columns[3] = N + 4;
    CHECK_STATUS(fc_graph_create_csr(N, offsets, columns, weights, &copy), FC_ERR_INVALID_ARG);
    CHECK_ERROR_MENTIONS("columns[3]");
    columns[3] = saved;
    weights[5] += 0.25f;
    CHECK_STATUS(fc_graph_create_csr(N, offsets, columns, weights, &copy), FC_ERR_INVALID_ARG);
    CHECK_ERROR_MENTIONS("weights[5]");
    weights[5] -= 0.25f;
    offsets[0] = 1;
    CHECK_STATUS(fc_graph_create_csr(N, offsets, columns, weights, &copy), FC_ERR_INVALID_ARG);
    CHECK_ERROR_MENTIONS("row_offsets[0]");
    offsets[0] = 0;
    {  /* a one-sided edge (0, 1): no mirror */
      const int64_t o[3] = {0, 1, 1}, c[1] = {1};
      CHECK_STATUS(fc_graph_create_csr(2, o, c, NULL, &copy), FC_ERR_INVALID_ARG);
      CHECK_ERROR_MENTIONS("columns[0]");
    }
    {  /* a self-loop */
      const int64_t o[3] = {0, 1, 1}, c[1] = {0};
      CHECK_STATUS(fc_graph_create_csr(2, o, c, NULL, &copy), FC_ERR_INVALID_ARG);
      CHECK_ERROR_MENTIONS("self-loop");
    }
    /* The triangle 0-1-2 in valid CSR, then broken one way at a time (issue 35): row_offsets that
     * decrease, a row's columns out of order, a column repeated. Each is named with its values. */
    {
      const int64_t o[4] = {0, 2, 4, 6}, c[6] = {1, 2, 0, 2, 0, 1};
      const int64_t decreasing[4] = {0, 2, 1, 6};
      const int64_t unsorted[6] = {2, 1, 0, 2, 0, 1};
      const int64_t repeated_o[4] = {0, 3, 5, 7}, repeated[7] = {1, 1, 2, 0, 2, 0, 1};
      CHECK_OK(fc_graph_create_csr(3, o, c, NULL, &copy));
      fc_graph_destroy(copy);
      copy = NULL;
      CHECK_STATUS(fc_graph_create_csr(3, decreasing, c, NULL, &copy), FC_ERR_INVALID_ARG);
      CHECK_ERROR_MENTIONS("row_offsets[2] = 1 is smaller than row_offsets[1] = 2");
      CHECK_STATUS(fc_graph_create_csr(3, o, unsorted, NULL, &copy), FC_ERR_INVALID_ARG);
      CHECK_ERROR_MENTIONS("columns[1] (row 0) = 1 is not greater than the column before it (2)");
      CHECK_ERROR_MENTIONS("sorted and unique");
      CHECK_STATUS(fc_graph_create_csr(3, repeated_o, repeated, NULL, &copy), FC_ERR_INVALID_ARG);
      CHECK_ERROR_MENTIONS("columns[1] (row 0) = 1 is not greater than the column before it (1)");
    }
    CHECK(copy == NULL);
  }

  fc_graph_destroy(g);
  fc_series_destroy(s);
  fc_context_destroy(ctx);
  free(x); free(r); free(offsets); free(columns); free(weights); free(ei); free(ej); free(ew); free(degree); free(strength);
  return check_report();
}
