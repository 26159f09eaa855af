// Eigenvector centrality (centrality.hpp): the operators, the eigensolve and the scaling the
// header documents.
#include "centrality/centrality.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "base/parallel_team.hpp"
#include "modules/leading_eigen.hpp"

namespace fc {
namespace {

void require_capacity(const double* centrality, int64_t capacity, int64_t n) {
  require_not_null(centrality, "centrality");
  if (capacity < n)
    fail(FC_ERR_BUFFER_TOO_SMALL, "capacity " + std::to_string(capacity) + " is below the " + std::to_string(n) +
                                      " values needed (one per node)");
}

// Both eigensolves' options: the same on every backend, so the same products and bits.
EigenOptions solve_options(double tolerance, int threads) {
  EigenOptions options;
  options.max_products = kCentralityMaxProducts;
  options.tolerance = tolerance;
  options.threads = threads;
  options.max_basis = 32;
  return options;
}

// The Lanczos answer as the header promises it: sign such that the entries sum to >= 0 (for a
// non-negative matrix the leading eigenvector has one sign), rounding's negatives set to 0.
EigenResult solve(int64_t n, EigenSpace& space, double tolerance, int threads, const char* what) {
  EigenResult r = leading_eigenpair(n, space, solve_options(tolerance, threads));
  if (!r.converged)
    fail(FC_ERR_INTERNAL, std::string(what) + ": the eigensolve did not meet its residual test " + exact_text(tolerance) +
                              " after " + std::to_string(r.iterations) + " products (residual " +
                              exact_text(r.residual) + "); a larger tolerance may do");
  double sum = 0;
  for (double v : r.vector) sum += v;
  const double sign = sum < 0 ? -1.0 : 1.0;
  for (double& v : r.vector) v = std::max(0.0, sign * v);
  return r;
}

}  // namespace

double centrality_tolerance(double tolerance) {
  if (tolerance == 0) return kCentralityDefaultTolerance;
  if (!(tolerance >= kCentralityMinTolerance && tolerance <= kCentralityMaxTolerance))
    fail(FC_ERR_INVALID_ARG, "tolerance is " + exact_text(tolerance) + "; expected 0 (the default, " +
                                 exact_text(kCentralityDefaultTolerance) + ") or a value in [" +
                                 exact_text(kCentralityMinTolerance) + ", " + exact_text(kCentralityMaxTolerance) + "]");
  return tolerance;
}

void fast_ecm(const ContextState& ctx, const SeriesData& s, double tolerance, double* centrality, int64_t capacity,
              double* eigenvalue) {
  tolerance = centrality_tolerance(tolerance);
  require_capacity(centrality, capacity, s.n);
  const int64_t n = s.n;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  // m: the series in the matrix (header: all of them under FC_CONSTANT_ZERO, the non-constant ones
  // under FC_CONSTANT_NAN). Constant rows of Z are zero, so only the +1 term needs m.
  const bool drop_constant = ctx.constant_policy == FC_CONSTANT_NAN && s.n_constant > 0;
  if (drop_constant && s.n_constant == n) {
    std::fill(centrality, centrality + n, nan);
    if (eigenvalue != nullptr) *eigenvalue = nan;
    return;
  }
  std::vector<double> member(static_cast<size_t>(n), 1.0);
  if (drop_constant)
    for (int64_t i = 0; i < n; ++i) member[i] = s.constant[i] ? 0.0 : 1.0;

  Progress progress = ctx.make_progress(kCentralityMaxProducts);
  const RunSettings run = ctx.run_settings(progress);
  const SeriesView view = s.view();
  Backend& backend = *s.backend;
  const int threads = ctx.threads;
  // B x = (Z (Z^T x) + m (m^T x)) / 2, O(N T) (Wink et al. 2012, eq. 4): on the backend's device
  // where it offers the whole eigensolve (the same bits, centrality_backend.hpp), else on the host
  // around its products.
  const SymmetricOperator op = [&](const double* x, double* y) {
    backend.gram_product(view, x, y, run);
    const double ones = deterministic_dot(member.data(), x, n, threads);
    for (int64_t i = 0; i < n; ++i) y[i] = (y[i] + member[i] * ones) * 0.5;
    progress.advance(1);
  };
  HostSpace host(op, threads);
  const std::unique_ptr<EigenSpace> device =
      backend.gram_space(view, member.data(), eigen_slots(n, solve_options(tolerance, threads)), run);
  const EigenResult r = solve(n, device ? *device : static_cast<EigenSpace&>(host), tolerance, threads, "fast ECM");
  for (int64_t i = 0; i < n; ++i) centrality[i] = drop_constant && s.constant[i] ? nan : r.vector[i];
  if (eigenvalue != nullptr) *eigenvalue = r.value;
}

void graph_eigenvector_centrality(const ContextState& ctx, const GraphData& g, int weighted, double tolerance,
                                  double* centrality, int64_t capacity, double* eigenvalue) {
  if (weighted != 0 && weighted != 1)
    fail(FC_ERR_INVALID_ARG, "weighted is " + std::to_string(weighted) + "; expected 0 (every edge 1) or 1 (the weights)");
  tolerance = centrality_tolerance(tolerance);
  require_capacity(centrality, capacity, g.n);
  const int64_t n = g.n;
  const bool use_weights = weighted == 1 && !g.weights.empty();
  if (use_weights) {
    for (int64_t i = 0; i < n; ++i)
      for (int64_t e = g.offsets[i]; e < g.offsets[i + 1]; ++e)
        if (!(g.weights[e] >= 0))
          fail(FC_ERR_INVALID_ARG, "edge (" + std::to_string(i) + ", " + std::to_string(g.columns[e]) + ") has weight " +
                                       exact_text(g.weights[e]) +
                                       "; eigenvector centrality needs weights >= 0 (Perron-Frobenius): pass weighted = 0, "
                                       "or build the graph with FC_GRAPH_WEIGHTED_ABS or FC_EDGE_THRESHOLD at t >= 0");
  }
  if (g.n_edges == 0) {  // A = 0: igraph's answer
    std::fill(centrality, centrality + n, 1.0);
    if (eigenvalue != nullptr) *eigenvalue = 0;
    return;
  }
  const int threads = ctx.threads > 0 ? ctx.threads : omp_get_max_threads();
  const int team = parallel_team(g.offsets[n] + n, threads);
  Progress progress = ctx.make_progress(kCentralityMaxProducts);
  // y = A x, each row's sum in column order: the same bits for any thread count.
  const SymmetricOperator op = [&](const double* x, double* y) {
#pragma omp parallel for schedule(static) num_threads(team)
    for (int64_t i = 0; i < n; ++i) {
      double sum = 0;
      for (int64_t e = g.offsets[i]; e < g.offsets[i + 1]; ++e)
        sum += (use_weights ? static_cast<double>(g.weights[e]) : 1.0) * x[g.columns[e]];
      y[i] = sum;
    }
    progress.advance(1);
  };
  HostSpace space(op, ctx.threads);
  const EigenResult r = solve(n, space, tolerance, ctx.threads, "eigenvector centrality");
  const double top = *std::max_element(r.vector.begin(), r.vector.end());
  for (int64_t i = 0; i < n; ++i) centrality[i] = r.vector[i] / top;
  if (eigenvalue != nullptr) *eigenvalue = r.value;
}

void thresholded_ecm(const ContextState& ctx, const SeriesData& s, const fc_edge_rule& rule, double param, int weights,
                     double tolerance, double* centrality, int64_t capacity, double* eigenvalue) {
  // Checked before the graph is built, so that a bad argument costs nothing.
  centrality_tolerance(tolerance);
  require_capacity(centrality, capacity, s.n);
  const std::shared_ptr<GraphData> g = pcc_graph(ctx, s, rule, param, weights);
  // Into a scratch vector: the caller's buffer is written only once the answer is complete.
  std::vector<double> c(static_cast<size_t>(s.n));
  double lambda = 0;
  graph_eigenvector_centrality(ctx, *g, weights == FC_GRAPH_BINARY ? 0 : 1, tolerance, c.data(), s.n, &lambda);
  // A node without edges has 0 in the leading eigenvector of a graph with edges; the eigensolve
  // leaves it its start vector's share (about 1e-16), which a map should not show.
  if (g->n_edges > 0)
    for (int64_t i = 0; i < s.n; ++i)
      if (g->offsets[i + 1] == g->offsets[i]) c[i] = 0;
  double norm = 0;
  for (double v : c) norm += v * v;
  norm = std::sqrt(norm);
  for (int64_t i = 0; i < s.n; ++i) centrality[i] = c[i] / norm;
  if (eigenvalue != nullptr) *eigenvalue = lambda;
}

}  // namespace fc
