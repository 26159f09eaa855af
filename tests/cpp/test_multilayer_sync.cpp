// fc_multilayer_modularity_v2 (issue 31): FC_LEIDEN_QUEUE gives fc_multilayer_modularity's result
// bit for bit; FC_LEIDEN_SYNCHRONOUS (the synchronous Leiden's layered engine) gives, on every
// backend and thread count, the CPU backend's labels on one thread (so the CUDA engine's are the
// host's), with Q equal to Mucha et al.'s formula computed here, connected communities, each
// layer's planted partition at omega 0 and one partition at a large omega; odd sizes, layers
// without edges, a memory limit, cancellation and bad options.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "backend_test.hpp"
#include "fastconn/fastconn.h"
#include "multilayer_checks.hpp"

namespace {

using namespace fctest;
using mltest::disconnected_communities;
using mltest::mucha_q;
using mltest::planted_layers;
using mltest::random_layers;
using mltest::same_partition;
using modtest::Edge;
using modtest::Graph;
using Layers = std::vector<std::unique_ptr<Graph>>;

struct Result {
  int64_t n = 0, layers = 0, k = 0;
  double q = 0;
  std::vector<int64_t> labels;
};

fc_multilayer_options_v2 sync_options(double omega, int coupling = FC_COUPLING_ORDINAL, uint64_t seed = 1) {
  fc_multilayer_options_v2 o;
  EXPECT_EQ(fc_multilayer_options_v2_default(&o), FC_OK);
  o.algorithm = FC_LEIDEN_SYNCHRONOUS;
  o.base.omega = omega;
  o.base.coupling = coupling;
  o.base.seed = seed;
  return o;
}

std::vector<const fc_graph*> handles(const Layers& gs) {
  std::vector<const fc_graph*> h;
  for (const auto& g : gs) h.push_back(g->g);
  return h;
}

Result run(fc_context* ctx, const Layers& gs, const fc_multilayer_options_v2& o, const double* gammas = nullptr) {
  const std::vector<const fc_graph*> layers = handles(gs);
  fc_multilayer* m = nullptr;
  Result r;
  EXPECT_EQ(fc_multilayer_modularity_v2(ctx, layers.data(), int64_t(layers.size()), gammas, &o, &m), FC_OK)
      << fc_last_error();
  if (m == nullptr) return r;
  EXPECT_EQ(fc_multilayer_info(m, &r.n, &r.layers, &r.k, &r.q), FC_OK);
  r.labels.resize(size_t(r.n * r.layers));
  if (!r.labels.empty()) {
    EXPECT_EQ(fc_multilayer_labels(m, r.labels.data(), int64_t(r.labels.size())), FC_OK);
  }
  fc_multilayer_destroy(m);
  return r;
}

Result on_cpu(const Layers& gs, const fc_multilayer_options_v2& o, int threads, const double* gammas = nullptr) {
  Context c(FC_BACKEND_CPU);
  EXPECT_EQ(fc_context_set_threads(c.get(), threads), FC_OK);
  return run(c.get(), gs, o, gammas);
}

class MultilayerSync : public BackendTest {
 protected:
  // The tested backend's labels equal the CPU backend's on 1 and 2 threads, Q is Mucha's formula
  // of them and every community is connected in the supra-graph; returns them.
  Result checked(const Layers& gs, const fc_multilayer_options_v2& o, const double* gammas = nullptr) {
    const Result one = on_cpu(gs, o, 1, gammas);
    const Result two = on_cpu(gs, o, 2, gammas);
    EXPECT_EQ(two.labels, one.labels);
    EXPECT_EQ(two.q, one.q);
    Context c(backend());
    const Result tested = run(c.get(), gs, o, gammas);
    EXPECT_EQ(tested.labels, one.labels) << backend_name(backend());
    EXPECT_EQ(tested.q, one.q);
    EXPECT_EQ(tested.k, one.k);
    std::vector<double> gamma(gs.size(), o.base.resolution);
    if (gammas != nullptr) gamma.assign(gammas, gammas + gs.size());
    if (gs[0]->n > 0) {
      EXPECT_NEAR(tested.q, mucha_q(gs, tested.labels, o.base.omega, o.base.coupling, gamma), 1e-9);
      EXPECT_EQ(disconnected_communities(gs, tested.labels, o.base.omega, o.base.coupling), 0);
    }
    return tested;
  }
};

TEST_P(MultilayerSync, RandomLayersEveryBackendAlike) {
  for (int64_t n : {2, 3, 17, 40})
    for (uint64_t seed = 1; seed <= 3; ++seed)
      for (int coupling : {FC_COUPLING_ORDINAL, FC_COUPLING_CATEGORICAL})
        for (double omega : {0.0, 0.05, 0.3, 1.0}) {
          SCOPED_TRACE(testing::Message() << "n " << n << " seed " << seed << " coupling " << coupling << " omega " << omega);
          const Layers gs = random_layers(4, n, n < 10 ? 0.7 : 0.15, 500 + seed);
          const Result r = checked(gs, sync_options(omega, coupling, seed));
          EXPECT_EQ(r.n, n);
          EXPECT_EQ(r.layers, 4);
        }
}

// One pass (max_iterations 1), where a community may be left in pieces: they are split (on CUDA
// from the device's connected pieces, on the CPU by the host's search) into the same labels, every
// community connected; one pass is not the converged result on every case.
TEST_P(MultilayerSync, OnePassSplitsThePiecesAlike) {
  int64_t split = 0;
  for (uint64_t seed = 1; seed <= 12; ++seed)
    for (double omega : {0.05, 0.3}) {
      SCOPED_TRACE(testing::Message() << "seed " << seed << " omega " << omega);
      const Layers gs = random_layers(5, 60, 0.06, 900 + seed);
      fc_multilayer_options_v2 o = sync_options(omega, FC_COUPLING_ORDINAL, seed);
      const Result full = on_cpu(gs, o, 1);
      o.base.max_iterations = 1;
      const Result one = checked(gs, o);  // connected, Mucha's Q, every backend alike
      split += one.k != full.k;
    }
  EXPECT_GT(split, 0);  // the cases differ from the converged ones
}

TEST_P(MultilayerSync, PlantedLayersAndOmega) {
  std::vector<std::vector<int64_t>> truth;
  const Layers gs = planted_layers(5, 4, 23, 0.5, 0.02, 5, truth);  // 92 nodes, 5 layers
  // omega 0: each layer's own planted partition.
  const Result r0 = checked(gs, sync_options(0.0));
  for (size_t s = 0; s < gs.size(); ++s)
    EXPECT_TRUE(same_partition(r0.labels.data() + s * size_t(r0.n), truth[s].data(), r0.n)) << "layer " << s;
  // A large omega: one partition in every layer.
  for (int coupling : {FC_COUPLING_ORDINAL, FC_COUPLING_CATEGORICAL}) {
    const Result r = checked(gs, sync_options(100.0, coupling));
    for (int64_t s = 1; s < r.layers; ++s)
      for (int64_t i = 0; i < r.n; ++i) EXPECT_EQ(r.labels[size_t(s * r.n + i)], r.labels[size_t(i)]);
  }
}

// Region-like layers: 10 modules whose membership drifts (a tenth of the nodes moves to the next
// module every 8 layers), so the communities change over time; weights of every size. The
// synchronous passes' Q is within 2 % of the queue's.
TEST_P(MultilayerSync, DriftingModulesNearTheQueue) {
  const int64_t N = 101, L = 24, K = 10;
  fc::SplitMix64 rng(42);
  std::vector<int64_t> module(static_cast<size_t>(N));
  for (int64_t i = 0; i < N; ++i) module[size_t(i)] = i % K;
  Layers gs;
  for (int64_t s = 0; s < L; ++s) {
    if (s > 0 && s % 8 == 0)
      for (int64_t i = 0; i < N; i += 10) module[size_t(i)] = (module[size_t(i)] + 1) % K;
    std::vector<Edge> e;
    for (int64_t i = 0; i < N; ++i)
      for (int64_t j = i + 1; j < N; ++j) {
        const bool same = module[size_t(i)] == module[size_t(j)];
        if (rng.uniform() < (same ? 0.6 : 0.04)) e.push_back({i, j, 0.1 + 0.9 * rng.uniform()});
      }
    gs.push_back(std::make_unique<Graph>(N, std::move(e)));
  }
  const fc_multilayer_options_v2 o = sync_options(1.0);
  const Result r = checked(gs, o);
  fc_multilayer_options_v2 q = o;
  q.algorithm = FC_LEIDEN_QUEUE;
  const Result queue = on_cpu(gs, q, 2);
  EXPECT_GE(r.q, 0.98 * queue.q) << "synchronous " << r.q << " queue " << queue.q;
  EXPECT_GT(r.k, 1);
}

TEST_P(MultilayerSync, PerLayerResolutionAndSmallCases) {
  const Layers gs = random_layers(3, 15, 0.3, 11);
  const double gammas[3] = {0.5, 1.0, 2.0};
  checked(gs, sync_options(0.5), gammas);
  // One layer; one node; a layer without edges between two with edges.
  checked(random_layers(1, 29, 0.2, 3), sync_options(1.0));
  checked(random_layers(3, 1, 0.5, 4), sync_options(1.0));
  Layers mixed = random_layers(3, 13, 0.4, 6);
  mixed[1] = std::make_unique<Graph>(13, std::vector<Edge>{});
  for (double omega : {0.0, 0.4}) checked(mixed, sync_options(omega));
  // No nodes.
  Layers empty;
  empty.push_back(std::make_unique<Graph>(0, std::vector<Edge>{}));
  empty.push_back(std::make_unique<Graph>(0, std::vector<Edge>{}));
  const Result r = checked(empty, sync_options(1.0));
  EXPECT_EQ(r.n, 0);
  EXPECT_EQ(r.k, 0);
}

TEST_P(MultilayerSync, MemoryLimitAndCancel) {
  std::vector<std::vector<int64_t>> truth;
  const Layers gs = planted_layers(6, 5, 20, 0.4, 0.03, 8, truth);
  const fc_multilayer_options_v2 o = sync_options(0.5);
  const Result expected = on_cpu(gs, o, 1);
  // 1 MiB is below the CUDA engine's bytes: the host engine runs, with the same labels.
  Context small(backend());
  small.memory_limit(int64_t(1) << 20);
  EXPECT_EQ(run(small.get(), gs, o).labels, expected.labels);
  int calls = 0;
  Context c(backend());
  c.progress([](int64_t, int64_t, void* user) { return ++*static_cast<int*>(user) >= 2 ? 1 : 0; }, &calls);
  const std::vector<const fc_graph*> layers = handles(gs);
  fc_multilayer* sentinel = reinterpret_cast<fc_multilayer*>(0x1);
  EXPECT_EQ(fc_multilayer_modularity_v2(c.get(), layers.data(), int64_t(layers.size()), nullptr, &o, &sentinel),
            FC_ERR_ABORTED);
  EXPECT_EQ(sentinel, reinterpret_cast<fc_multilayer*>(0x1));
  EXPECT_GE(calls, 2);
  c.progress(nullptr, nullptr);
  EXPECT_EQ(run(c.get(), gs, o).labels, expected.labels);
}

INSTANTIATE_TEST_SUITE_P(Backends, MultilayerSync, ::testing::Values(FC_BACKEND_CPU, FC_BACKEND_CUDA),
                         [](const ::testing::TestParamInfo<fc_backend>& info) { return backend_name(info.param); });

TEST(MultilayerV2, QueueIsTheFirstCallBitForBit) {
  const Layers gs = random_layers(4, 30, 0.2, 77);
  fc_multilayer_options_v2 o;
  ASSERT_EQ(fc_multilayer_options_v2_default(&o), FC_OK);
  EXPECT_EQ(o.size, sizeof(fc_multilayer_options_v2));
  EXPECT_EQ(o.algorithm, FC_LEIDEN_QUEUE);
  fc_multilayer_options v1;
  ASSERT_EQ(fc_multilayer_options_default(&v1), FC_OK);
  EXPECT_EQ(o.base.omega, v1.omega);
  EXPECT_EQ(o.base.seed, v1.seed);
  o.base.seed = v1.seed = 5;
  o.base.omega = v1.omega = 0.3;
  Context c(FC_BACKEND_CPU);
  const Result two = run(c.get(), gs, o);
  const std::vector<const fc_graph*> layers = handles(gs);
  fc_multilayer* m = nullptr;
  ASSERT_EQ(fc_multilayer_modularity(c.get(), layers.data(), 4, nullptr, &v1, &m), FC_OK);
  Result one;
  ASSERT_EQ(fc_multilayer_info(m, &one.n, &one.layers, &one.k, &one.q), FC_OK);
  one.labels.resize(size_t(one.n * one.layers));
  ASSERT_EQ(fc_multilayer_labels(m, one.labels.data(), int64_t(one.labels.size())), FC_OK);
  fc_multilayer_destroy(m);
  EXPECT_EQ(two.labels, one.labels);
  EXPECT_EQ(two.q, one.q);
  // NULL options: the defaults (the queue), as the first call's NULL.
  fc_multilayer *d2 = nullptr, *d1 = nullptr;
  ASSERT_EQ(fc_multilayer_modularity_v2(c.get(), layers.data(), 4, nullptr, nullptr, &d2), FC_OK);
  ASSERT_EQ(fc_multilayer_modularity(c.get(), layers.data(), 4, nullptr, nullptr, &d1), FC_OK);
  double q2 = 0, q1 = 1;
  EXPECT_EQ(fc_multilayer_info(d2, nullptr, nullptr, nullptr, &q2), FC_OK);
  EXPECT_EQ(fc_multilayer_info(d1, nullptr, nullptr, nullptr, &q1), FC_OK);
  EXPECT_EQ(q2, q1);
  fc_multilayer_destroy(d2);
  fc_multilayer_destroy(d1);
}

TEST(MultilayerV2, BadOptionsNamedAndOutputUntouched) {
  const Layers gs = random_layers(2, 10, 0.3, 1);
  const std::vector<const fc_graph*> layers = handles(gs);
  Context c(FC_BACKEND_CPU);
  fc_multilayer_options_v2 o = sync_options(1.0);
  fc_multilayer* sentinel = reinterpret_cast<fc_multilayer*>(0x1);
  o.size = 8;
  EXPECT_EQ(fc_multilayer_modularity_v2(c.get(), layers.data(), 2, nullptr, &o, &sentinel), FC_ERR_INVALID_ARG);
  EXPECT_NE(std::string(fc_last_error()).find("options->size 8"), std::string::npos) << fc_last_error();
  o = sync_options(1.0);
  o.algorithm = 7;
  EXPECT_EQ(fc_multilayer_modularity_v2(c.get(), layers.data(), 2, nullptr, &o, &sentinel), FC_ERR_INVALID_ARG);
  EXPECT_NE(std::string(fc_last_error()).find("options->algorithm 7"), std::string::npos) << fc_last_error();
  o = sync_options(-1.0);
  EXPECT_EQ(fc_multilayer_modularity_v2(c.get(), layers.data(), 2, nullptr, &o, &sentinel), FC_ERR_INVALID_ARG);
  EXPECT_NE(std::string(fc_last_error()).find("omega"), std::string::npos) << fc_last_error();
  EXPECT_EQ(fc_multilayer_modularity_v2(nullptr, layers.data(), 2, nullptr, &o, &sentinel), FC_ERR_NULL_ARG);
  EXPECT_EQ(fc_multilayer_options_v2_default(nullptr), FC_ERR_NULL_ARG);
  EXPECT_EQ(sentinel, reinterpret_cast<fc_multilayer*>(0x1));
}

}  // namespace
