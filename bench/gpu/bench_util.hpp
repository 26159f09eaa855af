// Host-side helpers shared by the GPU benchmarks (bench_gpu_pcc, bench_gpu_graph): fatal checks
// of CUDA and fastconn calls, a wall clock, medians, and reading the PyTorch baselines' JSON.
#pragma once

#include <cuda_runtime_api.h>
#include <errno.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "fastconn/fastconn.h"

namespace fcbench {

[[noreturn]] inline void die(const std::string& what) {
  std::cerr << program_invocation_short_name << ": " << what << "\n";
  std::exit(1);
}
inline void cuda_ok(cudaError_t e, const char* what) {
  if (e != cudaSuccess) die(std::string(what) + ": " + cudaGetErrorString(e));
}
inline void fc_ok(fc_status s, const char* what) {
  if (s != FC_OK) die(std::string(what) + ": " + fc_status_string(s) + ": " + fc_last_error());
}

inline double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? NAN : v[v.size() / 2];
}

// Median seconds of `reps` calls of f (after one warm-up call).
template <class F>
double timed(int reps, F&& f) {
  f();
  std::vector<double> t;
  for (int k = 0; k < reps; ++k) {
    const double t0 = now();
    f();
    t.push_back(now() - t0);
  }
  return median(t);
}

// Seconds the device takes for what f enqueues on the default stream (events around it).
template <class F>
double device_seconds(F&& f) {
  cudaEvent_t e0, e1;
  cuda_ok(cudaEventCreate(&e0), "cudaEventCreate");
  cuda_ok(cudaEventCreate(&e1), "cudaEventCreate");
  cuda_ok(cudaEventRecord(e0), "cudaEventRecord");
  f();
  cuda_ok(cudaEventRecord(e1), "cudaEventRecord");
  cuda_ok(cudaEventSynchronize(e1), "cudaEventSynchronize");
  float ms = 0;
  cuda_ok(cudaEventElapsedTime(&ms, e0, e1), "cudaEventElapsedTime");
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  return ms / 1e3;
}

// Seconds of one device-to-host cudaMemcpy of `bytes` (into pinned memory, for the floor of an
// output's copy): the best of `tries`, timed with events.
inline double d2h_seconds(void* host, const void* device, size_t bytes, int tries = 2) {
  cudaEvent_t e0, e1;
  cuda_ok(cudaEventCreate(&e0), "event");
  cuda_ok(cudaEventCreate(&e1), "event");
  double best = INFINITY;
  for (int k = 0; k < tries; ++k) {
    cuda_ok(cudaEventRecord(e0), "record");
    cuda_ok(cudaMemcpy(host, device, bytes, cudaMemcpyDeviceToHost), "D2H");
    cuda_ok(cudaEventRecord(e1), "record");
    cuda_ok(cudaEventSynchronize(e1), "sync");
    float ms = 0;
    cuda_ok(cudaEventElapsedTime(&ms, e0, e1), "elapsed");
    best = std::min(best, ms / 1e3);
  }
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  return best;
}

// The current UTC date and time, as the results files print it ("2026-11-27 10:07 UTC").
inline std::string utc_date() {
  const std::time_t now_t = std::time(nullptr);
  char date[64];
  std::strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", std::gmtime(&now_t));
  return date;
}

inline std::string read_file(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// The number after "key": in a flat JSON object (the torch baselines' output).
inline double json_number(const std::string& json, const std::string& key) {
  const size_t at = json.find("\"" + key + "\"");
  if (at == std::string::npos) return NAN;
  return std::atof(json.c_str() + json.find(':', at) + 1);
}

}  // namespace fcbench
