// fc_modularity's final single-node moves (src/modules/final_moves.cpp): the parallel search for the
// next node that moves must make exactly the node-by-node sweep's moves, whatever the thread count,
// and end in a state where no allowed single move raises Q by more than kMinGain (checked here by
// brute force over every target of a sample of nodes); isolated nodes and min_size are respected.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "modules/final_moves.hpp"
#include "modules/leading_eigen.hpp"
#include "modules/local_graph.hpp"
#include "planted_graph.hpp"

namespace {

using planted_graph::TestGraph;
using planted_graph::planted;

// s * Q of a labelling (labels 0 .. k-1), summed plainly.
double q_of(const TestGraph& tg, const std::vector<int64_t>& label, int64_t k) {
  const fc::GraphData& g = tg.g;
  double inside = 0;
  std::vector<double> kc(static_cast<size_t>(k), 0.0);
  for (int64_t v = 0; v < g.n; ++v) {
    for (int64_t e = g.offsets[size_t(v)]; e < g.offsets[size_t(v) + 1]; ++e)
      if (label[size_t(g.columns[size_t(e)])] == label[size_t(v)]) inside += g.weights[size_t(e)];
    kc[size_t(label[size_t(v)])] += tg.t.k_pos[size_t(v)];
  }
  double squares = 0;
  for (double x : kc) squares += x * x;
  return inside - tg.t.d_pos * squares;
}

// The best allowed single move's rise in s * Q, by recomputing Q for every target of every
// `stride`-th node.
double best_single_move(const TestGraph& tg, std::vector<int64_t> label, int64_t k, int64_t min_size, int64_t stride) {
  std::vector<int64_t> size(static_cast<size_t>(k), 0);
  std::vector<char> closed(static_cast<size_t>(k), 0);
  for (int64_t v = 0; v < tg.g.n; ++v) {
    ++size[size_t(label[size_t(v)])];
    if (tg.isolated[size_t(v)]) closed[size_t(label[size_t(v)])] = 1;
  }
  const double base = q_of(tg, label, k);
  double best = -1e300;
  for (int64_t v = 0; v < tg.g.n; v += stride) {
    const int64_t a = label[size_t(v)];
    if (tg.isolated[size_t(v)] || !(size[size_t(a)] - 1 >= min_size || size[size_t(a)] == 1)) continue;
    for (int64_t c = 0; c < k; ++c) {
      if (c == a || closed[size_t(c)] || size[size_t(c)] == 0) continue;
      label[size_t(v)] = c;
      best = std::max(best, q_of(tg, label, k) - base);
      label[size_t(v)] = a;
    }
  }
  return best;
}

// The truth with every node moved to a random community with probability `noise`.
std::vector<int64_t> noisy(const TestGraph& tg, int64_t communities, double noise, uint64_t seed) {
  fc::SplitMix64 rng(seed);
  std::vector<int64_t> label = tg.truth;
  for (int64_t v = 0; v < tg.g.n; ++v)
    if (!tg.isolated[size_t(v)] && rng.uniform() < noise) label[size_t(v)] = int64_t(rng.next() % uint64_t(communities));
  return label;
}

std::vector<int64_t> moved(const TestGraph& tg, std::vector<int64_t> label, int64_t k, int64_t min_size, int threads) {
  fc::Progress progress(nullptr, nullptr, 0);
  fc::final_moves(tg.g, tg.t, label, k, tg.isolated, min_size, threads, progress);
  return label;
}

// The graphs hold a few hundred thousand entries, so that 2 or more threads take part
// (parallel_team: 65,536 entries a thread).
TEST(FinalMoves, SameMovesForEveryThreadCountAndALocalOptimum) {
  for (const bool weighted : {false, true}) {
    const int64_t communities = 7, size = 401, isolated = 5, k = communities + isolated;
    const auto tg = planted(communities, size, isolated, weighted, weighted ? 11 : 12);
    const std::vector<int64_t> start = noisy(*tg, communities, 0.35, 99);
    const std::vector<int64_t> one = moved(*tg, start, k, 1, 1);
    EXPECT_NE(one, start) << "the start should need moves";
    // (at most 4: clang's libomp leaks a hot team's buffers when a team grows past 4 threads after a
    // smaller one, which the ASan run would report)
    for (int threads : {2, 3, 4}) EXPECT_EQ(moved(*tg, start, k, 1, threads), one) << threads << " threads";
    EXPECT_GT(q_of(*tg, one, k), q_of(*tg, start, k));
    EXPECT_LE(best_single_move(*tg, one, k, 1, 97), tg->t.s * fc::kMinGain);
    for (int64_t v = tg->g.n - isolated; v < tg->g.n; ++v) EXPECT_EQ(one[size_t(v)], start[size_t(v)]);
  }
}

TEST(FinalMoves, ManyCommunitiesAndManyMovesAWindow) {
  // Every node its own community (k = n > 1024: the targets are the neighbours' communities), so
  // most nodes of a window move and the windows restart after nearly every node.
  const int64_t communities = 60, size = 61, k = communities * size;
  const auto tg = planted(communities, size, 0, true, 5);
  std::vector<int64_t> start(static_cast<size_t>(k));
  for (int64_t v = 0; v < k; ++v) start[size_t(v)] = v;
  const std::vector<int64_t> one = moved(*tg, start, k, 1, 1);
  for (int threads : {2, 4}) EXPECT_EQ(moved(*tg, start, k, 1, threads), one) << threads << " threads";
  EXPECT_GT(q_of(*tg, one, k), q_of(*tg, start, k));
}

// A node that was judged to stay and whose inputs have not changed enough is skipped in later
// sweeps (final_moves.cpp's Settled): the moves must be exactly those of judging every node, on
// binary, weighted and signed graphs, with every target scanned (k <= 1024) and with the
// neighbours' communities only, at gamma 1 and not, on 1 and 3 threads; and the skip must happen.
TEST(FinalMoves, SkippingSettledNodesMakesTheSameMoves) {
  struct Case {
    int64_t communities, size;
    bool weighted, signed_weights, singletons;
    double gamma;
  };
  for (const Case& c : {Case{7, 301, false, false, false, 1.0}, Case{9, 203, true, false, false, 1.0},
                        Case{6, 257, true, true, false, 1.0}, Case{40, 61, true, false, true, 1.0},
                        Case{11, 149, true, true, false, 1.7}}) {
    auto tg = planted(c.communities, c.size, 0, c.weighted, uint64_t(c.communities * 1000 + c.size));
    if (c.signed_weights || c.gamma != 1.0) {
      // Every fifth edge negative (both of its entries), then the terms as fc_modularity makes them.
      fc::GraphData& g = tg->g;
      for (int64_t v = 0; v < g.n; ++v)
        for (int64_t e = g.offsets[size_t(v)]; e < g.offsets[size_t(v) + 1]; ++e) {
          const int64_t u = g.columns[size_t(e)];
          if (c.signed_weights && (std::min(u, v) * 7 + std::max(u, v) * 3) % 5 == 0) g.weights[size_t(e)] = -g.weights[size_t(e)];
        }
      tg->t = fc::modularity_terms(g, FC_SIGNED_GOMEZ, c.gamma);
    }
    const int64_t k = c.singletons ? tg->g.n : c.communities;
    std::vector<int64_t> start(static_cast<size_t>(tg->g.n));
    for (int64_t v = 0; v < tg->g.n; ++v) start[size_t(v)] = c.singletons ? v : tg->truth[size_t(v)];
    if (!c.singletons) start = noisy(*tg, c.communities, 0.4, uint64_t(c.size));
    for (int threads : {1, 3}) {
      fc::Progress progress(nullptr, nullptr, 0);
      std::vector<int64_t> every = start, skipping = start;
      fc::FinalMovesStats all, skip;
      fc::final_moves(tg->g, tg->t, every, k, tg->isolated, 1, threads, progress, &all, false);
      fc::final_moves(tg->g, tg->t, skipping, k, tg->isolated, 1, threads, progress, &skip, true);
      const std::string what = "case of " + std::to_string(c.communities) + " x " + std::to_string(c.size) + ", " +
                               std::to_string(threads) + " threads";
      EXPECT_EQ(skipping, every) << what;
      EXPECT_EQ(skip.sweeps, all.sweeps) << what;
      EXPECT_EQ(skip.moves, all.moves) << what;
      EXPECT_GT(all.moves, 0) << what;
      EXPECT_EQ(all.skipped, 0) << what;
      EXPECT_GT(skip.skipped, 0) << what << ": nothing was skipped";
      EXPECT_LT(skip.judged, all.judged) << what;
    }
  }
}

TEST(FinalMoves, MinimumSizeHolds) {
  const int64_t communities = 5, size = 700, k = communities;
  const auto tg = planted(communities, size, 0, false, 21);
  const std::vector<int64_t> start = noisy(*tg, communities, 0.5, 3);
  const int64_t min_size = 690;
  const std::vector<int64_t> one = moved(*tg, start, k, min_size, 1);
  EXPECT_EQ(moved(*tg, start, k, min_size, 4), one);
  std::vector<int64_t> before(static_cast<size_t>(k), 0), after(static_cast<size_t>(k), 0);
  for (int64_t v = 0; v < tg->g.n; ++v) {
    ++before[size_t(start[size_t(v)])];
    ++after[size_t(one[size_t(v)])];
  }
  for (int64_t c = 0; c < k; ++c) {
    if (before[size_t(c)] >= min_size) {
      EXPECT_GE(after[size_t(c)], min_size) << "community " << c;
    }
  }
  EXPECT_NE(one, start);
  EXPECT_LE(best_single_move(*tg, one, k, min_size, 101), tg->t.s * fc::kMinGain);
}

}  // namespace

namespace {

// Random weighted graphs (Erdos-Renyi of n nodes and mean degree `degree`, weights 0.1 to 10.1,
// so that single neighbours can outweigh whole communities) from singletons and from a few random
// communities: the skip against judging every node. (Checked to fail when a neighbour's move no
// longer spends the margin. Marking a node whose neighbour moved to a community it never weighed
// is a safeguard these graphs do not reach: in none of them did such a community become a node's
// best target while its margin lasted.)
TEST(FinalMoves, SkippingSettledNodesOnRandomGraphs) {
  int64_t skipped = 0;
  for (uint64_t seed = 1; seed <= 24; ++seed) {
    fc::SplitMix64 rng(seed * 7919);
    const int64_t n = 1100 + int64_t(rng.next() % 400);
    const double degree = 2 + double(rng.next() % 12);
    planted_graph::Rows rows(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = i + 1; j < n; ++j)
        if (rng.uniform() < degree / double(n)) {
          const float w = float(0.1 + 10 * rng.uniform() * rng.uniform() * rng.uniform());
          rows[size_t(i)].push_back({j, w});
          rows[size_t(j)].push_back({i, w});
        }
    TestGraph tg;
    planted_graph::from_rows(rows, tg.g, tg.t);
    tg.t = fc::modularity_terms(tg.g, FC_SIGNED_GOMEZ, 1.0);
    tg.isolated.assign(static_cast<size_t>(n), 0);
    for (int64_t v = 0; v < n; ++v) tg.isolated[size_t(v)] = tg.g.offsets[size_t(v) + 1] == tg.g.offsets[size_t(v)];
    const bool singletons = seed % 2 == 1;
    const int64_t k = singletons ? n : 1 + int64_t(rng.next() % 30);
    std::vector<int64_t> start(static_cast<size_t>(n));
    for (int64_t v = 0; v < n; ++v) start[size_t(v)] = singletons ? v : int64_t(rng.next() % uint64_t(k));
    if (!singletons)  // isolated nodes alone (closed communities), as fc_modularity gives them
      for (int64_t v = 0, extra = k; v < n; ++v)
        if (tg.isolated[size_t(v)]) start[size_t(v)] = extra++;
    int64_t k_all = 0;
    for (int64_t v = 0; v < n; ++v) k_all = std::max(k_all, start[size_t(v)] + 1);
    fc::Progress progress(nullptr, nullptr, 0);
    std::vector<int64_t> every = start, skipping = start;
    fc::FinalMovesStats all, skip;
    fc::final_moves(tg.g, tg.t, every, k_all, tg.isolated, 1, 1, progress, &all, false);
    fc::final_moves(tg.g, tg.t, skipping, k_all, tg.isolated, 1, 1, progress, &skip, true);
    EXPECT_EQ(skipping, every) << "seed " << seed << ", n " << n << ", k " << k_all;
    EXPECT_EQ(skip.moves, all.moves) << "seed " << seed;
    skipped += skip.skipped;
  }
  EXPECT_GT(skipped, 0);
}

}  // namespace
