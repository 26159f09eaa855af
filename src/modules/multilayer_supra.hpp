// The supra-graph of multilayer modularity (multilayer.hpp), shared by the queue's passes
// (multilayer.cpp) and the synchronous ones (multilayer_sync.cpp).
#pragma once

#include <cstdint>
#include <vector>

#include "graph/graph.hpp"
#include "modules/leiden.hpp"

namespace fc {

// A level: Leiden's graph (edges; its kp, kn unused: zeros) and each node's degree per layer as a
// sparse list (layer, degree) in ascending layer order.
struct SupraLevel {
  LeidenGraph g;
  std::vector<int64_t> start;  // n + 1
  std::vector<int64_t> layer;
  std::vector<double> degree;
};

// Level 0: node (i, s) = s N + i; each row's layer entries (no self-loops, none of weight 0), then
// its coupling entries (omega, when omega > 0 and there are two layers or more); node (i, s)'s
// degree is node i's in layer s (the whole row, self-loop included). Built on `threads` (0 =
// default), the same graph for any number.
SupraLevel supra_graph(const std::vector<const GraphData*>& layers, double omega, int coupling, int threads);

// gamma_s / (2 m_s) per layer (0 for a layer without weight).
std::vector<double> null_coefficients(const std::vector<const GraphData*>& layers, const std::vector<double>& gamma);

}  // namespace fc
