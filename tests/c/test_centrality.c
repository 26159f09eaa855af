/* Centrality and rank correlation through the C header (issue 34): every bad value of fc_pcc_ecm,
 * fc_graph_eigenvector_centrality, fc_series_create_ranked_f32/_f64 and fc_fisher_z_f32/_f64
 * refused with its status and a message naming it, outputs untouched; plus the good paths on
 * small inputs (ECM of identical series, ranks of a tied series, Fisher z of the edge values). */
#include "check.h"

static void test_ecm(void) {
  double x[3 * 6];
  double c[4] = {-7, -7, -7, -7}, lambda = -7;
  fc_context *ctx, *other;
  fc_series* s;
  int64_t i;
  check_fmri_like(x, 3, 6, 5);
  check_make_cpu(x, 3, 6, &ctx, &s);
  REQUIRE_OK(fc_context_create(FC_BACKEND_CPU, -1, &other));

  CHECK_STATUS(fc_pcc_ecm(NULL, s, 0, c, 3, &lambda), FC_ERR_NULL_ARG);
  CHECK_ERROR_MENTIONS("ctx");
  CHECK_STATUS(fc_pcc_ecm(ctx, NULL, 0, c, 3, &lambda), FC_ERR_NULL_ARG);
  CHECK_ERROR_MENTIONS("series");
  CHECK_STATUS(fc_pcc_ecm(ctx, s, 0, NULL, 3, &lambda), FC_ERR_NULL_ARG);
  CHECK_ERROR_MENTIONS("centrality");
  CHECK_STATUS(fc_pcc_ecm(ctx, s, 0, c, 2, &lambda), FC_ERR_BUFFER_TOO_SMALL);
  CHECK_ERROR_MENTIONS("capacity 2");
  CHECK_STATUS(fc_pcc_ecm(ctx, s, 0, c, -1, &lambda), FC_ERR_BUFFER_TOO_SMALL);
  CHECK_STATUS(fc_pcc_ecm(ctx, s, -1e-8, c, 3, &lambda), FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("tolerance");
  CHECK_STATUS(fc_pcc_ecm(ctx, s, 1e-14, c, 3, &lambda), FC_ERR_INVALID_ARG);
  CHECK_STATUS(fc_pcc_ecm(ctx, s, 0.5, c, 3, &lambda), FC_ERR_INVALID_ARG);
  CHECK_STATUS(fc_pcc_ecm(ctx, s, NAN, c, 3, &lambda), FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("nan");
  CHECK_STATUS(fc_pcc_ecm(other, s, 0, c, 3, &lambda), FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("another context");
  for (i = 0; i < 4; ++i) CHECK(c[i] == -7);
  CHECK(lambda == -7);

  CHECK_OK(fc_pcc_ecm(ctx, s, 0, c, 4, NULL));  /* a larger capacity and no eigenvalue: fine */
  CHECK(c[3] == -7);
  CHECK_OK(fc_pcc_ecm(ctx, s, 1e-6, c, 3, &lambda));
  CHECK(lambda >= 0.5 && lambda <= 3);
  for (i = 0; i < 3; ++i) CHECK(c[i] >= 0 && c[i] <= 1);
  fc_series_destroy(s);
  fc_context_destroy(other);

  { /* Three identical series: R = 1, (R + 1) / 2 = 1, so lambda = 3 and every entry 1/sqrt(3)
       (to float rounding: the default FP32 mode stores the rows as float). */
    double same[3 * 4] = {1, 2, 4, 3, 1, 2, 4, 3, 1, 2, 4, 3};
    REQUIRE_OK(fc_series_create_f64(ctx, same, 3, 4, 4, 1, &s));
    CHECK_OK(fc_pcc_ecm(ctx, s, 0, c, 3, &lambda));
    CHECK(fabs(lambda - 3) < 1e-6);
    for (i = 0; i < 3; ++i) CHECK(fabs(c[i] - 1 / sqrt(3.0)) < 1e-9);
    fc_series_destroy(s);
  }
  fc_context_destroy(ctx);
}

static void test_graph(void) {
  /* The path 0 - 1 - 2: centralities (1/sqrt 2, 1, 1/sqrt 2), lambda sqrt 2. */
  const int64_t offsets[4] = {0, 1, 3, 4}, columns[4] = {1, 0, 2, 1};
  const float weights[4] = {1, 1, 1, 1};
  double c[3] = {-7, -7, -7}, lambda = -7;
  fc_context* ctx;
  fc_graph* g;
  int64_t i;
  REQUIRE_OK(fc_context_create(FC_BACKEND_CPU, -1, &ctx));
  REQUIRE_OK(fc_graph_create_csr(3, offsets, columns, weights, &g));
  CHECK_STATUS(fc_graph_eigenvector_centrality(NULL, g, 1, 0, c, 3, &lambda), FC_ERR_NULL_ARG);
  CHECK_ERROR_MENTIONS("ctx");
  CHECK_STATUS(fc_graph_eigenvector_centrality(ctx, NULL, 1, 0, c, 3, &lambda), FC_ERR_NULL_ARG);
  CHECK_ERROR_MENTIONS("graph");
  CHECK_STATUS(fc_graph_eigenvector_centrality(ctx, g, 1, 0, NULL, 3, &lambda), FC_ERR_NULL_ARG);
  CHECK_ERROR_MENTIONS("centrality");
  CHECK_STATUS(fc_graph_eigenvector_centrality(ctx, g, 1, 0, c, 2, &lambda), FC_ERR_BUFFER_TOO_SMALL);
  CHECK_STATUS(fc_graph_eigenvector_centrality(ctx, g, 2, 0, c, 3, &lambda), FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("weighted is 2");
  CHECK_STATUS(fc_graph_eigenvector_centrality(ctx, g, -1, 0, c, 3, &lambda), FC_ERR_INVALID_ARG);
  CHECK_STATUS(fc_graph_eigenvector_centrality(ctx, g, 1, 2.0, c, 3, &lambda), FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("tolerance");
  for (i = 0; i < 3; ++i) CHECK(c[i] == -7);
  CHECK(lambda == -7);
  CHECK_OK(fc_graph_eigenvector_centrality(ctx, g, 1, 0, c, 3, &lambda));
  CHECK(fabs(lambda - sqrt(2.0)) < 1e-12);
  CHECK(fabs(c[0] - 1 / sqrt(2.0)) < 1e-9 && fabs(c[1] - 1) < 1e-12 && fabs(c[2] - 1 / sqrt(2.0)) < 1e-9);
  fc_graph_destroy(g);
  fc_context_destroy(ctx);
}

static void test_ranked(void) {
  /* Series 0 has ties (3, 1, 3, 2 -> ranks 3.5, 1, 3.5, 2); series 1 is monotone in series 0's
     ranks, so rho = 1 though r < 1. */
  const double x[2 * 4] = {3, 1, 3, 2, 100, 1, 100, 10};
  const float xf[2 * 4] = {3, 1, 3, 2, 100, 1, 100, 10};
  const double bad[2] = {1, NAN};
  double r[4];
  fc_context* ctx;
  fc_series* s = NULL;
  REQUIRE_OK(fc_context_create(FC_BACKEND_CPU, -1, &ctx));
  CHECK_STATUS(fc_series_create_ranked_f64(NULL, x, 2, 4, 4, 1, &s), FC_ERR_NULL_ARG);
  CHECK_ERROR_MENTIONS("ctx");
  CHECK_STATUS(fc_series_create_ranked_f64(ctx, NULL, 2, 4, 4, 1, &s), FC_ERR_NULL_ARG);
  CHECK_ERROR_MENTIONS("data");
  CHECK_STATUS(fc_series_create_ranked_f64(ctx, x, 2, 4, 4, 1, NULL), FC_ERR_NULL_ARG);
  CHECK_ERROR_MENTIONS("out");
  CHECK_STATUS(fc_series_create_ranked_f32(ctx, xf, 0, 4, 4, 1, &s), FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("n_series is 0");
  CHECK_STATUS(fc_series_create_ranked_f32(ctx, xf, 2, 1, 4, 1, &s), FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("n_time is 1");
  CHECK_STATUS(fc_series_create_ranked_f32(ctx, xf, 2, 4, 2, 1, &s), FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("overlap");
  CHECK_STATUS(fc_series_create_ranked_f64(ctx, bad, 1, 2, 2, 1, &s), FC_ERR_NONFINITE_INPUT);
  CHECK_ERROR_MENTIONS("time point 1");
  CHECK(s == NULL);

  REQUIRE_OK(fc_series_create_ranked_f64(ctx, x, 2, 4, 4, 1, &s));
  CHECK_OK(fc_pcc_dense_f64(ctx, s, r, 2));
  CHECK(fabs(r[1] - 1) < 1e-15 && fabs(r[2] - 1) < 1e-15);
  fc_series_destroy(s);
  REQUIRE_OK(fc_series_create_ranked_f32(ctx, xf, 2, 4, 1, 2, &s)); /* read as (T, N): other pairs */
  CHECK_OK(fc_pcc_dense_f64(ctx, s, r, 2));
  fc_series_destroy(s);
  fc_context_destroy(ctx);
}

static void test_fisher_z(void) {
  float f[5] = {0.5f, -1.0f, 1.0f, NAN, 0.0f};
  double d[4] = {0.25, 1.0, 1.5, -0.25};
  CHECK_STATUS(fc_fisher_z_f32(NULL, 3), FC_ERR_NULL_ARG);
  CHECK_ERROR_MENTIONS("values");
  CHECK_STATUS(fc_fisher_z_f32(f, -1), FC_ERR_INVALID_ARG);
  CHECK_ERROR_MENTIONS("count is -1");
  CHECK_OK(fc_fisher_z_f32(NULL, 0));
  CHECK_STATUS(fc_fisher_z_f64(d, 4), FC_ERR_INVALID_ARG); /* 1.5 is not a correlation */
  CHECK_ERROR_MENTIONS("values[2] is 1.5");
  CHECK(d[0] == 0.25 && d[1] == 1.0 && d[3] == -0.25); /* nothing changed */
  CHECK_OK(fc_fisher_z_f64(d, 2));
  CHECK(fabs(d[0] - atanh(0.25)) < 1e-16 && isinf(d[1]) && d[1] > 0);
  CHECK_OK(fc_fisher_z_f32(f, 5));
  CHECK(fabs(f[0] - (float)atanh(0.5)) < 1e-7f);
  CHECK(isinf(f[1]) && f[1] < 0 && isinf(f[2]) && f[2] > 0 && isnan(f[3]) && f[4] == 0.0f);
}

int main(void) {
  test_ecm();
  test_graph();
  test_ranked();
  test_fisher_z();
  return check_report();
}
