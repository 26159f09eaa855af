// CPU benchmark of fast ECM (fc_pcc_ecm, issue 34) beside its floor, measured in the same run:
// each product reads Z twice (Z^T x, then Z u), so the floor of one product is the time to stream
// the stored rows (N x T float in FP32, double in FP64) twice at the measured read bandwidth, and
// the floor of a solve is that times the products it took (counted by the progress callback).
// Prints key=value lines that bench/ecm_baseline.py reads (it adds the numpy peers and writes
// bench/RESULTS-ecm.md):
//   bench_cpu_ecm --n 20000 --t 165 --reps 5 --threads 2 [--data-out FILE]
#include <omp.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "bench_common.hpp"
#include "fastconn/fastconn.h"

namespace {

void ok(fc_status s, const char* what) {
  if (s != FC_OK) {
    std::fprintf(stderr, "%s: %s (%s)\n", what, fc_status_string(s), fc_last_error());
    std::exit(1);
  }
}

int count_products(int64_t, int64_t, void* user) {
  ++*static_cast<int64_t*>(user);
  return 0;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Seconds to read `bytes` of memory once with `threads` threads (sum of doubles, median of reps).
double read_seconds(const std::vector<double>& buffer, int threads, int reps) {
  std::vector<double> times;
  double sink = 0;
  for (int r = 0; r < reps + 1; ++r) {
    double total = 0;
    const double s = bench::seconds_of([&] {
      const int64_t groups = static_cast<int64_t>(buffer.size()) / 8;
      // Eight independent sums: vectorized, so the loop is bound by memory, not by add latency.
#pragma omp parallel for reduction(+ : total) num_threads(threads) schedule(static)
      for (int64_t g = 0; g < groups; ++g) {
        const double* p = buffer.data() + 8 * g;
        total += ((p[0] + p[1]) + (p[2] + p[3])) + ((p[4] + p[5]) + (p[6] + p[7]));
      }
    });
    sink += total;
    if (r > 0) times.push_back(s);  // the first pass faults the pages in
  }
  if (sink == 42.0) std::puts("");
  return median(times);
}

}  // namespace

int main(int argc, char** argv) {
  int64_t n = 20000, t = 165;
  int reps = 5, threads = 2;
  std::string data_out;
  fc_backend backend = FC_BACKEND_CPU;  // --backend cuda: the same run on the GPU (its floor is the device's, not printed)
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--n") n = std::atoll(argv[i + 1]);
    else if (a == "--t") t = std::atoll(argv[i + 1]);
    else if (a == "--reps") reps = std::atoi(argv[i + 1]);
    else if (a == "--threads") threads = std::atoi(argv[i + 1]);
    else if (a == "--data-out") data_out = argv[i + 1];
    else if (a == "--backend") backend = std::string(argv[i + 1]) == "cuda" ? FC_BACKEND_CUDA : FC_BACKEND_CPU;
    else { std::fprintf(stderr, "bench_cpu_ecm: unknown argument %s\n", a.c_str()); return 2; }
  }
  const std::vector<float> data = bench::synthetic_series(n, t, 2024);
  if (!data_out.empty()) {
    FILE* f = std::fopen(data_out.c_str(), "wb");
    if (f == nullptr || std::fwrite(data.data(), 4, data.size(), f) != data.size()) return 1;
    std::fclose(f);
  }
  // Read bandwidth over a buffer of Z's float64 size (past the caches at these sizes).
  std::vector<double> buffer(static_cast<size_t>(n * t), 1.0);
  const double read_bytes_per_s = static_cast<double>(buffer.size()) * 8 / read_seconds(buffer, threads, reps);
  std::printf("n=%lld\nt=%lld\nthreads=%d\nread_gbps=%.3f\n", (long long)n, (long long)t, threads, read_bytes_per_s / 1e9);

  for (const fc_precision precision : {FC_PRECISION_FP32, FC_PRECISION_FP64}) {
    const char* name = precision == FC_PRECISION_FP32 ? "fp32" : "fp64";
    fc_context* ctx = nullptr;
    ok(fc_context_create(backend, -1, &ctx), "fc_context_create");
    ok(fc_context_set_precision(ctx, precision), "fc_context_set_precision");
    ok(fc_context_set_threads(ctx, threads), "fc_context_set_threads");
    fc_series* s = nullptr;
    const double upload = bench::seconds_of(
        [&] { ok(fc_series_create_f32(ctx, data.data(), n, t, t, 1, &s), "fc_series_create_f32"); });
    std::vector<double> c(static_cast<size_t>(n)), first;
    std::vector<double> times;
    int64_t products = 0;
    double lambda = 0;
    for (int r = 0; r < reps + 1; ++r) {
      products = 0;
      ok(fc_context_set_progress(ctx, count_products, &products), "fc_context_set_progress");
      const double sec = bench::seconds_of([&] { ok(fc_pcc_ecm(ctx, s, 0, c.data(), n, &lambda), "fc_pcc_ecm"); });
      if (r == 0) first = c;  // warm-up run; later runs must repeat its bits
      else times.push_back(sec);
      if (std::memcmp(first.data(), c.data(), c.size() * 8) != 0) { std::fprintf(stderr, "runs differ\n"); return 1; }
    }
    const double z_bytes = static_cast<double>(n * t) * (precision == FC_PRECISION_FP32 ? 4 : 8);
    const double floor = products * 2 * z_bytes / read_bytes_per_s;
    std::printf("%s_upload_s=%.6f\n%s_ecm_s=%.6f\n%s_products=%lld\n%s_floor_s=%.6f\n%s_lambda=%.12g\n", name, upload, name,
                median(times), name, (long long)products, name, floor, name, lambda);
    if (precision == FC_PRECISION_FP32 && !data_out.empty()) {
      FILE* f = std::fopen((data_out + ".ecm").c_str(), "wb");
      if (f == nullptr || std::fwrite(c.data(), 8, c.size(), f) != c.size()) return 1;
      std::fclose(f);
    }
    fc_series_destroy(s);
    fc_context_destroy(ctx);
  }
  return 0;
}
