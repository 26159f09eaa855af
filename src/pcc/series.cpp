#include "pcc/series.hpp"

#include <omp.h>

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
int64_t rank_one(const T* x, int64_t t, int64_t ts, double* z, int64_t* order) {
  for (int64_t k = 0; k < t; ++k)
    if (!std::isfinite(static_cast<double>(x[k * ts]))) return -1 - k;
  for (int64_t k = 0; k < t; ++k) order[k] = k;
  std::sort(order, order + t, [&](int64_t a, int64_t b) { return x[a * ts] < x[b * ts]; });
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

  // Rows are independent: a team only for enough of them (a few passes over each sample; ranking
  // sorts each row too). Each thread's scratch is allocated before the team starts (an allocation
  // failing inside a parallel region could not reach the caller as an error).
  auto team_for = [&](int64_t rows) { return parallel_team(rows * t * 4, ctx.threads, rows); };
  std::vector<int64_t> orders;  // rank_one's t indices per thread
  auto normalize = [&](int64_t row, double* z, int64_t& code) {
    code = ranked ? rank_one(data + row * ss, t, ts, z, orders.data() + omp_get_thread_num() * t)
                  : normalize_one(data + row * ss, t, ts, z);
  };
  auto record = [&](int64_t begin, int64_t rows, const int64_t* code) {
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
  };

  const PccBackend::HostRows host = ctx.backend->host_rows(*s->storage);
  if (host.f64 != nullptr || host.f32 != nullptr) {
    // Rows in host memory: normalized in place (float64 storage) or through one row of float64
    // per thread (float storage), each written by the thread that normalizes it.
    std::vector<int64_t> code(static_cast<size_t>(n));
    const int team = team_for(n);
    if (ranked) orders.resize(static_cast<size_t>(team * t));
    std::vector<double> rows(host.f64 != nullptr ? 0 : static_cast<size_t>(team * t));  // one per thread
#pragma omp parallel for schedule(static) num_threads(team) if (team > 1)
    for (int64_t r = 0; r < n; ++r) {
      if (host.f64 != nullptr) {
        normalize(r, host.f64 + r * t, code[r]);
      } else {
        double* row = rows.data() + omp_get_thread_num() * t;
        normalize(r, row, code[r]);
        std::transform(row, row + t, host.f32 + r * t, [](double v) { return static_cast<float>(v); });
      }
    }
    record(0, n, code.data());
    return s;
  }

  // Elsewhere (device memory): normalized in chunks of about 32 MiB of float64, each uploaded, so
  // huge inputs never need an N x T double copy.
  const int64_t chunk = std::max<int64_t>(1, (int64_t(32) << 20) / (8 * t));
  std::vector<double> z(static_cast<size_t>(std::min(chunk, n) * t));
  std::vector<int64_t> code(static_cast<size_t>(std::min(chunk, n)));
  for (int64_t begin = 0; begin < n; begin += chunk) {
    const int64_t rows = std::min(chunk, n - begin);
    const int team = team_for(rows);
    if (ranked) orders.resize(std::max(orders.size(), static_cast<size_t>(team * t)));
#pragma omp parallel for schedule(static) num_threads(team) if (team > 1)
    for (int64_t r = 0; r < rows; ++r) normalize(begin + r, z.data() + r * t, code[r]);
    record(begin, rows, code.data());
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
