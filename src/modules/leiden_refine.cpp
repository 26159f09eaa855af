// Leiden's refinement (leiden.hpp) for the single-graph objective: leiden_pass.hpp's
// refine_partition with one null term, d+ kp - d- kn.
#include "modules/leiden_pass.hpp"

namespace fc {

namespace {

// The sums of node weights (kp, kn) per community S and per subcommunity r.
struct ScalarNull {
  const LeidenGraph& g;
  const LeidenTerms& t;
  std::vector<double> s_p, s_n, r_p, r_n;

  void begin(const std::vector<int64_t>& label) {
    community_weight_sums(g, label, s_p, s_n);
    r_p = g.kp;
    r_n = g.kn;
  }
  bool well_connected(double ext, int64_t r, int64_t s) const {
    const double rp = r_p[static_cast<size_t>(r)], rn = r_n[static_cast<size_t>(r)];
    return ext - t.gamma * (t.d_pos * rp * (s_p[static_cast<size_t>(s)] - rp) - t.d_neg * rn * (s_n[static_cast<size_t>(s)] - rn)) >= 0;
  }
  // From a community of its own (w_va = 0, K_a = v's weights) into r.
  double join_gain(int64_t v, double w, int64_t r) const {
    const double kp = g.kp[static_cast<size_t>(v)], kn = g.kn[static_cast<size_t>(v)];
    return leiden_gain(t, kp, kn, w, 0.0, r_p[static_cast<size_t>(r)], r_n[static_cast<size_t>(r)], kp, kn);
  }
  void join(int64_t v, int64_t r) {
    r_p[static_cast<size_t>(r)] += g.kp[static_cast<size_t>(v)];
    r_n[static_cast<size_t>(r)] += g.kn[static_cast<size_t>(v)];
  }
};

}  // namespace

int64_t leiden_refine(const LeidenGraph& g, const LeidenTerms& t, const std::vector<char>& skip,
                      const std::vector<int64_t>& label, SplitMix64& rng, std::vector<int64_t>& refined, int threads) {
  ScalarNull null{g, t, {}, {}, {}, {}};
  return refine_partition(g, null, t.randomness, skip, label, rng, refined, threads);
}

}  // namespace fc
