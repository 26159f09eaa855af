// GPU benchmark of the full PCC triangle at the seed papers' real-data shape (N = 90,112 series
// of T = 165 samples: 4.06e9 pairs, 16.24 GB as float), each number next to the floor it is
// bounded by, all measured in this one run:
//   (a) pinned D2H floor: the 16.24 GB device-resident result copied into pinned memory
//   (b) fastconn into a pinned buffer           target <= 1.10 x (a)
//   (c) fastconn into a fresh malloc buffer     target <= 1.25 x max(a, d)
//   (d) first-touch floor: threads writing a fresh buffer of the same size
//   (e) plain PyTorch baseline (bench/gpu/torch_baseline.py; read from its JSON)
//   (f) device-resident output vs cuBLAS alone over the same tiles   target <= 1.3
// (c) and (d) run with and without MADV_HUGEPAGE (FASTCONN_CUDA_HUGEPAGE=0/1 for fastconn).
//
//   bench_gpu_pcc --write-data FILE          writes the seeded input (float32, N x T) and exits
//   bench_gpu_pcc [--torch JSON] [--markdown FILE] [--reps R]
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iostream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "backend/cuda/band_plan.hpp"
#include "bench_data.hpp"
#include "bench_util.hpp"
#include "gemm_alone.hpp"
#include "fastconn/fastconn.h"
#include "fastconn/fastconn_cuda.h"

namespace {

using namespace fcbench;

constexpr int64_t kN = 90112, kT = 165;

int hardware_threads() { return std::max(1u, std::thread::hardware_concurrency()); }

template <class F>
void parallel_chunks(size_t bytes, int threads, F&& body) {
  std::vector<std::thread> pool;
  const size_t per = (bytes / threads + 4095) & ~size_t(4095);
  for (int k = 0; k < threads; ++k) {
    const size_t b = std::min(bytes, per * k), e = std::min(bytes, per * (k + 1));
    pool.emplace_back([&body, b, e] { body(b, e); });
  }
  for (auto& th : pool) th.join();
}

// Position-weighted checksum of float bit patterns: equal checksums, same values in the same places.
uint64_t checksum(const float* v, int64_t count) {
  const int threads = hardware_threads();
  std::vector<uint64_t> part(static_cast<size_t>(threads), 0);
  const int64_t per = (count + threads - 1) / threads;
  std::vector<std::thread> pool;
  for (int k = 0; k < threads; ++k)
    pool.emplace_back([&, k] {
      uint64_t acc = 0;
      const int64_t b = std::min(count, per * k), e = std::min(count, per * (k + 1));
      for (int64_t i = b; i < e; ++i) {
        uint32_t bits;
        std::memcpy(&bits, v + i, 4);
        acc += uint64_t(bits) * uint64_t(2 * i + 1);
      }
      part[static_cast<size_t>(k)] = acc;
    });
  for (auto& th : pool) th.join();
  uint64_t sum = 0;
  for (uint64_t p : part) sum += p;
  return sum;
}

// Max |r - r64| at sampled pairs against float64 correlations of the input.
double sampled_error(const float* out, const std::vector<float>& x, int64_t n, int64_t t, int samples) {
  std::mt19937_64 gen(99);
  double worst = 0.0;
  auto z = [&](int64_t s, std::vector<double>& v) {
    double mean = 0, ss = 0;
    for (int64_t k = 0; k < t; ++k) mean += x[static_cast<size_t>(s * t + k)];
    mean /= double(t);
    v.resize(static_cast<size_t>(t));
    for (int64_t k = 0; k < t; ++k) ss += (v[k] = x[static_cast<size_t>(s * t + k)] - mean) * v[k];
    for (double& e : v) e /= std::sqrt(ss);
  };
  std::vector<double> zi, zj;
  for (int k = 0; k < samples; ++k) {
    const int64_t off = static_cast<int64_t>(gen() % static_cast<uint64_t>(fc_triu_size(n)));
    int64_t i = 0, j = 0;
    fc_ok(fc_triu_pair(n, FC_TRIU_ROW, off, &i, &j), "fc_triu_pair");
    z(i, zi);
    z(j, zj);
    double r = 0;
    for (int64_t q = 0; q < t; ++q) r += zi[q] * zj[q];
    worst = std::max(worst, std::fabs(double(out[off]) - r));
  }
  return worst;
}

std::string thp_mode() {
  std::string s = read_file("/sys/kernel/mm/transparent_hugepage/enabled");
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s.empty() ? "unknown" : s;
}

}  // namespace

int main(int argc, char** argv) {
  std::string write_data, torch_json, markdown;
  int reps = 3;
  for (int k = 1; k < argc; ++k) {
    const std::string a = argv[k];
    auto value = [&] { return k + 1 < argc ? std::string(argv[++k]) : (die("missing value of " + a), std::string()); };
    if (a == "--write-data") write_data = value();
    else if (a == "--torch") torch_json = value();
    else if (a == "--markdown") markdown = value();
    else if (a == "--reps") reps = std::atoi(value().c_str());
    else die("unknown argument " + a);
  }
  const std::vector<float> x = structured_data(kN, kT, 20251122);
  if (!write_data.empty()) {
    std::ofstream f(write_data, std::ios::binary);
    f.write(reinterpret_cast<const char*>(x.data()), static_cast<std::streamsize>(x.size() * sizeof(float)));
    if (!f) die("cannot write " + write_data);
    std::cout << "wrote " << kN << " x " << kT << " float32 to " << write_data << "\n";
    return 0;
  }

  const int64_t pairs = fc_triu_size(kN);
  const size_t bytes = static_cast<size_t>(pairs) * sizeof(float);
  cudaDeviceProp prop;
  cuda_ok(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  std::map<std::string, double> r;  // every number, by name
  std::cout << "device: " << prop.name << ", host threads: " << hardware_threads() << ", THP: " << thp_mode() << "\n"
            << "N = " << kN << ", T = " << kT << ", pairs = " << pairs << ", output = " << bytes / 1e9 << " GB\n";

  fc_context* ctx = nullptr;
  fc_ok(fc_context_create(FC_BACKEND_CUDA, 0, &ctx), "fc_context_create(CUDA)");
  double t0 = now();
  fc_series* s = nullptr;
  fc_ok(fc_series_create_f32(ctx, x.data(), kN, kT, kT, 1, &s), "fc_series_create_f32");
  r["series_create_s"] = now() - t0;

  // Warm-up on a 4096-series subset: cuBLAS handles, kernels, staging ring and copy threads.
  {
    fc_series* small = nullptr;
    fc_ok(fc_series_create_f32(ctx, x.data(), 4096, kT, kT, 1, &small), "warm-up series");
    std::vector<float> w(static_cast<size_t>(fc_triu_size(4096)));
    t0 = now();
    fc_ok(fc_pcc_triu(ctx, small, FC_TRIU_ROW, w.data(), fc_triu_size(4096)), "warm-up");
    r["warmup_first_call_s"] = now() - t0;
    fc_series_destroy(small);
  }

  // (f) device-resident output, then cuBLAS alone over the same bands and tiles, for the default
  // tile cap and smaller ones (FASTCONN_CUDA_MAX_TILE_VALUES; smaller tiles stay in L2 longer).
  float* d_out = nullptr;
  cuda_ok(cudaMalloc(reinterpret_cast<void**>(&d_out), bytes), "cudaMalloc output");
  std::vector<double> times;
  for (const int64_t cap : {fc::cuda::kMaxTileValues, int64_t(16) << 20, int64_t(4) << 20}) {
    const std::string tag = cap == fc::cuda::kMaxTileValues ? "" : "_tile" + std::to_string(cap >> 20) + "M";
    setenv("FASTCONN_CUDA_MAX_TILE_VALUES", std::to_string(cap).c_str(), 1);
    times.clear();
    for (int k = 0; k < reps + 1; ++k) {
      t0 = now();
      fc_ok(fc_pcc_triu_device(ctx, s, FC_TRIU_ROW, d_out, pairs), "fc_pcc_triu_device");
      if (k > 0) times.push_back(now() - t0);  // the first run allocates the device tiles
    }
    r["f_device_s" + tag] = median(times);
    GemmAlone gemm(x, kN, kT, cap);
    std::vector<double> gemm_times;
    for (int rep = 0; rep < reps + 1; ++rep) {
      const double g = gemm.once();
      if (rep > 0) gemm_times.push_back(g);  // rep 0: warm-up
    }
    r["f_gemm_s" + tag] = median(gemm_times);
    r["bands" + tag] = double(gemm.bands());
    r["gemm_tflops" + tag] = gemm.tflops(r["f_gemm_s" + tag]);
  }
  unsetenv("FASTCONN_CUDA_MAX_TILE_VALUES");
  fc_ok(fc_pcc_triu_device(ctx, s, FC_TRIU_ROW, d_out, pairs), "fc_pcc_triu_device");  // the default plan's bits

  // (a) the floor: the device-resident triangle copied to pinned memory in one cudaMemcpy.
  float* pinned = nullptr;
  t0 = now();
  cuda_ok(cudaHostAlloc(reinterpret_cast<void**>(&pinned), bytes, cudaHostAllocDefault), "cudaHostAlloc output");
  r["pin_alloc_s"] = now() - t0;
  r["a_floor_s"] = d2h_seconds(pinned, d_out, bytes);
  r["d2h_gbps"] = bytes / r["a_floor_s"] / 1e9;
  const uint64_t reference_sum = checksum(pinned, pairs);
  r["max_err_vs_f64"] = sampled_error(pinned, x, kN, kT, 2000);

  // (b) fastconn into the pinned buffer.
  times.clear();
  for (int k = 0; k < reps; ++k) {
    std::memset(pinned, 0, 4096);
    t0 = now();
    fc_ok(fc_pcc_triu(ctx, s, FC_TRIU_ROW, pinned, pairs), "fc_pcc_triu (pinned)");
    times.push_back(now() - t0);
  }
  r["b_pinned_s"] = median(times);
  r["b_same_bits"] = checksum(pinned, pairs) == reference_sum;
  cudaFreeHost(pinned);
  cudaFree(d_out);

  // (d) first-touch floor and (c) fastconn into fresh malloc'd memory, with 4 KiB pages and
  // with MADV_HUGEPAGE, alternating so that both see the same state of the host's memory.
  const int threads = hardware_threads();
  for (const char* hp : {"0", "1"}) {
    const bool huge = hp[0] == '1';
    std::vector<double> first_touch, fresh;
    bool same = true;
    for (int k = 0; k < 2; ++k) {
      char* buf = static_cast<char*>(std::malloc(bytes));
      if (buf == nullptr) die("malloc");
      t0 = now();
      if (huge) madvise(reinterpret_cast<void*>((reinterpret_cast<uintptr_t>(buf) + (2 << 20) - 1) & ~uintptr_t((2 << 20) - 1)),
                        bytes - (4 << 20), MADV_HUGEPAGE);
      parallel_chunks(bytes, threads, [buf](size_t b, size_t e) { std::memset(buf + b, 1, e - b); });
      first_touch.push_back(now() - t0);
      std::free(buf);

      float* out = static_cast<float*>(std::malloc(bytes));
      if (out == nullptr) die("malloc");
      setenv("FASTCONN_CUDA_HUGEPAGE", hp, 1);
      t0 = now();
      fc_ok(fc_pcc_triu(ctx, s, FC_TRIU_ROW, out, pairs), "fc_pcc_triu (fresh malloc)");
      fresh.push_back(now() - t0);
      same = same && checksum(out, pairs) == reference_sum;
      std::free(out);
    }
    const std::string suffix = huge ? "_huge" : "_4k";
    r["d_first_touch_s" + suffix] = *std::min_element(first_touch.begin(), first_touch.end());
    r["c_malloc_s" + suffix] = *std::min_element(fresh.begin(), fresh.end());
    r["c_same_bits" + suffix] = same;
  }
  unsetenv("FASTCONN_CUDA_HUGEPAGE");
  fc_series_destroy(s);
  fc_context_destroy(ctx);

  // (c) with other staging rings (FASTCONN_CUDA_RING="slots,MiB"), huge pages: a ring small
  // enough to stay in the host's last-level cache saves a DRAM round trip per byte. The last
  // one is the default ring again, with one copy thread per core (16) instead of cores - 1.
  for (const char* ring : {"4,32", "8,2", "16,1", "32,1", "16,4"}) {
    setenv("FASTCONN_CUDA_RING", ring, 1);
    fc_context* c2 = nullptr;
    fc_series* s2 = nullptr;
    fc_ok(fc_context_create(FC_BACKEND_CUDA, 0, &c2), "fc_context_create");
    if (std::strcmp(ring, "16,4") == 0) fc_ok(fc_context_set_threads(c2, hardware_threads()), "fc_context_set_threads");
    fc_ok(fc_series_create_f32(c2, x.data(), kN, kT, kT, 1, &s2), "fc_series_create_f32");
    {
      fc_series* small = nullptr;
      fc_ok(fc_series_create_f32(c2, x.data(), 4096, kT, kT, 1, &small), "warm-up series");
      std::vector<float> w(static_cast<size_t>(fc_triu_size(4096)));
      fc_ok(fc_pcc_triu(c2, small, FC_TRIU_ROW, w.data(), fc_triu_size(4096)), "warm-up");
      fc_series_destroy(small);
    }
    double best = 1e30;
    bool same = true;
    for (int k = 0; k < 2; ++k) {
      float* out = static_cast<float*>(std::malloc(bytes));
      if (out == nullptr) die("malloc");
      t0 = now();
      fc_ok(fc_pcc_triu(c2, s2, FC_TRIU_ROW, out, pairs), "fc_pcc_triu (fresh malloc, ring sweep)");
      best = std::min(best, now() - t0);
      same = same && checksum(out, pairs) == reference_sum;
      std::free(out);
    }
    std::string tag = ring;
    std::replace(tag.begin(), tag.end(), ',', 'x');
    r["c_malloc_s_huge_ring" + tag + "MiB"] = best;
    r["c_same_bits_huge_ring" + tag + "MiB"] = same;
    fc_series_destroy(s2);
    fc_context_destroy(c2);
  }
  unsetenv("FASTCONN_CUDA_RING");

  double e_torch = NAN;
  if (!torch_json.empty()) {
    const std::string j = read_file(torch_json);
    e_torch = json_number(j, "total_s");
    r["e_torch_s"] = e_torch;
    r["e_torch_gemm_s"] = json_number(j, "gemm_only_s");
  }

  // Report: every number, then the table against the targets.
  for (const auto& [k, v] : r) std::cout << "  " << k << " = " << v << "\n";
  const double a = r["a_floor_s"], b = r["b_pinned_s"];
  const double c4 = r["c_malloc_s_4k"], ch = r["c_malloc_s_huge"], d4 = r["d_first_touch_s_4k"], dh = r["d_first_touch_s_huge"];
  const double c = std::min(c4, ch);  // the faster page setting of (c)
  std::ostringstream t;
  char line[256];
  auto row = [&](const char* what, double sec, const std::string& vs, const std::string& target) {
    std::snprintf(line, sizeof line, "| %-44s | %8.3f | %-26s | %-18s |\n", what, sec, vs.c_str(), target.c_str());
    t << line;
  };
  auto ratio = [](double x, double y, bool ok) {
    char s[64];
    std::snprintf(s, sizeof s, "%.2f x %s", x / y, ok ? "(met)" : "(MISSED)");
    return std::string(s);
  };
  t << "| measurement | seconds | ratio | target |\n|---|---:|---|---|\n";
  row("(a) pinned D2H floor", a, "", "");
  row("(b) fastconn -> pinned buffer", b, ratio(b, a, b <= 1.10 * a) + " (a)", "<= 1.10 x (a)");
  row("(c) fastconn -> fresh malloc, 4 KiB pages", c4, ratio(c4, std::max(a, d4), c4 <= 1.25 * std::max(a, d4)) + " max(a,d)", "<= 1.25 x max(a,d)");
  row("(c) fastconn -> fresh malloc, MADV_HUGEPAGE", ch, ratio(ch, std::max(a, dh), ch <= 1.25 * std::max(a, dh)) + " max(a,d)", "<= 1.25 x max(a,d)");
  row("(d) first-touch floor, 4 KiB pages", d4, "", "");
  row("(d) first-touch floor, MADV_HUGEPAGE", dh, "", "");
  if (!std::isnan(e_torch)) {
    row("(e) PyTorch baseline -> pre-pinned buffer", e_torch, "", "");
    row("    (b) vs (e)", b, ratio(b, e_torch, b < e_torch) + " (e)", "< 1 x (e)");
    row("    (c) vs (e)", c, ratio(c, e_torch, c < e_torch) + " (e)", "< 1 x (e)");
  }
  row("(f) fastconn, device-resident output", r["f_device_s"], ratio(r["f_device_s"], r["f_gemm_s"], r["f_device_s"] <= 1.3 * r["f_gemm_s"]) + " GEMMs", "<= 1.3 x GEMMs");
  row("    cuBLAS SGEMMs alone, same tiles", r["f_gemm_s"], "", "");
  for (const char* tag : {"_tile16M", "_tile4M"}) {
    const std::string name = std::string("(f) with tiles of ") + (tag + 5) + " values";
    row(name.c_str(), r[std::string("f_device_s") + tag],
        ratio(r[std::string("f_device_s") + tag], r[std::string("f_gemm_s") + tag], r[std::string("f_device_s") + tag] <= 1.3 * r[std::string("f_gemm_s") + tag]) + " GEMMs", "");
  }
  for (const char* ring : {"4x32", "8x2", "16x1", "32x1", "16x4"}) {
    const std::string key = std::string("c_malloc_s_huge_ring") + ring + "MiB";
    const std::string name = std::string("(c) huge pages, ring of ") + ring + " MiB" +
                             (std::strcmp(ring, "16x4") == 0 ? ", all cores" : "");
    row(name.c_str(), r[key], ratio(r[key], std::max(a, dh), r[key] <= 1.25 * std::max(a, dh)) + " max(a,d)", "");
  }
  std::cout << "\n" << t.str();

  if (!markdown.empty()) {
    std::ofstream md(markdown);
    const std::string date = utc_date();
    md << "# fastconn GPU benchmark: full PCC triangle\n\n"
       << "Generated by `scripts/gpu-check.sh` (bench/gpu/bench_gpu_pcc.cpp, bench/gpu/torch_baseline.py).\n\n"
       << "- device: " << prop.name << " (" << prop.multiProcessorCount << " SMs), " << hardware_threads()
       << " host threads, transparent huge pages: `" << thp_mode() << "`\n"
       << "- date: " << date << "\n"
       << "- shape: N = " << kN << " series, T = " << kT << " samples (seeded structured synthetic data), "
       << pairs << " pairs, " << bytes / 1e9 << " GB of float output, row order, FP32\n"
       << "- measured D2H bandwidth: " << r["d2h_gbps"] << " GB/s; cuBLAS SGEMM rate over the bands: "
       << r["gemm_tflops"] << " TFLOP/s (" << r["bands"] << " bands)\n"
       << "- seconds are the median (b, f) or best (a, c, d) of repeated runs; (c) and (d) use a fresh buffer each time\n"
       << "- every fastconn output has the same checksum as the device-resident result (b: "
       << (r["b_same_bits"] ? "yes" : "NO") << ", c 4k: " << (r["c_same_bits_4k"] ? "yes" : "NO") << ", c huge: "
       << (r["c_same_bits_huge"] ? "yes" : "NO") << "); max |r - r64| at 2000 sampled pairs: " << r["max_err_vs_f64"] << "\n\n"
       << t.str() << "\nAll numbers:\n\n```\n";
    for (const auto& [k, v] : r) md << k << " = " << v << "\n";
    md << "```\n";
  }
  return 0;
}
