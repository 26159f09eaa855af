#include "dfc/dfc.hpp"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <exception>
#include <iterator>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "backend/output_values.hpp"
#include "base/error.hpp"
#include "centrality/centrality.hpp"
#include "dfc/lowrank.hpp"
#include "dfc/window_graphs.hpp"
#include "base/parallel_errors.hpp"
#include "base/parallel_team.hpp"
#include "pcc/pcc.hpp"
#include "base/triangle_index.hpp"

namespace fc {
namespace {

// a * b, or FC_ERR_INVALID_ARG naming `what` when it does not fit in int64_t.
int64_t checked_product(int64_t a, int64_t b, const char* what) {
  int64_t p = 0;
  if (__builtin_mul_overflow(a, b, &p))
    fail(FC_ERR_INVALID_ARG, std::string(what) + " (" + std::to_string(a) + " x " + std::to_string(b) + ") overflows int64_t");
  return p;
}

int64_t saturating_product(int64_t a, int64_t b) {
  int64_t p = 0;
  return __builtin_mul_overflow(a, b, &p) ? std::numeric_limits<int64_t>::max() : p;
}

void require_capacity(int64_t capacity, int64_t needed, const std::string& what) {
  if (capacity < needed)
    fail(FC_ERR_BUFFER_TOO_SMALL, "capacity " + std::to_string(capacity) + " is smaller than the " + std::to_string(needed) + " " + what);
}

// One window's share of the job's progress. The per-window calls (pcc_triu, pcc_graph,
// pcc_degree) report in their own units to a context copy whose callback lands here; this maps
// them onto window k's slice [k P, (k + 1) P) of the job's W P units and calls the user.
struct WindowProgress {
  fc_progress_fn fn = nullptr;
  void* user = nullptr;
  int64_t window = 0;
  int64_t per_window = 0;
  int64_t total = 0;

  static int forward(int64_t done, int64_t total, void* self) {
    const auto* p = static_cast<const WindowProgress*>(self);
    const long double fraction = total > 0 ? static_cast<long double>(done) / static_cast<long double>(total) : 1.0L;
    const int64_t into = static_cast<int64_t>(fraction * static_cast<long double>(p->per_window));
    return p->fn(saturating_product(p->window, p->per_window) + std::min(into, p->per_window), p->total, p->user);
  }
};

// The context as window k of a W-window job sees it: same settings, progress mapped.
ContextState window_context(const ContextState& ctx, WindowProgress& map, int64_t k, int64_t windows, int64_t pairs) {
  ContextState c = ctx;
  if (ctx.progress_fn != nullptr) {
    map = WindowProgress{ctx.progress_fn, ctx.progress_user, k, pairs, saturating_product(windows, pairs)};
    c.progress_fn = &WindowProgress::forward;
    c.progress_user = &map;
  }
  return c;
}

// Work units ("rows") of the triangle in `order`: row order's row i holds pairs (i, j > i);
// column order's row j holds pairs (i < j, j). Their ranges and offsets.
int64_t rows_begin(fc_triu_order order) { return order == FC_TRIU_ROW ? 0 : 1; }
int64_t rows_end(int64_t n, fc_triu_order order) { return order == FC_TRIU_ROW ? n - 1 : n; }
int64_t offset_of_row(int64_t n, fc_triu_order order, int64_t r) { return order == FC_TRIU_ROW ? row_start(n, r) : col_start(r); }

// The largest end in (begin, limit] whose rows [begin, end) hold at most `capacity` pairs, or
// begin + 1 when not even one row does.
int64_t rows_fitting(int64_t n, fc_triu_order order, int64_t begin, int64_t limit, int64_t capacity) {
  const int64_t base = offset_of_row(n, order, begin);
  int64_t lo = begin + 1, hi = limit;  // lo is the answer's lower bound
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo + 1) / 2;
    if (offset_of_row(n, order, mid) - base <= capacity) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

}  // namespace

int64_t default_dfc_capacity(const ContextState& ctx, int64_t n) {
  int64_t values = int64_t(16) << 20;
  if (ctx.memory_limit > 0) values = std::min(values, ctx.memory_limit / 4);
  return std::min(triu_count(n), std::max(values, n - 1));
}

void dfc_triu(const ContextState& ctx, const std::shared_ptr<const SeriesData>& s, const WindowSpec& spec,
              const fc_triu_order& order, const Output& out, int64_t capacity) {
  require_order(order);
  require_not_null(out.data, "out");
  const int64_t pairs = triu_count(s->n);
  require_capacity(capacity, checked_product(spec.count, pairs, "windows x pairs"),
                   "values of " + std::to_string(spec.count) + " windows x " + std::to_string(pairs) + " pairs");
  if (pairs == 0) return;
  // The backend's own pass over every window (CUDA: one pipeline), else a window at a time.
  int64_t root_begin = 0;
  const std::shared_ptr<const SeriesData> root = window_root(s, &root_begin);
  std::vector<int64_t> begins(static_cast<size_t>(spec.count));
  for (int64_t k = 0; k < spec.count; ++k) begins[static_cast<size_t>(k)] = root_begin + spec.begin(k);
  const std::vector<double> weights = taper_weights(spec.taper, spec.sigma, spec.length);
  const Output& all = out;
  Progress progress = ctx.make_progress(spec.count * pairs);
  if (ctx.backend->triu_windows(root->view(), begins, spec.length, weights.empty() ? nullptr : weights.data(), order,
                                rows_begin(order), rows_end(s->n, order), all, pairs, ctx.run_settings(progress)))
    return;
  WindowProgress map;
  for (int64_t k = 0; k < spec.count; ++k) {
    const ContextState wctx = window_context(ctx, map, k, spec.count, pairs);
    const auto w = create_window_series(ctx, s, spec.begin(k), spec.length, spec.taper, spec.sigma);
    Output o = out;
    o.data = static_cast<char*>(out.data) + static_cast<size_t>(k * pairs) * value_bytes(out.type);
    pcc_triu(wctx, *w, order, o, pairs);
  }
}

void dfc_degree(const ContextState& ctx, const std::shared_ptr<const SeriesData>& s, const WindowSpec& spec,
                const fc_edge_rule& rule, double param, int64_t* degree, double* strength) {
  pcc_degree(ctx, *s, rule, param, nullptr, nullptr);  // validates the rule; computes nothing
  const int64_t n = s->n;
  checked_product(spec.count, n, "windows x series");
  if (degree == nullptr && strength == nullptr) return;
  WindowProgress map;
  for (int64_t k = 0; k < spec.count; ++k) {
    const ContextState wctx = window_context(ctx, map, k, spec.count, triu_count(n));
    const auto w = create_window_series(ctx, s, spec.begin(k), spec.length, spec.taper, spec.sigma);
    pcc_degree(wctx, *w, rule, param, degree != nullptr ? degree + k * n : nullptr, strength != nullptr ? strength + k * n : nullptr);
  }
}

void dfc_ecm(const ContextState& ctx, const std::shared_ptr<const SeriesData>& s, const WindowSpec& spec,
             double tolerance, double* centrality, int64_t capacity, double* eigenvalue) {
  // Everything a window could refuse is checked first, so a bad argument writes nothing.
  centrality_tolerance(tolerance);
  require_not_null(centrality, "centrality");
  const int64_t n = s->n;
  require_capacity(capacity, checked_product(spec.count, n, "windows x series"), "values of windows x series");
  WindowProgress map;
  for (int64_t k = 0; k < spec.count; ++k) {
    const ContextState wctx = window_context(ctx, map, k, spec.count, triu_count(n));
    const auto w = create_window_series(ctx, s, spec.begin(k), spec.length, spec.taper, spec.sigma);
    fast_ecm(wctx, *w, tolerance, centrality + k * n, n, eigenvalue != nullptr ? eigenvalue + k : nullptr);
  }
}

void dfc_summary(const ContextState& ctx, const std::shared_ptr<const SeriesData>& s, const WindowSpec& spec,
                 const fc_triu_order& order, double* mean, double* sd, int64_t capacity) {
  require_order(order);
  const int64_t n = s->n, pairs = triu_count(n);
  if (mean == nullptr && sd == nullptr) return;
  require_capacity(capacity, pairs, "pairs of " + std::to_string(n) + " series (fc_triu_size)");
  if (pairs == 0) return;
  // Welford (Knuth TAOCP vol. 2, 4.2.2): the running mean in `mean` (or scratch when the caller
  // wants sd only) and the running sum of squared deviations in `sd`, finished at the end.
  std::vector<double> mean_scratch;
  if (mean == nullptr) {
    mean_scratch.resize(static_cast<size_t>(pairs));
    mean = mean_scratch.data();
  }
  // Each window's triangle in blocks of whole rows within the memory limit (float64 values).
  const int64_t budget = ctx.memory_limit > 0 ? ctx.memory_limit : (int64_t(64) << 20);
  const int64_t block_values = std::min(pairs, std::max<int64_t>(n, budget / int64_t(sizeof(double))));
  std::vector<double> block(static_cast<size_t>(block_values));
  const int64_t r_begin = rows_begin(order), r_end = rows_end(n, order);
  WindowProgress map;
  for (int64_t k = 0; k < spec.count; ++k) {
    const ContextState wctx = window_context(ctx, map, k, spec.count, pairs);
    const auto w = create_window_series(ctx, s, spec.begin(k), spec.length, spec.taper, spec.sigma);
    const double count = static_cast<double>(k + 1);
    for (int64_t r0 = r_begin; r0 < r_end;) {
      const int64_t r1 = rows_fitting(n, order, r0, r_end, block_values);
      const int64_t offset = offset_of_row(n, order, r0), values = offset_of_row(n, order, r1) - offset;
      Progress progress = wctx.make_progress(pairs, offset);
      Output o;
      o.data = block.data();
      o.type = ScalarType::F64;
      ctx.backend->triu(w->view(), order, r0, r1, o, wctx.run_settings(progress));
      double* m = mean + offset;
      double* m2 = sd != nullptr ? sd + offset : nullptr;
      for (int64_t x = 0; x < values; ++x) {
        const double v = block[static_cast<size_t>(x)];
        if (k == 0) {
          m[x] = v;
          if (m2 != nullptr) m2[x] = 0.0;
          continue;
        }
        const double delta = v - m[x];
        m[x] += delta / count;
        if (m2 != nullptr) m2[x] += delta * (v - m[x]);
      }
      r0 = r1;
    }
  }
  if (sd != nullptr) {
    const double divisor = static_cast<double>(spec.count - 1);
    for (int64_t p = 0; p < pairs; ++p)
      sd[p] = spec.count > 1 ? std::sqrt(sd[p] / divisor) : std::numeric_limits<double>::quiet_NaN();
  }
}

namespace {

// f(j) for j in [0, count) on `team` threads (the calling one among them), the first exception
// rethrown here. Plain threads, not an OpenMP region: after a region libgomp's idle threads
// spin-wait on every core by default, and the GPU steps that follow it (the projections'
// copies, the next group's windows) took fc_dfc_lowrank from 0.21 s to 0.34 s on the H100
// machine (108 windows; 0.21 s with OMP_WAIT_POLICY=passive).
template <class F>
void on_threads(int64_t count, int team, F&& f) {
  std::atomic<int64_t> next{0};
  ParallelErrors failures;
  auto worker = [&]() noexcept {
    for (int64_t j = next.fetch_add(1); j < count && !failures.failed(); j = next.fetch_add(1))
      failures.capture([&] { f(j); });
  };
  std::vector<std::thread> helpers;
  try {
    helpers.reserve(static_cast<size_t>(std::max(0, team - 1)));
    for (int k = 1; k < team; ++k) helpers.emplace_back(worker);
  } catch (...) {  // the threads started stop at their next item; the error is the call's
    const std::exception_ptr error = std::current_exception();
    failures.capture([&] { std::rethrow_exception(error); });
  }
  worker();
  for (std::thread& h : helpers) h.join();
  failures.rethrow();
}

}  // namespace

void dfc_lowrank(const ContextState& ctx, const std::shared_ptr<const SeriesData>& s, const WindowSpec& spec,
                 int64_t rank, float* factors, int64_t capacity, double* rel_error) {
  require_rank(rank, spec.length);
  require_not_null(factors, "factors");
  const int64_t n = s->n, per_window = checked_product(n, rank, "series x rank");
  require_capacity(capacity, checked_product(spec.count, per_window, "windows x series x rank"),
                   "values of " + std::to_string(spec.count) + " windows x " + std::to_string(n) + " series x rank " +
                       std::to_string(rank));
  const int64_t pairs = triu_count(n), t = spec.length;
  Progress progress = ctx.make_progress(saturating_product(spec.count, pairs));
  const RunSettings run = ctx.run_settings(progress);
  // Groups of windows: each window's Gram matrix on the backend, then the group's small
  // eigenproblems on the host threads at once (one LAPACK call each, single-threaded, so the
  // bits are pcc_lowrank's), then each window's projection. A window costs O(N t) to make again
  // for its projection, so only a group's windows are held at a time.
  const int threads = run.threads > 0 ? run.threads : omp_get_max_threads();
  const int64_t group = std::min<int64_t>(64, 4 * int64_t(threads));
  std::vector<std::vector<double>> grams, bases;
  std::vector<double> errors;
  for (int64_t g0 = 0; g0 < spec.count; g0 += group) {
    const int64_t g1 = std::min(spec.count, g0 + group), m = g1 - g0;
    std::vector<std::shared_ptr<SeriesData>> windows;
    grams.assign(static_cast<size_t>(m), std::vector<double>(static_cast<size_t>(t * t)));
    bases.assign(static_cast<size_t>(m), {});
    errors.assign(static_cast<size_t>(m), 0.0);
    for (int64_t k = g0; k < g1; ++k) {
      windows.push_back(create_window_series(ctx, s, spec.begin(k), spec.length, spec.taper, spec.sigma));
      ctx.backend->gram(windows.back()->view(), grams[static_cast<size_t>(k - g0)].data(), run);
    }
    // A dsyevd of t x t costs about 4 t^3 / 3 multiply-adds (with vectors): threads only for
    // enough of them (parallel_team).
    on_threads(m, parallel_team(saturating_product(saturating_product(m * t, t), t), threads, m), [&](int64_t j) {
      lowrank_basis(t, rank, grams[static_cast<size_t>(j)], bases[static_cast<size_t>(j)], &errors[static_cast<size_t>(j)]);
    });
    for (int64_t k = g0; k < g1; ++k) {
      ctx.backend->project(windows[static_cast<size_t>(k - g0)]->view(), bases[static_cast<size_t>(k - g0)].data(), rank,
                           factors + k * per_window, run);
      if (rel_error != nullptr) rel_error[k] = errors[static_cast<size_t>(k - g0)];
      progress.advance(pairs);
    }
  }
}

DfcIterator::DfcIterator(std::shared_ptr<const ContextState> ctx, std::shared_ptr<const SeriesData> series,
                         const WindowSpec& spec)
    : ctx_(std::move(ctx)), series_(std::move(series)), spec_(spec) {}

std::shared_ptr<SeriesData> DfcIterator::window(int64_t index) const {
  if (index < 0 || index >= spec_.count)
    fail(FC_ERR_INVALID_ARG, "window index " + std::to_string(index) + " is outside [0, " + std::to_string(spec_.count) + ")");
  return create_window_series(*ctx_, series_, spec_.begin(index), spec_.length, spec_.taper, spec_.sigma);
}

const SeriesData& DfcIterator::current_window() {
  if (cached_index_ != next_window_) {
    cached_.reset();  // one window's storage at a time
    cached_ = window(next_window_);
    cached_index_ = next_window_;
  }
  return *cached_;
}

fc_status DfcIterator::next_triu(float* buf, int64_t capacity, fc_dfc_block_info* info) {
  require_not_null(info, "info");
  kept_.clear();  // a split context's graphs built ahead: the cursor now moves past them
  part_ahead_.clear();
  const int64_t n = series_->n, pairs = triu_count(n);
  if (pairs == 0 || next_window_ >= spec_.count) {
    info->window = spec_.count;
    info->time_begin = -1;
    info->row_begin = info->row_end = std::max<int64_t>(0, n - 1);
    info->triu_offset = pairs;
    info->count = 0;
    info->n_constant = 0;
    return FC_DONE;
  }
  const int64_t k = next_window_, row_begin = next_row_;
  const int64_t row_end = rows_fitting(n, FC_TRIU_ROW, row_begin, n - 1, capacity);
  const SeriesData& w = current_window();
  info->window = k;
  info->time_begin = spec_.begin(k);
  info->row_begin = row_begin;
  info->row_end = row_end;
  info->triu_offset = row_start(n, row_begin);
  info->count = row_start(n, row_end) - info->triu_offset;
  info->n_constant = w.n_constant;
  require_not_null(buf, "buf");
  if (capacity < info->count)
    fail(FC_ERR_BUFFER_TOO_SMALL, "capacity " + std::to_string(capacity) + " is smaller than the " + std::to_string(info->count) +
                                      " values of row " + std::to_string(row_begin) + " of window " + std::to_string(k) +
                                      "; a buffer of N - 1 values fits every row");
  WindowProgress map;
  const ContextState wctx = window_context(*ctx_, map, k, spec_.count, pairs);
  Progress progress = wctx.make_progress(pairs, info->triu_offset);
  Output o;
  o.data = buf;
  ctx_->backend->triu(w.view(), FC_TRIU_ROW, row_begin, row_end, o, wctx.run_settings(progress));
  if (row_end >= n - 1) {
    ++next_window_;
    next_row_ = 0;
  } else {
    next_row_ = row_end;
  }
  return FC_OK;
}

fc_status DfcIterator::next_graph(const fc_edge_rule& rule, double param, int weights, std::shared_ptr<GraphData>* out,
                                  int64_t* window) {
  require_not_null(out, "out");
  if (next_row_ != 0)
    fail(FC_ERR_BAD_STATE, "window " + std::to_string(next_window_) + " is partly delivered by fc_dfc_next_triu (rows [0, " +
                               std::to_string(next_row_) + ")); finish it before asking for a graph");
  if (next_window_ >= spec_.count) {
    out->reset();
    if (window != nullptr) *window = -1;
    return FC_DONE;
  }
  const int64_t k = next_window_;
  if (const auto* split = dynamic_cast<const SplitBackend*>(ctx_->backend.get())) {
    *out = split_graph(*split, k, rule, param, weights);
    if (window != nullptr) *window = k;
    ++next_window_;
    return FC_OK;
  }
  WindowProgress map;
  const ContextState wctx = window_context(*ctx_, map, k, spec_.count, triu_count(series_->n));
  std::unique_ptr<DeviceCsr> csr;
  if (ahead_.csr && ahead_.matches(k, GraphKey(rule, param, weights, *ctx_), *ctx_)) csr = std::move(ahead_.csr);
  ahead_ = Ahead();  // one that does not match is dropped
  if (!csr) csr = pcc_graph_device(wctx, current_window(), rule, param, weights);
  if (csr) {
    // Window k's storage lives until the copy is done: freeing device memory waits for the device.
    const std::shared_ptr<SeriesData> keep = cached_;
    *out = graph_from_device(wctx, *csr, [&] { look_ahead(k + 1, rule, param, weights); });
  } else {
    *out = pcc_graph(wctx, current_window(), rule, param, weights);
  }
  if (window != nullptr) *window = k;
  ++next_window_;
  return FC_OK;
}

std::shared_ptr<GraphData> DfcIterator::split_graph(const SplitBackend& split, int64_t k, const fc_edge_rule& rule,
                                                    double param, int weights) {
  const int64_t pairs = triu_count(series_->n);
  WindowProgress map;
  const ContextState wctx = window_context(*ctx_, map, k, spec_.count, pairs);
  const GraphKey key(rule, param, weights, *ctx_);
  if (!kept_.empty() && kept_window_ == k && kept_key_ == key) {
    if (pairs > 0) {  // built by an earlier call: window k's slice done (a cancel keeps the graph)
      Progress progress = wctx.make_progress(pairs);
      progress.advance(pairs);
    }
    std::shared_ptr<GraphData> g = std::move(kept_.front());
    kept_.erase(kept_.begin());
    ++kept_window_;
    return g;
  }
  kept_.clear();  // built for other windows or another request: dropped before the next batch
  if (!(kept_key_ == key)) part_ahead_.clear();
  cached_.reset();  // the window made on every part is not needed here
  cached_index_ = -1;
  const int64_t count = std::min<int64_t>(static_cast<int64_t>(split.parts().size()), spec_.count - k);
  std::vector<std::shared_ptr<GraphData>> graphs =
      split_window_graphs(wctx, split, series_, spec_, k, count, rule, param, weights, &part_ahead_);
  kept_.assign(std::make_move_iterator(graphs.begin() + 1), std::make_move_iterator(graphs.end()));
  kept_window_ = k + 1;
  kept_key_ = key;
  return std::move(graphs.front());
}

DfcIterator::GraphKey::GraphKey(const fc_edge_rule& rule_, double param_, int weights_, const ContextState& now)
    : rule(raw_enum(rule_)), weights(weights_), param(param_), precision(now.precision),
      constant_policy(now.constant_policy), threads(now.threads), memory_limit(now.memory_limit) {}

bool DfcIterator::GraphKey::operator==(const GraphKey& o) const {
  return rule == o.rule && std::memcmp(&param, &o.param, sizeof param) == 0 && weights == o.weights &&
         precision == o.precision && constant_policy == o.constant_policy && threads == o.threads &&
         memory_limit == o.memory_limit;
}

bool DfcIterator::Ahead::matches(int64_t k, const GraphKey& now_key, const ContextState& now) const {
  return window == k && key == now_key && now.memory_limit == 0;
}

void DfcIterator::look_ahead(int64_t j, const fc_edge_rule& rule, double param, int weights) noexcept {
  if (j >= spec_.count) return;
  try {
    const ContextState quiet = ctx_->quiet();
    cached_ = window(j);  // kept for window j's own call, whatever happens next
    cached_index_ = j;
    std::unique_ptr<DeviceCsr> csr = pcc_graph_device(quiet, *cached_, rule, param, weights);
    if (!csr) return;
    ahead_.window = j;
    ahead_.key = GraphKey(rule, param, weights, quiet);
    ahead_.csr = std::move(csr);
  } catch (...) {
    ahead_ = Ahead();
  }
}

}  // namespace fc
