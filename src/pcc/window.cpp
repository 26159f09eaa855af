#include "pcc/window.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "base/error.hpp"

namespace fc {
namespace {

// Where a window came from. SeriesData has no field for it, so the window's shared_ptr carries
// it as its deleter (std::get_deleter finds it again); holding the root also keeps the root's
// storage alive for windows of this window.
struct WindowOrigin {
  std::shared_ptr<const SeriesData> root;
  int64_t begin = 0;
  void operator()(SeriesData* s) const { delete s; }
};

}  // namespace

int64_t window_count(int64_t n_time, int64_t length, int64_t step) {
  if (length < 2 || length > n_time || step < 1) return -1;
  return (n_time - length) / step + 1;  // n_time - length >= 0: no overflow, and the +1 fits
}

int64_t window_begin(int64_t n_time, int64_t length, int64_t step, int64_t index) {
  const int64_t count = window_count(n_time, length, step);
  if (count < 0 || index < 0 || index >= count) return -1;
  return index * step;  // <= n_time - length
}

void require_taper(int taper, double sigma) {
  if (taper != FC_TAPER_RECTANGULAR && taper != FC_TAPER_GAUSSIAN)
    fail(FC_ERR_INVALID_ARG,
         "taper " + std::to_string(taper) + " is not FC_TAPER_RECTANGULAR (0) or FC_TAPER_GAUSSIAN (1)");
  if (taper == FC_TAPER_GAUSSIAN && !(sigma > 0.0 && std::isfinite(sigma)))
    fail(FC_ERR_INVALID_ARG, "sigma " + exact_text(sigma) + " of the Gaussian taper must be > 0 and finite (in samples)");
}

void require_window_shape(int64_t n_time, int64_t length, int64_t step) {
  if (length < 2)
    fail(FC_ERR_INVALID_ARG, "window length " + std::to_string(length) + " is below 2; a correlation needs 2 time points");
  if (length > n_time)
    fail(FC_ERR_INVALID_ARG,
         "window length " + std::to_string(length) + " exceeds the series' n_time " + std::to_string(n_time));
  if (step < 1) fail(FC_ERR_INVALID_ARG, "window step " + std::to_string(step) + " is below 1");
}

std::vector<double> taper_weights(int taper, double sigma, int64_t length) {
  if (taper != FC_TAPER_GAUSSIAN) return {};
  // Allen et al. 2014: the window's rectangle convolved with a Gaussian, kept inside the window.
  std::vector<double> g(static_cast<size_t>(length)), w(static_cast<size_t>(length), 0.0);
  for (int64_t d = 0; d < length; ++d) g[static_cast<size_t>(d)] = std::exp(-double(d) * double(d) / (2.0 * sigma * sigma));
  double top = 0.0;
  for (int64_t k = 0; k < length; ++k) {
    double sum = 0.0;
    for (int64_t j = 0; j < length; ++j) sum += g[static_cast<size_t>(k > j ? k - j : j - k)];
    w[static_cast<size_t>(k)] = sum;
    top = std::max(top, sum);
  }
  for (double& v : w) v /= top;  // every sum holds its own g[0] = 1: top >= 1, all weights > 0
  return w;
}

std::shared_ptr<const SeriesData> window_root(const std::shared_ptr<const SeriesData>& s, int64_t* begin) {
  if (const WindowOrigin* origin = std::get_deleter<WindowOrigin>(s)) {
    *begin = origin->begin;
    return origin->root;
  }
  *begin = 0;
  return s;
}

std::shared_ptr<SeriesData> create_window_series(const ContextState& ctx, const std::shared_ptr<const SeriesData>& parent,
                                                 int64_t begin, int64_t length, int taper, double sigma) {
  require_not_null(parent.get(), "series");
  const int64_t t = parent->t;
  if (length < 2)
    fail(FC_ERR_INVALID_ARG, "window length " + std::to_string(length) + " is below 2; a correlation needs 2 time points");
  if (length > t)
    fail(FC_ERR_INVALID_ARG, "window length " + std::to_string(length) + " exceeds the series' n_time " + std::to_string(t));
  if (begin < 0) fail(FC_ERR_INVALID_ARG, "window begin " + std::to_string(begin) + " is negative");
  if (begin > t - length)
    fail(FC_ERR_INVALID_ARG, "window begin " + std::to_string(begin) + " + length " + std::to_string(length) +
                                 " exceeds the series' n_time " + std::to_string(t));
  require_taper(taper, sigma);

  int64_t root_begin = 0;
  const std::shared_ptr<const SeriesData> root = window_root(parent, &root_begin);
  const std::vector<double> weights = taper_weights(taper, sigma, length);

  return window_on(ctx, root, root->backend, root->view(), root_begin + begin, length, weights);
}

std::shared_ptr<SeriesData> window_on(const ContextState& ctx, const std::shared_ptr<const SeriesData>& root,
                                      const std::shared_ptr<Backend>& backend, const SeriesView& stored, int64_t begin,
                                      int64_t length, const std::vector<double>& weights) {
  std::shared_ptr<SeriesData> w(new SeriesData, WindowOrigin{root, begin});
  w->backend = backend;
  w->n = root->n;
  w->t = length;
  w->precision = root->precision;
  w->constant.assign(static_cast<size_t>(root->n), 0);
  Progress progress = ctx.make_progress(0);  // O(N length): not reported
  w->storage = backend->create_window(stored, begin, length, weights.empty() ? nullptr : weights.data(),
                                      w->constant.data(), ctx.run_settings(progress));
  w->n_constant = std::count_if(w->constant.begin(), w->constant.end(), [](uint8_t c) { return c != 0; });
  return w;
}

WindowSpec::WindowSpec(int64_t n_time, int64_t length_, int64_t step_, int taper_, double sigma_)
    : length(length_), step(step_), taper(taper_), sigma(sigma_) {
  require_window_shape(n_time, length, step);
  require_taper(taper, sigma);
  count = window_count(n_time, length, step);
}

}  // namespace fc
