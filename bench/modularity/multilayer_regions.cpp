// Multilayer modularity over time (issue 31: 400 regions x 100 windows <= 50 ms on the GPU):
// fc_multilayer_modularity_v2 on the windows' networks of drifting region series, in one run:
//   - the queue (FC_LEIDEN_QUEUE, the first call's passes) on the CPU backend: what a user runs today;
//   - the synchronous passes (FC_LEIDEN_SYNCHRONOUS) on the CPU backend, and on the CUDA backend
//     when it is there, whose labels must equal the CPU's (printed: "labels equal" or "DIFFER");
//   - the floor beside them: copying the supra-graph's entries (the engine's level 0, 16 bytes an
//     entry) to the device once, and one pass over them on the host.
// The series (the construction of bench/modularity/multilayer_bench.py, with this file's own
// seeded generator): R regions in 10 modules, each region its module's smoothed signal plus 0.8 x
// AR(1) noise (phi 0.5), a tenth of the regions changing module every 200 samples; W windows of 40
// samples every 10; each window's network fc_dfc_next_graph(FC_EDGE_DENSITY, 0.1,
// FC_GRAPH_WEIGHTED_ABS) (or --top-k K: each region's K largest |r|, binary, for voxel-level N).
// Times are wall seconds of the call alone (graphs built before), the median of --reps calls.
//   bench_multilayer [--regions 400] [--windows 100] [--omega 1] [--top-k 0] [--threads P] [--reps 5]
//                    [--passes P (max_iterations; 0: until a pass moves no node)] [--backend cpu|cuda|both]
//                    [--skip-queue]
#if defined(FASTCONN_BENCH_CUDA)
#include <cuda_runtime_api.h>
#endif
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "../bench_common.hpp"
#include "../window_graphs.hpp"
#include "fastconn/fastconn.h"

extern "C" char* openblas_get_corename(void) __attribute__((weak));

namespace {

void check(fc_status s, const char* what) {
  if (s != FC_OK) {
    std::fprintf(stderr, "%s: %s (%s)\n", what, fc_status_string(s), fc_last_error());
    std::exit(1);
  }
}

// R x T row-major: the drifting modules of multilayer_bench.py.
std::vector<float> drifting_series(int64_t regions, int64_t t, uint64_t seed) {
  constexpr int kModules = 10;
  bench::Rng rng{seed};
  std::vector<double> signal(static_cast<size_t>(kModules * t));
  for (int m = 0; m < kModules; ++m) {
    std::vector<double> white(static_cast<size_t>(t + 30));
    for (double& w : white) w = rng.normal();
    double mean = 0, var = 0;
    for (int64_t k = 0; k < t; ++k) {
      double x = 0;
      for (int d = -15; d <= 15; ++d) x += std::exp(-0.5 * (d / 5.0) * (d / 5.0)) * white[static_cast<size_t>(k + 15 + d)];
      signal[static_cast<size_t>(m * t + k)] = x;
      mean += x / double(t);
    }
    for (int64_t k = 0; k < t; ++k) var += std::pow(signal[static_cast<size_t>(m * t + k)] - mean, 2) / double(t);
    for (int64_t k = 0; k < t; ++k) signal[static_cast<size_t>(m * t + k)] /= std::sqrt(var);
  }
  std::vector<int> member(static_cast<size_t>(regions));
  for (int& m : member) m = int(rng.next() % kModules);
  std::vector<float> x(static_cast<size_t>(regions * t));
  std::vector<double> noise(static_cast<size_t>(t));
  std::vector<std::vector<int>> members_at(static_cast<size_t>((t + 199) / 200));
  for (auto& at : members_at) {
    for (int64_t i = 0; i < regions / 10; ++i) member[static_cast<size_t>(rng.next() % uint64_t(regions))] = int(rng.next() % kModules);
    at = member;
  }
  for (int64_t r = 0; r < regions; ++r) {
    bench::ar1(rng, 0.5, noise.data(), t);
    for (int64_t k = 0; k < t; ++k) {
      const int m = members_at[static_cast<size_t>(k / 200)][static_cast<size_t>(r)];
      x[static_cast<size_t>(r * t + k)] = float(signal[static_cast<size_t>(m * t + k)] + 0.8 * noise[static_cast<size_t>(k)]);
    }
  }
  return x;
}

struct Run {
  double median = 0, q = 0, flexibility = 0;
  int64_t k = 0;
  std::vector<int64_t> labels;
};

Run time_calls(fc_context* ctx, const std::vector<fc_graph*>& layers, int64_t regions, const fc_multilayer_options_v2& o,
               int reps) {
  Run r;
  std::vector<double> times;
  for (int i = 0; i < reps; ++i) {
    fc_multilayer* m = nullptr;
    const auto a = std::chrono::steady_clock::now();
    check(fc_multilayer_modularity_v2(ctx, layers.data(), int64_t(layers.size()), nullptr, &o, &m),
          "fc_multilayer_modularity_v2");
    times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - a).count());
    check(fc_multilayer_info(m, nullptr, nullptr, &r.k, &r.q), "fc_multilayer_info");
    r.labels.resize(static_cast<size_t>(regions) * layers.size());
    check(fc_multilayer_labels(m, r.labels.data(), int64_t(r.labels.size())), "fc_multilayer_labels");
    std::vector<double> f(static_cast<size_t>(regions));
    check(fc_multilayer_flexibility(m, f.data(), regions), "fc_multilayer_flexibility");
    r.flexibility = 0;
    for (double v : f) r.flexibility += v / double(regions);
    fc_multilayer_destroy(m);
  }
  std::sort(times.begin(), times.end());
  r.median = times[times.size() / 2];
  return r;
}

void report(const char* what, const Run& r, double baseline) {
  std::printf("%-34s median %.4f s  Q %.6f  K %lld  mean flexibility %.4f  (%.1f x the queue on the CPU)\n", what, r.median,
              r.q, (long long)r.k, r.flexibility, baseline / r.median);
}

}  // namespace

int main(int argc, char** argv) {
  int64_t regions = 400, windows = 100, top_k = 0;
  double omega = 1.0;
  int threads = 0, reps = 5;
  int64_t passes = 0;
  std::string backend = "both";
  bool skip_queue = false;
  for (int a = 1; a < argc; ++a) {
    const std::string k = argv[a];
    if (k == "--skip-queue") {
      skip_queue = true;
      continue;
    }
    if (a + 1 >= argc) {
      std::fprintf(stderr, "bench_multilayer: %s needs a value\n", k.c_str());
      return 2;
    }
    const char* v = argv[++a];
    if (k == "--regions") regions = std::atoll(v);
    else if (k == "--windows") windows = std::atoll(v);
    else if (k == "--omega") omega = std::atof(v);
    else if (k == "--top-k") top_k = std::atoll(v);
    else if (k == "--threads") threads = std::atoi(v);
    else if (k == "--reps") reps = std::atoi(v);
    else if (k == "--passes") passes = std::atoll(v);
    else if (k == "--backend") backend = v;
    else {
      std::fprintf(stderr,
                   "usage: bench_multilayer [--regions R] [--windows W] [--omega W] [--top-k K] [--threads P] [--reps N] "
                   "[--passes P] [--backend cpu|cuda|both] [--skip-queue]\n");
      return 2;
    }
  }
  if (regions < 2 || windows < 1 || reps < 1 || (backend != "cpu" && backend != "cuda" && backend != "both")) {
    std::fprintf(stderr, "bench_multilayer: bad --regions, --windows, --reps or --backend\n");
    return 2;
  }
  if (threads <= 0) threads = omp_get_max_threads();
  const int64_t length = 40, step = 10, t = length + (windows - 1) * step;
  const std::vector<float> x = drifting_series(regions, t, 31);
  fc_context* cpu = nullptr;
  check(fc_context_create(FC_BACKEND_CPU, -1, &cpu), "fc_context_create");
  check(fc_context_set_threads(cpu, threads), "fc_context_set_threads");
  int64_t edges = 0;
  const std::vector<fc_graph*> layers =
      top_k > 0 ? bench::window_graphs(cpu, x.data(), regions, t, length, step, FC_EDGE_TOP_K, double(top_k), FC_GRAPH_BINARY, &edges)
                : bench::window_graphs(cpu, x.data(), regions, t, length, step, FC_EDGE_DENSITY, 0.1, FC_GRAPH_WEIGHTED_ABS, &edges);
  const int64_t coupling = 2 * regions * (windows - 1);
  const int64_t entries = 2 * edges + coupling;
  std::printf("%lld drifting regions x %lld samples; %lld windows of %lld every %lld, %s: %lld edges in all; supra-graph "
              "%lld nodes, %lld entries (coupling included); omega %g; CPU %d threads (OpenBLAS core %s)\n",
              (long long)regions, (long long)t, (long long)layers.size(), (long long)length, (long long)step,
              top_k > 0 ? ("top-" + std::to_string(top_k) + " binary").c_str() : "density 0.1, |r| weights",
              (long long)edges, (long long)(regions * windows), (long long)entries, omega, threads, openblas_get_corename != nullptr ? openblas_get_corename() : "?");

  fc_multilayer_options_v2 o;
  check(fc_multilayer_options_v2_default(&o), "fc_multilayer_options_v2_default");
  o.base.omega = omega;
  o.base.max_iterations = passes;
  Run queue;
  if (!skip_queue) {
    queue = time_calls(cpu, layers, regions, o, reps);
    report("queue, CPU:", queue, queue.median);
  }
  o.algorithm = FC_LEIDEN_SYNCHRONOUS;
  const double baseline = skip_queue ? 0.0 : queue.median;
  // The CPU's synchronous labels: the reference of the CUDA backend's (timed once when only CUDA is asked).
  const Run sync_cpu = time_calls(cpu, layers, regions, o, backend == "cuda" ? 1 : reps);
  report("synchronous, CPU:", sync_cpu, baseline);
  if (backend != "cpu") {
    fc_context* cuda = nullptr;
    const fc_status st = fc_context_create(FC_BACKEND_CUDA, -1, &cuda);
    if (st != FC_OK) {
      std::printf("CUDA backend unavailable: %s\n", fc_last_error());
      if (backend == "cuda") return 1;
    } else {
      const Run r = time_calls(cuda, layers, regions, o, reps);
      report("synchronous, CUDA:", r, baseline);
      std::printf("labels: CUDA's %s the CPU's\n", r.labels == sync_cpu.labels ? "equal those of" : "DIFFER from");
#if defined(FASTCONN_BENCH_CUDA)
      // The floor: the supra-graph's level 0 (int32 column + int64 weight a entry, int64 offsets)
      // copied to the device once from pinned memory.
      const size_t bytes = size_t(entries) * 12 + size_t(regions * windows + 1) * 8;
      void* host = nullptr;
      void* dev = nullptr;
      if (cudaMallocHost(&host, bytes) == cudaSuccess && cudaMalloc(&dev, bytes) == cudaSuccess) {
        std::fill(static_cast<char*>(host), static_cast<char*>(host) + bytes, char(1));
        std::vector<double> copies;
        for (int i = 0; i < 5; ++i) {
          const auto a = std::chrono::steady_clock::now();
          if (cudaMemcpy(dev, host, bytes, cudaMemcpyHostToDevice) != cudaSuccess) break;
          copies.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - a).count());
        }
        std::sort(copies.begin(), copies.end());
        if (!copies.empty())
          std::printf("floor: the supra-graph's %.1f MB to the device %.4f s (%.1f GB/s); the call is %.1f x it\n",
                      double(bytes) / 1e6, copies[copies.size() / 2], double(bytes) / copies[copies.size() / 2] / 1e9,
                      r.median / copies[copies.size() / 2]);
      }
      cudaFree(dev);
      cudaFreeHost(host);
#endif
      fc_context_destroy(cuda);
    }
  }
  for (fc_graph* g : layers) fc_graph_destroy(g);
  fc_context_destroy(cpu);
  return 0;
}
