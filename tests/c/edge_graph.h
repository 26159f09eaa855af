/* edge_graph.h - an fc_graph from an undirected edge list, for the C tests of the module calls
 * (test_leiden.c, test_multilayer.c). Include after check.h. */
#ifndef FASTCONN_TEST_EDGE_GRAPH_H
#define FASTCONN_TEST_EDGE_GRAPH_H

typedef struct edge { int64_t i, j; float w; } edge;

/* A graph from an undirected edge list (i != j, each pair once), rows sorted. */
static fc_graph* make_graph(int64_t n, const edge* e, int64_t m) {
  int64_t* offsets = (int64_t*)check_malloc(sizeof(int64_t) * (size_t)(n + 1));
  int64_t* columns = (int64_t*)check_malloc(sizeof(int64_t) * (size_t)(2 * m + 1));
  float* weights = (float*)check_malloc(sizeof(float) * (size_t)(2 * m + 1));
  int64_t v, x, y, at = 0;
  fc_graph* g = NULL;
  offsets[0] = 0;
  for (v = 0; v < n; ++v) { /* row v: every edge touching v, in column order */
    for (y = 0; y < n; ++y)
      for (x = 0; x < m; ++x)
        if ((e[x].i == v && e[x].j == y) || (e[x].j == v && e[x].i == y)) {
          columns[at] = y;
          weights[at++] = e[x].w;
        }
    offsets[v + 1] = at;
  }
  REQUIRE_OK(fc_graph_create_csr(n, offsets, columns, weights, &g));
  free(offsets);
  free(columns);
  free(weights);
  return g;
}

#endif
