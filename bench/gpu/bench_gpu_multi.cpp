// A context over several GPUs (issue 33) against one GPU, in the same run:
//   (a) the degree map of N x 200 series (|r| >= 0.3; default N = 1,000,000): seconds on device 0
//       alone and on every visible device, and their ratio (issue 33: >= 3.5x on 4 GPUs);
//   (b) the triangle of M x 200 series (default 150,000, smaller when the pinned buffer would take
//       more than half of the host's memory) into one pinned host buffer: seconds on 1 and on all
//       devices, next to the floors measured here: each device's D2H copy of a large device buffer
//       into pinned memory (alone, and all devices at once), and the host's memory write bandwidth
//       (every core writing its share of the pinned buffer). Target: the all-device rate >= 0.8 x
//       min(summed links, host write bandwidth);
//   (c) sliding-window graphs, the GPU-DFC paper's Table II shape (bench_gpu_dfc.cpp's run_graphs:
//       N = 30,697 x 257, windows of 150 samples, step 1: 108 windows, r >= 0.7, weighted):
//       every window's graph through fc_dfc_next_graph on device 0 alone and on all devices (a
//       window per device, dfc/window_graphs.hpp), seconds and ratio (issue 33: >= 3.5x on 4
//       GPUs); each window's CSR arrays digested and compared, one device against all;
//   bits: the all-device outputs equal the one-device ones (digests of every byte).
//
//   bench_gpu_multi [--degree-n N] [--triangle-n M] [--windows-n W] [--t T] [--reps R] [--markdown FILE]
// --windows-n: the series of case (c) (default 30,697; 0 leaves the case out).
// Prints every number, the table, and a last line "mgpu: ..." that scripts/gpu-steps/mgpu.sh reads.
#include <cuda_runtime_api.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "bench_data.hpp"
#include "bench_util.hpp"
#include "fastconn/fastconn.h"
#include "fastconn/fastconn_cuda.h"

namespace {

using namespace fcbench;

// Work over [0, count) split among the host's cores, one std::thread each.
template <class F>
void on_cores(size_t count, F&& f) {
  const size_t threads = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::thread> pool;
  for (size_t i = 0; i < threads; ++i)
    pool.emplace_back([&, i] { f(count * i / threads, count * (i + 1) / threads); });
  for (auto& t : pool) t.join();
}

// A digest of every byte (64-bit FNV-1a of each 64 MiB chunk, chunks combined in order).
uint64_t digest(const void* data, size_t bytes) {
  constexpr size_t kChunk = size_t(64) << 20;
  const size_t chunks = (bytes + kChunk - 1) / kChunk;
  std::vector<uint64_t> h(chunks);
  on_cores(chunks, [&](size_t c0, size_t c1) {
    for (size_t c = c0; c < c1; ++c) {
      const unsigned char* p = static_cast<const unsigned char*>(data) + c * kChunk;
      const size_t n = std::min(kChunk, bytes - c * kChunk);
      uint64_t v = 1469598103934665603ull;
      for (size_t k = 0; k < n; ++k) v = (v ^ p[k]) * 1099511628211ull;
      h[c] = v;
    }
  });
  uint64_t all = 1469598103934665603ull;
  for (uint64_t v : h) all = (all ^ v) * 1099511628211ull;
  return all;
}

fc_context* context_on(int devices) {  // 1: device 0 alone; 0: every visible device
  fc_context* ctx = nullptr;
  if (devices == 1) fc_ok(fc_context_create(FC_BACKEND_CUDA, 0, &ctx), "fc_context_create(CUDA, 0)");
  else fc_ok(fc_context_create_cuda_devices(nullptr, 0, &ctx), "fc_context_create_cuda_devices(all)");
  return ctx;
}

// Seconds of one D2H copy of `bytes` from each listed device at once into pinned memory (device i
// into host + i * bytes), timed on the host from the first enqueue to the last completion.
double d2h_at_once(const std::vector<int>& devices, const std::vector<void*>& src, char* host, size_t bytes) {
  std::vector<cudaStream_t> streams(devices.size());
  for (size_t i = 0; i < devices.size(); ++i) {
    cuda_ok(cudaSetDevice(devices[i]), "cudaSetDevice");
    cuda_ok(cudaStreamCreateWithFlags(&streams[i], cudaStreamNonBlocking), "cudaStreamCreate");
  }
  double best = INFINITY;
  for (int rep = 0; rep < 3; ++rep) {
    const double t0 = now();
    for (size_t i = 0; i < devices.size(); ++i) {
      cuda_ok(cudaSetDevice(devices[i]), "cudaSetDevice");
      cuda_ok(cudaMemcpyAsync(host + i * bytes, src[i], bytes, cudaMemcpyDeviceToHost, streams[i]), "D2H");
    }
    for (size_t i = 0; i < devices.size(); ++i) {
      cuda_ok(cudaSetDevice(devices[i]), "cudaSetDevice");
      cuda_ok(cudaStreamSynchronize(streams[i]), "cudaStreamSynchronize");
    }
    best = std::min(best, now() - t0);
  }
  for (size_t i = 0; i < devices.size(); ++i) {
    cuda_ok(cudaSetDevice(devices[i]), "cudaSetDevice");
    cuda_ok(cudaStreamDestroy(streams[i]), "cudaStreamDestroy");
  }
  cuda_ok(cudaSetDevice(0), "cudaSetDevice");
  return best;
}

// Case (c): every window's graph of the Table II shape, r >= 0.7 weighted, on `ctx`: seconds
// (median of reps after a warm-up), and then, untimed, a digest of each window's CSR arrays.
struct WindowGraphs {
  double seconds = 0, edges_per_window = 0;
  int64_t windows = 0;
  std::vector<uint64_t> digests;  // offsets, columns, weights of each window
};

constexpr int64_t kWindowT = 257, kWindowLength = 150, kWindowStep = 1;
constexpr double kWindowThreshold = 0.7;

WindowGraphs window_graphs(fc_context* ctx, fc_series* s, int reps) {
  WindowGraphs out;
  std::vector<int64_t> offsets, columns;
  std::vector<float> weights;
  auto every_window = [&](bool digests) {
    fc_dfc* dfc = nullptr;
    fc_ok(fc_dfc_begin(ctx, s, kWindowLength, kWindowStep, FC_TAPER_RECTANGULAR, 0, &dfc), "fc_dfc_begin");
    double edges = 0;
    int64_t windows = 0;
    for (;;) {
      fc_graph* g = nullptr;
      const fc_status st = fc_dfc_next_graph(dfc, FC_EDGE_THRESHOLD, kWindowThreshold, FC_GRAPH_WEIGHTED, &g, nullptr);
      if (st == FC_DONE) break;
      fc_ok(st, "fc_dfc_next_graph");
      int64_t n = 0, e = 0;
      fc_ok(fc_graph_info(g, &n, &e), "fc_graph_info");
      edges += double(e);
      ++windows;
      if (digests) {
        offsets.resize(static_cast<size_t>(n + 1));
        columns.resize(static_cast<size_t>(std::max<int64_t>(1, 2 * e)));
        weights.resize(columns.size());
        fc_ok(fc_graph_csr(g, offsets.data(), columns.data(), weights.data(), static_cast<int64_t>(columns.size())),
              "fc_graph_csr");
        out.digests.push_back(digest(offsets.data(), offsets.size() * sizeof(int64_t)));
        out.digests.push_back(digest(columns.data(), static_cast<size_t>(2 * e) * sizeof(int64_t)));
        out.digests.push_back(digest(weights.data(), static_cast<size_t>(2 * e) * sizeof(float)));
      }
      fc_graph_destroy(g);
    }
    fc_dfc_destroy(dfc);
    out.windows = windows;
    out.edges_per_window = windows > 0 ? edges / double(windows) : 0;
  };
  out.seconds = timed(reps, [&] { every_window(false); });
  every_window(true);
  return out;
}

std::string cpu_model() {
  std::ifstream f("/proc/cpuinfo");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  return "unknown CPU";
}

}  // namespace

int main(int argc, char** argv) {
  std::string markdown;
  int64_t degree_n = 1000000, triangle_n = 150000, windows_n = 30697, t = 200;
  int reps = 2;
  for (int k = 1; k < argc; ++k) {
    const std::string a = argv[k];
    auto value = [&] { return k + 1 < argc ? std::string(argv[++k]) : (die("missing value of " + a), std::string()); };
    if (a == "--markdown") markdown = value();
    else if (a == "--degree-n") degree_n = std::atoll(value().c_str());
    else if (a == "--triangle-n") triangle_n = std::atoll(value().c_str());
    else if (a == "--windows-n") windows_n = std::max<int64_t>(0, std::atoll(value().c_str()));
    else if (a == "--t") t = std::atoll(value().c_str());
    else if (a == "--reps") reps = std::max(1, std::atoi(value().c_str()));
    else die("unknown argument " + a);
  }
  int gpus = 0;
  cuda_ok(cudaGetDeviceCount(&gpus), "cudaGetDeviceCount");
  std::vector<int> devices(static_cast<size_t>(gpus));
  std::string names;
  for (int d = 0; d < gpus; ++d) {
    devices[static_cast<size_t>(d)] = d;
    cudaDeviceProp prop;
    cuda_ok(cudaGetDeviceProperties(&prop, d), "cudaGetDeviceProperties");
    names += (d > 0 ? ", " : "") + std::to_string(d) + ": " + prop.name;
  }
  std::cout << "GPUs: " << gpus << " (" << names << "); CPU: " << cpu_model() << ", "
            << std::thread::hardware_concurrency() << " threads\n";
  std::map<std::string, double> r;
  bool bits_equal = true;

  // (a) the degree map
  {
    const std::vector<float> x = structured_data(degree_n, t, 20261127);
    std::vector<int64_t> want, got;
    for (int which : {1, 0}) {
      fc_context* ctx = context_on(which);
      fc_series* s = nullptr;
      double t0 = now();
      fc_ok(fc_series_create_f32(ctx, x.data(), degree_n, t, t, 1, &s), "fc_series_create_f32");
      r[which == 1 ? "degree_upload_1gpu_s" : "degree_upload_all_s"] = now() - t0;
      std::vector<int64_t>& degree = which == 1 ? want : got;
      degree.assign(static_cast<size_t>(degree_n), -1);
      r[which == 1 ? "degree_1gpu_s" : "degree_all_s"] = timed(reps, [&] {
        fc_ok(fc_pcc_degree(ctx, s, FC_EDGE_ABS_THRESHOLD, 0.3, degree.data(), nullptr), "fc_pcc_degree");
      });
      fc_series_destroy(s);
      fc_context_destroy(ctx);
    }
    r["degree_ratio"] = r["degree_1gpu_s"] / r["degree_all_s"];
    r["degree_bits_equal"] = want == got;
    bits_equal = bits_equal && want == got;
  }

  // (b) the triangle into pinned memory
  const int64_t host_bytes = static_cast<int64_t>(sysconf(_SC_PHYS_PAGES)) * sysconf(_SC_PAGE_SIZE);
  while (triangle_n > 1000 && fc_triu_size(triangle_n) * 4 > host_bytes / 2) triangle_n = triangle_n * 9 / 10;
  const int64_t pairs = fc_triu_size(triangle_n);
  const size_t bytes = static_cast<size_t>(pairs) * 4;
  {
    const std::vector<float> x = structured_data(triangle_n, t, 20261128);
    void* pinned = nullptr;
    double t0 = now();
    cuda_ok(cudaHostAlloc(&pinned, bytes, cudaHostAllocPortable), "cudaHostAlloc (the triangle)");
    r["pinned_alloc_s"] = now() - t0;
    char* host = static_cast<char*>(pinned);
    // host memory write bandwidth: every core writes its share (pages already mapped and locked)
    std::vector<double> writes;
    for (int rep = 0; rep < 3; ++rep) {
      t0 = now();
      on_cores(bytes, [&](size_t b0, size_t b1) { std::memset(host + b0, rep + 1, b1 - b0); });
      writes.push_back(now() - t0);
    }
    r["host_write_gbps"] = bytes / *std::min_element(writes.begin(), writes.end()) / 1e9;
    // each device's link: a device buffer of up to 4 GiB (no more than the triangle's share) copied in
    const size_t chunk = std::min<size_t>(size_t(4) << 30, bytes / std::max(1, gpus)) / 256 * 256;
    std::vector<void*> src(devices.size(), nullptr);
    double summed = 0;
    for (size_t i = 0; i < devices.size(); ++i) {
      cuda_ok(cudaSetDevice(devices[i]), "cudaSetDevice");
      cuda_ok(cudaMalloc(&src[i], chunk), "cudaMalloc (the link's source)");
      cuda_ok(cudaMemset(src[i], 0x3c, chunk), "cudaMemset");
      cuda_ok(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
      const double alone = d2h_at_once({devices[i]}, {src[i]}, host + i * chunk, chunk);
      r["link_gbps_device_" + std::to_string(i)] = chunk / alone / 1e9;
      summed += chunk / alone / 1e9;
    }
    r["links_summed_gbps"] = summed;
    r["links_at_once_gbps"] = chunk * devices.size() / d2h_at_once(devices, src, host, chunk) / 1e9;
    for (size_t i = 0; i < devices.size(); ++i) {
      cuda_ok(cudaSetDevice(devices[i]), "cudaSetDevice");
      cuda_ok(cudaFree(src[i]), "cudaFree");
    }
    cuda_ok(cudaSetDevice(0), "cudaSetDevice");
    uint64_t want = 0, got = 0;
    for (int which : {1, 0}) {
      fc_context* ctx = context_on(which);
      fc_series* s = nullptr;
      fc_ok(fc_series_create_f32(ctx, x.data(), triangle_n, t, t, 1, &s), "fc_series_create_f32");
      r[which == 1 ? "triangle_1gpu_s" : "triangle_all_s"] = timed(reps, [&] {
        fc_ok(fc_pcc_triu(ctx, s, FC_TRIU_ROW, static_cast<float*>(pinned), pairs), "fc_pcc_triu");
      });
      (which == 1 ? want : got) = digest(pinned, bytes);
      std::memset(pinned, 0, 4096);  // a stale first page cannot pass for the next run's
      fc_series_destroy(s);
      fc_context_destroy(ctx);
    }
    r["triangle_bits_equal"] = want == got;
    bits_equal = bits_equal && want == got;
    cudaFreeHost(pinned);
  }
  // (c) sliding-window graphs (Table II's shape; its data seeded as bench_gpu_dfc.cpp's)
  if (windows_n > 0) {
    const std::vector<float> x = structured_data(windows_n, kWindowT, 20261124 + uint64_t(windows_n));
    std::vector<uint64_t> want;
    for (int which : {1, 0}) {
      fc_context* ctx = context_on(which);
      fc_series* s = nullptr;
      fc_ok(fc_series_create_f32(ctx, x.data(), windows_n, kWindowT, kWindowT, 1, &s), "fc_series_create_f32");
      const WindowGraphs w = window_graphs(ctx, s, reps);
      r[which == 1 ? "windows_1gpu_s" : "windows_all_s"] = w.seconds;
      r["windows_count"] = double(w.windows);
      r["windows_edges_per_window"] = w.edges_per_window;
      if (which == 1) want = w.digests;
      else r["windows_bits_equal"] = want == w.digests;
      fc_series_destroy(s);
      fc_context_destroy(ctx);
    }
    r["windows_ratio"] = r["windows_1gpu_s"] / r["windows_all_s"];
    bits_equal = bits_equal && r["windows_bits_equal"] != 0;
  }

  const double floor_gbps = std::min(r["links_summed_gbps"], r["host_write_gbps"]);
  r["triangle_all_gbps"] = bytes / r["triangle_all_s"] / 1e9;
  r["triangle_1gpu_gbps"] = bytes / r["triangle_1gpu_s"] / 1e9;
  r["triangle_vs_floor"] = r["triangle_all_gbps"] / floor_gbps;
  // The host's write bandwidth is measured with the cores' stores (memset); the devices' copies
  // wrote faster than that on the H200 machine, so the links alone are the other bound to read.
  r["triangle_vs_links"] = r["triangle_all_gbps"] / r["links_summed_gbps"];

  for (const auto& [k, v] : r) std::cout << "  " << k << " = " << v << "\n";
  std::ostringstream tab;
  char line[320];
  tab << "| case | 1 GPU | " << gpus << " GPUs | ratio |\n|---|---:|---:|---:|\n";
  std::snprintf(line, sizeof line, "| degree map %lld x %lld, abs(r) >= 0.3 | %.3f s | %.3f s | %.2f x |\n",
                (long long)degree_n, (long long)t, r["degree_1gpu_s"], r["degree_all_s"], r["degree_ratio"]);
  tab << line;
  std::snprintf(line, sizeof line, "| triangle %lld x %lld into pinned memory (%.1f GB) | %.3f s (%.1f GB/s) | %.3f s (%.1f GB/s) | %.2f x |\n",
                (long long)triangle_n, (long long)t, bytes / 1e9, r["triangle_1gpu_s"], r["triangle_1gpu_gbps"],
                r["triangle_all_s"], r["triangle_all_gbps"], r["triangle_1gpu_s"] / r["triangle_all_s"]);
  tab << line;
  if (windows_n > 0) {
    std::snprintf(line, sizeof line,
                  "| window graphs %lld x %lld, w = %lld, s = %lld: %lld windows, r >= %.1f (%.2f M edges a window, "
                  "a window per GPU) | %.3f s | %.3f s | %.2f x |\n",
                  (long long)windows_n, (long long)kWindowT, (long long)kWindowLength, (long long)kWindowStep,
                  (long long)r["windows_count"], kWindowThreshold, r["windows_edges_per_window"] / 1e6, r["windows_1gpu_s"],
                  r["windows_all_s"], r["windows_ratio"]);
    tab << line;
  }
  std::snprintf(line, sizeof line,
                "\nFloors (same run): D2H links summed %.1f GB/s (all devices at once: %.1f GB/s), host memory write %.1f GB/s "
                "(memset by every core); triangle at %.2f of min(links, host write) (target >= 0.8), %.2f of the links\n",
                r["links_summed_gbps"], r["links_at_once_gbps"], r["host_write_gbps"], r["triangle_vs_floor"],
                r["triangle_vs_links"]);
  tab << line;
  std::cout << "\n" << tab.str();
  char verdict[600];
  std::snprintf(verdict, sizeof verdict,
                "%d GPUs: degree %lldx%lld %.2f s vs 1 GPU %.2f s (%.2fx); triangle %lldx%lld %.2f s = %.1f GB/s, "
                "%.2f of floor min(links %.1f, host %.1f GB/s), %.2f of links; bits %s",
                gpus, (long long)degree_n, (long long)t, r["degree_all_s"], r["degree_1gpu_s"], r["degree_ratio"],
                (long long)triangle_n, (long long)t, r["triangle_all_s"], r["triangle_all_gbps"], r["triangle_vs_floor"],
                r["links_summed_gbps"], r["host_write_gbps"], r["triangle_vs_links"], bits_equal ? "equal" : "DIFFER");
  if (windows_n > 0) {  // appended: the fields above keep their places for mgpu.sh's readers
    const size_t used = std::strlen(verdict);
    std::snprintf(verdict + used, sizeof verdict - used, "; windows %lldx%lld %lld graphs %.2f s vs 1 GPU %.2f s (%.2fx)",
                  (long long)windows_n, (long long)kWindowT, (long long)r["windows_count"], r["windows_all_s"],
                  r["windows_1gpu_s"], r["windows_ratio"]);
  }
  if (!markdown.empty()) {
    char host_name[256] = "unknown";
    gethostname(host_name, sizeof host_name - 1);
    std::ofstream md(markdown);
    md << "# A context over several GPUs (issue 33): one GPU against all, same run\n\n"
       << "Generated by `scripts/gpu-steps/mgpu.sh` (bench/gpu/bench_gpu_multi.cpp).\n\n"
       << "- machine: " << host_name << "; CPU: " << cpu_model() << " (" << std::thread::hardware_concurrency()
       << " threads); date: " << utc_date() << "\n"
       << "- GPUs: " << gpus << " (" << names << ")\n"
       << "- data: bench_data.hpp's structured series, FP32; seconds: median of " << reps
       << " calls after a warm-up; 1 GPU = fc_context_create(FC_BACKEND_CUDA, 0), all = "
       << "fc_context_create_cuda_devices(NULL, 0)\n"
       << "- pinned buffer of the triangle: cudaHostAlloc of " << bytes / 1e9 << " GB took " << r["pinned_alloc_s"]
       << " s (not in any timing)\n"
       << "- bits: degree " << (r["degree_bits_equal"] != 0 ? "equal" : "DIFFER") << ", triangle digest "
       << (r["triangle_bits_equal"] != 0 ? "equal" : "DIFFER")
       << (windows_n > 0 ? std::string(", window graphs (each window's CSR arrays digested) ") +
                               (r["windows_bits_equal"] != 0 ? "equal" : "DIFFER")
                         : std::string())
       << "\n\n"
       << tab.str() << "\n" << verdict << "\n\nAll numbers:\n\n```\n";
    for (const auto& [k, v] : r) md << k << " = " << v << "\n";
    md << "```\n";
  }
  std::cout << "mgpu: " << verdict << "\n";
  return bits_equal ? 0 : 1;
}
