// CPU benchmark of the all-pairs PCC triangle, next to its floors measured in the same run:
//   - the SGEMM (and DGEMM) rate of the BLAS libfastconn links, at the same T, three ways (one
//     panel call, the full square, per-thread tiles); ratios use the fastest;
//   - the time to write the triangle's bytes (memset of a pre-touched buffer) and to first-touch
//     them (page faults), so the extraction cost is visible;
//   - FP64 mode, and the FP32 result's largest deviation from it over the whole triangle;
//   - bit-identical FP32 reruns.
// Every measurement runs once per round, round after round, and the medians are reported, so
// load changes on a shared machine hit the library and its floors alike. Exit status 3 when a
// check fails. It also writes the input and a sample of (i, j, r) so that
// bench/numpy_baseline.py times np.corrcoef on the same data and checks fastconn against it;
// bench/run_cpu_bench.sh runs both and writes bench/RESULTS.md.
//
// Data: bench_common.hpp's structured synthetic series.
#include <cblas.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "bench_common.hpp"
#include "fastconn/fastconn.h"

// OpenBLAS describes its build (version, kernel, threading); other CBLAS libraries lack it.
extern "C" char* openblas_get_config(void) __attribute__((weak));

namespace {

using namespace bench;

struct Options {
  int64_t n = 20000;
  int64_t t = 165;
  int reps = 5;
  int threads = 0;  // 0 = omp_get_max_threads()
  int64_t samples = 1000000;
  uint64_t seed = 20240601;
  std::string out, data_out, sample_out;
  bool floors_only = false;  // the GEMM floors alone (run again under OPENBLAS_CORETYPE)
};

[[noreturn]] void usage(const char* msg, int status = 2) {
  std::fprintf(status == 0 ? stdout : stderr,
               "%s\nusage: bench_cpu_pcc [--n N] [--t T] [--reps R] [--threads P] [--out FILE]\n"
               "                     [--data-out FILE] [--sample-out FILE] [--samples K] [--seed S]\n"
               "  --reps       rounds (one run of every measurement each, after a warm-up); medians\n"
               "  --threads    0 = all cores (OpenMP); fastconn and the BLAS floors use the same\n"
               "  --out        results as key=value lines (bench/run_cpu_bench.sh reads them)\n"
               "  --data-out   the input, N x T float32 row-major (for numpy_baseline.py)\n"
               "  --sample-out K random pairs as int32 i, int32 j, float32 r (FP32 row order)\n"
               "  --floors-only 1: only the SGEMM/DGEMM floors (run_cpu_bench.sh measures them again with\n"
               "               OpenBLAS's kernel forced to the CPU's ISA)\n",
               msg);
  std::exit(status);
}

Options parse(int argc, char** argv) {
  Options o;
  for (int a = 1; a < argc; ++a) {
    const std::string key = argv[a];
    if (key == "--help" || key == "-h") usage("PCC benchmark of fastconn's CPU backend", 0);
    if (a + 1 >= argc) usage(("missing value after " + key).c_str());
    const char* v = argv[++a];
    if (key == "--n") o.n = std::atoll(v);
    else if (key == "--t") o.t = std::atoll(v);
    else if (key == "--reps") o.reps = std::atoi(v);
    else if (key == "--threads") o.threads = std::atoi(v);
    else if (key == "--samples") o.samples = std::atoll(v);
    else if (key == "--seed") o.seed = std::strtoull(v, nullptr, 10);
    else if (key == "--out") o.out = v;
    else if (key == "--data-out") o.data_out = v;
    else if (key == "--sample-out") o.sample_out = v;
    else if (key == "--floors-only") o.floors_only = std::atoi(v) != 0;
    else usage(("unknown option " + key).c_str());
  }
  if (o.n < 2 || o.t < 2 || o.reps < 1 || o.threads < 0 || o.samples < 0)
    usage("need N >= 2, T >= 2, reps >= 1, threads >= 0, samples >= 0");
  return o;
}



void check(fc_status st, const char* what) {
  if (st != FC_OK) {
    std::fprintf(stderr, "bench_cpu_pcc: %s failed: %s: %s\n", what, fc_status_string(st), fc_last_error());
    std::exit(1);
  }
}

// Parallel memset: the triangle's write floor once the pages exist, and its first-touch cost.
void fill_bytes(void* p, size_t bytes, int value) {
  char* c = static_cast<char*>(p);
#pragma omp parallel
  {
    const size_t parts = static_cast<size_t>(omp_get_num_threads()), me = static_cast<size_t>(omp_get_thread_num());
    const size_t begin = bytes / parts * me, end = me + 1 == parts ? bytes : bytes / parts * (me + 1);
    std::memset(c + begin, value, end - begin);
  }
}

template <class V>
V* alloc_values(int64_t count) {
  void* p = std::malloc(static_cast<size_t>(count) * sizeof(V));
  if (p == nullptr) {
    std::fprintf(stderr, "bench_cpu_pcc: cannot allocate %.2f GB\n", count * sizeof(V) / 1e9);
    std::exit(1);
  }
  return static_cast<V*>(p);
}



// Order-independent 64-bit digest of a float array's bits, to tell bit-identical reruns apart.
uint64_t digest(const float* x, int64_t count) {
  uint64_t h = 0;
#pragma omp parallel for reduction(+ : h) schedule(static)
  for (int64_t k = 0; k < count; ++k) {
    uint32_t bits;
    std::memcpy(&bits, &x[k], 4);
    uint64_t z = (static_cast<uint64_t>(bits) << 32 | static_cast<uint64_t>(k & 0xffffffff)) * 0x9E3779B97F4A7C15ULL;
    h += z ^ (z >> 29) ^ static_cast<uint64_t>(k >> 32);
  }
  return h;
}

// Row-order offset of pair (i, j), i < j.
int64_t row_offset(int64_t n, int64_t i, int64_t j) { return i * (2 * n - i - 1) / 2 + (j - i - 1); }

struct Result {
  std::string key, value;
};

}  // namespace


// The results as key=value lines (bench/run_cpu_bench.sh reads them); false if they cannot be written.
bool write_results(const std::string& path, const std::vector<Result>& results) {
  if (path.empty()) return true;
  FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr) {
    std::fprintf(stderr, "bench_cpu_pcc: cannot write %s\n", path.c_str());
    return false;
  }
  for (const Result& r : results) std::fprintf(f, "%s=%s\n", r.key.c_str(), r.value.c_str());
  return std::fclose(f) == 0;
}

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  const int threads = o.threads > 0 ? o.threads : omp_get_max_threads();
  omp_set_num_threads(threads);  // OpenBLAS's OpenMP build follows it for the GEMM floors too
  const int64_t n = o.n, t = o.t, pairs = fc_triu_size(n);
  const double pcc_flops = static_cast<double>(n) * (n - 1) * t;  // 2T per pair, N(N-1)/2 pairs
  std::vector<Result> results;
  auto put = [&](const std::string& k, const std::string& v) { results.push_back({k, v}); };
  auto num = [](double v, const char* fmt = "%.6g") {
    char b[64];
    std::snprintf(b, sizeof b, fmt, v);
    return std::string(b);
  };

  const char* blas = openblas_get_config != nullptr ? openblas_get_config() : "unknown CBLAS";
  std::printf("fastconn CPU PCC benchmark: N = %lld series x T = %lld samples, %d threads, median of %d rounds\n",
              (long long)n, (long long)t, threads, o.reps);
  std::printf("BLAS: %s\n", blas);
  put("n", std::to_string(n));
  put("t", std::to_string(t));
  put("threads", std::to_string(threads));
  put("reps", std::to_string(o.reps));
  put("blas", blas);
  put("cpu_kernels", fc_cpu_info());
  std::printf("CPU: %s\n", fc_cpu_info());

  const std::vector<float> data = synthetic_series(n, t, o.seed);
  if (!o.data_out.empty()) {
    FILE* f = std::fopen(o.data_out.c_str(), "wb");
    if (f == nullptr || std::fwrite(data.data(), sizeof(float), data.size(), f) != data.size() || std::fclose(f) != 0) {
      std::fprintf(stderr, "bench_cpu_pcc: cannot write %s\n", o.data_out.c_str());
      return 1;
    }
  }

  // --- buffers: the triangles (pre-touched; the first touch is timed once) and GEMM scratch --------
  const size_t tri_bytes = static_cast<size_t>(pairs) * sizeof(float);
  float* tri = alloc_values<float>(pairs);
  const double first_touch = seconds_of([&] { fill_bytes(tri, tri_bytes, 0); });
  double* tri64 = alloc_values<double>(pairs);
  fill_bytes(tri64, static_cast<size_t>(pairs) * sizeof(double), 0);
  // GEMM operands: the data's rows scaled to unit-ish values (the values do not change the rate).
  std::vector<float> zf(data.size());
  std::vector<double> zd(data.size());
  for (size_t k = 0; k < data.size(); ++k) zd[k] = zf[k] = data[k] * 1e-3f;
  const int64_t panel = std::min<int64_t>(n, 2000);
  std::vector<float> panel_f(static_cast<size_t>(n * panel));
  std::vector<double> panel_d(static_cast<size_t>(n * panel));
  float* square = alloc_values<float>(n * n);
  fill_bytes(square, static_cast<size_t>(n * n) * sizeof(float), 0);

  // --- fastconn: FP32 and FP64 contexts and series --------------------------------------------------
  fc_context* ctx = nullptr;
  fc_context* ctx64 = nullptr;
  check(fc_context_create(FC_BACKEND_CPU, -1, &ctx), "fc_context_create");
  check(fc_context_set_threads(ctx, threads), "fc_context_set_threads");
  check(fc_context_create(FC_BACKEND_CPU, -1, &ctx64), "fc_context_create");
  check(fc_context_set_threads(ctx64, threads), "fc_context_set_threads");
  check(fc_context_set_precision(ctx64, FC_PRECISION_FP64), "fc_context_set_precision");
  fc_series* s32 = nullptr;
  fc_series* s64 = nullptr;
  check(fc_series_create_f32(ctx64, data.data(), n, t, t, 1, &s64), "fc_series_create_f32 (FP64)");

  // --- the round robin: one run of each per round, so a change of load on a shared machine hits
  // the library and its floors alike ------------------------------------------------------------------
  const std::string shape_panel = std::to_string(n) + "x" + std::to_string(panel) + "x" + std::to_string(t);
  const std::string shape_square = std::to_string(n) + "x" + std::to_string(n) + "x" + std::to_string(t);
  const double panel_flops = 2.0 * n * panel * t;
  std::vector<uint64_t> digests;
  std::vector<Measurement> m;
  auto nothing = [] {};
  m.push_back({"write_floor", "write floor: memset of the pre-touched FP32 triangle", 0, double(tri_bytes),
               [&] { fill_bytes(tri, tri_bytes, 0x3f); }, nothing, {}});
  m.push_back({"sgemm_panel", "SGEMM " + shape_panel + " (one call, BLAS threads)", panel_flops, 0,
               [&] { gemm_nt(n, panel, t, zf.data(), zf.data(), panel_f.data(), panel); }, nothing, {}});
  m.push_back({"sgemm_square", "SGEMM " + shape_square + " (full square)", 2.0 * n * n * t, 0,
               [&] { gemm_nt(n, n, t, zf.data(), zf.data(), square, n); }, nothing, {}});
  m.push_back({"sgemm_tiles", "SGEMM " + shape_panel + " as 256x512 tiles/thread", panel_flops, 0,
               [&] { gemm_in_thread_tiles(zf.data(), n, t, panel, panel_f.data()); }, nothing, {}});
  m.push_back({"dgemm_panel", "DGEMM " + shape_panel + " (one call, BLAS threads)", panel_flops, 0,
               [&] { gemm_nt(n, panel, t, zd.data(), zd.data(), panel_d.data(), panel); }, nothing, {}});
  m.push_back({"dgemm_tiles", "DGEMM " + shape_panel + " as 256x512 tiles/thread", panel_flops, 0,
               [&] { gemm_in_thread_tiles(zd.data(), n, t, panel, panel_d.data()); }, nothing, {}});
  if (!o.floors_only) {
  m.push_back({"series_create_f32", "fc_series_create_f32 (checks, float64 normalization)", 0, 0,
               [&] {
                 fc_series_destroy(s32);
                 s32 = nullptr;
                 check(fc_series_create_f32(ctx, data.data(), n, t, t, 1, &s32), "fc_series_create_f32");
               },
               nothing, {}});
  m.push_back({"pcc_f32_col", "fc_pcc_triu FP32, column order", pcc_flops, 0,
               [&] { check(fc_pcc_triu(ctx, s32, FC_TRIU_COL, tri, pairs), "fc_pcc_triu(COL)"); }, nothing, {}});
  m.push_back({"pcc_f64_col", "fc_pcc_triu_f64 FP64, column order", pcc_flops, 0,
               [&] { check(fc_pcc_triu_f64(ctx64, s64, FC_TRIU_COL, tri64, pairs), "fc_pcc_triu_f64(COL)"); }, nothing, {}});
  m.push_back({"pcc_f64_row", "fc_pcc_triu_f64 FP64, row order", pcc_flops, 0,
               [&] { check(fc_pcc_triu_f64(ctx64, s64, FC_TRIU_ROW, tri64, pairs), "fc_pcc_triu_f64(ROW)"); }, nothing, {}});
  // The CPU triangle's ways of writing its values (FASTCONN_CPU_TRIU_WRITE, cpu_pcc.cpp): after
  // each whole tile, after each chunk of rows, streamed as the products' blocks finish; all in
  // the same rounds.
  for (const char* mode : {"tile", "rows", "parts"}) {
    auto with_mode = [mode](const std::function<void()>& call) {
      setenv("FASTCONN_CPU_TRIU_WRITE", mode, 1);
      call();
      unsetenv("FASTCONN_CPU_TRIU_WRITE");
    };
    m.push_back({std::string("pcc_f64_row_") + mode, std::string("fc_pcc_triu_f64 FP64, row order, ") + mode + " writes", pcc_flops, 0,
                 [&, with_mode] { with_mode([&] { check(fc_pcc_triu_f64(ctx64, s64, FC_TRIU_ROW, tri64, pairs), "fc_pcc_triu_f64(ROW)"); }); },
                 nothing, {}});
    m.push_back({std::string("pcc_f32_row_") + mode, std::string("fc_pcc_triu FP32, row order, ") + mode + " writes", pcc_flops, 0,
                 [&, with_mode] { with_mode([&] { check(fc_pcc_triu(ctx, s32, FC_TRIU_ROW, tri, pairs), "fc_pcc_triu(ROW)"); }); },
                 nothing, {}});
  }
  // Last in the round, so that `tri` ends up holding the row-order FP32 triangle.
  m.push_back({"pcc_f32_row", "fc_pcc_triu FP32, row order (N(N-1)T flops)", pcc_flops, 0,
               [&] { check(fc_pcc_triu(ctx, s32, FC_TRIU_ROW, tri, pairs), "fc_pcc_triu(ROW)"); },
               [&] { digests.push_back(digest(tri, pairs)); }, {}});
  }
  for (Measurement& x : m) x.run();  // warm-up
  for (int r = 0; r < o.reps; ++r)
    for (Measurement& x : m) {
      x.times.push_back(seconds_of(x.run));
      x.after();
    }
  std::free(square);

  std::printf("\n%-56s %10s %16s\n", "measured", "median [s]", "rate");
  std::printf("%-56s %10.4f %11.1f GB/s\n", "first touch of the FP32 triangle (memset, page faults)", first_touch,
              tri_bytes / first_touch / 1e9);
  put("triangle_bytes", std::to_string(tri_bytes));
  put("first_touch_s", num(first_touch));
  for (const Measurement& x : m) {
    if (x.flops > 0)
      std::printf("%-56s %10.4f %8.1f GFLOP/s\n", x.label.c_str(), x.median(), x.gflops());
    else if (x.bytes > 0)
      std::printf("%-56s %10.4f %11.1f GB/s\n", x.label.c_str(), x.median(), x.bytes / x.median() / 1e9);
    else
      std::printf("%-56s %10.4f\n", x.label.c_str(), x.median());
    put(x.key + "_s", num(x.median()));
    if (x.flops > 0) put(x.key + "_gflops", num(x.gflops()));
  }
  put("sgemm_panel_shape", shape_panel);
  put("sgemm_square_shape", shape_square);
  auto find = [&](const std::string& key) -> const Measurement& {
    return *std::find_if(m.begin(), m.end(), [&](const Measurement& x) { return x.key == key; });
  };
  // The ratios use the fastest GEMM measured here, so they never flatter the library.
  const double sbest = std::max({find("sgemm_panel").gflops(), find("sgemm_square").gflops(), find("sgemm_tiles").gflops()});
  const double dbest = std::max(find("dgemm_panel").gflops(), find("dgemm_tiles").gflops());
  put("sgemm_reference_gflops", num(sbest));
  put("dgemm_reference_gflops", num(dbest));
  if (o.floors_only) return write_results(o.out, results) ? 0 : 1;

  // Accuracy: the FP32 triangle against the FP64 one, every pair.
  double max_dev = 0;
#pragma omp parallel for reduction(max : max_dev) schedule(static)
  for (int64_t k = 0; k < pairs; ++k) max_dev = std::max(max_dev, std::fabs(static_cast<double>(tri[k]) - tri64[k]));
  const bool identical = std::all_of(digests.begin(), digests.end(), [&](uint64_t d) { return d == digests[0]; });
  put("max_abs_f32_vs_f64", num(max_dev, "%.3g"));
  put("pcc_f32_bit_identical_reruns", identical ? "yes" : "NO");
  put("pcc_f32_runs_compared", std::to_string(digests.size()));

  // Samples for numpy_baseline.py's check, from the row-order FP32 triangle.
  if (!o.sample_out.empty()) {
    Rng rng{o.seed ^ 0x5eedULL};
    std::vector<int32_t> ij;
    std::vector<float> r;
    for (int64_t k = 0; k < o.samples; ++k) {
      int64_t i = static_cast<int64_t>(rng.uniform() * n), j = static_cast<int64_t>(rng.uniform() * n);
      if (i == j) continue;
      if (i > j) std::swap(i, j);
      ij.push_back(static_cast<int32_t>(i));
      ij.push_back(static_cast<int32_t>(j));
      r.push_back(tri[row_offset(n, i, j)]);
    }
    FILE* f = std::fopen(o.sample_out.c_str(), "wb");
    bool ok = f != nullptr;
    for (size_t k = 0; ok && k < r.size(); ++k)
      ok = std::fwrite(&ij[2 * k], sizeof(int32_t), 2, f) == 2 && std::fwrite(&r[k], sizeof(float), 1, f) == 1;
    if (f != nullptr && std::fclose(f) != 0) ok = false;
    if (!ok) {
      std::fprintf(stderr, "bench_cpu_pcc: cannot write %s\n", o.sample_out.c_str());
      return 1;
    }
  }
  fc_series_destroy(s32);
  fc_series_destroy(s64);
  fc_context_destroy(ctx);
  fc_context_destroy(ctx64);
  std::free(tri);
  std::free(tri64);

  const double rate32 = find("pcc_f32_row").gflops(), rate64 = find("pcc_f64_row").gflops();
  std::printf("\nPCC FP32 row order: %.1f GFLOP/s = %.1f %% of the fastest SGEMM above (%.1f GFLOP/s)\n", rate32,
              100.0 * rate32 / sbest, sbest);
  std::printf("PCC FP64 row order: %.1f GFLOP/s = %.1f %% of the fastest DGEMM above (%.1f GFLOP/s)\n", rate64,
              100.0 * rate64 / dbest, dbest);
  std::printf("FP32 reruns bit-identical (%zu runs): %s; max |FP32 - FP64| over all pairs = %.3g (contract: <= 1e-5)\n",
              digests.size(), identical ? "yes" : "NO", max_dev);
  put("pcc_f32_row_fraction_of_sgemm", num(rate32 / sbest, "%.4f"));
  put("pcc_f64_row_fraction_of_dgemm", num(rate64 / dbest, "%.4f"));

  if (!write_results(o.out, results)) return 1;
  // A wrong or unstable result is a failed benchmark, whatever its speed.
  return identical && max_dev <= 1e-5 ? 0 : 3;
}
