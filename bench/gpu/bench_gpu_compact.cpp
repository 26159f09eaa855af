// GPU benchmark of the compact value formats (issue 32 item 2): the 90,112 x 165 triangle
// (4.06e9 pairs) into one pinned host buffer as float (fc_pcc_triu, 16.2 GB) and as 2-byte codes
// (fc_pcc_triu_compact, FC_VALUES_INT16 and FC_VALUES_HALF, 8.1 GB), each next to its floor
// measured in the same run: one cudaMemcpy of that many device-resident bytes into the same
// pinned buffer. The codes are checked at a million sampled pairs against the float triangle of
// the same run (int16: |code - 32767 r| <= 1/2; half: the decoded value within half a unit of r's
// binade), so a fast wrong answer cannot pass.
//
//   bench_gpu_compact [--markdown FILE] [--reps R]
// Prints every number, the table, and a last line "compact: ..." that the gpu-steps script reads.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iostream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "bench_data.hpp"
#include "bench_util.hpp"
#include "fastconn/fastconn.h"

namespace {

using namespace fcbench;

constexpr int64_t kN = 90112, kT = 165;
constexpr int kSamples = 1000000;

// Sampled pairs' offsets (fixed seed) and the float triangle's values there.
struct Sample {
  std::vector<int64_t> offset;
  std::vector<float> r;
};

// Codes at the sampled pairs that are not the nearest code of the float r; the largest
// |decoded - r| into *worst.
int64_t wrong_codes(const uint16_t* codes, const Sample& s, fc_value_format format, double* worst) {
  int64_t wrong = 0;
  *worst = 0;
  std::vector<uint16_t> picked(s.offset.size());
  for (size_t k = 0; k < s.offset.size(); ++k) picked[k] = codes[s.offset[k]];
  std::vector<double> decoded(picked.size());
  fc_ok(fc_decode_values_f64(format, picked.data(), static_cast<int64_t>(picked.size()), decoded.data()), "fc_decode_values_f64");
  for (size_t k = 0; k < picked.size(); ++k) {
    const double r = s.r[k], v = decoded[k];
    if (std::isnan(r) || std::isnan(v)) {
      wrong += std::isnan(r) != std::isnan(v);
      continue;
    }
    const double e = std::fabs(v - r);
    *worst = std::max(*worst, e);
    // int16: the nearest code; half: within half a unit in the last place of r's binade
    const double limit = format == FC_VALUES_INT16 ? 0.5 / 32767.0
                                                   : std::ldexp(1.0, std::max(-24, std::ilogb(std::fabs(r)) - 10) - 1);
    wrong += e > limit * (1 + 1e-12);
  }
  return wrong;
}

}  // namespace

int main(int argc, char** argv) {
  std::string markdown;
  int reps = 3;
  for (int k = 1; k < argc; ++k) {
    const std::string a = argv[k];
    auto value = [&] { return k + 1 < argc ? std::string(argv[++k]) : (die("missing value of " + a), std::string()); };
    if (a == "--markdown") markdown = value();
    else if (a == "--reps") reps = std::atoi(value().c_str());
    else die("unknown argument " + a);
  }
  const std::vector<float> x = structured_data(kN, kT, 20251122);  // bench_gpu_pcc's data
  const int64_t pairs = fc_triu_size(kN);
  const size_t bytes4 = static_cast<size_t>(pairs) * 4, bytes2 = static_cast<size_t>(pairs) * 2;
  cudaDeviceProp prop;
  cuda_ok(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  std::map<std::string, double> r;
  std::cout << "device: " << prop.name << "; N = " << kN << ", T = " << kT << ", pairs = " << pairs << "\n";

  fc_context* ctx = nullptr;
  fc_ok(fc_context_create(FC_BACKEND_CUDA, 0, &ctx), "fc_context_create(CUDA)");
  fc_series* s = nullptr;
  fc_ok(fc_series_create_f32(ctx, x.data(), kN, kT, kT, 1, &s), "fc_series_create_f32");
  {  // warm-up: cuBLAS handles, kernels of both output types, staging ring
    fc_series* small = nullptr;
    fc_ok(fc_series_create_f32(ctx, x.data(), 4096, kT, kT, 1, &small), "warm-up series");
    std::vector<float> w(static_cast<size_t>(fc_triu_size(4096)));
    fc_ok(fc_pcc_triu(ctx, small, FC_TRIU_ROW, w.data(), fc_triu_size(4096)), "warm-up");
    fc_ok(fc_pcc_triu_compact(ctx, small, FC_TRIU_ROW, FC_VALUES_INT16, w.data(), fc_triu_size(4096)), "warm-up");
    fc_ok(fc_pcc_triu_compact(ctx, small, FC_TRIU_ROW, FC_VALUES_HALF, w.data(), fc_triu_size(4096)), "warm-up");
    fc_series_destroy(small);
  }

  // The floors: device-resident bytes (a float triangle's size) copied into the pinned buffer.
  void* pinned = nullptr;
  double t0 = now();
  cuda_ok(cudaHostAlloc(&pinned, bytes4, cudaHostAllocDefault), "cudaHostAlloc output");
  r["pin_alloc_s"] = now() - t0;
  void* device = nullptr;
  cuda_ok(cudaMalloc(&device, bytes4), "cudaMalloc");
  cuda_ok(cudaMemset(device, 0x3c, bytes4), "cudaMemset");
  r["floor_4B_s"] = d2h_seconds(pinned, device, bytes4);
  r["floor_2B_s"] = d2h_seconds(pinned, device, bytes2);
  r["d2h_gbps"] = bytes4 / r["floor_4B_s"] / 1e9;
  cudaFree(device);

  auto median_of = [&](auto&& call) {
    std::vector<double> t;
    for (int k = 0; k < reps; ++k) {
      std::memset(pinned, 0, 4096);
      const double start = now();
      call();
      t.push_back(now() - start);
    }
    return median(t);
  };
  r["f32_s"] = median_of([&] { fc_ok(fc_pcc_triu(ctx, s, FC_TRIU_ROW, static_cast<float*>(pinned), pairs), "fc_pcc_triu"); });
  Sample sample;
  std::mt19937_64 gen(7);
  for (int k = 0; k < kSamples; ++k) {
    const int64_t off = static_cast<int64_t>(gen() % static_cast<uint64_t>(pairs));
    sample.offset.push_back(off);
    sample.r.push_back(static_cast<const float*>(pinned)[off]);
  }
  const struct {
    fc_value_format format;
    const char* name;
  } formats[] = {{FC_VALUES_INT16, "int16"}, {FC_VALUES_HALF, "half"}};
  for (const auto& f : formats) {
    const std::string key = f.name;
    r[key + "_s"] = median_of(
        [&] { fc_ok(fc_pcc_triu_compact(ctx, s, FC_TRIU_ROW, f.format, pinned, pairs), "fc_pcc_triu_compact"); });
    double worst = 0;
    r[key + "_wrong_codes"] = double(wrong_codes(static_cast<const uint16_t*>(pinned), sample, f.format, &worst));
    r[key + "_max_abs_error"] = worst;
  }
  cudaFreeHost(pinned);
  fc_series_destroy(s);
  fc_context_destroy(ctx);

  for (const auto& [k, v] : r) std::cout << "  " << k << " = " << v << "\n";
  std::ostringstream t;
  char line[256];
  auto row = [&](const char* what, double sec, double floor) {
    std::snprintf(line, sizeof line, "| %-40s | %7.3f | %5.2f x |\n", what, sec, sec / floor);
    t << line;
  };
  t << "| 90,112 x 165 triangle into pinned memory | seconds | vs its D2H floor |\n|---|---:|---:|\n";
  row("D2H floor, 4 B a pair (16.2 GB)", r["floor_4B_s"], r["floor_4B_s"]);
  row("D2H floor, 2 B a pair (8.1 GB)", r["floor_2B_s"], r["floor_2B_s"]);
  row("fc_pcc_triu (float)", r["f32_s"], r["floor_4B_s"]);
  row("fc_pcc_triu_compact FC_VALUES_INT16", r["int16_s"], r["floor_2B_s"]);
  row("fc_pcc_triu_compact FC_VALUES_HALF", r["half_s"], r["floor_2B_s"]);
  std::cout << "\n" << t.str();
  const bool ok = r["int16_wrong_codes"] == 0 && r["half_wrong_codes"] == 0;
  const bool target = std::max(r["int16_s"], r["half_s"]) <= 0.16;
  char verdict[320];
  std::snprintf(verdict, sizeof verdict,
                "90112 x 165 triangle: f32 %.3f s, int16 %.3f s, half %.3f s (D2H floor for 2 B %.3f s, 4 B %.3f s); "
                "codes %s; target <= 0.16 s %s",
                r["f32_s"], r["int16_s"], r["half_s"], r["floor_2B_s"], r["floor_4B_s"],
                ok ? "checked" : "WRONG", target ? "met" : "MISSED");
  if (!markdown.empty()) {
    std::ofstream md(markdown);
    const std::string date = utc_date();
    md << "# Compact values (issue 32 item 2): the triangle in 2 bytes a pair\n\n"
       << "Generated by `scripts/gpu-steps/compact.sh` (bench/gpu/bench_gpu_compact.cpp).\n\n"
       << "- device: " << prop.name << "; date: " << date << "\n"
       << "- shape: N = " << kN << ", T = " << kT << " (bench_gpu_pcc's seeded data), " << pairs
       << " pairs, row order, FP32 products; one pinned output buffer (cudaHostAlloc) reused by every call\n"
       << "- seconds: median of " << reps << " calls; floors: best of 2 cudaMemcpy of device-resident bytes into the"
       << " same buffer (measured D2H " << r["d2h_gbps"] << " GB/s)\n"
       << "- codes checked at " << kSamples << " sampled pairs against this run's float triangle: int16 wrong "
       << r["int16_wrong_codes"] << " (max |decoded - r| " << r["int16_max_abs_error"] << ", bound 1.53e-5), half wrong "
       << r["half_wrong_codes"] << " (max " << r["half_max_abs_error"] << ", bound 2.44e-4)\n\n"
       << t.str() << "\n" << verdict << "\n\nAll numbers:\n\n```\n";
    for (const auto& [k, v] : r) md << k << " = " << v << "\n";
    md << "```\n";
  }
  std::cout << "compact: " << verdict << "\n";
  return ok ? 0 : 1;
}
