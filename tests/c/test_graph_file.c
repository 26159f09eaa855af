/* fc_graph_save / fc_graph_load: a round trip gives the same CSR bit for bit; every failure is
 * FC_ERR_IO naming the path (missing file, not a graph file, truncated, another format version,
 * corrupt counts, offsets or arrays, a directory that does not exist) and leaves the output handle
 * untouched. Files go to the working directory (CTest runs this in the build tree). A file cut
 * mid-array is read through a pipe (/proc/self/fd, Linux), where the size check before the
 * arrays cannot see the end, so the read itself must report it. */
#define _POSIX_C_SOURCE 200809L /* pipe, close */
#include <stdio.h>
#include <unistd.h>

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

/* fc_graph_load of the first `bytes` bytes of `data` through a pipe: a file that is not a regular
 * file, so the load cannot know its size before it reads. */
static fc_status load_through_pipe(const unsigned char* data, size_t bytes, fc_graph** out) {
  int fd[2];
  char path[64];
  fc_status status;
  if (pipe(fd) != 0 || write(fd[1], data, bytes) != (ssize_t)bytes) { /* the pipe holds 64 KiB */
    fprintf(stderr, "cannot fill a pipe\n");
    exit(1);
  }
  close(fd[1]);
  sprintf(path, "/proc/self/fd/%d", fd[0]);
  status = fc_graph_load(path, out);
  close(fd[0]);
  return status;
}

/* A copy of the file's bytes with the 8-byte integer at `offset` replaced. */
static unsigned char* with_int64(const unsigned char* bytes, long size, long offset, int64_t value) {
  unsigned char* copy = (unsigned char*)check_malloc((size_t)size);
  memcpy(copy, bytes, (size_t)size);
  memcpy(copy + offset, &value, sizeof value);
  return copy;
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

  /* The layout (src/graph/graph_file.hpp): magic [0, 8), version [8, 12), reserved [12, 16),
   * n [16, 24), edges [24, 32), then n + 1 offsets, 2 edges columns, 2 edges weights. */
  {
    const long offsets_at = 32, columns_at = 32 + 8 * (N + 1);
    const uint32_t version = 2;
    unsigned char* changed;
    f = fopen(path, "rb"); /* the saved file again (bytes now holds the self-loop) */
    CHECK(f != NULL && fread(bytes, 1, (size_t)size, f) == (size_t)size);
    if (f != NULL) fclose(f);
    changed = with_int64(bytes, size, 16, N); /* a copy: n is N already */
    memcpy(changed + 8, &version, sizeof version);
    write_bytes("version2.fcg", changed, (size_t)size);
    CHECK_STATUS(fc_graph_load("version2.fcg", &h), FC_ERR_IO);
    CHECK_ERROR_MENTIONS("version2.fcg' has graph format version 2; this fastconn reads version 1");
    CHECK(h == untouched);
    free(changed);

    /* counts no file can hold: negative nodes, negative edges, more than 2^50 edges */
    changed = with_int64(bytes, size, 16, -5);
    write_bytes("corrupt_counts.fcg", changed, (size_t)size);
    CHECK_STATUS(fc_graph_load("corrupt_counts.fcg", &h), FC_ERR_IO);
    CHECK_ERROR_MENTIONS("is corrupt: -5 nodes");
    CHECK(h == untouched);
    free(changed);
    changed = with_int64(bytes, size, 24, -1);
    write_bytes("corrupt_counts.fcg", changed, (size_t)size);
    CHECK_STATUS(fc_graph_load("corrupt_counts.fcg", &h), FC_ERR_IO);
    CHECK_ERROR_MENTIONS("is corrupt: 61 nodes, -1 edges");
    CHECK(h == untouched);
    free(changed);
    changed = with_int64(bytes, size, 24, ((int64_t)1 << 50) + 1);
    write_bytes("corrupt_counts.fcg", changed, (size_t)size);
    CHECK_STATUS(fc_graph_load("corrupt_counts.fcg", &h), FC_ERR_IO);
    CHECK_ERROR_MENTIONS("is corrupt: 61 nodes, 1125899906842625 edges");
    CHECK(h == untouched);
    free(changed);

    /* offsets that end before the stored entries (the file's size still matches its counts) */
    changed = with_int64(bytes, size, offsets_at + 8 * N, 2 * e1 - 2);
    write_bytes("corrupt_offsets.fcg", changed, (size_t)size);
    CHECK_STATUS(fc_graph_load("corrupt_offsets.fcg", &h), FC_ERR_IO);
    {
      char expect[160];
      sprintf(expect, "is corrupt: its offsets end at %lld but it holds %lld edges (%lld entries)", (long long)(2 * e1 - 2),
              (long long)e1, (long long)(2 * e1));
      ++check_count;
      if (strstr(fc_last_error(), expect) == NULL) {
        check_fail(__FILE__, __LINE__, expect);
        fprintf(stderr, "    fc_last_error: %s\n", fc_last_error());
      }
    }
    CHECK(h == untouched);
    free(changed);
    /* offsets that decrease: the arrays are checked as fc_graph_create_csr checks them */
    changed = with_int64(bytes, size, offsets_at + 8 * 1, o1[2] + 1);
    write_bytes("corrupt_offsets.fcg", changed, (size_t)size);
    CHECK_STATUS(fc_graph_load("corrupt_offsets.fcg", &h), FC_ERR_IO);
    CHECK_ERROR_MENTIONS("holds an invalid graph: row_offsets[2]");
    CHECK(h == untouched);
    free(changed);

    /* cut mid-array, read through a pipe: in the offsets, in the columns, in the weights */
    CHECK(size < 65536);
    CHECK_STATUS(load_through_pipe(bytes, (size_t)(offsets_at + 8 * (N / 2) + 3), &h), FC_ERR_IO);
    CHECK_ERROR_MENTIONS("is truncated: not a complete fastconn graph file");
    CHECK(h == untouched);
    CHECK_STATUS(load_through_pipe(bytes, (size_t)(columns_at + 8 * e1), &h), FC_ERR_IO);
    CHECK_ERROR_MENTIONS("is truncated: not a complete fastconn graph file");
    CHECK(h == untouched);
    CHECK_STATUS(load_through_pipe(bytes, (size_t)size - 1, &h), FC_ERR_IO);
    CHECK_ERROR_MENTIONS("is truncated: not a complete fastconn graph file");
    CHECK(h == untouched);
    /* the whole file through the pipe loads, so the failures above are the cuts' */
    h = NULL;
    CHECK_OK(load_through_pipe(bytes, (size_t)size, &h));
    REQUIRE_OK(fc_graph_info(h, &n2, &e2));
    CHECK(n2 == N && e2 == e1);
    fc_graph_destroy(h);
    h = untouched;
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
  remove("version2.fcg");
  remove("corrupt_counts.fcg");
  remove("corrupt_offsets.fcg");
  return check_report();
}
