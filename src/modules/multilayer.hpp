// Multilayer modularity (Mucha, Richardson, Macon, Porter and Onnela 2010, Science 328:876) of a
// sequence of graphs on the same N nodes:
//
//   Q = 1/(2 mu) sum_{ijsr} [(A_ijs - gamma_s k_is k_js / (2 m_s)) delta_sr + delta_ij C_jsr] delta(g_is, g_jr)
//
// with C_jsr = omega for |s - r| = 1 (ordinal) or for every s != r (categorical), and
// 2 mu = sum_s 2 m_s + sum_{j, s != r} C_jsr.
//
// It is optimized over the supra-graph (node (i, s) = s N + i; the layers' edges and the coupling
// edges omega) by Leiden's passes (leiden_pass.hpp: fast local moving, refinement, aggregation of
// the refined subcommunities), sharing its queue scheme, refinement, aggregation and helpers
// (leiden.hpp). The null model is per layer, so a node of an aggregate carries its degree per
// layer (a sparse list: the layers its members come from) and a community its degree per layer;
// moving v from a to c changes the sum by 2 x
//   gain = (w_vc - w_va) - sum_l gamma_l / (2 m_l) k_vl (K_cl - K_al + k_vl),
// and the refinement's tests and merges use the same terms. Every community is connected in the
// supra-graph: the refinement keeps them so at convergence, and a community still in pieces after
// max_iterations passes is split into its connected pieces (which cannot lower Q).
#pragma once

#include <cstdint>
#include <vector>

#include "base/progress.hpp"
#include "graph/graph.hpp"

namespace fc {

struct Multilayer {
  int64_t n = 0, layers = 0, k = 0;
  double q = 0;
  std::vector<int64_t> labels;  // layers x n, layer-major; ids shared across layers
};

fc_multilayer_options default_multilayer_options();
void validate_multilayer_options(const fc_multilayer_options& options);

// Checks the layers (same node count, non-negative weights) and the per-layer resolutions
// (null: options.resolution for every layer); FC_ERR_INVALID_ARG names the layer.
void check_multilayer_input(const std::vector<const GraphData*>& layers, const double* layer_resolutions);

Multilayer find_multilayer(const std::vector<const GraphData*>& layers, const std::vector<double>& gamma,
                           const fc_multilayer_options& options, int threads, Progress& progress);

// Q of any labels (layers x n, layer-major, non-negative), straight from the formula above; the
// layers' sums on `threads` (0 = default), added in layer order: the same Q for any number.
double multilayer_quality(const std::vector<const GraphData*>& layers, const std::vector<double>& gamma, double omega,
                          int coupling, const int64_t* labels, int threads);

// Per node: the fraction of the layers - 1 consecutive pairs in which its label changes (0 for one layer).
void multilayer_flexibility(const Multilayer& m, double* out);
// allegiance[i * ld + j]: the fraction of layers in which i and j share a label (1 on the diagonal).
void multilayer_allegiance(const Multilayer& m, double* out, int64_t ld);
// The pairs i < j of allegiance >= floor, in row order, into rows / cols / values when capacity
// holds them all (else nothing is written); returns their number. floor in (0, 1].
int64_t multilayer_allegiance_pairs(const Multilayer& m, double floor, int64_t* rows, int64_t* cols, double* values,
                                    int64_t capacity);

}  // namespace fc
