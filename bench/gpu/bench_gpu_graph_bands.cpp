// Row bands of the network primitives (issue 33: one call split across the GPUs of a host with
// the bits of one GPU), at N = 90,112, T = 165 (bench_data.hpp's seeded data). For each primitive
// (degree and strength, thresholded edges at ~1 % density, the |r| histogram, top-10):
//   whole   the whole call on device 0: the peer;
//   2 GPUs  two bands at once, rows [0, c) on device 0 and [c, n) on device 1 (one context and
//           host thread each; c a multiple of graph_row_granularity balancing the pairs, top-k's
//           the rows), then joined as the split backend joins them;
//   1 GPU   the same two bands one after the other on device 0 (what cutting costs).
// Medians of --reps rounds. The joined result must equal the whole call byte for byte (exit 3
// otherwise). With one device, "2 GPUs" runs both bands on device 0 at once.
//
//   bench_gpu_graph_bands [--n N] [--t T] [--reps R] [--markdown FILE]
// The last line is the verdict ("graphrows: ...").
#include <cuda_runtime_api.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "api/handles.hpp"
#include "base/triangle_index.hpp"
#include "bench_data.hpp"
#include "bench_util.hpp"
#include "fastconn/fastconn.h"

namespace {

using namespace fcbench;

// One device's context and its copy of the series.
struct Device {
  fc_context* ctx = nullptr;
  fc_series* s = nullptr;
  fc::Backend& backend() const { return *ctx->state->backend; }
  fc::SeriesView view() const { return s->data->view(); }
};

Device open_device(int device, const std::vector<float>& x, int64_t n, int64_t t) {
  Device d;
  fc_ok(fc_context_create(FC_BACKEND_CUDA, device, &d.ctx), "fc_context_create(CUDA)");
  fc_ok(fc_series_create_f32(d.ctx, x.data(), n, t, t, 1, &d.s), "fc_series_create_f32");
  return d;
}

template <class F>
void with_run(const Device& d, F&& f) {
  fc::Progress progress(nullptr, nullptr, 0);
  f(d.ctx->state->run_settings(progress));
}

template <class A, class B>
bool same_bytes(const A& a, const B& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(a[0])) == 0);
}

// A primitive: whole(d) runs the whole call on d; band(d, k, b, e) band k = [b, e) on d (its
// results kept for join()); join() joins bands 0 and 1 and compares them with the whole call's.
struct Primitive {
  std::string name;
  std::function<void(const Device&)> whole;
  std::function<void(const Device&, int, int64_t, int64_t)> band;
  std::function<bool()> join;
  int64_t cut = 0;
};

struct Row {
  std::string name;
  double whole, two, one;
  double band0, band1;  // each band's own seconds within the 2-GPU rounds (medians)
  bool same;
};

}  // namespace

int main(int argc, char** argv) {
  int64_t n = 90112, t = 165, rounds = 5;
  std::string markdown;
  const char* usage = "usage: bench_gpu_graph_bands [--n N] [--t T] [--reps R] [--markdown FILE]";
  for (int a = 1; a < argc; a += 2) {  // --key value pairs
    const std::string key = argv[a];
    if (a + 1 >= argc) die(usage);
    int64_t* number = key == "--n" ? &n : key == "--t" ? &t : key == "--reps" ? &rounds : nullptr;
    if (number != nullptr) *number = std::atoll(argv[a + 1]);
    else if (key == "--markdown") markdown = argv[a + 1];
    else die(usage);
  }
  const int reps = static_cast<int>(rounds);
  int devices = 0;
  cuda_ok(cudaGetDeviceCount(&devices), "cudaGetDeviceCount");
  const std::vector<float> x = structured_data(n, t, 20261124);
  const Device d0 = open_device(0, x, n, t), d1 = open_device(devices > 1 ? 1 : 0, x, n, t);
  cudaDeviceProp prop;
  cuda_ok(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");

  const fc::SeriesView v = d0.view();
  int64_t g = 0;
  with_run(d0, [&](const fc::RunSettings& run) { g = d0.backend().graph_row_granularity(v, run); });
  // The cut balancing the pairs: the first multiple of g with half the triangle's pairs above it.
  int64_t pair_cut = 0;
  while (pair_cut < n && fc::row_start(n, std::min(pair_cut, n - 1)) < fc::triu_count(n) / 2) pair_cut += g;
  const int64_t row_cut = std::min(n, (n / 2 + g / 2) / g * g);

  // The threshold of ~1 % density from the whole histogram (bins from the top).
  std::vector<int64_t> hist;
  with_run(d0, [&](const fc::RunSettings& run) { d0.backend().abs_histogram(v, hist, run); });
  int64_t above = 0, bin = fc::kAbsHistogramBins - 1;
  for (; bin > 0 && above < fc::triu_count(n) / 100; --bin) above += hist[static_cast<size_t>(bin)];
  const uint32_t bits = static_cast<uint32_t>(bin + 1) << fc::kAbsHistogramShift;
  float threshold;
  std::memcpy(&threshold, &bits, 4);
  const fc::EdgeTest test{true, threshold};
  const int64_t k = 10;

  // --- the primitives -----------------------------------------------------------------------
  std::vector<int64_t> w_deg(n), w_topc(n * k);
  std::vector<double> w_str(n);
  std::vector<float> w_topv(n * k);
  std::vector<int64_t> w_hist;
  fc::UpperEdges w_edges, b_edges[2];
  std::vector<int64_t> b_deg[2], b_fix[2], b_hist[2], b_topc(n * k);
  std::vector<float> b_topv(n * k);
  std::atomic<bool> declined{false};  // a band without a band path (set from both threads)
  auto ran = [&](bool ok) {
    if (!ok) declined = true;
  };
  std::vector<Primitive> prims;
  prims.push_back(Primitive{
      "degree and strength (fused FP32)",
      [&](const Device& d) { with_run(d, [&](const fc::RunSettings& r) { d.backend().threshold_degree(d.view(), test, w_deg.data(), w_str.data(), r); }); },
      [&](const Device& d, int b, int64_t lo, int64_t hi) {
        b_deg[b].assign(n, 0);
        b_fix[b].assign(n, 0);
        with_run(d, [&](const fc::RunSettings& r) {
          ran(d.backend().threshold_degree_rows(d.view(), test, lo, hi, b_deg[b].data(), b_fix[b].data(), r));
        });
      },
      [&] {
        std::vector<int64_t> deg(n);
        std::vector<double> str(n);
        const int fb = d0.backend().strength_fraction_bits(v);
        for (int64_t i = 0; i < n; ++i) {
          deg[i] = b_deg[0][i] + b_deg[1][i];
          str[i] = std::ldexp(static_cast<double>(b_fix[0][i] + b_fix[1][i]), -fb);
        }
        return same_bytes(deg, w_deg) && same_bytes(str, w_str);
      },
      pair_cut});
  prims.push_back(Primitive{
      "edges abs(r) >= t (1 % density)",
      [&](const Device& d) { with_run(d, [&](const fc::RunSettings& r) { d.backend().threshold_edges(d.view(), test, w_edges, r); }); },
      [&](const Device& d, int b, int64_t lo, int64_t hi) {
        with_run(d, [&](const fc::RunSettings& r) { ran(d.backend().threshold_edges_rows(d.view(), test, lo, hi, b_edges[b], r)); });
      },
      [&] {
        fc::UpperEdges j = b_edges[0];
        j.row_count.insert(j.row_count.end(), b_edges[1].row_count.begin(), b_edges[1].row_count.end());
        j.columns.insert(j.columns.end(), b_edges[1].columns.begin(), b_edges[1].columns.end());
        j.values.insert(j.values.end(), b_edges[1].values.begin(), b_edges[1].values.end());
        return same_bytes(j.row_count, w_edges.row_count) && same_bytes(j.columns, w_edges.columns) &&
               same_bytes(j.values, w_edges.values);
      },
      pair_cut});
  prims.push_back(Primitive{
      "abs(r) histogram",
      [&](const Device& d) { with_run(d, [&](const fc::RunSettings& r) { d.backend().abs_histogram(d.view(), w_hist, r); }); },
      [&](const Device& d, int b, int64_t lo, int64_t hi) {
        b_hist[b].assign(static_cast<size_t>(fc::kAbsHistogramBins), 0);
        with_run(d, [&](const fc::RunSettings& r) { ran(d.backend().abs_histogram_rows(d.view(), lo, hi, b_hist[b], r)); });
      },
      [&] {
        std::vector<int64_t> j(b_hist[0]);
        for (size_t i = 0; i < j.size(); ++i) j[i] += b_hist[1][i];
        return same_bytes(j, w_hist);
      },
      pair_cut});
  prims.push_back(Primitive{
      "top-10 per series",
      [&](const Device& d) { with_run(d, [&](const fc::RunSettings& r) { d.backend().top_k(d.view(), k, w_topc.data(), w_topv.data(), r); }); },
      [&](const Device& d, int, int64_t lo, int64_t hi) {
        with_run(d, [&](const fc::RunSettings& r) {
          ran(d.backend().top_k_rows(d.view(), k, lo, hi, b_topc.data() + lo * k, b_topv.data() + lo * k, r));
        });
      },
      [&] { return same_bytes(b_topc, w_topc) && same_bytes(b_topv, w_topv); },
      row_cut});

  std::vector<Row> rows;
  bool all_same = true;
  // Two bands at once, each timed on its own thread (into band_s).
  std::vector<double> band_s[2];
  auto both = [&](Primitive& p) {
    double s1 = 0.0;
    std::thread other([&] {
      const double t1 = now();
      p.band(d1, 1, p.cut, n);
      s1 = now() - t1;
    });
    const double t0 = now();
    p.band(d0, 0, 0, p.cut);
    band_s[0].push_back(now() - t0);
    other.join();
    band_s[1].push_back(s1);
  };
  for (Primitive& p : prims) {
    const double whole = timed(reps, [&] { p.whole(d0); });
    band_s[0].clear();
    band_s[1].clear();
    const double two = timed(reps, [&] { both(p); });
    const bool same = !declined && p.join();
    const double one = timed(reps, [&] {
      p.band(d0, 0, 0, p.cut);
      p.band(d0, 1, p.cut, n);
    });
    all_same = all_same && same && !declined && p.join();
    rows.push_back(Row{p.name, whole, two, one, median(band_s[0]), median(band_s[1]), same});
    std::printf("%-34s whole %.4f s  2 GPUs %.4f s (%.2fx; bands %.4f, %.4f s)  1 GPU 2 bands %.4f s  joined == whole: %s\n",
                p.name.c_str(), whole, two, whole / two, rows.back().band0, rows.back().band1, one, same ? "yes" : "NO");
  }
  // The edges' bands copy ~half the edges each into host vectors: once more with each context's
  // host copy threads halved (fc_context_set_threads), whether the two pools contend.
  const int pool = std::max(1u, std::thread::hardware_concurrency() / 4);
  fc_ok(fc_context_set_threads(d0.ctx, pool), "fc_context_set_threads");
  fc_ok(fc_context_set_threads(d1.ctx, pool), "fc_context_set_threads");
  band_s[0].clear();
  band_s[1].clear();
  const double edges_pool = timed(reps, [&] { both(prims[1]); });
  const bool edges_pool_same = !declined && prims[1].join();
  all_same = all_same && edges_pool_same;
  std::printf("edges, 2 GPUs, %d host threads per context: %.4f s (%.2fx; bands %.4f, %.4f s) joined == whole: %s\n", pool,
              edges_pool, rows[1].whole / edges_pool, median(band_s[0]), median(band_s[1]), edges_pool_same ? "yes" : "NO");

  std::ostringstream md;
  md << "## Row bands of the network primitives: N = " << n << " x T = " << t << " (" << prop.name << ", "
     << devices << " device" << (devices > 1 ? "s" : "") << ")\n\n"
     << "Written by `bench_gpu_graph_bands --markdown` (medians of " << reps
     << " rounds after a warm-up). Whole: the call on device 0. 2 GPUs: rows [0, c) on device 0 and [c, n) on device "
     << (devices > 1 ? 1 : 0) << " at once (one context and thread each), c = " << pair_cut
     << " (half the pairs; top-k: c = " << row_cut << ", half the rows), granularity " << g
     << "; the joined result compared byte for byte with the whole call's. 1 GPU: both bands one after the other on device 0. "
     << "Threshold |r| >= " << threshold << " (~1 % density, " << w_edges.columns.size() << " edges).\n\n"
     << "| primitive | whole [s] | 2 GPUs [s] | speed-up | band 0, band 1 within it [s] | 1 GPU, 2 bands [s] | joined == whole |\n"
     << "|---|---:|---:|---:|---:|---:|---|\n";
  char line[320];
  for (const Row& r : rows) {
    std::snprintf(line, sizeof line, "| %s | %.4f | %.4f | %.2fx | %.4f, %.4f | %.4f | %s |\n", r.name.c_str(), r.whole, r.two,
                  r.whole / r.two, r.band0, r.band1, r.one, r.same ? "yes" : "**no**");
    md << line;
  }
  std::snprintf(line, sizeof line,
                "\nEdges again on 2 GPUs with %d host copy threads per context (fc_context_set_threads; default %s): %.4f s "
                "(%.2fx), bands %.4f, %.4f s, joined == whole: %s.\n",
                pool, "min(cores, 16) - 1", edges_pool, rows[1].whole / edges_pool, median(band_s[0]), median(band_s[1]),
                edges_pool_same ? "yes" : "**no**");
  md << line;
  if (!markdown.empty()) std::ofstream(markdown) << md.str();
  std::string verdict = "graphrows: " + std::to_string(n) + " x " + std::to_string(t) + " on " + std::to_string(std::min(devices, 2)) +
                        " GPU(s):";
  for (const Row& r : rows) {
    std::snprintf(line, sizeof line, " %s %.2fx", r.name.substr(0, r.name.find(' ')).c_str(), r.whole / r.two);
    verdict += line;
  }
  verdict += all_same ? "; joined == whole" : "; joined != whole";
  std::printf("%s\n", verdict.c_str());
  fc_series_destroy(d0.s);
  fc_series_destroy(d1.s);
  fc_context_destroy(d0.ctx);
  fc_context_destroy(d1.ctx);
  return all_same ? 0 : 3;
}
