// Leiden's driver (leiden.hpp): the level-0 graph of a quality, the passes and their levels, the
// options' defaults and checks.
#include "modules/leiden.hpp"

#include <cmath>
#include <cstdio>
#include <numeric>
#include <string>
#include <unordered_map>

#include "base/error.hpp"
#include "base/parallel_team.hpp"
#include "base/profile.hpp"
#include "modules/leiden_pass.hpp"
#include "modules/local_graph.hpp"
#include "modules/phases.hpp"

namespace fc {

namespace {

// Passes stop here even if the last one moved a node (each move raises the quality by more than
// kMinGain, so only rounding could make passes go on for ever).
constexpr int64_t kMaxPasses = 1000;

// The graph as level 0 sees it: weight-0 entries and self-loops dropped, weights combined; and
// the sum of the combined weights' magnitudes (each row's in parallel, then the rows in order: the
// same bits for any thread count). one_weight: whether one weight may stand for all (unit_weight).
LeidenGraph level_zero(const GraphData& g, const ModularityTerms& mt, bool cpm, bool one_weight, int threads,
                       double& total) {
  LeidenGraph lg;
  lg.n = g.n;
  lg.offsets.assign(static_cast<size_t>(g.n + 1), 0);
  auto kept = [&](int64_t i, int64_t e) {
    return g.weights[static_cast<size_t>(e)] != 0 && g.columns[static_cast<size_t>(e)] != i;
  };
  // The first kept entry's weight: whether every kept entry has it is found with the counts.
  float first = 0;
  for (int64_t e = 0; e < g.offsets[static_cast<size_t>(g.n)] && first == 0; ++e) first = g.weights[static_cast<size_t>(e)];
  bool uniform = true;
  const int team = parallel_team(g.offsets[static_cast<size_t>(g.n)] + g.n, threads);
#pragma omp parallel for schedule(static) num_threads(team) if (team > 1) reduction(&& : uniform)
  for (int64_t i = 0; i < g.n; ++i) {
    int64_t c = 0;
    bool same = true;
    for (int64_t e = g.offsets[static_cast<size_t>(i)]; e < g.offsets[static_cast<size_t>(i + 1)]; ++e) {
      const bool k = kept(i, e);
      c += k;
      same = same && (!k || g.weights[static_cast<size_t>(e)] == first);
    }
    lg.offsets[static_cast<size_t>(i + 1)] = c;
    uniform = uniform && same;
  }
  for (int64_t i = 0; i < g.n; ++i) lg.offsets[static_cast<size_t>(i + 1)] += lg.offsets[static_cast<size_t>(i)];
  const int64_t entries = lg.offsets[static_cast<size_t>(g.n)];
  const bool every_entry_kept = entries == g.offsets[static_cast<size_t>(g.n)];
  if (every_entry_kept) lg.shared_columns = g.columns.data();
  const double unit = cpm ? double(first) : combined_weight(mt, first);
  int exponent = 0;
  if (one_weight && uniform && entries > 0 && std::fabs(std::frexp(unit, &exponent)) == 0.5) lg.unit_weight = unit;
  // Unzeroed (EdgeArray): every entry is written below, and by the thread of its row. (Huge pages,
  // tried here, made the voxel network's level 0 slower on the 2-core machine: 0.85 s against
  // 0.27-0.52 s, one thread.)
  if (!every_entry_kept) lg.columns.resize(static_cast<size_t>(entries));
  if (lg.unit_weight == 0) lg.weights.resize(static_cast<size_t>(entries));
  std::vector<double> row_total(static_cast<size_t>(g.n));
#pragma omp parallel for schedule(static) num_threads(team) if (team > 1)
  for (int64_t i = 0; i < g.n; ++i) {
    int64_t x = lg.offsets[static_cast<size_t>(i)];
    if (lg.unit_weight != 0) {  // each partial sum k |unit| is exact: the same bits as adding them
      row_total[static_cast<size_t>(i)] = double(lg.offsets[static_cast<size_t>(i + 1)] - x) * std::fabs(lg.unit_weight);
      if (every_entry_kept) continue;
    }
    double sum = 0;
    for (int64_t e = g.offsets[static_cast<size_t>(i)]; e < g.offsets[static_cast<size_t>(i + 1)]; ++e) {
      if (!kept(i, e)) continue;
      if (!every_entry_kept) lg.columns[static_cast<size_t>(x)] = g.columns[static_cast<size_t>(e)];
      if (lg.unit_weight == 0) {
        const float w = g.weights[static_cast<size_t>(e)];
        sum += std::fabs(lg.weights[static_cast<size_t>(x)] = cpm ? double(w) : combined_weight(mt, w));
      }
      ++x;
    }
    if (lg.unit_weight == 0) row_total[static_cast<size_t>(i)] = sum;
  }
  total = 0;
  for (double x : row_total) total += x;
  if (cpm) {
    lg.kp.assign(static_cast<size_t>(g.n), 1.0);
    lg.kn.assign(static_cast<size_t>(g.n), 0.0);
  } else {
    lg.kp = mt.k_pos;
    lg.kn = mt.k_neg;
  }
  return lg;
}

// Where fc_leiden's time goes, per pass, printed to stderr when FASTCONN_PROFILE contains
// "leiden" (for the benchmarks; Phases::time measures nothing otherwise).
struct LeidenPhases {
  Phases clock;
  double move = 0, refine = 0, aggregate = 0;
};

// The steps of a pass on one graph (leiden_pass.hpp's Ops).
struct GraphOps {
  using Level = LeidenGraph;
  const LeidenTerms& t;
  int threads;
  LeidenPhases& phases;
  AggregateBuffers& buffers;  // the call's aggregation memory, reused level after level
  const LeidenGraph& graph(const LeidenGraph& g) const { return g; }
  int64_t move(const LeidenGraph& g, const std::vector<char>& skip, std::vector<int64_t>& p, SplitMix64& rng) const {
    return phases.clock.time(phases.move, [&] { return leiden_move_nodes(g, t, skip, p, rng, threads); });
  }
  int64_t refine(const LeidenGraph& g, const std::vector<char>& skip, const std::vector<int64_t>& p, SplitMix64& rng,
                 std::vector<int64_t>& refined) const {
    return phases.clock.time(phases.refine, [&] { return leiden_refine(g, t, skip, p, rng, refined, threads); });
  }
  LeidenGraph aggregate(const LeidenGraph& g, const std::vector<int64_t>& refined, int64_t k) const {
    const double before = phases.aggregate;
    LeidenGraph next = phases.clock.time(phases.aggregate, [&] { return leiden_aggregate(g, refined, k, threads, &buffers); });
    if (phases.clock.on)
      std::fprintf(stderr, "  level of %lld nodes, %lld entries: aggregate of %lld nodes, %lld entries in %.4f s\n",
                   static_cast<long long>(g.n), static_cast<long long>(g.offsets.back()), static_cast<long long>(k),
                   static_cast<long long>(next.offsets.back()), phases.aggregate - before);
    return next;
  }
  void recycle(LeidenGraph& g) const { buffers.recycle(g); }
};

}  // namespace

Modules find_leiden(const GraphData& g, const fc_leiden_options& o, const int64_t* initial, int threads,
                    Progress& progress, LeidenStats* stats, bool one_weight) {
  const Phases::Clock::time_point start = Phases::Clock::now();
  const bool cpm = o.quality == FC_LEIDEN_CPM;
  const double gamma = o.resolution;
  const ModularityTerms mt = leiden_quality_terms(g, o, threads);
  double total = 0;
  const LeidenGraph lg = level_zero(g, mt, cpm, one_weight, threads, total);
  LeidenTerms t;
  t.gamma = gamma;
  t.d_pos = cpm ? 1.0 : mt.d_pos;
  t.d_neg = cpm ? 0.0 : mt.d_neg;
  t.randomness = o.randomness;
  t.epsilon = kMinGain * total / 2;  // a move raises Q (or CPM / total) by 2 gain / total

  // A node without edges is a community of its own and never moves.
  std::vector<char> skip(static_cast<size_t>(g.n), 0);
  for (int64_t v = 0; v < g.n; ++v)
    skip[static_cast<size_t>(v)] = lg.offsets[static_cast<size_t>(v + 1)] == lg.offsets[static_cast<size_t>(v)];
  std::vector<int64_t> labels = leiden_start(initial, skip);

  const double setup_seconds = Phases::since(start);
  LeidenStats st;
  st.one_weight = lg.unit_weight != 0;
  SplitMix64 rng(o.seed);
  LeidenPhases phases;
  phases.clock.on = profile_asks("leiden");
  AggregateBuffers buffers;
  GraphOps ops{t, threads, phases, buffers};
  for (int64_t pass = 0; pass < kMaxPasses && (o.max_iterations == 0 || pass < o.max_iterations); ++pass) {
    ++st.passes;
    const LeidenPhases before = phases;
    const int64_t levels_before = st.levels;
    const int64_t moves = leiden_pass_with(ops, lg, skip, labels, rng, progress, st.levels);
    st.moves += moves;
    if (phases.clock.on) {
      std::vector<int64_t> copy = labels;
      const int64_t k = renumber_by_first_appearance(copy);
      std::fprintf(stderr, "leiden pass %lld: %lld levels, %lld moves; moves %.4f s, refinement %.4f s, aggregation %.4f s; Q %.9f\n",
                   static_cast<long long>(pass + 1), static_cast<long long>(st.levels - levels_before),
                   static_cast<long long>(moves), phases.move - before.move, phases.refine - before.refine,
                   phases.aggregate - before.aggregate, modularity_of(g, mt, copy.data(), k, threads));
    }
    if (moves == 0) break;
  }

  const Phases::Clock::time_point finish = Phases::Clock::now();
  Modules m;
  m.n = g.n;
  if (g.n > 0) {
    renumber_by_first_appearance(labels);
    st.split_pieces = split_disconnected(g, labels, threads);
    m.k = renumber_by_first_appearance(labels);
  }
  m.q = modularity_of(g, mt, labels.data(), m.k, threads);
  m.labels = std::move(labels);
  progress.advance(g.n);
  if (phases.clock.on)
    std::fprintf(stderr,
                 "leiden total %.4f s: level 0 %.4f s, %lld passes (moves %.4f s, refinement %.4f s, aggregation "
                 "%.4f s), connectivity and Q %.4f s\n",
                 Phases::since(start), setup_seconds, static_cast<long long>(st.passes), phases.move, phases.refine,
                 phases.aggregate, Phases::since(finish));
  if (stats != nullptr) *stats = st;
  return m;
}

ModularityTerms leiden_quality_terms(const GraphData& g, const fc_leiden_options& o, int threads) {
  const bool cpm = o.quality == FC_LEIDEN_CPM;
  const double gamma = o.resolution;
  ModularityTerms mt = modularity_terms(g, cpm ? FC_SIGNED_GOMEZ : static_cast<fc_signed_modularity>(o.signed_mode),
                                        cpm ? 1.0 : gamma, threads);
  if (cpm && !std::isfinite(gamma * double(g.n) * double(g.n) * 16))
    fail(FC_ERR_INVALID_ARG, "options->resolution " + exact_text(gamma) + " times the square of the " +
                                 std::to_string(g.n) + " nodes overflows a double; use a smaller resolution");
  return mt;
}

std::vector<int64_t> leiden_start(const int64_t* initial, const std::vector<char>& lone) {
  const int64_t n = int64_t(lone.size());
  std::vector<int64_t> labels(static_cast<size_t>(n));
  if (initial == nullptr) {
    std::iota(labels.begin(), labels.end(), int64_t(0));
    return labels;
  }
  std::unordered_map<int64_t, int64_t> id;
  int64_t k = 0;
  for (int64_t v = 0; v < n; ++v) {
    if (lone[static_cast<size_t>(v)]) continue;
    labels[static_cast<size_t>(v)] = id.emplace(initial[v], k).first->second;
    k = int64_t(id.size());
  }
  for (int64_t v = 0; v < n; ++v)
    if (lone[static_cast<size_t>(v)]) labels[static_cast<size_t>(v)] = k++;
  return labels;
}

void check_initial_labels(const int64_t* labels, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    if (labels[i] < 0)
      fail(FC_ERR_INVALID_ARG, "initial_labels[" + std::to_string(i) + "] = " + std::to_string(labels[i]) + " is negative");
}

fc_leiden_options default_leiden_options() {
  fc_leiden_options o;
  o.resolution = 1.0;
  o.randomness = 1e-4;  // bench/RESULTS-leiden.md: Q 0.4759 against 0.4707 at 0.01
  o.seed = 1;
  o.max_iterations = 0;
  o.quality = FC_LEIDEN_MODULARITY;
  o.signed_mode = FC_SIGNED_GOMEZ;
  return o;
}

void validate_leiden_options(const fc_leiden_options& o) {
  if (!(o.resolution > 0) || !std::isfinite(o.resolution))
    fail(FC_ERR_INVALID_ARG, "options->resolution " + exact_text(o.resolution) + " is not a finite number > 0");
  if (!(o.randomness > 0) || !std::isfinite(o.randomness))
    fail(FC_ERR_INVALID_ARG, "options->randomness " + exact_text(o.randomness) + " is not a finite number > 0");
  if (o.max_iterations < 0)
    fail(FC_ERR_INVALID_ARG, "options->max_iterations " + std::to_string(o.max_iterations) +
                                 " is negative (0 = until a pass moves no node)");
  if (o.quality != FC_LEIDEN_MODULARITY && o.quality != FC_LEIDEN_CPM)
    fail(FC_ERR_INVALID_ARG, "options->quality " + std::to_string(o.quality) +
                                 " is not FC_LEIDEN_MODULARITY (0) or FC_LEIDEN_CPM (1)");
  if (o.signed_mode != FC_SIGNED_GOMEZ && o.signed_mode != FC_SIGNED_RUBINOV)
    fail(FC_ERR_INVALID_ARG, "options->signed_mode " + std::to_string(o.signed_mode) +
                                 " is not FC_SIGNED_GOMEZ (0) or FC_SIGNED_RUBINOV (1)");
}

}  // namespace fc
