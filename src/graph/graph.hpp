// Networks without the N x N matrix: validation of the edge rules and the orchestration of the
// backend's network primitives (threshold, |r| histogram, top-k) into graphs and degrees.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "backend/backend.hpp"
#include "context/context.hpp"
#include "graph/graph_recycler.hpp"
#include "pcc/series.hpp"

namespace fc {

// An undirected graph as symmetric CSR (graph_backend.hpp's SymmetricCsr): row i's neighbours
// columns[offsets[i] .. offsets[i+1]) in ascending order, each with its weight; every edge appears
// in both rows. The arrays grow uninitialized: the assembly's writers do the first touch.
struct GraphData : SymmetricCsr {
  int64_t n = 0;
  int64_t n_edges = 0;  // undirected edges: columns.size() / 2
  // The context that built it, whose next graphs may reuse these arrays once it is destroyed.
  std::weak_ptr<GraphRecycler> recycler;

  GraphData() = default;
  GraphData(const GraphData&) = delete;
  GraphData& operator=(const GraphData&) = delete;
  ~GraphData() {
    if (const std::shared_ptr<GraphRecycler> r = recycler.lock()) r->give(*this);
  }
};

// fc_pcc_graph: the rule, param and weights are validated here (FC_ERR_INVALID_ARG names them).
// The rule is taken by reference: a caller's out-of-range value is read as an int (raw_enum).
std::shared_ptr<GraphData> pcc_graph(const ContextState& ctx, const SeriesData& s, const fc_edge_rule& rule, double param,
                                     int weights);

// fc_pcc_graph in two halves, for a sequence of graphs (fc_dfc_next_graph builds the next
// window's graph while this one is copied). pcc_graph_device: the graph's CSR made and kept on
// the backend's device; null for a rule other than a threshold, fewer than 2 series, or a
// backend or graph that cannot keep it (pcc_graph then makes the graph). graph_from_device: the
// graph of such a CSR (the same graph pcc_graph gives, bit for bit), meanwhile() running on this
// thread while it is copied.
std::unique_ptr<DeviceCsr> pcc_graph_device(const ContextState& ctx, const SeriesData& s, const fc_edge_rule& rule,
                                            double param, int weights);
std::shared_ptr<GraphData> graph_from_device(const ContextState& ctx, DeviceCsr& csr, const std::function<void()>& meanwhile);

// The checks pcc_graph makes of its rule, param and weights, alone: for a caller that must refuse
// a bad request on its own thread before the work goes to other threads (dfc/window_graphs.hpp).
void require_graph_request(const fc_edge_rule& rule, double param, int weights);

// fc_pcc_degree; degree and strength may be null (n values each otherwise).
void pcc_degree(const ContextState& ctx, const SeriesData& s, const fc_edge_rule& rule, double param, int64_t* degree,
                double* strength);

// fc_graph_create_csr: copies and validates (FC_ERR_INVALID_ARG names the first bad entry).
std::shared_ptr<GraphData> graph_from_csr(int64_t n, const int64_t* offsets, const int64_t* columns, const float* weights);

// fc_graph_csr / fc_graph_edges: copy-out with the capacity checked before anything is written.
void graph_csr(const GraphData& g, int64_t* offsets, int64_t* columns, float* weights, int64_t capacity);
void graph_edges(const GraphData& g, int64_t* i, int64_t* j, float* weights, int64_t capacity);

// The number of pairs the density rule keeps: ceil(density * pairs), the product in double.
int64_t density_edge_count(double density, int64_t pairs);

// The smallest float >= param (param clamped to [-2, 2]): for a float r, "r >= param" in exact
// arithmetic is then "r >= threshold" in float.
float float_threshold(double param);

}  // namespace fc
