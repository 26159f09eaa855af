// A bisection's state and its fine-tuning (split_refine.hpp).
#include "modules/split_refine.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "base/parallel_team.hpp"
#include "modules/leading_eigen.hpp"
#include "modules/line_maxima.hpp"

namespace fc {
namespace {

// Kernighan-Lin sweeps: at most this many per split, and a sweep of a group larger than
// kFullSweepSize stops after kPatience moves without a new best state (Fiduccia-Mattheyses'
// early exit): each move scans the whole group, so a full sweep costs O(n_g^2).
constexpr int kMaxSweeps = 50;
constexpr int64_t kFullSweepSize = 1024;
constexpr int64_t kPatience = 256;
// Groups of at least this many nodes choose their moves from LineMaxima's envelopes, smaller ones
// by a scan (cheaper below a few thousand).
constexpr int64_t kLineMaximaSize = 2048;

}  // namespace

// The rows' sums in parallel (each one sequential), P and N in node order: the same bits for any
// thread count. With a uniform power-of-two weight w (exact_multiples: a binary graph) a row's sum
// of +-w terms is exact at every step, so it is w times the integer sum of the signs: the same
// bits without the chain of dependent adds (a zero sum is +0, as the sequential sum's is).
SplitState split_state(const LocalGraph& lg, const std::vector<int8_t>& s, int threads) {
  SplitState st;
  st.y.assign(static_cast<size_t>(lg.n), 0.0);
  const int team = parallel_team(lg.entries() + lg.n, threads);
  const bool exact = exact_multiples(lg);
  const int8_t* sign = s.data();
  const int64_t* offsets = lg.offsets.data();
  double* y = st.y.data();
  with_columns(lg, [&](const auto* col) {
#pragma omp parallel for schedule(static) num_threads(team) if (team > 1)
    for (int64_t i = 0; i < lg.n; ++i) {
      if (exact) {
        int64_t sum = 0;
        for (int64_t e = offsets[i]; e < offsets[i + 1]; ++e) sum += sign[col[e]];
        y[i] = sum == 0 ? 0.0 : double(sum) * lg.weight;
      } else {
        double sum = 0;
        for (int64_t e = offsets[i]; e < offsets[i + 1]; ++e) sum += lg.w(e) * sign[col[e]];
        y[i] = sum;
      }
    }
  });
  for (int64_t i = 0; i < lg.n; ++i) {
    st.p += lg.k_pos[static_cast<size_t>(i)] * s[static_cast<size_t>(i)];
    st.q += lg.k_neg[static_cast<size_t>(i)] * s[static_cast<size_t>(i)];
  }
  return st;
}

// The rise in Q from splitting the group by s: (s^T B^(g) s) / 2s = (s^T B_g s - 1^T B_g 1) / 2s,
// from s's state (split_state's bits).
double split_gain(const LocalGraph& lg, const ModularityTerms& t, const std::vector<int8_t>& s, const SplitState& st) {
  double sbs = 0, all = 0;
  for (int64_t i = 0; i < lg.n; ++i) {
    sbs += s[static_cast<size_t>(i)] * st.y[static_cast<size_t>(i)];
    all += lg.row_sum[static_cast<size_t>(i)];
  }
  sbs -= t.gamma * (t.d_pos * st.p * st.p - t.d_neg * st.q * st.q);
  all -= t.gamma * (t.d_pos * lg.group_pos * lg.group_pos - t.d_neg * lg.group_neg * lg.group_neg);
  return (sbs - all) / (2 * t.s);
}

// Newman 2006's fine-tuning of a bisection (his "Kernighan-Lin" step): repeatedly flip the
// not-yet-moved node whose flip raises s^T B^(g) s most (or lowers it least), keep the best state
// of the sweep, and sweep again while that improves. A flip never leaves a side below min_size.
// Typed by the subgraph's columns (refine_split below picks the width). Returns the final s's
// state as the flips left it: split_state's bits when the subgraph's sums are exact
// (exact_multiples: each flip adds +-2w to integer multiples of w), else rounded differently.
template <class Column>
SplitState refine_columns(const LocalGraph& lg, const Column* col, const ModularityTerms& t, const std::vector<int64_t>& nodes,
                          std::vector<int8_t>& s, int64_t min_size, int threads) {
  const int64_t n = lg.n;
  SplitState st = split_state(lg, s, threads);
  const double gd_pos = t.gamma * t.d_pos, gd_neg = t.gamma * t.d_neg;
  // Flipping i changes s^T B_g s by 4 (B_ii - s_i (B_g s)_i), with
  // (B_g s)_i = y_i - gamma d+ k+_i P + gamma d- k-_i N and B_ii = -gamma (d+ k+_i^2 - d- k-_i^2).
  std::vector<double> b_ii(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    const double kp = lg.k_pos[static_cast<size_t>(i)], kn = lg.k_neg[static_cast<size_t>(i)];
    b_ii[static_cast<size_t>(i)] = -(gd_pos * kp * kp - gd_neg * kn * kn);
  }
  int64_t count_pos = 0;
  for (int8_t v : s) count_pos += v > 0;
  auto flip = [&](int64_t i) {
    const int8_t si = s[static_cast<size_t>(i)];
    for (int64_t e = lg.offsets[static_cast<size_t>(i)]; e < lg.offsets[static_cast<size_t>(i + 1)]; ++e)
      st.y[static_cast<size_t>(col[e])] -= 2.0 * si * lg.w(e);
    st.p -= 2.0 * si * lg.k_pos[static_cast<size_t>(i)];
    st.q -= 2.0 * si * lg.k_neg[static_cast<size_t>(i)];
    count_pos += si > 0 ? -1 : 1;
    s[static_cast<size_t>(i)] = int8_t(-si);
  };
  const double epsilon = 2 * t.s * kMinGain;  // in units of s^T B s
  const int64_t patience = n <= kFullSweepSize ? n : kPatience;
  // The flip gain of node i is e_i + a_i P - b_i N with e_i = B_ii - s_i y_i (-inf once moved),
  // a_i = s_i gamma d+ k+_i, b_i = s_i gamma d- k-_i: a flip updates e only at its neighbours, and
  // each step's choice is three branch-free passes over flat arrays.
  // Without negative weights (b = 0) the gains are lines in P, and a large group's choice comes
  // from their blocked upper envelopes (LineMaxima) instead of a scan of all n.
  constexpr double kMoved = -std::numeric_limits<double>::infinity();
  const bool by_lines = gd_neg == 0 && n >= kLineMaximaSize;
  LineMaxima lines;
  std::vector<double> e(static_cast<size_t>(n)), a(static_cast<size_t>(n)), b(static_cast<size_t>(n)),
      d(static_cast<size_t>(n));
  std::vector<int64_t> order, rank;  // rank: the slopes' ranks (ModularityTerms::slope_rank) by local node
  if (by_lines && !t.slope_rank.empty()) {
    rank.resize(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i)
      rank[static_cast<size_t>(i)] = t.slope_rank[static_cast<size_t>(nodes[static_cast<size_t>(i)])];
  }
  for (int sweep = 0; sweep < kMaxSweeps; ++sweep) {
    for (int64_t i = 0; i < n; ++i) {
      const double si = s[static_cast<size_t>(i)];
      e[static_cast<size_t>(i)] = b_ii[static_cast<size_t>(i)] - si * st.y[static_cast<size_t>(i)];
      a[static_cast<size_t>(i)] = si * gd_pos * lg.k_pos[static_cast<size_t>(i)];
      b[static_cast<size_t>(i)] = si * gd_neg * lg.k_neg[static_cast<size_t>(i)];
    }
    if (by_lines && !rank.empty()) lines.reset(a.data(), e.data(), n, rank.data(), t.slope_ranks);
    else if (by_lines) lines.reset(a.data(), e.data(), n);
    order.clear();
    double total = 0, best = 0;
    size_t best_length = 0;
    int64_t since_best = 0;
    for (int64_t step = 0; step < n; ++step) {
      const bool pos_may_leave = count_pos - 1 >= min_size, neg_may_leave = (n - count_pos) - 1 >= min_size;
      const double p = st.p, q = st.q;
      auto gain = [&](int64_t i) {
        return e[static_cast<size_t>(i)] + a[static_cast<size_t>(i)] * p - b[static_cast<size_t>(i)] * q;
      };
      double top = kMoved;
      int64_t pick = -1;
      if (by_lines) {
        pick = lines.argmax(p, &top);
        if (pick < 0) top = kMoved;
      } else {
        for (int64_t i = 0; i < n; ++i) {
          const double v = gain(i);
          d[static_cast<size_t>(i)] = v;
          top = v > top ? v : top;
        }
        if (top != kMoved) {
          for (int64_t i = 0; i < n; ++i)
            if (d[static_cast<size_t>(i)] == top) {
              pick = i;
              break;
            }
        }
      }
      if (pick >= 0 && !(s[static_cast<size_t>(pick)] > 0 ? pos_may_leave : neg_may_leave)) {
        // a side at min_size: the best node of the other side (moved nodes gain -inf)
        pick = -1;
        top = kMoved;
        for (int64_t i = 0; i < n; ++i) {
          if (!(s[static_cast<size_t>(i)] > 0 ? pos_may_leave : neg_may_leave)) continue;
          const double v = gain(i);
          if (v > top) {
            top = v;
            pick = i;
          }
        }
      }
      if (pick < 0) break;
      const double pick_delta = top;
      flip(pick);
      e[static_cast<size_t>(pick)] = kMoved;
      if (by_lines) lines.remove(pick);
      for (int64_t x = lg.offsets[static_cast<size_t>(pick)]; x < lg.offsets[static_cast<size_t>(pick + 1)]; ++x) {
        const int64_t c = col[x];
        if (e[static_cast<size_t>(c)] == kMoved) continue;
        e[static_cast<size_t>(c)] = b_ii[static_cast<size_t>(c)] - s[static_cast<size_t>(c)] * st.y[static_cast<size_t>(c)];
        if (by_lines) lines.set_intercept(c, e[static_cast<size_t>(c)]);
      }
      order.push_back(pick);
      total += 4 * pick_delta;
      if (total > best + epsilon) {
        best = total;
        best_length = order.size();
        since_best = 0;
      } else if (++since_best >= patience) {
        break;
      }
    }
    for (size_t x = order.size(); x > best_length; --x) flip(order[x - 1]);
    if (best_length == 0) break;
  }
  return st;
}

// nodes: the group's nodes in the graph, by local node.
SplitState refine_split(const LocalGraph& lg, const ModularityTerms& t, const std::vector<int64_t>& nodes,
                        std::vector<int8_t>& s, int64_t min_size, int threads) {
  return with_columns(lg, [&](const auto* col) { return refine_columns(lg, col, t, nodes, s, min_size, threads); });
}

}  // namespace fc
