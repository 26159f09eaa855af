// fc_leiden_v2 (issue 31): FC_LEIDEN_QUEUE gives fc_leiden's result bit for bit; the synchronous
// Leiden (FC_LEIDEN_SYNCHRONOUS) gives, on every backend and thread count, the CPU backend's labels
// on one thread (so the CUDA engine's are the host's), with Q equal to fc_modularity_score's,
// connected communities, planted partitions recovered, the karate club near its optimum, CPM,
// signed and weighted graphs, initial labels, isolated nodes; bad options are named.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "backend_test.hpp"
#include "fastconn/fastconn.h"
#include "leiden_checks.hpp"
#include "modularity_graphs.hpp"

namespace {

using namespace fctest;
using modtest::Edge;
using modtest::Graph;
using modtest::kKarate;
using modtest::communities_connected;
using modtest::karate;
using modtest::nmi;
using modtest::planted;

struct Result {
  int64_t k = 0;
  double q = 0;
  std::vector<int64_t> labels;
};

fc_leiden_options_v2 sync_options() {
  fc_leiden_options_v2 o;
  EXPECT_EQ(fc_leiden_options_v2_default(&o), FC_OK);
  o.algorithm = FC_LEIDEN_SYNCHRONOUS;
  return o;
}

Result run(fc_context* ctx, const Graph& g, const fc_leiden_options_v2* o, const int64_t* initial = nullptr) {
  fc_modules* m = nullptr;
  Result r;
  EXPECT_EQ(fc_leiden_v2(ctx, g.g, o, initial, &m), FC_OK) << fc_last_error();
  if (m == nullptr) return r;
  int64_t n = 0, splits = -1;
  EXPECT_EQ(fc_modules_info(m, &n, &r.k, &r.q, &splits), FC_OK);
  EXPECT_EQ(splits, 0);
  r.labels.resize(size_t(n));
  if (n > 0) {
    EXPECT_EQ(fc_modules_labels(m, r.labels.data(), n), FC_OK);
  }
  fc_modules_destroy(m);
  return r;
}

// The CPU backend on `threads` threads.
Result on_cpu(const Graph& g, const fc_leiden_options_v2& o, int threads, const int64_t* initial = nullptr) {
  Context c(FC_BACKEND_CPU);
  EXPECT_EQ(fc_context_set_threads(c.get(), threads), FC_OK);
  return run(c.get(), g, &o, initial);
}

double score(const Graph& g, const std::vector<int64_t>& labels, double gamma = 1.0) {
  double q = 0;
  EXPECT_EQ(fc_modularity_score(g.g, labels.data(), gamma, &q), FC_OK) << fc_last_error();
  return q;
}



// A graph whose weights are not a power of 2 and differ entry by entry (the fixed point's rounding
// and the sums' order matter), with two isolated nodes.
Graph noisy_weighted(int64_t k, int64_t size, uint64_t seed, std::vector<int64_t>& truth) {
  const Graph p = planted(k, size, 0.35, 0.03, seed, truth);
  std::vector<Edge> e;
  fc::SplitMix64 rng(seed * 7 + 1);
  for (const Edge& x : p.edges) e.push_back({x.i, x.j, float(0.1 + 0.9 * rng.uniform()) * (truth[size_t(x.i)] == truth[size_t(x.j)] ? 1.0f : 0.6f)});
  truth.push_back(-1);
  truth.push_back(-2);
  return Graph(p.n + 2, e);  // the last two nodes have no edge
}

class LeidenSync : public BackendTest {
 protected:
  // The tested backend's labels equal the CPU backend's on 1 and 2 threads; returns them.
  Result same_everywhere(const Graph& g, const fc_leiden_options_v2& o, const int64_t* initial = nullptr) {
    const Result one = on_cpu(g, o, 1, initial);
    const Result two = on_cpu(g, o, 2, initial);
    EXPECT_EQ(two.labels, one.labels);
    EXPECT_EQ(two.q, one.q);
    Context c(backend());
    const Result tested = run(c.get(), g, &o, initial);
    EXPECT_EQ(tested.labels, one.labels) << backend_name(backend());
    EXPECT_EQ(tested.q, one.q);
    EXPECT_EQ(tested.k, one.k);
    return tested;
  }
};

TEST_P(LeidenSync, KarateClubNearTheOptimum) {
  const Graph g = karate();
  for (uint64_t seed : {1, 2, 3}) {
    fc_leiden_options_v2 o = sync_options();
    o.base.seed = seed;
    const Result r = same_everywhere(g, o);
    EXPECT_EQ(r.q, score(g, r.labels));
    EXPECT_GE(r.q, 0.40) << "seed " << seed;  // the optimum is 0.4197896 (Brandes et al. 2008)
    EXPECT_TRUE(communities_connected(g, r.labels));
  }
}

TEST_P(LeidenSync, PlantedPartitionsRecovered) {
  struct P { int64_t k, size; double p_in, p_out; } cases[] = {
      {2, 20, 0.6, 0.05}, {4, 25, 0.5, 0.03}, {8, 40, 0.4, 0.01}, {16, 60, 0.3, 0.004}, {40, 25, 0.5, 0.002}};
  for (const P& p : cases) {
    SCOPED_TRACE(std::to_string(p.k) + " x " + std::to_string(p.size));
    std::vector<int64_t> truth;
    const Graph g = planted(p.k, p.size, p.p_in, p.p_out, 100 + uint64_t(p.k), truth);
    const Result r = same_everywhere(g, sync_options());
    EXPECT_EQ(r.k, p.k);
    EXPECT_GE(nmi(r.labels, truth), 1 - 1e-12);
    EXPECT_EQ(r.q, score(g, r.labels));
    EXPECT_TRUE(communities_connected(g, r.labels));
  }
}

TEST_P(LeidenSync, WeightedSignedAndCpm) {
  std::vector<int64_t> truth;
  const Graph w = noisy_weighted(12, 50, 21, truth);
  Result r = same_everywhere(w, sync_options());
  EXPECT_GE(nmi(r.labels, truth), 0.99);
  EXPECT_EQ(r.q, score(w, r.labels));
  EXPECT_TRUE(communities_connected(w, r.labels));
  EXPECT_EQ(r.labels[size_t(w.n - 1)] != r.labels[size_t(w.n - 2)], true);  // isolated: alone

  const Graph s = planted(5, 30, 0.3, 0.2, 8, truth, 1.0, -0.5);
  for (int32_t mode : {FC_SIGNED_GOMEZ, FC_SIGNED_RUBINOV}) {
    fc_leiden_options_v2 o = sync_options();
    o.base.signed_mode = mode;
    r = same_everywhere(s, o);
    EXPECT_GE(nmi(r.labels, truth), 0.99) << "signed mode " << mode;
    EXPECT_TRUE(communities_connected(s, r.labels));
  }

  const Graph g = planted(8, 40, 0.4, 0.01, 11, truth);
  fc_leiden_options_v2 o = sync_options();
  o.base.quality = FC_LEIDEN_CPM;
  o.base.resolution = 0.1;
  r = same_everywhere(g, o);
  EXPECT_GE(nmi(r.labels, truth), 1 - 1e-12);
  EXPECT_EQ(r.q, score(g, r.labels, 1.0));
  o.base.resolution = 0.9;  // above the density inside: many small connected communities
  r = same_everywhere(g, o);
  EXPECT_GT(r.k, 8 * 4);
  EXPECT_TRUE(communities_connected(g, r.labels));
  o = sync_options();
  o.base.resolution = 2.5;
  r = same_everywhere(g, o);
  EXPECT_EQ(r.q, score(g, r.labels, 2.5));
  EXPECT_GE(r.k, 8);
}

TEST_P(LeidenSync, InitialLabelsAndPasses) {
  std::vector<int64_t> truth;
  const Graph p = planted(4, 25, 0.5, 0.0, 5, truth);
  std::vector<int64_t> joined(truth);
  for (int64_t& x : joined) x = x == 1 ? 0 : 1000 + x;  // two planted communities with no edge between them
  fc_leiden_options_v2 o = sync_options();
  o.base.max_iterations = 1;
  const Result r = same_everywhere(p, o, joined.data());
  EXPECT_GE(nmi(r.labels, truth), 1 - 1e-12);  // refinement (or the final split) separates them
  // a start at the planted partition is kept
  const Result kept = same_everywhere(p, sync_options(), truth.data());
  EXPECT_GE(nmi(kept.labels, truth), 1 - 1e-12);
}

TEST_P(LeidenSync, SmallAndEdgelessGraphs) {
  for (int64_t n : {0, 1, 2, 3}) {
    const Graph none(n, {});
    const Result z = same_everywhere(none, sync_options());
    EXPECT_EQ(z.k, n);
    EXPECT_EQ(z.q, 0.0);
  }
  const Graph pair(2, {{0, 1, 1.0}});
  EXPECT_EQ(same_everywhere(pair, sync_options()).k, 1);
  const Graph path(3, {{0, 1, 1.0}, {1, 2, 1.0}});
  const Result r = same_everywhere(path, sync_options());
  EXPECT_EQ(r.q, score(path, r.labels));
  const Graph zero(3, {{0, 1, 0.0}, {1, 2, 0.0}});  // weight-0 edges only: no edge
  EXPECT_EQ(same_everywhere(zero, sync_options()).k, 3);
}

TEST_P(LeidenSync, LargerGraphsEveryBackendAlike) {
  // A prime node count, weights of every size, several levels and passes.
  std::vector<int64_t> truth;
  const Graph w = noisy_weighted(37, 53, 77, truth);  // 1,963 nodes
  const Result r = same_everywhere(w, sync_options());
  EXPECT_GE(nmi(r.labels, truth), 0.95);
  EXPECT_TRUE(communities_connected(w, r.labels));
  const Graph b = planted(61, 97, 0.12, 0.002, 78, truth);  // 5,917 nodes, unit weights
  const Result rb = same_everywhere(b, sync_options());
  EXPECT_GE(nmi(rb.labels, truth), 0.95);
  EXPECT_EQ(rb.q, score(b, rb.labels));
}

TEST_P(LeidenSync, MemoryLimitAndCancel) {
  std::vector<int64_t> truth;
  const Graph g = planted(16, 60, 0.3, 0.004, 116, truth);
  const fc_leiden_options_v2 o = sync_options();
  const Result expected = on_cpu(g, o, 1);
  // 1 MiB is below the CUDA engine's bytes: the host engine runs, with the same labels.
  Context small(backend());
  small.memory_limit(int64_t(1) << 20);
  EXPECT_EQ(run(small.get(), g, &o).labels, expected.labels);
  // The progress callback is asked between levels; a non-zero return cancels, the output untouched.
  int calls = 0;
  Context c(backend());
  c.progress([](int64_t, int64_t, void* user) { return ++*static_cast<int*>(user) >= 2 ? 1 : 0; }, &calls);
  fc_modules* sentinel = reinterpret_cast<fc_modules*>(0x1);
  EXPECT_EQ(fc_leiden_v2(c.get(), g.g, &o, nullptr, &sentinel), FC_ERR_ABORTED);
  EXPECT_EQ(sentinel, reinterpret_cast<fc_modules*>(0x1));
  EXPECT_GE(calls, 2);
  // and the context works on after it
  c.progress(nullptr, nullptr);
  EXPECT_EQ(run(c.get(), g, &o).labels, expected.labels);
}

INSTANTIATE_TEST_SUITE_P(Backends, LeidenSync, ::testing::Values(FC_BACKEND_CPU, FC_BACKEND_CUDA),
                         [](const ::testing::TestParamInfo<fc_backend>& info) { return backend_name(info.param); });

TEST(LeidenV2, QueueIsFcLeidenBitForBit) {
  std::vector<int64_t> truth;
  const Graph g = noisy_weighted(10, 40, 3, truth);
  fc_leiden_options_v2 o;
  ASSERT_EQ(fc_leiden_options_v2_default(&o), FC_OK);
  EXPECT_EQ(o.size, sizeof(fc_leiden_options_v2));
  EXPECT_EQ(o.algorithm, FC_LEIDEN_QUEUE);
  o.base.seed = 9;
  Context c(FC_BACKEND_CPU);
  fc_modules* m = nullptr;
  ASSERT_EQ(fc_leiden(c.get(), g.g, &o.base, nullptr, &m), FC_OK);
  std::vector<int64_t> expected(size_t(g.n));
  double q = 0;
  fc_modules_info(m, nullptr, nullptr, &q, nullptr);
  fc_modules_labels(m, expected.data(), g.n);
  fc_modules_destroy(m);
  const Result r = run(c.get(), g, &o);
  EXPECT_EQ(r.labels, expected);
  EXPECT_EQ(r.q, q);
  const Result d = run(c.get(), g, nullptr);  // NULL options: the defaults, the queue
  o.base.seed = 1;
  EXPECT_EQ(d.labels, run(c.get(), g, &o).labels);
}

TEST(LeidenV2, BadOptionsNamedAndOutputUntouched) {
  const Graph g = karate();
  Context c(FC_BACKEND_CPU);
  fc_modules* sentinel = reinterpret_cast<fc_modules*>(0x1);
  fc_leiden_options_v2 o = sync_options();
  o.size = sizeof(fc_leiden_options_v2) - 1;
  EXPECT_EQ(fc_leiden_v2(c.get(), g.g, &o, nullptr, &sentinel), FC_ERR_INVALID_ARG);
  EXPECT_NE(std::string(fc_last_error()).find("options->size"), std::string::npos) << fc_last_error();
  o = sync_options();
  o.algorithm = 7;
  EXPECT_EQ(fc_leiden_v2(c.get(), g.g, &o, nullptr, &sentinel), FC_ERR_INVALID_ARG);
  EXPECT_NE(std::string(fc_last_error()).find("options->algorithm 7"), std::string::npos) << fc_last_error();
  o = sync_options();
  o.base.resolution = -1;
  EXPECT_EQ(fc_leiden_v2(c.get(), g.g, &o, nullptr, &sentinel), FC_ERR_INVALID_ARG);
  EXPECT_NE(std::string(fc_last_error()).find("options->resolution"), std::string::npos) << fc_last_error();
  std::vector<int64_t> labels(34, 0);
  labels[5] = -3;
  o = sync_options();
  EXPECT_EQ(fc_leiden_v2(c.get(), g.g, &o, labels.data(), &sentinel), FC_ERR_INVALID_ARG);
  EXPECT_NE(std::string(fc_last_error()).find("initial_labels[5]"), std::string::npos) << fc_last_error();
  EXPECT_EQ(sentinel, reinterpret_cast<fc_modules*>(0x1));
  EXPECT_EQ(fc_leiden_v2(c.get(), g.g, &o, nullptr, nullptr), FC_ERR_NULL_ARG);
  EXPECT_EQ(fc_leiden_v2(nullptr, g.g, &o, nullptr, &sentinel), FC_ERR_NULL_ARG);
  EXPECT_EQ(fc_leiden_v2(c.get(), nullptr, &o, nullptr, &sentinel), FC_ERR_NULL_ARG);
  EXPECT_EQ(fc_leiden_options_v2_default(nullptr), FC_ERR_NULL_ARG);
  EXPECT_EQ(sentinel, reinterpret_cast<fc_modules*>(0x1));
}

}  // namespace
