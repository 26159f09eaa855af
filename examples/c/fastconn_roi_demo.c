/* fastconn_roi_demo.c - the strongest functional connections between brain regions.
 *
 * Reads a CSV of region-of-interest (ROI) time series (a header row of ROI names, then one row
 * per time point, one column per ROI), correlates every pair of ROIs with fastconn and prints
 * the 10 pairs with the largest |r|.
 *
 *   fastconn_roi_demo examples/data/fmri_timeseries.csv [--all]
 *
 * Columns named WM, Vent and Brain (white matter, ventricles, whole brain: the nuisance signals
 * that come with the bundled nitime data) are left out unless --all is given; they are not
 * regions, and the global signal correlates with everything.
 * Any failure prints its reason (fastconn's fc_last_error() for library calls) and exits 1. */
#include <fastconn/fastconn.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { TOP = 10 };

static const char* const nuisance[] = {"WM", "Vent", "Brain"};

typedef struct table {
  int n_columns;
  int n_rows;
  char** names;  /* n_columns ROI names */
  double* values; /* n_rows x n_columns, row-major: numpy's (T, N) C order */
} table;

static void die(const char* what, const char* why) {
  fprintf(stderr, "fastconn_roi_demo: %s: %s\n", what, why);
  exit(1);
}

static void* xrealloc(void* p, size_t bytes) {
  void* q = realloc(p, bytes);
  if (q == NULL) die("memory", "out of memory");
  return q;
}

/* The whole file as one NUL-terminated string. */
static char* read_file(const char* path) {
  FILE* f = fopen(path, "rb");
  char* text = NULL;
  size_t size = 0, got;
  char chunk[65536];
  if (f == NULL) die(path, strerror(errno));
  while ((got = fread(chunk, 1, sizeof chunk, f)) > 0) {
    text = (char*)xrealloc(text, size + got + 1);
    memcpy(text + size, chunk, got);
    size += got;
  }
  if (ferror(f)) die(path, "read error");
  fclose(f);
  if (text == NULL) die(path, "empty file");
  text[size] = '\0';
  return text;
}

/* Splits the header line (modified in place) into names, dropping surrounding quotes. */
static int parse_names(char* line, char*** names) {
  int n = 0;
  char* field = line;
  for (;;) {
    char* comma = field + strcspn(field, ",");
    const int last = *comma == '\0';
    char* end = comma;
    *comma = '\0';
    while (*field == ' ' || *field == '"') ++field;
    while (end > field && (end[-1] == ' ' || end[-1] == '"' || end[-1] == '\r')) *--end = '\0';
    *names = (char**)xrealloc(*names, sizeof(char*) * (size_t)(n + 1));
    (*names)[n++] = field;
    if (last) return n;
    field = comma + 1;
  }
}

static table read_csv(const char* path) {
  table t = {0, 0, NULL, NULL};
  char* text = read_file(path);
  char* line = text;
  char* next = strchr(line, '\n');
  if (next == NULL) die(path, "no data rows after the header");
  *next = '\0';
  t.n_columns = parse_names(line, &t.names);
  for (line = next + 1; *line != '\0'; line = next) {
    char* p = line;
    int c;
    next = line + strcspn(line, "\n");
    if (*next == '\n') *next++ = '\0';
    if (strspn(line, " \r") == strlen(line)) continue; /* a blank line, e.g. at the end */
    t.values = (double*)xrealloc(t.values, sizeof(double) * (size_t)(t.n_rows + 1) * (size_t)t.n_columns);
    for (c = 0; c < t.n_columns; ++c) {
      char* end;
      const double v = strtod(p, &end);
      if (end == p) {
        fprintf(stderr, "fastconn_roi_demo: %s: data row %d, column %d (%s): not a number\n", path, t.n_rows + 1,
                c + 1, t.names[c]);
        exit(1);
      }
      t.values[(size_t)t.n_rows * (size_t)t.n_columns + (size_t)c] = v;
      p = end + strspn(end, " ");
      if (c + 1 < t.n_columns) {
        if (*p != ',') {
          fprintf(stderr, "fastconn_roi_demo: %s: data row %d has %d columns, the header %d\n", path, t.n_rows + 1,
                  c + 1, t.n_columns);
          exit(1);
        }
        ++p;
      }
    }
    if (strspn(p, " \r") != strlen(p)) {
      fprintf(stderr, "fastconn_roi_demo: %s: data row %d has more than %d columns\n", path, t.n_rows + 1, t.n_columns);
      exit(1);
    }
    ++t.n_rows;
  }
  /* text stays allocated: the names point into it */
  return t;
}

static int is_nuisance(const char* name) {
  size_t k;
  for (k = 0; k < sizeof nuisance / sizeof nuisance[0]; ++k)
    if (strcmp(name, nuisance[k]) == 0) return 1;
  return 0;
}

/* Exits with fastconn's own explanation when a call fails. */
static void check(fc_status status, const char* call) {
  if (status != FC_OK) {
    fprintf(stderr, "fastconn_roi_demo: %s failed: %s\n  %s\n", call, fc_status_string(status), fc_last_error());
    exit(1);
  }
}

int main(int argc, char** argv) {
  table csv;
  int keep_all = 0, *column, n = 0, c, k, found = 0;
  int64_t pairs, p, best[TOP];
  double* data;
  float* r;
  fc_context* ctx = NULL;
  fc_series* series = NULL;
  fc_backend backend;
  int major, minor, patch;

  if (argc < 2 || argc > 3 || (argc == 3 && strcmp(argv[2], "--all") != 0)) {
    fprintf(stderr, "usage: %s ROI_TIMESERIES.csv [--all]\n", argv[0]);
    return 2;
  }
  keep_all = argc == 3;
  csv = read_csv(argv[1]);
  if (csv.n_rows < 2) die(argv[1], "fewer than 2 time points");

  /* the kept columns, copied into the R / MATLAB layout (T x N column-major) */
  column = (int*)xrealloc(NULL, sizeof(int) * (size_t)csv.n_columns);
  for (c = 0; c < csv.n_columns; ++c)
    if (keep_all || !is_nuisance(csv.names[c])) column[n++] = c;
  if (n < 2) die(argv[1], "fewer than 2 regions to correlate");
  data = (double*)xrealloc(NULL, sizeof(double) * (size_t)n * (size_t)csv.n_rows);
  for (k = 0; k < n; ++k)
    for (p = 0; p < csv.n_rows; ++p) data[k * csv.n_rows + p] = csv.values[p * csv.n_columns + column[k]];

  fc_version(&major, &minor, &patch);
  check(fc_context_create(FC_BACKEND_AUTO, -1, &ctx), "fc_context_create");
  check(fc_context_get_backend(ctx, &backend), "fc_context_get_backend");
  printf("fastconn %d.%d.%d, backend: %s\n", major, minor, patch, backend == FC_BACKEND_CUDA ? "CUDA" : "CPU");
  printf("%s: %d time points, %d columns, %d regions%s\n", argv[1], csv.n_rows, csv.n_columns, n,
         n < csv.n_columns ? " (nuisance signals WM, Vent, Brain left out; --all keeps them)" : "");

  /* series_stride = T, time_stride = 1: series k is data[k*T .. k*T + T-1] */
  check(fc_series_create_f64(ctx, data, n, csv.n_rows, csv.n_rows, 1, &series), "fc_series_create_f64");
  pairs = fc_triu_size(n);
  r = (float*)xrealloc(NULL, sizeof(float) * (size_t)pairs);
  check(fc_pcc_triu(ctx, series, FC_TRIU_ROW, r, pairs), "fc_pcc_triu");

  /* the TOP largest |r|, by insertion into a short sorted list; NaN (a constant region) skipped */
  for (p = 0; p < pairs; ++p) {
    int at;
    if (isnan(r[p])) continue;
    at = found < TOP ? found++ : TOP;
    while (at > 0 && fabsf(r[best[at - 1]]) < fabsf(r[p])) {
      if (at < TOP) best[at] = best[at - 1];
      --at;
    }
    if (at < TOP) best[at] = p;
  }

  printf("%d strongest of %ld region pairs by |r|:\n", found, (long)pairs);
  printf("rank  %-12s%-12s%8s\n", "region", "region", "r");
  for (k = 0; k < found; ++k) {
    int64_t i, j;
    check(fc_triu_pair(n, FC_TRIU_ROW, best[k], &i, &j), "fc_triu_pair");
    printf("%4d  %-12s%-12s%+8.4f\n", k + 1, csv.names[column[i]], csv.names[column[j]], r[best[k]]);
  }

  /* The network without the matrix: regions linked where |r| >= 0.5 (fc_pcc_graph keeps only the
     edges), and degree centrality straight from the series (fc_pcc_degree builds no graph). */
  {
    fc_graph* graph = NULL;
    int64_t nodes, edges, *degree, hub = 0;
    double* strength;
    check(fc_pcc_graph(ctx, series, FC_EDGE_ABS_THRESHOLD, 0.5, FC_GRAPH_WEIGHTED, &graph), "fc_pcc_graph");
    check(fc_graph_info(graph, &nodes, &edges), "fc_graph_info");
    degree = (int64_t*)xrealloc(NULL, sizeof(int64_t) * (size_t)n);
    strength = (double*)xrealloc(NULL, sizeof(double) * (size_t)n);
    check(fc_pcc_degree(ctx, series, FC_EDGE_ABS_THRESHOLD, 0.5, degree, strength), "fc_pcc_degree");
    for (k = 1; k < n; ++k)
      if (degree[k] > degree[hub]) hub = k;
    printf("network at |r| >= 0.5: %ld regions, %ld edges; most connected: %s (degree %ld, strength %.3f)\n",
           (long)nodes, (long)edges, csv.names[column[hub]], (long)degree[hub], strength[hub]);
    free(degree);
    free(strength);
    fc_graph_destroy(graph);
  }

  fc_series_destroy(series);
  fc_context_destroy(ctx);
  free(r);
  free(data);
  free(column);
  return 0;
}
