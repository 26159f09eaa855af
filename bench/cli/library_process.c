/* library_process.c - the baseline of bench/cli/bench_cli.py: what `fastconn degree --threshold R`
 * does minus the file I/O and the mask, in a process of its own (issue 13).
 *
 * A program that already holds the masked scan as a float32 T x N matrix (time-major: value
 * (t, s) at t * N + s, the layout the CLI's gather hands to fc_series_create_f32) maps it from a
 * raw file and makes the CLI's library calls with the CLI's settings: fc_context_create(backend,
 * -1), threads, memory limit 0, FP32, constant series as r = 0, fc_series_create_f32(data, N, T,
 * series_stride 1, time_stride N), fc_pcc_degree(FC_EDGE_ABS_THRESHOLD, R) with the binary degrees
 * only (the CLI asks for strengths only with --weighted-output), then destroys everything and
 * exits. It writes nothing, except:
 *   --check FILE  the N degrees as little-endian int64 (after the calls, for bench_cli.py to
 *                 compare with the CLI's map; not used in the timed runs)
 *   --times       one line on stdout: the seconds of context, series, compute and release
 *
 * Usage: library_process MATRIX N T R BACKEND(auto|cpu|cuda) THREADS [--check FILE] [--times]
 * It links only the public C API (fastconn::fastconn), as tools/cli does. */
#define _GNU_SOURCE /* MAP_POPULATE */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <fastconn/fastconn.h>

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void check(fc_status status, const char* what) {
  if (status != FC_OK) {
    fprintf(stderr, "library_process: %s: %s (%s)\n", what, fc_status_string(status), fc_last_error());
    exit(1);
  }
}

static void usage(void) {
  fprintf(stderr, "usage: library_process MATRIX N T R auto|cpu|cuda THREADS [--check FILE] [--times]\n");
  exit(2);
}

int main(int argc, char** argv) {
  if (argc < 7) usage();
  const char* path = argv[1];
  const int64_t n = strtoll(argv[2], NULL, 10), t = strtoll(argv[3], NULL, 10);
  const double r = strtod(argv[4], NULL);
  fc_backend backend = FC_BACKEND_AUTO;
  if (strcmp(argv[5], "cpu") == 0)
    backend = FC_BACKEND_CPU;
  else if (strcmp(argv[5], "cuda") == 0)
    backend = FC_BACKEND_CUDA;
  else if (strcmp(argv[5], "auto") != 0)
    usage();
  const int threads = atoi(argv[6]);
  const char* check_path = NULL;
  int times = 0;
  for (int k = 7; k < argc; ++k) {
    if (strcmp(argv[k], "--check") == 0 && k + 1 < argc)
      check_path = argv[++k];
    else if (strcmp(argv[k], "--times") == 0)
      times = 1;
    else
      usage();
  }
  if (n < 2 || t < 2) usage();

  /* The matrix, mapped (the file is in the page cache in the timed runs). */
  const int fd = open(path, O_RDONLY);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0) {
    perror(path);
    return 1;
  }
  const size_t bytes = (size_t)n * (size_t)t * sizeof(float);
  if ((size_t)st.st_size != bytes) {
    fprintf(stderr, "library_process: %s holds %lld bytes, not N x T x 4 = %zu\n", path, (long long)st.st_size, bytes);
    return 1;
  }
  const float* data = mmap(NULL, bytes, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
  if (data == MAP_FAILED) {
    perror("mmap");
    return 1;
  }
  close(fd);

  const double t0 = now_seconds();
  fc_context* ctx = NULL;
  check(fc_context_create(backend, -1, &ctx), "fc_context_create");
  check(fc_context_set_threads(ctx, threads), "fc_context_set_threads");
  check(fc_context_set_memory_limit(ctx, 0), "fc_context_set_memory_limit");
  check(fc_context_set_precision(ctx, FC_PRECISION_FP32), "fc_context_set_precision");
  check(fc_context_set_constant_policy(ctx, FC_CONSTANT_ZERO), "fc_context_set_constant_policy");
  const double t1 = now_seconds();
  fc_series* series = NULL;
  check(fc_series_create_f32(ctx, data, n, t, 1, n, &series), "fc_series_create_f32");
  const double t2 = now_seconds();
  int64_t* degree = malloc((size_t)n * sizeof(int64_t));
  if (!degree) {
    fprintf(stderr, "library_process: out of memory\n");
    return 1;
  }
  check(fc_pcc_degree(ctx, series, FC_EDGE_ABS_THRESHOLD, r, degree, NULL), "fc_pcc_degree");
  const double t3 = now_seconds();
  fc_series_destroy(series);
  fc_context_destroy(ctx);
  const double t4 = now_seconds();
  munmap((void*)data, bytes);

  if (check_path) {
    FILE* f = fopen(check_path, "wb");
    if (!f || fwrite(degree, sizeof(int64_t), (size_t)n, f) != (size_t)n || fclose(f) != 0) {
      perror(check_path);
      return 1;
    }
  }
  if (times)
    printf("{\"context\": %.6f, \"series\": %.6f, \"compute\": %.6f, \"release\": %.6f}\n", t1 - t0, t2 - t1,
           t3 - t2, t4 - t3);
  free(degree);
  return 0;
}
