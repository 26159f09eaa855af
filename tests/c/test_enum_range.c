/* Out-of-range enum values (issue 14). C callers (and MATLAB's calllib, ctypes, cffi, R's .Call)
 * pass plain ints where the header says fc_backend, fc_precision, ...; in the C++ entry points
 * an enum value outside its enumerators' range is undefined behaviour the moment it is loaded.
 * Every function with an enum parameter gets negative, one-past-last and INT_MAX values through a
 * cast from int and must answer FC_ERR_INVALID_ARG naming the value (getters: a documented
 * non-error answer). The test command also runs this program against the ASan+UBSan build
 * (scripts/sanitize.sh), where such a load would stop it with "load of value ... which is not a
 * valid value for type ...".
 *
 * The window/DFC and modularity calls are compiled in when the library has them (the build
 * defines FASTCONN_TEST_HAS_DFC / FASTCONN_TEST_HAS_MODULARITY, tests/c/CMakeLists.txt). */
#include <limits.h>

#include "check.h"
#include "fastconn/fastconn_cuda.h"

/* For each case: `value` is the int passed, `text` its decimal form, which the message must hold. */
typedef struct bad_value {
  int value;
  const char* text;
} bad_value;

static int mentions(const char* text) { return strstr(fc_last_error(), text) != NULL; }

/* The call returned FC_ERR_INVALID_ARG and fc_last_error() names the value. */
#define CHECK_NAMED(call, bad)                                                                    \
  do {                                                                                          \
    CHECK_STATUS(call, FC_ERR_INVALID_ARG);                                                     \
    ++check_count;                                                                              \
    if (!mentions((bad).text)) {                                                                \
      check_fail(__FILE__, __LINE__, #call " names the value");                                 \
      fprintf(stderr, "    value %s; fc_last_error: %s\n", (bad).text, fc_last_error());        \
    }                                                                                           \
  } while (0)

int main(void) {
  /* one past the last enumerator of each type, then the common negative and INT_MAX */
  const bad_value common[] = {{-1, "-1"}, {INT_MAX, "2147483647"}, {INT_MIN, "-2147483648"}};
  const bad_value past_backend = {3, "3"}, past_precision = {3, "3"}, past_policy = {2, "2"},
                  past_order = {2, "2"}, past_rule = {4, "4"}, past_weights = {3, "3"}, past_format = {3, "3"};
  enum { N = 12, T = 40 };
  double* x = (double*)check_malloc(sizeof(double) * N * T);
  float* out = (float*)check_malloc(sizeof(float) * N * N * 4);
  double* out64 = (double*)check_malloc(sizeof(double) * N * N);
  int64_t degree[N];
  double strength[N];
  fc_context* ctx = NULL;
  fc_series* s = NULL;
  fc_graph* g = NULL;
  int64_t i = -7, j = -7;
  size_t k;
  check_rng rng = {42};

  for (k = 0; k < (size_t)N * T; ++k) x[k] = check_gaussian(&rng);
  REQUIRE_OK(fc_context_create(FC_BACKEND_CPU, -1, &ctx));
  REQUIRE_OK(fc_series_create_f64(ctx, x, N, T, T, 1, &s));

  for (k = 0; k < 4; ++k) {
    const bad_value b_backend = k < 3 ? common[k] : past_backend;
    const bad_value b_precision = k < 3 ? common[k] : past_precision;
    const bad_value b_policy = k < 3 ? common[k] : past_policy;
    const bad_value b_order = k < 3 ? common[k] : past_order;
    const bad_value b_rule = k < 3 ? common[k] : past_rule;
    const bad_value b_weights = k < 3 ? common[k] : past_weights;
    const bad_value b_format = k < 3 ? common[k] : past_format;
    fc_context* other = (fc_context*)&x; /* must stay untouched */
    const fc_status status_bad = (fc_status)b_backend.value;

    /* getters: an answer, never an error, never a crash */
    CHECK(strcmp(fc_status_string(status_bad), "unknown fc_status") == 0);
    CHECK(fc_triu_offset(N, (fc_triu_order)b_order.value, 0, 1) == -1);

    CHECK_NAMED(fc_context_create((fc_backend)b_backend.value, -1, &other), b_backend);
    CHECK(other == (fc_context*)&x);
    CHECK_NAMED(fc_context_set_precision(ctx, (fc_precision)b_precision.value), b_precision);
    CHECK_NAMED(fc_context_set_constant_policy(ctx, (fc_constant_policy)b_policy.value), b_policy);

    CHECK_NAMED(fc_triu_pair(N, (fc_triu_order)b_order.value, 0, &i, &j), b_order);
    CHECK(i == -7 && j == -7);
    CHECK_NAMED(fc_pcc_triu(ctx, s, (fc_triu_order)b_order.value, out, fc_triu_size(N)), b_order);
    CHECK_NAMED(fc_pcc_triu_f64(ctx, s, (fc_triu_order)b_order.value, out64, fc_triu_size(N)), b_order);
    /* fastconn_cuda.h: the order is checked before the backend, so any build names it */
    CHECK_NAMED(fc_pcc_triu_device(ctx, s, (fc_triu_order)b_order.value, out, fc_triu_size(N)), b_order);
    CHECK_NAMED(fc_pcc_triu_device_f64(ctx, s, (fc_triu_order)b_order.value, out64, fc_triu_size(N)), b_order);
    /* the compact value formats (fc_value_format), and a bad order under a good format */
    CHECK_NAMED(fc_pcc_triu_compact(ctx, s, FC_TRIU_ROW, (fc_value_format)b_format.value, out, fc_triu_size(N)), b_format);
    CHECK_NAMED(fc_pcc_triu_compact(ctx, s, (fc_triu_order)b_order.value, FC_VALUES_INT16, out, fc_triu_size(N)), b_order);
    CHECK_NAMED(fc_pcc_dense_compact(ctx, s, (fc_value_format)b_format.value, out, N), b_format);
    CHECK_NAMED(fc_decode_values((fc_value_format)b_format.value, out, 1, (float*)out64), b_format);
    CHECK_NAMED(fc_decode_values_f64((fc_value_format)b_format.value, out, 1, out64), b_format);

    g = NULL;
    CHECK_NAMED(fc_pcc_graph(ctx, s, (fc_edge_rule)b_rule.value, 0.5, FC_GRAPH_BINARY, &g), b_rule);
    CHECK(g == NULL);
    CHECK_NAMED(fc_pcc_graph(ctx, s, FC_EDGE_ABS_THRESHOLD, 0.5, b_weights.value, &g), b_weights);
    CHECK(g == NULL);
    CHECK_NAMED(fc_pcc_degree(ctx, s, (fc_edge_rule)b_rule.value, 0.5, degree, strength), b_rule);
    CHECK_NAMED(fc_pcc_degree(ctx, s, (fc_edge_rule)b_rule.value, 0.5, NULL, NULL), b_rule);

#ifdef FASTCONN_TEST_HAS_DFC
    /* ---- windows and DFC (int taper, fc_triu_order, fc_edge_rule, int weights) -------------- */
    {
      const bad_value b_taper = k < 3 ? common[k] : (bad_value){2, "2"};
      fc_series* w = NULL;
      fc_dfc* dfc = NULL;
      const int64_t L = 20, step = 10, windows = fc_window_count(T, L, step);
      float* dfc_out = (float*)check_malloc(sizeof(float) * (size_t)(windows * fc_triu_size(N)));
      double* mean = (double*)check_malloc(sizeof(double) * (size_t)fc_triu_size(N));
      int64_t* wdegree = (int64_t*)check_malloc(sizeof(int64_t) * (size_t)(windows * N));
      float* factors = (float*)check_malloc(sizeof(float) * (size_t)(windows * N * 2));
      int64_t window = -7;

      CHECK_NAMED(fc_series_window(ctx, s, 0, L, b_taper.value, 2.0, &w), b_taper);
      CHECK(w == NULL);
      CHECK_NAMED(fc_dfc_triu(ctx, s, L, step, b_taper.value, 2.0, FC_TRIU_ROW, dfc_out, windows * fc_triu_size(N)),
                  b_taper);
      CHECK_NAMED(fc_dfc_triu(ctx, s, L, step, FC_TAPER_RECTANGULAR, 0.0, (fc_triu_order)b_order.value, dfc_out,
                              windows * fc_triu_size(N)),
                  b_order);
      CHECK_NAMED(fc_dfc_begin(ctx, s, L, step, b_taper.value, 2.0, &dfc), b_taper);
      CHECK(dfc == NULL);
      CHECK_NAMED(fc_dfc_degree(ctx, s, L, step, b_taper.value, 2.0, FC_EDGE_ABS_THRESHOLD, 0.5, wdegree, NULL), b_taper);
      CHECK_NAMED(fc_dfc_degree(ctx, s, L, step, FC_TAPER_RECTANGULAR, 0.0, (fc_edge_rule)b_rule.value, 0.5, wdegree, NULL),
                  b_rule);
      CHECK_NAMED(fc_dfc_summary(ctx, s, L, step, b_taper.value, 2.0, FC_TRIU_ROW, mean, NULL, fc_triu_size(N)), b_taper);
      CHECK_NAMED(fc_dfc_summary(ctx, s, L, step, FC_TAPER_RECTANGULAR, 0.0, (fc_triu_order)b_order.value, mean, NULL,
                                 fc_triu_size(N)),
                  b_order);
      CHECK_NAMED(fc_dfc_lowrank(ctx, s, L, step, b_taper.value, 2.0, 2, factors, windows * N * 2, NULL), b_taper);

      REQUIRE_OK(fc_dfc_begin(ctx, s, L, step, FC_TAPER_RECTANGULAR, 0.0, &dfc));
      g = NULL;
      CHECK_NAMED(fc_dfc_next_graph(dfc, (fc_edge_rule)b_rule.value, 0.5, FC_GRAPH_BINARY, &g, &window), b_rule);
      CHECK(g == NULL);
      CHECK_NAMED(fc_dfc_next_graph(dfc, FC_EDGE_ABS_THRESHOLD, 0.5, b_weights.value, &g, &window), b_weights);
      CHECK(g == NULL);
      /* the failed calls did not move the iterator: window 0 comes next */
      CHECK_OK(fc_dfc_next_graph(dfc, FC_EDGE_ABS_THRESHOLD, 0.5, FC_GRAPH_BINARY, &g, &window));
      CHECK(window == 0);
      fc_graph_destroy(g);
      g = NULL;
      fc_dfc_destroy(dfc);
      free(dfc_out);
      free(mean);
      free(wdegree);
      free(factors);
    }
#endif

#ifdef FASTCONN_TEST_HAS_MODULARITY
    /* ---- modularity options: signed_mode is an fc_signed_modularity carried as int32_t ------ */
    {
      const bad_value b_mode = k < 3 ? common[k] : (bad_value){2, "2"};
      fc_modularity_options options;
      fc_modules* modules = NULL;
      fc_graph* graph = NULL;
      REQUIRE_OK(fc_pcc_graph(ctx, s, FC_EDGE_TOP_K, 3, FC_GRAPH_WEIGHTED, &graph));
      REQUIRE_OK(fc_modularity_options_default(&options));
      options.signed_mode = b_mode.value;
      CHECK_NAMED(fc_modularity(ctx, graph, &options, &modules), b_mode);
      CHECK(modules == NULL);
      CHECK(mentions("signed_mode"));
      fc_graph_destroy(graph);
    }
#endif
  }

  /* the context still works, with its settings unchanged by the rejected calls */
  {
    fc_precision p = FC_PRECISION_TF32;
    CHECK_OK(fc_context_get_precision(ctx, &p));
    CHECK(p == FC_PRECISION_FP32);
    CHECK_OK(fc_pcc_triu(ctx, s, FC_TRIU_COL, out, fc_triu_size(N)));
  }

  fc_series_destroy(s);
  fc_context_destroy(ctx);
  free(x);
  free(out);
  free(out64);
  return check_report();
}
