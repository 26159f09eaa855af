#include "partial/partial.hpp"

#include <algorithm>
#include <cstddef>
#include <limits>
#include <memory>
#include <string>

#include "backend/partial_backend.hpp"
#include "base/error.hpp"
#include "base/huge_pages.hpp"
#include "base/triangle_index.hpp"

namespace fc {
namespace {

void require_shrinkage(double shrinkage) {
  if (shrinkage == FC_SHRINKAGE_LEDOIT_WOLF) return;
  if (!(shrinkage >= 0.0 && shrinkage <= 1.0))
    fail(FC_ERR_INVALID_ARG, "shrinkage " + std::to_string(shrinkage) +
                                 " is outside [0, 1] and is not FC_SHRINKAGE_LEDOIT_WOLF (-1)");
}

void require_output(int output) {
  if (output != FC_PARTIAL_CORRELATION && output != FC_PARTIAL_PRECISION)
    fail(FC_ERR_INVALID_ARG, "output " + std::to_string(output) +
                                 " is neither FC_PARTIAL_CORRELATION (0) nor FC_PARTIAL_PRECISION (1)");
}

// The result's upper triangle (j >= i at m[i * n + j]) from the context's backend; returns the
// intensity used. Scratch, not the caller's buffer: a matrix that turns out not to be positive
// definite must leave the caller's memory as it was.
double compute(const ContextState& ctx, const SeriesData& s, double shrinkage, int output, HugeBuffer<double>& m) {
  require_shrinkage(shrinkage);
  require_output(output);
  const int64_t n = s.n, t = s.t;
  if (s.n_constant > 0) {
    const int64_t first = std::find(s.constant.begin(), s.constant.end(), uint8_t{1}) - s.constant.begin();
    fail(FC_ERR_INVALID_ARG, "series " + std::to_string(first) + " is constant (" + std::to_string(s.n_constant) +
                                 " constant in all): its partial correlations and precision row are undefined; "
                                 "leave constant series out of the set");
  }
  if (n > std::numeric_limits<int>::max() || t > std::numeric_limits<int>::max())
    fail(FC_ERR_INVALID_ARG, "LAPACK, cuBLAS and cuSOLVER take 32-bit sizes; " + std::to_string(n) + " x " +
                                 std::to_string(t) + " series exceed them");
  if (shrinkage == 0.0 && n > t - 1)
    fail(FC_ERR_INVALID_ARG, "shrinkage 0 with " + std::to_string(n) + " series of " + std::to_string(t) +
                                 " samples: the correlation matrix has rank <= n_time - 1 = " + std::to_string(t - 1) +
                                 " and is not positive definite; pass a shrinkage > 0 or FC_SHRINKAGE_LEDOIT_WOLF");
  m = huge_buffer<double>(static_cast<size_t>(n * n));  // not zeroed: every value read is written first
  Progress progress = ctx.make_progress(1);
  const RunSettings run = ctx.run_settings(progress);
  PartialRequest request;
  request.shrinkage = shrinkage;
  request.correlation = output == FC_PARTIAL_CORRELATION;
  return s.backend->partial_upper(s.view(), request, m.get(), run);
}

}  // namespace

void partial_dense(const ContextState& ctx, const SeriesData& s, double shrinkage, int output, double* out, int64_t ld,
                   double* shrinkage_used) {
  require_not_null(out, "out");
  require_shrinkage(shrinkage);
  require_output(output);
  if (ld < s.n)
    fail(FC_ERR_BUFFER_TOO_SMALL, "ld " + std::to_string(ld) + " is smaller than n_series " + std::to_string(s.n));
  HugeBuffer<double> m;
  const double used = compute(ctx, s, shrinkage, output, m);
  const int64_t n = s.n;
  // Each row's upper part as it is; the lower part mirrored a square at a time, so that the
  // column reads of m stay in cache.
  constexpr int64_t kSquare = 64;
  for (int64_t i = 0; i < n; ++i) std::copy(m.get() + i * n + i, m.get() + (i + 1) * n, out + i * ld + i);
  for (int64_t i0 = 0; i0 < n; i0 += kSquare)
    for (int64_t j0 = 0; j0 <= i0; j0 += kSquare)
      for (int64_t i = i0; i < std::min(i0 + kSquare, n); ++i)
        for (int64_t j = j0; j < std::min({j0 + kSquare, i, n}); ++j) out[i * ld + j] = m[j * n + i];
  if (shrinkage_used != nullptr) *shrinkage_used = used;
}

void partial_triu(const ContextState& ctx, const SeriesData& s, double shrinkage, int output, int order, double* out,
                  int64_t capacity, double* shrinkage_used) {
  require_shrinkage(shrinkage);
  require_output(output);
  if (order != FC_TRIU_ROW && order != FC_TRIU_COL)
    fail(FC_ERR_INVALID_ARG, "order " + std::to_string(order) + " is neither FC_TRIU_ROW (0) nor FC_TRIU_COL (1)");
  const int64_t n = s.n, count = triu_count(n);
  if (count > 0) require_not_null(out, "out");
  if (capacity < count)
    fail(FC_ERR_BUFFER_TOO_SMALL, "capacity " + std::to_string(capacity) + " is smaller than the triangle's " +
                                      std::to_string(count) + " values");
  HugeBuffer<double> m;
  const double used = compute(ctx, s, shrinkage, output, m);
  if (order == FC_TRIU_ROW) {
    for (int64_t i = 0; i + 1 < n; ++i)
      std::copy(m.get() + i * n + i + 1, m.get() + (i + 1) * n, out + row_offset(n, i, i + 1));
  } else {
    // A strip of columns at a time: each row of m read once per strip, one cache line of it.
    constexpr int64_t kStrip = 16;
    for (int64_t j0 = 1; j0 < n; j0 += kStrip) {
      const int64_t j1 = std::min(j0 + kStrip, n);
      for (int64_t i = 0; i + 1 < j1; ++i)
        for (int64_t j = std::max(j0, i + 1); j < j1; ++j) out[col_offset(i, j)] = m[i * n + j];
    }
  }
  if (shrinkage_used != nullptr) *shrinkage_used = used;
}

}  // namespace fc
