/* test_dfc.c - dynamic connectivity through the public header: the window arithmetic (edge cases
 * and int64 overflow), every status path of the window and DFC calls (NULLs, invalid specs named
 * in fc_last_error, short buffers, bad enums) with nothing written on error, the three front
 * doors of the windows' triangles agreeing bit for bit (full array, pull iterator in row blocks,
 * callback), windows against a float64 reference of the raw data, the iterator's states, and
 * progress / cancellation over the whole multi-window job. */
#include "check.h"

enum { N = 23, T = 61, W_LEN = 17, STEP = 5 };
#define PAIRS ((int64_t)N * (N - 1) / 2)
static double x[N * T];

/* ------------------------------------------------------------------------------------------- */
static void test_window_count(void) {
  CHECK(fc_window_count(10, 2, 1) == 9);
  CHECK(fc_window_count(10, 10, 1) == 1);  /* w = T */
  CHECK(fc_window_count(10, 3, 4) == 2);   /* floor(7 / 4) + 1: s does not divide T - w */
  CHECK(fc_window_count(10, 3, 20) == 1);  /* s > w, s > T */
  CHECK(fc_window_count(10, 11, 1) == -1); /* w > T */
  CHECK(fc_window_count(10, 1, 1) == -1);  /* w < 2 */
  CHECK(fc_window_count(10, 2, 0) == -1);  /* s < 1 */
  CHECK(fc_window_count(10, 2, -3) == -1);
  CHECK(fc_window_count(-5, 2, 1) == -1);
  CHECK(fc_window_count(INT64_MAX, 2, 1) == INT64_MAX - 1);
  CHECK(fc_window_count(INT64_MAX, INT64_MAX, 1) == 1);
  CHECK(fc_window_count(INT64_MAX, 2, INT64_MAX) == 1);
  CHECK(fc_window_count(INT64_MAX, 2, INT64_MAX / 2) == 2);
  CHECK(fc_window_begin(10, 3, 4, 0) == 0);
  CHECK(fc_window_begin(10, 3, 4, 1) == 4);
  CHECK(fc_window_begin(10, 3, 4, 2) == -1);
  CHECK(fc_window_begin(10, 3, 4, -1) == -1);
  CHECK(fc_window_begin(10, 1, 4, 0) == -1);
  CHECK(fc_window_begin(INT64_MAX, 2, 1, INT64_MAX - 2) == INT64_MAX - 2);
  CHECK(fc_window_begin(INT64_MAX, 2, 1, INT64_MAX - 1) == -1);
  CHECK(fc_window_begin(INT64_MAX, 2, INT64_MAX / 2, 1) == INT64_MAX / 2);
}

/* ------------------------------------------------------------------------------------------- */
/* Every invalid argument: the status, the message naming the value, and nothing written. */
static void test_status_paths(fc_context* ctx, fc_series* s) {
  const int64_t w = fc_window_count(T, W_LEN, STEP);
  const int64_t size = w * PAIRS;
  float* out = (float*)check_malloc(sizeof(float) * (size_t)size);
  double mean[PAIRS], sd[PAIRS];
  int64_t degree[N * 8];
  fc_series* win = NULL;
  fc_dfc* dfc = NULL;
  fc_context* other = NULL;
  fc_series* foreign = NULL;
  int64_t i;
  int bad = 0;

  /* fc_series_window */
  CHECK_STATUS(fc_series_window(NULL, s, 0, 5, FC_TAPER_RECTANGULAR, 0.0, &win), FC_ERR_NULL_ARG);
  CHECK_ERROR_MENTIONS("ctx");
  CHECK_STATUS(fc_series_window(ctx, NULL, 0, 5, FC_TAPER_RECTANGULAR, 0.0, &win), FC_ERR_NULL_ARG);
  CHECK_ERROR_MENTIONS("series");
  CHECK_STATUS(fc_series_window(ctx, s, 0, 5, FC_TAPER_RECTANGULAR, 0.0, NULL), FC_ERR_NULL_ARG);
  CHECK_ERROR_MENTIONS("out");
  CHECK_STATUS(fc_series_window(ctx, s, 0, 1, FC_TAPER_RECTANGULAR, 0.0, &win), FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("length 1");
  CHECK_STATUS(fc_series_window(ctx, s, 0, T + 1, FC_TAPER_RECTANGULAR, 0.0, &win), FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("length 62");
  CHECK_STATUS(fc_series_window(ctx, s, -1, 5, FC_TAPER_RECTANGULAR, 0.0, &win), FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("begin -1");
  CHECK_STATUS(fc_series_window(ctx, s, T - 4, 5, FC_TAPER_RECTANGULAR, 0.0, &win), FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("begin 57 + length 5");
  CHECK_STATUS(fc_series_window(ctx, s, INT64_MAX, 5, FC_TAPER_RECTANGULAR, 0.0, &win), FC_ERR_INVALID_ARG);
  CHECK_STATUS(fc_series_window(ctx, s, 0, 5, 2, 0.0, &win), FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("taper 2");
  CHECK_STATUS(fc_series_window(ctx, s, 0, 5, -1, 0.0, &win), FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("taper -1");
  CHECK_STATUS(fc_series_window(ctx, s, 0, 5, FC_TAPER_GAUSSIAN, 0.0, &win), FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("sigma 0");
  CHECK_STATUS(fc_series_window(ctx, s, 0, 5, FC_TAPER_GAUSSIAN, -2.0, &win), FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("sigma -2");
  CHECK_STATUS(fc_series_window(ctx, s, 0, 5, FC_TAPER_GAUSSIAN, NAN, &win), FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("sigma nan");
  CHECK_STATUS(fc_series_window(ctx, s, 0, 5, FC_TAPER_GAUSSIAN, INFINITY, &win), FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("sigma inf");
  CHECK(win == NULL);
  /* the rectangular taper never reads sigma */
  CHECK_OK(fc_series_window(ctx, s, 0, 5, FC_TAPER_RECTANGULAR, NAN, &win));
  fc_series_destroy(win);
  win = NULL;
  /* a series of another context */
  REQUIRE_OK(fc_context_create(FC_BACKEND_CPU, -1, &other));
  REQUIRE_OK(fc_series_create_f64(other, x, N, T, T, 1, &foreign));
  CHECK_STATUS(fc_series_window(ctx, foreign, 0, 5, FC_TAPER_RECTANGULAR, 0.0, &win), FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("another context");

  /* fc_dfc_triu: each bad spec, bad order, short capacity: nothing written */
  check_fill_sentinel(out, size);
  CHECK_STATUS(fc_dfc_triu(NULL, s, W_LEN, STEP, 0, 0.0, FC_TRIU_ROW, out, size), FC_ERR_NULL_ARG);
  CHECK_STATUS(fc_dfc_triu(ctx, NULL, W_LEN, STEP, 0, 0.0, FC_TRIU_ROW, out, size), FC_ERR_NULL_ARG);
  CHECK_STATUS(fc_dfc_triu(ctx, s, W_LEN, STEP, 0, 0.0, FC_TRIU_ROW, NULL, size), FC_ERR_NULL_ARG);
  CHECK_ERROR_MENTIONS("out");
  CHECK_STATUS(fc_dfc_triu(ctx, s, 1, STEP, 0, 0.0, FC_TRIU_ROW, out, size), FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("length 1");
  CHECK_STATUS(fc_dfc_triu(ctx, s, T + 1, STEP, 0, 0.0, FC_TRIU_ROW, out, size), FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("length 62");
  CHECK_STATUS(fc_dfc_triu(ctx, s, W_LEN, 0, 0, 0.0, FC_TRIU_ROW, out, size), FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("step 0");
  CHECK_STATUS(fc_dfc_triu(ctx, s, W_LEN, STEP, 5, 0.0, FC_TRIU_ROW, out, size), FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("taper 5");
  CHECK_STATUS(fc_dfc_triu(ctx, s, W_LEN, STEP, FC_TAPER_GAUSSIAN, -1.0, FC_TRIU_ROW, out, size), FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("sigma -1");
  CHECK_STATUS(fc_dfc_triu(ctx, s, W_LEN, STEP, 0, 0.0, (fc_triu_order)7, out, size), FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("order 7");
  CHECK_STATUS(fc_dfc_triu(ctx, s, W_LEN, STEP, 0, 0.0, FC_TRIU_ROW, out, size - 1), FC_ERR_BUFFER_TOO_SMALL);
  CHECK_ERROR_MENTIONS("capacity");
  CHECK_STATUS(fc_dfc_triu(ctx, foreign, W_LEN, STEP, 0, 0.0, FC_TRIU_ROW, out, size), FC_ERR_INVALID_ARG);
  CHECK(check_all_sentinel(out, size));

  /* fc_dfc_begin and the iterator */
  CHECK_STATUS(fc_dfc_begin(NULL, s, W_LEN, STEP, 0, 0.0, &dfc), FC_ERR_NULL_ARG);
  CHECK_STATUS(fc_dfc_begin(ctx, NULL, W_LEN, STEP, 0, 0.0, &dfc), FC_ERR_NULL_ARG);
  CHECK_STATUS(fc_dfc_begin(ctx, s, W_LEN, STEP, 0, 0.0, NULL), FC_ERR_NULL_ARG);
  CHECK_STATUS(fc_dfc_begin(ctx, s, W_LEN, -2, 0, 0.0, &dfc), FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("step -2");
  CHECK(dfc == NULL);
  CHECK_STATUS(fc_dfc_info(NULL, NULL, NULL, NULL), FC_ERR_NULL_ARG);
  CHECK_STATUS(fc_dfc_window(NULL, 0, &win), FC_ERR_NULL_ARG);
  CHECK_STATUS(fc_dfc_next_triu(NULL, out, size, NULL), FC_ERR_NULL_ARG);
  CHECK_STATUS(fc_dfc_next_graph(NULL, FC_EDGE_ABS_THRESHOLD, 0.5, 0, NULL, NULL), FC_ERR_NULL_ARG);
  fc_dfc_destroy(NULL);
  REQUIRE_OK(fc_dfc_begin(ctx, s, W_LEN, STEP, 0, 0.0, &dfc));
  {
    fc_dfc_block_info info;
    fc_graph* g = NULL;
    int64_t n_windows = -1, n_series = -1, length = -1, window = -7;
    CHECK_OK(fc_dfc_info(dfc, &n_windows, &n_series, &length));
    CHECK(n_windows == w && n_series == N && length == W_LEN);
    CHECK_OK(fc_dfc_info(dfc, NULL, NULL, NULL));
    CHECK_STATUS(fc_dfc_window(dfc, w, &win), FC_ERR_INVALID_ARG);
    CHECK_ERROR_MENTIONS("window index 9");
    CHECK_STATUS(fc_dfc_window(dfc, -1, &win), FC_ERR_INVALID_ARG);
    CHECK_STATUS(fc_dfc_window(dfc, 0, NULL), FC_ERR_NULL_ARG);
    CHECK_STATUS(fc_dfc_next_triu(dfc, out, size, NULL), FC_ERR_NULL_ARG);
    CHECK_ERROR_MENTIONS("info");
    CHECK_STATUS(fc_dfc_next_triu(dfc, NULL, size, &info), FC_ERR_NULL_ARG);
    CHECK_ERROR_MENTIONS("buf");
    /* less than one row: the one-row block described, nothing written, nothing advanced */
    CHECK_STATUS(fc_dfc_next_triu(dfc, out, N - 2, &info), FC_ERR_BUFFER_TOO_SMALL);
    CHECK(info.window == 0 && info.row_begin == 0 && info.row_end == 1 && info.count == N - 1 && info.triu_offset == 0);
    CHECK(check_all_sentinel(out, size));
    CHECK_STATUS(fc_dfc_next_graph(dfc, (fc_edge_rule)9, 0.5, 0, &g, &window), FC_ERR_INVALID_ARG);
    CHECK_ERROR_MENTIONS("rule 9");
    CHECK_STATUS(fc_dfc_next_graph(dfc, FC_EDGE_ABS_THRESHOLD, 0.5, 3, &g, &window), FC_ERR_INVALID_ARG);
    CHECK_ERROR_MENTIONS("weights 3");
    CHECK_STATUS(fc_dfc_next_graph(dfc, FC_EDGE_ABS_THRESHOLD, 0.5, 0, NULL, &window), FC_ERR_NULL_ARG);
    /* after failures the cursor is still at window 0, row 0 */
    CHECK_OK(fc_dfc_next_triu(dfc, out, N - 1, &info));
    CHECK(info.window == 0 && info.row_begin == 0 && info.row_end == 1);
    /* part of window 0 delivered: no graph now */
    CHECK_STATUS(fc_dfc_next_graph(dfc, FC_EDGE_ABS_THRESHOLD, 0.5, 0, &g, &window), FC_ERR_BAD_STATE);
    CHECK_ERROR_MENTIONS("window 0");
    /* finish window 0, then a graph is window 1 */
    CHECK_OK(fc_dfc_next_triu(dfc, out, size, &info));
    CHECK(info.window == 0 && info.row_begin == 1 && info.row_end == N - 1);
    CHECK_OK(fc_dfc_next_graph(dfc, FC_EDGE_ABS_THRESHOLD, 0.5, 0, &g, &window));
    CHECK(window == 1 && g != NULL);
    fc_graph_destroy(g);
    /* graphs to the end, then FC_DONE for graphs and triangles alike */
    while (fc_dfc_next_graph(dfc, FC_EDGE_ABS_THRESHOLD, 0.5, 0, &g, &window) == FC_OK) fc_graph_destroy(g);
    CHECK(g == NULL && window == -1);
    CHECK_STATUS(fc_dfc_next_graph(dfc, FC_EDGE_ABS_THRESHOLD, 0.5, 0, &g, NULL), FC_DONE);
    CHECK_STATUS(fc_dfc_next_triu(dfc, out, size, &info), FC_DONE);
    CHECK(info.count == 0 && info.window == w);
  }
  fc_dfc_destroy(dfc);

  /* foreach */
  CHECK_STATUS(fc_dfc_foreach_triu(ctx, s, W_LEN, STEP, 0, 0.0, 0, NULL, NULL), FC_ERR_NULL_ARG);
  CHECK_ERROR_MENTIONS("fn");

  /* degree: bad rule / spec, nothing written */
  for (i = 0; i < N * 8; ++i) degree[i] = -77;
  CHECK_STATUS(fc_dfc_degree(ctx, s, W_LEN, 8, 0, 0.0, (fc_edge_rule)11, 0.5, degree, NULL), FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("rule 11");
  CHECK_STATUS(fc_dfc_degree(ctx, s, W_LEN, 8, 0, 0.0, FC_EDGE_DENSITY, 1.5, degree, NULL), FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("1.5");
  CHECK_STATUS(fc_dfc_degree(ctx, s, 0, 8, 0, 0.0, FC_EDGE_ABS_THRESHOLD, 0.5, degree, NULL), FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("length 0");
  CHECK_STATUS(fc_dfc_degree(NULL, s, W_LEN, 8, 0, 0.0, FC_EDGE_ABS_THRESHOLD, 0.5, degree, NULL), FC_ERR_NULL_ARG);
  for (i = 0; i < N * 8; ++i) bad += degree[i] != -77;
  CHECK(bad == 0);

  /* summary: bad order, short capacity, nothing written */
  for (i = 0; i < PAIRS; ++i) mean[i] = sd[i] = -5.0;
  CHECK_STATUS(fc_dfc_summary(ctx, s, W_LEN, STEP, 0, 0.0, (fc_triu_order)-1, mean, sd, PAIRS), FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("order -1");
  CHECK_STATUS(fc_dfc_summary(ctx, s, W_LEN, STEP, 0, 0.0, FC_TRIU_ROW, mean, sd, PAIRS - 1), FC_ERR_BUFFER_TOO_SMALL);
  CHECK_STATUS(fc_dfc_summary(ctx, s, W_LEN, STEP, 3, 0.0, FC_TRIU_ROW, mean, sd, PAIRS), FC_ERR_INVALID_ARG);
  CHECK_STATUS(fc_dfc_summary(ctx, NULL, W_LEN, STEP, 0, 0.0, FC_TRIU_ROW, mean, sd, PAIRS), FC_ERR_NULL_ARG);
  bad = 0;
  for (i = 0; i < PAIRS; ++i) bad += mean[i] != -5.0 || sd[i] != -5.0;
  CHECK(bad == 0);

  /* low rank: rank out of range, short capacity, NULL factor; nothing written */
  check_fill_sentinel(out, size);
  CHECK_STATUS(fc_pcc_lowrank(ctx, s, 0, out, size, NULL), FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("rank 0");
  CHECK_STATUS(fc_pcc_lowrank(ctx, s, T + 1, out, size, NULL), FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("rank 62");
  CHECK_STATUS(fc_pcc_lowrank(ctx, s, 3, NULL, size, NULL), FC_ERR_NULL_ARG);
  CHECK_STATUS(fc_pcc_lowrank(ctx, s, 3, out, 3 * N - 1, NULL), FC_ERR_BUFFER_TOO_SMALL);
  CHECK_STATUS(fc_pcc_lowrank(NULL, s, 3, out, size, NULL), FC_ERR_NULL_ARG);
  CHECK_STATUS(fc_dfc_lowrank(ctx, s, W_LEN, STEP, 0, 0.0, W_LEN + 1, out, size, NULL), FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("rank 18");
  CHECK_STATUS(fc_dfc_lowrank(ctx, s, W_LEN, STEP, 0, 0.0, 2, out, w * N * 2 - 1, NULL), FC_ERR_BUFFER_TOO_SMALL);
  CHECK_STATUS(fc_dfc_lowrank(ctx, s, W_LEN, STEP, 0, 0.0, 2, NULL, size, NULL), FC_ERR_NULL_ARG);
  CHECK_STATUS(fc_dfc_lowrank(ctx, s, W_LEN, STEP, 0, 0.0, INT64_MAX / 2, out, size, NULL), FC_ERR_INVALID_ARG);
  CHECK(check_all_sentinel(out, size));

  fc_series_destroy(foreign);
  fc_context_destroy(other);
  free(out);
}

/* ------------------------------------------------------------------------------------------- */
/* The three front doors: fc_dfc_triu, the pull iterator (row blocks under a small capacity, and
 * whole windows under a large one), and the callback, all bit-identical; each window equal to
 * fc_pcc_triu of fc_series_window and within 1e-5 of the raw data's float64 reference. */
typedef struct push_state {
  float* joined;
  int64_t expect_window, expect_row;
  int64_t blocks, capacity;
  int stop_after; /* > 0: return non-zero on that block */
} push_state;

static int on_block(const fc_dfc_block_info* info, const float* values, void* user) {
  push_state* p = (push_state*)user;
  CHECK(info->window == p->expect_window && info->row_begin == p->expect_row);
  CHECK(info->count <= p->capacity && info->count > 0);
  CHECK(info->time_begin == fc_window_begin(T, W_LEN, STEP, info->window));
  memcpy(p->joined + info->window * PAIRS + info->triu_offset, values, sizeof(float) * (size_t)info->count);
  p->expect_row = info->row_end == N - 1 ? 0 : info->row_end;
  if (info->row_end == N - 1) ++p->expect_window;
  ++p->blocks;
  return p->stop_after > 0 && p->blocks == p->stop_after;
}

static void test_front_doors(fc_context* ctx, fc_series* s) {
  const int64_t w = fc_window_count(T, W_LEN, STEP);
  const int64_t size = w * PAIRS;
  float* whole = (float*)check_malloc(sizeof(float) * (size_t)size);
  float* joined = (float*)check_malloc(sizeof(float) * (size_t)size);
  float* buf = (float*)check_malloc(sizeof(float) * (size_t)PAIRS);
  double* ref = (double*)check_malloc(sizeof(double) * N * N);
  double* xw = (double*)check_malloc(sizeof(double) * N * W_LEN);
  const int64_t capacities[] = {N - 1, N + 5, 3 * N, PAIRS - 1, PAIRS, 10 * PAIRS};
  size_t c;
  int64_t k, i, j, t;
  double worst = 0.0;

  check_fill_sentinel(whole, size);
  REQUIRE_OK(fc_dfc_triu(ctx, s, W_LEN, STEP, FC_TAPER_RECTANGULAR, 0.0, FC_TRIU_ROW, whole, size));
  /* every window against the reference of its raw samples */
  for (k = 0; k < w; ++k) {
    const int64_t b = fc_window_begin(T, W_LEN, STEP, k);
    int64_t p = 0;
    for (i = 0; i < N; ++i)
      for (t = 0; t < W_LEN; ++t) xw[i * W_LEN + t] = x[i * T + b + t];
    check_reference_dense(xw, N, W_LEN, ref);
    for (i = 0; i < N; ++i)
      for (j = i + 1; j < N; ++j, ++p) {
        const double d = fabs((double)whole[k * PAIRS + p] - ref[i * N + j]);
        if (!(d <= worst)) worst = d;
      }
  }
  CHECK(worst <= 1e-5);
  /* window k as a series of its own gives the same bits */
  for (k = 0; k < w; k += 3) {
    fc_series* win = NULL;
    int64_t n_time = 0;
    REQUIRE_OK(fc_series_window(ctx, s, fc_window_begin(T, W_LEN, STEP, k), W_LEN, FC_TAPER_RECTANGULAR, 0.0, &win));
    CHECK_OK(fc_series_info(win, NULL, &n_time, NULL));
    CHECK(n_time == W_LEN);
    CHECK_OK(fc_pcc_triu(ctx, win, FC_TRIU_ROW, buf, PAIRS));
    CHECK_SAME_BITS(buf, whole + k * PAIRS, PAIRS, "fc_series_window + fc_pcc_triu vs fc_dfc_triu");
    fc_series_destroy(win);
  }

  /* pull, at several capacities: blocks of whole rows, the largest that fit */
  for (c = 0; c < sizeof capacities / sizeof capacities[0]; ++c) {
    fc_dfc* dfc = NULL;
    fc_dfc_block_info info;
    fc_status status;
    int64_t next_window = 0, next_row = 0, blocks = 0;
    const int64_t cap = capacities[c];
    float* big = (float*)check_malloc(sizeof(float) * (size_t)cap);
    check_fill_sentinel(joined, size);
    REQUIRE_OK(fc_dfc_begin(ctx, s, W_LEN, STEP, FC_TAPER_RECTANGULAR, 0.0, &dfc));
    while ((status = fc_dfc_next_triu(dfc, big, cap, &info)) == FC_OK) {
      CHECK(info.window == next_window && info.row_begin == next_row);
      CHECK(info.triu_offset == fc_triu_offset(N, FC_TRIU_ROW, info.row_begin, info.row_begin + 1));
      CHECK(info.count <= cap);
      /* maximal: the next row would not have fit */
      if (info.row_end < N - 1) CHECK(info.count + (N - 1 - info.row_end) > cap);
      CHECK(info.n_constant == 0);
      memcpy(joined + info.window * PAIRS + info.triu_offset, big, sizeof(float) * (size_t)info.count);
      next_row = info.row_end == N - 1 ? 0 : info.row_end;
      if (info.row_end == N - 1) ++next_window;
      ++blocks;
    }
    CHECK(status == FC_DONE && next_window == w);
    if (cap >= PAIRS) CHECK(blocks == w);
    if (cap < PAIRS) CHECK(blocks > w);
    CHECK_SAME_BITS(joined, whole, size, "fc_dfc_next_triu blocks vs fc_dfc_triu");
    fc_dfc_destroy(dfc);
    free(big);
  }

  /* push, small capacity and automatic */
  for (c = 0; c < 2; ++c) {
    push_state p;
    memset(&p, 0, sizeof p);
    p.joined = joined;
    p.capacity = c == 0 ? N + 1 : PAIRS;
    check_fill_sentinel(joined, size);
    CHECK_OK(fc_dfc_foreach_triu(ctx, s, W_LEN, STEP, FC_TAPER_RECTANGULAR, 0.0, c == 0 ? N + 1 : 0, on_block, &p));
    CHECK(p.expect_window == w);
    CHECK_SAME_BITS(joined, whole, size, "fc_dfc_foreach_triu blocks vs fc_dfc_triu");
  }
  /* push: capacity checks before any call, and a stop from the callback */
  {
    push_state p;
    memset(&p, 0, sizeof p);
    p.joined = joined;
    p.capacity = N + 1;
    CHECK_STATUS(fc_dfc_foreach_triu(ctx, s, W_LEN, STEP, 0, 0.0, N - 2, on_block, &p), FC_ERR_BUFFER_TOO_SMALL);
    CHECK_STATUS(fc_dfc_foreach_triu(ctx, s, W_LEN, STEP, 0, 0.0, -1, on_block, &p), FC_ERR_INVALID_ARG);
    CHECK_STATUS(fc_dfc_foreach_triu(ctx, s, 1, STEP, 0, 0.0, 0, on_block, &p), FC_ERR_INVALID_ARG);
    CHECK(p.blocks == 0);
    p.stop_after = 4;
    CHECK_STATUS(fc_dfc_foreach_triu(ctx, s, W_LEN, STEP, 0, 0.0, N + 1, on_block, &p), FC_ERR_ABORTED);
    CHECK_ERROR_MENTIONS("callback");
    CHECK(p.blocks == 4);
  }
  free(whole);
  free(joined);
  free(buf);
  free(ref);
  free(xw);
}

/* ------------------------------------------------------------------------------------------- */
/* Progress over the whole job: pairs x windows, monotone, ending at the total; a cancel stops
 * with FC_ERR_ABORTED. */
typedef struct progress_state {
  int64_t calls, last_done, total, cancel_at;
  int monotone;
} progress_state;

static int on_progress(int64_t done, int64_t total, void* user) {
  progress_state* p = (progress_state*)user;
  if (done < p->last_done || done > total) p->monotone = 0;
  p->last_done = done;
  p->total = total;
  ++p->calls;
  return p->cancel_at > 0 && done >= p->cancel_at;
}

static void test_progress(fc_context* ctx, fc_series* s) {
  const int64_t w = fc_window_count(T, W_LEN, STEP);
  const int64_t size = w * PAIRS;
  float* out = (float*)check_malloc(sizeof(float) * (size_t)size);
  int64_t* degree = (int64_t*)check_malloc(sizeof(int64_t) * (size_t)(w * N));
  double* mean = (double*)check_malloc(sizeof(double) * (size_t)PAIRS);
  progress_state p;
  int call;
  for (call = 0; call < 4; ++call) {
    memset(&p, 0, sizeof p);
    p.monotone = 1;
    REQUIRE_OK(fc_context_set_progress(ctx, on_progress, &p));
    if (call == 0) CHECK_OK(fc_dfc_triu(ctx, s, W_LEN, STEP, 0, 0.0, FC_TRIU_COL, out, size));
    if (call == 1) CHECK_OK(fc_dfc_degree(ctx, s, W_LEN, STEP, 0, 0.0, FC_EDGE_DENSITY, 0.1, degree, NULL));
    if (call == 2) CHECK_OK(fc_dfc_summary(ctx, s, W_LEN, STEP, 0, 0.0, FC_TRIU_ROW, mean, NULL, PAIRS));
    if (call == 3) CHECK_OK(fc_dfc_lowrank(ctx, s, W_LEN, STEP, 0, 0.0, 2, out, size, NULL));
    CHECK(p.calls >= w);
    CHECK(p.monotone);
    CHECK(p.total == w * PAIRS);
    CHECK(p.last_done == w * PAIRS);
  }
  memset(&p, 0, sizeof p);
  p.monotone = 1;
  p.cancel_at = 2 * PAIRS;
  CHECK_STATUS(fc_dfc_triu(ctx, s, W_LEN, STEP, 0, 0.0, FC_TRIU_ROW, out, size), FC_ERR_ABORTED);
  CHECK(p.last_done < w * PAIRS);
  p.calls = 0;
  p.last_done = 0;
  CHECK_STATUS(fc_dfc_degree(ctx, s, W_LEN, STEP, 0, 0.0, FC_EDGE_ABS_THRESHOLD, 0.3, degree, NULL), FC_ERR_ABORTED);
  p.calls = 0;
  p.last_done = 0;
  CHECK_STATUS(fc_dfc_lowrank(ctx, s, W_LEN, STEP, 0, 0.0, 2, out, size, NULL), FC_ERR_ABORTED);
  REQUIRE_OK(fc_context_set_progress(ctx, NULL, NULL));
  free(out);
  free(degree);
  free(mean);
}

/* ------------------------------------------------------------------------------------------- */
/* N = 1: windows exist but hold no pairs. */
static void test_single_series(fc_context* ctx) {
  fc_series* one = NULL;
  fc_dfc* dfc = NULL;
  fc_dfc_block_info info;
  float dummy = CHECK_SENTINEL, factor[4 * 2];
  double err[4] = {-1, -1, -1, -1};
  int64_t degree[4] = {-1, -1, -1, -1};
  REQUIRE_OK(fc_series_create_f64(ctx, x, 1, T, T, 1, &one));
  CHECK_OK(fc_dfc_triu(ctx, one, 20, 20, 0, 0.0, FC_TRIU_ROW, &dummy, 0));
  CHECK(check_all_sentinel(&dummy, 1));
  REQUIRE_OK(fc_dfc_begin(ctx, one, 20, 20, 0, 0.0, &dfc));
  CHECK_STATUS(fc_dfc_next_triu(dfc, &dummy, 1, &info), FC_DONE);
  fc_dfc_destroy(dfc);
  CHECK_OK(fc_dfc_degree(ctx, one, 20, 20, 0, 0.0, FC_EDGE_ABS_THRESHOLD, 0.5, degree, NULL));
  CHECK(fc_window_count(T, 20, 20) == 3);
  CHECK(degree[0] == 0 && degree[1] == 0 && degree[2] == 0 && degree[3] == -1);
  CHECK_OK(fc_dfc_lowrank(ctx, one, 20, 20, 0, 0.0, 2, factor, 6, err));
  CHECK(err[0] >= 0.0 && err[0] < 1e-6 && err[3] == -1.0); /* one unit vector: rank 1 is exact */
  fc_series_destroy(one);
}

int main(void) {
  fc_context* ctx = NULL;
  fc_series* s = NULL;
  check_fmri_like(x, N, T, 42);
  check_make_cpu(x, N, T, &ctx, &s);
  test_window_count();
  test_status_paths(ctx, s);
  test_front_doors(ctx, s);
  test_progress(ctx, s);
  test_single_series(ctx);
  fc_series_destroy(s);
  fc_context_destroy(ctx);
  return check_report();
}
