// Multilayer modularity (multilayer.hpp): the supra-graph, Leiden's passes (leiden_pass.hpp) with
// a per-layer null model in the moves and the refinement, the direct Q, flexibility and allegiance.
#include "modules/multilayer.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <unordered_map>

#include "base/error.hpp"
#include "modules/leiden_pass.hpp"
#include "modules/multilayer_supra.hpp"

namespace fc {

// Level 0: node (i, s) = s N + i; the layer's edges without self-loops, then the coupling edges.
// Rows are counted, then filled, in parallel (threads: 0 = default); the graph does not depend on
// the thread count.
SupraLevel supra_graph(const std::vector<const GraphData*>& layers, double omega, int coupling, int threads) {
  const int64_t L = int64_t(layers.size()), N = layers[0]->n, n = L * N;
  SupraLevel lv;
  LeidenGraph& g = lv.g;
  g.n = n;
  g.offsets.assign(static_cast<size_t>(n + 1), 0);
  lv.start.resize(static_cast<size_t>(n + 1));
  lv.layer.resize(static_cast<size_t>(n));
  lv.degree.resize(static_cast<size_t>(n));
  int64_t raw = 0;
  for (const GraphData* a : layers) raw += a->offsets[static_cast<size_t>(N)];
  const int team = parallel_team(raw + n, threads);
#pragma omp parallel for schedule(static) num_threads(team) if (team > 1)
  for (int64_t v = 0; v < n; ++v) {
    int64_t count = 0;
    lv.degree[static_cast<size_t>(v)] = supra_row(layers, omega, coupling, v, [&](int64_t, double) { ++count; });
    g.offsets[static_cast<size_t>(v + 1)] = count;
    lv.start[static_cast<size_t>(v)] = v;
    lv.layer[static_cast<size_t>(v)] = v / N;
  }
  for (int64_t v = 0; v < n; ++v) g.offsets[static_cast<size_t>(v + 1)] += g.offsets[static_cast<size_t>(v)];
  g.columns.resize(static_cast<size_t>(g.offsets[static_cast<size_t>(n)]));
  g.weights.resize(static_cast<size_t>(g.offsets[static_cast<size_t>(n)]));
#pragma omp parallel for schedule(static) num_threads(team) if (team > 1)
  for (int64_t v = 0; v < n; ++v) {
    int64_t x = g.offsets[static_cast<size_t>(v)];
    supra_row(layers, omega, coupling, v, [&](int64_t column, double w) {
      g.columns[static_cast<size_t>(x)] = column;
      g.weights[static_cast<size_t>(x)] = w;
      ++x;
    });
  }
  lv.start[static_cast<size_t>(n)] = n;
  g.kp.assign(static_cast<size_t>(n), 0.0);
  g.kn.assign(static_cast<size_t>(n), 0.0);
  return lv;
}

std::vector<double> null_coefficients(const std::vector<const GraphData*>& layers, const std::vector<double>& gamma) {
  std::vector<double> c(layers.size(), 0.0);
  for (size_t s = 0; s < layers.size(); ++s) {
    double two_m = 0;
    for (float w : layers[s]->weights) two_m += w;
    c[s] = two_m > 0 ? gamma[s] / two_m : 0.0;
  }
  return c;
}

namespace {

// Passes stop here even if the last one moved a node (each move gains more than kMinGain).
constexpr int64_t kMaxPasses = 1000;

// The moves' null model (leiden_pass.hpp's Model) per layer: coefficient[l] = gamma_l / (2 m_l),
// K[c * L + l] community c's degree in layer l (absent: 0); moving v from a to c has the null
// term sum_l coefficient_l k_vl (K_cl - K_al + k_vl).
struct LayerModel {
  const SupraLevel& lv;
  const std::vector<double>& coefficient;
  int64_t L;
  std::unordered_map<int64_t, double> K;

  void begin(const std::vector<int64_t>& label) {
    K.clear();
    K.reserve(lv.layer.size());
    for (int64_t v = 0; v < lv.g.n; ++v) {
      const int64_t c = label[static_cast<size_t>(v)];
      for (int64_t x = lv.start[static_cast<size_t>(v)]; x < lv.start[static_cast<size_t>(v + 1)]; ++x)
        K[c * L + lv.layer[static_cast<size_t>(x)]] += lv.degree[static_cast<size_t>(x)];
    }
  }
  double sum(int64_t c, int64_t l) const {
    const auto it = K.find(c * L + l);
    return it == K.end() ? 0.0 : it->second;
  }
  double null(int64_t v, int64_t c, int64_t a) const {
    double t = 0;
    for (int64_t x = lv.start[static_cast<size_t>(v)]; x < lv.start[static_cast<size_t>(v + 1)]; ++x) {
      const int64_t l = lv.layer[static_cast<size_t>(x)];
      const double k = lv.degree[static_cast<size_t>(x)];
      t += coefficient[static_cast<size_t>(l)] * k * ((c < 0 ? 0.0 : sum(c, l)) - sum(a, l) + k);
    }
    return t;
  }
  void move(int64_t v, int64_t a, int64_t c) {
    for (int64_t x = lv.start[static_cast<size_t>(v)]; x < lv.start[static_cast<size_t>(v + 1)]; ++x) {
      const int64_t l = lv.layer[static_cast<size_t>(x)];
      K[a * L + l] -= lv.degree[static_cast<size_t>(x)];
      K[c * L + l] += lv.degree[static_cast<size_t>(x)];
    }
  }
  void emptied(int64_t v, int64_t a) {
    for (int64_t x = lv.start[static_cast<size_t>(v)]; x < lv.start[static_cast<size_t>(v + 1)]; ++x)
      K.erase(a * L + lv.layer[static_cast<size_t>(x)]);
  }
};

// The level of k communities: Leiden's aggregate for the edges, the per-layer degrees summed.
SupraLevel aggregate(const SupraLevel& lv, const std::vector<int64_t>& community, int64_t k, int64_t L, int threads) {
  SupraLevel out;
  out.g = leiden_aggregate(lv.g, community, k, threads);
  std::vector<std::vector<int64_t>> members(static_cast<size_t>(k));
  for (int64_t v = 0; v < lv.g.n; ++v) members[static_cast<size_t>(community[static_cast<size_t>(v)])].push_back(v);
  std::vector<double> per_layer(static_cast<size_t>(L), 0.0);
  std::vector<char> seen(static_cast<size_t>(L), 0);
  std::vector<int64_t> touched;
  out.start.assign(1, 0);
  for (int64_t c = 0; c < k; ++c) {
    for (int64_t v : members[static_cast<size_t>(c)])
      for (int64_t x = lv.start[static_cast<size_t>(v)]; x < lv.start[static_cast<size_t>(v + 1)]; ++x) {
        const size_t l = static_cast<size_t>(lv.layer[static_cast<size_t>(x)]);
        if (!seen[l]) {
          seen[l] = 1;
          touched.push_back(int64_t(l));
        }
        per_layer[l] += lv.degree[static_cast<size_t>(x)];
      }
    std::sort(touched.begin(), touched.end());
    for (int64_t l : touched) {
      out.layer.push_back(l);
      out.degree.push_back(per_layer[static_cast<size_t>(l)]);
      per_layer[static_cast<size_t>(l)] = 0;
      seen[static_cast<size_t>(l)] = 0;
    }
    touched.clear();
    out.start.push_back(int64_t(out.layer.size()));
  }
  return out;
}

// Leiden's refinement (leiden_pass.hpp's Null) with the per-layer null model: community and
// subcommunity degrees per layer; v (alone) joining r gains w_vr - sum_l coefficient_l k_vl R_l,
// and r is well connected in S when w(r, S - r) >= own[r] = sum_l coefficient_l R_l (S_l - R_l),
// kept up to date as nodes join r (each join changes the terms of the joining node's layers only:
// R_l -> R_l + k adds coefficient_l k (S_l - 2 R_l - k)), so that the test, made for every
// neighbouring subcommunity of every node, costs no pass over r's layers.
struct LayerNull {
  const SupraLevel& lv;
  const std::vector<double>& coefficient;
  int64_t L;
  std::unordered_map<int64_t, double> S;                    // S[s * L + l]
  std::vector<std::vector<std::pair<int64_t, double>>> R;   // per subcommunity: (layer, degree), ascending
  std::vector<double> own;                                  // per subcommunity
  const std::vector<int64_t>* label = nullptr;

  void begin(const std::vector<int64_t>& community) {
    const int64_t n = lv.g.n;
    label = &community;
    S.clear();
    R.assign(static_cast<size_t>(n), {});
    for (int64_t v = 0; v < n; ++v)
      for (int64_t x = lv.start[static_cast<size_t>(v)]; x < lv.start[static_cast<size_t>(v + 1)]; ++x) {
        const int64_t l = lv.layer[static_cast<size_t>(x)];
        const double k = lv.degree[static_cast<size_t>(x)];
        S[community[static_cast<size_t>(v)] * L + l] += k;
        R[static_cast<size_t>(v)].push_back({l, k});
      }
    own.assign(static_cast<size_t>(n), 0.0);
    for (int64_t v = 0; v < n; ++v) {
      double null = 0;
      for (const auto& [l, k] : R[static_cast<size_t>(v)])
        null += coefficient[static_cast<size_t>(l)] * k * (S.at(community[static_cast<size_t>(v)] * L + l) - k);
      own[static_cast<size_t>(v)] = null;
    }
  }
  double sub_degree(int64_t r, int64_t l) const {
    const auto& list = R[static_cast<size_t>(r)];
    const auto it = std::lower_bound(list.begin(), list.end(), std::make_pair(l, -HUGE_VAL));
    return it != list.end() && it->first == l ? it->second : 0.0;
  }
  bool well_connected(double ext, int64_t r, int64_t) const { return ext - own[static_cast<size_t>(r)] >= 0; }
  double join_gain(int64_t v, double w, int64_t r) const {
    double null = 0;
    for (int64_t x = lv.start[static_cast<size_t>(v)]; x < lv.start[static_cast<size_t>(v + 1)]; ++x) {
      const double k = lv.degree[static_cast<size_t>(x)];
      null += coefficient[static_cast<size_t>(lv.layer[static_cast<size_t>(x)])] * k * sub_degree(r, lv.layer[static_cast<size_t>(x)]);
    }
    return w - null;
  }
  void join(int64_t v, int64_t r) {
    const int64_t s = (*label)[static_cast<size_t>(r)];
    double change = 0;
    for (const auto& [l, k] : R[static_cast<size_t>(v)])
      change += coefficient[static_cast<size_t>(l)] * k * (S.at(s * L + l) - 2 * sub_degree(r, l) - k);
    own[static_cast<size_t>(r)] += change;
    auto& into = R[static_cast<size_t>(r)];
    std::vector<std::pair<int64_t, double>> merged;
    merged.reserve(into.size() + R[static_cast<size_t>(v)].size());
    size_t a = 0, b = 0;
    const auto& from = R[static_cast<size_t>(v)];
    while (a < into.size() || b < from.size()) {
      if (b == from.size() || (a < into.size() && into[a].first < from[b].first)) {
        merged.push_back(into[a++]);
      } else if (a == into.size() || from[b].first < into[a].first) {
        merged.push_back(from[b++]);
      } else {
        merged.push_back({into[a].first, into[a].second + from[b].second});
        ++a, ++b;
      }
    }
    into.swap(merged);
  }
};

// The steps of a pass over the supra-graph (leiden_pass.hpp's Ops).
struct SupraOps {
  using Level = SupraLevel;
  const std::vector<double>& coefficient;
  double epsilon, randomness;
  int64_t L;
  int threads;
  const LeidenGraph& graph(const SupraLevel& lv) const { return lv.g; }
  // Every supra-node is queued, edges or not (a node without any stays alone: it gains nothing).
  int64_t move(const SupraLevel& lv, const std::vector<char>&, std::vector<int64_t>& p, SplitMix64& rng) const {
    LayerModel model{lv, coefficient, L, {}};
    return move_nodes_with(lv.g, model, epsilon, std::vector<char>(static_cast<size_t>(lv.g.n), 0), p, rng, threads);
  }
  int64_t refine(const SupraLevel& lv, const std::vector<char>& skip, const std::vector<int64_t>& p, SplitMix64& rng,
                 std::vector<int64_t>& refined) const {
    LayerNull null{lv, coefficient, L, {}, {}, {}, nullptr};
    return refine_partition(lv.g, null, randomness, skip, p, rng, refined, threads);
  }
  SupraLevel aggregate(const SupraLevel& lv, const std::vector<int64_t>& refined, int64_t k) const {
    return fc::aggregate(lv, refined, k, L, threads);
  }
  void recycle(SupraLevel&) const {}  // each aggregate's memory its own
};

}  // namespace

Multilayer find_multilayer(const std::vector<const GraphData*>& layers, const std::vector<double>& gamma,
                           const fc_multilayer_options& o, int threads, Progress& progress) {
  const int64_t L = int64_t(layers.size()), N = layers[0]->n, n = L * N;
  const std::vector<double> coefficient = null_coefficients(layers, gamma);
  const SupraLevel level0 = supra_graph(layers, o.omega, o.coupling, threads);
  double total = 0;
  for (double w : level0.g.weights) total += w;
  SupraOps ops{coefficient, kMinGain * total / 2, default_leiden_options().randomness, L, threads};
  // A supra-node without edges is a community of its own.
  std::vector<char> skip(static_cast<size_t>(n), 0);
  for (int64_t v = 0; v < n; ++v)
    skip[static_cast<size_t>(v)] = level0.g.offsets[static_cast<size_t>(v + 1)] == level0.g.offsets[static_cast<size_t>(v)];
  std::vector<int64_t> labels(static_cast<size_t>(n));
  std::iota(labels.begin(), labels.end(), int64_t(0));
  SplitMix64 rng(o.seed);
  int64_t levels = 0;
  for (int64_t pass = 0; pass < kMaxPasses && (o.max_iterations == 0 || pass < o.max_iterations); ++pass)
    if (leiden_pass_with(ops, level0, skip, labels, rng, progress, levels) == 0) break;
  Multilayer m;
  m.n = N;
  m.layers = L;
  if (n > 0) {
    renumber_by_first_appearance(labels);
    split_disconnected(level0.g, labels, threads);  // only after max_iterations passes: refinement keeps them connected
    m.k = renumber_by_first_appearance(labels);
  }
  m.q = multilayer_quality(layers, gamma, o.omega, o.coupling, labels.data(), threads);
  m.labels = std::move(labels);
  progress.advance(n);
  return m;
}

double multilayer_quality(const std::vector<const GraphData*>& layers, const std::vector<double>& gamma, double omega,
                          int coupling, const int64_t* labels, int threads) {
  const int64_t L = int64_t(layers.size()), N = layers[0]->n;
  // Each layer's inside weight, 2 m and null term, the layers in parallel (a community's degree
  // in a dense array per thread), then summed in layer order: the same Q for any thread count.
  std::vector<double> inside(static_cast<size_t>(L), 0.0), null(static_cast<size_t>(L), 0.0), two_m(static_cast<size_t>(L), 0.0);
  int64_t k = 0;
  for (int64_t v = 0; v < L * N; ++v) k = std::max(k, labels[v] + 1);
  int64_t raw = 0;
  for (const GraphData* a : layers) raw += a->offsets[static_cast<size_t>(N)];
  const int team = parallel_team(raw + L * N, threads);
#pragma omp parallel num_threads(team) if (team > 1)
  {
    std::vector<double> K(static_cast<size_t>(k), 0.0);
    std::vector<int64_t> met;
#pragma omp for schedule(dynamic, 1)
    for (int64_t s = 0; s < L; ++s) {
      const GraphData& a = *layers[static_cast<size_t>(s)];
      const int64_t* g = labels + s * N;
      double in = 0, tm = 0;
      for (int64_t i = 0; i < N; ++i) {
        double row = 0;
        for (int64_t e = a.offsets[static_cast<size_t>(i)]; e < a.offsets[static_cast<size_t>(i + 1)]; ++e) {
          const double w = a.weights[static_cast<size_t>(e)];
          row += w;
          if (g[a.columns[static_cast<size_t>(e)]] == g[i]) in += w;
        }
        tm += row;
        if (K[static_cast<size_t>(g[i])] == 0 && row != 0) met.push_back(g[i]);
        K[static_cast<size_t>(g[i])] += row;
      }
      std::sort(met.begin(), met.end());
      double nu = 0;
      for (int64_t c : met) {
        const double kc = K[static_cast<size_t>(c)];
        if (tm > 0) nu += gamma[static_cast<size_t>(s)] * kc * kc / tm;
        K[static_cast<size_t>(c)] = 0;
      }
      met.clear();
      inside[static_cast<size_t>(s)] = in;
      two_m[static_cast<size_t>(s)] = tm;
      null[static_cast<size_t>(s)] = nu;
    }
  }
  double in = 0, nu = 0, two_mu = 0;
  for (int64_t s = 0; s < L; ++s) {
    in += inside[static_cast<size_t>(s)];
    nu += null[static_cast<size_t>(s)];
    two_mu += two_m[static_cast<size_t>(s)];
  }
  double coupled = 0;
  for (int64_t s = 0; s < L; ++s)
    for (int64_t r = 0; r < L; ++r) {
      if (r == s || (coupling == FC_COUPLING_ORDINAL && std::llabs(r - s) != 1)) continue;
      two_mu += omega * double(N);
      for (int64_t i = 0; i < N; ++i) coupled += omega * (labels[s * N + i] == labels[r * N + i]);
    }
  return two_mu > 0 ? (in - nu + coupled) / two_mu : 0.0;
}

void multilayer_flexibility(const Multilayer& m, double* out) {
  for (int64_t i = 0; i < m.n; ++i) {
    int64_t changes = 0;
    for (int64_t s = 0; s + 1 < m.layers; ++s)
      changes += m.labels[static_cast<size_t>(s * m.n + i)] != m.labels[static_cast<size_t>((s + 1) * m.n + i)];
    out[i] = m.layers > 1 ? double(changes) / double(m.layers - 1) : 0.0;
  }
}

void multilayer_allegiance(const Multilayer& m, double* out, int64_t ld) {
  for (int64_t i = 0; i < m.n; ++i)
    for (int64_t j = 0; j < m.n; ++j) out[i * ld + j] = 0;
  for (int64_t s = 0; s < m.layers; ++s) {
    const int64_t* g = m.labels.data() + s * m.n;
    for (int64_t i = 0; i < m.n; ++i)
      for (int64_t j = 0; j < m.n; ++j) out[i * ld + j] += g[i] == g[j];
  }
  const double scale = m.layers > 0 ? 1.0 / double(m.layers) : 0.0;
  for (int64_t i = 0; i < m.n; ++i)
    for (int64_t j = 0; j < m.n; ++j) out[i * ld + j] *= scale;
}

fc_multilayer_options default_multilayer_options() {
  fc_multilayer_options o;
  o.resolution = 1.0;
  o.omega = 1.0;
  o.seed = 1;
  o.max_iterations = 0;
  o.coupling = FC_COUPLING_ORDINAL;
  o.reserved = 0;
  return o;
}

void validate_multilayer_options(const fc_multilayer_options& o) {
  if (!(o.resolution >= 0) || !std::isfinite(o.resolution))
    fail(FC_ERR_INVALID_ARG, "options->resolution " + exact_text(o.resolution) + " is not a finite number >= 0");
  if (!(o.omega >= 0) || !std::isfinite(o.omega))
    fail(FC_ERR_INVALID_ARG, "options->omega " + exact_text(o.omega) + " is not a finite number >= 0");
  if (o.max_iterations < 0)
    fail(FC_ERR_INVALID_ARG, "options->max_iterations " + std::to_string(o.max_iterations) +
                                 " is negative (0 = until a level moves no node)");
  if (o.coupling != FC_COUPLING_ORDINAL && o.coupling != FC_COUPLING_CATEGORICAL)
    fail(FC_ERR_INVALID_ARG, "options->coupling " + std::to_string(o.coupling) +
                                 " is not FC_COUPLING_ORDINAL (0) or FC_COUPLING_CATEGORICAL (1)");
}

void check_multilayer_input(const std::vector<const GraphData*>& layers, const double* layer_resolutions) {
  const int64_t n = layers[0]->n;
  for (size_t s = 0; s < layers.size(); ++s) {
    const GraphData& g = *layers[s];
    if (g.n != n)
      fail(FC_ERR_INVALID_ARG, "layers[" + std::to_string(s) + "] has " + std::to_string(g.n) +
                                   " nodes, layers[0] has " + std::to_string(n) + "; every layer needs the same nodes");
    for (size_t e = 0; e < g.weights.size(); ++e)
      if (!(g.weights[e] >= 0))
        fail(FC_ERR_INVALID_ARG, "layers[" + std::to_string(s) + "] has the negative weight " + exact_text(g.weights[e]) +
                                     "; multilayer modularity takes non-negative weights");
    if (layer_resolutions != nullptr && (!(layer_resolutions[s] >= 0) || !std::isfinite(layer_resolutions[s])))
      fail(FC_ERR_INVALID_ARG, "layer_resolutions[" + std::to_string(s) + "] " + exact_text(layer_resolutions[s]) +
                                   " is not a finite number >= 0");
  }
}

}  // namespace fc
