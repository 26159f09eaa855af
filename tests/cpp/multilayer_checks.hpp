// What the multilayer tests (test_multilayer.cpp, test_multilayer_sync.cpp) check against: Mucha et
// al.'s Q computed term by term from dense matrices, the supra-graph's connected pieces of each
// community, partitions equal up to renumbering, and the layers they run on.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <memory>
#include <vector>

#include "fastconn/fastconn.h"
#include "modularity_graphs.hpp"

namespace mltest {

using modtest::Edge;
using modtest::Graph;
using modtest::planted;

// Mucha et al. 2010's Q, term by term over (i, j, s, r), from dense adjacency matrices.
inline double mucha_q(const std::vector<std::unique_ptr<Graph>>& gs, const std::vector<int64_t>& g, double omega,
               int coupling, const std::vector<double>& gamma) {
  const size_t L = gs.size(), N = size_t(gs[0]->n);
  std::vector<std::vector<double>> A(L, std::vector<double>(N * N, 0.0));
  std::vector<std::vector<double>> k(L, std::vector<double>(N, 0.0));
  std::vector<double> two_m(L, 0.0);
  for (size_t s = 0; s < L; ++s) {
    for (const Edge& e : gs[s]->edges) {
      A[s][size_t(e.i) * N + size_t(e.j)] += double(float(e.w));
      A[s][size_t(e.j) * N + size_t(e.i)] += double(float(e.w));
    }
    for (size_t i = 0; i < N; ++i)
      for (size_t j = 0; j < N; ++j) k[s][i] += A[s][i * N + j];
    for (size_t i = 0; i < N; ++i) two_m[s] += k[s][i];
  }
  auto C = [&](size_t s, size_t r) {
    if (s == r) return 0.0;
    if (coupling == FC_COUPLING_ORDINAL && s + 1 != r && r + 1 != s) return 0.0;
    return omega;
  };
  double two_mu = 0, sum = 0;
  for (size_t s = 0; s < L; ++s) two_mu += two_m[s];
  for (size_t j = 0; j < N; ++j)
    for (size_t s = 0; s < L; ++s)
      for (size_t r = 0; r < L; ++r) two_mu += C(s, r);
  for (size_t s = 0; s < L; ++s)
    for (size_t r = 0; r < L; ++r)
      for (size_t i = 0; i < N; ++i)
        for (size_t j = 0; j < N; ++j) {
          if (g[s * N + i] != g[r * N + j]) continue;
          double b = 0;
          if (s == r) b += A[s][i * N + j] - (two_m[s] > 0 ? gamma[s] * k[s][i] * k[s][j] / two_m[s] : 0.0);
          if (i == j) b += C(s, r);
          sum += b;
        }
  return sum / two_mu;
}

// Layers of planted partitions on the same nodes, each its own (shuffled) partition in truth[s].
inline std::vector<std::unique_ptr<Graph>> planted_layers(int64_t layers, int64_t k, int64_t size, double p_in, double p_out,
                                                   uint64_t seed, std::vector<std::vector<int64_t>>& truth) {
  std::vector<std::unique_ptr<Graph>> gs;
  truth.assign(size_t(layers), {});
  for (int64_t s = 0; s < layers; ++s) {
    std::vector<int64_t> t;
    const Graph g = planted(k, size, p_in, p_out, seed + 7919 * uint64_t(s), t);
    gs.push_back(std::make_unique<Graph>(g.n, g.edges));
    truth[size_t(s)] = t;
  }
  return gs;
}

// Two label vectors are the same partition (equal up to renumbering).
inline bool same_partition(const int64_t* a, const int64_t* b, int64_t n) {
  std::map<int64_t, int64_t> ab, ba;
  for (int64_t i = 0; i < n; ++i) {
    if (ab.emplace(a[i], b[i]).first->second != b[i]) return false;
    if (ba.emplace(b[i], a[i]).first->second != a[i]) return false;
  }
  return true;
}

// Random small layers: n nodes, each pair an edge with probability p, weights in (0, 1].
inline std::vector<std::unique_ptr<Graph>> random_layers(int64_t layers, int64_t n, double p, uint64_t seed) {
  fc::SplitMix64 rng(seed);
  std::vector<std::unique_ptr<Graph>> gs;
  for (int64_t s = 0; s < layers; ++s) {
    std::vector<Edge> e;
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = i + 1; j < n; ++j)
        if (rng.uniform() < p) e.push_back({i, j, 0.05 + 0.95 * rng.uniform()});
    gs.push_back(std::make_unique<Graph>(n, std::move(e)));
  }
  return gs;
}

// The communities of `labels` that are not connected in the supra-graph: node (i, s) joined to
// (j, s) by layer s's edges of non-zero weight and to (i, r) when omega > 0 couples s and r.
inline int64_t disconnected_communities(const std::vector<std::unique_ptr<Graph>>& gs, const std::vector<int64_t>& labels,
                                 double omega, int coupling) {
  const int64_t L = int64_t(gs.size()), N = gs[0]->n;
  std::vector<std::vector<int64_t>> adj(size_t(L * N));
  for (int64_t s = 0; s < L; ++s) {
    for (const Edge& e : gs[size_t(s)]->edges) {
      if (float(e.w) == 0 || e.i == e.j) continue;
      adj[size_t(s * N + e.i)].push_back(s * N + e.j);
      adj[size_t(s * N + e.j)].push_back(s * N + e.i);
    }
    for (int64_t r = 0; r < L && omega > 0; ++r)
      if (r != s && (coupling == FC_COUPLING_CATEGORICAL || std::llabs(r - s) == 1))
        for (int64_t i = 0; i < N; ++i) adj[size_t(s * N + i)].push_back(r * N + i);
  }
  std::vector<char> seen(adj.size(), 0), community_seen;
  int64_t disconnected = 0;
  for (size_t root = 0; root < adj.size(); ++root) {
    if (seen[root]) continue;
    const int64_t c = labels[root];
    if (size_t(c) >= community_seen.size()) community_seen.resize(size_t(c) + 1, 0);
    disconnected += community_seen[size_t(c)];  // a second piece of c
    community_seen[size_t(c)] = 1;
    std::vector<int64_t> stack(1, int64_t(root));
    seen[root] = 1;
    while (!stack.empty()) {
      const int64_t v = stack.back();
      stack.pop_back();
      for (int64_t u : adj[size_t(v)])
        if (!seen[size_t(u)] && labels[size_t(u)] == c) {
          seen[size_t(u)] = 1;
          stack.push_back(u);
        }
    }
  }
  return disconnected;
}

}  // namespace mltest
