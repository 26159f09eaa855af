// CPU benchmark of modules (issue 11): fc_modularity on a planted-partition graph (38,400 nodes,
// 40 communities of 960, expected degree 19 inside + 19 outside: ~729,600 edges, fixed seed) or on
// a graph file (fc_graph_load), on the CPU backend. Prints the median time of --reps runs, Q, K,
// the splits, and for the planted graph the normalized mutual information with the planted
// communities. bench/modularity/peers.py times igraph and networkx on the same graph (--save
// writes it in fastconn's graph file format, --labels writes fastconn's labels, one per line).
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "fastconn/fastconn.h"

namespace {

void check(fc_status st, const char* what) {
  if (st != FC_OK) {
    std::fprintf(stderr, "bench_modularity: %s failed: %s: %s\n", what, fc_status_string(st), fc_last_error());
    std::exit(1);
  }
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

}  // namespace

int main(int argc, char** argv) {
  std::string graph_path, save_path, labels_path, truth_path;
  int reps = 3, threads = 0;
  int64_t max_communities = 0;
  for (int a = 1; a + 1 < argc; a += 2) {
    const std::string k = argv[a];
    if (k == "--graph") graph_path = argv[a + 1];
    else if (k == "--save") save_path = argv[a + 1];
    else if (k == "--labels") labels_path = argv[a + 1];
    else if (k == "--truth") truth_path = argv[a + 1];
    else if (k == "--reps") reps = std::atoi(argv[a + 1]);
    else if (k == "--threads") threads = std::atoi(argv[a + 1]);
    else if (k == "--max-communities") max_communities = std::atoll(argv[a + 1]);
    else {
      std::fprintf(stderr,
                   "usage: bench_modularity [--graph FILE] [--save FILE] [--labels FILE] [--truth FILE] [--reps R] "
                   "[--threads P] [--max-communities K]\n");
      return 2;
    }
  }
  if (threads <= 0) threads = omp_get_max_threads();
  std::vector<int64_t> truth;
  fc_graph* g = nullptr;
  const auto t0 = std::chrono::steady_clock::now();
  if (graph_path.empty()) g = planted(38400, 40, 19.0, 19.0, 20240611, truth);
  else check(fc_graph_load(graph_path.c_str(), &g), "fc_graph_load");
  const double build_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  int64_t n = 0, edges = 0;
  check(fc_graph_info(g, &n, &edges), "fc_graph_info");
  if (!save_path.empty()) check(fc_graph_save(g, save_path.c_str()), "fc_graph_save");
  if (!truth_path.empty() && !truth.empty()) {
    std::ofstream f(truth_path);
    for (int64_t l : truth) f << l << '\n';
  }

  fc_context* ctx = nullptr;
  check(fc_context_create(FC_BACKEND_CPU, -1, &ctx), "fc_context_create");
  check(fc_context_set_threads(ctx, threads), "fc_context_set_threads");
  fc_modularity_options o;
  check(fc_modularity_options_default(&o), "fc_modularity_options_default");
  o.max_communities = max_communities;
  std::vector<double> times;
  std::vector<int64_t> labels(static_cast<size_t>(n)), first;
  int64_t k = 0, splits = 0;
  double q = 0;
  std::vector<int64_t> iters;
  for (int r = 0; r < reps; ++r) {
    fc_modules* m = nullptr;
    const auto a = std::chrono::steady_clock::now();
    check(fc_modularity(ctx, g, &o, &m), "fc_modularity");
    times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - a).count());
    check(fc_modules_info(m, nullptr, &k, &q, &splits), "fc_modules_info");
    check(fc_modules_labels(m, labels.data(), n), "fc_modules_labels");
    iters.assign(static_cast<size_t>(splits), 0);
    check(fc_modules_splits(m, nullptr, nullptr, nullptr, nullptr, nullptr, iters.data(), nullptr, splits), "fc_modules_splits");
    fc_modules_destroy(m);
    if (r == 0) first = labels;
    else if (labels != first) {
      std::fprintf(stderr, "bench_modularity: run %d gave other labels than run 0\n", r);
      return 3;
    }
  }
  double q_check = 0;
  check(fc_modularity_score(g, labels.data(), 1.0, &q_check), "fc_modularity_score");
  std::sort(times.begin(), times.end());
  int64_t products = 0;
  for (int64_t x : iters) products += x;
  std::printf("graph: %s, %lld nodes, %lld edges (built/loaded in %.2f s)\n",
              graph_path.empty() ? "planted partition 40 x 960, seed 20240611" : graph_path.c_str(), (long long)n,
              (long long)edges, build_s);
  std::printf("fastconn fc_modularity (CPU, %d threads): median %.3f s of %d (min %.3f, max %.3f)\n", threads,
              times[times.size() / 2], reps, times.front(), times.back());
  std::printf("Q = %.12f  K = %lld  splits = %lld  eigensolver products = %lld  score(Q) = %.12f\n", q, (long long)k,
              (long long)splits, (long long)products, q_check);
  if (!truth.empty()) {
    double q_truth = 0;
    check(fc_modularity_score(g, truth.data(), 1.0, &q_truth), "fc_modularity_score");
    std::printf("planted partition: Q = %.12f, NMI(fastconn, planted) = %.6f\n", q_truth, nmi(labels, truth));
  }
  if (!labels_path.empty()) {
    std::ofstream f(labels_path);
    for (int64_t l : labels) f << l << '\n';
  }
  fc_graph_destroy(g);
  fc_context_destroy(ctx);
  return 0;
}
