// Thick-restart Lanczos for the leading eigenpair (see leading_eigen.hpp).
#include "modules/leading_eigen.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>

#include "base/parallel_team.hpp"

namespace fc {

namespace {

// The vector operations take parallel_team's threads for their work; the chunked order of every
// sum makes the result the same for any number.
int64_t chunk_count(int64_t n) { return (n + kReductionChunk - 1) / kReductionChunk; }

// sum_i a[i] b[i] over one chunk in a fixed order: kLanes interleaved partial sums (element i
// goes to lane i % kLanes, the tail to lane 0), added pairwise at the end. One running sum would
// wait for every add in turn (a chain of n adds at 4 cycles each); the lanes vectorize and
// overlap, and the order is still fixed, so the bits never depend on threads or scheduling.
constexpr int kLanes = kReductionLanes;
static_assert(kLanes == 8, "chunk_dot's pairwise sum of the lanes is written for 8");
static_assert(kReductionChunk % kLanes == 0, "only the last chunk may have a tail");
inline double chunk_dot(const double* a, const double* b, int64_t n) {
  double acc[kLanes] = {0, 0, 0, 0, 0, 0, 0, 0};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int k = 0; k < kLanes; ++k) acc[k] += a[i + k] * b[i + k];
  for (; i < n; ++i) acc[0] += a[i] * b[i];
  return ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
}

// h[l] = V_l . w for l < cols (V_l = v + l * n), and h[cols] = w . w; fixed chunk order.
void project(const double* v, int64_t cols, const double* w, int64_t n, double* h, std::vector<double>& partial,
             int threads) {
  const int64_t chunks = chunk_count(n), width = cols + 1;
  partial.assign(static_cast<size_t>(chunks * width), 0.0);
  const int team = parallel_team(n * width, threads);
#pragma omp parallel for schedule(static) num_threads(team) if (team > 1)
  for (int64_t c = 0; c < chunks; ++c) {
    const int64_t b = c * kReductionChunk, e = std::min(n, b + kReductionChunk);
    double* p = &partial[static_cast<size_t>(c * width)];
    for (int64_t l = 0; l < cols; ++l) p[l] = chunk_dot(v + l * n + b, w + b, e - b);
    p[cols] = chunk_dot(w + b, w + b, e - b);
  }
  for (int64_t l = 0; l < width; ++l) h[l] = 0;
  for (int64_t c = 0; c < chunks; ++c)
    for (int64_t l = 0; l < width; ++l) h[l] += partial[static_cast<size_t>(c * width + l)];
}

// w -= sum_l h[l] V_l; returns ||w|| after the update (fixed chunk order).
double subtract(const double* v, int64_t cols, const double* h, double* w, int64_t n, std::vector<double>& partial,
                int threads) {
  const int64_t chunks = chunk_count(n);
  partial.assign(static_cast<size_t>(chunks), 0.0);
  const int team = parallel_team(n * (cols + 1), threads);
#pragma omp parallel for schedule(static) num_threads(team) if (team > 1)
  for (int64_t c = 0; c < chunks; ++c) {
    const int64_t b = c * kReductionChunk, e = std::min(n, b + kReductionChunk);
    for (int64_t l = 0; l < cols; ++l) {
      const double* vl = v + l * n;
      const double hl = h[l];
      for (int64_t i = b; i < e; ++i) w[i] -= hl * vl[i];
    }
    partial[static_cast<size_t>(c)] = chunk_dot(w + b, w + b, e - b);
  }
  double s = 0;
  for (int64_t c = 0; c < chunks; ++c) s += partial[static_cast<size_t>(c)];
  return std::sqrt(s);
}

// out[:, c] = sum_l V_l * y[l * ldy + c] for c < k: Ritz vectors from the basis, every element
// summed over l in order (in chunks of elements, so that the inner loop runs along a vector).
void combine(const double* v, int64_t cols, const double* y, int64_t ldy, int64_t k, double* out, int64_t n,
             int threads) {
  const int64_t chunks = chunk_count(n);
  const int team = parallel_team(n * cols * k, threads);
#pragma omp parallel for schedule(static) num_threads(team) if (team > 1)
  for (int64_t ch = 0; ch < chunks; ++ch) {
    const int64_t b = ch * kReductionChunk, e = std::min(n, b + kReductionChunk);
    for (int64_t c = 0; c < k; ++c) {
      double* o = out + c * n;
      for (int64_t i = b; i < e; ++i) o[i] = 0;
      for (int64_t l = 0; l < cols; ++l) {
        const double* vl = v + l * n;
        const double ylc = y[l * ldy + c];
        for (int64_t i = b; i < e; ++i) o[i] += vl[i] * ylc;
      }
    }
  }
}

void scale_vector(double* x, int64_t n, double factor) {
  for (int64_t i = 0; i < n; ++i) x[i] *= factor;
}

}  // namespace

void HostSpace::reserve(int64_t n, int64_t slots) {
  n_ = n;
  data_.assign(static_cast<size_t>(n * slots), 0.0);
}
void HostSpace::upload(int64_t slot, const double* x) { std::copy(x, x + n_, at(slot)); }
void HostSpace::download(int64_t slot, double* x) { std::copy(at(slot), at(slot) + n_, x); }
void HostSpace::apply(int64_t from, int64_t to) { op_(at(from), at(to)); }
void HostSpace::project(int64_t cols, int64_t w, double* h) {
  fc::project(at(0), cols, at(w), n_, h, partial_, threads_());
}
double HostSpace::subtract(int64_t cols, const double* h, int64_t w) {
  return fc::subtract(at(0), cols, h, at(w), n_, partial_, threads_());
}
double HostSpace::dot(int64_t a, int64_t b) { return deterministic_dot(at(a), at(b), n_, threads_()); }
void HostSpace::scale(int64_t slot, double factor) { scale_vector(at(slot), n_, factor); }
void HostSpace::copy(int64_t from, int64_t to) { std::copy(at(from), at(from) + n_, at(to)); }
void HostSpace::subtract_scaled(int64_t x, double alpha, int64_t y) {
  const double* xs = at(x);
  double* ys = at(y);
  for (int64_t i = 0; i < n_; ++i) ys[i] -= alpha * xs[i];
}
void HostSpace::combine(int64_t cols, const double* y, int64_t ldy, int64_t k, int64_t out) {
  fc::combine(at(0), cols, y, ldy, k, at(out), n_, threads_());
}

double deterministic_dot(const double* a, const double* b, int64_t n, int threads) {
  const int64_t chunks = chunk_count(n);
  std::vector<double> partial(static_cast<size_t>(chunks), 0.0);
  const int team = parallel_team(n, threads);
#pragma omp parallel for schedule(static) num_threads(team) if (team > 1)
  for (int64_t c = 0; c < chunks; ++c) {
    const int64_t begin = c * kReductionChunk, e = std::min(n, begin + kReductionChunk);
    partial[static_cast<size_t>(c)] = chunk_dot(a + begin, b + begin, e - begin);
  }
  double s = 0;
  for (double p : partial) s += p;
  return s;
}

EigenResult leading_eigenpair(int64_t n, const SymmetricOperator& op, const EigenOptions& options,
                              const EarlyAccept& accept) {
  HostSpace space(op, options.threads);
  return leading_eigenpair(n, space, options, accept);
}

namespace {

// The basis size m and the Ritz vectors kept at a restart.
int64_t basis_size(int64_t n, const EigenOptions& options) { return std::min(n, std::max<int64_t>(3, options.max_basis)); }
int64_t kept_size(int64_t m, const EigenOptions& options) {
  return std::clamp<int64_t>(options.keep > 0 ? options.keep : m / 2, 1, std::max<int64_t>(1, m - 1));
}

}  // namespace

int64_t eigen_slots(int64_t n, const EigenOptions& options) {
  const int64_t m = basis_size(n, options);
  return m + 4 + kept_size(m, options);  // leading_eigenpair's slots, below
}

EigenResult leading_eigenpair(int64_t n, EigenSpace& space, const EigenOptions& options, const EarlyAccept& accept) {
  const int64_t m = basis_size(n, options);
  const int64_t keep = kept_size(m, options);
  const double tol = options.tolerance;
  bool early = accept && options.early_tolerance > tol;  // until accept has been asked
  const double early_tol = options.early_tolerance;
  double scale = std::max(0.0, options.scale);

  // Slots: the basis v_0 .. v_m, then w, x, B x, and the `keep` Ritz vectors of a restart.
  const int64_t W = m + 1, X = m + 2, BX = m + 3, KEPT = m + 4;
  space.reserve(n, KEPT + keep);
  std::vector<double> h(static_cast<size_t>(m + 2)), h2(static_cast<size_t>(m + 2));
  std::vector<double> proj(static_cast<size_t>(m * m), 0.0);  // H, the projection V^T B V, m x m row-major
  auto H = [&](int64_t r, int64_t c) -> double& { return proj[static_cast<size_t>(r * m + c)]; };

  // Start vector: uniform in [-1, 1) from the seed, plus the warm guess if any (header), normalized.
  {
    SplitMix64 rng(options.seed);
    std::vector<double> start(static_cast<size_t>(n));
    for (double& v : start) v = 2 * rng.uniform() - 1;
    if (options.warm != nullptr) {
      const double guess = deterministic_dot(options.warm, options.warm, n, options.threads);
      if (guess > 0 && std::isfinite(guess)) {
        const double noise = kWarmNoise / std::sqrt(deterministic_dot(start.data(), start.data(), n, options.threads));
        const double unit = 1 / std::sqrt(guess);
        for (int64_t i = 0; i < n; ++i)
          start[static_cast<size_t>(i)] = start[static_cast<size_t>(i)] * noise + options.warm[i] * unit;
      }
    }
    space.upload(0, start.data());
    space.scale(0, 1 / std::sqrt(space.dot(0, 0)));
  }

  EigenResult result;
  std::vector<double> small, theta, y;
  int64_t j = 0, products = 0;
  for (;;) {
    // Expand: w = B v_j, orthogonalized against v_0 .. v_j by classical Gram-Schmidt twice
    // ("twice is enough": Giraud, Langou, Rozloznik 2005). A Lanczos step loses most of the norm in
    // the first pass (B v_j lies mostly along v_j and v_{j-1}), so the test of Daniel, Gragg,
    // Kaufman and Stewart (1976) for repeating it almost always asked for the second pass; doing it
    // always lets a device space answer the whole step with one synchronization.
    space.apply(j, W);
    ++products;
    double beta = space.orthogonalize(j + 1, W, h.data(), h2.data());
    const double norm_before = std::sqrt(h[static_cast<size_t>(j + 1)]);
    for (int64_t l = 0; l <= j; ++l) h[static_cast<size_t>(l)] += h2[static_cast<size_t>(l)];
    for (int64_t l = 0; l <= j; ++l) H(l, j) = H(j, l) = h[static_cast<size_t>(l)];
    ++j;
    // An invariant subspace (or the whole space): the Ritz pairs are exact.
    const bool invariant = j == n || beta <= 1e-13 * std::max(norm_before, scale);
    if (invariant) beta = 0;
    else {
      space.copy_scaled(W, j, 1 / beta);
    }
    const bool out_of_products = products >= options.max_products;
    if (!(invariant || out_of_products || j == m || j % 4 == 0)) continue;

    small.assign(static_cast<size_t>(j * j), 0.0);
    for (int64_t r = 0; r < j; ++r)
      for (int64_t c = 0; c < j; ++c) small[static_cast<size_t>(r * j + c)] = H(r, c);
    symmetric_eigen(small, j, theta, y);
    scale = std::max({scale, std::fabs(theta.front()), std::fabs(theta.back())});
    const double estimate = std::fabs(beta * y[static_cast<size_t>((j - 1) * j)]);
    const double bound = std::fabs(theta.front()) + scale;
    // (a check that only the early test asks for leaves `scale` as it was: a rejected early
    // answer then changes nothing but the count of products)
    const bool check = estimate <= tol * bound || invariant || out_of_products;
    const bool may_answer_early = early && j >= options.early_basis;
    if (check || (may_answer_early && estimate <= early_tol * bound)) {
      // Confirm with an explicit product: x = V y_0, theta = x^T B x, r = B x - theta x.
      space.combine(j, y.data(), j, 1, X);
      space.scale(X, 1 / std::sqrt(space.dot(X, X)));
      space.apply(X, BX);
      ++products;
      const double rayleigh = space.dot(X, BX);
      space.subtract_scaled(X, rayleigh, BX);
      const double residual = std::sqrt(space.dot(BX, BX));
      const double confirmed = std::max(scale, std::fabs(rayleigh));
      if (check) scale = confirmed;
      const bool converged = residual <= tol * (std::fabs(rayleigh) + confirmed);
      const bool final = check && (converged || invariant || products >= options.max_products);
      if (final || (may_answer_early && residual <= early_tol * (std::fabs(rayleigh) + confirmed))) {
        result.value = rayleigh;
        result.residual = residual;
        result.iterations = products;
        result.converged = converged || !final;  // (an early answer met early_tolerance)
        result.vector.resize(static_cast<size_t>(n));
        space.download(X, result.vector.data());
        if (options.want_next && j >= 2) {  // column 1 of y: the second Ritz vector, V y_1
          std::vector<double> second(static_cast<size_t>(j));
          for (int64_t l = 0; l < j; ++l) second[static_cast<size_t>(l)] = y[static_cast<size_t>(l * j + 1)];
          space.combine(j, second.data(), 1, 1, BX);
          result.next.resize(static_cast<size_t>(n));
          space.download(BX, result.next.data());
        }
        int64_t first = 0;
        while (first < n && result.vector[static_cast<size_t>(first)] == 0) ++first;
        if (first < n && result.vector[static_cast<size_t>(first)] < 0) scale_vector(result.vector.data(), n, -1);
        if (final) return result;
        result.early = true;
        early = false;
        if (accept(result)) return result;
        result = EigenResult();  // rejected: on to `tolerance` (the basis, H, theta and y are untouched)
      }
      // No answer yet (the estimate was optimistic, lost orthogonality, or the early answer was
      // rejected): keep iterating.
    }
    if (j < m) continue;

    // Thick restart (Krylov-Schur): keep the `keep` leading Ritz vectors U = V Y_k and the
    // residual direction v_m; then B U = U Theta + v_m (beta y_last^T), so H becomes Theta bordered
    // by beta * (last row of Y_k).
    space.combine(m, y.data(), m, keep, KEPT);
    space.copy(m, keep);
    for (int64_t i = 0; i < keep; ++i) space.copy(KEPT + i, i);
    std::fill(proj.begin(), proj.end(), 0.0);
    for (int64_t i = 0; i < keep; ++i) {
      H(i, i) = theta[static_cast<size_t>(i)];
      H(i, keep) = H(keep, i) = beta * y[static_cast<size_t>((m - 1) * m + i)];
    }
    j = keep;
  }
}

}  // namespace fc
