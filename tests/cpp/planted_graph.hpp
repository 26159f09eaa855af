// Graphs as fc_modularity's internals see them (GraphData and the ModularityTerms of Newman's Q),
// for the tests that call them directly (test_final_moves, test_speculation, test_local_graph).
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "graph/graph.hpp"
#include "modules/leading_eigen.hpp"
#include "modules/modularity.hpp"

namespace planted_graph {

using Rows = std::vector<std::vector<std::pair<int64_t, float>>>;

// The graph of row lists (each row sorted here; a column listed twice is kept once) and its
// degrees k+ and k- (modularity_terms' definitions).
inline void from_rows(Rows& rows, fc::GraphData& g, fc::ModularityTerms& t) {
  const int64_t n = int64_t(rows.size());
  g.n = n;
  g.offsets.assign(1, 0);
  t.k_pos.assign(static_cast<size_t>(n), 0.0);
  t.k_neg.assign(static_cast<size_t>(n), 0.0);
  for (int64_t i = 0; i < n; ++i) {
    auto& r = rows[static_cast<size_t>(i)];
    std::sort(r.begin(), r.end());
    r.erase(std::unique(r.begin(), r.end(), [](const auto& a, const auto& b) { return a.first == b.first; }), r.end());
    for (const auto& [c, w] : r) {
      g.columns.push_back(c);
      g.weights.push_back(w);
      if (w > 0) t.k_pos[static_cast<size_t>(i)] += w;
      else t.k_neg[static_cast<size_t>(i)] -= w;
    }
    g.offsets.push_back(int64_t(g.columns.size()));
  }
}

// A planted partition of `communities` groups of `size` nodes (weighted or binary), plus `isolated`
// nodes without edges at the end, with modularity_terms' coefficients for Newman's Q (gamma 1).
struct TestGraph {
  fc::GraphData g;
  fc::ModularityTerms t;
  std::vector<int64_t> truth;
  std::vector<char> isolated;
};

inline std::unique_ptr<TestGraph> planted(int64_t communities, int64_t size, int64_t isolated, bool weighted, uint64_t seed) {
  fc::SplitMix64 rng(seed);
  const int64_t linked = communities * size, n = linked + isolated;
  Rows rows(static_cast<size_t>(n));
  for (int64_t i = 0; i < linked; ++i)
    for (int64_t j = i + 1; j < linked; ++j) {
      const bool inside = i / size == j / size;
      if (rng.uniform() >= (inside ? 0.3 : 0.02)) continue;
      const float w = weighted ? float(0.1 + rng.uniform()) : 1.0f;
      rows[static_cast<size_t>(i)].push_back({j, w});
      rows[static_cast<size_t>(j)].push_back({i, w});
    }
  auto out = std::make_unique<TestGraph>();
  from_rows(rows, out->g, out->t);
  for (int64_t i = 0; i < n; ++i) {
    out->t.total_pos += out->t.k_pos[static_cast<size_t>(i)];
    out->truth.push_back(i < linked ? i / size : communities + (i - linked));
    out->isolated.push_back(i >= linked);
  }
  fc::ModularityTerms& t = out->t;
  t.s = t.total_pos;
  t.c_pos = t.c_neg = 1;
  t.d_pos = 1 / t.total_pos;
  return out;
}


}  // namespace planted_graph
