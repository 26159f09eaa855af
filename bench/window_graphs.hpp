// What the multilayer benchmarks share (bench_modularity --method multilayer, bench_multilayer):
// each sliding window's graph of a series, built through the public API.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "fastconn/fastconn.h"

namespace bench {

// The graphs of x's windows (n series x t samples, row-major; `length` samples every `step`,
// rectangular) under fc_dfc_next_graph(rule, param, weights), on ctx; *edges gets their edges in
// all. The caller destroys the graphs. Any failure ends the process with the call's error.
inline std::vector<fc_graph*> window_graphs(fc_context* ctx, const float* x, int64_t n, int64_t t, int64_t length,
                                            int64_t step, fc_edge_rule rule, double param, int weights, int64_t* edges) {
  auto check = [](fc_status s, const char* what) {
    if (s != FC_OK) {
      std::fprintf(stderr, "%s: %s (%s)\n", what, fc_status_string(s), fc_last_error());
      std::exit(1);
    }
  };
  fc_series* series = nullptr;
  check(fc_series_create_f32(ctx, x, n, t, t, 1, &series), "fc_series_create_f32");
  fc_dfc* it = nullptr;
  check(fc_dfc_begin(ctx, series, length, step, FC_TAPER_RECTANGULAR, 0.0, &it), "fc_dfc_begin");
  std::vector<fc_graph*> layers;
  *edges = 0;
  for (;;) {
    fc_graph* g = nullptr;
    int64_t w = 0;
    const fc_status st = fc_dfc_next_graph(it, rule, param, weights, &g, &w);
    if (st == FC_DONE) break;
    check(st, "fc_dfc_next_graph");
    int64_t e = 0;
    check(fc_graph_info(g, nullptr, &e), "fc_graph_info");
    *edges += e;
    layers.push_back(g);
  }
  fc_dfc_destroy(it);
  fc_series_destroy(series);
  return layers;
}

}  // namespace bench
