// A group's leading eigenpair for a bisection (group_eigen.hpp).
#include "modules/group_eigen.hpp"

#include <algorithm>

#include "base/parallel_team.hpp"

namespace fc {
namespace {

// Eigensolver settings of every bisection beyond the tolerance (modularity.hpp): the basis is
// small enough to restart often.
constexpr int64_t kEigenBasis = 24;
constexpr int64_t kEigenMaxProducts = 20000;

}  // namespace

// The leading eigenpair of the group's B^(g) on the host, from its subgraph: the diagonal
// correction r_i = sum_{l in g} B_il, then B^(g) x as modules_backend.hpp's GroupTerms spells it out (a
// device space computes the same bits).
EigenResult host_eigenpair(const LocalGraph& lg, const ModularityTerms& t, const ThreadCount& threads,
                           const EigenOptions& eo, const EarlyAccept& accept, Phases& phases) {
  const int64_t n = lg.n;
  const double gd_pos = t.gamma * t.d_pos, gd_neg = t.gamma * t.d_neg;
  std::vector<double> r(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i)
    r[static_cast<size_t>(i)] = lg.row_sum[static_cast<size_t>(i)] -
                                t.gamma * (t.d_pos * lg.k_pos[static_cast<size_t>(i)] * lg.group_pos -
                                           t.d_neg * lg.k_neg[static_cast<size_t>(i)] * lg.group_neg);
  auto op = [&](const double* x, double* y) {
    const int share = threads();
    // threads for the host's sparse sums (work: the stored entries)
    const int team = parallel_team(lg.entries() + n, share);
    const double p = deterministic_dot(lg.k_pos.data(), x, n, share);
    const double q = gd_neg != 0 ? deterministic_dot(lg.k_neg.data(), x, n, share) : 0.0;
    const double uniform = lg.weight;
    const double* weights = lg.weights.data();
    auto same = [uniform](int64_t) { return uniform; };
    auto each = [weights](int64_t e) { return weights[e]; };
    const int64_t quads = (n + kRowsAtOnce - 1) / kRowsAtOnce;
#pragma omp parallel for schedule(static) num_threads(team) if (team > 1)
    for (int64_t b = 0; b < quads; ++b) {
      const int64_t i0 = b * kRowsAtOnce, rows = std::min<int64_t>(kRowsAtOnce, n - i0);
      double sum[kRowsAtOnce];
      if (lg.width == 16) lg.uniform ? row_sums(lg, lg.columns16.data(), same, x, i0, rows, sum)
                                     : row_sums(lg, lg.columns16.data(), each, x, i0, rows, sum);
      else if (lg.width == 32) lg.uniform ? row_sums(lg, lg.columns32.data(), same, x, i0, rows, sum)
                                          : row_sums(lg, lg.columns32.data(), each, x, i0, rows, sum);
      else lg.uniform ? row_sums(lg, lg.columns64.data(), same, x, i0, rows, sum)
                      : row_sums(lg, lg.columns64.data(), each, x, i0, rows, sum);
      for (int64_t k = 0; k < rows; ++k) {
        const size_t i = static_cast<size_t>(i0 + k);
        y[i] = sum[k] - gd_pos * lg.k_pos[i] * p + gd_neg * lg.k_neg[i] * q - r[i] * x[i];
      }
    }
  };
  HostSpace space([&](const double* x, double* y) { phases.time(phases.products, [&] { op(x, y); }); }, threads);
  return leading_eigenpair(n, space, eo, accept);
}

// The leading eigenpair of the group's B^(g) on a backend's device, which computes the diagonal
// correction itself (modules_backend.hpp's GroupTerms with r null): k+, k- and their group sums in the
// order and with the bits of the subgraph's (local_graph.cpp), which need not exist yet.
EigenResult device_eigenpair(GroupProducts& device, const std::vector<int64_t>& nodes, const ModularityTerms& t,
                             const EigenOptions& eo, const EarlyAccept& accept) {
  const int64_t n = int64_t(nodes.size());
  std::vector<double> kp(static_cast<size_t>(n)), kn(static_cast<size_t>(n));
  GroupTerms terms;
  for (int64_t i = 0; i < n; ++i) {
    const size_t u = static_cast<size_t>(nodes[static_cast<size_t>(i)]);
    kp[static_cast<size_t>(i)] = t.k_pos[u];
    kn[static_cast<size_t>(i)] = t.k_neg[u];
  }
  for (int64_t i = 0; i < n; ++i) {
    terms.group_pos += kp[static_cast<size_t>(i)];
    terms.group_neg += kn[static_cast<size_t>(i)];
  }
  terms.k_pos = kp.data();
  terms.k_neg = kn.data();
  terms.gd_pos = t.gamma * t.d_pos;
  terms.gd_neg = t.gamma * t.d_neg;
  terms.gamma = t.gamma;
  terms.d_pos = t.d_pos;
  terms.d_neg = t.d_neg;
  return leading_eigenpair(n, device.select(nodes, terms), eo, accept);
}

// The eigensolver's settings for a group with this seed and warm start (empty: none).
EigenOptions eigen_options(uint64_t seed, const std::vector<double>& warm, int64_t n, int threads) {
  EigenOptions eo;
  eo.tolerance = kEigenTolerance;
  eo.early_tolerance = kSplitTolerance;
  eo.max_basis = kEigenBasis;
  eo.max_products = kEigenMaxProducts;
  eo.seed = seed;
  eo.want_next = true;
  if (int64_t(warm.size()) == n) eo.warm = warm.data();
  eo.threads = threads;
  return eo;
}

}  // namespace fc
