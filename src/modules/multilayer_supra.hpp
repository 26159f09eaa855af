// The supra-graph of multilayer modularity (multilayer.hpp), shared by the queue's passes
// (multilayer.cpp) and the synchronous ones (multilayer_sync.cpp).
#pragma once

#include <cstdint>
#include <cstdlib>
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

// Row v = s N + i of the supra-graph: keep(column, weight) for each of its entries in order (layer
// s's entries of row i that are kept, none of weight 0 nor a self-loop, then the coupling entries
// to node i of the coupled layers, omega each, when omega > 0); returns node i's degree in layer s
// (the whole row, self-loop included). Both builders (supra_graph, and multilayer_sync.cpp's fixed
// point one) visit rows through it, so they hold the same entries in the same order.
template <class Keep>
double supra_row(const std::vector<const GraphData*>& layers, double omega, int coupling, int64_t v, Keep keep) {
  const int64_t L = int64_t(layers.size()), N = layers[0]->n;
  const int64_t s = v / N, i = v % N;
  const GraphData& a = *layers[static_cast<size_t>(s)];
  double k = 0;
  for (int64_t e = a.offsets[static_cast<size_t>(i)]; e < a.offsets[static_cast<size_t>(i + 1)]; ++e) {
    const double w = a.weights[static_cast<size_t>(e)];
    k += w;
    if (w != 0 && a.columns[static_cast<size_t>(e)] != i) keep(s * N + a.columns[static_cast<size_t>(e)], w);
  }
  if (omega > 0)
    for (int64_t r = 0; r < L; ++r)
      if (r != s && (coupling != FC_COUPLING_ORDINAL || r == s - 1 || r == s + 1)) keep(r * N + i, omega);
  return k;
}

// Level 0: node (i, s) = s N + i; each row's layer entries (no self-loops, none of weight 0), then
// its coupling entries (omega, when omega > 0 and there are two layers or more); node (i, s)'s
// degree is node i's in layer s (the whole row, self-loop included). Built on `threads` (0 =
// default), the same graph for any number.
SupraLevel supra_graph(const std::vector<const GraphData*>& layers, double omega, int coupling, int threads);

// gamma_s / (2 m_s) per layer (0 for a layer without weight).
std::vector<double> null_coefficients(const std::vector<const GraphData*>& layers, const std::vector<double>& gamma);

}  // namespace fc
