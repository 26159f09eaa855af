/* Multilayer modularity from C99: every status path of fc_multilayer_modularity and its
 * accessors (and fc_multilayer_modularity_v2's own: its defaults, the queue bit for bit the
 * unversioned call, the synchronous algorithm, a short options size), NULL handling, n_layers 0, layers of different node counts (named), bad options and
 * per-layer resolutions (named with their value), short buffers and bad ld left untouched, the
 * outputs untouched on error, and an answer derived by hand:
 *   two layers, each two triangles {0,1,2}, {3,4,5} joined by the edge (2,3), ordinal omega = 1:
 *   the triangles in both layers with the same ids; per layer W_in = 12, 2m = 14, K = 7, 7, so
 *   W_in - (49 + 49) / 14 = 5; coupling 2 x omega x 6 = 12; 2 mu = 28 + 12:
 *   Q = (10 + 12) / 40 = 0.55, flexibility 0, allegiance 1 inside a triangle, 0 across. */
#include "check.h"
#include "edge_graph.h"

#define CHECK_BAD_OPTION(o, field, value)                                                  \
  do {                                                                                     \
    fc_multilayer* m_ = (fc_multilayer*)&sentinel;                                         \
    CHECK_STATUS(fc_multilayer_modularity(ctx, layers, 2, NULL, &(o), &m_), FC_ERR_INVALID_ARG); \
    CHECK(m_ == (fc_multilayer*)&sentinel);                                                \
    CHECK_ERROR_MENTIONS(field);                                                           \
    CHECK_ERROR_MENTIONS(value);                                                           \
  } while (0)

/* Three layers of n = 24 nodes in four planted groups of 6, with seeded (LCG) edges and weights:
 * enough for the node orders to matter, for fc_multilayer_modularity_v2's queue against
 * fc_multilayer_modularity. */
static void make_random_layers(fc_graph* out[3]) {
  edge e[24 * 23 / 2];
  uint64_t state = 12345;
  int64_t s, i, j, m;
  for (s = 0; s < 3; ++s) {
    m = 0;
    for (i = 0; i < 24; ++i)
      for (j = i + 1; j < 24; ++j) {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        if ((state >> 33) % 100 < (uint64_t)(i / 6 == j / 6 ? 60 : 8)) {
          e[m].i = i;
          e[m].j = j;
          e[m++].w = 0.25f + (float)((state >> 20) % 8) * 0.125f;
        }
      }
    out[s] = make_graph(24, e, m);
  }
}

/* Every output of two multilayer results equal, bit for bit (n x L <= 72 labels). */
static int same_result(const fc_multilayer* x, const fc_multilayer* y) {
  int64_t nx, lx, kx, ny, ly, ky, i;
  double qx, qy, fx[24], fy[24];
  int64_t labels_x[72], labels_y[72];
  if (fc_multilayer_info(x, &nx, &lx, &kx, &qx) != FC_OK || fc_multilayer_info(y, &ny, &ly, &ky, &qy) != FC_OK)
    return 0;
  if (nx != ny || lx != ly || kx != ky || qx != qy || nx > 24 || nx * lx > 72) return 0;
  if (fc_multilayer_labels(x, labels_x, 72) != FC_OK || fc_multilayer_labels(y, labels_y, 72) != FC_OK) return 0;
  if (fc_multilayer_flexibility(x, fx, 24) != FC_OK || fc_multilayer_flexibility(y, fy, 24) != FC_OK) return 0;
  for (i = 0; i < nx * lx; ++i)
    if (labels_x[i] != labels_y[i]) return 0;
  for (i = 0; i < nx; ++i)
    if (fx[i] != fy[i]) return 0;
  return 1;
}

int main(void) {
  const edge two_triangles[] = {{0, 1, 1}, {0, 2, 1}, {1, 2, 1}, {3, 4, 1}, {3, 5, 1}, {4, 5, 1}, {2, 3, 1}};
  const edge path[] = {{0, 1, 1}, {1, 2, 1}};
  int sentinel = 0;
  fc_context* ctx = NULL;
  fc_graph* a = NULL;
  fc_graph* b = NULL;
  fc_graph* small = NULL;
  const fc_graph* layers[2];
  const fc_graph* mismatched[3];
  fc_multilayer_options o, bad;
  fc_multilayer* m = NULL;
  int64_t n = -1, L = -1, k = -1, i, j;
  double q = -1, flex[6], alleg[6 * 7], gammas[2], vals[6];
  int64_t labels[12], rows[6], cols[6], count = -1;

  REQUIRE_OK(fc_context_create(FC_BACKEND_CPU, -1, &ctx));
  a = make_graph(6, two_triangles, 7);
  b = make_graph(6, two_triangles, 7);
  small = make_graph(3, path, 2);
  layers[0] = a;
  layers[1] = b;

  /* options */
  CHECK_STATUS(fc_multilayer_options_default(NULL), FC_ERR_NULL_ARG);
  CHECK_OK(fc_multilayer_options_default(&o));
  CHECK(o.resolution == 1 && o.omega == 1 && o.coupling == FC_COUPLING_ORDINAL && o.max_iterations == 0);

  /* NULL arguments and n_layers 0: *out untouched */
  m = (fc_multilayer*)&sentinel;
  CHECK_STATUS(fc_multilayer_modularity(NULL, layers, 2, NULL, &o, &m), FC_ERR_NULL_ARG);
  CHECK_STATUS(fc_multilayer_modularity(ctx, NULL, 2, NULL, &o, &m), FC_ERR_NULL_ARG);
  CHECK_STATUS(fc_multilayer_modularity(ctx, layers, 2, NULL, &o, NULL), FC_ERR_NULL_ARG);
  CHECK_STATUS(fc_multilayer_modularity(ctx, layers, 0, NULL, &o, &m), FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("n_layers 0");
  CHECK_STATUS(fc_multilayer_modularity(ctx, layers, -3, NULL, &o, &m), FC_ERR_INVALID_ARG);
  mismatched[0] = a;
  mismatched[1] = NULL;
  CHECK_STATUS(fc_multilayer_modularity(ctx, mismatched, 2, NULL, &o, &m), FC_ERR_NULL_ARG);
  CHECK_ERROR_MENTIONS("layers[1]");
  mismatched[1] = b;
  mismatched[2] = small;
  CHECK_STATUS(fc_multilayer_modularity(ctx, mismatched, 3, NULL, &o, &m), FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("layers[2] has 3 nodes");
  CHECK(m == (fc_multilayer*)&sentinel);

  /* bad options, named with their value */
  bad = o;
  bad.omega = -0.5;
  CHECK_BAD_OPTION(bad, "omega", "-0.5");
  bad.omega = NAN;
  CHECK_BAD_OPTION(bad, "omega", "nan");
  bad = o;
  bad.resolution = -1;
  CHECK_BAD_OPTION(bad, "resolution", "-1");
  bad = o;
  bad.coupling = 7;
  CHECK_BAD_OPTION(bad, "coupling", "7");
  bad = o;
  bad.max_iterations = -2;
  CHECK_BAD_OPTION(bad, "max_iterations", "-2");
  gammas[0] = 1;
  gammas[1] = INFINITY;
  m = (fc_multilayer*)&sentinel;
  CHECK_STATUS(fc_multilayer_modularity(ctx, layers, 2, gammas, &o, &m), FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("layer_resolutions[1]");
  CHECK(m == (fc_multilayer*)&sentinel);

  /* the answer derived by hand */
  m = NULL;
  REQUIRE_OK(fc_multilayer_modularity(ctx, layers, 2, NULL, NULL, &m));
  CHECK_OK(fc_multilayer_info(m, &n, &L, &k, &q));
  CHECK(n == 6 && L == 2 && k == 2);
  CHECK(fabs(q - 0.55) < 1e-12);
  CHECK_OK(fc_multilayer_info(m, NULL, NULL, NULL, NULL));
  CHECK_OK(fc_multilayer_labels(m, labels, 12));
  for (i = 0; i < 12; ++i) CHECK(labels[i] == ((i % 6) < 3 ? 0 : 1));
  CHECK_OK(fc_multilayer_flexibility(m, flex, 6));
  for (i = 0; i < 6; ++i) CHECK(flex[i] == 0);
  CHECK_OK(fc_multilayer_allegiance(m, alleg, 7, 6 * 7 - 1));
  for (i = 0; i < 6; ++i)
    for (j = 0; j < 6; ++j) CHECK(alleg[i * 7 + j] == ((i < 3) == (j < 3) ? 1.0 : 0.0));

  /* short buffers and bad ld: untouched */
  for (i = 0; i < 12; ++i) labels[i] = -7;
  CHECK_STATUS(fc_multilayer_labels(m, labels, 11), FC_ERR_BUFFER_TOO_SMALL);
  for (i = 0; i < 12; ++i) CHECK(labels[i] == -7);
  for (i = 0; i < 6; ++i) flex[i] = -7;
  CHECK_STATUS(fc_multilayer_flexibility(m, flex, 5), FC_ERR_BUFFER_TOO_SMALL);
  for (i = 0; i < 6; ++i) CHECK(flex[i] == -7);
  for (i = 0; i < 42; ++i) alleg[i] = -7;
  CHECK_STATUS(fc_multilayer_allegiance(m, alleg, 5, 42), FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("ld 5");
  CHECK_STATUS(fc_multilayer_allegiance(m, alleg, 7, 6 * 7 - 2), FC_ERR_BUFFER_TOO_SMALL);
  for (i = 0; i < 42; ++i) CHECK(alleg[i] == -7);
  CHECK_STATUS(fc_multilayer_labels(NULL, labels, 12), FC_ERR_NULL_ARG);
  CHECK_STATUS(fc_multilayer_labels(m, NULL, 12), FC_ERR_NULL_ARG);
  CHECK_STATUS(fc_multilayer_flexibility(m, NULL, 6), FC_ERR_NULL_ARG);
  CHECK_STATUS(fc_multilayer_allegiance(m, NULL, 6, 36), FC_ERR_NULL_ARG);
  CHECK_STATUS(fc_multilayer_info(NULL, &n, &L, &k, &q), FC_ERR_NULL_ARG);

  /* sparse allegiance: two triangles in both layers, so the 6 pairs inside them at 1 */
  count = -1;
  CHECK_OK(fc_multilayer_allegiance_pairs(m, 0.5, NULL, NULL, NULL, 0, &count));
  CHECK(count == 6);
  for (i = 0; i < 6; ++i) rows[i] = cols[i] = -7, vals[i] = -7;
  count = -1;
  CHECK_STATUS(fc_multilayer_allegiance_pairs(m, 1.0, rows, cols, vals, 5, &count), FC_ERR_BUFFER_TOO_SMALL);
  CHECK(count == 6);
  for (i = 0; i < 6; ++i) CHECK(rows[i] == -7 && cols[i] == -7 && vals[i] == -7);
  CHECK_OK(fc_multilayer_allegiance_pairs(m, 1.0, rows, cols, vals, 6, &count));
  CHECK(count == 6);
  {
    const int64_t want_i[6] = {0, 0, 1, 3, 3, 4}, want_j[6] = {1, 2, 2, 4, 5, 5};
    for (i = 0; i < 6; ++i) CHECK(rows[i] == want_i[i] && cols[i] == want_j[i] && vals[i] == 1.0);
  }
  CHECK_STATUS(fc_multilayer_allegiance_pairs(m, 0.0, rows, cols, vals, 6, &count), FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("floor 0");
  CHECK_STATUS(fc_multilayer_allegiance_pairs(m, 1.5, rows, cols, vals, 6, &count), FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("floor 1.5");
  CHECK_STATUS(fc_multilayer_allegiance_pairs(m, NAN, rows, cols, vals, 6, &count), FC_ERR_INVALID_ARG);
  CHECK_STATUS(fc_multilayer_allegiance_pairs(m, 0.5, rows, cols, vals, -1, &count), FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("capacity -1");
  CHECK_STATUS(fc_multilayer_allegiance_pairs(m, 0.5, NULL, cols, vals, 6, &count), FC_ERR_NULL_ARG);
  CHECK_STATUS(fc_multilayer_allegiance_pairs(m, 0.5, rows, cols, vals, 6, NULL), FC_ERR_NULL_ARG);
  CHECK_STATUS(fc_multilayer_allegiance_pairs(NULL, 0.5, rows, cols, vals, 6, &count), FC_ERR_NULL_ARG);
  fc_multilayer_destroy(m);
  fc_multilayer_destroy(NULL);

  /* one layer: flexibility 0 */
  REQUIRE_OK(fc_multilayer_modularity(ctx, layers, 1, NULL, &o, &m));
  CHECK_OK(fc_multilayer_flexibility(m, flex, 6));
  for (i = 0; i < 6; ++i) CHECK(flex[i] == 0);
  fc_multilayer_destroy(m);

  /* fc_multilayer_modularity_v2 from C: the defaults, the queue (the default) bit for bit the
   * unversioned call, the synchronous algorithm's answer on the triangles and its determinism, a
   * bad algorithm and a size below this version's named with *out untouched */
  {
    fc_multilayer_options_v2 o2;
    fc_multilayer* m1 = NULL;
    fc_multilayer* m2 = NULL;
    fc_graph* random_layers[3];
    const fc_graph* random_list[3];
    const double random_gammas[3] = {0.8, 1.0, 1.3};
    CHECK_STATUS(fc_multilayer_options_v2_default(NULL), FC_ERR_NULL_ARG);
    CHECK_OK(fc_multilayer_options_v2_default(&o2));
    CHECK(o2.size == sizeof(fc_multilayer_options_v2) && o2.algorithm == FC_LEIDEN_QUEUE);
    CHECK(o2.base.resolution == o.resolution && o2.base.omega == o.omega && o2.base.seed == o.seed &&
          o2.base.max_iterations == o.max_iterations && o2.base.coupling == o.coupling);

    make_random_layers(random_layers);
    for (i = 0; i < 3; ++i) random_list[i] = random_layers[i];
    /* NULL options: the defaults of both calls */
    REQUIRE_OK(fc_multilayer_modularity(ctx, random_list, 3, NULL, NULL, &m1));
    REQUIRE_OK(fc_multilayer_modularity_v2(ctx, random_list, 3, NULL, NULL, &m2));
    CHECK(same_result(m1, m2));
    fc_multilayer_destroy(m1);
    fc_multilayer_destroy(m2);
    /* the queue with other options (ordinal and categorical): fc_multilayer_modularity's answer */
    o2.base.omega = 0.3;
    o2.base.seed = 5;
    for (j = 0; j < 2; ++j) {
      o2.base.coupling = j == 0 ? FC_COUPLING_ORDINAL : FC_COUPLING_CATEGORICAL;
      REQUIRE_OK(fc_multilayer_modularity(ctx, random_list, 3, random_gammas, &o2.base, &m1));
      REQUIRE_OK(fc_multilayer_modularity_v2(ctx, random_list, 3, random_gammas, &o2, &m2));
      CHECK(same_result(m1, m2));
      fc_multilayer_destroy(m1);
      fc_multilayer_destroy(m2);
    }
    /* the synchronous algorithm: the same answer twice, labels numbered 0 .. K - 1 */
    o2.algorithm = FC_LEIDEN_SYNCHRONOUS;
    REQUIRE_OK(fc_multilayer_modularity_v2(ctx, random_list, 3, random_gammas, &o2, &m1));
    REQUIRE_OK(fc_multilayer_modularity_v2(ctx, random_list, 3, random_gammas, &o2, &m2));
    CHECK(same_result(m1, m2));
    CHECK_OK(fc_multilayer_info(m1, &n, &L, &k, &q));
    CHECK(n == 24 && L == 3 && k >= 1 && q > 0 && q <= 1);
    {
      int64_t random_labels[72], top = -1;
      CHECK_OK(fc_multilayer_labels(m1, random_labels, 72));
      for (i = 0; i < 72; ++i) {
        CHECK(random_labels[i] >= 0 && random_labels[i] <= top + 1); /* by first appearance */
        if (random_labels[i] > top) top = random_labels[i];
      }
      CHECK(top == k - 1);
    }
    fc_multilayer_destroy(m1);
    fc_multilayer_destroy(m2);
    /* the two triangles: the answer derived by hand */
    CHECK_OK(fc_multilayer_options_v2_default(&o2));
    o2.algorithm = FC_LEIDEN_SYNCHRONOUS;
    REQUIRE_OK(fc_multilayer_modularity_v2(ctx, layers, 2, NULL, &o2, &m));
    CHECK_OK(fc_multilayer_info(m, &n, &L, &k, &q));
    CHECK(n == 6 && L == 2 && k == 2 && fabs(q - 0.55) < 1e-12);
    CHECK_OK(fc_multilayer_labels(m, labels, 12));
    for (i = 0; i < 12; ++i) CHECK(labels[i] == ((i % 6) < 3 ? 0 : 1));
    fc_multilayer_destroy(m);
    /* the base options are still checked on the synchronous path */
    o2.base.omega = -0.5;
    m = (fc_multilayer*)&sentinel;
    CHECK_STATUS(fc_multilayer_modularity_v2(ctx, layers, 2, NULL, &o2, &m), FC_ERR_INVALID_ARG);
    CHECK_ERROR_MENTIONS("omega");
    CHECK(m == (fc_multilayer*)&sentinel);
    /* a bad algorithm, named */
    CHECK_OK(fc_multilayer_options_v2_default(&o2));
    o2.algorithm = 7;
    CHECK_STATUS(fc_multilayer_modularity_v2(ctx, layers, 2, NULL, &o2, &m), FC_ERR_INVALID_ARG);
    CHECK_ERROR_MENTIONS("algorithm 7");
    CHECK(m == (fc_multilayer*)&sentinel);
    /* options->size below this version's: FC_ERR_INVALID_ARG naming it, *out untouched */
    CHECK_OK(fc_multilayer_options_v2_default(&o2));
    o2.size = 8;
    CHECK_STATUS(fc_multilayer_modularity_v2(ctx, layers, 2, NULL, &o2, &m), FC_ERR_INVALID_ARG);
    CHECK_ERROR_MENTIONS("options->size 8");
    CHECK(m == (fc_multilayer*)&sentinel);
    o2.size = 0;
    CHECK_STATUS(fc_multilayer_modularity_v2(ctx, layers, 2, NULL, &o2, &m), FC_ERR_INVALID_ARG);
    CHECK(m == (fc_multilayer*)&sentinel);
    /* NULL arguments as the unversioned call */
    CHECK_OK(fc_multilayer_options_v2_default(&o2));
    CHECK_STATUS(fc_multilayer_modularity_v2(NULL, layers, 2, NULL, &o2, &m), FC_ERR_NULL_ARG);
    CHECK_STATUS(fc_multilayer_modularity_v2(ctx, layers, 2, NULL, &o2, NULL), FC_ERR_NULL_ARG);
    CHECK(m == (fc_multilayer*)&sentinel);
    for (i = 0; i < 3; ++i) fc_graph_destroy(random_layers[i]);
  }

  fc_graph_destroy(a);
  fc_graph_destroy(b);
  fc_graph_destroy(small);
  fc_context_destroy(ctx);
  return check_report();
}
