// The synchronous Leiden's driver (leiden_sync.hpp): the level-0 fixed point, the passes and
// levels, the final connectivity check and Q (host code for every engine).
#include "modules/leiden_sync.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

#include "base/profile.hpp"
#include "kernels/leiden_rules.hpp"
#include "modules/phases.hpp"

namespace fc {

namespace {

constexpr int64_t kMaxPasses = 1000;

bool has_edge(const GraphData& g, int64_t v) {
  for (int64_t e = g.offsets[static_cast<size_t>(v)]; e < g.offsets[static_cast<size_t>(v + 1)]; ++e)
    if (g.weights[static_cast<size_t>(e)] != 0 && g.columns[static_cast<size_t>(e)] != v) return true;
  return false;
}

}  // namespace

void run_sync_passes(LeidenEngine& engine, std::vector<int64_t>& labels, uint64_t seed, int64_t max_iterations,
                     Progress& progress, SyncLeidenStats& st, bool profile, Phases::Clock::time_point start) {
  SplitMix64 rng(seed);
  const int64_t batch = std::max<int64_t>(1, engine.round_batch());
  std::vector<LeidenRound> out(static_cast<size_t>(batch));
  for (int64_t pass = 0; pass < kMaxPasses && (max_iterations == 0 || pass < max_iterations); ++pass) {
    ++st.passes;
    engine.start_pass(labels);
    int64_t moves = 0;
    for (;;) {
      ++st.levels;
      engine.begin_moves();
      const uint64_t move_salt = rng.next();
      int64_t rounds = 0, level_moves = 0;
      bool idle = false;  // a round left no node active
      for (int64_t r = 0; r < kSyncMaxRounds && !idle;) {
        const int64_t count = std::min(batch, kSyncMaxRounds - r);
        engine.move_rounds(move_salt, r, count, out.data());
        r += count;
        for (int64_t i = 0; i < count && !idle; ++i) {
          ++rounds;
          level_moves += out[static_cast<size_t>(i)].changed;
          idle = out[static_cast<size_t>(i)].active == 0;
        }
      }
      st.move_rounds += rounds;
      moves += level_moves;
      const int64_t n = engine.level_nodes();
      if (profile_asks("leiden-levels"))
        std::fprintf(stderr, "  level of %lld nodes: %lld moves in %lld rounds, %.4f s so far\n", static_cast<long long>(n),
                     static_cast<long long>(level_moves), static_cast<long long>(rounds), Phases::since(start));
      if (engine.communities() == n) break;
      engine.begin_refine();
      const uint64_t refine_salt = rng.next();
      // Every node is judged every other round: two rounds without a join leave none to make.
      for (int64_t r = 0, quiet = 0; r < kSyncMaxRounds && quiet < 2;) {
        const int64_t count = std::min(batch, kSyncMaxRounds - r);
        engine.refine_rounds(refine_salt, r, count, out.data());
        r += count;
        for (int64_t i = 0; i < count && quiet < 2; ++i) {
          quiet = out[static_cast<size_t>(i)].changed == 0 ? quiet + 1 : 0;
          ++st.refine_rounds;
        }
      }
      if (engine.subcommunities() == n) break;
      engine.aggregate();
      progress.advance(0);
    }
    engine.labels(labels);
    renumber_by_first_appearance(labels);  // ids < n for the next pass (moves may name ids up to 2n)
    st.moves += moves;
    if (profile)
      std::fprintf(stderr, "leiden (synchronous) pass %lld: %lld moves, %.4f s so far\n", static_cast<long long>(pass + 1),
                   static_cast<long long>(moves), Phases::since(start));
    if (moves == 0) break;
  }
  if (profile) engine.report_phases();
}

Modules find_leiden_sync(const GraphData& g, const fc_leiden_options& o, const int64_t* initial,
                         ModulesBackend& backend, const RunSettings& run, Progress& progress, SyncLeidenStats* stats) {
  const Phases::Clock::time_point start = Phases::Clock::now();
  const bool profile = profile_asks("leiden");
  const bool cpm = o.quality == FC_LEIDEN_CPM;
  const double gamma = o.resolution;
  const int threads = run.threads;
  const ModularityTerms mt = leiden_quality_terms(g, o, threads);

  // Fixed point: the total weight (every |w|, self-loops included) times scale stays below 2^61,
  // so every sum of entries or node weights fits an int64 with room for the rounding.
  const double bound = mt.total_pos + mt.total_neg;
  int exponent = 0;
  if (bound > 0) std::frexp(bound, &exponent);  // bound < 2^exponent
  LeidenLevelZero z;
  z.n = g.n;
  z.offsets = g.offsets.data();
  z.columns = g.columns.data();
  z.weights = g.weights.data();
  z.c_pos = mt.c_pos;
  z.c_neg = mt.c_neg;
  z.scale = std::ldexp(1.0, 61 - exponent);
  z.cpm = cpm;
  kernels::SyncTerms t;
  t.gp = cpm ? gamma * z.scale : gamma * mt.d_pos / z.scale;
  t.gn = cpm ? 0.0 : gamma * mt.d_neg / z.scale;
  t.epsilon = kMinGain * bound / 2 * z.scale;

  // Starting partition: as fc_leiden's (a node without edges is a community of its own).
  std::vector<char> lone(static_cast<size_t>(g.n));
  for (int64_t v = 0; v < g.n; ++v) lone[static_cast<size_t>(v)] = !has_edge(g, v);
  std::vector<int64_t> labels = leiden_start(initial, lone);

  const double terms_seconds = Phases::since(start);
  std::unique_ptr<LeidenEngine> engine = backend.leiden_engine(z, t, run);
  const double setup = Phases::since(start);
  if (profile)
    std::fprintf(stderr, "leiden (synchronous) setup: terms %.4f s, engine %.4f s\n", terms_seconds, setup - terms_seconds);
  SyncLeidenStats st;
  run_sync_passes(*engine, labels, o.seed, o.max_iterations, progress, st, profile, start);

  const Phases::Clock::time_point finish = Phases::Clock::now();
  Modules m;
  m.n = g.n;
  if (g.n > 0) {
    const int64_t k = renumber_by_first_appearance(labels);
    // The host's search runs unless the engine counted the pieces and every community is one.
    if (engine->pieces(labels) != k) {
      if (engine->piece_labels(labels)) st.split_pieces = renumber_by_first_appearance(labels) - k;
      else st.split_pieces = split_disconnected(g, labels, threads);
    }
    m.k = renumber_by_first_appearance(labels);
  }
  std::vector<double> row_pos, row_neg;
  m.q = engine->rows_inside(labels, row_pos, row_neg) ? modularity_of_rows(g, mt, labels.data(), m.k, row_pos, row_neg)
                                                      : modularity_of(g, mt, labels.data(), m.k, threads);
  engine.reset();
  m.labels = std::move(labels);
  progress.advance(g.n);
  if (profile)
    std::fprintf(stderr,
                 "leiden (synchronous) total %.4f s: setup %.4f s, %lld passes, %lld levels, %lld move rounds, %lld "
                 "refinement rounds; connectivity and Q %.4f s\n",
                 Phases::since(start), setup, static_cast<long long>(st.passes), static_cast<long long>(st.levels),
                 static_cast<long long>(st.move_rounds), static_cast<long long>(st.refine_rounds), Phases::since(finish));
  if (stats != nullptr) *stats = st;
  return m;
}

}  // namespace fc
