// The degree decided on tensor cores (kernels/tc_degree.cu, issue 32; the default)
// against the FP32 fused kernel (FASTCONN_TC_DEGREE=0), in the same run on the same series: fc_pcc_degree
// (degrees only, no strength) of the seeded structured data of bench_data.hpp at |r| >= t.
// Rounds alternate the two kernels (round 0 a warm-up of both); medians of the rest. Reports the
// pairs the tensor-core kernel recomputed in FP32 (its FASTCONN_TC_STATS line, read from stderr)
// and whether its degrees are identical to the FP32 kernel's.
//
//   bench_tc_degree N T [--threshold 0.3] [--reps 3] [--markdown FILE] [--window W --step S]
// With --window: fc_dfc_degree (degrees only) of every window of W time points, S apart (the
// time-resolved degree), instead of fc_pcc_degree.
// Prints one line: "tc_degree n N t T threshold X exact_s S tc_s S tc_recomputed R tc_differ D
// pairs P identical 0|1"; exit 2 unless identical.
#include <cuda_runtime_api.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "bench_data.hpp"
#include "bench_util.hpp"

namespace {

using namespace fcbench;

// What f writes to stderr (file descriptor 2), which is then restored.
template <class F>
std::string stderr_of(F&& f) {
  std::fflush(stderr);
  FILE* tmp = std::tmpfile();
  if (tmp == nullptr) die("tmpfile failed");
  const int saved = dup(2);
  dup2(fileno(tmp), 2);
  f();
  std::fflush(stderr);
  dup2(saved, 2);
  close(saved);
  std::rewind(tmp);
  std::string out;
  char buf[512];
  while (std::fgets(buf, sizeof buf, tmp) != nullptr) out += buf;
  std::fclose(tmp);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) die("usage: bench_tc_degree N T [--threshold X] [--reps R] [--markdown FILE] [--window W --step S]");
  const int64_t n = std::atoll(argv[1]), t = std::atoll(argv[2]);
  double threshold = 0.3;
  int reps = 3;
  std::string markdown;
  int64_t window = 0, step = 1;
  for (int i = 3; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--threshold") threshold = std::atof(argv[i + 1]);
    else if (a == "--reps") reps = std::atoi(argv[i + 1]);
    else if (a == "--markdown") markdown = argv[i + 1];
    else if (a == "--window") window = std::atoll(argv[i + 1]);
    else if (a == "--step") step = std::atoll(argv[i + 1]);
    else die("unknown argument " + a);
  }
  const std::vector<float> x = structured_data(n, t, 20261127);
  fc_context* ctx = nullptr;
  fc_ok(fc_context_create(FC_BACKEND_CUDA, 0, &ctx), "fc_context_create");
  fc_series* s = nullptr;
  fc_ok(fc_series_create_f32(ctx, x.data(), n, t, t, 1, &s), "fc_series_create_f32");
  // The FP32 kernel and the tensor-core kernel.
  const char* kModes[] = {"exact", "tc"};
  constexpr int kM = 2;
  const int64_t windows = window > 0 ? fc_window_count(t, window, step) : 1;
  if (windows <= 0) die("no window of " + std::to_string(window) + " fits " + std::to_string(t) + " time points");
  std::vector<std::vector<int64_t>> out(kM, std::vector<int64_t>(static_cast<size_t>(windows * n)));
  auto run = [&](int m) {
    if (m == 1) setenv("FASTCONN_TC_DEGREE", "1", 1);
    else setenv("FASTCONN_TC_DEGREE", "0", 1);
    const double t0 = now();
    if (window > 0)
      fc_ok(fc_dfc_degree(ctx, s, window, step, FC_TAPER_RECTANGULAR, 0, FC_EDGE_ABS_THRESHOLD, threshold, out[m].data(),
                          nullptr),
            "fc_dfc_degree");
    else
      fc_ok(fc_pcc_degree(ctx, s, FC_EDGE_ABS_THRESHOLD, threshold, out[m].data(), nullptr), "fc_pcc_degree");
    return now() - t0;
  };
  std::vector<double> secs[kM];
  for (int round = 0; round <= reps; ++round)  // round 0: warm-up; each round starts with another kernel
    for (int i = 0; i < kM; ++i) {
      const int m = (round + i) % kM;
      const double t = run(m);
      if (round > 0) secs[m].push_back(t);
    }
  long long recomputed[kM] = {0, -1};
  setenv("FASTCONN_TC_STATS", "1", 1);
  for (int m = 1; m < kM; ++m) {
    // One stats line a call (a window's degree is one call): their sum.
    const std::string stats = stderr_of([&] { run(m); });
    for (size_t at = stats.find("recomputed "); at != std::string::npos; at = stats.find("recomputed ", at + 1))
      recomputed[m] = std::max(recomputed[m], 0ll) + std::atoll(stats.c_str() + at + 11);
  }
  unsetenv("FASTCONN_TC_STATS");
  unsetenv("FASTCONN_TC_DEGREE");
  const long long pairs = static_cast<long long>(windows) * n * (n - 1) / 2;
  const size_t values = out[0].size();
  int64_t edges2 = 0;
  for (size_t i = 0; i < values; ++i) edges2 += out[0][i];
  cudaDeviceProp prop{};
  cuda_ok(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  bool all_identical = true;
  std::printf("tc_degree n %lld t %lld windows %lld threshold %g exact_s %.6f", static_cast<long long>(n),
              static_cast<long long>(t), static_cast<long long>(windows), threshold, median(secs[0]));
  const std::string shape = std::to_string(n) + " x " + std::to_string(t) +
                            (window > 0 ? " (" + std::to_string(windows) + " windows of " + std::to_string(window) + ")" : "");
  for (int m = 1; m < kM; ++m) {
    int64_t differ = 0;
    for (size_t i = 0; i < values; ++i) differ += out[m][i] != out[0][i] ? 1 : 0;
    all_identical = all_identical && differ == 0 && recomputed[m] >= 0;
    std::printf(" %s_s %.6f %s_recomputed %lld %s_differ %lld", kModes[m], median(secs[m]), kModes[m], recomputed[m],
                kModes[m], static_cast<long long>(differ));
    if (!markdown.empty()) {
      std::ofstream md(markdown, std::ios::app);
      char line[512];
      std::snprintf(line, sizeof line,
                    "| %s | %.2f | %s | %.4f | %.4f | %.2fx | %.4f %% | %.2f %% | %s (%lld degrees differ) | %s |\n",
                    shape.c_str(), threshold, kModes[m], median(secs[0]),
                    median(secs[m]), median(secs[0]) / median(secs[m]), 100.0 * double(recomputed[m]) / double(pairs),
                    100.0 * double(edges2 / 2) / double(pairs), differ == 0 ? "yes" : "NO",
                    static_cast<long long>(differ), prop.name);
      md << line;
    }
  }
  std::printf(" pairs %lld identical %d\n", pairs, all_identical ? 1 : 0);
  fc_series_destroy(s);
  fc_context_destroy(ctx);
  return all_identical ? 0 : 2;
}
