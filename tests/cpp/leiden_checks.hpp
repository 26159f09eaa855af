// Checks the Leiden tests share (test_leiden.cpp, test_leiden_sync.cpp): whether every community
// is connected, the normalized mutual information of two labelings, and the karate club graph.
#pragma once

#include <cmath>
#include <map>
#include <vector>

#include "modularity_graphs.hpp"

namespace modtest {

// True when every community is connected through the graph's edges inside it (a search per community).
inline bool communities_connected(const Graph& g, const std::vector<int64_t>& label) {
  std::vector<std::vector<int64_t>> adj(size_t(g.n));
  for (const Edge& e : g.edges)
    if (e.w != 0) adj[size_t(e.i)].push_back(e.j), adj[size_t(e.j)].push_back(e.i);
  std::vector<char> seen(size_t(g.n), 0), community_seen(size_t(g.n) + 1, 0);
  for (int64_t root = 0; root < g.n; ++root) {
    if (seen[size_t(root)]) continue;
    const int64_t c = label[size_t(root)];
    if (community_seen[size_t(c)]) return false;  // a second piece of a community met before
    community_seen[size_t(c)] = 1;
    std::vector<int64_t> stack{root};
    seen[size_t(root)] = 1;
    while (!stack.empty()) {
      const int64_t v = stack.back();
      stack.pop_back();
      for (int64_t u : adj[size_t(v)])
        if (!seen[size_t(u)] && label[size_t(u)] == c) seen[size_t(u)] = 1, stack.push_back(u);
    }
  }
  return true;
}

inline double nmi(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  const double n = double(a.size());
  std::map<int64_t, double> ca, cb;
  std::map<std::pair<int64_t, int64_t>, double> cab;
  for (size_t i = 0; i < a.size(); ++i) ca[a[i]] += 1, cb[b[i]] += 1, cab[{a[i], b[i]}] += 1;
  double mi = 0, ha = 0, hb = 0;
  for (auto& [ab, x] : cab) mi += x / n * std::log(x * n / (ca[ab.first] * cb[ab.second]));
  for (auto& [c, x] : ca) ha -= x / n * std::log(x / n);
  for (auto& [c, x] : cb) hb -= x / n * std::log(x / n);
  return ha + hb == 0 ? 1.0 : 2 * mi / (ha + hb);
}

inline Graph karate() {
  std::vector<Edge> e;
  for (auto& x : kKarate) e.push_back({x[0], x[1], 1.0});
  return Graph(34, e);
}

}  // namespace modtest
