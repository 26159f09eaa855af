// Leiden's fast local moving (leiden.hpp) for the single-graph objective: leiden_pass.hpp's
// move_nodes_with with one null term, d+ kp - d- kn; and the seeded node orders.
#include <algorithm>

#include "modules/leiden_pass.hpp"

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

void community_weight_sums(const LeidenGraph& g, const std::vector<int64_t>& label, std::vector<double>& sum_p,
                           std::vector<double>& sum_n) {
  sum_p.assign(static_cast<size_t>(g.n), 0.0);
  sum_n.assign(static_cast<size_t>(g.n), 0.0);
  for (int64_t v = 0; v < g.n; ++v) {
    const size_t c = static_cast<size_t>(label[static_cast<size_t>(v)]);
    sum_p[c] += g.kp[static_cast<size_t>(v)];
    sum_n[c] += g.kn[static_cast<size_t>(v)];
  }
}

namespace {

// The sums of node weights (kp, kn) per community: leiden_gain's null term.
struct ScalarModel {
  const LeidenGraph& g;
  const LeidenTerms& t;
  std::vector<double> sum_p, sum_n;

  void begin(const std::vector<int64_t>& label) { community_weight_sums(g, label, sum_p, sum_n); }
  double null(int64_t v, int64_t c, int64_t a) const {
    const size_t vs = static_cast<size_t>(v), as = static_cast<size_t>(a);
    const double kc_p = c < 0 ? 0.0 : sum_p[static_cast<size_t>(c)];
    // Without negative weights (and for CPM) d- is 0 and the second term adds an exact 0: skipped,
    // it spared a load from a community-long array for each candidate the moves weigh.
    if (t.d_neg == 0) return t.gamma * (t.d_pos * g.kp[vs] * (kc_p - sum_p[as] + g.kp[vs]));
    const double kc_n = c < 0 ? 0.0 : sum_n[static_cast<size_t>(c)];
    // leiden_gain's, term for term (the same bits).
    return t.gamma * (t.d_pos * g.kp[vs] * (kc_p - sum_p[as] + g.kp[vs]) - t.d_neg * g.kn[vs] * (kc_n - sum_n[as] + g.kn[vs]));
  }
  void move(int64_t v, int64_t a, int64_t c) {
    const size_t vs = static_cast<size_t>(v), as = static_cast<size_t>(a), cs = static_cast<size_t>(c);
    sum_p[as] -= g.kp[vs];
    sum_n[as] -= g.kn[vs];
    sum_p[cs] += g.kp[vs];
    sum_n[cs] += g.kn[vs];
  }
  void emptied(int64_t, int64_t a) {
    sum_p[static_cast<size_t>(a)] = 0;
    sum_n[static_cast<size_t>(a)] = 0;
  }
};

}  // namespace

int64_t leiden_move_nodes(const LeidenGraph& g, const LeidenTerms& t, const std::vector<char>& skip,
                          std::vector<int64_t>& label, SplitMix64& rng, int threads) {
  ScalarModel model{g, t, {}, {}};
  return move_nodes_with(g, model, t.epsilon, skip, label, rng, threads);
}

}  // namespace fc
