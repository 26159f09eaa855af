/* Leiden from C99: every status path of fc_leiden and fc_leiden_options_default (and fc_leiden_v2's
 * own: its defaults, the synchronous algorithm, a short options size), NULL handling,
 * every bad option named with its value, bad initial labels, short buffers left untouched, the
 * defined answers (no nodes, one node, isolated nodes, no edges), cancellation, and answers
 * derived by hand:
 *   two triangles {0,1,2}, {3,4,5} joined by the edge (2,3): modularity's best split is the
 *     triangles, Q = 5/14 (tests/c/test_modularity.c derives it); CPM H = sum_c (W_c - gamma n_c^2)
 *     (W_c from both ends): at gamma 0.5 the triangles give 2 (6 - 4.5) = 3, one community
 *     14 - 18 = -4, singletons -3: the triangles; at gamma 2 singletons (-12) beat the triangles
 *     (2 (6 - 18) = -24): every node alone, Newman's Q at gamma 1 = -34/196. */
#include "check.h"
#include "edge_graph.h"

static int cancel_first(int64_t done, int64_t total, void* user) {
  (void)done, (void)total, (void)user;
  return 1;
}

/* fc_leiden with `o`, expecting FC_ERR_INVALID_ARG and a message naming `field` and `value`. */
#define CHECK_BAD_OPTION(o, field, value)                                     \
  do {                                                                        \
    fc_modules* m_ = NULL;                                                    \
    CHECK_STATUS(fc_leiden(ctx, two, &(o), NULL, &m_), FC_ERR_INVALID_ARG);   \
    CHECK(m_ == NULL);                                                        \
    CHECK_ERROR_MENTIONS(field);                                              \
    CHECK_ERROR_MENTIONS(value);                                              \
  } while (0)

/* The labels of m into out (n of them), with K and Q. */
static void labels_of(const fc_modules* m, int64_t* out, int64_t n, int64_t* k, double* q) {
  int64_t nn = -1, splits = -1;
  CHECK_OK(fc_modules_info(m, &nn, k, q, &splits));
  CHECK(nn == n && splits == 0);
  CHECK_OK(fc_modules_labels(m, out, n));
}

int main(void) {
  const edge triangles[] = {{0, 1, 1}, {0, 2, 1}, {1, 2, 1}, {3, 4, 1}, {3, 5, 1}, {4, 5, 1}, {2, 3, 1}};
  const edge signed_edges[] = {{0, 1, 2}, {1, 2, 1}, {0, 2, 1}, {2, 3, -1}};
  const int64_t split_labels[6] = {0, 0, 0, 1, 1, 1};
  const int64_t together[6] = {7, 7, 7, 7, 7, 7};
  int64_t bad_labels[6] = {0, 0, 0, -2, 1, 1};
  fc_context* ctx = NULL;
  fc_graph *two, *two_isolated, *signed_graph, *none, *single, *empty;
  fc_modules* m = NULL;
  fc_leiden_options o, bad;
  int64_t labels[16], k = -1, i;
  double q = -7, q2 = -7;

  REQUIRE_OK(fc_context_create(FC_BACKEND_CPU, -1, &ctx));
  two = make_graph(6, triangles, 7);
  two_isolated = make_graph(8, triangles, 7); /* nodes 6 and 7 have no edge */
  signed_graph = make_graph(4, signed_edges, 4);
  none = make_graph(5, NULL, 0);
  single = make_graph(1, NULL, 0);
  empty = make_graph(0, NULL, 0);

  /* defaults */
  CHECK_STATUS(fc_leiden_options_default(NULL), FC_ERR_NULL_ARG);
  CHECK_ERROR_MENTIONS("options");
  REQUIRE_OK(fc_leiden_options_default(&o));
  CHECK(o.resolution == 1.0 && o.randomness == 1e-4 && o.seed == 1 && o.max_iterations == 0 &&
        o.quality == FC_LEIDEN_MODULARITY && o.signed_mode == FC_SIGNED_GOMEZ);

  /* NULL arguments: out untouched */
  CHECK_STATUS(fc_leiden(NULL, two, &o, NULL, &m), FC_ERR_NULL_ARG);
  CHECK_ERROR_MENTIONS("ctx");
  CHECK_STATUS(fc_leiden(ctx, NULL, &o, NULL, &m), FC_ERR_NULL_ARG);
  CHECK_ERROR_MENTIONS("graph");
  CHECK_STATUS(fc_leiden(ctx, two, &o, NULL, NULL), FC_ERR_NULL_ARG);
  CHECK_ERROR_MENTIONS("out");
  CHECK(m == NULL);

  /* every bad option, named with its value */
  bad = o, bad.resolution = 0.0;
  CHECK_BAD_OPTION(bad, "options->resolution", "0 is not");
  bad = o, bad.resolution = -1.5;
  CHECK_BAD_OPTION(bad, "options->resolution", "-1.5");
  bad = o, bad.resolution = NAN;
  CHECK_BAD_OPTION(bad, "options->resolution", "nan");
  bad = o, bad.resolution = INFINITY;
  CHECK_BAD_OPTION(bad, "options->resolution", "inf");
  bad = o, bad.randomness = 0.0;
  CHECK_BAD_OPTION(bad, "options->randomness", "0 is not");
  bad = o, bad.randomness = NAN;
  CHECK_BAD_OPTION(bad, "options->randomness", "nan");
  bad = o, bad.max_iterations = -3;
  CHECK_BAD_OPTION(bad, "options->max_iterations", "-3");
  bad = o, bad.quality = 2;
  CHECK_BAD_OPTION(bad, "options->quality", "2 is not");
  bad = o, bad.quality = -1;
  CHECK_BAD_OPTION(bad, "options->quality", "-1 is not");
  bad = o, bad.signed_mode = 7;
  CHECK_BAD_OPTION(bad, "options->signed_mode", "7 is not");
  bad = o, bad.quality = FC_LEIDEN_CPM, bad.resolution = 1e306; /* gamma n^2 overflows */
  CHECK_BAD_OPTION(bad, "options->resolution", "overflows");
  CHECK_STATUS(fc_leiden(ctx, two, &o, bad_labels, &m), FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("initial_labels[3] = -2");
  CHECK(m == NULL);

  /* the triangles, Q = 5/14, the same Q as fc_modularity_score; options NULL = defaults */
  REQUIRE_OK(fc_leiden(ctx, two, NULL, NULL, &m));
  labels_of(m, labels, 6, &k, &q);
  CHECK(k == 2 && fabs(q - 5.0 / 14) < 1e-12);
  for (i = 0; i < 6; ++i) CHECK(labels[i] == split_labels[i]);
  CHECK_OK(fc_modularity_score(two, labels, 1.0, &q2));
  CHECK(q == q2);
  /* short buffers are left untouched */
  for (i = 0; i < 6; ++i) labels[i] = -9;
  CHECK_STATUS(fc_modules_labels(m, labels, 5), FC_ERR_BUFFER_TOO_SMALL);
  CHECK_ERROR_MENTIONS("capacity 5");
  for (i = 0; i < 6; ++i) CHECK(labels[i] == -9);
  fc_modules_destroy(m);
  m = NULL;

  /* initial labels: one community of all six still gives the triangles; the triangles stay */
  REQUIRE_OK(fc_leiden(ctx, two, &o, together, &m));
  labels_of(m, labels, 6, &k, &q);
  CHECK(k == 2 && fabs(q - 5.0 / 14) < 1e-12);
  fc_modules_destroy(m);
  bad = o, bad.max_iterations = 1;
  REQUIRE_OK(fc_leiden(ctx, two, &bad, split_labels, &m));
  labels_of(m, labels, 6, &k, &q);
  for (i = 0; i < 6; ++i) CHECK(labels[i] == split_labels[i]);
  fc_modules_destroy(m);

  /* CPM: the triangles at gamma 0.5, every node alone at gamma 2; Q is Newman's at gamma 1 */
  bad = o, bad.quality = FC_LEIDEN_CPM, bad.resolution = 0.5;
  REQUIRE_OK(fc_leiden(ctx, two, &bad, NULL, &m));
  labels_of(m, labels, 6, &k, &q);
  CHECK(k == 2 && fabs(q - 5.0 / 14) < 1e-12);
  fc_modules_destroy(m);
  bad.resolution = 2.0;
  REQUIRE_OK(fc_leiden(ctx, two, &bad, together, &m));
  labels_of(m, labels, 6, &k, &q);
  CHECK(k == 6 && fabs(q + 34.0 / 196) < 1e-12);
  fc_modules_destroy(m);

  /* isolated nodes are communities of their own, whatever their initial label */
  REQUIRE_OK(fc_leiden(ctx, two_isolated, &o, NULL, &m));
  labels_of(m, labels, 8, &k, &q);
  CHECK(k == 4 && labels[6] == 2 && labels[7] == 3 && fabs(q - 5.0 / 14) < 1e-12);
  fc_modules_destroy(m);
  {
    const int64_t same[8] = {1, 1, 1, 1, 1, 1, 1, 1};
    REQUIRE_OK(fc_leiden(ctx, two_isolated, &o, same, &m));
    labels_of(m, labels, 8, &k, &q);
    CHECK(k == 4 && labels[6] == 2 && labels[7] == 3);
    fc_modules_destroy(m);
  }

  /* signed graph (Gomez): {0,1,2} against 3, Q = 0.1 (tests/c/test_modularity.c) */
  REQUIRE_OK(fc_leiden(ctx, signed_graph, &o, NULL, &m));
  labels_of(m, labels, 4, &k, &q);
  CHECK(k == 2 && labels[0] == 0 && labels[1] == 0 && labels[2] == 0 && labels[3] == 1 && fabs(q - 0.1) < 1e-12);
  fc_modules_destroy(m);

  /* fc_leiden_v2 from C: the defaults (the queue: fc_leiden's answer), the synchronous algorithm's
   * triangles, a size below this version's named, the empty graph */
  {
    fc_leiden_options_v2 o2;
    CHECK_OK(fc_leiden_options_v2_default(&o2));
    CHECK(o2.size == sizeof(fc_leiden_options_v2) && o2.algorithm == FC_LEIDEN_QUEUE && o2.base.seed == 1);
    REQUIRE_OK(fc_leiden_v2(ctx, two, &o2, NULL, &m));
    labels_of(m, labels, 6, &k, &q);
    CHECK(k == 2 && q == q2);
    fc_modules_destroy(m);
    o2.algorithm = FC_LEIDEN_SYNCHRONOUS;
    REQUIRE_OK(fc_leiden_v2(ctx, two, &o2, NULL, &m));
    labels_of(m, labels, 6, &k, &q);
    CHECK(k == 2 && fabs(q - 5.0 / 14) < 1e-12);
    for (i = 0; i < 6; ++i) CHECK(labels[i] == split_labels[i]);
    fc_modules_destroy(m);
    REQUIRE_OK(fc_leiden_v2(ctx, empty, &o2, NULL, &m));
    labels_of(m, labels, 0, &k, &q);
    CHECK(k == 0 && q == 0);
    fc_modules_destroy(m);
    m = NULL;
    o2.size = 8;
    CHECK_STATUS(fc_leiden_v2(ctx, two, &o2, NULL, &m), FC_ERR_INVALID_ARG);
    CHECK_ERROR_MENTIONS("options->size 8");
    CHECK(m == NULL);
  }

  /* no edges, one node, no nodes */
  REQUIRE_OK(fc_leiden(ctx, none, &o, NULL, &m));
  labels_of(m, labels, 5, &k, &q);
  CHECK(k == 5 && q == 0);
  for (i = 0; i < 5; ++i) CHECK(labels[i] == i);
  fc_modules_destroy(m);
  REQUIRE_OK(fc_leiden(ctx, single, &o, NULL, &m));
  labels_of(m, labels, 1, &k, &q);
  CHECK(k == 1 && q == 0 && labels[0] == 0);
  fc_modules_destroy(m);
  REQUIRE_OK(fc_leiden(ctx, empty, &o, NULL, &m));
  labels_of(m, labels, 0, &k, &q);
  CHECK(k == 0 && q == 0);
  fc_modules_destroy(m);
  m = NULL;

  /* the progress callback cancels */
  REQUIRE_OK(fc_context_set_progress(ctx, cancel_first, NULL));
  CHECK_STATUS(fc_leiden(ctx, two, &o, NULL, &m), FC_ERR_ABORTED);
  CHECK(m == NULL);
  REQUIRE_OK(fc_context_set_progress(ctx, NULL, NULL));

  fc_graph_destroy(two);
  fc_graph_destroy(two_isolated);
  fc_graph_destroy(signed_graph);
  fc_graph_destroy(none);
  fc_graph_destroy(single);
  fc_graph_destroy(empty);
  fc_context_destroy(ctx);
  return check_report();
}
