// Eigenvector centrality: of a series set's correlation matrix without the matrix (fast ECM, Wink
// et al. 2012) through the backend's products (backend/centrality_backend.hpp), and of a graph
// through its CSR on the host; both eigensolves are modules/leading_eigen.hpp's Lanczos.
#pragma once

#include <cstdint>

#include "context/context.hpp"
#include "graph/graph.hpp"
#include "pcc/series.hpp"

namespace fc {

// The residual test when the caller passes 0, and the range a caller may ask for.
constexpr double kCentralityDefaultTolerance = 1e-10;
constexpr double kCentralityMinTolerance = 1e-13;
constexpr double kCentralityMaxTolerance = 0.1;
// Products an eigensolve may take; the progress callback counts products against it.
constexpr int64_t kCentralityMaxProducts = 10000;

// The tolerance a caller passed (0: the default), or FC_ERR_INVALID_ARG naming it.
double centrality_tolerance(double tolerance);

// fc_pcc_ecm: validates tolerance and capacity, then writes s.n values (header's contract).
void fast_ecm(const ContextState& ctx, const SeriesData& s, double tolerance, double* centrality, int64_t capacity,
              double* eigenvalue);

// fc_graph_eigenvector_centrality.
void graph_eigenvector_centrality(const ContextState& ctx, const GraphData& g, int weighted, double tolerance,
                                  double* centrality, int64_t capacity, double* eigenvalue);

// fc_pcc_ecm_thresholded: the graph of pcc_graph (graph/graph.hpp) under (rule, param, weights),
// solved by graph_eigenvector_centrality, rescaled to unit L2 norm.
void thresholded_ecm(const ContextState& ctx, const SeriesData& s, const fc_edge_rule& rule, double param, int weights,
                     double tolerance, double* centrality, int64_t capacity, double* eigenvalue);

}  // namespace fc
