#include "dfc/window_graphs.hpp"

#include <algorithm>
#include <limits>
#include <string>
#include <utility>

#include "base/error.hpp"
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
  split.run_on_parts(ctx.run_settings(progress), [&](size_t i, const RunSettings& run) {
    if (static_cast<int64_t>(i) >= count) return;
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
  });
  return graphs;
}

}  // namespace fc
