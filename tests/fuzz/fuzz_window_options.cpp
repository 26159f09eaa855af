// The window arithmetic and fc_series_window on arbitrary arguments: fc_window_count and
// fc_window_begin on any int64 (consistent with each other, never overflowing), and windows of a
// small fixed series with any begin, length, taper and sigma (NaN, Inf, negative, huge).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "fastconn/fastconn.h"
#include "fuzz_input.hpp"

namespace {

constexpr int64_t kSeries = 5, kTime = 40;

void require(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "fuzz_window_options: %s (fc_last_error: %s)\n", what, fc_last_error());
    std::abort();
  }
}

struct Fixture {
  fc_context* ctx = nullptr;
  fc_series* series = nullptr;
  Fixture() {
    std::vector<double> x(static_cast<size_t>(kSeries * kTime));
    for (size_t k = 0; k < x.size(); ++k) x[k] = std::sin(0.37 * static_cast<double>(k * k % 101)) + 0.01 * static_cast<double>(k % 7);
    require(fc_context_create(FC_BACKEND_CPU, -1, &ctx) == FC_OK, "fc_context_create");
    require(fc_context_set_threads(ctx, 1) == FC_OK, "fc_context_set_threads");
    require(fc_series_create_f64(ctx, x.data(), kSeries, kTime, kTime, 1, &series) == FC_OK, "fc_series_create_f64");
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static Fixture f;
  FuzzInput in(data, size);

  // arithmetic on any int64
  const int64_t n_time = in.size_like(200), length = in.size_like(200), step = in.size_like(50), index = in.size_like(100);
  const int64_t count = fc_window_count(n_time, length, step);
  require(count >= -1, "fc_window_count below -1");
  if (count == -1) {
    require(fc_window_begin(n_time, length, step, 0) == -1, "a begin without windows");
  } else {
    require(count >= 1, "fc_window_count of valid arguments is 0");
    const int64_t last = fc_window_begin(n_time, length, step, count - 1);
    require(last >= 0 && last <= n_time - length, "the last window does not fit");
    require(fc_window_begin(n_time, length, step, count) == -1, "a window past the last");
    require(fc_window_begin(n_time, length, step, -1) == -1, "a window at -1");
    const int64_t b = fc_window_begin(n_time, length, step, index);
    require(index < 0 || index >= count ? b == -1 : (b >= 0 && b <= n_time - length), "fc_window_begin of an index");
  }

  // a window of the fixed series
  const int64_t begin = in.size_like(kTime), wlength = in.size_like(kTime);
  const int taper = in.take<uint8_t>() < 200 ? in.take<uint8_t>() % 3 : in.take<int>();
  const double sigma = in.take<uint8_t>() < 128 ? static_cast<double>(in.take<uint8_t>()) / 8.0 : in.take<double>();
  fc_series* untouched = reinterpret_cast<fc_series*>(&in);
  fc_series* w = untouched;
  const fc_status status = fc_series_window(f.ctx, f.series, begin, wlength, taper, sigma, &w);
  if (status != FC_OK) {
    require(status == FC_ERR_INVALID_ARG, "unexpected status");
    require(w == untouched, "a failed call wrote its output");
    return 0;
  }
  require(begin >= 0 && wlength >= 2 && begin + wlength <= kTime, "a window outside the series was accepted");
  int64_t n = 0, t = 0;
  require(fc_series_info(w, &n, &t, nullptr) == FC_OK && n == kSeries && t == wlength, "fc_series_info of a window");
  std::vector<float> r(static_cast<size_t>(fc_triu_size(kSeries)));
  require(fc_pcc_triu(f.ctx, w, FC_TRIU_ROW, r.data(), fc_triu_size(kSeries)) == FC_OK, "fc_pcc_triu of a window");
  for (float v : r) require(std::isnan(v) || (v >= -1.0f && v <= 1.0f), "r outside [-1, 1]");
  fc_series_destroy(w);
  return 0;
}
