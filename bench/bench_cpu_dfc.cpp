// CPU benchmark of dynamic connectivity (issue 10): the GPU-DFC paper's Table II case at N =
// 10,000 voxels (T = 257, windows of w = 150 every s = 1 sample: 108 windows), every window's
// network at r >= 0.7 as a CSR graph, next to the SGEMM rate of the same BLAS measured in the same
// run (bench_common.hpp: the library's own 256 x 512 single-threaded tiles per OpenMP thread, and
// one multithreaded call). Rates count the windows' useful triangle work, W N(N-1) w flops; the
// bar is >= 60 % of the fastest SGEMM. Also time-resolved degree at the same threshold and every
// window's rank-50 factor. Medians of a round robin (one run of each measurement per round).
//
//   bench_cpu_dfc [--n N] [--windows W] [--reps R] [--threads P] [--markdown FILE]
// --windows W times the first W windows only (the rate does not depend on W; the default is all).
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "bench_common.hpp"
#include "fastconn/fastconn.h"

extern "C" char* openblas_get_config(void) __attribute__((weak));

namespace {

using namespace bench;

void check(fc_status st, const char* what) {
  if (st != FC_OK) {
    std::fprintf(stderr, "bench_cpu_dfc: %s failed: %s: %s\n", what, fc_status_string(st), fc_last_error());
    std::exit(1);
  }
}

}  // namespace

int main(int argc, char** argv) {
  int64_t n = 10000, t = 257, w = 150, step = 1, max_windows = 0;
  int reps = 3, threads = 0;
  std::string markdown;
  for (int a = 1; a + 1 < argc; a += 2) {
    const std::string k = argv[a];
    if (k == "--n") n = std::atoll(argv[a + 1]);
    else if (k == "--windows") max_windows = std::atoll(argv[a + 1]);
    else if (k == "--reps") reps = std::atoi(argv[a + 1]);
    else if (k == "--threads") threads = std::atoi(argv[a + 1]);
    else if (k == "--markdown") markdown = argv[a + 1];
    else {
      std::fprintf(stderr, "usage: bench_cpu_dfc [--n N] [--windows W] [--reps R] [--threads P] [--markdown FILE]\n");
      return 2;
    }
  }
  if (threads <= 0) threads = omp_get_max_threads();
  omp_set_num_threads(threads);
  const std::vector<float> data = synthetic_series(n, t, 20261124);
  int64_t windows = fc_window_count(t, w, step);
  // Fewer windows: the same window length over a shorter scan.
  const int64_t t_used = max_windows > 0 && max_windows < windows ? w + (max_windows - 1) * step : t;
  windows = fc_window_count(t_used, w, step);
  const double flops = double(windows) * double(n) * double(n - 1) * double(w);

  fc_context* ctx = nullptr;
  check(fc_context_create(FC_BACKEND_CPU, -1, &ctx), "fc_context_create");
  check(fc_context_set_threads(ctx, threads), "fc_context_set_threads");
  fc_series* s = nullptr;
  check(fc_series_create_f32(ctx, data.data(), n, t_used, t, 1, &s), "fc_series_create_f32");

  // The floors: one window's panel of products as the library tiles them, and as one BLAS call.
  std::vector<float> zw(static_cast<size_t>(n * w));
  for (int64_t i = 0; i < n; ++i)
    for (int64_t k = 0; k < w; ++k) zw[static_cast<size_t>(i * w + k)] = data[static_cast<size_t>(i * t + k)] * 1e-3f;
  const int64_t panel = std::min<int64_t>(n, 2000);
  std::vector<float> panel_f(static_cast<size_t>(n * panel));
  const double panel_flops = 2.0 * n * panel * w;
  std::vector<int64_t> degree(static_cast<size_t>(windows * n));
  std::vector<float> factors(static_cast<size_t>(windows * n * 50));
  std::vector<double> rel_error(static_cast<size_t>(windows));
  double edges = 0;
  auto nothing = [] {};
  std::vector<Measurement> m;
  m.push_back({"sgemm_panel", "SGEMM " + std::to_string(n) + "x" + std::to_string(panel) + "x" + std::to_string(w) + " (one call, BLAS threads)",
               panel_flops, 0, [&] { gemm_nt(n, panel, w, zw.data(), zw.data(), panel_f.data(), panel); }, nothing, {}});
  m.push_back({"sgemm_tiles", "SGEMM same panel as 256 x 512 tiles, one per thread", panel_flops, 0,
               [&] { gemm_in_thread_tiles(zw.data(), n, w, panel, panel_f.data()); }, nothing, {}});
  m.push_back({"graphs", "every window's graph, r >= 0.7 (fc_dfc_next_graph, weighted CSR)", flops, 0,
               [&] {
                 fc_dfc* dfc = nullptr;
                 check(fc_dfc_begin(ctx, s, w, step, FC_TAPER_RECTANGULAR, 0, &dfc), "fc_dfc_begin");
                 edges = 0;
                 for (;;) {
                   fc_graph* g = nullptr;
                   const fc_status st = fc_dfc_next_graph(dfc, FC_EDGE_THRESHOLD, 0.7, FC_GRAPH_WEIGHTED, &g, nullptr);
                   if (st == FC_DONE) break;
                   check(st, "fc_dfc_next_graph");
                   int64_t e = 0;
                   check(fc_graph_info(g, nullptr, &e), "fc_graph_info");
                   edges += double(e);
                   fc_graph_destroy(g);
                 }
                 fc_dfc_destroy(dfc);
               },
               nothing, {}});
  m.push_back({"degree", "time-resolved degree, r >= 0.7 (fc_dfc_degree)", flops, 0,
               [&] {
                 check(fc_dfc_degree(ctx, s, w, step, FC_TAPER_RECTANGULAR, 0, FC_EDGE_THRESHOLD, 0.7, degree.data(), nullptr),
                       "fc_dfc_degree");
               },
               nothing, {}});
  m.push_back({"lowrank", "every window's rank-50 factor (fc_dfc_lowrank; O(N w^2), not a triangle)", 0, 0,
               [&] {
                 check(fc_dfc_lowrank(ctx, s, w, step, FC_TAPER_RECTANGULAR, 0, 50, factors.data(),
                                      static_cast<int64_t>(factors.size()), rel_error.data()),
                       "fc_dfc_lowrank");
               },
               nothing, {}});
  for (Measurement& x : m) x.run();
  for (int r = 0; r < reps; ++r)
    for (Measurement& x : m) {
      x.times.push_back(seconds_of(x.run));
      x.after();
    }
  const double sbest = std::max(m[0].gflops(), m[1].gflops());
  double mean_err = 0;
  for (double e : rel_error) mean_err += e / double(windows);

  std::ostringstream md;
  char line[512];
  md << "## Dynamic connectivity: N = " << n << " series, T = " << t_used << ", w = " << w << ", s = " << step << " ("
     << windows << " windows, CPU)\n\n"
     << "Written by `bench_cpu_dfc --markdown` (one run; medians of " << reps << " rounds after a warm-up). Rates count "
     << "the windows' useful triangle work, W N(N-1) w flops, against the fastest SGEMM of the same BLAS measured in "
     << "the same run on one window's rows.\n\n";
  std::snprintf(line, sizeof line, "| | |\n|---|---|\n| threads | %d |\n| BLAS | %s |\n| edges a window at r >= 0.7 | %.0f (density %.3f %%) |\n\n",
                threads, openblas_get_config ? openblas_get_config() : "unknown CBLAS", edges / double(windows),
                100.0 * edges / double(windows) / (double(n) * double(n - 1) / 2.0));
  md << line << "| measured | median time [s] | GFLOP/s | of fastest SGEMM |\n|---|---:|---:|---:|\n";
  for (const Measurement& x : m) {
    if (x.flops > 0)
      std::snprintf(line, sizeof line, "| %s | %.4f | %.1f | %.0f %% |\n", x.label.c_str(), x.median(), x.gflops(), 100.0 * x.gflops() / sbest);
    else
      std::snprintf(line, sizeof line, "| %s | %.4f | | (mean relative Frobenius error %.4f) |\n", x.label.c_str(), x.median(), mean_err);
    md << line;
  }
  std::snprintf(line, sizeof line, "\n- Issue 10's CPU bar (the Table II case at >= 60 %% of the SGEMM rate): graphs %.0f %%, degree %.0f %%: %s.\n",
                100.0 * m[2].gflops() / sbest, 100.0 * m[3].gflops() / sbest, m[2].gflops() >= 0.6 * sbest ? "met" : "NOT met");
  md << line << "- Reproduce: `build/bench/bench_cpu_dfc --markdown FILE` (data: bench_common.hpp's seeded synthetic series).\n";
  std::printf("%s", md.str().c_str());
  if (!markdown.empty()) {
    std::ofstream f(markdown);
    f << md.str();
  }
  fc_series_destroy(s);
  fc_context_destroy(ctx);
  return 0;
}
