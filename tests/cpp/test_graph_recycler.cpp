// graph/graph_recycler: which arrays a context keeps from destroyed graphs and hands to the next
// ones (the API-level test, test_graph's ReusedMemoryGivesTheSameGraphs, checks the graphs).
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "graph/graph_recycler.hpp"

namespace {

using fc::GraphRecycler;
using fc::SymmetricCsr;

SymmetricCsr arrays(size_t entries) {
  SymmetricCsr c;
  c.columns.resize(entries);
  c.weights.resize(entries);
  for (size_t k = 0; k < entries; k += 4096) c.columns[k] = static_cast<int64_t>(k);
  return c;
}

TEST(GraphRecycler, KeepsTheLargestAndHandsThemBackEmpty) {
  GraphRecycler r;
  const size_t m = GraphRecycler::kMinEntries;
  SymmetricCsr small = arrays(m - 1), a = arrays(2 * m), b = arrays(3 * m), c = arrays(4 * m);
  const int64_t* b_data = b.columns.data();
  const int64_t* c_data = c.columns.data();
  r.give(small);  // too small: stays with its graph
  EXPECT_EQ(small.columns.size(), m - 1);
  r.give(a);
  r.give(b);
  r.give(c);  // a (the smallest of three) is dropped
  EXPECT_EQ(b.columns.capacity(), 0u);
  SymmetricCsr x, y, z;
  r.take(x);
  r.take(y);
  r.take(z);  // nothing left
  EXPECT_EQ(x.columns.data(), c_data);
  EXPECT_EQ(y.columns.data(), b_data);
  EXPECT_TRUE(x.columns.empty() && x.weights.empty());
  EXPECT_GE(x.weights.capacity(), 4 * m);
  EXPECT_EQ(z.columns.capacity(), 0u);
}

// A context over 4 parts builds 4 window graphs at once (dfc/window_graphs.hpp): it keeps 4.
TEST(GraphRecycler, KeepUpToRaisesTheCountNeverBelowTwo) {
  GraphRecycler r;
  const size_t m = GraphRecycler::kMinEntries;
  r.keep_up_to(1);  // never fewer than kKept
  r.keep_up_to(4);
  r.keep_up_to(3);  // never lowered
  std::vector<SymmetricCsr> given;
  for (size_t k = 1; k <= 5; ++k) given.push_back(arrays(k * m));
  for (SymmetricCsr& g : given) r.give(g);  // the first (smallest) is dropped for the fifth
  for (size_t k = 4; k >= 1; --k) {  // the four largest, largest first
    SymmetricCsr x;
    r.take(x);
    EXPECT_GE(x.columns.capacity(), (k + 1) * m) << k;
  }
  SymmetricCsr none;
  r.take(none);
  EXPECT_EQ(none.columns.capacity(), 0u);
  GraphRecycler two;
  two.keep_up_to(1);
  SymmetricCsr a = arrays(m), b = arrays(2 * m), c = arrays(3 * m);
  two.give(a);
  two.give(b);
  two.give(c);
  SymmetricCsr x, y, z;
  two.take(x);
  two.take(y);
  two.take(z);
  EXPECT_GT(y.columns.capacity(), 0u);
  EXPECT_EQ(z.columns.capacity(), 0u);  // two kept
}

TEST(GraphRecycler, TakeLeavesFilledArraysAlone) {
  GraphRecycler r;
  SymmetricCsr big = arrays(2 * GraphRecycler::kMinEntries), filled = arrays(5);
  r.give(big);
  r.take(filled);
  EXPECT_EQ(filled.columns.size(), 5u);
  SymmetricCsr empty;
  r.take(empty);
  EXPECT_GE(empty.columns.capacity(), 2 * GraphRecycler::kMinEntries);
}

TEST(GraphRecycler, FitMovesASmallGraphOutOfLargeArrays) {
  GraphRecycler r;
  const size_t m = GraphRecycler::kMinEntries;
  SymmetricCsr g = arrays(4 * m);
  const int64_t* large = g.columns.data();
  g.columns.resize(10);
  g.weights.resize(10);
  g.columns[9] = 99;
  r.fit(g);
  EXPECT_EQ(g.columns.size(), 10u);
  EXPECT_EQ(g.columns[9], 99);
  EXPECT_LT(g.columns.capacity(), m);
  SymmetricCsr next;
  r.take(next);
  EXPECT_EQ(next.columns.data(), large);  // kept for the next graph
  SymmetricCsr near = arrays(m + 10);
  near.columns.resize(10);
  near.weights.resize(10);
  const int64_t* same = near.columns.data();
  r.fit(near);  // within kMinEntries of twice its size: left where it is
  EXPECT_EQ(near.columns.data(), same);
}

}  // namespace
