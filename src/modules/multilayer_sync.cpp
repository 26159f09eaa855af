// The synchronous multilayer modularity's driver (multilayer_sync.hpp): level 0 in fixed point,
// the passes (leiden_sync.hpp's run_sync_passes over a layered engine), the final connectivity
// check and Mucha's Q (host code for every engine).
#include "modules/multilayer_sync.hpp"

#include <cmath>
#include <cstdio>
#include <numeric>

#include "base/profile.hpp"
#include "kernels/leiden_rules.hpp"
#include "modules/leiden_sync.hpp"
#include "modules/multilayer_supra.hpp"

namespace fc {

Multilayer find_multilayer_sync(const std::vector<const GraphData*>& layers, const std::vector<double>& gamma,
                                const fc_multilayer_options& o, ModulesBackend& backend, const RunSettings& run,
                                Progress& progress) {
  const Phases::Clock::time_point start = Phases::Clock::now();
  const bool profile = profile_asks("leiden");
  const int64_t L = int64_t(layers.size()), N = layers[0]->n, n = L * N;
  const SupraLevel level0 = supra_graph(layers, o.omega, o.coupling);
  const std::vector<double> coefficient = null_coefficients(layers, gamma);
  const int64_t entries = level0.g.offsets[static_cast<size_t>(n)];
  const EdgeWeights w = level0.g.edge_weights();

  // Fixed point: every entry's weight and every node's degree times scale, their total below
  // 2^61, so every sum of them fits an int64 (as leiden_sync.cpp's level 0).
  double total = 0, degrees = 0;
  for (int64_t e = 0; e < entries; ++e) total += w[e];
  for (double k : level0.degree) degrees += k;
  int exponent = 0;
  if (total + degrees > 0) std::frexp(total + degrees, &exponent);
  const double scale = std::ldexp(1.0, 61 - exponent);
  std::vector<int64_t> fixed(static_cast<size_t>(entries)), node_weight(static_cast<size_t>(n));
  std::vector<int32_t> node_layer(static_cast<size_t>(n));
  for (int64_t e = 0; e < entries; ++e) fixed[static_cast<size_t>(e)] = int64_t(std::nearbyint(w[e] * scale));
  for (int64_t v = 0; v < n; ++v) {
    node_weight[static_cast<size_t>(v)] = int64_t(std::nearbyint(level0.degree[static_cast<size_t>(v)] * scale));
    node_layer[static_cast<size_t>(v)] = int32_t(level0.layer[static_cast<size_t>(v)]);
  }
  std::vector<double> gp(static_cast<size_t>(L));
  for (int64_t l = 0; l < L; ++l) gp[static_cast<size_t>(l)] = coefficient[static_cast<size_t>(l)] / scale;
  LeidenLevelZero z;
  z.n = n;
  z.offsets = level0.g.offsets.data();
  z.columns = level0.g.column_data();
  z.scale = scale;
  z.layers = L;
  z.fixed = fixed.data();
  z.node_layer = node_layer.data();
  z.node_weight = node_weight.data();
  z.layer_gp = gp.data();
  kernels::SyncTerms t;
  t.epsilon = kMinGain * total / 2 * scale;  // as find_multilayer's, in the fixed-point unit

  // Every supra-node starts alone; one without entries never moves.
  std::vector<int64_t> labels(static_cast<size_t>(n));
  std::iota(labels.begin(), labels.end(), int64_t(0));
  std::unique_ptr<LeidenEngine> engine = backend.leiden_engine(z, t, run);
  if (profile) std::fprintf(stderr, "multilayer (synchronous) setup %.4f s\n", Phases::since(start));
  SyncLeidenStats st;
  run_sync_passes(*engine, labels, o.seed, o.max_iterations, progress, st, profile, start);
  engine.reset();

  Multilayer m;
  m.n = N;
  m.layers = L;
  if (n > 0) {
    renumber_by_first_appearance(labels);
    split_disconnected(level0.g, labels, run.threads);  // only after max_iterations passes: refinement keeps them connected
    m.k = renumber_by_first_appearance(labels);
  }
  m.q = multilayer_quality(layers, gamma, o.omega, o.coupling, labels.data());
  m.labels = std::move(labels);
  progress.advance(n);
  if (profile)
    std::fprintf(stderr, "multilayer (synchronous) total %.4f s: %lld passes, %lld levels, %lld move rounds, %lld refinement rounds\n",
                 Phases::since(start), static_cast<long long>(st.passes), static_cast<long long>(st.levels),
                 static_cast<long long>(st.move_rounds), static_cast<long long>(st.refine_rounds));
  return m;
}

}  // namespace fc
