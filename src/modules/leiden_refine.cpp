// Leiden's refinement (leiden.hpp): the paper's RefinePartition and MergeNodesSubset. Within each
// community S of the moved partition, every node starts alone; in a seeded random order, a node
// still alone and well connected to S joins one of the well-connected subcommunities of S next to
// it, drawn with probability ~ exp(gain / theta) among those of non-negative gain (staying alone
// has gain 0). A subcommunity grows only by nodes joined to it through an edge, so every one is
// connected: aggregating them, rather than the communities, is what keeps communities connected.
#include <algorithm>
#include <cmath>

#include "modules/leiden.hpp"

namespace fc {

int64_t leiden_refine(const LeidenGraph& g, const LeidenTerms& t, const std::vector<char>& skip,
                      const std::vector<int64_t>& label, SplitMix64& rng, std::vector<int64_t>& refined) {
  const int64_t n = g.n;
  refined.resize(static_cast<size_t>(n));
  // Sums over each community S of `label`, and per subcommunity r (id: its first node): node
  // weights, size, and ext[r] = the weight from r to the rest of its S.
  std::vector<double> s_p(static_cast<size_t>(n), 0.0), s_n(static_cast<size_t>(n), 0.0);
  std::vector<double> r_p(g.kp), r_n(g.kn), ext(static_cast<size_t>(n), 0.0);
  std::vector<int64_t> r_size(static_cast<size_t>(n), 1);
  for (int64_t v = 0; v < n; ++v) {
    const size_t vs = static_cast<size_t>(v), s = static_cast<size_t>(label[vs]);
    refined[vs] = v;
    s_p[s] += g.kp[vs];
    s_n[s] += g.kn[vs];
    double w = 0;
    for (int64_t e = g.offsets[vs]; e < g.offsets[vs + 1]; ++e)
      if (label[static_cast<size_t>(g.columns[static_cast<size_t>(e)])] == label[vs]) w += g.weights[static_cast<size_t>(e)];
    ext[vs] = w;
  }
  // r (weights rp, rn, ext) is well connected in S when r leaving S alone gains nothing.
  auto well_connected = [&](double ext_r, double rp, double rn, size_t s) {
    return ext_r - t.gamma * (t.d_pos * rp * (s_p[s] - rp) - t.d_neg * rn * (s_n[s] - rn)) >= 0;
  };

  std::vector<int64_t> order;
  order.reserve(static_cast<size_t>(n));
  for (int64_t v = 0; v < n; ++v)
    if (!skip[static_cast<size_t>(v)]) order.push_back(v);
  for (int64_t i = int64_t(order.size()) - 1; i > 0; --i)
    std::swap(order[static_cast<size_t>(i)], order[static_cast<size_t>(rng.next() % uint64_t(i + 1))]);

  CommunityWeights cw(n);
  std::vector<int64_t> candidate;
  std::vector<double> gain;
  for (int64_t v : order) {
    const size_t vs = static_cast<size_t>(v), s = static_cast<size_t>(label[vs]);
    if (r_size[static_cast<size_t>(refined[vs])] != 1) continue;  // no longer alone
    const double kp = g.kp[vs], kn = g.kn[vs];
    if (!well_connected(ext[vs], kp, kn, s)) continue;
    for (int64_t e = g.offsets[vs]; e < g.offsets[vs + 1]; ++e) {
      const size_t u = static_cast<size_t>(g.columns[static_cast<size_t>(e)]);
      if (label[u] == label[vs]) cw.add(refined[u], g.weights[static_cast<size_t>(e)]);
    }
    candidate.assign(1, v);  // staying alone: gain 0
    gain.assign(1, 0.0);
    double top = 0;
    for (int64_t r : cw.touched) {
      const size_t rs = static_cast<size_t>(r);
      if (r == v || !well_connected(ext[rs], r_p[rs], r_n[rs], s)) continue;
      // From a community of its own (w_va = 0, K_a = v's weights) into r.
      const double d = leiden_gain(t, kp, kn, cw.weight[rs], 0.0, r_p[rs], r_n[rs], kp, kn);
      if (d < 0) continue;
      candidate.push_back(r);
      gain.push_back(d);
      top = std::max(top, d);
    }
    int64_t chosen = v;
    if (candidate.size() > 1) {
      // Pr(r) ~ exp(gain_r / theta), scaled by exp(-top / theta) so that nothing overflows.
      double total = 0;
      for (double& d : gain) total += (d = std::exp((d - top) / t.randomness));
      const double x = rng.uniform() * total;
      double cumulative = 0;
      chosen = candidate.back();
      for (size_t i = 0; i < candidate.size(); ++i) {
        cumulative += gain[i];
        if (x < cumulative) {
          chosen = candidate[i];
          break;
        }
      }
    }
    if (chosen != v) {
      const size_t cs = static_cast<size_t>(chosen);
      ext[cs] += ext[vs] - 2 * cw.weight[cs];
      r_p[cs] += kp;
      r_n[cs] += kn;
      ++r_size[cs];
      r_size[vs] = 0;
      refined[vs] = chosen;
    }
    cw.clear();
  }
  return renumber_by_first_appearance(refined);
}

}  // namespace fc
