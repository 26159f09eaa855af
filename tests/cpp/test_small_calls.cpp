// Small calls (issue 29, item 10): parallel regions are sized by their work (base/parallel_team.hpp),
// so a call of the sizes R and Python users make in loops runs on the calling thread alone. Here:
// (1) such calls start no thread, even with a context of 4 threads; (2) every output is the same
// bits with 1, 2, 3 and 4 threads, for small shapes (one thread does the work) and for shapes
// past the grain (a team does), so that sizing a team never changes a value.
//
// (1) counts the threads of this process (/proc/self/task) before and after; it is the first test
// of the file so that, run as one process, no team exists yet (ctest runs each test alone).
#include <gtest/gtest.h>

#include <dirent.h>

#include <cstdint>
#include <cstring>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "fastconn/fastconn.h"

namespace {

void check(fc_status st, const char* what) {
  if (st != FC_OK) throw std::runtime_error(std::string(what) + ": " + fc_last_error());
}

int process_threads() {
  int count = 0;
  if (DIR* d = opendir("/proc/self/task")) {
    while (const dirent* e = readdir(d))
      if (e->d_name[0] != '.') ++count;
    closedir(d);
  }
  return count;
}

// n series x t samples, series-major, correlated neighbours so that r spreads over (-1, 1).
std::vector<double> make_data(int64_t n, int64_t t, uint64_t seed) {
  std::vector<double> x(static_cast<size_t>(n * t));
  uint64_t state = seed * 2654435761u + 1;
  for (auto& v : x) {
    state ^= state >> 12;
    state ^= state << 25;
    state ^= state >> 27;
    v = static_cast<double>((state * 2685821657736338717ULL) >> 11) * (1.0 / 9007199254740992.0) - 0.5;
  }
  for (int64_t s = 1; s < n; ++s)
    for (int64_t k = 0; k < t; ++k) x[static_cast<size_t>(s * t + k)] += 0.6 * x[static_cast<size_t>((s - 1) * t + k)];
  return x;
}

// Every output of the calls a small loop makes, as raw bytes (NaN compares by its bits).
struct Outputs {
  std::vector<std::string> named;
  void add(const char* name, const void* p, size_t bytes) {
    named.push_back(std::string(name) + ":" + std::string(static_cast<const char*>(p), bytes));
  }
  template <class T>
  void add(const char* name, const std::vector<T>& v) {
    add(name, v.data(), v.size() * sizeof(T));
  }
};

Outputs compute(int threads, int64_t n, int64_t t, int64_t window) {
  Outputs o;
  const std::vector<double> x = make_data(n, t, 7), y = make_data(n / 2 + 1, t, 11);
  fc_context* ctx = nullptr;
  fc_series *s = nullptr, *b = nullptr;
  check(fc_context_create(FC_BACKEND_CPU, -1, &ctx), "fc_context_create");
  check(fc_context_set_threads(ctx, threads), "fc_context_set_threads");
  check(fc_series_create_f64(ctx, x.data(), n, t, t, 1, &s), "fc_series_create_f64");
  check(fc_series_create_f64(ctx, y.data(), n / 2 + 1, t, t, 1, &b), "fc_series_create_f64");
  const int64_t pairs = fc_triu_size(n);

  std::vector<float> f(static_cast<size_t>(pairs));
  std::vector<double> d(static_cast<size_t>(pairs));
  check(fc_pcc_triu(ctx, s, FC_TRIU_ROW, f.data(), pairs), "fc_pcc_triu row");
  o.add("triu_row", f);
  check(fc_pcc_triu(ctx, s, FC_TRIU_COL, f.data(), pairs), "fc_pcc_triu col");
  o.add("triu_col", f);
  check(fc_pcc_triu_f64(ctx, s, FC_TRIU_ROW, d.data(), pairs), "fc_pcc_triu_f64");
  o.add("triu_f64", d);
  std::vector<float> dense(static_cast<size_t>(n * n)), cross(static_cast<size_t>(n * (n / 2 + 1)));
  check(fc_pcc_dense(ctx, s, dense.data(), n), "fc_pcc_dense");
  o.add("dense", dense);
  check(fc_pcc_cross(ctx, s, b, cross.data(), n / 2 + 1), "fc_pcc_cross");
  o.add("cross", cross);

  const struct {
    const char* name;
    fc_edge_rule rule;
    double param;
  } rules[] = {{"abs", FC_EDGE_ABS_THRESHOLD, 0.3}, {"density", FC_EDGE_DENSITY, 0.1}, {"top_k", FC_EDGE_TOP_K, 3}};
  fc_graph* kept = nullptr;
  for (const auto& r : rules) {
    fc_graph* g = nullptr;
    check(fc_pcc_graph(ctx, s, r.rule, r.param, FC_GRAPH_WEIGHTED, &g), "fc_pcc_graph");
    int64_t nodes = 0, edges = 0;
    check(fc_graph_info(g, &nodes, &edges), "fc_graph_info");
    std::vector<int64_t> offsets(static_cast<size_t>(nodes + 1)), columns(static_cast<size_t>(2 * edges));
    std::vector<float> weights(static_cast<size_t>(2 * edges));
    check(fc_graph_csr(g, offsets.data(), columns.data(), weights.data(), 2 * edges), "fc_graph_csr");
    o.add(r.name, offsets);
    o.add(r.name, columns);
    o.add(r.name, weights);
    std::vector<int64_t> degree(static_cast<size_t>(n));
    std::vector<double> strength(static_cast<size_t>(n));
    check(fc_pcc_degree(ctx, s, r.rule == FC_EDGE_TOP_K ? FC_EDGE_ABS_THRESHOLD : r.rule, r.rule == FC_EDGE_TOP_K ? 0.5 : r.param,
                        degree.data(), strength.data()),
          "fc_pcc_degree");
    o.add("degree", degree);
    o.add("strength", strength);
    if (r.rule == FC_EDGE_ABS_THRESHOLD) kept = g;
    else fc_graph_destroy(g);
  }
  fc_modularity_options options;
  check(fc_modularity_options_default(&options), "fc_modularity_options_default");
  fc_modules* m = nullptr;
  check(fc_modularity(ctx, kept, &options, &m), "fc_modularity");
  std::vector<int64_t> labels(static_cast<size_t>(n));
  double q = 0.0;
  check(fc_modules_labels(m, labels.data(), n), "fc_modules_labels");
  check(fc_modules_info(m, nullptr, nullptr, &q, nullptr), "fc_modules_info");
  o.add("labels", labels);
  o.add("q", &q, sizeof q);
  fc_modules_destroy(m);
  fc_graph_destroy(kept);

  const int64_t step = 5, windows = fc_window_count(t, window, step), rank = 3;
  std::vector<float> dfc(static_cast<size_t>(windows * pairs)), factors(static_cast<size_t>(windows * n * rank));
  std::vector<int64_t> wdegree(static_cast<size_t>(windows * n));
  std::vector<double> wstrength(static_cast<size_t>(windows * n)), error(static_cast<size_t>(windows));
  check(fc_dfc_triu(ctx, s, window, step, 0, 0.0, FC_TRIU_ROW, dfc.data(), windows * pairs), "fc_dfc_triu");
  o.add("dfc_triu", dfc);
  check(fc_dfc_degree(ctx, s, window, step, 0, 0.0, FC_EDGE_ABS_THRESHOLD, 0.4, wdegree.data(), wstrength.data()), "fc_dfc_degree");
  o.add("dfc_degree", wdegree);
  o.add("dfc_strength", wstrength);
  check(fc_dfc_lowrank(ctx, s, window, step, 0, 0.0, rank, factors.data(), windows * n * rank, error.data()), "fc_dfc_lowrank");
  o.add("dfc_lowrank", factors);
  o.add("dfc_error", error);

  fc_series_destroy(b);
  fc_series_destroy(s);
  fc_context_destroy(ctx);
  return o;
}

void expect_same(const Outputs& a, const Outputs& b, int threads) {
  ASSERT_EQ(a.named.size(), b.named.size());
  for (size_t k = 0; k < a.named.size(); ++k)
    EXPECT_TRUE(a.named[k] == b.named[k]) << a.named[k].substr(0, a.named[k].find(':')) << " differs with " << threads
                                          << " threads";
}

// The sizes: 31 regions x 250 samples, windows of 30 (45 of them).
TEST(SmallCalls, StartNoThread) {
  const int before = process_threads();
  ASSERT_GT(before, 0);
  Outputs o = compute(4, 31, 250, 30);
  EXPECT_FALSE(o.named.empty());
  EXPECT_EQ(process_threads(), before) << "a small call started (and kept) threads";
}

struct Shape {
  int64_t n, t, window;
};
void PrintTo(const Shape& s, std::ostream* os) { *os << s.n << " series x " << s.t << " samples, windows of " << s.window; }

class SmallCallsBits : public ::testing::TestWithParam<Shape> {};

TEST_P(SmallCallsBits, SameBitsWithAnyThreadCount) {
  const Shape sh = GetParam();
  const Outputs one = compute(1, sh.n, sh.t, sh.window);
  // At most 4 threads: clang's libomp leaks a hot team's buffers when a team grows past 4 after a
  // smaller one, which the ASan run's LeakSanitizer reports (as for test_final_moves).
  for (int threads : {2, 3, 4}) expect_same(one, compute(threads, sh.n, sh.t, sh.window), threads);
}

// Below the grain everywhere (31 x 250, 5 x 40), and past it: 600 series make several tiles and
// rows enough for teams in every region, so the team's split is compared to one thread's.
INSTANTIATE_TEST_SUITE_P(Shapes, SmallCallsBits,
                         ::testing::Values(Shape{31, 250, 30}, Shape{5, 40, 10}, Shape{600, 120, 60}),
                         [](const ::testing::TestParamInfo<Shape>& info) {
                           return "n" + std::to_string(info.param.n) + "_t" + std::to_string(info.param.t);
                         });

}  // namespace
