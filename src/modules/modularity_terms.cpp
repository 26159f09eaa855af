// The objective's coefficients and the modularity Q of a partition (modularity.hpp): what
// fc_modularity and fc_modularity_score share, and the options' defaults and checks.
#include <algorithm>
#include <cmath>
#include <string>

#include "base/error.hpp"
#include "base/parallel_team.hpp"
#include "modules/leading_eigen.hpp"
#include "modules/line_maxima.hpp"
#include "modules/modularity.hpp"

namespace fc {

ModularityTerms modularity_terms(const GraphData& g, fc_signed_modularity mode, double gamma, int threads) {
  ModularityTerms t;
  t.gamma = gamma;
  t.k_pos.assign(static_cast<size_t>(g.n), 0.0);
  t.k_neg.assign(static_cast<size_t>(g.n), 0.0);
  // The rows' degrees in parallel (each one sequential sum), then everything that spans rows in
  // row order: the bits of one pass, for any thread count. A row's first non-zero weight, and
  // whether its other non-zero weights all equal it, tell whether the graph's do.
  std::vector<float> row_first(static_cast<size_t>(g.n), 0.0f);
  std::vector<char> row_uniform(static_cast<size_t>(g.n), 1);
  const int team = parallel_team(g.offsets[static_cast<size_t>(g.n)] + g.n, threads);
#pragma omp parallel for schedule(static) num_threads(team) if (team > 1)
  for (int64_t i = 0; i < g.n; ++i) {
    double kp = 0, kn = 0;
    float first = 0;
    bool uniform = true;
    for (int64_t e = g.offsets[static_cast<size_t>(i)]; e < g.offsets[static_cast<size_t>(i + 1)]; ++e) {
      const float w = g.weights[static_cast<size_t>(e)];
      if (w > 0) kp += w;
      else kn -= w;
      if (w != 0 && first == 0) first = w;
      uniform = uniform && (w == 0 || w == first);
    }
    t.k_pos[static_cast<size_t>(i)] = kp;
    t.k_neg[static_cast<size_t>(i)] = kn;
    row_first[static_cast<size_t>(i)] = first;
    row_uniform[static_cast<size_t>(i)] = uniform;
  }
  bool uniform = true;
  float first = 0;
  for (int64_t i = 0; i < g.n; ++i) {
    t.total_pos += t.k_pos[static_cast<size_t>(i)];
    t.total_neg += t.k_neg[static_cast<size_t>(i)];
    const float f = row_first[static_cast<size_t>(i)];
    if (f != 0 && first == 0) first = f;
    uniform = uniform && row_uniform[static_cast<size_t>(i)] && (f == 0 || f == first);
  }
  t.uniform_weight = uniform ? first : 0.0f;
  const double tp = t.total_pos, tn = t.total_neg, both = tp + tn;
  if (both == 0) return t;  // no weight: s = 0, Q = 0
  // gamma's terms are at most gamma times the total weight (the sum of K_c^2 over communities is
  // at most the total squared, and d is 1 / total): past that a double overflows and Q would be
  // -inf (the fuzzer found gamma = 9e307). A margin of 16 covers the sums and the moves' factor 2.
  if (!std::isfinite(gamma * both * 16))
    fail(FC_ERR_INVALID_ARG, "the resolution (gamma) " + exact_text(gamma) + " times the graph's total weight " +
                                 exact_text(both) + " overflows a double; use a smaller resolution");
  if (mode == FC_SIGNED_RUBINOV && tp > 0) {
    t.s = tp;
    t.c_pos = 1;
    t.c_neg = tp / both;
    t.d_pos = 1 / tp;
    t.d_neg = tn > 0 ? tp / (both * tn) : 0.0;
  } else {  // Gomez; also Newman's Q when there is no negative weight
    t.s = both;
    t.c_pos = 1;
    t.c_neg = 1;
    t.d_pos = tp > 0 ? 1 / tp : 0.0;
    t.d_neg = tn > 0 ? 1 / tn : 0.0;
  }
  return t;
}

double modularity_of(const GraphData& g, const ModularityTerms& t, const int64_t* labels, int64_t k, int threads) {
  if (t.s == 0) return 0.0;
  // Each row's weight inside its community in parallel (one sequential sum a row), then the rows
  // in row order, as modularity_terms sums the degrees: the same bits for any thread count.
  std::vector<double> row_pos(static_cast<size_t>(g.n)), row_neg(static_cast<size_t>(g.n));
  const int team = parallel_team(g.offsets[static_cast<size_t>(g.n)] + g.n, threads);
#pragma omp parallel for schedule(static) num_threads(team) if (team > 1)
  for (int64_t i = 0; i < g.n; ++i) {
    const int64_t c = labels[i];
    double wp = 0, wn = 0;
    for (int64_t e = g.offsets[static_cast<size_t>(i)]; e < g.offsets[static_cast<size_t>(i + 1)]; ++e) {
      if (labels[g.columns[static_cast<size_t>(e)]] != c) continue;
      const float w = g.weights[static_cast<size_t>(e)];
      if (w > 0) wp += w;
      else wn -= w;
    }
    row_pos[static_cast<size_t>(i)] = wp;
    row_neg[static_cast<size_t>(i)] = wn;
  }
  return modularity_of_rows(g, t, labels, k, row_pos, row_neg);
}

double modularity_of_rows(const GraphData& g, const ModularityTerms& t, const int64_t* labels, int64_t k,
                          const std::vector<double>& row_pos, const std::vector<double>& row_neg) {
  if (t.s == 0) return 0.0;
  double w_pos = 0, w_neg = 0;
  std::vector<double> kp(static_cast<size_t>(k), 0.0), kn(static_cast<size_t>(k), 0.0);
  for (int64_t i = 0; i < g.n; ++i) {
    const size_t c = static_cast<size_t>(labels[i]);
    w_pos += row_pos[static_cast<size_t>(i)];
    w_neg += row_neg[static_cast<size_t>(i)];
    kp[c] += t.k_pos[static_cast<size_t>(i)];
    kn[c] += t.k_neg[static_cast<size_t>(i)];
  }
  double sq_pos = 0, sq_neg = 0;
  for (int64_t c = 0; c < k; ++c) {
    sq_pos += kp[static_cast<size_t>(c)] * kp[static_cast<size_t>(c)];
    sq_neg += kn[static_cast<size_t>(c)] * kn[static_cast<size_t>(c)];
  }
  return (t.c_pos * w_pos - t.c_neg * w_neg - t.gamma * (t.d_pos * sq_pos - t.d_neg * sq_neg)) / t.s;
}

double modularity_score(const GraphData& g, const int64_t* labels, double gamma) {
  if (!(gamma > 0) || !std::isfinite(gamma)) fail(FC_ERR_INVALID_ARG, "gamma " + exact_text(gamma) + " is not a finite number > 0");
  std::vector<int64_t> compact(static_cast<size_t>(g.n));
  std::unordered_map<int64_t, int64_t> id;
  id.reserve(static_cast<size_t>(std::min<int64_t>(g.n, 1 << 20)));
  for (int64_t i = 0; i < g.n; ++i) {
    if (labels[i] < 0)
      fail(FC_ERR_INVALID_ARG, "labels[" + std::to_string(i) + "] = " + std::to_string(labels[i]) + " is negative");
    compact[static_cast<size_t>(i)] = id.emplace(labels[i], int64_t(id.size())).first->second;
  }
  const ModularityTerms t = modularity_terms(g, FC_SIGNED_GOMEZ, gamma);
  return modularity_of(g, t, compact.data(), int64_t(id.size()));
}

fc_modularity_options default_modularity_options() {
  fc_modularity_options o;
  o.eigen_threshold = 1e-8;
  o.resolution = 1.0;
  o.max_communities = 0;
  o.min_community_size = 1;
  o.seed = 1;
  o.signed_mode = FC_SIGNED_GOMEZ;
  o.refine = 1;
  return o;
}

void validate_modularity_options(const fc_modularity_options& o) {
  if (!(o.resolution > 0) || !std::isfinite(o.resolution))
    fail(FC_ERR_INVALID_ARG, "options->resolution " + exact_text(o.resolution) + " is not a finite number > 0");
  if (!(o.eigen_threshold >= 0) || !std::isfinite(o.eigen_threshold))
    fail(FC_ERR_INVALID_ARG, "options->eigen_threshold " + exact_text(o.eigen_threshold) + " is not a finite number >= 0");
  if (o.max_communities < 0)
    fail(FC_ERR_INVALID_ARG, "options->max_communities " + std::to_string(o.max_communities) + " is negative (0 = no limit)");
  if (o.min_community_size < 1)
    fail(FC_ERR_INVALID_ARG, "options->min_community_size " + std::to_string(o.min_community_size) + " is below 1");
  const int mode = raw_enum(o.signed_mode);
  if (mode != FC_SIGNED_GOMEZ && mode != FC_SIGNED_RUBINOV)
    fail(FC_ERR_INVALID_ARG, "options->signed_mode " + std::to_string(mode) +
                                 " is not FC_SIGNED_GOMEZ (0) or FC_SIGNED_RUBINOV (1)");
  if (o.refine != 0 && o.refine != 1)
    fail(FC_ERR_INVALID_ARG, "options->refine " + std::to_string(o.refine) + " is not 0 or 1");
}

}  // namespace fc
