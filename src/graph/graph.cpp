#include "graph/graph.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "base/error.hpp"
#include "base/huge_pages.hpp"
#include "base/parallel_team.hpp"
#include "base/triangle_index.hpp"

namespace fc {
namespace {

// The rule and its parameter, validated.
struct Rule {
  fc_edge_rule rule;
  double param;
  int64_t k = 0;  // FC_EDGE_TOP_K
};

Rule validate_rule(const fc_edge_rule& rule, double param) {
  const int r = raw_enum(rule);
  if (r < FC_EDGE_ABS_THRESHOLD || r > FC_EDGE_TOP_K)
    fail(FC_ERR_INVALID_ARG, "rule " + std::to_string(r) +
                                 " is not FC_EDGE_ABS_THRESHOLD (0), FC_EDGE_THRESHOLD (1), FC_EDGE_DENSITY (2) or FC_EDGE_TOP_K (3)");
  Rule out{rule, param};
  if (std::isnan(param)) fail(FC_ERR_INVALID_ARG, "param is NaN");
  switch (r) {
    case FC_EDGE_ABS_THRESHOLD:
    case FC_EDGE_THRESHOLD:
      if (!std::isfinite(param)) fail(FC_ERR_INVALID_ARG, "threshold param " + exact_text(param) + " is not finite");
      break;
    case FC_EDGE_DENSITY:
      if (!(param >= 0.0 && param <= 1.0))
        fail(FC_ERR_INVALID_ARG, "density param " + exact_text(param) + " is outside [0, 1]");
      break;
    case FC_EDGE_TOP_K:
      if (!(param >= 1.0) || param != std::floor(param) || param > 9.0e15)
        fail(FC_ERR_INVALID_ARG, "top-k param " + exact_text(param) + " is not an integer >= 1");
      out.k = static_cast<int64_t>(param);
      break;
  }
  return out;
}

void validate_weights(int weights) {
  if (weights < FC_GRAPH_BINARY || weights > FC_GRAPH_WEIGHTED_ABS)
    fail(FC_ERR_INVALID_ARG, "weights " + std::to_string(weights) +
                                 " is not FC_GRAPH_BINARY (0), FC_GRAPH_WEIGHTED (1) or FC_GRAPH_WEIGHTED_ABS (2)");
}

UpperEdges no_edges(int64_t n) {
  UpperEdges e;
  e.row_count.assign(static_cast<size_t>(n), 0);
  return e;
}

UpperEdges threshold_edges(const ContextState& ctx, const SeriesData& s, const EdgeTest& test) {
  UpperEdges e;
  Progress progress = ctx.make_progress(triu_count(s.n));
  ctx.backend->threshold_edges(s.view(), test, e, ctx.run_settings(progress));
  return e;
}

// Every pair of non-constant series: |r| >= 0 holds for each of them.
UpperEdges all_eligible_edges(const ContextState& ctx, const SeriesData& s) { return threshold_edges(ctx, s, EdgeTest{true, 0.0f}); }

float float_of_bits(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}
uint32_t bits_of(float f) {
  uint32_t b;
  std::memcpy(&b, &f, sizeof b);
  return b;
}

// The backend's guess (density_guess), unless FASTCONN_DENSITY_GUESS=0 (the two exact passes
// always: tests and benchmarks compare the two, which give the same edges) or it holds another
// number: that number is the guess (tests: a guess too high must fall back, one too low must
// still give the same edges).
bool density_guess_of(const ContextState& ctx, const SeriesData& s, int64_t target, int64_t eligible, float& guess,
                      const RunSettings& run) {
  const char* env = std::getenv("FASTCONN_DENSITY_GUESS");
  if (env != nullptr && std::strcmp(env, "0") == 0) return false;
  if (env != nullptr && *env != '\0' && std::strcmp(env, "1") != 0) {
    guess = std::strtof(env, nullptr);
    return true;
  }
  return ctx.backend->density_guess(s.view(), target, eligible, guess, run);
}

// The density rule. Its answer is the `target` pairs first in the order (|r| descending, pair
// index ascending), and only the pairs at or above the target'th largest |r| are ever needed:
//  - guessed (density_guess.hpp): the pairs at or above a threshold the backend guesses from a
//    sample, in one pass over the triangle; used when at least `target` of them pass;
//  - exact, two passes: the |r| histogram finds the bin b holding the target'th largest |r|, and
//    the pairs of bins >= b (|r| >= b's lower edge) are extracted.
// Either way the candidates hold every pair of bin b's and above, and the rest is the same: the
// pairs above bin b kept, b's own chosen by the order, the rest (a guess's pairs below b)
// dropped. So a guess changes the time, never the edges. Only the candidates are ever held,
// never the triangle.
UpperEdges density_edges(const ContextState& ctx, const SeriesData& s, double density) {
  const int64_t n = s.n;
  const int64_t target = density_edge_count(density, triu_count(n));
  const int64_t eligible = triu_count(n - s.n_constant);
  if (target == 0) return no_edges(n);
  if (target >= eligible) return all_eligible_edges(ctx, s);  // documented: fewer eligible pairs than asked

  Progress progress = ctx.make_progress(2 * triu_count(n));  // two passes (a good guess: the second is skipped)
  const RunSettings run = ctx.run_settings(progress);
  UpperEdges cand;
  std::vector<int64_t> hist;
  float guess = 0.0f;
  // FASTCONN_DENSITY_STATS: the path taken and the phases' times, on stderr.
  const bool stats = std::getenv("FASTCONN_DENSITY_STATS") != nullptr;
  using Clock = std::chrono::steady_clock;
  const Clock::time_point t0 = Clock::now();
  Clock::time_point t1 = t0;
  auto seconds_since = [](Clock::time_point a) { return std::chrono::duration<double>(Clock::now() - a).count(); };
  if (density_guess_of(ctx, s, target, eligible, guess, run)) {
    t1 = Clock::now();
    ctx.backend->threshold_edges(s.view(), EdgeTest{true, guess}, cand, run);
    const int64_t found = static_cast<int64_t>(cand.columns.size());
    if (stats)
      std::fprintf(stderr, "fastconn density: target %lld, guess %.9g, %lld pairs pass it: %s (guess %.4f s, pass %.4f s)\n",
                   static_cast<long long>(target), static_cast<double>(guess), static_cast<long long>(found),
                   found >= target ? "one pass" : "exact passes after the guess",
                   std::chrono::duration<double>(t1 - t0).count(), seconds_since(t1));
    if (found >= target) {
      hist.assign(static_cast<size_t>(kAbsHistogramBins), 0);  // of the candidates: exact in bins >= the guess's
      for (float v : cand.values) ++hist[bits_of(std::fabs(v)) >> kAbsHistogramShift];
      progress.advance(triu_count(n));
    }
  }
  // The bin of the target'th largest |r|, and the pairs above it.
  auto boundary_bin = [&](int64_t& above) {
    above = 0;
    int64_t b = kAbsHistogramBins - 1;
    for (; b >= 0; --b) {
      if (above + hist[static_cast<size_t>(b)] >= target) break;
      above += hist[static_cast<size_t>(b)];
    }
    if (b < 0) fail(FC_ERR_INTERNAL, "the |r| histogram holds fewer pairs than the density rule's target");
    return b;
  };
  int64_t above = 0;
  if (hist.empty()) {  // no guess, or too few pairs passed it: the exact histogram's two passes
    Progress more = ctx.make_progress(progress.done() + 2 * triu_count(n), progress.done());
    const RunSettings exact = ctx.run_settings(more);
    ctx.backend->abs_histogram(s.view(), hist, exact);
    const int64_t b = boundary_bin(above);
    cand = UpperEdges{};
    ctx.backend->threshold_edges(s.view(), EdgeTest{true, float_of_bits(static_cast<uint32_t>(b) << kAbsHistogramShift)},
                                 cand, exact);
  }
  const Clock::time_point t_select = Clock::now();
  const int64_t b = boundary_bin(above);
  const int64_t found = static_cast<int64_t>(cand.columns.size());
  const int64_t cand_rows = static_cast<int64_t>(cand.row_count.size());
  if (cand_rows != n) fail(FC_ERR_INTERNAL, "the density rule's candidates have " + std::to_string(cand_rows) + " rows, not " + std::to_string(n));

  // Candidates of bin b by position (row order = pair index order); keep the best `need`.
  std::vector<int64_t> boundary;
  std::vector<uint8_t> keep(static_cast<size_t>(found), 1);
  int64_t in_bins = 0;  // candidates of bins >= b: the histogram's count there
  for (int64_t e = 0; e < found; ++e) {
    const uint32_t bin = bits_of(std::fabs(cand.values[static_cast<size_t>(e)])) >> kAbsHistogramShift;
    if (bin < static_cast<uint32_t>(b)) keep[static_cast<size_t>(e)] = 0;
    else ++in_bins;
    if (bin == static_cast<uint32_t>(b)) boundary.push_back(e);
  }
  if (in_bins != above + hist[static_cast<size_t>(b)])
    fail(FC_ERR_INTERNAL, "the density rule's passes disagree: " + std::to_string(in_bins) + " pairs at |r| >= bin " +
                              std::to_string(b) + ", histogram " + std::to_string(above + hist[static_cast<size_t>(b)]));
  const int64_t need = target - above;
  auto better = [&](int64_t x, int64_t y) {
    const float a = std::fabs(cand.values[static_cast<size_t>(x)]), c = std::fabs(cand.values[static_cast<size_t>(y)]);
    return a > c || (a == c && x < y);
  };
  std::nth_element(boundary.begin(), boundary.begin() + (need - 1), boundary.end(), better);
  for (size_t a = static_cast<size_t>(need); a < boundary.size(); ++a) keep[static_cast<size_t>(boundary[a])] = 0;

  // The kept candidates moved down in place (row order kept): the candidates' arrays become the
  // result's, with no second copy of the edges.
  const Clock::time_point t2 = Clock::now();
  int64_t e = 0, w = 0;
  for (int64_t i = 0; i < cand_rows; ++i) {
    int64_t kept = 0;
    for (const int64_t end = e + cand.row_count[static_cast<size_t>(i)]; e < end; ++e)
      if (keep[static_cast<size_t>(e)]) {
        cand.columns[static_cast<size_t>(w)] = cand.columns[static_cast<size_t>(e)];
        cand.values[static_cast<size_t>(w)] = cand.values[static_cast<size_t>(e)];
        ++w, ++kept;
      }
    cand.row_count[static_cast<size_t>(i)] = kept;
  }
  cand.columns.resize(static_cast<size_t>(w));
  cand.values.resize(static_cast<size_t>(w));
  UpperEdges out = std::move(cand);
  if (stats)
    std::fprintf(stderr, "fastconn density: %lld candidates, selection %.4f s, the kept edges moved %.4f s (all %.4f s)\n",
                 static_cast<long long>(found), std::chrono::duration<double>(t2 - t_select).count(), seconds_since(t2),
                 seconds_since(t0));
  return out;
}

// The k strongest partners of every series, symmetrized by union. A pair chosen from both ends
// carries the value of the smaller index's row (the same r on the CPU backend).
UpperEdges top_k_edges(const ContextState& ctx, const SeriesData& s, int64_t k_requested) {
  const int64_t n = s.n;
  const int64_t k = std::min(k_requested, n - 1);
  if (k < 1) return no_edges(n);
  if (k == n - 1) return all_eligible_edges(ctx, s);  // every row keeps all its candidates
  std::vector<int64_t> cols(static_cast<size_t>(n * k));
  std::vector<float> vals(static_cast<size_t>(n * k));
  Progress progress = ctx.make_progress(n);  // rows
  ctx.backend->top_k(s.view(), k, cols.data(), vals.data(), ctx.run_settings(progress));

  // Counting sort of the chosen pairs by their smaller index, filled in (row, rank) order so that
  // a pair's entry from its smaller index's own row comes first; then per row by column.
  UpperEdges out = no_edges(n);
  std::vector<int64_t> first(static_cast<size_t>(n) + 1, 0);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t a = 0; a < k; ++a) {
      const int64_t j = cols[static_cast<size_t>(i * k + a)];
      if (j < 0) break;
      if (j >= n || j == i) fail(FC_ERR_INTERNAL, "top_k returned column " + std::to_string(j) + " for row " + std::to_string(i));
      ++first[static_cast<size_t>(std::min(i, j)) + 1];
    }
  for (int64_t i = 0; i < n; ++i) first[i + 1] += first[i];
  std::vector<int64_t> next(first.begin(), first.end() - 1), col(static_cast<size_t>(first[n]));
  std::vector<float> val(static_cast<size_t>(first[n]));
  for (int64_t i = 0; i < n; ++i)
    for (int64_t a = 0; a < k; ++a) {
      const int64_t j = cols[static_cast<size_t>(i * k + a)];
      if (j < 0) break;
      const int64_t u = std::min(i, j), at = next[static_cast<size_t>(u)]++;
      col[static_cast<size_t>(at)] = std::max(i, j);
      val[static_cast<size_t>(at)] = vals[static_cast<size_t>(i * k + a)];
    }
  std::vector<int64_t> order;
  for (int64_t u = 0; u < n; ++u) {
    const int64_t b = first[u], e = first[u + 1];
    order.resize(static_cast<size_t>(e - b));
    for (int64_t x = b; x < e; ++x) order[static_cast<size_t>(x - b)] = x;
    std::stable_sort(order.begin(), order.end(), [&](int64_t x, int64_t y) { return col[static_cast<size_t>(x)] < col[static_cast<size_t>(y)]; });
    int64_t last = -1;
    for (int64_t x : order) {
      if (col[static_cast<size_t>(x)] == last) continue;  // the same pair chosen from its other end
      last = col[static_cast<size_t>(x)];
      out.columns.push_back(last);
      out.values.push_back(val[static_cast<size_t>(x)]);
      ++out.row_count[static_cast<size_t>(u)];
    }
  }
  return out;
}

bool is_threshold(const Rule& rule) {
  const int kind = raw_enum(rule.rule);
  return kind == FC_EDGE_ABS_THRESHOLD || kind == FC_EDGE_THRESHOLD;
}

// The test of a threshold rule (is_threshold).
EdgeTest threshold_test(const Rule& rule) {
  return EdgeTest{raw_enum(rule.rule) == FC_EDGE_ABS_THRESHOLD, float_threshold(rule.param)};
}

UpperEdges edges_of(const ContextState& ctx, const SeriesData& s, const Rule& rule) {
  if (s.n < 2) return no_edges(s.n);
  if (is_threshold(rule)) return threshold_edges(ctx, s, threshold_test(rule));
  switch (raw_enum(rule.rule)) {
    case FC_EDGE_DENSITY: return density_edges(ctx, s, rule.param);
    default: return top_k_edges(ctx, s, rule.k);
  }
}

float weight_of(float r, int weights) {
  return weights == FC_GRAPH_BINARY ? 1.0f : weights == FC_GRAPH_WEIGHTED ? r : std::fabs(r);
}

// Symmetric CSR from the upper triangle's rows: row u holds its lower neighbours (the w < u with
// an edge (w, u), ascending) and then its own upper ones (ascending), so columns come out sorted.
// Both halves are written in parallel to fixed positions, so the result never depends on the
// thread count: upper runs row by row; lower entries by ownership of column ranges, each thread
// scanning the edge list in order and writing only the columns it owns (no scatter races, and
// each owner's writes stay within its own slice of the arrays).
void csr_of(GraphData& g, int64_t n, const UpperEdges& e, int weights, int threads) {
  g.n = n;
  g.n_edges = static_cast<int64_t>(e.columns.size());
  std::vector<int64_t> lower(static_cast<size_t>(n), 0), first_edge(static_cast<size_t>(n) + 1, 0);
  for (int64_t v : e.columns) ++lower[static_cast<size_t>(v)];
  g.offsets.assign(static_cast<size_t>(n) + 1, 0);
  for (int64_t u = 0; u < n; ++u) {
    const int64_t up = e.row_count[static_cast<size_t>(u)];
    g.offsets[static_cast<size_t>(u) + 1] = g.offsets[static_cast<size_t>(u)] + lower[static_cast<size_t>(u)] + up;
    first_edge[static_cast<size_t>(u) + 1] = first_edge[static_cast<size_t>(u)] + up;
  }
  // 2 x edges entries of 12 bytes (1 GB for 41 M edges): left uninitialized, on huge pages, so
  // that the first touch is the parallel writes below (a zero-filling resize on this thread took
  // most of fc_pcc_graph's time past the edges themselves).
  const size_t nnz = static_cast<size_t>(2 * g.n_edges);
  g.columns.reserve(nnz);
  g.weights.reserve(nnz);
  advise_huge_pages(g.columns.data(), nnz * sizeof(int64_t));
  advise_huge_pages(g.weights.data(), nnz * sizeof(float));
  g.columns.resize(nnz);
  g.weights.resize(nnz);
  int64_t* const columns = g.columns.data();
  float* const w = g.weights.data();
  const int64_t* const offsets = g.offsets.data();
  // Each thread reads every edge for its lower halves: a team only when there are many.
  const int team = parallel_team(2 * g.n_edges + n, threads, n);
  // Write positions of the lower halves, made here: nothing in the region below may allocate
  // (an exception cannot leave it).
  std::vector<int64_t> next(offsets, offsets + n);

#pragma omp parallel num_threads(team) if (team > 1)
  {
    // upper halves: row u's own edges, after its lower neighbours
#pragma omp for schedule(dynamic, 256)
    for (int64_t u = 0; u < n; ++u) {
      const int64_t src = first_edge[static_cast<size_t>(u)], count = e.row_count[static_cast<size_t>(u)];
      const int64_t dst = offsets[u] + lower[static_cast<size_t>(u)];
      for (int64_t m = 0; m < count; ++m) {
        columns[dst + m] = e.columns[static_cast<size_t>(src + m)];
        w[dst + m] = weight_of(e.values[static_cast<size_t>(src + m)], weights);
      }
    }
    // lower halves: this thread's columns [v0, v1), filled in edge order (ascending u)
    const int parts = omp_get_num_threads(), part = omp_get_thread_num();
    const int64_t v0 = n * part / parts, v1 = n * (part + 1) / parts;
    int64_t x = 0;
    for (int64_t u = 0; u < n; ++u)
      for (const int64_t end = first_edge[static_cast<size_t>(u) + 1]; x < end; ++x) {
        const int64_t v = e.columns[static_cast<size_t>(x)];
        if (v < v0 || v >= v1) continue;
        const int64_t at = next[static_cast<size_t>(v)]++;
        columns[at] = u;
        w[at] = weight_of(e.values[static_cast<size_t>(x)], weights);
      }
  }
}

}  // namespace

int64_t density_edge_count(double density, int64_t pairs) {
  if (density <= 0.0 || pairs <= 0) return 0;
  if (density >= 1.0) return pairs;
  // The product in double, as a caller writes it: 0.01 (a double slightly above 1/100) times
  // 1,619,100 pairs rounds to 16191 exactly, and its ceiling is 16191, not 16192.
  const double count = std::ceil(density * static_cast<double>(pairs));
  return std::min(pairs, static_cast<int64_t>(count));
}

float float_threshold(double param) {
  const double p = std::min(2.0, std::max(-2.0, param));
  float f = static_cast<float>(p);
  if (static_cast<double>(f) < p) f = std::nextafter(f, 3.0f);
  return f;
}

std::shared_ptr<GraphData> pcc_graph(const ContextState& ctx, const SeriesData& s, const fc_edge_rule& rule, double param,
                                     int weights) {
  const Rule r = validate_rule(rule, param);
  validate_weights(weights);
  // Written into the arrays of a graph this context built before, when one was destroyed.
  auto g = std::make_shared<GraphData>();
  g->recycler = ctx.graph_recycler;
  ctx.graph_recycler->take(*g);
  if (s.n < 2 || !is_threshold(r)) {
    csr_of(*g, s.n, edges_of(ctx, s, r), weights, ctx.threads);
  } else {
    // Thresholds: the backend may assemble the CSR itself (CUDA does, on the device).
    UpperEdges edges;
    Progress progress = ctx.make_progress(triu_count(s.n));
    if (ctx.backend->threshold_graph(s.view(), threshold_test(r), weights, *g, edges, ctx.run_settings(progress))) {
      g->n = s.n;
      g->n_edges = static_cast<int64_t>(g->columns.size() / 2);
    } else {
      csr_of(*g, s.n, edges, weights, ctx.threads);
    }
  }
  ctx.graph_recycler->fit(*g);
  return g;
}

std::unique_ptr<DeviceCsr> pcc_graph_device(const ContextState& ctx, const SeriesData& s, const fc_edge_rule& rule,
                                            double param, int weights) {
  const Rule r = validate_rule(rule, param);
  validate_weights(weights);
  if (s.n < 2 || !is_threshold(r)) return nullptr;
  Progress progress = ctx.make_progress(triu_count(s.n));
  return ctx.backend->threshold_graph_device(s.view(), threshold_test(r), weights, ctx.run_settings(progress));
}

std::shared_ptr<GraphData> graph_from_device(const ContextState& ctx, DeviceCsr& csr, const std::function<void()>& meanwhile) {
  auto g = std::make_shared<GraphData>();
  g->recycler = ctx.graph_recycler;
  ctx.graph_recycler->take(*g);
  ctx.backend->copy_device_csr(csr, *g, meanwhile);
  g->n = csr.n;
  g->n_edges = csr.n_edges;
  ctx.graph_recycler->fit(*g);
  return g;
}

void require_graph_request(const fc_edge_rule& rule, double param, int weights) {
  validate_rule(rule, param);
  validate_weights(weights);
}

void pcc_degree(const ContextState& ctx, const SeriesData& s, const fc_edge_rule& rule, double param, int64_t* degree,
                double* strength) {
  const Rule r = validate_rule(rule, param);
  if (degree == nullptr && strength == nullptr) return;
  const int64_t n = s.n;
  const int kind = raw_enum(rule);
  if (kind == FC_EDGE_ABS_THRESHOLD || kind == FC_EDGE_THRESHOLD) {
    if (n < 2) {
      if (degree != nullptr) std::fill(degree, degree + n, int64_t(0));
      if (strength != nullptr) std::fill(strength, strength + n, 0.0);
      return;
    }
    Progress progress = ctx.make_progress(triu_count(n));
    ctx.backend->threshold_degree(s.view(), EdgeTest{kind == FC_EDGE_ABS_THRESHOLD, float_threshold(param)}, degree, strength,
                                  ctx.run_settings(progress));
    return;
  }
  // Density and top-k are not local to a pair: through the graph's edges, summed in CSR row
  // order (each row's lower neighbours arrive before its upper ones, both ascending).
  const UpperEdges e = edges_of(ctx, s, r);
  std::vector<int64_t> d(static_cast<size_t>(n), 0);
  std::vector<double> w(static_cast<size_t>(n), 0.0);
  int64_t x = 0;
  for (int64_t u = 0; u < n; ++u)
    for (int64_t m = 0; m < e.row_count[static_cast<size_t>(u)]; ++m, ++x) {
      const int64_t v = e.columns[static_cast<size_t>(x)];
      const double a = std::fabs(static_cast<double>(e.values[static_cast<size_t>(x)]));
      ++d[static_cast<size_t>(u)];
      ++d[static_cast<size_t>(v)];
      w[static_cast<size_t>(u)] += a;
      w[static_cast<size_t>(v)] += a;
    }
  if (degree != nullptr) std::copy(d.begin(), d.end(), degree);
  if (strength != nullptr) std::copy(w.begin(), w.end(), strength);
}

std::shared_ptr<GraphData> graph_from_csr(int64_t n, const int64_t* offsets, const int64_t* columns, const float* weights) {
  if (n < 0) fail(FC_ERR_INVALID_ARG, "n_nodes " + std::to_string(n) + " is negative");
  require_not_null(offsets, "row_offsets");
  if (offsets[0] != 0) fail(FC_ERR_INVALID_ARG, "row_offsets[0] is " + std::to_string(offsets[0]) + ", not 0");
  for (int64_t i = 0; i < n; ++i)
    if (offsets[i + 1] < offsets[i])
      fail(FC_ERR_INVALID_ARG, "row_offsets[" + std::to_string(i + 1) + "] = " + std::to_string(offsets[i + 1]) +
                                   " is smaller than row_offsets[" + std::to_string(i) + "] = " + std::to_string(offsets[i]));
  const int64_t nnz = offsets[n];
  if (nnz > 0) require_not_null(columns, "columns");
  auto entry = [](int64_t x, int64_t i) { return "columns[" + std::to_string(x) + "] (row " + std::to_string(i) + ")"; };
  for (int64_t i = 0; i < n; ++i)
    for (int64_t x = offsets[i]; x < offsets[i + 1]; ++x) {
      const int64_t j = columns[x];
      if (j < 0 || j >= n)
        fail(FC_ERR_INVALID_ARG, entry(x, i) + " = " + std::to_string(j) + " is outside [0, " + std::to_string(n) + ")");
      if (j == i) fail(FC_ERR_INVALID_ARG, entry(x, i) + " = " + std::to_string(j) + " is a self-loop");
      if (x > offsets[i] && j <= columns[x - 1])
        fail(FC_ERR_INVALID_ARG, entry(x, i) + " = " + std::to_string(j) + " is not greater than the column before it (" +
                                     std::to_string(columns[x - 1]) + "): columns must be sorted and unique within a row");
      if (weights != nullptr && !std::isfinite(weights[x]))
        fail(FC_ERR_INVALID_ARG, "weights[" + std::to_string(x) + "] (row " + std::to_string(i) + ") is not finite");
    }
  // Every entry's mirror, in one pass (a binary search per entry took 5 s for 36 M entries): rows
  // in order, row j's lower entries (columns < j, ascending) are the mirrors of the upper entries
  // (i, j) of rows i < j in the order those rows come, so a cursor per row walks them. A lower
  // entry the cursor passes unmatched is remembered (its row's first), and reported when its row
  // comes: the first failing entry in entry order is the one reported, as a search per entry would.
  std::vector<int64_t> cursor(offsets, offsets + n), unmatched(static_cast<size_t>(n), -1);
  auto no_mirror = [&](int64_t x, int64_t i) {
    const int64_t j = columns[x];
    fail(FC_ERR_INVALID_ARG, entry(x, i) + " = " + std::to_string(j) + ": the entry (" + std::to_string(i) + ", " +
                                 std::to_string(j) + ") has no mirror (" + std::to_string(j) + ", " + std::to_string(i) + ")");
  };
  for (int64_t i = 0; i < n; ++i) {
    // Row i's lower entries were all matched by rows 0 .. i-1, unless one was passed or is left.
    const int64_t left = cursor[static_cast<size_t>(i)];
    const int64_t first_left = left < offsets[i + 1] && columns[left] < i ? left : -1;
    const int64_t passed = unmatched[static_cast<size_t>(i)];
    if (passed >= 0 || first_left >= 0) no_mirror(passed >= 0 ? passed : first_left, i);
    for (int64_t x = offsets[i]; x < offsets[i + 1]; ++x) {
      const int64_t j = columns[x];
      if (j < i) continue;
      int64_t& at = cursor[static_cast<size_t>(j)];
      const int64_t end = offsets[j + 1];
      while (at < end && columns[at] < i) {  // (j, columns[at]) had no mirror in its row
        if (unmatched[static_cast<size_t>(j)] < 0) unmatched[static_cast<size_t>(j)] = at;
        ++at;
      }
      if (at == end || columns[at] != i) no_mirror(x, i);
      if (weights != nullptr && weights[at] != weights[x])
        fail(FC_ERR_INVALID_ARG, "weights[" + std::to_string(x) + "] of the entry (" + std::to_string(i) + ", " + std::to_string(j) +
                                     ") is " + exact_text(weights[x]) + " but its mirror's weight is " + exact_text(weights[at]));
      ++at;
    }
  }
  auto g = std::make_shared<GraphData>();
  g->n = n;
  g->n_edges = nnz / 2;
  g->offsets.assign(offsets, offsets + n + 1);
  g->columns.assign(columns, columns + nnz);
  if (weights != nullptr) g->weights.assign(weights, weights + nnz);
  else g->weights.assign(static_cast<size_t>(nnz), 1.0f);
  return g;
}

void graph_csr(const GraphData& g, int64_t* offsets, int64_t* columns, float* weights, int64_t capacity) {
  require_not_null(offsets, "row_offsets");
  require_not_null(columns, "columns");
  const int64_t nnz = 2 * g.n_edges;
  if (capacity < nnz)
    fail(FC_ERR_BUFFER_TOO_SMALL, "capacity " + std::to_string(capacity) + " is smaller than the " + std::to_string(nnz) +
                                      " CSR entries (2 x " + std::to_string(g.n_edges) + " edges, fc_graph_info)");
  std::copy(g.offsets.begin(), g.offsets.end(), offsets);
  std::copy(g.columns.begin(), g.columns.end(), columns);
  if (weights != nullptr) std::copy(g.weights.begin(), g.weights.end(), weights);
}

void graph_edges(const GraphData& g, int64_t* i, int64_t* j, float* weights, int64_t capacity) {
  require_not_null(i, "i");
  require_not_null(j, "j");
  if (capacity < g.n_edges)
    fail(FC_ERR_BUFFER_TOO_SMALL, "capacity " + std::to_string(capacity) + " is smaller than the " + std::to_string(g.n_edges) +
                                      " edges (fc_graph_info)");
  int64_t e = 0;
  for (int64_t u = 0; u < g.n; ++u)
    for (int64_t x = g.offsets[static_cast<size_t>(u)]; x < g.offsets[static_cast<size_t>(u) + 1]; ++x) {
      const int64_t v = g.columns[static_cast<size_t>(x)];
      if (v <= u) continue;
      i[e] = u;
      j[e] = v;
      if (weights != nullptr) weights[e] = g.weights[static_cast<size_t>(x)];
      ++e;
    }
}

}  // namespace fc
