// GPU benchmark of dynamic connectivity (issue 10) at the GPU-DFC paper's shapes, each case next
// to its floor measured in the same run (seeded structured data of bench_data.hpp):
//   graphs    N = 30,697, T = 257, w = 150, s = 1 (108 windows): every window's CSR graph on the
//             host at r >= 0.7 and at |r| >= 0.7            target <= 1.5 x the windows' GEMMs alone
//   triangles N = 5,000, T = 200, w = 50, s = 1 (151 windows) into pinned host memory
//                                                           target <= 1.15 x the D2H floor of the bytes
//             and N = 500 (per-window overheads, not the GEMM, dominate: the windows are batched)
//   lowrank   N = 30,697, T = 257, w = 150, rank 50, every window's factor    target <= 0.2 s
//   degree    N = 90,112, T = 1,200, w = 100, s = 10 (111 windows), |r| >= 0.5
//                                                           target <= 1.3 x the windows' GEMMs alone
// "The windows' GEMMs alone" is cuBLAS alone over one window's triangle bands (gemm_alone.hpp, the
// backend's own tiles) on that window's normalized rows, times the window count: every window has
// the same shape, so the sum of W passes is W times one pass (median of reps).
//
//   bench_gpu_dfc [--cases graphs,triangles,lowrank,degree] [--torch JSON] [--markdown FILE] [--reps R]
//   bench_gpu_dfc --write-data DIR      writes each case's data (N x T float32, row-major) for
//                                       torch_dfc_baseline.py and exits
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "backend/cuda/band_plan.hpp"
#include "api/handles.hpp"
#include "bench_data.hpp"
#include "bench_util.hpp"
#include "fastconn/fastconn.h"
#include "gemm_alone.hpp"

namespace {

using namespace fcbench;

struct Shape {
  const char* name;
  int64_t n, t, w, s;
};
const Shape kGraphs{"graphs", 30697, 257, 150, 1};
const Shape kTriangles{"triangles", 5000, 200, 50, 1};
const Shape kSmall{"triangles_small", 500, 200, 50, 1};
const Shape kDegree{"degree", 90112, 1200, 100, 10};
constexpr int64_t kRank = 50;
constexpr double kGraphThreshold = 0.7, kDegreeThreshold = 0.5;

std::vector<float> data_of(const Shape& sh) { return structured_data(sh.n, sh.t, 20261124 + uint64_t(sh.n)); }

// One window's columns [begin, begin + w) of n x t rows, as its own n x w matrix.
std::vector<float> window_of(const std::vector<float>& x, int64_t n, int64_t t, int64_t begin, int64_t w) {
  std::vector<float> y(static_cast<size_t>(n * w));
  for (int64_t i = 0; i < n; ++i) std::copy(x.begin() + i * t + begin, x.begin() + i * t + begin + w, y.begin() + i * w);
  return y;
}

// Seconds of the windows' GEMMs alone: W x one window's pass (median of reps), and its TFLOP/s.
std::pair<double, double> gemms_alone(const std::vector<float>& x, const Shape& sh, int reps) {
  const int64_t windows = fc_window_count(sh.t, sh.w, sh.s);
  GemmAlone gemm(window_of(x, sh.n, sh.t, 0, sh.w), sh.n, sh.w, fc::cuda::max_tile_values());
  std::vector<double> t;
  gemm.once();
  for (int k = 0; k < std::max(reps, 3); ++k) t.push_back(gemm.once());
  const double one = median(t);
  return {one * double(windows), gemm.tflops(one)};
}

struct Context {
  fc_context* ctx = nullptr;
  fc_series* s = nullptr;
  Context(const std::vector<float>& x, const Shape& sh) {
    fc_ok(fc_context_create(FC_BACKEND_CUDA, 0, &ctx), "fc_context_create(CUDA)");
    fc_ok(fc_series_create_f32(ctx, x.data(), sh.n, sh.t, sh.t, 1, &s), "fc_series_create_f32");
  }
  ~Context() {
    fc_series_destroy(s);
    fc_context_destroy(ctx);
  }
};

// Every window's storage made by the backend alone (create_window: the window normalized on the
// device), timed over all windows.
struct Windows {
  std::vector<std::unique_ptr<fc::SeriesStorage>> storage;
  std::vector<fc::SeriesView> views;
  double seconds = 0;
  Windows(const Context& c, const Shape& sh, int64_t windows) {
    fc::Backend& backend = *c.ctx->state->backend;
    const fc::SeriesView v = c.s->data->view();
    fc::Progress progress(nullptr, nullptr, 1);
    const fc::RunSettings run = c.ctx->state->run_settings(progress);
    std::vector<uint8_t> constant(static_cast<size_t>(sh.n));
    const double t0 = now();
    for (int64_t k = 0; k < windows; ++k) {
      storage.push_back(backend.create_window(v, k * sh.s, sh.w, nullptr, constant.data(), run));
      fc::SeriesView w;
      w.n = sh.n;
      w.t = sh.w;
      w.precision = v.precision;
      w.storage = storage.back().get();
      views.push_back(w);
    }
    seconds = now() - t0;
  }
};

struct Row {
  std::string what, value, floor, ratio, target;
};

// "<= 1.5 x: met" or ": missed", from the unrounded value.
std::string verdict(double value, double bound, const std::string& target) {
  return target + (value <= bound ? ": met" : ": missed");
}

std::string fmt(double v, int precision = 3) {
  std::ostringstream o;
  o << std::fixed << std::setprecision(precision) << v;
  return o.str();
}

void run_graphs(std::vector<Row>& rows, std::map<std::string, double>& r, int reps) {
  const Shape& sh = kGraphs;
  const std::vector<float> x = data_of(sh);
  const auto [gemm_s, tflops] = gemms_alone(x, sh, reps);
  r["graphs_gemm_s"] = gemm_s;
  Context c(x, sh);
  int64_t windows = 0;
  for (const auto& [rule, label] : {std::pair<fc_edge_rule, std::string>{FC_EDGE_THRESHOLD, "r >= 0.7"},
                                    std::pair<fc_edge_rule, std::string>{FC_EDGE_ABS_THRESHOLD, "|r| >= 0.7"}}) {
    double edges = 0;
    const double seconds = timed(reps, [&] {
      fc_dfc* dfc = nullptr;
      fc_ok(fc_dfc_begin(c.ctx, c.s, sh.w, sh.s, FC_TAPER_RECTANGULAR, 0, &dfc), "fc_dfc_begin");
      edges = 0;
      windows = 0;
      for (;;) {
        fc_graph* g = nullptr;
        const fc_status st = fc_dfc_next_graph(dfc, rule, kGraphThreshold, FC_GRAPH_WEIGHTED, &g, nullptr);
        if (st == FC_DONE) break;
        fc_ok(st, "fc_dfc_next_graph");
        int64_t e = 0;
        fc_ok(fc_graph_info(g, nullptr, &e), "fc_graph_info");
        edges += double(e);
        ++windows;
        fc_graph_destroy(g);
      }
      fc_dfc_destroy(dfc);
    });
    const std::string key = rule == FC_EDGE_THRESHOLD ? "graphs_signed" : "graphs_abs";
    r[key + "_s"] = seconds;
    r[key + "_edges_per_window"] = edges / double(windows);
    // What the output alone costs: each window's CSR (2 x edges columns and weights, the
    // offsets) copied device to host, into pinned memory and into pageable memory already mapped
    // (what a graph's reused arrays are), window after window.
    const size_t csr_bytes = static_cast<size_t>(2 * edges / double(windows)) * 12 + size_t(sh.n + 1) * 8;
    void* device = nullptr;
    void* pinned = nullptr;
    cuda_ok(cudaMalloc(&device, csr_bytes), "cudaMalloc (CSR floor)");
    cuda_ok(cudaMemset(device, 1, csr_bytes), "cudaMemset");
    cuda_ok(cudaMallocHost(&pinned, csr_bytes), "cudaMallocHost (CSR floor)");
    std::vector<char> pageable(csr_bytes, 1);
    auto copies = [&](void* dst) {
      return timed(reps, [&] {
        for (int64_t k = 0; k < windows; ++k) cuda_ok(cudaMemcpy(dst, device, csr_bytes, cudaMemcpyDeviceToHost), "cudaMemcpy D2H");
      });
    };
    const double pinned_s = copies(pinned), pageable_s = copies(pageable.data());
    cudaFreeHost(pinned);
    cudaFree(device);
    r[key + "_csr_d2h_pinned_s"] = pinned_s;
    r[key + "_csr_d2h_pageable_s"] = pageable_s;
    rows.push_back({"graphs, " + std::to_string(windows) + " windows, " + label + " (" + fmt(edges / double(windows) / 1e6, 2) +
                        " M edges a window, CSR in host memory)",
                    fmt(seconds) + " s",
                    fmt(gemm_s) + " s (GEMMs alone, " + fmt(tflops, 1) + " TFLOP/s); the CSRs' D2H alone " + fmt(pinned_s) +
                        " s pinned, " + fmt(pageable_s) + " s pageable (" + fmt(double(csr_bytes) * windows / 1e9, 1) + " GB)",
                    fmt(seconds / gemm_s, 2) + " x", verdict(seconds / gemm_s, 1.5, "<= 1.5 x")});
  }
}

void run_triangles(const Shape& sh, std::vector<Row>& rows, std::map<std::string, double>& r, int reps) {
  const std::vector<float> x = data_of(sh);
  const int64_t windows = fc_window_count(sh.t, sh.w, sh.s), pairs = fc_triu_size(sh.n);
  const size_t bytes = static_cast<size_t>(windows * pairs) * sizeof(float);
  float* pinned = nullptr;
  cuda_ok(cudaMallocHost(reinterpret_cast<void**>(&pinned), bytes), "cudaMallocHost (output)");
  std::fill(pinned, pinned + windows * pairs, 0.0f);  // touched once, outside the timing
  // The floor: the same bytes from device memory into this pinned output, in 1 GiB copies.
  const size_t chunk = std::min<size_t>(bytes, size_t(1) << 30);
  void* device = nullptr;
  cuda_ok(cudaMalloc(&device, chunk), "cudaMalloc (floor)");
  cuda_ok(cudaMemset(device, 0, chunk), "cudaMemset");
  const double floor_s = timed(reps, [&] {
    for (size_t off = 0; off < bytes; off += chunk)
      cuda_ok(cudaMemcpy(reinterpret_cast<char*>(pinned) + off, device, std::min(chunk, bytes - off), cudaMemcpyDeviceToHost),
              "cudaMemcpy D2H");
  });
  cudaFree(device);
  Context c(x, sh);
  const double seconds = timed(reps, [&] {
    fc_ok(fc_dfc_triu(c.ctx, c.s, sh.w, sh.s, FC_TAPER_RECTANGULAR, 0, FC_TRIU_ROW, pinned, windows * pairs), "fc_dfc_triu");
  });
  const auto [gemm_s, tflops] = gemms_alone(x, sh, reps);
  (void)tflops;
  const double windows_s = Windows(c, sh, windows).seconds;
  r[std::string(sh.name) + "_s"] = seconds;
  r[std::string(sh.name) + "_d2h_floor_s"] = floor_s;
  r[std::string(sh.name) + "_windows_alone_s"] = windows_s;
  rows.push_back({std::string("triangles, N = ") + std::to_string(sh.n) + ", " + std::to_string(windows) +
                      " windows into pinned memory (" + fmt(double(bytes) / 1e9, 2) + " GB)",
                  fmt(seconds, 4) + " s",
                  fmt(floor_s, 4) + " s (D2H at " + fmt(double(bytes) / floor_s / 1e9, 1) + " GB/s); GEMMs alone " +
                      fmt(gemm_s, 4) + " s; windows made alone " + fmt(windows_s, 4) + " s",
                  fmt(seconds / floor_s, 2) + " x", verdict(seconds / floor_s, 1.15, "<= 1.15 x")});
  cudaFreeHost(pinned);
}

void run_lowrank(std::vector<Row>& rows, std::map<std::string, double>& r, int reps) {
  const Shape& sh = kGraphs;
  const std::vector<float> x = data_of(sh);
  const int64_t windows = fc_window_count(sh.t, sh.w, sh.s);
  std::vector<float> factors(static_cast<size_t>(windows * sh.n * kRank));
  std::vector<double> err(static_cast<size_t>(windows));
  Context c(x, sh);
  const double seconds = timed(reps, [&] {
    fc_ok(fc_dfc_lowrank(c.ctx, c.s, sh.w, sh.s, FC_TAPER_RECTANGULAR, 0, kRank, factors.data(),
                         static_cast<int64_t>(factors.size()), err.data()),
          "fc_dfc_lowrank");
  });
  // Where the time goes: the backend's steps for every window, each timed over all windows
  // (create_window, gram, project with a fixed basis); the rest of fc_dfc_lowrank is the host's
  // eigenproblems and bookkeeping.
  double create_s = 0, gram_s = 0, project_s = 0;
  {
    fc::Backend& backend = *c.ctx->state->backend;
    fc::Progress progress(nullptr, nullptr, 1);
    const fc::RunSettings run = c.ctx->state->run_settings(progress);
    std::vector<double> gram(static_cast<size_t>(sh.w * sh.w)), basis(static_cast<size_t>(sh.w * kRank), 0.01);
    const Windows made(c, sh, windows);
    const std::vector<fc::SeriesView>& views = made.views;
    create_s = made.seconds;
    double t0 = now();
    for (int64_t k = 0; k < windows; ++k) backend.gram(views[static_cast<size_t>(k)], gram.data(), run);
    gram_s = now() - t0;
    t0 = now();
    for (int64_t k = 0; k < windows; ++k)
      backend.project(views[static_cast<size_t>(k)], basis.data(), kRank, factors.data() + k * sh.n * kRank, run);
    project_s = now() - t0;
  }
  r["lowrank_create_windows_s"] = create_s;
  r["lowrank_gram_s"] = gram_s;
  r["lowrank_project_s"] = project_s;
  double mean_err = 0, max_err = 0;
  for (double e : err) {
    mean_err += e / double(windows);
    max_err = std::max(max_err, e);
  }
  const double ratio = double(fc_triu_size(sh.n)) / double(sh.n * kRank);
  r["lowrank_s"] = seconds;
  r["lowrank_mean_rel_error"] = mean_err;
  rows.push_back({"low rank, " + std::to_string(windows) + " windows, rank 50 (relative Frobenius error mean " + fmt(mean_err, 4) +
                      ", max " + fmt(max_err, 4) + "; " + fmt(ratio, 0) + " x fewer numbers than the triangle)",
                  fmt(seconds, 4) + " s",
                  "(the paper: 125.8 s); steps alone: windows " + fmt(create_s, 4) + " s, Gram " + fmt(gram_s, 4) +
                      " s, projections " + fmt(project_s, 4) + " s",
                  "", verdict(seconds, 0.2, "<= 0.2 s")});
}

void run_degree(std::vector<Row>& rows, std::map<std::string, double>& r, int reps) {
  const Shape& sh = kDegree;
  const std::vector<float> x = data_of(sh);
  const int64_t windows = fc_window_count(sh.t, sh.w, sh.s);
  const auto [gemm_s, tflops] = gemms_alone(x, sh, reps);
  std::vector<int64_t> degree(static_cast<size_t>(windows * sh.n));
  std::vector<double> strength(degree.size());
  Context c(x, sh);
  const double seconds = timed(reps, [&] {
    fc_ok(fc_dfc_degree(c.ctx, c.s, sh.w, sh.s, FC_TAPER_RECTANGULAR, 0, FC_EDGE_ABS_THRESHOLD, kDegreeThreshold, degree.data(),
                        strength.data()),
          "fc_dfc_degree");
  });
  double mean_degree = 0;
  for (int64_t d : degree) mean_degree += double(d) / double(degree.size());
  r["degree_s"] = seconds;
  r["degree_gemm_s"] = gemm_s;
  rows.push_back({"time-resolved degree, N = 90,112, " + std::to_string(windows) + " windows, |r| >= 0.5 (mean degree " +
                      fmt(mean_degree, 0) + ")",
                  fmt(seconds) + " s", fmt(gemm_s) + " s (GEMMs alone, " + fmt(tflops, 1) + " TFLOP/s)",
                  fmt(seconds / gemm_s, 2) + " x", verdict(seconds / gemm_s, 1.3, "<= 1.3 x")});
}

}  // namespace

int main(int argc, char** argv) {
  std::string torch_json, markdown, write_dir, cases = "graphs,triangles,lowrank,degree";
  int reps = 3;
  for (int k = 1; k < argc; ++k) {
    const std::string a = argv[k];
    auto value = [&] { return k + 1 < argc ? std::string(argv[++k]) : (die("missing value of " + a), std::string()); };
    if (a == "--torch") torch_json = value();
    else if (a == "--markdown") markdown = value();
    else if (a == "--reps") reps = std::atoi(value().c_str());
    else if (a == "--cases") cases = value();
    else if (a == "--write-data") write_dir = value();
    else die("unknown argument " + a);
  }
  if (!write_dir.empty()) {
    for (const Shape* sh : {&kGraphs, &kTriangles, &kSmall, &kDegree}) {
      const std::vector<float> x = data_of(*sh);
      const std::string path = write_dir + "/" + sh->name + ".f32";
      std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(x.data()), std::streamsize(x.size() * 4));
      std::cout << path << " " << sh->n << " " << sh->t << " " << sh->w << " " << sh->s << "\n";
    }
    return 0;
  }
  auto wanted = [&](const std::string& c) { return ("," + cases + ",").find("," + c + ",") != std::string::npos; };
  cudaDeviceProp prop;
  cuda_ok(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  std::cout << "device: " << prop.name << "\n";
  std::vector<Row> rows;
  std::map<std::string, double> r;
  if (wanted("graphs")) run_graphs(rows, r, reps);
  if (wanted("triangles")) {
    run_triangles(kTriangles, rows, r, reps);
    run_triangles(kSmall, rows, r, reps);
  }
  if (wanted("lowrank")) run_lowrank(rows, r, reps);
  if (wanted("degree")) run_degree(rows, r, reps);

  // PyTorch: the plain loop a user would write (torch_dfc_baseline.py), its JSON read back.
  if (!torch_json.empty()) {
    const std::string json = read_file(torch_json);
    const std::vector<std::pair<std::string, std::string>> peers = {
        {"graphs_signed", "graphs, r >= 0.7"}, {"graphs_abs", "graphs, |r| >= 0.7"},
        {"triangles", "triangles N = 5,000"},  {"triangles_small", "triangles N = 500"},
        {"lowrank", "randomized low rank (range finder + QR + B = Q^T C)"}, {"degree", "time-resolved degree"}};
    for (const auto& [key, label] : peers) {
      const double torch_s = json_number(json, key + "_s");
      if (std::isnan(torch_s)) continue;
      if (!r.count(key + "_s")) continue;  // a case left out by --cases: no row to compare with
      const double ours = r[key + "_s"];
      rows.push_back({"PyTorch loop: " + label, fmt(torch_s, 4) + " s", "fastconn " + fmt(ours, 4) + " s",
                      fmt(ours / torch_s, 3) + " x",
                      ours < torch_s ? "fastconn faster: met" : "fastconn faster: MISSED"});
    }
  }

  std::ostringstream table;
  table << "| dfc measurement | time | floor / peer | ratio | target |\n|---|---:|---|---:|---|\n";
  for (const Row& row : rows) table << "| " << row.what << " | " << row.value << " | " << row.floor << " | " << row.ratio << " | " << row.target << " |\n";
  std::cout << "\n" << table.str();
  if (!markdown.empty()) {
    std::ofstream md(markdown);
    md << "## Dynamic connectivity (bench/gpu/bench_gpu_dfc.cpp)\n\nDevice: " << prop.name << ", median of " << reps
       << " runs after a warm-up; FP32; outputs into host memory.\n\n"
       << table.str();
  }
  return 0;
}
