#include "dfc/window_graphs.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <limits>
#include <mutex>
#include <string>
#include <utility>

#include "base/error.hpp"
#include "base/profile.hpp"
#include "base/triangle_index.hpp"

namespace fc {
namespace {

// A part's context reports to its relay (run_parts' RunSettings::progress, read by the caller's
// thread): the per-window calls report in their own units (done of total), mapped here onto the
// part's share of `share` units. A cancel (the user's, or another part's failure) comes back as
// the callback's non-zero answer, so the part's own Progress raises FC_ERR_ABORTED.
struct PartProgress {
  Progress* relay = nullptr;
  int64_t share = 0;

  static int forward(int64_t done, int64_t total, void* self) {
    auto* p = static_cast<PartProgress*>(self);
    const long double fraction = total > 0 ? static_cast<long double>(done) / static_cast<long double>(total) : 0.0L;
    const int64_t units = std::min(p->share, static_cast<int64_t>(fraction * static_cast<long double>(p->share)));
    try {
      // A later pass restarting at 0 (the density rule's) reports nothing until it passes the
      // last report: the relay only goes forward. advance(0) still asks for a cancel.
      p->relay->advance(std::max<int64_t>(0, units - p->relay->done()));
    } catch (const Error&) {
      return 1;
    }
    return 0;
  }
};

// A part whose graph was built ahead reports its whole share at once.
void progress_done(PartProgress& relay) { PartProgress::forward(1, 1, &relay); }

// Where a batch's time goes (FASTCONN_PROFILE containing "windows"; printed to stderr at exit):
// per batch, the caller's time since the last batch returned, and per part (in seconds from the
// batch's start) when its thread began, when the window's graph was built (0 when built ahead),
// and when its graph was on the host with the next one built. Summed over batches, so that the
// means say whether the parts wait for each other, for their threads, or for the caller.
class BatchProfile {
 public:
  using Clock = std::chrono::steady_clock;
  static BatchProfile* get() {
    static BatchProfile* const profile = [] {
      if (!profile_asks("windows")) return static_cast<BatchProfile*>(nullptr);
      static BatchProfile instance;
      return &instance;
    }();
    return profile;
  }
  enum Mark { kStart, kBuilt, kDone, kMarks };
  Clock::time_point begin() {
    const Clock::time_point now = Clock::now();
    std::lock_guard<std::mutex> lock(mutex_);
    if (last_end_ != Clock::time_point()) {
      const double gap = seconds(last_end_, now);
      if (gap < kLongGap) {
        between_ += gap;
        ++gaps_;
      } else {
        ++long_gaps_;  // another iterator's, or the caller's own work between runs
      }
    }
    return now;
  }
  void mark(size_t part, Mark m, Clock::time_point batch_begin) {
    const double t = seconds(batch_begin, Clock::now());
    std::lock_guard<std::mutex> lock(mutex_);
    if (parts_.size() <= part) parts_.resize(part + 1);
    parts_[part][m] += t;
  }
  void end(Clock::time_point batch_begin) {
    const Clock::time_point now = Clock::now();
    std::lock_guard<std::mutex> lock(mutex_);
    wall_ += seconds(batch_begin, now);
    last_end_ = now;
    ++batches_;
  }
  ~BatchProfile() {
    if (batches_ == 0) return;
    const double b = static_cast<double>(batches_);
    std::fprintf(stderr,
                 "fastconn windows: %ld batches, mean ms: batch %.3f, caller between batches %.3f (%ld gaps over "
                 "%.0f ms left out)\n",
                 batches_, 1e3 * wall_ / b, 1e3 * between_ / std::max(1.0, static_cast<double>(gaps_)), long_gaps_,
                 1e3 * kLongGap);
    for (size_t i = 0; i < parts_.size(); ++i)
      std::fprintf(stderr, "fastconn windows: part %zu mean ms from the batch's start: thread began %.3f, built %.3f "
                   "(summed where built here), graph on the host %.3f\n",
                   i, 1e3 * parts_[i][kStart] / b, 1e3 * parts_[i][kBuilt] / b, 1e3 * parts_[i][kDone] / b);
  }

 private:
  static double seconds(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }
  std::mutex mutex_;
  std::vector<std::array<double, kMarks>> parts_;
  static constexpr double kLongGap = 0.05;
  double wall_ = 0, between_ = 0;
  long batches_ = 0, gaps_ = 0, long_gaps_ = 0;
  Clock::time_point last_end_{};
};

}  // namespace

std::vector<std::shared_ptr<GraphData>> split_window_graphs(const ContextState& ctx, const SplitBackend& split,
                                                            const std::shared_ptr<const SeriesData>& series,
                                                            const WindowSpec& spec, int64_t first, int64_t count,
                                                            const fc_edge_rule& rule, double param, int weights,
                                                            std::vector<PartAhead>* ahead) {
  require_graph_request(rule, param, weights);
  const auto& parts = split.parts();
  if (count < 1 || count > static_cast<int64_t>(parts.size()) || first < 0 || first + count > spec.count)
    fail(FC_ERR_INTERNAL, "windows [" + std::to_string(first) + ", " + std::to_string(first + count) +
                              ") do not fit the parts of the split");
  int64_t root_begin = 0;
  const std::shared_ptr<const SeriesData> root = window_root(series, &root_begin);
  const std::vector<double> taper = taper_weights(spec.taper, spec.sigma, spec.length);
  // Each part's share of the progress: a window's pairs (fewer where count times them would
  // overflow; the callback sees fractions of window first's slice anyway).
  const int64_t share = std::min(triu_count(series->n), std::numeric_limits<int64_t>::max() / count);
  Progress progress = ctx.make_progress(share * count);
  // The parts' graphs are built at once, each into arrays a destroyed graph left where there are.
  ctx.graph_recycler->keep_up_to(parts.size());
  std::vector<std::shared_ptr<GraphData>> graphs(static_cast<size_t>(count));
  const int64_t stride = static_cast<int64_t>(parts.size());
  if (ahead != nullptr) ahead->resize(parts.size());
  BatchProfile* const profile = BatchProfile::get();
  const BatchProfile::Clock::time_point batch_begin = profile != nullptr ? profile->begin() : BatchProfile::Clock::time_point();
  split.run_on_parts(ctx.run_settings(progress), [&](size_t i, const RunSettings& run) {
    if (static_cast<int64_t>(i) >= count) return;
    if (profile != nullptr) profile->mark(i, BatchProfile::kStart, batch_begin);
    PartProgress relay{run.progress, share};
    ContextState part = ctx;  // shares the context's owner and graph recycler (thread-safe)
    part.backend = parts[i];
    part.progress_fn = &PartProgress::forward;
    part.progress_user = &relay;
    const int64_t k = first + static_cast<int64_t>(i);
    auto make_window = [&](const ContextState& on, int64_t window) {
      return window_on(on, root, parts[i], split.view_on(i, root->view()), root_begin + spec.begin(window), spec.length,
                       taper);
    };
    // As DfcIterator::next_graph builds a window's graph on a context of this part alone.
    // The slot is emptied either way: what it held is this window's, or stale.
    PartAhead before = ahead != nullptr ? std::exchange((*ahead)[i], PartAhead()) : PartAhead();
    if (before.window != k) before = PartAhead();
    std::shared_ptr<SeriesData> w = std::move(before.series);
    std::unique_ptr<DeviceCsr> csr = std::move(before.csr);
    if (csr) {
      progress_done(relay);  // built during the previous batch's copy
    } else {
      w = make_window(part, k);
      csr = pcc_graph_device(part, *w, rule, param, weights);
      if (profile != nullptr) profile->mark(i, BatchProfile::kBuilt, batch_begin);
    }
    if (!csr) {
      graphs[i] = pcc_graph(part, *w, rule, param, weights);
      return;
    }
    const int64_t next = k + stride;
    graphs[i] = graph_from_device(part, *csr, [&] {
      if (ahead == nullptr || next >= spec.count || ctx.memory_limit != 0) return;
      try {
        const ContextState quiet = part.quiet();
        PartAhead built;
        built.series = make_window(quiet, next);
        built.csr = pcc_graph_device(quiet, *built.series, rule, param, weights);
        if (built.csr) {
          built.window = next;
          (*ahead)[i] = std::move(built);
        }
      } catch (...) {  // the next batch builds it itself, and reports what goes wrong
        (*ahead)[i] = PartAhead();
      }
    });
    if (profile != nullptr) profile->mark(i, BatchProfile::kDone, batch_begin);
  });
  if (profile != nullptr) profile->end(batch_begin);
  return graphs;
}

}  // namespace fc
