// Multilayer modularity (fc_multilayer_modularity, modules/multilayer.hpp) through the public API:
// Q of the returned labels equal to Mucha et al.'s formula computed here from dense matrices;
// omega = 0 gives each layer its own optimum (planted partitions recovered, Q per layer at least
// fc_leiden's); large omega gives one partition in every layer; flexibility and allegiance
// against their definitions; the same labels for every thread count.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <memory>
#include <vector>

#include "fastconn/fastconn.h"
#include "modularity_graphs.hpp"
#include "multilayer_checks.hpp"

namespace {

using modtest::Edge;
using modtest::Graph;
using modtest::planted;
using mltest::disconnected_communities;
using mltest::mucha_q;
using mltest::planted_layers;
using mltest::random_layers;
using mltest::same_partition;

struct Result {
  int64_t n = 0, layers = 0, k = 0;
  double q = 0;
  std::vector<int64_t> labels;
  std::vector<double> flexibility, allegiance;
};

Result run(const std::vector<std::unique_ptr<Graph>>& gs, const fc_multilayer_options& o,
           const double* gammas = nullptr, int threads = 0) {
  fc_context* ctx = nullptr;
  EXPECT_EQ(fc_context_create(FC_BACKEND_CPU, -1, &ctx), FC_OK);
  EXPECT_EQ(fc_context_set_threads(ctx, threads), FC_OK);
  std::vector<const fc_graph*> layers;
  for (const auto& g : gs) layers.push_back(g->g);
  fc_multilayer* m = nullptr;
  Result r;
  EXPECT_EQ(fc_multilayer_modularity(ctx, layers.data(), int64_t(layers.size()), gammas, &o, &m), FC_OK)
      << fc_last_error();
  EXPECT_EQ(fc_multilayer_info(m, &r.n, &r.layers, &r.k, &r.q), FC_OK);
  r.labels.resize(size_t(r.n * r.layers));
  r.flexibility.resize(size_t(r.n));
  r.allegiance.resize(size_t(r.n * r.n));
  EXPECT_EQ(fc_multilayer_labels(m, r.labels.data(), int64_t(r.labels.size())), FC_OK);
  EXPECT_EQ(fc_multilayer_flexibility(m, r.flexibility.data(), r.n), FC_OK);
  EXPECT_EQ(fc_multilayer_allegiance(m, r.allegiance.data(), r.n, r.n * r.n), FC_OK);
  fc_multilayer_destroy(m);
  fc_context_destroy(ctx);
  return r;
}

fc_multilayer_options options(double omega, int coupling = FC_COUPLING_ORDINAL, uint64_t seed = 1) {
  fc_multilayer_options o;
  fc_multilayer_options_default(&o);
  o.omega = omega;
  o.coupling = coupling;
  o.seed = seed;
  return o;
}

// Sparse random layers (4 layers, 40 or 150 nodes, edge probability 0.05 or 0.08; ordinal
// coupling omega 0.05, 0.3 or 1), where Louvain-style moving and aggregation alone (this call
// before its refinement step, commit e47cdd6) returned a community in pieces in 7 of the 240
// runs: now every community is connected, and Q is Mucha's formula of the labels.
TEST(Multilayer, EveryCommunityConnected) {
  int64_t runs = 0, disconnected_runs = 0;
  for (double p : {0.05, 0.08})
    for (int64_t n : {40, 150})
      for (uint64_t seed = 1; seed <= 20; ++seed)
        for (double omega : {0.05, 0.3, 1.0}) {
          const auto gs = random_layers(4, n, p, 1000 + seed);
          const Result r = run(gs, options(omega, FC_COUPLING_ORDINAL, seed));
          const int64_t pieces = disconnected_communities(gs, r.labels, omega, FC_COUPLING_ORDINAL);
          EXPECT_EQ(pieces, 0) << "p " << p << " n " << n << " seed " << seed << " omega " << omega;
          disconnected_runs += pieces > 0;
          EXPECT_NEAR(r.q, mucha_q(gs, r.labels, omega, FC_COUPLING_ORDINAL, std::vector<double>(4, 1.0)), 1e-9);
          ++runs;
          if (omega != 0.3) continue;
          // One pass only: any community still in pieces is split at the end.
          fc_multilayer_options one = options(omega, FC_COUPLING_ORDINAL, seed);
          one.max_iterations = 1;
          const Result r1 = run(gs, one);
          EXPECT_EQ(disconnected_communities(gs, r1.labels, omega, FC_COUPLING_ORDINAL), 0) << "one pass, seed " << seed;
          EXPECT_NEAR(r1.q, mucha_q(gs, r1.labels, omega, FC_COUPLING_ORDINAL, std::vector<double>(4, 1.0)), 1e-9);
        }
  EXPECT_EQ(runs, 240);
  EXPECT_EQ(disconnected_runs, 0);
}

TEST(Multilayer, QEqualsMuchaFormula) {
  for (uint64_t seed : {1u, 2u, 3u})
    for (int coupling : {FC_COUPLING_ORDINAL, FC_COUPLING_CATEGORICAL})
      for (double omega : {0.0, 0.3, 1.0, 5.0}) {
        const auto gs = random_layers(4, 12, 0.3, seed);
        const Result r = run(gs, options(omega, coupling, seed));
        const std::vector<double> gamma(gs.size(), 1.0);
        EXPECT_NEAR(r.q, mucha_q(gs, r.labels, omega, coupling, gamma), 1e-9)
            << "seed " << seed << " coupling " << coupling << " omega " << omega;
        EXPECT_GT(r.q, 0);
      }
}

TEST(Multilayer, PerLayerResolution) {
  const auto gs = random_layers(3, 15, 0.3, 11);
  const double gammas[3] = {0.5, 1.0, 2.0};
  const Result r = run(gs, options(0.5), gammas);
  EXPECT_NEAR(r.q, mucha_q(gs, r.labels, 0.5, FC_COUPLING_ORDINAL, {0.5, 1.0, 2.0}), 1e-9);
}

TEST(Multilayer, OmegaZeroGivesEachLayersOwnOptimum) {
  std::vector<std::vector<int64_t>> truth;
  const auto gs = planted_layers(3, 4, 20, 0.5, 0.02, 5, truth);
  const Result r = run(gs, options(0.0));
  fc_leiden_options lo;
  fc_leiden_options_default(&lo);
  fc_context* ctx = nullptr;
  ASSERT_EQ(fc_context_create(FC_BACKEND_CPU, -1, &ctx), FC_OK);
  for (size_t s = 0; s < gs.size(); ++s) {
    const int64_t* ls = r.labels.data() + s * size_t(r.n);
    EXPECT_TRUE(same_partition(ls, truth[s].data(), r.n)) << "layer " << s;
    fc_modules* m = nullptr;
    ASSERT_EQ(fc_leiden(ctx, gs[s]->g, &lo, nullptr, &m), FC_OK);
    double q_leiden = 0, q_layer = 0;
    fc_modules_info(m, nullptr, nullptr, &q_leiden, nullptr);
    fc_modules_destroy(m);
    ASSERT_EQ(fc_modularity_score(gs[s]->g, ls, 1.0, &q_layer), FC_OK);
    EXPECT_GE(q_layer, q_leiden - 1e-9) << "layer " << s;
  }
  fc_context_destroy(ctx);
}

TEST(Multilayer, LargeOmegaGivesOnePartition) {
  for (int coupling : {FC_COUPLING_ORDINAL, FC_COUPLING_CATEGORICAL}) {
    std::vector<std::vector<int64_t>> truth;
    const auto gs = planted_layers(4, 3, 15, 0.5, 0.05, 9, truth);
    const Result r = run(gs, options(100.0, coupling));
    for (double f : r.flexibility) EXPECT_EQ(f, 0.0);
    for (int64_t s = 1; s < r.layers; ++s)
      for (int64_t i = 0; i < r.n; ++i) EXPECT_EQ(r.labels[size_t(s * r.n + i)], r.labels[size_t(i)]);
  }
}

TEST(Multilayer, FlexibilityAndAllegianceFromLabels) {
  std::vector<std::vector<int64_t>> truth;
  const auto gs = planted_layers(6, 3, 10, 0.6, 0.1, 21, truth);
  const Result r = run(gs, options(0.2));
  const size_t N = size_t(r.n), L = size_t(r.layers);
  bool some_flexible = false;
  for (size_t i = 0; i < N; ++i) {
    int changes = 0;
    for (size_t s = 0; s + 1 < L; ++s) changes += r.labels[s * N + i] != r.labels[(s + 1) * N + i];
    EXPECT_DOUBLE_EQ(r.flexibility[i], double(changes) / double(L - 1)) << "node " << i;
    some_flexible |= changes > 0;
    for (size_t j = 0; j < N; ++j) {
      int shared = 0;
      for (size_t s = 0; s < L; ++s) shared += r.labels[s * N + i] == r.labels[s * N + j];
      EXPECT_DOUBLE_EQ(r.allegiance[i * N + j], double(shared) / double(L)) << i << " " << j;
    }
  }
  EXPECT_TRUE(some_flexible);  // the layers' partitions differ: a check that can fail
}

TEST(Multilayer, SameLabelsForEveryThreadCount) {
  std::vector<std::vector<int64_t>> truth;
  const auto gs = planted_layers(5, 4, 25, 0.4, 0.05, 33, truth);
  const Result one = run(gs, options(0.5), nullptr, 1);
  for (int threads : {2, 4}) {
    const Result r = run(gs, options(0.5), nullptr, threads);
    EXPECT_EQ(r.labels, one.labels) << threads << " threads";
    EXPECT_EQ(r.q, one.q);
  }
  const Result again = run(gs, options(0.5), nullptr, 1);
  EXPECT_EQ(again.labels, one.labels);
}

// fc_multilayer_allegiance_pairs against the dense matrix: exactly its pairs i < j at or above
// the floor, in row order, with its values bit for bit; the count query and a short buffer.
TEST(Multilayer, AllegiancePairsMatchTheDenseMatrix) {
  std::vector<std::vector<int64_t>> truth;
  const auto gs = planted_layers(7, 4, 12, 0.5, 0.08, 41, truth);
  for (double omega : {0.05, 0.3, 2.0}) {
    fc_context* ctx = nullptr;
    ASSERT_EQ(fc_context_create(FC_BACKEND_CPU, -1, &ctx), FC_OK);
    std::vector<const fc_graph*> layers;
    for (const auto& g : gs) layers.push_back(g->g);
    fc_multilayer* m = nullptr;
    const fc_multilayer_options o = options(omega);
    ASSERT_EQ(fc_multilayer_modularity(ctx, layers.data(), int64_t(layers.size()), nullptr, &o, &m), FC_OK);
    int64_t n = 0;
    fc_multilayer_info(m, &n, nullptr, nullptr, nullptr);
    std::vector<double> dense(size_t(n * n));
    ASSERT_EQ(fc_multilayer_allegiance(m, dense.data(), n, n * n), FC_OK);
    for (double floor : {1e-12, 1.0 / 7, 2.0 / 7, 0.5, 6.0 / 7, 1.0}) {
      std::vector<int64_t> want_i, want_j;
      std::vector<double> want_v;
      for (int64_t i = 0; i < n; ++i)
        for (int64_t j = i + 1; j < n; ++j)
          if (dense[size_t(i * n + j)] >= floor) {
            want_i.push_back(i);
            want_j.push_back(j);
            want_v.push_back(dense[size_t(i * n + j)]);
          }
      int64_t count = -1;
      ASSERT_EQ(fc_multilayer_allegiance_pairs(m, floor, nullptr, nullptr, nullptr, 0, &count), FC_OK);
      ASSERT_EQ(count, int64_t(want_i.size())) << "omega " << omega << " floor " << floor;
      std::vector<int64_t> pi(size_t(count) + 1, -5), pj(size_t(count) + 1, -5);
      std::vector<double> pv(size_t(count) + 1, -5);
      if (count > 1) {  // (count 1: capacity 0 is the header's count query, FC_OK)
        EXPECT_EQ(fc_multilayer_allegiance_pairs(m, floor, pi.data(), pj.data(), pv.data(), count - 1, &count),
                  FC_ERR_BUFFER_TOO_SMALL);
        EXPECT_EQ(count, int64_t(want_i.size()));
        EXPECT_EQ(pi[0], -5);
      }
      ASSERT_EQ(fc_multilayer_allegiance_pairs(m, floor, pi.data(), pj.data(), pv.data(), count + 1, &count), FC_OK);
      pi.pop_back(), pj.pop_back(), pv.pop_back();
      EXPECT_EQ(pi, want_i);
      EXPECT_EQ(pj, want_j);
      EXPECT_EQ(pv, want_v);
    }
    // A check that can fail: some pairs are below a floor of 2 layers and some reach it.
    int64_t all = 0, two = 0;
    fc_multilayer_allegiance_pairs(m, 1e-12, nullptr, nullptr, nullptr, 0, &all);
    fc_multilayer_allegiance_pairs(m, 2.0 / 7, nullptr, nullptr, nullptr, 0, &two);
    EXPECT_GT(all, two);
    EXPECT_GT(two, 0);
    fc_multilayer_destroy(m);
    fc_context_destroy(ctx);
  }
}

}  // namespace

namespace {

// SameLabelsForEveryThreadCount's supra-graph is below parallel_team's grain (65,536 entries a
// thread), so its refinement never runs on several threads: this one has enough entries for 3
// (checked to fail when a community's stream is also seeded by its thread's number).
TEST(Multilayer, ParallelRefinementSameLabelsForEveryThreadCount) {
  std::vector<std::vector<int64_t>> truth;
  const auto gs = planted_layers(10, 20, 40, 0.1, 0.03, 71, truth);
  int64_t entries = 0;
  for (const auto& g : gs) entries += 2 * int64_t(g->edges.size());
  ASSERT_GE(entries, 3 * 65536) << "too few entries for 3 refinement threads";
  fc_multilayer_options o = options(0.5);
  o.max_iterations = 2;
  const Result one = run(gs, o, nullptr, 1);
  for (int threads : {2, 3}) {
    const Result r = run(gs, o, nullptr, threads);
    EXPECT_EQ(r.labels, one.labels) << threads << " threads";
    EXPECT_EQ(r.q, one.q);
  }
}

}  // namespace
