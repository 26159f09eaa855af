// Graphs for the modularity tests (tests/cpp/test_modularity.cpp, tests/gpu/test_cuda_modules.cpp):
// an edge list made into an fc_graph with the public API, planted partitions from a seed, and
// Zachary's karate club.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "modules/leading_eigen.hpp"
#include "fastconn/fastconn.h"

namespace modtest {

struct Edge {
  int64_t i, j;
  double w;
};

struct Graph {
  int64_t n = 0;
  std::vector<Edge> edges;
  fc_graph* g = nullptr;
  Graph(int64_t n_, std::vector<Edge> e) : n(n_), edges(std::move(e)) {
    std::vector<std::vector<std::pair<int64_t, float>>> rows(static_cast<size_t>(n));
    for (const Edge& x : edges) {
      rows[static_cast<size_t>(x.i)].push_back({x.j, float(x.w)});
      rows[static_cast<size_t>(x.j)].push_back({x.i, float(x.w)});
    }
    std::vector<int64_t> offsets(1, 0), columns;
    std::vector<float> weights;
    for (auto& r : rows) {
      std::sort(r.begin(), r.end());
      for (auto& [c, w] : r) columns.push_back(c), weights.push_back(w);
      offsets.push_back(int64_t(columns.size()));
    }
    EXPECT_EQ(fc_graph_create_csr(n, offsets.data(), columns.data(), weights.data(), &g), FC_OK) << fc_last_error();
  }
  ~Graph() { fc_graph_destroy(g); }
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;
};

// Planted partition: k communities of `size` (node v in community perm(v) / size, shuffled),
// each pair an edge with probability p_in inside, p_out across, weights w_in / w_out.
inline Graph planted(int64_t k, int64_t size, double p_in, double p_out, uint64_t seed, std::vector<int64_t>& truth,
              double w_in = 1.0, double w_out = 1.0) {
  fc::SplitMix64 rng(seed);
  const int64_t n = k * size;
  std::vector<int64_t> perm(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) perm[size_t(i)] = i;
  for (int64_t i = n - 1; i > 0; --i) std::swap(perm[size_t(i)], perm[size_t(rng.next() % uint64_t(i + 1))]);
  truth.assign(size_t(n), 0);
  for (int64_t i = 0; i < n; ++i) truth[size_t(i)] = perm[size_t(i)] / size;
  std::vector<Edge> e;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = i + 1; j < n; ++j) {
      const bool in = truth[size_t(i)] == truth[size_t(j)];
      if (rng.uniform() < (in ? p_in : p_out)) e.push_back({i, j, in ? w_in : w_out});
    }
  return Graph(n, std::move(e));
}

// Zachary (1977), the 78 friendships of the karate club, nodes 0..33.
inline constexpr int kKarate[78][2] = {
    {0, 1},   {0, 2},   {0, 3},   {0, 4},   {0, 5},   {0, 6},   {0, 7},   {0, 8},   {0, 10},  {0, 11},  {0, 12},
    {0, 13},  {0, 17},  {0, 19},  {0, 21},  {0, 31},  {1, 2},   {1, 3},   {1, 7},   {1, 13},  {1, 17},  {1, 19},
    {1, 21},  {1, 30},  {2, 3},   {2, 7},   {2, 8},   {2, 9},   {2, 13},  {2, 27},  {2, 28},  {2, 32},  {3, 7},
    {3, 12},  {3, 13},  {4, 6},   {4, 10},  {5, 6},   {5, 10},  {5, 16},  {6, 16},  {8, 30},  {8, 32},  {8, 33},
    {9, 33},  {13, 33}, {14, 32}, {14, 33}, {15, 32}, {15, 33}, {18, 32}, {18, 33}, {19, 33}, {20, 32}, {20, 33},
    {22, 32}, {22, 33}, {23, 25}, {23, 27}, {23, 29}, {23, 32}, {23, 33}, {24, 25}, {24, 27}, {24, 31}, {25, 31},
    {26, 29}, {26, 33}, {27, 33}, {28, 31}, {28, 33}, {29, 32}, {29, 33}, {30, 32}, {30, 33}, {31, 32}, {31, 33},
    {32, 33}};

}  // namespace modtest
