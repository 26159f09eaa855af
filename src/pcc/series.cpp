#include "pcc/series.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "base/error.hpp"
#include "base/parallel_team.hpp"

namespace fc {
namespace {

constexpr int64_t kMaxSeries = 2147483647;  // 2^31 - 1

void validate_shape(int64_t n, int64_t t, int64_t ss, int64_t ts) {
  if (n < 1) fail(FC_ERR_INVALID_ARG, "n_series is " + std::to_string(n) + "; at least 1 series is needed");
  if (t < 2) fail(FC_ERR_INVALID_ARG, "n_time is " + std::to_string(t) + "; a correlation needs at least 2 time points");
  // Before anything is read or allocated: series indices are int32 on the GPU (cuBLAS) and the
  // normalized rows (n x t float64 while they are made) must be addressable.
  if (n > kMaxSeries)
    fail(FC_ERR_INVALID_ARG, "n_series " + std::to_string(n) + " exceeds " + std::to_string(kMaxSeries) +
                                 ", the most series fastconn takes in one set (split the set: fc_pcc_cross of two sets "
                                 "gives the pairs between them)");
  if (static_cast<long double>(n) * static_cast<long double>(t) * 8.0L >= 9.2e18L)
    fail(FC_ERR_INVALID_ARG, "n_series x n_time = " + std::to_string(n) + " x " + std::to_string(t) +
                                 " values exceed what can be addressed");
  if (ss < 1 || ts < 1)
    fail(FC_ERR_INVALID_ARG, "strides must be >= 1 (series_stride " + std::to_string(ss) + ", time_stride " +
                                 std::to_string(ts) + ")");
  // One dimension must nest in the other, or two elements would share an address. Compare in
  // long double: a product can pass 2^63 only when the layout is invalid anyway.
  const long double series_span = static_cast<long double>(ts) * static_cast<long double>(t);
  const long double time_span = static_cast<long double>(ss) * static_cast<long double>(n);
  const bool series_outer = (n == 1) || static_cast<long double>(ss) >= series_span;
  const bool time_outer = static_cast<long double>(ts) >= time_span;
  if (!series_outer && !time_outer)
    fail(FC_ERR_INVALID_ARG, "strides (series_stride " + std::to_string(ss) + ", time_stride " + std::to_string(ts) +
                                 ") make elements of " + std::to_string(n) + " x " + std::to_string(t) +
                                 " overlap; expected series_stride >= n_time * time_stride or time_stride >= n_series * series_stride");
  const long double last = static_cast<long double>(n - 1) * ss + static_cast<long double>(t - 1) * ts;
  if (last >= 9.2e18L) fail(FC_ERR_INVALID_ARG, "strides address past 2^63 elements");
}

// Normalizes one series into z (t values): z = (x - mean) / ||x - mean||, float64 throughout.
// Returns 1 if the series is constant (z = 0), 0 otherwise, or -1 - k if x[k] is not finite.
template <class T>
int64_t normalize_one(const T* x, int64_t t, int64_t ts, double* z) {
  double sum = 0.0;
  bool all_equal = true;
  const T first = x[0];
  for (int64_t k = 0; k < t; ++k) {
    const double v = static_cast<double>(x[k * ts]);
    if (!std::isfinite(v)) return -1 - k;
    all_equal = all_equal && (x[k * ts] == first);
    z[k] = v;
    sum += v;
  }
  // Exact equality, not a variance threshold: a computed mean of equal values can differ from
  // them in the last bit, which would leave tiny deviations and garbage correlations.
  if (all_equal) {
    std::fill(z, z + t, 0.0);
    return 1;
  }
  const double mean = sum / static_cast<double>(t);
  double ss = 0.0;
  for (int64_t k = 0; k < t; ++k) {
    z[k] -= mean;
    ss += z[k] * z[k];
  }
  const double inv = 1.0 / std::sqrt(ss);
  for (int64_t k = 0; k < t; ++k) z[k] *= inv;
  return 0;
}

// Spearman: z = the average ranks of x (1 .. t; equal values, compared exactly, share the mean
// of their positions, as scipy.stats.spearmanr), then normalized as any series. Returns as
// normalize_one. order: t scratch indices.
template <class T>
int64_t rank_one(const T* x, int64_t t, int64_t ts, double* z, std::vector<int64_t>& order) {
  for (int64_t k = 0; k < t; ++k)
    if (!std::isfinite(static_cast<double>(x[k * ts]))) return -1 - k;
  order.resize(static_cast<size_t>(t));
  for (int64_t k = 0; k < t; ++k) order[k] = k;
  std::sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return x[a * ts] < x[b * ts]; });
  for (int64_t first = 0; first < t;) {
    int64_t last = first;  // the tie group [first, last]
    while (last + 1 < t && x[order[last + 1] * ts] == x[order[first] * ts]) ++last;
    const double rank = 0.5 * static_cast<double>(first + last) + 1.0;
    for (int64_t p = first; p <= last; ++p) z[order[p]] = rank;
    first = last + 1;
  }
  return normalize_one(z, t, 1, z);
}

}  // namespace

template <class T>
std::shared_ptr<SeriesData> create_series(const ContextState& ctx, const T* data, int64_t n, int64_t t, int64_t ss,
                                          int64_t ts, bool ranked) {
  require_not_null(data, "data");
  validate_shape(n, t, ss, ts);

  auto s = std::make_shared<SeriesData>();
  s->backend = ctx.backend;
  s->n = n;
  s->t = t;
  s->precision = ctx.precision;
  s->ranked = ranked;
  s->constant.assign(static_cast<size_t>(n), 0);
  s->storage = ctx.backend->create_series(n, t, ctx.precision);

  // Normalize in chunks of about 32 MiB of float64 so huge inputs never need an N x T double copy.
  const int64_t chunk = std::max<int64_t>(1, (int64_t(32) << 20) / (8 * t));
  std::vector<double> z(static_cast<size_t>(std::min(chunk, n) * t));
  std::vector<int64_t> code(static_cast<size_t>(std::min(chunk, n)));
  for (int64_t begin = 0; begin < n; begin += chunk) {
    const int64_t rows = std::min(chunk, n - begin);
    // Rows are independent: a team only for enough of them (a few passes over each sample; ranking
    // sorts each row too).
    const int team = parallel_team(rows * t * 4, ctx.threads, rows);
#pragma omp parallel num_threads(team) if (team > 1)
    {
      std::vector<int64_t> order;  // rank_one's scratch, one per thread
#pragma omp for schedule(static)
      for (int64_t r = 0; r < rows; ++r)
        code[r] = ranked ? rank_one(data + (begin + r) * ss, t, ts, z.data() + r * t, order)
                         : normalize_one(data + (begin + r) * ss, t, ts, z.data() + r * t);
    }
    for (int64_t r = 0; r < rows; ++r) {
      if (code[r] < 0) {
        const int64_t k = -1 - code[r];
        const double v = static_cast<double>(data[(begin + r) * ss + k * ts]);
        std::ostringstream msg;
        msg << "series " << (begin + r) << " has a non-finite value (" << v << ") at time point " << k
            << " (indices from 0); remove or interpolate it before computing correlations";
        fail(FC_ERR_NONFINITE_INPUT, msg.str());
      }
      if (code[r] == 1) {
        s->constant[begin + r] = 1;
        ++s->n_constant;
      }
    }
    ctx.backend->upload_rows(*s->storage, begin, rows, z.data());
  }
  return s;
}

template std::shared_ptr<SeriesData> create_series<float>(const ContextState&, const float*, int64_t, int64_t, int64_t,
                                                          int64_t, bool);
template std::shared_ptr<SeriesData> create_series<double>(const ContextState&, const double*, int64_t, int64_t,
                                                           int64_t, int64_t, bool);

void require_same_backend(const ContextState& ctx, const SeriesData& s, const char* argument) {
  if (s.backend != ctx.backend)
    fail(FC_ERR_INVALID_ARG, std::string(argument) + " was created by another context; series can only be used with the context that created them");
}

}  // namespace fc
