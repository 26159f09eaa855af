// GPU benchmark of the network primitives at the seed papers' shape (N = 90,112, T = 165; the
// seeded data of bench_data.hpp), all in one run, each next to the cuBLAS GEMMs alone over the
// same triangle tiles:
//   threshold t chosen from the |r| histogram (abs_histogram) for ~1 % edge density
//   graph build: Backend::threshold_edges (edges on the host, row order)   target <= 1.5 x GEMMs
//   degree:      Backend::threshold_degree (degree and strength)           target <= 1.3 x GEMMs
//   the public fc_pcc_graph / fc_pcc_degree (CSR built on the host) when they run
//   PyTorch: block GEMM, mask, nonzero, edges to the host (torch_graph_baseline.py; its JSON)
//
// The table's GEMM, graph-build and degree times come from interleaved rounds (see 2b below); the
// same primitives run back to back, the graph build with each band's pass on the GEMM's stream
// (FASTCONN_CUDA_PASS_STREAMS=0), and the degree through cuBLAS tiles and a pass instead of the
// fused kernel (FASTCONN_CUDA_FUSED_DEGREE=0), are shown beside them.
//
//   bench_gpu_graph [--torch JSON] [--markdown FILE] [--reps R]
//   bench_gpu_graph --threshold-only FILE    writes the chosen t (for the PyTorch baseline) and exits
//   bench_gpu_graph --profile degree|edges   two calls of one primitive, for ncu (profile_graph.sh)
//   bench_gpu_graph --large N T EDGES [--markdown FILE]   fc_pcc_graph end to end vs the GEMMs (issue 11)
// FC_BENCH_TRACE=1 also prints the seconds of 8 consecutive graph builds into fresh output and
// 12 into one reused output (how host memory behaves under repeated 0.5 GB allocations).
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "backend/cuda/band_plan.hpp"
#include "bench_data.hpp"
#include "bench_util.hpp"
#include "gemm_alone.hpp"
#include "api/handles.hpp"
#include "fastconn/fastconn.h"

namespace {

using namespace fcbench;

constexpr int64_t kN = 90112, kT = 165;
constexpr double kDensity = 0.01;
// The pass-stream settings compared (FASTCONN_CUDA_PASS_STREAMS; cuda_graph.cpp): the default
// (a band's pass on a high-priority stream) first, then both steps on one stream.
const std::vector<std::string> modes = {"1", "0"};

// --large N T EDGES: issue 11's case, fc_pcc_graph end to end (symmetric CSR included) at a
// threshold keeping about EDGES edges, against the same run's cuBLAS SGEMMs alone over the
// triangle (target <= 2 x). Prints a table; appends it to `markdown` when given.
int large_case(int64_t n, int64_t t, int64_t want_edges, int reps, const std::string& markdown) {
  const std::vector<float> x = fcbench::structured_data(n, t, 20261124);
  const int64_t pairs = fc_triu_size(n);
  cudaDeviceProp prop;
  cuda_ok(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  fc_context* ctx = nullptr;
  fc_ok(fc_context_create(FC_BACKEND_CUDA, 0, &ctx), "fc_context_create(CUDA)");
  fc_series* s = nullptr;
  fc_ok(fc_series_create_f32(ctx, x.data(), n, t, t, 1, &s), "fc_series_create_f32");
  std::vector<int64_t> hist;
  {
    fc::Progress progress(nullptr, nullptr, pairs);
    ctx->state->backend->abs_histogram(s->data->view(), hist, ctx->state->run_settings(progress));
  }
  int64_t above = 0, bin = fc::kAbsHistogramBins - 1;
  for (; bin > 0 && above < want_edges; --bin) above += hist[static_cast<size_t>(bin)];
  const uint32_t bits = static_cast<uint32_t>(bin + 1) << fc::kAbsHistogramShift;
  float threshold;
  std::memcpy(&threshold, &bits, 4);
  int64_t edges = 0;
  // FASTCONN_TC_EDGES: "1" the tensor-core path (the default), "0" the FP32 tiles. keep: the
  // graph's edge list and weights, to compare the two paths.
  struct Edges {
    std::vector<int64_t> i, j;
    std::vector<float> w;
  };
  auto rule_graph = [&](fc_edge_rule rule, double param, Edges* keep) {
    fc_graph* g = nullptr;
    fc_ok(fc_pcc_graph(ctx, s, rule, param, FC_GRAPH_WEIGHTED, &g), "fc_pcc_graph");
    fc_ok(fc_graph_info(g, nullptr, &edges), "fc_graph_info");
    if (keep != nullptr) {
      keep->i.resize(static_cast<size_t>(edges));
      keep->j.resize(static_cast<size_t>(edges));
      keep->w.resize(static_cast<size_t>(edges));
      fc_ok(fc_graph_edges(g, keep->i.data(), keep->j.data(), keep->w.data(), edges), "fc_graph_edges");
    }
    fc_graph_destroy(g);
  };
  auto same = [](const Edges& a, const Edges& b) {
    return a.i == b.i && a.j == b.j && a.w.size() == b.w.size() &&
           std::memcmp(a.w.data(), b.w.data(), a.w.size() * sizeof(float)) == 0;
  };
  // One rule on both paths of a switch (`env` = "0": the plain path, "1": the default): the
  // default's first call timed, the two graphs compared edge for edge and bit for bit, then medians
  // of `reps` alternating calls of each.
  struct TwoPaths {
    double plain_s, fast_s, first_s;
    bool identical;
    int64_t edges;
  };
  auto two_paths = [&](const char* env, fc_edge_rule rule, double param) {
    TwoPaths r{};
    Edges plain, fast;
    setenv(env, "1", 1);
    const double t0 = now();
    rule_graph(rule, param, &fast);
    r.first_s = now() - t0;
    setenv(env, "0", 1);
    rule_graph(rule, param, &plain);
    r.identical = same(plain, fast);
    r.edges = edges;
    std::vector<double> plain_runs, fast_runs;
    for (int k = 0; k < reps; ++k) {  // alternating
      setenv(env, "0", 1);
      plain_runs.push_back(timed(1, [&] { rule_graph(rule, param, nullptr); }));
      setenv(env, "1", 1);
      fast_runs.push_back(timed(1, [&] { rule_graph(rule, param, nullptr); }));
    }
    unsetenv(env);
    r.plain_s = median(plain_runs);
    r.fast_s = median(fast_runs);
    return r;
  };
  // The threshold rule: the FP32 tiles (FASTCONN_TC_EDGES=0) against the tensor cores.
  const TwoPaths tc_run = two_paths("FASTCONN_TC_EDGES", FC_EDGE_ABS_THRESHOLD, threshold);
  const bool identical = tc_run.identical;
  const double first = tc_run.first_s, api_fp32 = tc_run.plain_s, api = tc_run.fast_s;
  // The density rule for the same count of edges: one pass at a guessed threshold (the default)
  // against the exact histogram's two passes (FASTCONN_DENSITY_GUESS=0); the same edges.
  const int64_t threshold_edges_count = tc_run.edges;
  const double density = (double(threshold_edges_count) - 0.5) / double(pairs);
  const TwoPaths density_run = two_paths("FASTCONN_DENSITY_GUESS", FC_EDGE_DENSITY, density);
  const bool density_identical = density_run.identical && density_run.edges == threshold_edges_count;
  const double density_exact = density_run.plain_s, density_guess = density_run.fast_s;
  // The top-k rule (each series' 10 strongest, symmetrized): the FP32 rows (FASTCONN_TC_TOPK=0)
  // against the candidates decided on tensor cores (the default); the same graph.
  constexpr int kTopK = 10;
  const TwoPaths topk_run = two_paths("FASTCONN_TC_TOPK", FC_EDGE_TOP_K, kTopK);
  const bool topk_identical = topk_run.identical;
  const int64_t topk_edges = topk_run.edges;
  const double topk_rows = topk_run.plain_s, topk_tc = topk_run.fast_s;
  edges = threshold_edges_count;
  double gemm_s = 0;
  {
    GemmAlone gemm(x, n, t, fc::cuda::max_tile_values());
    gemm.once();
    std::vector<double> g;
    for (int k = 0; k < reps; ++k) g.push_back(gemm.once());
    gemm_s = median(g);
  }
  fc_series_destroy(s);
  fc_context_destroy(ctx);
  std::ostringstream tab;
  char line[320];
  tab << "| N = " << n << ", T = " << t << ", |r| >= " << std::setprecision(7) << threshold << ": " << edges
      << " edges | seconds | ratio | target |\n|---|---:|---:|---|\n";
  std::snprintf(line, sizeof line, "| cuBLAS SGEMMs alone, the triangle's tiles | %.4f | | |\n", gemm_s);
  tab << line;
  std::snprintf(line, sizeof line, "| fc_pcc_graph, FP32 tiles (FASTCONN_TC_EDGES=0, median of %d) | %.4f | %.2f x GEMMs | |\n",
                reps, api_fp32, api_fp32 / gemm_s);
  tab << line;
  std::snprintf(line, sizeof line, "| fc_pcc_graph, symmetric CSR in host memory (tensor cores, the default; median of %d) | %.4f | %.2f x GEMMs, %.2f x FP32 | <= 2 x GEMMs: %s; edges %s the FP32 path's |\n",
                reps, api, api / gemm_s, api_fp32 / api, api <= 2 * gemm_s ? "met" : "MISSED",
                identical ? "identical to" : "DIFFER from");
  tab << line;
  std::snprintf(line, sizeof line, "| fc_pcc_graph, first call | %.4f | %.2f x GEMMs | |\n", first, first / gemm_s);
  tab << line;
  std::snprintf(line, sizeof line, "| fc_pcc_graph, density %.3g (the same edges), exact two passes (FASTCONN_DENSITY_GUESS=0) | %.4f | %.2f x GEMMs | |\n",
                density, density_exact, density_exact / gemm_s);
  tab << line;
  std::snprintf(line, sizeof line, "| fc_pcc_graph, density %.3g, one pass at a guessed threshold (the default) | %.4f | %.2f x GEMMs, %.2f x two passes | edges %s the two passes' |\n",
                density, density_guess, density_guess / gemm_s, density_exact / density_guess,
                density_identical ? "identical to" : "DIFFER from");
  tab << line;
  std::snprintf(line, sizeof line, "| fc_pcc_graph, top-%d (%lld edges), FP32 rows (FASTCONN_TC_TOPK=0) | %.4f | %.2f x GEMMs | |\n",
                kTopK, static_cast<long long>(topk_edges), topk_rows, topk_rows / gemm_s);
  tab << line;
  std::snprintf(line, sizeof line, "| fc_pcc_graph, top-%d, candidates on tensor cores (the default) | %.4f | %.2f x GEMMs, %.2f x FP32 rows | edges %s the FP32 rows' |\n",
                kTopK, topk_tc, topk_tc / gemm_s, topk_rows / topk_tc, topk_identical ? "identical to" : "DIFFER from");
  tab << line;
  std::cout << "device: " << prop.name << "\n" << tab.str();
  std::cout << "tc_graph n " << n << " t " << t << " edges " << edges << " fp32_s " << api_fp32 << " tc_s " << api
            << " identical " << (identical ? 1 : 0) << "\n";
  std::cout << "topk_graph n " << n << " t " << t << " k " << kTopK << " rows_s " << topk_rows << " tc_s " << topk_tc
            << " identical " << (topk_identical ? 1 : 0) << "\n";
  std::cout << "density_graph n " << n << " t " << t << " density " << density << " exact_s " << density_exact
            << " guess_s " << density_guess << " identical " << (density_identical ? 1 : 0) << "\n";
  if (!markdown.empty()) {
    std::ofstream md(markdown, std::ios::app);
    md << "\n### fc_pcc_graph at N = " << n << " (issue 11; bench_gpu_graph --large)\n\n- device: " << prop.name
       << "\n\n" << tab.str();
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string torch_json, markdown, threshold_out, profile;
  std::vector<int64_t> large;
  int reps = 3;
  for (int k = 1; k < argc; ++k) {
    const std::string a = argv[k];
    auto value = [&] { return k + 1 < argc ? std::string(argv[++k]) : (die("missing value of " + a), std::string()); };
    if (a == "--torch") torch_json = value();
    else if (a == "--markdown") markdown = value();
    else if (a == "--threshold-only") threshold_out = value();
    else if (a == "--reps") reps = std::atoi(value().c_str());
    else if (a == "--profile") profile = value();
    else if (a == "--large") {
      const int64_t n = std::atoll(value().c_str()), t = std::atoll(value().c_str()), e = std::atoll(value().c_str());
      large = {n, t, e};
    } else die("unknown argument " + a);
  }
  if (!large.empty()) return large_case(large[0], large[1], large[2], reps, markdown);
  const std::vector<float> x = fcbench::structured_data(kN, kT, 20251122);
  const int64_t pairs = fc_triu_size(kN);
  cudaDeviceProp prop;
  cuda_ok(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  std::map<std::string, double> r;
  std::cout << "device: " << prop.name << "\nN = " << kN << ", T = " << kT << ", pairs = " << pairs << "\n";

  fc_context* ctx = nullptr;
  fc_ok(fc_context_create(FC_BACKEND_CUDA, 0, &ctx), "fc_context_create(CUDA)");
  fc_series* s = nullptr;
  fc_ok(fc_series_create_f32(ctx, x.data(), kN, kT, kT, 1, &s), "fc_series_create_f32");
  fc::Backend& backend = *ctx->state->backend;
  const fc::SeriesView view = s->data->view();
  auto with_run = [&](int64_t total, auto&& f) {
    fc::Progress progress(nullptr, nullptr, total);
    const fc::RunSettings run = ctx->state->run_settings(progress);
    f(run);
  };

  // 1. The threshold for ~1 % density, from the histogram (exact: bins are float bit patterns).
  std::vector<int64_t> hist;
  r["histogram_s"] = timed(1, [&] { with_run(pairs, [&](const fc::RunSettings& run) { backend.abs_histogram(view, hist, run); }); });
  const int64_t want = static_cast<int64_t>(std::ceil(kDensity * double(pairs)));
  int64_t above = 0, bin = fc::kAbsHistogramBins - 1;
  for (; bin > 0; --bin) {
    above += hist[static_cast<size_t>(bin)];
    if (above >= want) break;
  }
  const uint32_t bits = static_cast<uint32_t>(bin) << fc::kAbsHistogramShift;
  float t;
  std::memcpy(&t, &bits, 4);
  r["threshold"] = t;
  r["expected_edges"] = double(above);
  if (!threshold_out.empty()) {
    std::ofstream(threshold_out) << std::setprecision(9) << t << "\n";
    std::cout << "threshold " << t << " (" << above << " pairs at or above)\n";
    fc_series_destroy(s);
    fc_context_destroy(ctx);
    return 0;
  }
  const fc::EdgeTest test{true, t};
  // --profile degree|edges: two calls of one primitive and nothing else, for ncu.
  if (!profile.empty()) {
    std::vector<int64_t> deg(kN);
    fc::UpperEdges e;
    for (int k = 0; k < 2; ++k)
      with_run(pairs, [&](const fc::RunSettings& run) {
        if (profile == "degree") backend.threshold_degree(view, test, deg.data(), nullptr, run);
        else backend.threshold_edges(view, test, e, run);
      });
    fc_series_destroy(s);
    fc_context_destroy(ctx);
    return 0;
  }

  // 2. Degree, then the edges (fresh output each time, and into a reused one), back to back:
  //    reps runs of each after a warm-up.
  std::vector<int64_t> degree(kN);
  std::vector<double> strength(kN), strength2(kN), tiled_strength(kN);
  std::vector<int64_t> tiled_degree(kN);
  r["b2b_degree_s"] = timed(reps, [&] {
    with_run(pairs, [&](const fc::RunSettings& run) { backend.threshold_degree(view, test, degree.data(), strength.data(), run); });
  });
  with_run(pairs, [&](const fc::RunSettings& run) { backend.threshold_degree(view, test, degree.data(), strength2.data(), run); });
  r["degree_bit_identical"] = std::memcmp(strength.data(), strength2.data(), kN * sizeof(double)) == 0;
  int64_t degree_sum = 0;
  for (int64_t d : degree) degree_sum += d;
  r["degree_edges"] = double(degree_sum / 2);

  int64_t edges = 0;
  r["b2b_edges_fresh_s"] = timed(reps, [&] {
    fc::UpperEdges e;
    with_run(pairs, [&](const fc::RunSettings& run) { backend.threshold_edges(view, test, e, run); });
    edges = static_cast<int64_t>(e.columns.size());
  });
  fc::UpperEdges reused;
  if (std::getenv("FC_BENCH_TRACE") != nullptr) {  // diagnostic: each call's seconds, fresh and reused
    for (int k = 0; k < 8; ++k) {
      fc::UpperEdges e;
      const double t0 = now();
      with_run(pairs, [&](const fc::RunSettings& run) { backend.threshold_edges(view, test, e, run); });
      std::cout << "trace fresh " << k << " " << now() - t0 << "\n";
    }
    fc::UpperEdges again;
    for (int k = 0; k < 12; ++k) {
      const double t0 = now();
      with_run(pairs, [&](const fc::RunSettings& run) { backend.threshold_edges(view, test, again, run); });
      std::cout << "trace reused " << k << " " << now() - t0 << " capacity " << again.columns.capacity() << "\n";
    }
  }
  r["b2b_edges_reused_s"] = timed(reps, [&] {
    with_run(pairs, [&](const fc::RunSettings& run) { backend.threshold_edges(view, test, reused, run); });
  });
  r["edges"] = double(edges);
  r["density"] = double(edges) / double(pairs);
  // 2b. The table's numbers: rounds of { GEMMs alone, degree, edges into fresh output, edges into
  //     reused output, then degree and reused edges with the pass on the GEMM's stream }, medians
  //     over the rounds after a warm-up round. Interleaving puts every row under the same clock,
  //     temperature and host load, which drift over a run (the back-to-back rows above have moved
  //     by 30 % between runs on the host-bound edge copies; these rounds by a few %).
  {
    GemmAlone gemm(x, kN, kT, fc::cuda::max_tile_values());
    std::map<std::string, std::vector<double>> rounds;
    auto time_it = [&](const std::string& key, auto&& f) {
      const double t0 = now();
      f();
      rounds[key].push_back(now() - t0);
    };
    for (int round = 0; round <= reps + 6; ++round) {  // round 0: warm-up
      // The GEMMs alone first in even rounds, last in odd ones: what runs just before a
      // measurement (seen: ~8 % on the degree pass right after the GEMMs alone) hits all rows alike.
      if (round % 2 == 0) rounds["gemm_s"].push_back(gemm.once());
      for (const std::string& mode : modes) {
        setenv("FASTCONN_CUDA_PASS_STREAMS", mode.c_str(), 1);
        const std::string tag = mode == "1" ? "" : "mode0_";
        if (mode == "1") {
          time_it("degree_s", [&] {
            with_run(pairs, [&](const fc::RunSettings& run) { backend.threshold_degree(view, test, degree.data(), strength2.data(), run); });
          });
          // The tiled path the fused kernel replaced: cuBLAS tiles, then the degree pass.
          setenv("FASTCONN_CUDA_FUSED_DEGREE", "0", 1);
          time_it("tiled_degree_s", [&] {
            with_run(pairs, [&](const fc::RunSettings& run) {
              backend.threshold_degree(view, test, tiled_degree.data(), tiled_strength.data(), run);
            });
          });
          unsetenv("FASTCONN_CUDA_FUSED_DEGREE");
        }
        if (mode == "1")
          time_it("edges_fresh_s", [&] {
            fc::UpperEdges e;
            with_run(pairs, [&](const fc::RunSettings& run) { backend.threshold_edges(view, test, e, run); });
          });
        time_it(tag + "edges_reused_s", [&] {
          with_run(pairs, [&](const fc::RunSettings& run) { backend.threshold_edges(view, test, reused, run); });
        });
      }
      if (round % 2 == 1) rounds["gemm_s"].push_back(gemm.once());
    }
    for (auto& [k, v] : rounds) {
      const std::vector<double> kept(v.begin() + 1, v.end());
      r[k] = median(kept);
      r[k + "_range"] = *std::max_element(kept.begin(), kept.end()) - *std::min_element(kept.begin(), kept.end());
    }
    r["gemm_tflops"] = gemm.tflops(r["gemm_s"]);
    r["degree_tflops"] = gemm.tflops(r["degree_s"]);  // the fused kernel's products, as a GEMM rate
    r["bands"] = double(gemm.bands());
  }
  unsetenv("FASTCONN_CUDA_PASS_STREAMS");
  with_run(pairs, [&](const fc::RunSettings& run) { backend.threshold_edges(view, test, reused, run); });
  // Degree equals the row sums of the edges.
  {
    std::vector<int64_t> d(kN, 0);
    int64_t at = 0;
    for (int64_t i = 0; i < kN; ++i)
      for (int64_t k = 0; k < reused.row_count[i]; ++k, ++at) ++d[i], ++d[reused.columns[at]];
    // The fused degree's r may differ from the tiles' by an ulp (kernels/fused_degree.cu): a
    // series whose degree differs has a pair at the threshold itself.
    r["degree_matches_edges"] = d == degree;
    int64_t differ = 0;
    for (int64_t i = 0; i < kN; ++i) differ += d[i] != degree[i] ? 1 : 0;
    r["degree_differs_from_edges_series"] = double(differ);
    // The fused kernel's products are cuBLAS's bits: the same degrees as the tiled path, and
    // strengths that differ only by the rounding of their sums.
    r["fused_matches_tiled"] = tiled_degree == degree;
    double worst = 0.0;
    for (int64_t i = 0; i < kN; ++i)
      worst = std::max(worst, std::fabs(strength2[i] - tiled_strength[i]) / (1.0 + std::fabs(tiled_strength[i])));
    r["fused_strength_max_rel_diff"] = worst;
  }

  // 3. The public API (CSR on the host), when it runs on this build.
  {
    fc_graph* g = nullptr;
    const double t0 = now();
    const fc_status st = fc_pcc_graph(ctx, s, FC_EDGE_ABS_THRESHOLD, t, FC_GRAPH_WEIGHTED, &g);
    if (st == FC_OK) {
      r["api_graph_first_s"] = now() - t0;
      fc_graph_destroy(g);
      r["api_graph_s"] = timed(reps - 1, [&] {
        fc_graph* h = nullptr;
        fc_ok(fc_pcc_graph(ctx, s, FC_EDGE_ABS_THRESHOLD, t, FC_GRAPH_WEIGHTED, &h), "fc_pcc_graph");
        fc_graph_destroy(h);
      });
      r["api_degree_s"] = timed(reps, [&] {
        fc_ok(fc_pcc_degree(ctx, s, FC_EDGE_ABS_THRESHOLD, t, degree.data(), strength.data()), "fc_pcc_degree");
      });
    } else {
      std::cout << "fc_pcc_graph: " << fc_status_string(st) << ": " << fc_last_error() << " (API rows skipped)\n";
    }
  }

  fc_series_destroy(s);
  fc_context_destroy(ctx);

  double torch_s = NAN;
  if (!torch_json.empty()) {
    const std::string j = read_file(torch_json);
    torch_s = json_number(j, "total_s");
    r["torch_graph_s"] = torch_s;
    r["torch_edges"] = json_number(j, "edges");
    r["torch_gemm_s"] = json_number(j, "gemm_only_s");
  }

  for (const auto& [k, v] : r) std::cout << "  " << k << " = " << v << "\n";
  const double g = r["gemm_s"];
  std::ostringstream tab;
  char line[256];
  auto row = [&](const char* what, double sec, const std::string& vs, const std::string& target) {
    std::snprintf(line, sizeof line, "| %-46s | %8.4f | %-24s | %-16s |\n", what, sec, vs.c_str(), target.c_str());
    tab << line;
  };
  // limit 0: a ratio shown for information, with no target and so no verdict
  auto ratio = [](double a, double b, double limit) {
    char s[64];
    std::snprintf(s, sizeof s, "%.2f x %s", a / b, limit <= 0 ? "" : a <= limit * b ? "(met)" : "(MISSED)");
    return std::string(s);
  };
  tab << "| graph measurement | seconds | ratio | target |\n|---|---:|---|---|\n";
  row("cuBLAS SGEMMs alone, the triangle's tiles", g, "", "");
  row("graph build (threshold_edges), fresh output", r["edges_fresh_s"], ratio(r["edges_fresh_s"], g, 1.5) + " GEMMs", "<= 1.5 x GEMMs");
  row("graph build (threshold_edges), reused output", r["edges_reused_s"], ratio(r["edges_reused_s"], g, 1.5) + " GEMMs", "<= 1.5 x GEMMs");
  row("degree + strength (threshold_degree)", r["degree_s"], ratio(r["degree_s"], g, 1.3) + " GEMMs", "<= 1.3 x GEMMs");
  row("|r| histogram (abs_histogram)", r["histogram_s"], ratio(r["histogram_s"], g, 0) + " GEMMs", "");
  if (r.count("api_graph_s")) {
    row("fc_pcc_graph (symmetric CSR, host memory)", r["api_graph_s"], ratio(r["api_graph_s"], g, 0) + " GEMMs", "");
    row("fc_pcc_degree", r["api_degree_s"], ratio(r["api_degree_s"], g, 0) + " GEMMs", "");
  }
  if (!std::isnan(torch_s)) {
    row("PyTorch: block GEMM, mask, nonzero, to host", torch_s, "", "");
    row("    graph build vs PyTorch", r["edges_fresh_s"], ratio(r["edges_fresh_s"], torch_s, 1.0) + " torch", "< 1 x torch");
    row("    degree vs PyTorch", r["degree_s"], ratio(r["degree_s"], torch_s, 1.0) + " torch", "< 1 x torch");
  }
  row("  back to back: degree", r["b2b_degree_s"], ratio(r["b2b_degree_s"], g, 0) + " GEMMs", "");
  row("  back to back: graph build, fresh output", r["b2b_edges_fresh_s"], ratio(r["b2b_edges_fresh_s"], g, 0) + " GEMMs", "");
  row("  back to back: graph build, reused output", r["b2b_edges_reused_s"], ratio(r["b2b_edges_reused_s"], g, 0) + " GEMMs", "");
  row("  degree, cuBLAS tiles + pass (not fused)", r["tiled_degree_s"], ratio(r["tiled_degree_s"], g, 0) + " GEMMs", "");
  row("  pass on the GEMM's stream: graph, reused", r["mode0_edges_reused_s"], ratio(r["mode0_edges_reused_s"], g, 0) + " GEMMs", "");
  std::cout << "\n" << tab.str();
  if (!markdown.empty()) {
    std::ofstream md(markdown);
    const std::string date = utc_date();
    md << "## Networks without the N x N matrix (bench/gpu/bench_gpu_graph.cpp)\n\n"
       << "- device: " << prop.name << ", date: " << date << "\n"
       << "- N = " << kN << ", T = " << kT << ", FP32; |r| >= " << t << " (chosen from the histogram for "
       << kDensity * 100 << " % density): " << edges << " edges, density " << r["density"] << "\n"
       << "- " << r["bands"] << " bands; degree = row sums of the edges: "
       << (r["degree_matches_edges"] ? std::string("yes")
                                     : "no, at " + std::to_string(int64_t(r["degree_differs_from_edges_series"])) + " series")
       << "; strength bit-identical run to run: " << (r["degree_bit_identical"] ? "yes" : "NO")
       << "; fused degree = tiled degree: " << (r["fused_matches_tiled"] ? "yes" : "NO") << " (strength within "
       << r["fused_strength_max_rel_diff"] << " relative)\n"
       << "- seconds: GEMMs, graph build, degree and the pass-stream rows: medians of " << reps + 6
       << " interleaved rounds after a warm-up round; back-to-back rows, API rows: medians of " << reps
       << " runs after a warm-up; histogram: one run\n\n"
       << tab.str() << "\nAll numbers:\n\n```\n";
    for (const auto& [k, v] : r) md << k << " = " << v << "\n";
    md << "```\n";
  }
  return 0;
}
