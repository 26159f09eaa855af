/* fc_graph_save / fc_graph_load: a round trip gives the same CSR bit for bit; every failure is
 * FC_ERR_IO naming the path (missing file, not a graph file, truncated, corrupt arrays, a
 * directory that does not exist) and leaves the output handle untouched. Files go to the working
 * directory (CTest runs this in the build tree). */
#include <stdio.h>

#include "check.h"

#define N 61
#define T 40

static void write_bytes(const char* path, const void* p, size_t bytes) {
  FILE* f = fopen(path, "wb");
  if (f == NULL || fwrite(p, 1, bytes, f) != bytes) {
    fprintf(stderr, "cannot write %s\n", path);
    exit(1);
  }
  fclose(f);
}

static long file_size(const char* path) {
  FILE* f = fopen(path, "rb");
  long size;
  if (f == NULL) return -1;
  fseek(f, 0, SEEK_END);
  size = ftell(f);
  fclose(f);
  return size;
}

int main(void) {
  double* x = (double*)check_malloc(sizeof(double) * N * T);
  fc_context* ctx;
  fc_series* s;
  fc_graph *g = NULL, *h = NULL, *untouched = (fc_graph*)&x;
  int64_t n1, e1, n2, e2, k;
  int64_t *o1, *c1, *o2, *c2;
  float *w1, *w2;
  unsigned char* bytes;
  long size;
  FILE* f;
  const char* path = "graph_file_test.fcg";

  check_fmri_like(x, N, T, 11u);
  check_make_cpu(x, N, T, &ctx, &s);
  REQUIRE_OK(fc_pcc_graph(ctx, s, FC_EDGE_ABS_THRESHOLD, 0.4, FC_GRAPH_WEIGHTED, &g));
  REQUIRE_OK(fc_graph_info(g, &n1, &e1));
  CHECK(e1 > 0);

  /* round trip */
  CHECK_OK(fc_graph_save(g, path));
  CHECK(file_size(path) == 32 + 8 * (N + 1) + 12 * 2 * e1);
  CHECK_OK(fc_graph_load(path, &h));
  REQUIRE_OK(fc_graph_info(h, &n2, &e2));
  CHECK(n1 == n2 && e1 == e2);
  o1 = (int64_t*)check_malloc(sizeof(int64_t) * (N + 1));
  o2 = (int64_t*)check_malloc(sizeof(int64_t) * (N + 1));
  c1 = (int64_t*)check_malloc(sizeof(int64_t) * 2 * e1);
  c2 = (int64_t*)check_malloc(sizeof(int64_t) * 2 * e1);
  w1 = (float*)check_malloc(sizeof(float) * 2 * e1);
  w2 = (float*)check_malloc(sizeof(float) * 2 * e1);
  REQUIRE_OK(fc_graph_csr(g, o1, c1, w1, 2 * e1));
  REQUIRE_OK(fc_graph_csr(h, o2, c2, w2, 2 * e1));
  CHECK(memcmp(o1, o2, sizeof(int64_t) * (N + 1)) == 0);
  CHECK(memcmp(c1, c2, sizeof(int64_t) * 2 * e1) == 0);
  CHECK_SAME_BITS(w1, w2, 2 * e1, "weights after a round trip");
  fc_graph_destroy(h);

  /* saving over an existing file replaces it whole, and leaves no temporary file */
  CHECK_OK(fc_graph_save(g, path));
  CHECK(file_size("graph_file_test.fcg.fastconn-tmp") == -1);

  /* NULL arguments */
  CHECK_STATUS(fc_graph_save(NULL, path), FC_ERR_NULL_ARG);
  CHECK_STATUS(fc_graph_save(g, NULL), FC_ERR_NULL_ARG);
  CHECK_STATUS(fc_graph_load(NULL, &h), FC_ERR_NULL_ARG);
  CHECK_STATUS(fc_graph_load(path, NULL), FC_ERR_NULL_ARG);

  /* I/O failures name the path; the output handle is left as it was */
  h = untouched;
  CHECK_STATUS(fc_graph_load("no_such_dir/graph.fcg", &h), FC_ERR_IO);
  CHECK_ERROR_MENTIONS("no_such_dir/graph.fcg");
  CHECK(h == untouched);
  CHECK_STATUS(fc_graph_save(g, "no_such_dir/graph.fcg"), FC_ERR_IO);
  CHECK_ERROR_MENTIONS("no_such_dir/graph.fcg");

  write_bytes("not_a_graph.fcg", "hello, this is not a graph file at all", 38);
  CHECK_STATUS(fc_graph_load("not_a_graph.fcg", &h), FC_ERR_IO);
  CHECK_ERROR_MENTIONS("not a fastconn graph file");
  CHECK(h == untouched);

  /* truncated: the first half of a real file */
  size = file_size(path);
  bytes = (unsigned char*)check_malloc((size_t)size);
  f = fopen(path, "rb");
  CHECK(f != NULL && fread(bytes, 1, (size_t)size, f) == (size_t)size);
  if (f != NULL) fclose(f);
  write_bytes("truncated.fcg", bytes, (size_t)size / 2);
  CHECK_STATUS(fc_graph_load("truncated.fcg", &h), FC_ERR_IO);
  CHECK_ERROR_MENTIONS("truncated");
  CHECK(h == untouched);

  /* a header alone that claims a huge graph (2^40 nodes, 2^50 edges): FC_ERR_IO, never an
   * allocation of terabytes (regression: tests/fuzz/fuzz_graph_load.cpp; ASan aborted on it) */
  {
    unsigned char header[32];
    const int64_t huge[2] = {(int64_t)1 << 40, (int64_t)1 << 50};
    memcpy(header, bytes, 16); /* magic and version of the real file */
    memcpy(header + 16, huge, sizeof huge);
    write_bytes("huge_header.fcg", header, sizeof header);
    CHECK_STATUS(fc_graph_load("huge_header.fcg", &h), FC_ERR_IO);
    CHECK_ERROR_MENTIONS("truncated");
    CHECK(h == untouched);
  }

  /* corrupt: the first column of row 0 made a self-loop; the load names the entry */
  {
    int64_t zero = 0;
    memcpy(bytes + 32 + 8 * (N + 1), &zero, sizeof zero);
    for (k = 0; k < N && o1[k + 1] == o1[k]; ++k) {
    }
    CHECK(k == 0); /* the data gives row 0 edges, so the corruption below is exercised */
    if (k == 0) {
      write_bytes("corrupt.fcg", bytes, (size_t)size);
      CHECK_STATUS(fc_graph_load("corrupt.fcg", &h), FC_ERR_IO);
      CHECK_ERROR_MENTIONS("self-loop");
      CHECK(h == untouched);
    }
  }

  free(bytes);
  free(o1); free(o2); free(c1); free(c2); free(w1); free(w2);
  fc_graph_destroy(g);
  fc_series_destroy(s);
  fc_context_destroy(ctx);
  free(x);
  remove(path);
  remove("not_a_graph.fcg");
  remove("truncated.fcg");
  remove("huge_header.fcg");
  remove("corrupt.fcg");
  return check_report();
}
