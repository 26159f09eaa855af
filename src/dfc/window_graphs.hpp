// fc_dfc_next_graph on a context over several parts (a SplitBackend: several GPUs, issue 33; or
// FASTCONN_SPLIT_CPU's CPU parts): the graphs of D consecutive windows at once, window first + i
// wholly on part i. Splitting one window's graph by row bands joins the bands' edges on the host
// (1.04x on 2 GPUs); a window per part keeps each part's work whole. Each window is made on its
// part alone (window_on over the part's storage of the root) and its graph built exactly as a
// context of that one part builds it (pcc_graph_device + graph_from_device where the part keeps a
// CSR on its device, else pcc_graph), so every graph has the one part's bits.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "backend/split_backend.hpp"
#include "context/context.hpp"
#include "graph/graph.hpp"
#include "pcc/series.hpp"
#include "pcc/window.hpp"

namespace fc {

// A part's next window's graph, built on its device while its current graph was copied out (as
// the one-device iterator's look-ahead): window `window`, with the window series it was made from
// (kept until the graph is taken, so that freeing it never waits for the device mid-copy).
struct PartAhead {
  int64_t window = -1;
  std::shared_ptr<SeriesData> series;
  std::unique_ptr<DeviceCsr> csr;
};

// The graphs of windows [first, first + count) of `series` (count <= split.parts().size()),
// window first + i built on part i; the parts run at once (SplitBackend::run_on_parts: the first
// failure named by its part, a cancel joins them all). Progress: `ctx`'s callback sees
// count x triu_count(N) units, the parts' work summed (dfc.cpp maps it into window first's
// slice). The memory limit applies per part. The rule is checked on this thread first.
// ahead (one slot per part, or null): where part i kept window first + i's device CSR from the
// previous batch it is used; and without a memory limit, while part i copies its graph out it
// builds window first + D + i's (the next batch's) into its slot, quietly (a failure there leaves
// the slot empty: the next batch then does the work and reports it). The caller drops the slots
// when the request changes. Every graph has the same bits either way (the same computation).
std::vector<std::shared_ptr<GraphData>> split_window_graphs(const ContextState& ctx, const SplitBackend& split,
                                                            const std::shared_ptr<const SeriesData>& series,
                                                            const WindowSpec& spec, int64_t first, int64_t count,
                                                            const fc_edge_rule& rule, double param, int weights,
                                                            std::vector<PartAhead>* ahead = nullptr);

}  // namespace fc
