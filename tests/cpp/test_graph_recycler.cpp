// graph/graph_recycler: which arrays a context keeps from destroyed graphs and hands to the next
// ones (the API-level test, test_graph's ReusedMemoryGivesTheSameGraphs, checks the graphs).
#include <gtest/gtest.h>

#include <cstdint>

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
