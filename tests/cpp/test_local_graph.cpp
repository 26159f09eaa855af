// The subgraphs fc_modularity's analyses work in (src/modules/local_graph.cpp): a group's subgraph
// made from the whole graph (induced) and a split group's two sides made from its subgraph
// (induced_from_parent) must hold exactly the graph's non-zero entries among the group's nodes, in
// the graph's order, with the combined weights, and each row's sum must have the bits of one
// sequential sum in entry order (the CUDA backend's diagonal correction repeats that sum): checked
// here against a reference written out entry by entry, for every column width (16-bit and 32-bit
// subgraphs, 64-bit graph columns), binary graphs, uniform weights that are and are not powers of
// two (the counted row sums apply to the first only), weighted and signed graphs.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "modules/leading_eigen.hpp"
#include "modules/local_graph.hpp"
#include "planted_graph.hpp"

namespace {

enum class Weights { kBinary, kHalf, kTenth, kPositive, kSigned, kNegativeHalf };

// A random graph of n nodes, about `degree` edges a node, some of weight exactly 0 (stored but not
// an edge to the subgraphs), as modularity_terms would describe it.
struct TestGraph {
  fc::GraphData g;
  fc::ModularityTerms t;
};

std::unique_ptr<TestGraph> random_graph(int64_t n, int64_t degree, Weights kind, uint64_t seed) {
  fc::SplitMix64 rng(seed);
  std::vector<std::vector<std::pair<int64_t, float>>> rows(static_cast<size_t>(n));
  for (int64_t e = 0; e < n * degree / 2; ++e) {
    const int64_t i = int64_t(rng.next() % uint64_t(n)), j = int64_t(rng.next() % uint64_t(n));
    if (i == j) continue;
    float w = 1.0f;
    switch (kind) {
      case Weights::kBinary: w = 1.0f; break;
      case Weights::kHalf: w = 0.5f; break;
      case Weights::kTenth: w = -0.1f; break;  // combined with c- = 1/3: a full 53-bit mantissa
      case Weights::kNegativeHalf: w = -0.5f; break;
      case Weights::kPositive: w = float(0.05 + rng.uniform()); break;
      case Weights::kSigned: w = float(rng.uniform() - 0.4); break;
    }
    if (rng.next() % 17 == 0) w = 0.0f;  // a stored zero
    rows[static_cast<size_t>(i)].push_back({j, w});
    rows[static_cast<size_t>(j)].push_back({i, w});
  }
  auto out = std::make_unique<TestGraph>();
  fc::GraphData& g = out->g;
  fc::ModularityTerms& t = out->t;
  planted_graph::from_rows(rows, g, t);
  float first = 0;
  bool uniform = true;
  for (float w : g.weights) {
    if (w != 0 && first == 0) first = w;
    uniform = uniform && (w == 0 || w == first);
  }
  t.c_pos = 1;
  // Combined weights that are not the graph's. A float's 24-bit mantissa would make sums of up to
  // 2^29 copies exact in a double; -0.1f / 3 has all 53 bits, so its row sums round.
  t.c_neg = kind == Weights::kSigned ? 0.75 : kind == Weights::kTenth ? 1.0 / 3 : 1;
  t.uniform_weight = uniform ? first : 0.0f;
  return out;
}

// The subgraph of `nodes` (ascending) written out entry by entry.
struct Expected {
  std::vector<int64_t> offsets{0}, columns;
  std::vector<double> weights, row_sum, k_pos, k_neg;
  double group_pos = 0, group_neg = 0;
};

Expected expected(const TestGraph& tg, const std::vector<int64_t>& nodes) {
  const fc::GraphData& g = tg.g;
  std::vector<int64_t> local(static_cast<size_t>(g.n), -1);
  for (size_t i = 0; i < nodes.size(); ++i) local[static_cast<size_t>(nodes[i])] = int64_t(i);
  Expected x;
  for (int64_t u : nodes) {
    double sum = 0;
    for (int64_t e = g.offsets[size_t(u)]; e < g.offsets[size_t(u) + 1]; ++e) {
      const int64_t c = local[static_cast<size_t>(g.columns[size_t(e)])];
      const float w = g.weights[size_t(e)];
      if (c < 0 || w == 0) continue;
      const double cw = fc::combined_weight(tg.t, w);
      x.columns.push_back(c);
      x.weights.push_back(cw);
      sum += cw;
    }
    x.offsets.push_back(int64_t(x.columns.size()));
    x.row_sum.push_back(sum);
    x.k_pos.push_back(tg.t.k_pos[size_t(u)]);
    x.k_neg.push_back(tg.t.k_neg[size_t(u)]);
    x.group_pos += tg.t.k_pos[size_t(u)];
    x.group_neg += tg.t.k_neg[size_t(u)];
  }
  return x;
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

void expect_subgraph(const fc::LocalGraph& lg, const Expected& x, const char* what) {
  SCOPED_TRACE(what);
  const int64_t n = int64_t(x.row_sum.size());
  ASSERT_EQ(lg.n, n);
  ASSERT_EQ(lg.offsets, x.offsets);
  EXPECT_EQ(lg.width, n <= 65536 ? 16 : 32);
  for (int64_t e = 0; e < lg.entries(); ++e) {
    ASSERT_EQ(lg.col(e), x.columns[size_t(e)]) << "entry " << e;
    ASSERT_TRUE(same_bits(lg.w(e), x.weights[size_t(e)])) << "entry " << e;
  }
  for (int64_t i = 0; i < n; ++i) {
    ASSERT_TRUE(same_bits(lg.row_sum[size_t(i)], x.row_sum[size_t(i)]))
        << "row " << i << ": " << lg.row_sum[size_t(i)] << " vs " << x.row_sum[size_t(i)];
    ASSERT_EQ(lg.k_pos[size_t(i)], x.k_pos[size_t(i)]);
    ASSERT_EQ(lg.k_neg[size_t(i)], x.k_neg[size_t(i)]);
  }
  EXPECT_TRUE(same_bits(lg.group_pos, x.group_pos));
  EXPECT_TRUE(same_bits(lg.group_neg, x.group_neg));
}

// induced() of a random group, then a random split of it through induced_from_parent, both sides,
// each against the reference, with 1 and 3 threads into subgraphs reused from the larger group
// (their arrays keep stale entries past the new ones' end).
void check(int64_t n, int64_t degree, Weights kind, uint64_t seed) {
  const std::unique_ptr<TestGraph> tg = random_graph(n, degree, kind, seed);
  fc::SplitMix64 rng(seed + 1);
  std::vector<int64_t> group;
  for (int64_t u = 0; u < n; ++u)
    if (rng.next() % 8 != 0) group.push_back(u);
  for (int threads : {1, 3}) {
    SCOPED_TRACE("threads " + std::to_string(threads));
    std::vector<int64_t> local_of(static_cast<size_t>(n), -1);
    auto root = std::make_unique<fc::LocalGraph>();
    fc::induced(tg->g, tg->t, group, local_of, threads, *root);
    expect_subgraph(*root, expected(*tg, group), "induced");
    for (int64_t v : local_of) ASSERT_EQ(v, -1);  // left as found
    std::vector<int8_t> side(group.size());
    std::vector<int64_t> nodes[2];
    for (size_t i = 0; i < group.size(); ++i) {
      side[i] = rng.next() % 5 == 0 ? -1 : 1;
      nodes[side[i] > 0 ? 0 : 1].push_back(group[i]);
    }
    fc::SubgraphRecycler recycler;
    const std::shared_ptr<const fc::ParentGraph> parent = recycler.share(std::move(root), side);
    fc::LocalGraph child;
    for (int which : {0, 1}) {
      fc::induced_from_parent(*parent, which, threads, child);
      expect_subgraph(child, expected(*tg, nodes[which]), which == 0 ? "side +1" : "side -1");
    }
    // The +1 side again into the arrays the smaller side left: the same.
    fc::induced_from_parent(*parent, 0, threads, child);
    expect_subgraph(child, expected(*tg, nodes[0]), "side +1 again");
  }
}

TEST(LocalGraph, BinaryGraph) { check(997, 40, Weights::kBinary, 11); }
TEST(LocalGraph, UniformPowerOfTwoWeights) {
  check(997, 40, Weights::kHalf, 12);
  check(401, 30, Weights::kNegativeHalf, 13);
}
TEST(LocalGraph, UniformWeightNotAPowerOfTwo) { check(997, 40, Weights::kTenth, 14); }
TEST(LocalGraph, WeightedAndSignedGraphs) {
  check(997, 40, Weights::kPositive, 15);
  check(997, 40, Weights::kSigned, 16);
}
TEST(LocalGraph, TinyGroups) {
  for (int64_t n : {1, 2, 3, 5}) check(n, 2, Weights::kBinary, 17 + uint64_t(n));
}
// Past 65,536 nodes the group's columns are 32-bit and one side's may be 16-bit.
TEST(LocalGraph, ThirtyTwoBitColumns) { check(80021, 6, Weights::kBinary, 23); }

// The recycler hands out the smallest kept subgraph with room for the entries asked for (a new
// one when that room is far too large), else the largest (a chain of splits: the large child
// must get the large arrays, not its small sibling),
// and takes back both kinds: subgraphs kept directly and shared ones once their children let go.
TEST(SubgraphRecycler, TakesTheSmallestThatFits) {
  auto with_room = [](int64_t entries, int width) {
    auto g = std::make_unique<fc::LocalGraph>();
    if (width == 16) g->columns16.reserve(size_t(entries));
    else g->columns32.reserve(size_t(entries));
    return g;
  };
  fc::SubgraphRecycler r;
  EXPECT_NE(r.take(100), nullptr);  // nothing kept: a new one
  r.keep(with_room(1000, 16));
  r.keep(with_room(50, 16));
  r.keep(with_room(400, 32));
  r.keep(nullptr);  // ignored
  auto a = r.take(300);  // 400 and 1000 fit: 400
  EXPECT_GE(a->columns32.capacity(), 400u);
  EXPECT_LT(a->columns16.capacity(), 1000u);
  auto b = r.take(5000);  // none fits: the largest (1000)
  EXPECT_GE(b->columns16.capacity(), 1000u);
  auto c = r.take(10);  // the 50 left
  EXPECT_GE(c->columns16.capacity(), 50u);
  EXPECT_LT(c->columns16.capacity(), 1000u);
  auto d = r.take(10);  // nothing kept: new and empty
  EXPECT_EQ(d->columns16.capacity(), 0u);
  // a shared subgraph comes back once both its children let go, and is taken again
  {
    const std::vector<int8_t> side = {1, -1, 1};
    auto big = with_room(2000, 16);
    big->n = 3;
    big->offsets.assign(4, 0);
    auto parent = r.share(std::move(big), side);
    auto other = parent;
    EXPECT_EQ(r.take(1500)->columns16.capacity(), 0u);  // still shared: not kept yet
  }
  EXPECT_GE(r.take(1500)->columns16.capacity(), 2000u);
  // far more room than asked for (past the slack and the small room): a new one, the large kept
  // for a large group; within the slack, the large one
  const int64_t large = int64_t(fc::SubgraphRecycler::kSmallRoom) * 2;
  r.keep(with_room(large, 16));
  const int64_t small = large / int64_t(fc::SubgraphRecycler::kRoomSlack) - 1;
  EXPECT_EQ(r.take(small)->columns16.capacity(), 0u);
  EXPECT_GE(r.take(small + 1)->columns16.capacity(), size_t(large));
}

}  // namespace
