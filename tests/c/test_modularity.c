/* Modules from C99: every status path of fc_modularity, fc_modules_* and fc_modularity_score,
 * NULL handling, every bad option named with its value, bad labels, short buffers left untouched,
 * the defined answers (no nodes, one node, isolated nodes, no edges), cancellation, and Q against
 * values derived by hand:
 *   two triangles {0,1,2}, {3,4,5} joined by the edge (2,3): 2m = 14, degrees 2,2,3,3,2,2;
 *     split into the triangles: W_in = 6 + 6, K = 7, 7: Q = (12 - (49 + 49) / 14) / 14 = 5/14;
 *     at gamma = 0.5: (12 - 0.5 * 7) / 14 = 8.5/14; singletons: -(4+4+9+9+4+4) / 14^2 = -34/196;
 *     one community: (14 - 14^2 / 14) / 14 = 0.
 *   the signed graph (0,1,2) (1,2,1) (0,2,1) (2,3,-1), labels {0,0,0,1} (Gomez et al. 2009):
 *     2w+ = 8, 2w- = 2, Q+ = (8 - 64/8) / 8 = 0, Q- = (0 - (1 + 1) / 2) / 2 = -0.5,
 *     Q = (8 Q+ - 2 Q-) / 10 = 0.1.
 *   Rubinov and Sporns' Q* = Q+ - (w- / (w+ + w-)) Q- on two groups {0,1,2,3}, {4,5,6,7}, each
 *     with positive edges (0,1) (0,2) (1,2) (1,3) (2,3) of weight 2 (mirrored: (4,5) (4,6) (5,6)
 *     (5,7) (6,7)) and a negative edge inside, (0,3) and (4,7) of weight -1; across them the
 *     positive (3,4) of weight 1 and the negative (2,5) of weight -1. Labels {0,0,0,0,1,1,1,1}:
 *     2w+ = 42, k+ = 4,6,6,5 | 5,6,6,4, K+ = 21, 21, W+_in = 20 + 20;
 *     2w- = 6, k- = 1,0,1,1 | 1,1,0,1, K- = 3, 3, W-_in = 2 + 2;
 *     Q+ = (40 - (441 + 441) / 42) / 42 = 19/42, Q- = (4 - (9 + 9) / 6) / 6 = 1/6,
 *     Q* = 19/42 - (3/24)(1/6) = 145/336 (Gomez: (42 Q+ - 6 Q-) / 48 = 18/48 = 0.375). */
#include "check.h"

typedef struct edge { int64_t i, j; float w; } edge;

/* A graph from an undirected edge list (i != j, each pair once). */
static fc_graph* make_graph(int64_t n, const edge* e, int64_t m) {
  int64_t* offsets = (int64_t*)check_malloc(sizeof(int64_t) * (size_t)(n + 1));
  int64_t* columns = (int64_t*)check_malloc(sizeof(int64_t) * (size_t)(2 * m));
  float* weights = (float*)check_malloc(sizeof(float) * (size_t)(2 * m));
  int64_t* fill = (int64_t*)check_malloc(sizeof(int64_t) * (size_t)(n + 1));
  int64_t v, x, y;
  fc_graph* g = NULL;
  for (v = 0; v <= n; ++v) offsets[v] = 0;
  for (x = 0; x < m; ++x) {
    ++offsets[e[x].i + 1];
    ++offsets[e[x].j + 1];
  }
  for (v = 0; v < n; ++v) offsets[v + 1] += offsets[v];
  for (v = 0; v < n; ++v) fill[v] = offsets[v];
  for (x = 0; x < m; ++x) {
    columns[fill[e[x].i]] = e[x].j;
    weights[fill[e[x].i]++] = e[x].w;
    columns[fill[e[x].j]] = e[x].i;
    weights[fill[e[x].j]++] = e[x].w;
  }
  for (v = 0; v < n; ++v) /* insertion sort of each row by column */
    for (x = offsets[v] + 1; x < offsets[v + 1]; ++x)
      for (y = x; y > offsets[v] && columns[y - 1] > columns[y]; --y) {
        int64_t c = columns[y];
        float w = weights[y];
        columns[y] = columns[y - 1];
        weights[y] = weights[y - 1];
        columns[y - 1] = c;
        weights[y - 1] = w;
      }
  REQUIRE_OK(fc_graph_create_csr(n, offsets, columns, weights, &g));
  free(offsets);
  free(columns);
  free(weights);
  free(fill);
  return g;
}

typedef struct progress_log { int calls, cancel_at, monotone; int64_t last_done, last_total; } progress_log;

static int on_progress(int64_t done, int64_t total, void* user) {
  progress_log* log = (progress_log*)user;
  ++log->calls;
  if (done < log->last_done || done > total) log->monotone = 0;
  log->last_done = done;
  log->last_total = total;
  return log->cancel_at != 0 && log->calls >= log->cancel_at;
}

/* fc_modularity with `o`, expecting FC_ERR_INVALID_ARG and a message naming `field` and `value`. */
#define CHECK_BAD_OPTION(o, field, value)                                  \
  do {                                                                     \
    fc_modules* m_ = NULL;                                                 \
    CHECK_STATUS(fc_modularity(ctx, two, &(o), &m_), FC_ERR_INVALID_ARG);  \
    CHECK(m_ == NULL);                                                     \
    CHECK_ERROR_MENTIONS(field);                                           \
    CHECK_ERROR_MENTIONS(value);                                           \
  } while (0)

int main(void) {
  const edge triangles[] = {{0, 1, 1}, {0, 2, 1}, {1, 2, 1}, {3, 4, 1}, {3, 5, 1}, {4, 5, 1}, {2, 3, 1}};
  const edge signed_edges[] = {{0, 1, 2}, {1, 2, 1}, {0, 2, 1}, {2, 3, -1}};
  const edge negative_inside[] = {{0, 1, 2}, {0, 2, 2}, {1, 2, 2}, {1, 3, 2}, {2, 3, 2}, {0, 3, -1},
                                  {4, 5, 2}, {4, 6, 2}, {5, 6, 2}, {5, 7, 2}, {6, 7, 2}, {4, 7, -1},
                                  {3, 4, 1}, {2, 5, -1}};
  const int64_t inside_labels[8] = {0, 0, 0, 0, 1, 1, 1, 1};
  edge cliques[31];
  fc_context* ctx = NULL;
  fc_graph *two, *two_isolated, *signed_graph, *signed_inside, *none, *single, *empty, *planted;
  fc_modules* m = NULL;
  fc_modularity_options o, bad;
  int64_t labels[16], parent[4], child_a[4], child_b[4], iterations[4];
  double eigenvalue[4], gain[4], residual[4], q = -7, q2 = -7;
  int64_t n = -1, k = -1, splits = -1, i, j, x;
  progress_log log;
  const int64_t split_labels[6] = {0, 0, 0, 1, 1, 1};
  int64_t any_labels[6] = {5, 5, 5, 900000000000LL, 900000000000LL, 900000000000LL};
  const int64_t singletons[6] = {0, 1, 2, 3, 4, 5};
  const int64_t together[6] = {3, 3, 3, 3, 3, 3};
  const int64_t signed_labels[4] = {0, 0, 0, 1};
  int64_t bad_labels[6] = {0, 0, 0, -2, 1, 1};

  REQUIRE_OK(fc_context_create(FC_BACKEND_CPU, -1, &ctx));
  two = make_graph(6, triangles, 7);
  {
    edge e[8];
    for (x = 0; x < 7; ++x) e[x] = triangles[x];
    two_isolated = make_graph(8, e, 7); /* nodes 6 and 7 have no edge */
  }
  signed_graph = make_graph(4, signed_edges, 4);
  signed_inside = make_graph(8, negative_inside, 14);
  none = make_graph(5, NULL, 0);
  single = make_graph(1, NULL, 0);
  empty = make_graph(0, NULL, 0);
  /* two 6-cliques {0..5}, {6..11} joined by the one edge (5, 6) */
  x = 0;
  for (i = 0; i < 6; ++i)
    for (j = i + 1; j < 6; ++j) {
      cliques[x].i = i, cliques[x].j = j, cliques[x++].w = 1;
      cliques[x].i = i + 6, cliques[x].j = j + 6, cliques[x++].w = 1;
    }
  cliques[x].i = 5, cliques[x].j = 6, cliques[x++].w = 1;
  planted = make_graph(12, cliques, x);

  /* defaults */
  CHECK_STATUS(fc_modularity_options_default(NULL), FC_ERR_NULL_ARG);
  REQUIRE_OK(fc_modularity_options_default(&o));
  CHECK(o.eigen_threshold == 1e-8 && o.resolution == 1.0 && o.max_communities == 0 && o.min_community_size == 1 &&
        o.seed == 1 && o.signed_mode == FC_SIGNED_GOMEZ && o.refine == 1);

  /* NULL arguments */
  CHECK_STATUS(fc_modularity(NULL, two, &o, &m), FC_ERR_NULL_ARG);
  CHECK_ERROR_MENTIONS("ctx");
  CHECK_STATUS(fc_modularity(ctx, NULL, &o, &m), FC_ERR_NULL_ARG);
  CHECK_ERROR_MENTIONS("graph");
  CHECK_STATUS(fc_modularity(ctx, two, &o, NULL), FC_ERR_NULL_ARG);
  CHECK_ERROR_MENTIONS("out");
  CHECK(m == NULL);
  CHECK_STATUS(fc_modules_info(NULL, &n, &k, &q, &splits), FC_ERR_NULL_ARG);
  CHECK_STATUS(fc_modules_labels(NULL, labels, 16), FC_ERR_NULL_ARG);
  CHECK_STATUS(fc_modules_splits(NULL, parent, child_a, child_b, eigenvalue, gain, iterations, residual, 4), FC_ERR_NULL_ARG);
  fc_modules_destroy(NULL);
  CHECK_STATUS(fc_modularity_score(NULL, split_labels, 1.0, &q), FC_ERR_NULL_ARG);
  CHECK_STATUS(fc_modularity_score(two, NULL, 1.0, &q), FC_ERR_NULL_ARG);
  CHECK_STATUS(fc_modularity_score(two, split_labels, 1.0, NULL), FC_ERR_NULL_ARG);
  CHECK_ERROR_MENTIONS("q");

  /* every bad option, named with its value */
  bad = o, bad.resolution = 0.0;
  CHECK_BAD_OPTION(bad, "resolution", "0");
  bad = o, bad.resolution = -1.5;
  CHECK_BAD_OPTION(bad, "resolution", "-1.5");
  bad = o, bad.resolution = INFINITY;
  CHECK_BAD_OPTION(bad, "resolution", "inf");
  bad = o, bad.resolution = NAN;
  CHECK_BAD_OPTION(bad, "resolution", "nan");
  bad = o, bad.resolution = 1e308; /* finite, but times the total weight it overflows (fuzzer) */
  CHECK_BAD_OPTION(bad, "resolution", "1e+308");
  bad = o, bad.eigen_threshold = -0.25;
  CHECK_BAD_OPTION(bad, "eigen_threshold", "-0.25");
  bad = o, bad.eigen_threshold = NAN;
  CHECK_BAD_OPTION(bad, "eigen_threshold", "nan");
  bad = o, bad.max_communities = -3;
  CHECK_BAD_OPTION(bad, "max_communities", "-3");
  bad = o, bad.min_community_size = 0;
  CHECK_BAD_OPTION(bad, "min_community_size", "0");
  bad = o, bad.signed_mode = 7;
  CHECK_BAD_OPTION(bad, "signed_mode", "7");
  bad = o, bad.signed_mode = -1;
  CHECK_BAD_OPTION(bad, "signed_mode", "-1");
  bad = o, bad.refine = 2;
  CHECK_BAD_OPTION(bad, "refine", "2");

  /* the two triangles: split exactly, Q = 5/14, one split 0 -> (1, 2) */
  REQUIRE_OK(fc_modularity(ctx, two, NULL, &m));
  CHECK_OK(fc_modules_info(m, &n, &k, &q, &splits));
  CHECK(n == 6 && k == 2 && splits == 1);
  CHECK(fabs(q - 5.0 / 14.0) < 1e-12);
  CHECK_OK(fc_modules_info(m, NULL, NULL, NULL, NULL));
  /* short buffers: an error, and the outputs untouched */
  for (x = 0; x < 16; ++x) labels[x] = -7;
  CHECK_STATUS(fc_modules_labels(m, labels, 5), FC_ERR_BUFFER_TOO_SMALL);
  CHECK_ERROR_MENTIONS("5");
  for (x = 0; x < 16; ++x) CHECK(labels[x] == -7);
  CHECK_STATUS(fc_modules_labels(m, NULL, 6), FC_ERR_NULL_ARG);
  CHECK_OK(fc_modules_labels(m, labels, 6));
  for (x = 0; x < 6; ++x) CHECK(labels[x] == split_labels[x]);
  CHECK(labels[6] == -7);
  parent[0] = -7;
  CHECK_STATUS(fc_modules_splits(m, parent, child_a, child_b, eigenvalue, gain, iterations, residual, 0),
               FC_ERR_BUFFER_TOO_SMALL);
  CHECK(parent[0] == -7);
  CHECK_OK(fc_modules_splits(m, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 1));
  CHECK_OK(fc_modules_splits(m, parent, child_a, child_b, eigenvalue, gain, iterations, residual, 4));
  CHECK(parent[0] == 0 && child_a[0] == 1 && child_b[0] == 2);
  /* the residual within a split's tolerance, kSplitTolerance = 5e-3 (src/modules/modularity.hpp)
   * x (theta + ||B^(g)||), with ||B^(g)|| <= 4 k_max = 12 here (tests/cpp/test_modularity.cpp) */
  CHECK(eigenvalue[0] > 0 && iterations[0] >= 1 && residual[0] >= 0 && residual[0] <= 5e-3 * (eigenvalue[0] + 12));
  CHECK(fabs(gain[0] - 5.0 / 14.0) < 1e-12); /* from Q = 0 (one community) */
  fc_modules_destroy(m);
  m = NULL;

  /* fc_modularity_score against the hand-derived values */
  CHECK_OK(fc_modularity_score(two, split_labels, 1.0, &q));
  CHECK(fabs(q - 5.0 / 14.0) < 1e-15);
  CHECK_OK(fc_modularity_score(two, any_labels, 1.0, &q));
  CHECK(fabs(q - 5.0 / 14.0) < 1e-15);
  CHECK_OK(fc_modularity_score(two, split_labels, 0.5, &q));
  CHECK(fabs(q - 8.5 / 14.0) < 1e-15);
  CHECK_OK(fc_modularity_score(two, singletons, 1.0, &q));
  CHECK(fabs(q + 34.0 / 196.0) < 1e-15);
  CHECK_OK(fc_modularity_score(two, together, 1.0, &q));
  CHECK(fabs(q) < 1e-15);
  CHECK_OK(fc_modularity_score(signed_graph, signed_labels, 1.0, &q));
  CHECK(fabs(q - 0.1) < 1e-15);
  q = -7;
  CHECK_STATUS(fc_modularity_score(two, bad_labels, 1.0, &q), FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("labels[3]");
  CHECK_ERROR_MENTIONS("-2");
  CHECK(q == -7);
  CHECK_STATUS(fc_modularity_score(two, split_labels, 0.0, &q), FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("gamma");
  CHECK_STATUS(fc_modularity_score(two, split_labels, NAN, &q), FC_ERR_INVALID_ARG);
  CHECK(q == -7);
  CHECK_STATUS(fc_modularity_score(two, split_labels, 1e308, &q), FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("overflows");
  CHECK(q == -7);
  CHECK_OK(fc_modularity_score(none, singletons, 1.0, &q)); /* no edges: Q = 0 */
  CHECK(q == 0.0);
  CHECK_OK(fc_modularity_score(empty, singletons, 1.0, &q));
  CHECK(q == 0.0);

  /* the options act: no split past max_communities, below min_community_size or the threshold */
  bad = o, bad.max_communities = 1;
  REQUIRE_OK(fc_modularity(ctx, two, &bad, &m));
  CHECK_OK(fc_modules_info(m, NULL, &k, &q, &splits));
  CHECK(k == 1 && splits == 0 && fabs(q) < 1e-15);
  fc_modules_destroy(m);
  bad = o, bad.min_community_size = 4;
  REQUIRE_OK(fc_modularity(ctx, two, &bad, &m));
  CHECK_OK(fc_modules_info(m, NULL, &k, &q, &splits));
  CHECK(k == 1 && splits == 0);
  fc_modules_destroy(m);
  /* the largest sizes (libFuzzer found 2 * min_community_size overflowing int64): no split, no UB */
  bad = o, bad.min_community_size = INT64_MAX;
  REQUIRE_OK(fc_modularity(ctx, two, &bad, &m));
  CHECK_OK(fc_modules_info(m, NULL, &k, &q, &splits));
  CHECK(k == 1 && splits == 0);
  fc_modules_destroy(m);
  bad = o, bad.min_community_size = INT64_MAX / 2 + 1;
  REQUIRE_OK(fc_modularity(ctx, two, &bad, &m));
  CHECK_OK(fc_modules_info(m, NULL, &k, &q, &splits));
  CHECK(k == 1 && splits == 0);
  fc_modules_destroy(m);
  bad = o, bad.eigen_threshold = 1e6;
  REQUIRE_OK(fc_modularity(ctx, two, &bad, &m));
  CHECK_OK(fc_modules_info(m, NULL, &k, &q, &splits));
  CHECK(k == 1 && splits == 0);
  fc_modules_destroy(m);
  bad = o, bad.refine = 0, bad.resolution = 0.5;
  REQUIRE_OK(fc_modularity(ctx, two, &bad, &m));
  CHECK_OK(fc_modules_info(m, NULL, &k, &q, NULL));
  CHECK_OK(fc_modularity_score(two, split_labels, 0.5, &q2));
  CHECK(k == 2 && fabs(q - q2) < 1e-12); /* gamma = 0.5 still splits the triangles */
  fc_modules_destroy(m);

  /* the planted two cliques: split exactly */
  REQUIRE_OK(fc_modularity(ctx, planted, &o, &m));
  CHECK_OK(fc_modules_info(m, &n, &k, &q, &splits));
  CHECK(n == 12 && k == 2);
  CHECK_OK(fc_modules_labels(m, labels, 16));
  for (x = 0; x < 12; ++x) CHECK(labels[x] == (x < 6 ? 0 : 1));
  /* Q = (2*15 + 2*15 - 2*31^2/62) / 62 = (60 - 31) / 62 */
  CHECK(fabs(q - 29.0 / 62.0) < 1e-12);
  fc_modules_destroy(m);

  /* defined answers: isolated nodes, no edges, one node, no node */
  REQUIRE_OK(fc_modularity(ctx, two_isolated, &o, &m));
  CHECK_OK(fc_modules_info(m, &n, &k, &q, NULL));
  CHECK(n == 8 && k == 4 && fabs(q - 5.0 / 14.0) < 1e-12);
  CHECK_OK(fc_modules_labels(m, labels, 8));
  CHECK(labels[0] == 0 && labels[2] == 0 && labels[3] == 1 && labels[5] == 1 && labels[6] == 2 && labels[7] == 3);
  fc_modules_destroy(m);
  REQUIRE_OK(fc_modularity(ctx, none, &o, &m));
  CHECK_OK(fc_modules_info(m, &n, &k, &q, &splits));
  CHECK(n == 5 && k == 5 && q == 0.0 && splits == 0);
  CHECK_OK(fc_modules_labels(m, labels, 5));
  for (x = 0; x < 5; ++x) CHECK(labels[x] == x);
  fc_modules_destroy(m);
  REQUIRE_OK(fc_modularity(ctx, single, &o, &m));
  CHECK_OK(fc_modules_info(m, &n, &k, &q, &splits));
  CHECK(n == 1 && k == 1 && q == 0.0 && splits == 0);
  CHECK_OK(fc_modules_labels(m, labels, 1));
  CHECK(labels[0] == 0);
  fc_modules_destroy(m);
  REQUIRE_OK(fc_modularity(ctx, empty, &o, &m));
  CHECK_OK(fc_modules_info(m, &n, &k, &q, &splits));
  CHECK(n == 0 && k == 0 && q == 0.0 && splits == 0);
  CHECK_OK(fc_modules_labels(m, labels, 0));
  fc_modules_destroy(m);

  /* the signed graph: fastconn's Q is the Gomez Q of its labels; Rubinov-Sporns runs too */
  REQUIRE_OK(fc_modularity(ctx, signed_graph, &o, &m));
  CHECK_OK(fc_modules_info(m, &n, &k, &q, NULL));
  CHECK_OK(fc_modules_labels(m, labels, 4));
  CHECK_OK(fc_modularity_score(signed_graph, labels, 1.0, &q2));
  CHECK(fabs(q - q2) < 1e-15 && q >= 0.1 - 1e-12);
  fc_modules_destroy(m);
  bad = o, bad.signed_mode = FC_SIGNED_RUBINOV;
  REQUIRE_OK(fc_modularity(ctx, signed_graph, &bad, &m));
  CHECK_OK(fc_modules_info(m, &n, &k, &q, NULL));
  CHECK(n == 4 && k >= 1 && q == q);
  fc_modules_destroy(m);
  /* Q* where negative edges lie inside the communities (derived above); the Gomez Q of the same
   * labels differs, so neither form can stand in for the other */
  REQUIRE_OK(fc_modularity(ctx, signed_inside, &bad, &m));
  CHECK_OK(fc_modules_info(m, &n, &k, &q, NULL));
  CHECK_OK(fc_modules_labels(m, labels, 8));
  CHECK(n == 8 && k == 2);
  for (x = 0; x < 8; ++x) CHECK(labels[x] == inside_labels[x]);
  CHECK(fabs(q - 145.0 / 336.0) < 1e-12);
  fc_modules_destroy(m);
  REQUIRE_OK(fc_modularity(ctx, signed_inside, &o, &m));
  CHECK_OK(fc_modules_info(m, &n, &k, &q, NULL));
  CHECK_OK(fc_modules_labels(m, labels, 8));
  for (x = 0; x < 8; ++x) CHECK(labels[x] == inside_labels[x]);
  CHECK(fabs(q - 0.375) < 1e-12);
  CHECK_OK(fc_modularity_score(signed_inside, inside_labels, 1.0, &q2));
  CHECK(fabs(q2 - 0.375) < 1e-12);
  fc_modules_destroy(m);

  /* progress: monotone up to the total; a non-zero return cancels with FC_ERR_ABORTED */
  memset(&log, 0, sizeof log);
  log.monotone = 1;
  REQUIRE_OK(fc_context_set_progress(ctx, on_progress, &log));
  REQUIRE_OK(fc_modularity(ctx, two_isolated, &o, &m));
  CHECK(log.calls >= 2 && log.monotone && log.last_done == 8 && log.last_total == 8);
  fc_modules_destroy(m);
  memset(&log, 0, sizeof log);
  log.monotone = 1;
  log.cancel_at = 1;
  m = NULL;
  CHECK_STATUS(fc_modularity(ctx, two_isolated, &o, &m), FC_ERR_ABORTED);
  CHECK_ERROR_MENTIONS("cancel");
  CHECK(m == NULL && log.calls == 1);
  REQUIRE_OK(fc_context_set_progress(ctx, NULL, NULL));

  fc_graph_destroy(two);
  fc_graph_destroy(two_isolated);
  fc_graph_destroy(signed_graph);
  fc_graph_destroy(signed_inside);
  fc_graph_destroy(none);
  fc_graph_destroy(single);
  fc_graph_destroy(empty);
  fc_graph_destroy(planted);
  fc_context_destroy(ctx);
  return check_report();
}
