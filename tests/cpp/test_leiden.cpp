// Leiden (fc_leiden, modules/leiden.hpp): Q equal to fc_modularity_score's, communities connected
// (a search within each community, and no piece left for the final split to add), planted
// partitions recovered, the karate club at the known optimum, CPM at a resolution, initial labels
// honoured, signed graphs, and the same labels for every thread count and run. The library's
// internals are compiled in for the direct calls (find_leiden's statistics).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

#include "api/handles.hpp"
#include "fastconn/fastconn.h"
#include "leiden_checks.hpp"
#include "modularity_graphs.hpp"
#include "modules/leiden.hpp"

namespace {

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

fc_leiden_options defaults() {
  fc_leiden_options o;
  fc_leiden_options_default(&o);
  return o;
}

Result leiden(const Graph& g, const fc_leiden_options& o, const int64_t* initial = nullptr, int threads = 0) {
  fc_context* ctx = nullptr;
  EXPECT_EQ(fc_context_create(FC_BACKEND_CPU, -1, &ctx), FC_OK);
  EXPECT_EQ(fc_context_set_threads(ctx, threads), FC_OK);
  fc_modules* m = nullptr;
  Result r;
  EXPECT_EQ(fc_leiden(ctx, g.g, &o, initial, &m), FC_OK) << fc_last_error();
  int64_t n = 0, splits = -1;
  EXPECT_EQ(fc_modules_info(m, &n, &r.k, &r.q, &splits), FC_OK);
  EXPECT_EQ(splits, 0);
  r.labels.resize(size_t(n));
  EXPECT_EQ(fc_modules_labels(m, r.labels.data(), n), FC_OK);
  fc_modules_destroy(m);
  fc_context_destroy(ctx);
  return r;
}

double score(const Graph& g, const std::vector<int64_t>& labels, double gamma = 1.0) {
  double q = 0;
  EXPECT_EQ(fc_modularity_score(g.g, labels.data(), gamma, &q), FC_OK) << fc_last_error();
  return q;
}


// find_leiden on the graph's data, for its statistics.
fc::LeidenStats stats_of(const Graph& g, const fc_leiden_options& o, const int64_t* initial = nullptr) {
  fc::Progress progress(nullptr, nullptr, g.n);
  fc::LeidenStats st;
  fc::find_leiden(*g.g->data, o, initial, 2, progress, &st);
  return st;
}


TEST(Leiden, KarateClubAtTheOptimum) {
  const Graph g = karate();
  for (uint64_t seed : {1, 2, 3, 4, 5}) {
    fc_leiden_options o = defaults();
    o.seed = seed;
    const Result r = leiden(g, o);
    EXPECT_EQ(r.q, score(g, r.labels));
    EXPECT_NEAR(r.q, 0.4197896, 1e-6) << "seed " << seed;  // the optimum (Brandes et al. 2008), 4 communities
    EXPECT_EQ(r.k, 4);
    EXPECT_TRUE(communities_connected(g, r.labels));
    EXPECT_EQ(stats_of(g, o).split_pieces, 0);
  }
}

TEST(Leiden, PlantedPartitionsRecovered) {
  struct P { int64_t k, size; double p_in, p_out; } cases[] = {
      {2, 20, 0.6, 0.05}, {4, 25, 0.5, 0.03}, {8, 40, 0.4, 0.01}, {16, 60, 0.3, 0.004}, {40, 25, 0.5, 0.002}};
  for (const P& p : cases) {
    SCOPED_TRACE(std::to_string(p.k) + " x " + std::to_string(p.size));
    std::vector<int64_t> truth;
    const Graph g = planted(p.k, p.size, p.p_in, p.p_out, 100 + uint64_t(p.k), truth);
    const Result r = leiden(g, defaults());
    EXPECT_EQ(r.k, p.k);
    EXPECT_GE(nmi(r.labels, truth), 1 - 1e-12);
    EXPECT_EQ(r.q, score(g, r.labels));
    EXPECT_GE(r.q, score(g, truth) - 1e-12);
    EXPECT_TRUE(communities_connected(g, r.labels));
    EXPECT_EQ(stats_of(g, defaults()).split_pieces, 0);
  }
}

TEST(Leiden, WeightedAndSignedGraphs) {
  std::vector<int64_t> truth;
  // weighted: strong inside, weak across
  const Graph w = planted(6, 30, 0.3, 0.05, 7, truth, 1.0, 0.3);
  Result r = leiden(w, defaults());
  EXPECT_GE(nmi(r.labels, truth), 1 - 1e-12);
  EXPECT_EQ(r.q, score(w, r.labels));
  // signed: negative across (Gomez et al.'s objective, fc_modularity_score's)
  const Graph s = planted(5, 30, 0.3, 0.2, 8, truth, 1.0, -0.5);
  r = leiden(s, defaults());
  EXPECT_GE(nmi(r.labels, truth), 1 - 1e-12);
  EXPECT_EQ(r.q, score(s, r.labels));
  EXPECT_TRUE(communities_connected(s, r.labels));
  // Rubinov and Sporns' form is accepted and never worse than the truth under its own Q
  fc_leiden_options o = defaults();
  o.signed_mode = FC_SIGNED_RUBINOV;
  EXPECT_GE(nmi(leiden(s, o).labels, truth), 0.99);
}

TEST(Leiden, ResolutionAndCpm) {
  std::vector<int64_t> truth;
  const Graph g = planted(8, 40, 0.4, 0.01, 11, truth);
  // modularity at gamma: Q is the score at that gamma
  fc_leiden_options o = defaults();
  o.resolution = 2.5;
  Result r = leiden(g, o);
  EXPECT_EQ(r.q, score(g, r.labels, 2.5));
  EXPECT_GE(r.k, 8);
  EXPECT_TRUE(communities_connected(g, r.labels));
  // CPM between the densities across (0.01) and inside (0.4): the planted partition; Q at gamma 1
  o = defaults();
  o.quality = FC_LEIDEN_CPM;
  o.resolution = 0.1;
  r = leiden(g, o);
  EXPECT_GE(nmi(r.labels, truth), 1 - 1e-12);
  EXPECT_EQ(r.q, score(g, r.labels, 1.0));
  // CPM above the density inside: many small communities, all connected
  o.resolution = 0.9;
  r = leiden(g, o);
  EXPECT_GT(r.k, 8 * 4);
  EXPECT_TRUE(communities_connected(g, r.labels));
  // CPM below the density across: one community per connected component
  o.resolution = 0.001;
  r = leiden(g, o);
  EXPECT_EQ(r.k, 1);
}

TEST(Leiden, InitialLabelsHonoured) {
  const Graph g = karate();
  // Leiden never lowers the Q it starts from: from fc_modularity's partition, at least its Q
  fc_context* ctx = nullptr;
  ASSERT_EQ(fc_context_create(FC_BACKEND_CPU, -1, &ctx), FC_OK);
  fc_modules* m = nullptr;
  ASSERT_EQ(fc_modularity(ctx, g.g, nullptr, &m), FC_OK);
  std::vector<int64_t> spectral(34);
  double q_spectral = 0;
  fc_modules_info(m, nullptr, nullptr, &q_spectral, nullptr);
  fc_modules_labels(m, spectral.data(), 34);
  fc_modules_destroy(m);
  fc_context_destroy(ctx);
  Result r = leiden(g, defaults(), spectral.data());
  EXPECT_GE(r.q, q_spectral - 1e-12);
  // an optimal start with one pass stays where it is
  fc_leiden_options o = defaults();
  o.max_iterations = 1;
  const Result best = leiden(g, defaults());
  std::vector<int64_t> shifted(best.labels);
  for (int64_t& x : shifted) x = 1000 + 7 * x;  // any non-negative values
  r = leiden(g, o, shifted.data());
  EXPECT_EQ(r.labels, best.labels);
  // a start that joins two planted communities with no edge between them: refinement splits them
  std::vector<int64_t> truth;
  const Graph p = planted(4, 25, 0.5, 0.0, 5, truth);
  std::vector<int64_t> joined(truth);
  for (int64_t& x : joined) x = x == 1 ? 0 : x;
  r = leiden(p, o, joined.data());
  EXPECT_GE(nmi(r.labels, truth), 1 - 1e-12);
  EXPECT_EQ(stats_of(p, o, joined.data()).split_pieces, 0);  // Leiden itself separated them
}

TEST(Leiden, IsolatedNodesOneNodeNoEdges) {
  std::vector<Edge> e;
  for (auto& x : kKarate) e.push_back({x[0] + 2, x[1] + 2, 1.0});  // nodes 0, 1 and 36, 37 isolated
  const Graph g(38, e);
  const Result r = leiden(g, defaults());
  EXPECT_EQ(r.labels[0], 0);
  EXPECT_EQ(r.labels[1], 1);
  EXPECT_EQ(std::count(r.labels.begin(), r.labels.end(), r.labels[36]), 1);
  EXPECT_EQ(std::count(r.labels.begin(), r.labels.end(), r.labels[37]), 1);
  EXPECT_NEAR(r.q, 0.4197896, 1e-6);
  const Graph one(1, {});
  EXPECT_EQ(leiden(one, defaults()).k, 1);
  const Graph none(4, {});
  const Result z = leiden(none, defaults());
  EXPECT_EQ(z.k, 4);
  EXPECT_EQ(z.q, 0.0);
}

TEST(Leiden, DeterministicAcrossThreadsAndRuns) {
  std::vector<int64_t> truth;
  // weak communities, so that moves and merges have many close choices
  const Graph g = planted(20, 50, 0.12, 0.02, 3, truth, 1.0, 0.7);
  for (int quality : {FC_LEIDEN_MODULARITY, FC_LEIDEN_CPM}) {
    fc_leiden_options o = defaults();
    o.quality = quality;
    o.resolution = quality == FC_LEIDEN_CPM ? 0.05 : 1.0;
    o.randomness = 0.1;
    const Result base = leiden(g, o, nullptr, 1);
    for (int threads : {1, 2, 3, 8}) {
      const Result r = leiden(g, o, nullptr, threads);
      EXPECT_EQ(r.labels, base.labels) << "threads " << threads;
      EXPECT_EQ(r.q, base.q);
    }
    // another seed is another run of the random choices: still a good partition
    o.seed = 99;
    const Result other = leiden(g, o, nullptr, 2);
    EXPECT_TRUE(communities_connected(g, other.labels));
  }
}

}  // namespace

namespace {

// The refinement runs communities on several threads only above parallel_team's grain (65,536
// entries a thread), which the graph above is far below: this one has enough entries for 8, so the
// per-community draws are what make 1, 2, 3 and 8 threads agree (checked to fail when a
// community's stream is also seeded by its thread's number). Its level 0 also spans several of the
// moves' batches (leiden_pass.hpp: 262,144 entries each), judged by 2 to 4 threads.
TEST(Leiden, ParallelRefinementSameLabelsForEveryThreadCount) {
  std::vector<int64_t> truth;
  const Graph g = planted(40, 200, 0.06, 0.012, 11, truth);  // weak: the draws change the result
  int64_t edges = 0;
  ASSERT_EQ(fc_graph_info(g.g, nullptr, &edges), FC_OK);
  ASSERT_GE(2 * edges, 8 * 65536) << "too few entries (2 per edge) for 8 refinement threads";
  for (int quality : {FC_LEIDEN_MODULARITY, FC_LEIDEN_CPM}) {
    fc_leiden_options o = defaults();
    o.quality = quality;
    o.resolution = quality == FC_LEIDEN_CPM ? 0.02 : 1.0;
    o.randomness = 0.1;  // draws that matter: many candidates within theta of the best
    o.max_iterations = 2;  // (weak communities take many passes; two refine the whole graph twice)
    const Result base = leiden(g, o, nullptr, 1);
    // At most 4: on the 2-core CI machine a team of 8 makes LLVM's libomp (the sanitizer build's
    // runtime) keep per-thread blocks it never frees, which LeakSanitizer reports as leaks of
    // libomp's own (3 blocks, 4,320 bytes); 4 threads already split the refinement 4 ways.
    for (int threads : {2, 3, 4}) {
      const Result r = leiden(g, o, nullptr, threads);
      EXPECT_EQ(r.labels, base.labels) << "threads " << threads;
      EXPECT_EQ(r.q, base.q);
    }
  }
}

}  // namespace

namespace {

// The final connectivity split (split_disconnected): pieces against an independent union-find of
// the edges inside each community, numbered by first appearance in node order, the same for 1 to
// 4 threads (the graph has enough entries for 4: its check runs communities in parallel); labels
// whose communities are all connected come back renumbered, with no piece added.
TEST(Leiden, SplitDisconnectedPiecesForEveryThreadCount) {
  std::vector<int64_t> truth;
  const Graph g = planted(40, 200, 0.06, 0.012, 11, truth);
  const int64_t n = g.n;
  std::vector<int64_t> labels(static_cast<size_t>(n));
  for (int64_t v = 0; v < n; ++v) labels[size_t(v)] = (truth[size_t(v)] * 7 + v % 3) % 50;  // many in pieces
  std::vector<int64_t> parent(static_cast<size_t>(n));
  for (int64_t v = 0; v < n; ++v) parent[size_t(v)] = v;
  auto find = [&](int64_t v) {
    while (parent[size_t(v)] != v) v = parent[size_t(v)] = parent[size_t(parent[size_t(v)])];
    return v;
  };
  for (const Edge& e : g.edges)
    if (e.w != 0 && labels[size_t(e.i)] == labels[size_t(e.j)]) parent[size_t(find(e.i))] = find(e.j);
  std::vector<int64_t> pieces(static_cast<size_t>(n)), id(static_cast<size_t>(n), -1);
  int64_t count = 0;
  for (int64_t v = 0; v < n; ++v) {
    int64_t& x = id[size_t(find(v))];
    if (x < 0) x = count++;
    pieces[size_t(v)] = x;
  }
  int64_t distinct = 0;
  for (int64_t x : labels) distinct = std::max(distinct, x + 1);
  ASSERT_GT(count, distinct);  // the labels do have communities in several pieces
  for (int threads : {1, 2, 3, 4}) {
    std::vector<int64_t> split = labels;
    EXPECT_EQ(fc::split_disconnected(*g.g->data, split, threads), count - distinct) << "threads " << threads;
    EXPECT_EQ(split, pieces) << "threads " << threads;
    // Every community connected now, numbered from the last id down: only renumbered.
    std::vector<int64_t> reversed(pieces.size());
    for (size_t v = 0; v < pieces.size(); ++v) reversed[v] = count - 1 - pieces[v];
    EXPECT_EQ(fc::split_disconnected(*g.g->data, reversed, threads), 0) << "threads " << threads;
    EXPECT_EQ(reversed, pieces) << "threads " << threads;
  }
}

}  // namespace

namespace {

// Level 0 reads the caller's columns when it drops no entry and copies the kept ones otherwise:
// the same graph with weight-0 entries added (which level 0 drops) gives the same labels and Q,
// on 1 and 2 threads.
TEST(Leiden, DroppedEntriesGiveTheSameLevelZero) {
  std::vector<int64_t> truth;
  const Graph plain = planted(8, 40, 0.3, 0.02, 5, truth);
  std::vector<Edge> edges = plain.edges;
  std::map<std::pair<int64_t, int64_t>, bool> present;
  for (const Edge& e : edges) present[{std::min(e.i, e.j), std::max(e.i, e.j)}] = true;
  int64_t added = 0;
  for (int64_t v = 0; v + 7 < plain.n; v += 5)
    if (!present.count({v, v + 7})) edges.push_back({v, v + 7, 0.0}), ++added;
  ASSERT_GT(added, 10);
  const Graph padded(plain.n, edges);
  for (int threads : {1, 2}) {
    const Result a = leiden(plain, defaults(), nullptr, threads), b = leiden(padded, defaults(), nullptr, threads);
    EXPECT_EQ(a.labels, b.labels) << "threads " << threads;
    EXPECT_EQ(a.q, b.q) << "threads " << threads;
    EXPECT_EQ(a.q, score(padded, b.labels));
  }
}

}  // namespace

namespace {

// Level 0 of a graph whose entries all have one weight, a power of 2, reads that weight instead of
// an array (LeidenGraph::unit_weight): the same graph through the array (find_leiden's one_weight
// off) gives the same labels and Q, for modularity and CPM, weights 1 and 0.5, on 1 and 2 threads.
// The graph spans several of the moves' batches and the refinement's parallel grain. The stats
// say which path each run took, so the comparison cannot pass with one path run twice.
TEST(Leiden, OneWeightLevelZeroEqualsTheWeightArray) {
  std::vector<int64_t> truth;
  const Graph ones = planted(40, 200, 0.06, 0.012, 11, truth);
  for (double w : {1.0, 0.5}) {
    std::vector<Edge> edges = ones.edges;
    for (Edge& e : edges) e.w = w;
    const Graph g(ones.n, std::move(edges));
    for (int quality : {FC_LEIDEN_MODULARITY, FC_LEIDEN_CPM}) {
      fc_leiden_options o = defaults();
      o.quality = quality;
      o.resolution = quality == FC_LEIDEN_CPM ? 0.02 * w : 1.0;
      o.randomness = 0.1;  // many close draws: a difference in any weight sum shows
      o.max_iterations = 2;
      for (int threads : {1, 2}) {
        fc::Progress progress(nullptr, nullptr, g.n);
        fc::LeidenStats one, array;
        const fc::Modules a = fc::find_leiden(*g.g->data, o, nullptr, threads, progress, &one, true);
        const fc::Modules b = fc::find_leiden(*g.g->data, o, nullptr, threads, progress, &array, false);
        ASSERT_TRUE(one.one_weight) << "w " << w;
        ASSERT_FALSE(array.one_weight);
        EXPECT_EQ(a.labels, b.labels) << "w " << w << " quality " << quality << " threads " << threads;
        EXPECT_EQ(a.q, b.q) << "w " << w << " quality " << quality << " threads " << threads;
        EXPECT_EQ(a.k, b.k);
        EXPECT_EQ(one.moves, array.moves);
      }
    }
  }
}

}  // namespace

namespace {

// The aggregation reuses its scratch and a finished level's arrays (AggregateBuffers)
// within a call: with buffers already used by larger and smaller aggregates, and a level's arrays
// recycled into them, it gives the graph a fresh call gives, on 1 thread (one chunk, built in the
// spare arrays) and 2 (chunks copied into them). The same level with one weight instead of the
// array (LeidenGraph::unit_weight) gives that graph too.
TEST(Leiden, AggregateWithReusedBuffersEqualsFresh) {
  std::vector<int64_t> truth;
  const Graph source = planted(40, 200, 0.06, 0.012, 11, truth);
  const fc::GraphData& d = *source.g->data;
  fc::LeidenGraph g;
  g.n = d.n;
  g.offsets.assign(d.offsets.begin(), d.offsets.end());
  g.columns.assign(d.columns.begin(), d.columns.end());
  g.weights.assign(d.weights.begin(), d.weights.end());
  g.kp.assign(size_t(d.n), 0.0);
  g.kn.assign(size_t(d.n), 0.0);
  for (int64_t v = 0; v < d.n; ++v) g.kp[size_t(v)] = double(d.offsets[size_t(v + 1)] - d.offsets[size_t(v)]);
  ASSERT_GE(g.offsets.back(), 2 * 65536) << "too few entries for a team of 2";
  for (double w : g.weights) ASSERT_EQ(w, 1.0);
  fc::LeidenGraph unit;
  unit.n = g.n;
  unit.offsets = g.offsets;
  unit.columns.assign(g.columns.begin(), g.columns.end());
  unit.unit_weight = 1.0;
  unit.kp = g.kp;
  unit.kn = g.kn;
  // Three maps: many small communities (a large aggregate), the planted ones, and many again.
  std::vector<std::vector<int64_t>> maps(3, std::vector<int64_t>(size_t(d.n)));
  for (int64_t v = 0; v < d.n; ++v) {
    maps[0][size_t(v)] = v / 3;
    maps[1][size_t(v)] = truth[size_t(v)];
    maps[2][size_t(v)] = (v * 7) % (d.n / 2);
  }
  std::vector<int64_t> ks;
  for (auto& m : maps) ks.push_back(fc::renumber_by_first_appearance(m));
  for (int threads : {1, 2}) {
    fc::AggregateBuffers buffers;
    for (size_t x = 0; x < 2 * maps.size(); ++x) {
      const fc::LeidenGraph& level = x < maps.size() ? g : unit;  // the array, then one weight
      fc::LeidenGraph reused = fc::leiden_aggregate(level, maps[x % maps.size()], ks[x % maps.size()], threads, &buffers);
      const fc::LeidenGraph fresh = fc::leiden_aggregate(g, maps[x % maps.size()], ks[x % maps.size()], threads);
      EXPECT_EQ(reused.offsets, fresh.offsets) << "map " << x << " threads " << threads;
      EXPECT_TRUE(reused.columns == fresh.columns) << "map " << x << " threads " << threads;
      EXPECT_TRUE(reused.weights == fresh.weights) << "map " << x << " threads " << threads;
      EXPECT_EQ(reused.kp, fresh.kp);
      EXPECT_EQ(reused.kn, fresh.kn);
      buffers.recycle(reused);  // its arrays serve the next map's aggregate
      EXPECT_TRUE(reused.columns.empty());
    }
  }
}

}  // namespace
