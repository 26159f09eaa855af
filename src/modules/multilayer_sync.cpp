// The synchronous multilayer modularity's driver (multilayer_sync.hpp): level 0 in fixed point,
// the passes (leiden_sync.hpp's run_sync_passes over a layered engine), the final connectivity
// check and Mucha's Q (host code for every engine).
#include "modules/multilayer_sync.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

#include "base/parallel_team.hpp"
#include "base/profile.hpp"
#include "kernels/leiden_rules.hpp"
#include "modules/leiden_sync.hpp"
#include "modules/multilayer_supra.hpp"

namespace fc {

namespace {

// Moves a supra-node may make in one level (SyncTerms::max_node_moves). Without a limit, levels of
// 47 to 874 aggregate nodes swapped a few nodes back and forth until the 64-round cap (400 regions
// x 100 windows, 2 passes: 794 move rounds, Q 0.412181); with 2, 4 and 8 moves: 223, 272 and 320
// rounds, Q 0.411552, 0.412321 and 0.411783 (bench_multilayer, 2026-11-28).
constexpr int32_t kNodeMoves = 4;

// The sum of f(0 .. count) in chunks of 65,536 terms added in order: the same bits for any number
// of threads (team).
template <class F>
double chunked_sum(int64_t count, int team, F f) {
  constexpr int64_t kChunk = 65536;
  std::vector<double> part(static_cast<size_t>((count + kChunk - 1) / kChunk), 0.0);
#pragma omp parallel for schedule(static) num_threads(team) if (team > 1)
  for (int64_t c = 0; c < int64_t(part.size()); ++c) {
    double sum = 0;
    for (int64_t x = c * kChunk; x < std::min(count, (c + 1) * kChunk); ++x) sum += f(x);
    part[static_cast<size_t>(c)] = sum;
  }
  double sum = 0;
  for (double x : part) sum += x;
  return sum;
}

}  // namespace

Multilayer find_multilayer_sync(const std::vector<const GraphData*>& layers, const std::vector<double>& gamma,
                                const fc_multilayer_options& o, ModulesBackend& backend, const RunSettings& run,
                                Progress& progress) {
  const Phases::Clock::time_point start = Phases::Clock::now();
  const bool profile = profile_asks("leiden");
  const int64_t L = int64_t(layers.size()), N = layers[0]->n, n = L * N;
  const SupraLevel level0 = supra_graph(layers, o.omega, o.coupling, run.threads);
  const double supra_seconds = Phases::since(start);
  const std::vector<double> coefficient = null_coefficients(layers, gamma);
  const int64_t entries = level0.g.offsets[static_cast<size_t>(n)];
  const EdgeWeights w = level0.g.edge_weights();

  // Fixed point: every entry's weight and every node's degree times scale, their total below
  // 2^61, so every sum of them fits an int64 (as leiden_sync.cpp's level 0).
  const int team = parallel_team(entries + n, run.threads);
  const double total = chunked_sum(entries, team, [&](int64_t e) { return w[e]; });
  const double degrees = chunked_sum(n, team, [&](int64_t v) { return level0.degree[static_cast<size_t>(v)]; });
  int exponent = 0;
  if (total + degrees > 0) std::frexp(total + degrees, &exponent);
  const double scale = std::ldexp(1.0, 61 - exponent);
  std::vector<int64_t> fixed(static_cast<size_t>(entries)), node_weight(static_cast<size_t>(n));
  std::vector<int32_t> node_layer(static_cast<size_t>(n));
#pragma omp parallel num_threads(team) if (team > 1)
  {
#pragma omp for schedule(static) nowait
    for (int64_t e = 0; e < entries; ++e) fixed[static_cast<size_t>(e)] = int64_t(std::nearbyint(w[e] * scale));
#pragma omp for schedule(static)
    for (int64_t v = 0; v < n; ++v) {
      node_weight[static_cast<size_t>(v)] = int64_t(std::nearbyint(level0.degree[static_cast<size_t>(v)] * scale));
      node_layer[static_cast<size_t>(v)] = int32_t(level0.layer[static_cast<size_t>(v)]);
    }
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
  t.max_node_moves = kNodeMoves;

  // Every supra-node starts alone; one without entries never moves.
  std::vector<int64_t> labels(static_cast<size_t>(n));
  std::iota(labels.begin(), labels.end(), int64_t(0));
  const double fixed_seconds = Phases::since(start) - supra_seconds;
  std::unique_ptr<LeidenEngine> engine = backend.leiden_engine(z, t, run);
  const double setup = Phases::since(start);
  if (profile)
    std::fprintf(stderr, "multilayer (synchronous) setup %.4f s: supra-graph %.4f s, fixed point %.4f s, engine %.4f s\n", setup,
                 supra_seconds, fixed_seconds, setup - supra_seconds - fixed_seconds);
  SyncLeidenStats st;
  run_sync_passes(*engine, labels, o.seed, o.max_iterations, progress, st, profile, start);

  const Phases::Clock::time_point finish = Phases::Clock::now();
  Multilayer m;
  m.n = N;
  m.layers = L;
  if (n > 0) {
    const int64_t k = renumber_by_first_appearance(labels);
    // Only after max_iterations passes can a community be in pieces (refinement keeps them
    // connected); the host's search runs unless the engine counted the pieces and found none.
    if (engine->pieces(labels) != k) split_disconnected(level0.g, labels, run.threads);
    m.k = renumber_by_first_appearance(labels);
  }
  engine.reset();
  const double check_seconds = Phases::since(finish);
  m.q = multilayer_quality(layers, gamma, o.omega, o.coupling, labels.data(), run.threads);
  m.labels = std::move(labels);
  progress.advance(n);
  if (profile)
    std::fprintf(stderr,
                 "multilayer (synchronous) total %.4f s: %lld passes, %lld levels, %lld move rounds, %lld refinement rounds; "
                 "connectivity %.4f s, Q %.4f s\n",
                 Phases::since(start), static_cast<long long>(st.passes), static_cast<long long>(st.levels),
                 static_cast<long long>(st.move_rounds), static_cast<long long>(st.refine_rounds), check_seconds,
                 Phases::since(finish) - check_seconds);
  return m;
}

}  // namespace fc
