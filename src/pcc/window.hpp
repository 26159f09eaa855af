// Sliding windows: validation of a window spec, the taper weights, the window count and begins,
// and a window of a series as a series of its own (normalized by the backend from the parent's
// stored rows: Pearson r does not see a series' offset or scale, so nothing raw is kept).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "context/context.hpp"
#include "pcc/series.hpp"

namespace fc {

// floor((n_time - length) / step) + 1, or -1 unless 2 <= length <= n_time and step >= 1.
int64_t window_count(int64_t n_time, int64_t length, int64_t step);
// index * step, or -1 unless 0 <= index < window_count(...).
int64_t window_begin(int64_t n_time, int64_t length, int64_t step, int64_t index);

// The taper argument as a C caller passed it, checked: FC_TAPER_RECTANGULAR or FC_TAPER_GAUSSIAN,
// and sigma > 0 and finite for the Gaussian one (sigma is not read otherwise).
void require_taper(int taper, double sigma);

// Throws FC_ERR_INVALID_ARG naming the value unless 2 <= length <= n_time and step >= 1.
void require_window_shape(int64_t n_time, int64_t length, int64_t step);

// The weights of `length` samples (fastconn.h, fc_taper): empty for the rectangular taper (all 1).
std::vector<double> taper_weights(int taper, double sigma, int64_t length);

// The window [begin, begin + length) of `parent` (fc_series_window): validates everything, then
// asks the backend to normalize it. A window of a window is a window of the root series (begins
// add up; the parent window's taper is not applied again), and keeps the root alive.
std::shared_ptr<SeriesData> create_window_series(const ContextState& ctx, const std::shared_ptr<const SeriesData>& parent,
                                                 int64_t begin, int64_t length, int taper, double sigma);

// The window [begin, begin + length) of the root series `root` (begin absolute, arguments
// already checked), normalized by `backend` alone from `stored`, the root's rows as that backend
// keeps them; `weights` from taper_weights. create_window_series is this with the root's own
// backend; a context over several parts makes a window on one part with it (dfc/window_graphs.hpp).
std::shared_ptr<SeriesData> window_on(const ContextState& ctx, const std::shared_ptr<const SeriesData>& root,
                                      const std::shared_ptr<Backend>& backend, const SeriesView& stored, int64_t begin,
                                      int64_t length, const std::vector<double>& weights);

// The root series and absolute begin of `s`: itself and 0 unless it is a window.
std::shared_ptr<const SeriesData> window_root(const std::shared_ptr<const SeriesData>& s, int64_t* begin);

// A validated all-windows spec over a series of n_time samples.
struct WindowSpec {
  int64_t length = 0;
  int64_t step = 0;
  int taper = 0;
  double sigma = 0.0;
  int64_t count = 0;  // W
  WindowSpec(int64_t n_time, int64_t length, int64_t step, int taper, double sigma);
  int64_t begin(int64_t k) const { return k * step; }
};

}  // namespace fc
