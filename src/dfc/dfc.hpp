// Dynamic connectivity: every window of a series at once. Enum parameters are taken by reference
// until validated (base/error.hpp, raw_enum). Each window is a series of its own
// (pcc/window.hpp), so the per-window work is the static machinery (pcc/pcc.hpp, graph.hpp,
// lowrank.hpp, centrality.hpp); this file adds the loop over windows, one progress count over the
// whole job (pairs x windows: W * fc_triu_size(N) units), the iterator, and the summaries.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "backend/series_storage.hpp"
#include "context/context.hpp"
#include "dfc/window_graphs.hpp"
#include "graph/graph.hpp"
#include "pcc/series.hpp"
#include "pcc/window.hpp"

namespace fc {

class SplitBackend;  // backend/split_backend.hpp

// fc_dfc_triu (and its compact twin): W x P values of out.type (window k at k * P), P =
// triu_count(N); capacity in values.
void dfc_triu(const ContextState& ctx, const std::shared_ptr<const SeriesData>& s, const WindowSpec& spec,
              const fc_triu_order& order, const Output& out, int64_t capacity);

// fc_dfc_degree: W x N each, window-major; either may be null.
void dfc_degree(const ContextState& ctx, const std::shared_ptr<const SeriesData>& s, const WindowSpec& spec,
                const fc_edge_rule& rule, double param, int64_t* degree, double* strength);

// fc_dfc_ecm: centrality W x N, window-major (capacity values); eigenvalue W values or null. Each
// window is fast_ecm (centrality/centrality.hpp) of the window's series.
void dfc_ecm(const ContextState& ctx, const std::shared_ptr<const SeriesData>& s, const WindowSpec& spec,
             double tolerance, double* centrality, int64_t capacity, double* eigenvalue);

// fc_dfc_summary: Welford over windows in float64, windows computed in row blocks within the
// memory limit; mean and sd (P values each, in `order`) may be null.
void dfc_summary(const ContextState& ctx, const std::shared_ptr<const SeriesData>& s, const WindowSpec& spec,
                 const fc_triu_order& order, double* mean, double* sd, int64_t capacity);

// fc_dfc_lowrank: factors W x N x rank (capacity values), rel_error W values or null.
void dfc_lowrank(const ContextState& ctx, const std::shared_ptr<const SeriesData>& s, const WindowSpec& spec,
                 int64_t rank, float* factors, int64_t capacity, double* rel_error);

// Block size of fc_dfc_foreach_triu's capacity 0: about 16 Mi values (fewer under a memory
// limit), never less than one row (N - 1) nor more than a window's P.
int64_t default_dfc_capacity(const ContextState& ctx, int64_t n);

// The pull iterator behind fc_dfc. Keeps its context state and series alive; each step uses the
// context's settings as they are then. One window cursor for triangles and graphs.
class DfcIterator {
 public:
  DfcIterator(std::shared_ptr<const ContextState> ctx, std::shared_ptr<const SeriesData> series, const WindowSpec& spec);

  int64_t windows() const { return spec_.count; }
  int64_t n() const { return series_->n; }
  int64_t length() const { return spec_.length; }
  const ContextState& context() const { return *ctx_; }

  // Window `index` as a series (FC_ERR_INVALID_ARG outside [0, W)).
  std::shared_ptr<SeriesData> window(int64_t index) const;

  // FC_OK with the block in buf, or FC_DONE. FC_ERR_BUFFER_TOO_SMALL (info: the one-row block)
  // leaves the cursor where it is.
  fc_status next_triu(float* buf, int64_t capacity, fc_dfc_block_info* info);

  // FC_OK with the next window's graph, or FC_DONE (*out null). FC_ERR_BAD_STATE in the middle
  // of a window's triangle. Where the backend keeps a graph's CSR on its device (CUDA, without a
  // memory limit), the next window's graph is built, with the same rule and settings, while this
  // one is copied out; the next call takes it when it asks for the same (else it is dropped).
  // (On the H100 the copy then finishes inside the next window's work, but that work takes
  // longer by about as much: 5-8 % gained, bench/RESULTS-gpu.md.)
  // On a context over D >= 2 parts (SplitBackend) the call for window k builds the graphs of
  // windows k .. k + D - 1 at once, one window wholly on each part (dfc/window_graphs.hpp), and
  // keeps the later ones for the next calls when they ask for the same (else they are dropped);
  // its progress is the batch's work within window k's slice.
  fc_status next_graph(const fc_edge_rule& rule, double param, int weights, std::shared_ptr<GraphData>* out, int64_t* window);

 private:
  const SeriesData& current_window();

  // What a graph was built with: the call's rule, param and weights and the context's settings
  // then. A graph built ahead is handed out only to a call that asks for the same.
  struct GraphKey {
    int rule = 0, weights = 0;
    double param = 0;
    fc_precision precision = FC_PRECISION_FP32;
    fc_constant_policy constant_policy = FC_CONSTANT_NAN;
    int threads = 0;
    int64_t memory_limit = 0;
    GraphKey() = default;
    GraphKey(const fc_edge_rule& rule, double param, int weights, const ContextState& now);
    bool operator==(const GraphKey& o) const;
  };
  // The next window's graph, built during a copy (look_ahead), and what it was built with.
  struct Ahead {
    int64_t window = -1;
    GraphKey key;
    std::unique_ptr<DeviceCsr> csr;
    bool matches(int64_t k, const GraphKey& now_key, const ContextState& now) const;
  };
  // Builds window j's graph on the device into ahead_; never throws (a failure here is the window's
  // own call's to report, when it does the work itself). Reports no progress: the call it runs in
  // reports its own window's.
  void look_ahead(int64_t j, const fc_edge_rule& rule, double param, int weights) noexcept;
  // next_graph on a split context: window k's graph from kept_, or a new batch from k.
  std::shared_ptr<GraphData> split_graph(const SplitBackend& split, int64_t k, const fc_edge_rule& rule, double param,
                                         int weights);

  std::shared_ptr<const ContextState> ctx_;
  std::shared_ptr<const SeriesData> series_;
  WindowSpec spec_;
  int64_t next_window_ = 0;
  int64_t next_row_ = 0;  // first row of the next triangle block within next_window_
  std::shared_ptr<SeriesData> cached_;  // window next_window_, once computed
  int64_t cached_index_ = -1;
  Ahead ahead_;  // after ctx_: destroyed first (its CSR goes back to the context's backend)
  // A split context's graphs built for windows kept_window_, kept_window_ + 1, ... (at most D - 1).
  std::vector<std::shared_ptr<GraphData>> kept_;
  int64_t kept_window_ = -1;
  GraphKey kept_key_;
  // Each part's next-batch graph built during its copy (window_graphs.hpp), for kept_key_'s request.
  std::vector<PartAhead> part_ahead_;
};

}  // namespace fc
