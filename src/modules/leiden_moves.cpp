// Leiden's fast local moving (leiden.hpp): the paper's MoveNodesFast with a queue of nodes.
#include <algorithm>

#include "modules/leiden.hpp"

namespace fc {

std::vector<int64_t> shuffled_nodes(const std::vector<char>& skip, SplitMix64& rng) {
  std::vector<int64_t> order;
  order.reserve(skip.size());
  for (size_t v = 0; v < skip.size(); ++v)
    if (!skip[v]) order.push_back(int64_t(v));
  for (int64_t i = int64_t(order.size()) - 1; i > 0; --i)
    std::swap(order[static_cast<size_t>(i)], order[static_cast<size_t>(rng.next() % uint64_t(i + 1))]);
  return order;
}

int64_t leiden_move_nodes(const LeidenGraph& g, const LeidenTerms& t, const std::vector<char>& skip,
                          std::vector<int64_t>& label, SplitMix64& rng) {
  const int64_t n = g.n;
  if (n == 0) return 0;
  std::vector<double> sum_p(static_cast<size_t>(n), 0.0), sum_n(static_cast<size_t>(n), 0.0);
  std::vector<int64_t> count(static_cast<size_t>(n), 0);
  for (int64_t v = 0; v < n; ++v) {
    const size_t c = static_cast<size_t>(label[static_cast<size_t>(v)]);
    sum_p[c] += g.kp[static_cast<size_t>(v)];
    sum_n[c] += g.kn[static_cast<size_t>(v)];
    ++count[c];
  }
  // Unused community ids, the lowest on top: a node may move to an empty community.
  std::vector<int64_t> empty;
  for (int64_t c = n - 1; c >= 0; --c)
    if (count[static_cast<size_t>(c)] == 0) empty.push_back(c);

  // The queue starts with every movable node in a seeded random order (Fisher-Yates); a ring of n
  // slots holds it, since a node is in it at most once.
  std::vector<int64_t> queue = shuffled_nodes(skip, rng);
  std::vector<char> queued(static_cast<size_t>(n), 0);
  for (int64_t v : queue) queued[static_cast<size_t>(v)] = 1;
  int64_t head = 0, size = int64_t(queue.size());
  queue.resize(static_cast<size_t>(n));

  CommunityWeights cw(n);
  int64_t moves = 0;
  while (size > 0) {
    const int64_t v = queue[static_cast<size_t>(head)];
    head = head + 1 == n ? 0 : head + 1;
    --size;
    queued[static_cast<size_t>(v)] = 0;
    const size_t vs = static_cast<size_t>(v);
    for (int64_t e = g.offsets[vs]; e < g.offsets[vs + 1]; ++e)
      cw.add(label[static_cast<size_t>(g.columns[static_cast<size_t>(e)])], g.weights[static_cast<size_t>(e)]);
    const int64_t a = label[vs];
    const size_t as = static_cast<size_t>(a);
    const double kp = g.kp[vs], kn = g.kn[vs], w_own = cw.weight[as];
    int64_t best = a;
    double best_gain = t.epsilon;
    for (int64_t c : cw.touched) {
      if (c == a) continue;
      const size_t cs = static_cast<size_t>(c);
      const double gain = leiden_gain(t, kp, kn, cw.weight[cs], w_own, sum_p[cs], sum_n[cs], sum_p[as], sum_n[as]);
      if (gain > best_gain) {
        best_gain = gain;
        best = c;
      }
    }
    // Alone in an empty community (the same as staying when v is alone already).
    if (count[as] > 1 && !empty.empty()) {
      const double gain = leiden_gain(t, kp, kn, 0.0, w_own, 0.0, 0.0, sum_p[as], sum_n[as]);
      if (gain > best_gain) best = empty.back();
    }
    cw.clear();
    if (best == a) continue;
    const size_t bs = static_cast<size_t>(best);
    if (!empty.empty() && best == empty.back()) empty.pop_back();
    sum_p[as] -= kp;
    sum_n[as] -= kn;
    --count[as];
    sum_p[bs] += kp;
    sum_n[bs] += kn;
    ++count[bs];
    if (count[as] == 0) {
      sum_p[as] = 0;  // an empty community starts again from exact zeros
      sum_n[as] = 0;
      empty.push_back(a);
    }
    label[vs] = best;
    ++moves;
    // Neighbours outside the new community may now gain from a move: back in the queue.
    for (int64_t e = g.offsets[vs]; e < g.offsets[vs + 1]; ++e) {
      const int64_t u = g.columns[static_cast<size_t>(e)];
      const size_t us = static_cast<size_t>(u);
      if (queued[us] || skip[us] || label[us] == best) continue;
      queued[us] = 1;
      queue[static_cast<size_t>((head + size) % n)] = u;
      ++size;
    }
  }
  return moves;
}

}  // namespace fc
