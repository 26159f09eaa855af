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

// The supra-graph of supra_graph (multilayer_supra.hpp), entries and node weights in fixed point
// straight from the layers (its double weights never made): entry weights nearbyint(w scale),
// coupling entries nearbyint(omega scale), node (i, s)'s weight nearbyint(k scale) with k its
// degree in layer s; scale = 2^(61 - e) for the total of the entries and degrees below 2^e.
struct FixedSupra {
  std::vector<int64_t> offsets, node_weight;
  EdgeArray<int64_t> columns, fixed;
  std::vector<int32_t> node_layer;
  double scale = 1, total = 0;  // total: the entries' weights
};

FixedSupra fixed_supra(const std::vector<const GraphData*>& layers, double omega, int coupling, int threads) {
  const int64_t L = int64_t(layers.size()), N = layers[0]->n, n = L * N;
  FixedSupra f;
  f.offsets.assign(static_cast<size_t>(n + 1), 0);
  f.node_weight.resize(static_cast<size_t>(n));
  f.node_layer.resize(static_cast<size_t>(n));
  std::vector<double> degree(static_cast<size_t>(n)), kept(static_cast<size_t>(n));
  int64_t raw = 0;
  for (const GraphData* a : layers) raw += a->offsets[static_cast<size_t>(N)];
  const int team = parallel_team(raw + n, threads);
#pragma omp parallel for schedule(static) num_threads(team) if (team > 1)
  for (int64_t v = 0; v < n; ++v) {
    int64_t count = 0;
    double sum = 0;
    degree[static_cast<size_t>(v)] = supra_row(layers, omega, coupling, v, [&](int64_t, double w) {
      ++count;
      sum += w;
    });
    f.offsets[static_cast<size_t>(v + 1)] = count;
    kept[static_cast<size_t>(v)] = sum;
    f.node_layer[static_cast<size_t>(v)] = int32_t(v / N);
  }
  for (int64_t v = 0; v < n; ++v) f.offsets[static_cast<size_t>(v + 1)] += f.offsets[static_cast<size_t>(v)];
  f.total = chunked_sum(n, team, [&](int64_t v) { return kept[static_cast<size_t>(v)]; });
  const double degrees = chunked_sum(n, team, [&](int64_t v) { return degree[static_cast<size_t>(v)]; });
  int exponent = 0;
  if (f.total + degrees > 0) std::frexp(f.total + degrees, &exponent);
  f.scale = std::ldexp(1.0, 61 - exponent);
  const int64_t entries = f.offsets[static_cast<size_t>(n)];
  f.columns.resize(static_cast<size_t>(entries));
  f.fixed.resize(static_cast<size_t>(entries));
#pragma omp parallel for schedule(static) num_threads(team) if (team > 1)
  for (int64_t v = 0; v < n; ++v) {
    int64_t x = f.offsets[static_cast<size_t>(v)];
    supra_row(layers, omega, coupling, v, [&](int64_t column, double w) {
      f.columns[static_cast<size_t>(x)] = column;
      f.fixed[static_cast<size_t>(x)] = int64_t(std::nearbyint(w * f.scale));
      ++x;
    });
    f.node_weight[static_cast<size_t>(v)] = int64_t(std::nearbyint(degree[static_cast<size_t>(v)] * f.scale));
  }
  return f;
}

}  // namespace

Multilayer find_multilayer_sync(const std::vector<const GraphData*>& layers, const std::vector<double>& gamma,
                                const fc_multilayer_options& o, ModulesBackend& backend, const RunSettings& run,
                                Progress& progress) {
  const Phases::Clock::time_point start = Phases::Clock::now();
  const bool profile = profile_asks("leiden");
  const int64_t L = int64_t(layers.size()), N = layers[0]->n, n = L * N;
  const FixedSupra f = fixed_supra(layers, o.omega, o.coupling, run.threads);
  const double supra_seconds = Phases::since(start);
  const std::vector<double> coefficient = null_coefficients(layers, gamma);
  const double scale = f.scale;
  std::vector<double> gp(static_cast<size_t>(L));
  for (int64_t l = 0; l < L; ++l) gp[static_cast<size_t>(l)] = coefficient[static_cast<size_t>(l)] / scale;
  LeidenLevelZero z;
  z.n = n;
  z.offsets = f.offsets.data();
  z.columns = f.columns.data();
  z.scale = scale;
  z.layers = L;
  z.fixed = f.fixed.data();
  z.node_layer = f.node_layer.data();
  z.node_weight = f.node_weight.data();
  z.layer_gp = gp.data();
  kernels::SyncTerms t;
  t.epsilon = kMinGain * f.total / 2 * scale;  // as find_multilayer's, in the fixed-point unit
  t.max_node_moves = kNodeMoves;

  // Every supra-node starts alone; one without entries never moves.
  std::vector<int64_t> labels(static_cast<size_t>(n));
  std::iota(labels.begin(), labels.end(), int64_t(0));
  std::unique_ptr<LeidenEngine> engine = backend.leiden_engine(z, t, run);
  const double setup = Phases::since(start);
  if (profile)
    std::fprintf(stderr, "multilayer (synchronous) setup %.4f s: supra-graph in fixed point %.4f s, engine %.4f s\n", setup,
                 supra_seconds, setup - supra_seconds);
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
    if (engine->pieces(labels) != k && !engine->piece_labels(labels))
      split_disconnected(supra_graph(layers, o.omega, o.coupling, run.threads).g, labels, run.threads);
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
