// Benchmark of modules (issue 11): fc_modularity on a planted-partition graph (by default 38,400
// nodes, 40 communities of 960, expected degree 19 inside + 19 outside: ~729,600 edges, fixed
// seed; --nodes, --communities, --degree-in, --degree-out for others, e.g. the 1,000,000-node scale
// run) or on a graph file (fc_graph_load), on the CPU backend, the CUDA backend, or both
// (--backend cpu|cuda|both; both also checks that the labels are the same). Prints the median time
// of --reps runs per backend, Q, K, the splits, and for the planted graph the normalized mutual
// information with the planted communities. bench/modularity/peers.py times igraph and networkx on the same graph (--save
// writes it in fastconn's graph file format, --labels writes fastconn's labels, one per line).
// --method leiden times fc_leiden (default options: modularity, gamma 1, seed 1) instead of
// fc_modularity; bench/modularity/leiden_peers.py times leidenalg and igraph's Leiden and Louvain.
// --method leiden-sync times fc_leiden_v2 with FC_LEIDEN_SYNCHRONOUS (the device's Leiden on CUDA).
// --method multilayer times fc_multilayer_modularity on the windows' networks of voxel-like series
// (issue 31's 20,000 nodes x 50 windows: --nodes 20000 --windows 50).
#include <omp.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "fastconn/fastconn.h"
#include "window_graphs.hpp"

namespace {

void check(fc_status st, const char* what) {
  if (st != FC_OK) {
    std::fprintf(stderr, "bench_modularity: %s failed: %s: %s\n", what, fc_status_string(st), fc_last_error());
    std::exit(1);
  }
}

// CPU seconds of the process (all its threads): on a machine shared with other work, the
// wall time measures the neighbours too.
double cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

struct Rng {  // splitmix64
  uint64_t s;
  uint64_t next() {
    uint64_t z = (s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  double uniform() { return double(next() >> 11) * (1.0 / 9007199254740992.0); }
};

// Planted partition: nodes shuffled into k equal communities; each pair inside a community is an
// edge with probability p_in, each other pair with p_out (geometric skips: O(edges) work).
fc_graph* planted(int64_t n, int64_t k, double deg_in, double deg_out, uint64_t seed, std::vector<int64_t>& truth) {
  Rng rng{seed};
  const int64_t size = n / k;
  const double p_in = deg_in / double(size - 1), p_out = deg_out / double(n - size);
  std::vector<int64_t> perm(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) perm[static_cast<size_t>(i)] = i;
  for (int64_t i = n - 1; i > 0; --i) std::swap(perm[static_cast<size_t>(i)], perm[static_cast<size_t>(rng.next() % uint64_t(i + 1))]);
  truth.assign(static_cast<size_t>(n), 0);
  for (int64_t i = 0; i < n; ++i) truth[static_cast<size_t>(perm[static_cast<size_t>(i)])] = i / size;
  std::vector<std::vector<int64_t>> adj(static_cast<size_t>(n));
  auto run = [&](int64_t i, int64_t from, int64_t to, double p) {  // j in [from, to), each with probability p
    const double lq = std::log1p(-p);
    int64_t j = from - 1;
    for (;;) {
      j += 1 + int64_t(std::floor(std::log(1.0 - rng.uniform()) / lq));
      if (j >= to) break;
      const int64_t a = perm[static_cast<size_t>(i)], b = perm[static_cast<size_t>(j)];
      adj[static_cast<size_t>(a)].push_back(b);
      adj[static_cast<size_t>(b)].push_back(a);
    }
  };
  for (int64_t i = 0; i < n; ++i) {
    const int64_t end = (i / size + 1) * size;
    run(i, i + 1, end, p_in);
    run(i, end, n, p_out);
  }
  std::vector<int64_t> offsets(static_cast<size_t>(n + 1), 0), columns;
  for (int64_t i = 0; i < n; ++i) {
    auto& a = adj[static_cast<size_t>(i)];
    std::sort(a.begin(), a.end());
    columns.insert(columns.end(), a.begin(), a.end());
    offsets[static_cast<size_t>(i + 1)] = int64_t(columns.size());
  }
  fc_graph* g = nullptr;
  check(fc_graph_create_csr(n, offsets.data(), columns.data(), nullptr, &g), "fc_graph_create_csr");
  return g;
}

// A voxel network like Wu et al.'s: n series of t samples in `networks` shuffled groups, each
// series its group's smooth (AR(1)) time course plus a weaker one of the next group and its own
// noise (levels vary by series), thresholded by fc_pcc_graph to the `density` of pairs with the
// largest |r| (binary), on the best backend there is. truth: each series' group.
std::vector<float> voxel_series(int64_t n, int64_t t, int64_t networks, uint64_t seed, std::vector<int64_t>& truth) {
  Rng rng{seed};
  auto normal = [&] {
    const double u1 = 1.0 - rng.uniform(), u2 = rng.uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  };
  std::vector<double> course(static_cast<size_t>(networks * t));
  for (int64_t k = 0; k < networks; ++k) {
    double v = 0;
    for (int64_t s = 0; s < t; ++s) course[static_cast<size_t>(k * t + s)] = v = 0.8 * v + normal();
  }
  std::vector<int64_t> perm(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) perm[static_cast<size_t>(i)] = i;
  for (int64_t i = n - 1; i > 0; --i) std::swap(perm[static_cast<size_t>(i)], perm[static_cast<size_t>(rng.next() % uint64_t(i + 1))]);
  truth.assign(static_cast<size_t>(n), 0);
  std::vector<float> x(static_cast<size_t>(n * t));
  for (int64_t v = 0; v < n; ++v) {
    const int64_t k = perm[static_cast<size_t>(v)] % networks, next = (k + 1) % networks;
    truth[static_cast<size_t>(v)] = k;
    const double noise = 0.5 + 1.5 * rng.uniform(), other = 0.3 * rng.uniform();
    for (int64_t s = 0; s < t; ++s)
      x[static_cast<size_t>(v * t + s)] = float(1000.0 + course[static_cast<size_t>(k * t + s)] +
                                                other * course[static_cast<size_t>(next * t + s)] + noise * normal());
  }
  return x;
}

fc_graph* voxel_network(int64_t n, int64_t t, int64_t networks, double density, uint64_t seed,
                        std::vector<int64_t>& truth) {
  const std::vector<float> x = voxel_series(n, t, networks, seed, truth);
  fc_context* ctx = nullptr;
  check(fc_context_create(FC_BACKEND_AUTO, -1, &ctx), "fc_context_create");
  fc_series* series = nullptr;
  check(fc_series_create_f32(ctx, x.data(), n, t, t, 1, &series), "fc_series_create_f32");
  fc_graph* g = nullptr;
  check(fc_pcc_graph(ctx, series, FC_EDGE_DENSITY, density, FC_GRAPH_BINARY, &g), "fc_pcc_graph");
  fc_series_destroy(series);
  fc_context_destroy(ctx);
  return g;
}

// --method multilayer: the windows' networks of voxel_series (each window's top-k graph, binary)
// and reps runs of fc_multilayer_modularity (ordinal, omega, gamma 1, seed 1) on them: the median
// time, Q, K, mean flexibility, and the process's peak resident memory before and after.
int multilayer_bench(int64_t n, int64_t networks, int64_t windows, int64_t length, int64_t step, int64_t top_k,
                     double omega, int threads, int reps) {
  std::vector<int64_t> truth;
  const int64_t t = length + (windows - 1) * step;
  const auto t0 = std::chrono::steady_clock::now();
  const std::vector<float> x = voxel_series(n, t, networks, 20240611, truth);
  fc_context* ctx = nullptr;
  check(fc_context_create(FC_BACKEND_CPU, -1, &ctx), "fc_context_create");
  check(fc_context_set_threads(ctx, threads), "fc_context_set_threads");
  int64_t edges = 0;
  const std::vector<fc_graph*> layers =
      bench::window_graphs(ctx, x.data(), n, t, length, step, FC_EDGE_TOP_K, double(top_k), FC_GRAPH_BINARY, &edges);
  const double build_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  const double rss_before = double(ru.ru_maxrss) / 1048576.0;
  std::printf("layers: %lld voxel-like series x %lld samples in %lld networks (seed 20240611), %lld windows of "
              "%lld every %lld, each window's top-%lld graph (binary): %lld edges in all (built in %.1f s); "
              "omega %g, %d threads\n",
              (long long)n, (long long)t, (long long)networks, (long long)layers.size(), (long long)length,
              (long long)step, (long long)top_k, (long long)edges, build_s, omega, threads);
  fc_multilayer_options o;
  check(fc_multilayer_options_default(&o), "fc_multilayer_options_default");
  o.omega = omega;
  std::vector<double> times, cpu;
  double q = 0, flex = 0;
  int64_t k = 0;
  for (int r = 0; r < reps; ++r) {
    fc_multilayer* m = nullptr;
    const auto a = std::chrono::steady_clock::now();
    const double c = cpu_seconds();
    check(fc_multilayer_modularity(ctx, layers.data(), int64_t(layers.size()), nullptr, &o, &m),
          "fc_multilayer_modularity");
    times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - a).count());
    cpu.push_back(cpu_seconds() - c);
    check(fc_multilayer_info(m, nullptr, nullptr, &k, &q), "fc_multilayer_info");
    std::vector<double> f(static_cast<size_t>(n));
    check(fc_multilayer_flexibility(m, f.data(), n), "fc_multilayer_flexibility");
    flex = 0;
    for (double v : f) flex += v / double(n);
    fc_multilayer_destroy(m);
  }
  std::sort(times.begin(), times.end());
  getrusage(RUSAGE_SELF, &ru);
  std::sort(cpu.begin(), cpu.end());
  std::printf("fastconn fc_multilayer_modularity (CPU, %d threads): median %.3f s of %d (min %.3f, max %.3f); "
              "CPU time (all threads) median %.3f s\n",
              threads, times[times.size() / 2], reps, times.front(), times.back(), cpu[cpu.size() / 2]);
  std::printf("Q = %.12f  K = %lld  mean flexibility %.4f  peak RSS %.2f GiB (%.2f GiB before the call: the layers)\n", q,
              (long long)k, flex, double(ru.ru_maxrss) / 1048576.0, rss_before);
  for (fc_graph* g : layers) fc_graph_destroy(g);
  fc_context_destroy(ctx);
  return 0;
}

// Normalized mutual information (arithmetic mean normalization, as scikit-learn's default).
double nmi(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  const double n = double(a.size());
  std::map<int64_t, double> ca, cb;
  std::map<std::pair<int64_t, int64_t>, double> cab;
  for (size_t i = 0; i < a.size(); ++i) {
    ca[a[i]] += 1;
    cb[b[i]] += 1;
    cab[{a[i], b[i]}] += 1;
  }
  double ha = 0, hb = 0, mi = 0;
  for (auto& [k, c] : ca) ha -= c / n * std::log(c / n);
  for (auto& [k, c] : cb) hb -= c / n * std::log(c / n);
  for (auto& [k, c] : cab) mi += c / n * std::log(c * n / (ca[k.first] * cb[k.second]));
  return ha + hb == 0 ? 1.0 : 2 * mi / (ha + hb);
}

struct Run {
  std::string backend;
  std::vector<double> times, cpu;  // sorted
  std::vector<int64_t> labels;
  int64_t k = 0, splits = 0, products = 0;
  double q = 0;
  bool failed = false;
};

// reps runs of fc_modularity on a context of `kind`; every run must give the labels of the first.
Run run(const fc_graph* g, fc_backend kind, int threads, int reps, const fc_modularity_options& o, bool leiden,
        bool sync) {
  Run r;
  int64_t n = 0;
  check(fc_graph_info(g, &n, nullptr), "fc_graph_info");
  fc_context* ctx = nullptr;
  check(fc_context_create(kind, -1, &ctx), "fc_context_create");
  check(fc_context_set_threads(ctx, threads), "fc_context_set_threads");
  r.backend = std::string(kind == FC_BACKEND_CUDA ? "CUDA" : "CPU") + ", " + std::to_string(threads) + " threads";
  std::vector<int64_t> labels(static_cast<size_t>(n)), iters;
  for (int x = 0; x < reps; ++x) {
    fc_modules* m = nullptr;
    const auto a = std::chrono::steady_clock::now();
    const double c = cpu_seconds();
    if (sync) {
      fc_leiden_options_v2 lo;
      check(fc_leiden_options_v2_default(&lo), "fc_leiden_options_v2_default");
      lo.algorithm = FC_LEIDEN_SYNCHRONOUS;
      check(fc_leiden_v2(ctx, g, &lo, nullptr, &m), "fc_leiden_v2");
    } else if (leiden) check(fc_leiden(ctx, g, nullptr, nullptr, &m), "fc_leiden");
    else check(fc_modularity(ctx, g, &o, &m), "fc_modularity");
    r.times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - a).count());
    r.cpu.push_back(cpu_seconds() - c);
    check(fc_modules_info(m, nullptr, &r.k, &r.q, &r.splits), "fc_modules_info");
    check(fc_modules_labels(m, labels.data(), n), "fc_modules_labels");
    iters.assign(static_cast<size_t>(r.splits), 0);
    check(fc_modules_splits(m, nullptr, nullptr, nullptr, nullptr, nullptr, iters.data(), nullptr, r.splits),
          "fc_modules_splits");
    fc_modules_destroy(m);
    if (x == 0) r.labels = labels;
    else if (labels != r.labels) {
      std::fprintf(stderr, "bench_modularity: run %d gave other labels than run 0\n", x);
      r.failed = true;
    }
  }
  for (int64_t i : iters) r.products += i;
  std::sort(r.times.begin(), r.times.end());
  std::sort(r.cpu.begin(), r.cpu.end());
  fc_context_destroy(ctx);
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  std::string graph_path, save_path, labels_path, truth_path;
  std::string backend = "cpu", method = "eigen";
  int reps = 3, threads = 0;
  int64_t max_communities = 0, nodes = 38400, communities = 40;
  double degree_in = 19.0, degree_out = 19.0, density = 0;
  int64_t voxel_t = 0, windows = 50, window_length = 60, window_step = 20, top_k = 10;
  double omega = 1.0;
  for (int a = 1; a + 1 < argc; a += 2) {
    const std::string k = argv[a];
    if (k == "--graph") graph_path = argv[a + 1];
    else if (k == "--save") save_path = argv[a + 1];
    else if (k == "--labels") labels_path = argv[a + 1];
    else if (k == "--truth") truth_path = argv[a + 1];
    else if (k == "--reps") reps = std::atoi(argv[a + 1]);
    else if (k == "--threads") threads = std::atoi(argv[a + 1]);
    else if (k == "--max-communities") max_communities = std::atoll(argv[a + 1]);
    else if (k == "--backend") backend = argv[a + 1];
    else if (k == "--nodes") nodes = std::atoll(argv[a + 1]);
    else if (k == "--communities") communities = std::atoll(argv[a + 1]);
    else if (k == "--degree-in") degree_in = std::atof(argv[a + 1]);
    else if (k == "--degree-out") degree_out = std::atof(argv[a + 1]);
    else if (k == "--voxel-samples") voxel_t = std::atoll(argv[a + 1]);
    else if (k == "--density") density = std::atof(argv[a + 1]);
    else if (k == "--method") method = argv[a + 1];
    else if (k == "--windows") windows = std::atoll(argv[a + 1]);
    else if (k == "--window-length") window_length = std::atoll(argv[a + 1]);
    else if (k == "--step") window_step = std::atoll(argv[a + 1]);
    else if (k == "--top-k") top_k = std::atoll(argv[a + 1]);
    else if (k == "--omega") omega = std::atof(argv[a + 1]);
    else {
      std::fprintf(stderr,
                   "usage: bench_modularity [--graph FILE] [--save FILE] [--labels FILE] [--truth FILE] [--reps R] "
                   "[--threads P] [--max-communities K] [--backend cpu|cuda|both] [--nodes N] [--communities C] "
                   "[--degree-in D] [--degree-out D] [--voxel-samples T --density F] [--method eigen|leiden|leiden-sync|multilayer]\n"
                   "       multilayer: [--nodes N] [--communities C] [--windows W] [--window-length L] [--step S] "
                   "[--top-k K] [--omega W]\n");
      return 2;
    }
  }
  if (backend != "cpu" && backend != "cuda" && backend != "both") {
    std::fprintf(stderr, "bench_modularity: --backend %s is not cpu, cuda or both\n", backend.c_str());
    return 2;
  }
  if (method != "eigen" && method != "leiden" && method != "leiden-sync" && method != "multilayer") {
    std::fprintf(stderr, "bench_modularity: --method %s is not eigen, leiden, leiden-sync or multilayer\n", method.c_str());
    return 2;
  }
  const bool sync = method == "leiden-sync";
  const bool leiden = method == "leiden" || sync;
  if (threads <= 0) threads = omp_get_max_threads();
  if (method == "multilayer")
    return multilayer_bench(nodes, communities, windows, window_length, window_step, top_k, omega, threads, reps);
  std::vector<int64_t> truth;
  fc_graph* g = nullptr;
  const auto t0 = std::chrono::steady_clock::now();
  const bool voxels = voxel_t > 0;
  if (voxels) g = voxel_network(nodes, voxel_t, communities, density, 20240611, truth);
  else if (graph_path.empty()) g = planted(nodes, communities, degree_in, degree_out, 20240611, truth);
  else check(fc_graph_load(graph_path.c_str(), &g), "fc_graph_load");
  const double build_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  int64_t n = 0, edges = 0;
  check(fc_graph_info(g, &n, &edges), "fc_graph_info");
  if (!save_path.empty()) check(fc_graph_save(g, save_path.c_str()), "fc_graph_save");
  if (!truth_path.empty() && !truth.empty()) {
    std::ofstream f(truth_path);
    for (int64_t l : truth) f << l << '\n';
  }

  fc_modularity_options o;
  check(fc_modularity_options_default(&o), "fc_modularity_options_default");
  o.max_communities = max_communities;
  std::printf("graph: %s, %lld nodes, %lld edges (built/loaded in %.2f s)\n",
              voxels ? ("voxel network (fc_pcc_graph, density " + std::to_string(density) + ", binary) of " +
                        std::to_string(nodes) + " series x " + std::to_string(voxel_t) + " samples in " +
                        std::to_string(communities) + " networks, seed 20240611").c_str()
              : graph_path.empty() ? ("planted partition " + std::to_string(communities) + " x " +
                                      std::to_string(nodes / communities) + ", seed 20240611").c_str()
                                   : graph_path.c_str(),
              (long long)n, (long long)edges, build_s);
  std::vector<int64_t> labels, cpu_labels;
  for (const fc_backend kind : {FC_BACKEND_CPU, FC_BACKEND_CUDA}) {
    if ((kind == FC_BACKEND_CPU && backend == "cuda") || (kind == FC_BACKEND_CUDA && backend == "cpu")) continue;
    const Run r = run(g, kind, threads, reps, o, leiden, sync);
    if (r.failed) return 3;
    labels = r.labels;
    std::printf("fastconn %s (%s): median %.3f s of %d (min %.3f, max %.3f); CPU time (all threads) median %.3f s\n",
                sync ? "fc_leiden_v2 (synchronous)" : leiden ? "fc_leiden" : "fc_modularity", r.backend.c_str(), r.times[r.times.size() / 2], reps,
                r.times.front(), r.times.back(), r.cpu[r.cpu.size() / 2]);
    double q_check = 0;
    check(fc_modularity_score(g, labels.data(), 1.0, &q_check), "fc_modularity_score");
    std::printf("Q = %.12f  K = %lld  splits = %lld  eigensolver products = %lld  score(Q) = %.12f\n", r.q,
                (long long)r.k, (long long)r.splits, (long long)r.products, q_check);
    if (kind == FC_BACKEND_CPU) cpu_labels = labels;
    else if (!cpu_labels.empty())
      std::printf("labels of the CUDA backend %s those of the CPU backend\n", labels == cpu_labels ? "equal" : "DIFFER FROM");
    if (!truth.empty()) {
      double q_truth = 0;
      check(fc_modularity_score(g, truth.data(), 1.0, &q_truth), "fc_modularity_score");
      std::printf("%s: Q = %.12f, NMI(fastconn, %s) = %.6f\n", voxels ? "the series' networks" : "planted partition",
                  q_truth, voxels ? "networks" : "planted", nmi(labels, truth));
    }
  }
  if (!labels_path.empty()) {
    std::ofstream f(labels_path);
    for (int64_t l : labels) f << l << '\n';
  }
  fc_graph_destroy(g);
  return 0;
}
