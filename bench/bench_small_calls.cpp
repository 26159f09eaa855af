// Small calls as R and Python users make them in loops (issue 29, item 10): the bundled 31 x 250
// time series (examples/data/fmri_timeseries.csv), each call as a binding makes it (upload the
// float64 (T, N) array, compute, free), on one context kept across calls:
//   triu     fc_pcc_triu, row order (np.corrcoef's upper triangle, R's as.dist(cor(x)))
//   dense    fc_pcc_dense (the 31 x 31 matrix)
//   dfc_triu fc_dfc_triu, windows of 30 samples every 5: 45 windows
//   graph    fc_pcc_graph, |r| >= 0.5, weighted
//   degree   fc_pcc_degree, |r| >= 0.5
// Between two calls the calling thread does --gap-us microseconds of its own work (a loop's
// other statements), untimed: idle OpenMP threads that spin after a call compete with it, and
// with the next call, for the cores.
//
//   bench_small_calls [--csv FILE] [--threads P] [--reps R] [--gap-us U]
// --threads 0 (the default) is OpenMP's default team, as a user who never sets it gets.
// Prints one line per case: "case <name> median_ms <m> p90_ms <p> mean_ms <a>", and first the
// library file that was loaded (bench/small_calls.py runs this binary against two builds), the
// OpenBLAS core and OpenMP's default thread count.
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "fastconn/fastconn.h"

extern "C" char* openblas_get_corename(void) __attribute__((weak));
extern "C" int omp_get_max_threads(void);

namespace {

void check(fc_status st, const char* what) {
  if (st != FC_OK) {
    std::fprintf(stderr, "bench_small_calls: %s failed: %s: %s\n", what, fc_status_string(st), fc_last_error());
    std::exit(1);
  }
}

// The CSV's rows are time points, its columns the regions (a header line of names first).
std::vector<double> read_csv(const std::string& path, int64_t& t, int64_t& n) {
  std::ifstream in(path);
  if (!in) {
    std::fprintf(stderr, "bench_small_calls: cannot read %s\n", path.c_str());
    std::exit(2);
  }
  std::string line;
  std::getline(in, line);  // names
  std::vector<double> values;
  t = 0;
  n = 0;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    std::stringstream row(line);
    std::string cell;
    int64_t cols = 0;
    while (std::getline(row, cell, ',')) {
      values.push_back(std::stod(cell));
      ++cols;
    }
    n = cols;
    ++t;
  }
  return values;
}

double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// The caller's own work between calls: `us` microseconds of arithmetic on this thread.
volatile double sink = 0.0;
void caller_work(double us) {
  const double end = now_ms() + us / 1000.0;
  double x = 1.0;
  while (now_ms() < end)
    for (int k = 0; k < 256; ++k) x = x * 1.0000001 + 1e-9;
  sink = x;
}

}  // namespace

int main(int argc, char** argv) {
  std::string csv = "examples/data/fmri_timeseries.csv";
  int threads = 0, reps = 200;
  double gap_us = 500.0;
  for (int a = 1; a + 1 < argc; a += 2) {
    const std::string k = argv[a];
    if (k == "--csv") csv = argv[a + 1];
    else if (k == "--threads") threads = std::atoi(argv[a + 1]);
    else if (k == "--reps") reps = std::max(1, std::atoi(argv[a + 1]));
    else if (k == "--gap-us") gap_us = std::atof(argv[a + 1]);
    else {
      std::fprintf(stderr, "bench_small_calls: unknown argument %s\n", k.c_str());
      return 2;
    }
  }
  int64_t t = 0, n = 0;
  const std::vector<double> x = read_csv(csv, t, n);

  Dl_info info{};
  dladdr(reinterpret_cast<void*>(&fc_pcc_triu), &info);
  std::printf("library %s\n", info.dli_fname != nullptr ? info.dli_fname : "?");
  std::printf("openblas_core %s\n", openblas_get_corename != nullptr ? openblas_get_corename() : "?");
  std::printf("omp_max_threads %d\n", omp_get_max_threads());
  std::printf("data %lld x %lld\n", static_cast<long long>(n), static_cast<long long>(t));

  fc_context* ctx = nullptr;
  check(fc_context_create(FC_BACKEND_CPU, 0, &ctx), "fc_context_create");
  if (threads > 0) check(fc_context_set_threads(ctx, threads), "fc_context_set_threads");

  const int64_t length = 30, step = 5, windows = fc_window_count(t, length, step), pairs = fc_triu_size(n);
  std::vector<float> triu(static_cast<size_t>(pairs)), dense(static_cast<size_t>(n * n));
  std::vector<float> dfc(static_cast<size_t>(windows * pairs));
  std::vector<int64_t> degree(static_cast<size_t>(n));
  std::vector<double> strength(static_cast<size_t>(n));
  std::vector<int64_t> offsets, columns;
  std::vector<float> weights;

  // One call as a binding makes it: numpy's (T, N) C-order float64 array, uploaded each time.
  auto with_series = [&](const std::function<void(fc_series*)>& body) {
    fc_series* s = nullptr;
    check(fc_series_create_f64(ctx, x.data(), n, t, 1, n, &s), "fc_series_create_f64");
    body(s);
    fc_series_destroy(s);
  };
  struct Case {
    const char* name;
    std::function<void(fc_series*)> body;
  };
  const std::vector<Case> cases = {
      {"triu", [&](fc_series* s) { check(fc_pcc_triu(ctx, s, FC_TRIU_ROW, triu.data(), pairs), "fc_pcc_triu"); }},
      {"dense", [&](fc_series* s) { check(fc_pcc_dense(ctx, s, dense.data(), n), "fc_pcc_dense"); }},
      {"dfc_triu",
       [&](fc_series* s) {
         check(fc_dfc_triu(ctx, s, length, step, 0, 0.0, FC_TRIU_ROW, dfc.data(), windows * pairs), "fc_dfc_triu");
       }},
      {"graph",
       [&](fc_series* s) {  // with the copy-out a binding makes (scipy's CSR arrays)
         fc_graph* g = nullptr;
         check(fc_pcc_graph(ctx, s, FC_EDGE_ABS_THRESHOLD, 0.5, FC_GRAPH_WEIGHTED, &g), "fc_pcc_graph");
         int64_t nodes = 0, edges = 0;
         check(fc_graph_info(g, &nodes, &edges), "fc_graph_info");
         offsets.resize(static_cast<size_t>(nodes + 1));
         columns.resize(static_cast<size_t>(2 * edges));
         weights.resize(static_cast<size_t>(2 * edges));
         check(fc_graph_csr(g, offsets.data(), columns.data(), weights.data(), 2 * edges), "fc_graph_csr");
         fc_graph_destroy(g);
       }},
      {"degree",
       [&](fc_series* s) {
         check(fc_pcc_degree(ctx, s, FC_EDGE_ABS_THRESHOLD, 0.5, degree.data(), strength.data()), "fc_pcc_degree");
       }},
  };
  std::printf("windows %lld\n", static_cast<long long>(windows));
  for (const Case& c : cases) {
    for (int w = 0; w < 3; ++w) with_series(c.body);  // warm-up: first-touch, thread pool
    std::vector<double> ms;
    ms.reserve(static_cast<size_t>(reps));
    for (int r = 0; r < reps; ++r) {
      caller_work(gap_us);
      const double t0 = now_ms();
      with_series(c.body);
      ms.push_back(now_ms() - t0);
    }
    double mean = 0.0;
    for (double v : ms) mean += v;
    mean /= static_cast<double>(ms.size());
    std::sort(ms.begin(), ms.end());
    const double median = ms[ms.size() / 2], p90 = ms[std::min(ms.size() - 1, ms.size() * 9 / 10)];
    std::printf("case %s median_ms %.4f p90_ms %.4f mean_ms %.4f\n", c.name, median, p90, mean);
    std::fflush(stdout);
  }
  // The outputs' bits (FNV-1a of every output buffer): the same in every build and thread count.
  uint64_t h = 1469598103934665603ULL;
  auto hash = [&](const void* p, size_t bytes) {
    for (size_t k = 0; k < bytes; ++k) h = (h ^ static_cast<const unsigned char*>(p)[k]) * 1099511628211ULL;
  };
  hash(triu.data(), triu.size() * sizeof(float));
  hash(dense.data(), dense.size() * sizeof(float));
  hash(dfc.data(), dfc.size() * sizeof(float));
  hash(offsets.data(), offsets.size() * sizeof(int64_t));
  hash(columns.data(), columns.size() * sizeof(int64_t));
  hash(weights.data(), weights.size() * sizeof(float));
  hash(degree.data(), degree.size() * sizeof(int64_t));
  hash(strength.data(), strength.size() * sizeof(double));
  std::printf("checksum %016llx\n", static_cast<unsigned long long>(h));
  {
    std::fflush(stdout);
  }
  fc_context_destroy(ctx);
  return 0;
}
