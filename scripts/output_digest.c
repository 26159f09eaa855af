/* output_digest: one line per public call, its outputs' FNV-1a 64-bit digest, on structured data.
 *
 * For comparing two builds of fastconn (a restructuring must change no output bit) and two
 * backends (the CPU and CUDA contexts). Build it against each library and diff the outputs;
 * scripts/compare-builds.sh does that for two build folders.
 *
 *   output_digest cpu|cuda [fmri_timeseries.csv [series]]
 *
 * With "series" as the third argument only the calls on series run (not the modules of the
 * planted graph, whose input no pair kernel touches), on N = 509 synthetic series (prime, past
 * one 480-column tile): tests/c's c_isa_paths runs it so once per ISA path, the portable one too.
 * With "modules" only the module calls run (fc_modularity, fc_leiden's options, multilayer
 * modularity's couplings): for restructurings of those, which read no series.
 *
 * Data: the bundled region series when a CSV path is given (31 x 250), and a synthetic set of
 * N = 1009 (prime) series of T = 165 with shared slow oscillations, noise from a fixed LCG, one
 * constant series and one duplicated series; a planted-partition graph of 3,000 nodes in 10
 * communities for the modules (large enough for the device eigen engine and the slope envelopes).
 *
 * A name ending in "[bound]" is an output whose CPU and CUDA values the header ties by a bound,
 * not bit for bit (partial correlation): compare those across backends by the bound instead. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

#include <fastconn/fastconn.h>

static void check(fc_status s, const char* what) {
  if (s != FC_OK && s != FC_DONE) {
    fprintf(stderr, "%s: %s (%s)\n", what, fc_status_string(s), fc_last_error());
    exit(1);
  }
}

static uint64_t fnv(const void* p, size_t bytes, uint64_t h) {
  const unsigned char* c = (const unsigned char*)p;
  for (size_t i = 0; i < bytes; ++i) h = (h ^ c[i]) * 1099511628211ULL;
  return h;
}
static const uint64_t kFnvStart = 1469598103934665603ULL;
static void put(const char* name, const void* p, size_t bytes) {
  printf("%-40s %016llx  (%zu bytes)\n", name, (unsigned long long)fnv(p, bytes, kFnvStart), bytes);
}

static uint64_t lcg_state = 12345;
static double noise(void) {
  lcg_state = lcg_state * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(lcg_state >> 11) / 9007199254740992.0 - 0.5;
}

static double* synthetic(int64_t n, int64_t t) {
  double* x = malloc(sizeof(double) * n * t);
  for (int64_t s = 0; s < n; ++s)
    for (int64_t k = 0; k < t; ++k) {
      const double phase = 0.37 * (double)(s % 17), group = (double)(s % 5);
      x[s * t + k] = sin(0.11 * (double)k * (1.0 + 0.1 * group) + phase) + 0.6 * cos(0.05 * (double)k + group) + noise();
    }
  for (int64_t k = 0; k < t; ++k) {
    x[7 * t + k] = 3.25;                /* a constant series */
    x[11 * t + k] = x[3 * t + k];       /* a duplicated one: r = 1 exactly */
  }
  return x;
}

static double* read_csv(const char* path, int64_t* n, int64_t* t) {
  FILE* f = fopen(path, "r");
  if (!f) return NULL;
  char line[65536];
  int64_t rows = 0, cols = 0;
  double* values = NULL;
  size_t count = 0, cap = 0;
  if (!fgets(line, sizeof line, f)) { fclose(f); return NULL; } /* header */
  for (char* c = line; *c; ++c) cols += *c == ',';
  ++cols;
  while (fgets(line, sizeof line, f)) {
    char* c = line;
    for (int64_t j = 0; j < cols; ++j) {
      if (count == cap) { cap = cap ? 2 * cap : 4096; values = realloc(values, sizeof(double) * cap); }
      values[count++] = strtod(c, &c);
      if (*c == ',') ++c;
    }
    ++rows;
  }
  fclose(f);
  *n = cols;
  *t = rows;
  return values; /* T x N row-major: series_stride 1, time_stride N */
}

/* The graph's CSR arrays (offsets, columns, weights) folded into h. */
static uint64_t graph_hash(const fc_graph* g, uint64_t h, int64_t* n, int64_t* e) {
  check(fc_graph_info(g, n, e), "fc_graph_info");
  int64_t* offsets = malloc(sizeof(int64_t) * (*n + 1));
  int64_t* columns = malloc(sizeof(int64_t) * (2 * *e + 1));
  float* weights = malloc(sizeof(float) * (2 * *e + 1));
  check(fc_graph_csr(g, offsets, columns, weights, 2 * *e + 1), "fc_graph_csr");
  h = fnv(offsets, sizeof(int64_t) * (*n + 1), h);
  h = fnv(columns, sizeof(int64_t) * 2 * *e, h);
  h = fnv(weights, sizeof(float) * 2 * *e, h);
  free(offsets);
  free(columns);
  free(weights);
  return h;
}

static void graph_digest(const char* name, const fc_graph* g) {
  int64_t n, e;
  const uint64_t h = graph_hash(g, kFnvStart, &n, &e);
  printf("%-40s %016llx  (%lld nodes, %lld edges)\n", name, (unsigned long long)h, (long long)n, (long long)e);
}

static void modules_digest(const char* name, fc_context* ctx, const fc_graph* g, int refine) {
  fc_modularity_options o;
  check(fc_modularity_options_default(&o), "options");
  o.refine = refine;
  fc_modules* m;
  check(fc_modularity(ctx, g, &o, &m), "fc_modularity");
  int64_t n, k, splits;
  double q;
  check(fc_modules_info(m, &n, &k, &q, &splits), "fc_modules_info");
  int64_t* labels = malloc(sizeof(int64_t) * n);
  check(fc_modules_labels(m, labels, n), "fc_modules_labels");
  uint64_t h = fnv(labels, sizeof(int64_t) * n, kFnvStart);
  h = fnv(&q, sizeof q, h);
  printf("%-40s %016llx  (K %lld, Q %.15f, %lld splits)\n", name, (unsigned long long)h, (long long)k, q,
         (long long)splits);
  free(labels);
  fc_modules_destroy(m);
}

/* The graph of these CSR arrays (malloc'ed; freed here). */
static fc_graph* csr_graph(int64_t n, int64_t* offsets, int64_t* columns, float* weights) {
  fc_graph* g;
  check(fc_graph_create_csr(n, offsets, columns, weights, &g), "fc_graph_create_csr");
  free(offsets);
  free(columns);
  free(weights);
  return g;
}

static fc_graph* planted(int64_t n, int64_t communities) {
  /* each node: 30 neighbours in its community, 6 outside, chosen by the LCG; symmetrized */
  const int64_t in = 30, out = 6, per = n / communities;
  char* adj = calloc((size_t)(n * n), 1);
  for (int64_t u = 0; u < n; ++u) {
    const int64_t c = u / per;
    for (int64_t d = 0; d < in + out; ++d) {
      int64_t v;
      if (d < in) v = c * per + (int64_t)((noise() + 0.5) * (double)per) % per;
      else v = (int64_t)((noise() + 0.5) * (double)n) % n;
      if (v != u) adj[u * n + v] = adj[v * n + u] = 1;
    }
  }
  int64_t* offsets = malloc(sizeof(int64_t) * (n + 1));
  int64_t entries = 0;
  for (int64_t u = 0; u < n; ++u) {
    offsets[u] = entries;
    for (int64_t v = 0; v < n; ++v) entries += adj[u * n + v];
  }
  offsets[n] = entries;
  int64_t* columns = malloc(sizeof(int64_t) * entries);
  int64_t e = 0;
  for (int64_t u = 0; u < n; ++u)
    for (int64_t v = 0; v < n; ++v)
      if (adj[u * n + v]) columns[e++] = v;
  free(adj);
  return csr_graph(n, offsets, columns, NULL);
}

static void series_calls(fc_context* ctx, const char* tag, const double* x, int64_t n, int64_t t, int64_t ss, int64_t ts) {
  char name[128];
  fc_series* s;
  check(fc_series_create_f64(ctx, x, n, t, ss, ts, &s), "fc_series_create_f64");
  const int64_t pairs = fc_triu_size(n);
  float* f = malloc(sizeof(float) * (size_t)(pairs > n * n ? pairs : n * n));
  double* d = malloc(sizeof(double) * (size_t)(pairs > n * n ? pairs : n * n));
  check(fc_pcc_triu(ctx, s, FC_TRIU_ROW, f, pairs), "triu row");
  snprintf(name, sizeof name, "%s triu row", tag); put(name, f, sizeof(float) * pairs);
  check(fc_pcc_triu(ctx, s, FC_TRIU_COL, f, pairs), "triu col");
  snprintf(name, sizeof name, "%s triu col", tag); put(name, f, sizeof(float) * pairs);
  check(fc_pcc_triu_f64(ctx, s, FC_TRIU_ROW, d, pairs), "triu f64");
  snprintf(name, sizeof name, "%s triu_f64 row", tag); put(name, d, sizeof(double) * pairs);
  check(fc_pcc_dense(ctx, s, f, n), "dense");
  snprintf(name, sizeof name, "%s dense", tag); put(name, f, sizeof(float) * n * n);
  check(fc_pcc_dense_f64(ctx, s, d, n), "dense f64");
  snprintf(name, sizeof name, "%s dense_f64", tag); put(name, d, sizeof(double) * n * n);
  /* the compact formats: 2-byte codes of the same r (f holds n * n floats, room for them) */
  check(fc_pcc_triu_compact(ctx, s, FC_TRIU_ROW, FC_VALUES_INT16, f, pairs), "triu int16");
  snprintf(name, sizeof name, "%s triu_compact int16 row", tag); put(name, f, 2 * (size_t)pairs);
  check(fc_pcc_triu_compact(ctx, s, FC_TRIU_COL, FC_VALUES_HALF, f, pairs), "triu half");
  snprintf(name, sizeof name, "%s triu_compact half col", tag); put(name, f, 2 * (size_t)pairs);
  check(fc_pcc_dense_compact(ctx, s, FC_VALUES_INT16, f, n), "dense int16");
  snprintf(name, sizeof name, "%s dense_compact int16", tag); put(name, f, 2 * (size_t)(n * n));
  {
    const int64_t na = n < 100 ? n : 100;
    fc_series* a;
    check(fc_series_create_f64(ctx, x, na, t, ss, ts, &a), "series a");
    check(fc_pcc_cross(ctx, a, s, f, n), "cross");
    snprintf(name, sizeof name, "%s cross", tag); put(name, f, sizeof(float) * na * n);
    check(fc_pcc_cross_f64(ctx, a, s, d, n), "cross f64");
    snprintf(name, sizeof name, "%s cross_f64", tag); put(name, d, sizeof(double) * na * n);
    fc_series_destroy(a);
  }
  {
    double* c = malloc(sizeof(double) * n);
    double lambda;
    check(fc_pcc_ecm(ctx, s, 0, c, n, &lambda), "fc_pcc_ecm");
    snprintf(name, sizeof name, "%s fast ECM", tag);
    put(name, c, sizeof(double) * n);
    check(fc_pcc_ecm_thresholded(ctx, s, FC_EDGE_DENSITY, 0.05, FC_GRAPH_WEIGHTED_ABS, 0, c, n, &lambda),
          "fc_pcc_ecm_thresholded");
    snprintf(name, sizeof name, "%s thresholded ECM", tag);
    put(name, c, sizeof(double) * n);
    if (t >= 20) {
      const int64_t windows = fc_window_count(t, t / 2, t / 4);
      double* cw = malloc(sizeof(double) * n * windows);
      check(fc_dfc_ecm(ctx, s, t / 2, t / 4, FC_TAPER_RECTANGULAR, 0, 0, cw, n * windows, NULL), "fc_dfc_ecm");
      snprintf(name, sizeof name, "%s windows' fast ECM", tag);
      put(name, cw, sizeof(double) * n * windows);
      free(cw);
    }
    {  /* lFCD: series s at voxel s of an 11 x 10 x ceil(n / 110) grid, filled in i, j, k order */
      int32_t* coords = malloc(sizeof(int32_t) * 3 * n);
      int64_t* lfcd = malloc(sizeof(int64_t) * n);
      const int64_t dims[3] = {11, 10, (n + 109) / 110};
      for (int64_t v = 0; v < n; ++v) {
        coords[3 * v] = (int32_t)(v % 11);
        coords[3 * v + 1] = (int32_t)(v / 11 % 10);
        coords[3 * v + 2] = (int32_t)(v / 110);
      }
      check(fc_pcc_lfcd(ctx, s, coords, dims, 26, FC_EDGE_THRESHOLD, 0.3, lfcd), "fc_pcc_lfcd");
      snprintf(name, sizeof name, "%s lFCD", tag);
      put(name, lfcd, sizeof(int64_t) * n);
      free(coords);
      free(lfcd);
    }
    fc_series* ranked;
    check(fc_series_create_ranked_f64(ctx, x, n, t, ss, ts, &ranked), "ranked");
    check(fc_pcc_triu(ctx, ranked, FC_TRIU_ROW, f, pairs), "ranked triu");
    snprintf(name, sizeof name, "%s Spearman triu", tag); put(name, f, sizeof(float) * pairs);
    fc_series_destroy(ranked);
    free(c);
    double used;
    if (fc_partial_correlation(ctx, s, FC_SHRINKAGE_LEDOIT_WOLF, FC_PARTIAL_CORRELATION, d, n, &used) == FC_OK) {
      /* "[bound]": across backends the header promises a bound (cuSOLVER's blocking is not
       * LAPACK's), not bits; scripts/gpu-check.sh counts such lines apart. */
      snprintf(name, sizeof name, "%s partial correlation (LW %.6f) [bound]", tag, used);
      put(name, d, sizeof(double) * n * n);
    } else {
      snprintf(name, sizeof name, "%s partial correlation refused", tag); /* a constant series */
      printf("%-40s\n", name);
    }
  }
  {
    fc_blocks* b;
    fc_block_info info;
    check(fc_pcc_blocks_begin(ctx, s, 37, &b), "blocks");
    uint64_t h = kFnvStart;
    while (fc_blocks_next(b, f, pairs, &info) == FC_OK) h = fnv(f, sizeof(float) * info.count, h);
    fc_blocks_destroy(b);
    snprintf(name, sizeof name, "%s blocks of 37 rows", tag);
    printf("%-40s %016llx\n", name, (unsigned long long)h);
  }
  static const struct { fc_edge_rule rule; double param; int weights; const char* what; } rules[] = {
    {FC_EDGE_ABS_THRESHOLD, 0.3, FC_GRAPH_WEIGHTED, "graph |r|>=0.3 weighted"},
    {FC_EDGE_THRESHOLD, 0.4, FC_GRAPH_BINARY, "graph r>=0.4 binary"},
    {FC_EDGE_DENSITY, 0.02, FC_GRAPH_WEIGHTED_ABS, "graph density 0.02 |w|"},
    {FC_EDGE_TOP_K, 5, FC_GRAPH_WEIGHTED, "graph top-5 weighted"},
  };
  for (size_t r = 0; r < sizeof rules / sizeof rules[0]; ++r) {
    fc_graph* g;
    check(fc_pcc_graph(ctx, s, rules[r].rule, rules[r].param, rules[r].weights, &g), rules[r].what);
    snprintf(name, sizeof name, "%s %s", tag, rules[r].what); graph_digest(name, g);
    if (r == 0) {
      snprintf(name, sizeof name, "%s modules of it", tag);
      modules_digest(name, ctx, g, 1);
      double* c = malloc(sizeof(double) * n);
      double lambda;
      check(fc_graph_eigenvector_centrality(ctx, g, 0, 0, c, n, &lambda), "graph centrality"); /* binary: the graph is signed */
      snprintf(name, sizeof name, "%s its eigenvector centrality", tag);
      put(name, c, sizeof(double) * n);
      free(c);
    }
    fc_graph_destroy(g);
    int64_t* degree = malloc(sizeof(int64_t) * n);
    double* strength = malloc(sizeof(double) * n);
    check(fc_pcc_degree(ctx, s, rules[r].rule, rules[r].param, degree, strength), "degree");
    uint64_t h = fnv(degree, sizeof(int64_t) * n, fnv(strength, sizeof(double) * n, kFnvStart));
    printf("%s degree (%s) %*s %016llx\n", tag, rules[r].what, 1, "", (unsigned long long)h);
    free(degree);
    free(strength);
  }
  {
    const int64_t length = t / 3, step = 7, w = fc_window_count(t, length, step);
    float* tri = malloc(sizeof(float) * w * pairs);
    check(fc_dfc_triu(ctx, s, length, step, 0, 0, FC_TRIU_ROW, tri, w * pairs), "dfc_triu");
    snprintf(name, sizeof name, "%s dfc_triu", tag); put(name, tri, sizeof(float) * w * pairs);
    free(tri);
    int64_t* degree = malloc(sizeof(int64_t) * w * n);
    double* strength = malloc(sizeof(double) * w * n);
    check(fc_dfc_degree(ctx, s, length, step, 0, 0, FC_EDGE_ABS_THRESHOLD, 0.4, degree, strength), "dfc_degree");
    snprintf(name, sizeof name, "%s dfc_degree", tag); put(name, degree, sizeof(int64_t) * w * n);
    snprintf(name, sizeof name, "%s dfc_strength", tag); put(name, strength, sizeof(double) * w * n);
    free(degree);
    free(strength);
    double* mean = malloc(sizeof(double) * pairs);
    double* sd = malloc(sizeof(double) * pairs);
    check(fc_dfc_summary(ctx, s, length, step, 0, 0, FC_TRIU_ROW, mean, sd, pairs), "dfc_summary");
    snprintf(name, sizeof name, "%s dfc_summary mean", tag); put(name, mean, sizeof(double) * pairs);
    snprintf(name, sizeof name, "%s dfc_summary sd", tag); put(name, sd, sizeof(double) * pairs);
    free(mean);
    free(sd);
    const int64_t rank = 3;
    float* factors = malloc(sizeof(float) * w * n * rank);
    double* err = malloc(sizeof(double) * w);
    check(fc_dfc_lowrank(ctx, s, length, step, 0, 0, rank, factors, w * n * rank, err), "dfc_lowrank");
    snprintf(name, sizeof name, "%s dfc_lowrank", tag); put(name, factors, sizeof(float) * w * n * rank);
    free(err);
    check(fc_pcc_lowrank(ctx, s, rank, factors, n * rank, NULL), "pcc_lowrank");
    snprintf(name, sizeof name, "%s pcc_lowrank", tag); put(name, factors, sizeof(float) * n * rank);
    free(factors);
    fc_dfc* it;
    check(fc_dfc_begin(ctx, s, length, step, 0, 0, &it), "dfc_begin");
    fc_graph* g;
    int64_t k;
    uint64_t h = kFnvStart;
    while (fc_dfc_next_graph(it, FC_EDGE_ABS_THRESHOLD, 0.5, FC_GRAPH_WEIGHTED, &g, &k) == FC_OK) {
      int64_t gn, ge;
      h = graph_hash(g, h, &gn, &ge);
      fc_graph_destroy(g);
    }
    fc_dfc_destroy(it);
    snprintf(name, sizeof name, "%s dfc windows' graphs", tag);
    printf("%-40s %016llx\n", name, (unsigned long long)h);
  }
  free(f);
  free(d);
  fc_series_destroy(s);
}

/* The graph g with weights from the LCG, the same at both ends of an edge: in (0.1, 1.1), or
 * signed in (-0.4, 0.6) (a draw per edge i < j, mirrored). */
static fc_graph* reweighted(const fc_graph* g, int signed_weights) {
  int64_t n, e;
  check(fc_graph_info(g, &n, &e), "graph info");
  int64_t* offsets = malloc(sizeof(int64_t) * (n + 1));
  int64_t* columns = malloc(sizeof(int64_t) * 2 * e);
  float* w = malloc(sizeof(float) * 2 * e);
  check(fc_graph_csr(g, offsets, columns, w, 2 * e), "graph csr");
  for (int64_t u = 0; u < n; ++u)
    for (int64_t x = offsets[u]; x < offsets[u + 1]; ++x) {
      const int64_t v = columns[x];
      if (v < u) continue;
      const float d = (float)(noise() + (signed_weights ? 0.1 : 0.6));
      w[x] = d;
      for (int64_t y = offsets[v]; y < offsets[v + 1]; ++y)
        if (columns[y] == u) w[y] = d;
    }
  return csr_graph(n, offsets, columns, w);
}

static void leiden_digest(const char* tag, fc_context* ctx, const fc_graph* g, const fc_leiden_options* lo,
                          const int64_t* initial) {
  fc_modules* m;
  check(fc_leiden(ctx, g, lo, initial, &m), "fc_leiden");
  int64_t ln, lk;
  double lq;
  check(fc_modules_info(m, &ln, &lk, &lq, NULL), "leiden info");
  int64_t* labels = malloc(sizeof(int64_t) * ln);
  check(fc_modules_labels(m, labels, ln), "leiden labels");
  printf("%-40s %016llx  (K %lld, Q %.15f)\n", tag, (unsigned long long)fnv(labels, sizeof(int64_t) * ln, kFnvStart),
         (long long)lk, lq);
  free(labels);
  fc_modules_destroy(m);
}

/* fc_leiden's options and fc_multilayer_modularity's couplings, on a random graph of 1,201 nodes
 * (planted with one community: no structure to recover, so the labels depend on every step) and
 * reweighted copies of it (layers: the LCG's weights drawn anew per layer), so that a
 * restructuring of the moves, refinement or aggregation shows up. */
static void leiden_variants(fc_context* ctx, const fc_graph* planted_graph) {
  fc_leiden_options lo;
  check(fc_leiden_options_default(&lo), "leiden options");
  leiden_digest("planted 3000/10 Leiden", ctx, planted_graph, &lo, NULL);
  fc_graph* g = planted(1201, 1);
  leiden_digest("random 1201 Leiden", ctx, g, &lo, NULL);
  fc_graph* weighted = reweighted(g, 0);
  fc_graph* signed_graph = reweighted(g, 1);
  lo.resolution = 1.5;
  lo.seed = 7;
  leiden_digest("random Leiden weighted gamma 1.5", ctx, weighted, &lo, NULL);
  lo.resolution = 1.0;
  lo.signed_mode = FC_SIGNED_RUBINOV;
  leiden_digest("random Leiden signed rubinov", ctx, signed_graph, &lo, NULL);
  lo.signed_mode = FC_SIGNED_GOMEZ;
  leiden_digest("random Leiden signed gomez", ctx, signed_graph, &lo, NULL);
  lo.quality = FC_LEIDEN_CPM;
  lo.resolution = 0.05;
  leiden_digest("random Leiden CPM 0.05", ctx, weighted, &lo, NULL);
  check(fc_leiden_options_default(&lo), "leiden options");
  lo.max_iterations = 1;
  lo.randomness = 0.01;
  int64_t n;
  check(fc_graph_info(g, &n, NULL), "graph info");
  int64_t* initial = malloc(sizeof(int64_t) * n);
  for (int64_t v = 0; v < n; ++v) initial[v] = (v * 7) % 13;
  leiden_digest("random Leiden initial, 1 pass", ctx, g, &lo, initial);
  free(initial);

  enum { kLayers = 6 };
  fc_graph* layers[kLayers];
  for (int s = 0; s < kLayers; ++s) layers[s] = reweighted(g, 0);
  const double gammas[kLayers] = {1.0, 0.8, 1.2, 1.0, 0.9, 1.1};
  fc_multilayer_options mo;
  for (int variant = 0; variant < 3; ++variant) {
    check(fc_multilayer_options_default(&mo), "multilayer options");
    if (variant == 1) mo.omega = 0.1, mo.seed = 3;
    if (variant == 2) mo.coupling = FC_COUPLING_CATEGORICAL, mo.omega = 0.5;
    fc_multilayer* ml;
    check(fc_multilayer_modularity(ctx, (const fc_graph* const*)layers, kLayers, variant == 1 ? gammas : NULL, &mo, &ml),
          "fc_multilayer_modularity");
    int64_t mn, ml_layers, mk;
    double mq;
    check(fc_multilayer_info(ml, &mn, &ml_layers, &mk, &mq), "multilayer info");
    int64_t* labels = malloc(sizeof(int64_t) * mn * ml_layers);
    check(fc_multilayer_labels(ml, labels, mn * ml_layers), "multilayer labels");
    char name[64];
    snprintf(name, sizeof name, "random x %d multilayer variant %d", kLayers, variant);
    printf("%-40s %016llx  (K %lld, Q %.15f)\n", name,
           (unsigned long long)fnv(labels, sizeof(int64_t) * mn * ml_layers, kFnvStart), (long long)mk, mq);
    free(labels);
    fc_multilayer_destroy(ml);
  }
  for (int s = 0; s < kLayers; ++s) fc_graph_destroy(layers[s]);
  fc_graph_destroy(weighted);
  fc_graph_destroy(signed_graph);
  fc_graph_destroy(g);
}

int main(int argc, char** argv) {
  const fc_backend backend = argc > 1 && strcmp(argv[1], "cuda") == 0 ? FC_BACKEND_CUDA : FC_BACKEND_CPU;
  fc_context* ctx;
  fprintf(stderr, "%s\n", fc_cpu_info());  /* which CPU path made these digests (not a digest) */
  check(fc_context_create(backend, -1, &ctx), "fc_context_create");
  const int modules_only = argc > 3 && strcmp(argv[3], "modules") == 0;
  if (argc > 2 && !modules_only) {
    int64_t n, t;
    double* x = read_csv(argv[2], &n, &t);
    if (!x) { fprintf(stderr, "cannot read %s\n", argv[2]); return 1; }
    series_calls(ctx, "regions fp32", x, n, t, 1, n);
    free(x);
  }
  const int series_only = argc > 3 && strcmp(argv[3], "series") == 0;
  const int64_t n = series_only ? 509 : 1009, t = 165;
  if (!modules_only) {
    double* x = synthetic(n, t);
    series_calls(ctx, "synthetic fp32", x, n, t, t, 1);
    check(fc_context_set_precision(ctx, FC_PRECISION_FP64), "fp64");
    series_calls(ctx, "synthetic fp64", x, n, t, t, 1);
    check(fc_context_set_precision(ctx, FC_PRECISION_FP32), "fp32");
    check(fc_context_set_memory_limit(ctx, 4 << 20), "limit");
    series_calls(ctx, "synthetic fp32 4MiB", x, n, t, t, 1);
    check(fc_context_set_memory_limit(ctx, 0), "limit");
    free(x);
  }
  if (series_only) {
    fc_context_destroy(ctx);
    return 0;
  }
  fc_graph* g = planted(3000, 10);
  modules_digest("planted 3000/10 modules", ctx, g, 1);
  modules_digest("planted 3000/10 modules refine=0", ctx, g, 0);
  leiden_variants(ctx, g);
  fc_graph_destroy(g);
  fc_context_destroy(ctx);
  return 0;
}
