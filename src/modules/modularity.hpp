// Modules of a graph: Newman's leading-eigenvector method (Newman 2006, PNAS 103:8577) with
// Kernighan-Lin fine-tuning, and the modularity Q of any partition. Host code, shared by every
// backend, so CPU and CUDA contexts give the same labels by construction.
//
// One objective for unsigned and signed weights. With A+ = max(A, 0), A- = max(-A, 0), degrees
// k+_i = sum_j A+_ij, k-_i = sum_j A-_ij, totals 2w+ = sum_i k+_i, 2w- = sum_i k-_i, and the
// resolution gamma:
//
//   Q = (1 / s) sum_c [ c+ W+_c - c- W-_c - gamma (d+ (K+_c)^2 - d- (K-_c)^2) ]
//
// where W+-_c = sum_{i,j in c} A+-_ij (each edge counted from both ends) and K+-_c = sum_{i in c} k+-_i:
//   - no negative weights: s = 2m, c+ = 1, d+ = 1 / 2m: Newman's Q with resolution
//     (Reichardt and Bornholdt 2006), what igraph's modularity() computes;
//   - FC_SIGNED_GOMEZ (Gomez, Jensen and Arenas 2009, Phys Rev E 80:016114):
//     Q = (2w+ Q+ - 2w- Q-) / (2w+ + 2w-): s = 2w+ + 2w-, c+ = c- = 1, d+ = 1/2w+, d- = 1/2w-;
//   - FC_SIGNED_RUBINOV (Rubinov and Sporns 2011, NeuroImage 56:2068), negative weights count
//     less: Q* = Q+ - (2w- / (2w+ + 2w-)) Q-: s = 2w+, c+ = 1, c- = 2w+ / (2w+ + 2w-),
//     d+ = 1/2w+, d- = 2w+ / ((2w+ + 2w-) 2w-).
//     Without positive weights Q+ is undefined; the Gomez form is used then (it equals -Q-).
// Terms whose total is 0 (d- without negative weights) are 0; a graph without weight has Q = 0.
//
// The modularity matrix in units of the weights is then B = c+ A+ - c- A- - gamma (d+ k+ k+^T -
// d- k- k-^T), Q = (1/s) sum_ij B_ij delta(c_i, c_j), and splitting a group g by s in {-1, 1}^g
// raises Q by s^T B^(g) s / 2s, with Newman's generalized matrix B^(g)_ij = B_ij - delta_ij
// sum_{l in g} B_il (his eq. 6). B^(g) x is applied as one sparse product with the combined
// weights plus rank-one and diagonal terms; B is never formed. The eigenvalues reported in the
// division tree are those of B^(g) in these units (for unsigned graphs: of A - gamma k k^T / 2m).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "graph/graph.hpp"
#include "base/progress.hpp"
#include "fastconn/fastconn.h"

namespace fc {

// A split or a move must raise Q by more than this (in units of Q) to count: rounding in the
// incremental sums can make a neutral move look like a 1e-16 gain, and such moves could cycle.
constexpr double kMinGain = 1e-12;

// The residual tolerance of a bisection's eigensolve (one whose split stands may stop sooner:
// kSplitTolerance): ||B x - theta x|| <= kEigenTolerance (|theta| + the largest |Ritz value|
// seen, which is at most ||B^(g)||). A split
// needs the eigenvector's signs, not its digits, and is then refined by vertex moves; the
// Rayleigh quotient theta (the eigenvalue reported and compared with eigen_threshold) is off by
// about residual^2 / gap only. Measured on bench_modularity's graphs (bench/RESULTS-modularity.md,
// fifth session): 1e-3 gives the labels of 1e-5 on the voxel network (38,400 nodes), the planted
// partition and a weaker one (NMI 0.997), with 839 instead of 1719 products in the voxel network's
// splits (CPU 9.4 -> 3.6 s); 1e-2 lost one of the voxel network's splits. (1e-6 until the fourth
// session of 2026-11-25, then 1e-5.)
constexpr double kEigenTolerance = 1e-3;

// A split's eigensolve may stop sooner, at a residual of kSplitTolerance (|theta| + ...), when the
// split it gives stands (leading_eigen.hpp's early answer): theta above eigen_threshold, both
// signs, both sides at least min_community_size after the fine-tuning, and a gain. Otherwise it
// goes on to kEigenTolerance and the group is split, or left whole, by that answer: a group is
// never left whole on a rough eigenvector. The rough eigenvector's errors are mostly in the
// entries near 0, which the fine-tuning moves anyway; an early answer also needs 8 Lanczos
// vectors (EigenOptions::early_basis says why). Measured (bench/RESULTS-modularity.md, sixth
// session): the labels of kEigenTolerance alone on the voxel network and the planted partition,
// the same Q and NMI on planted partitions of 20-100 communities, the same Q on the 1,000,000
// nodes of 1,000 communities, NMI as high or higher on partitions of 300-1,000 communities, with
// 8-40 % fewer products (voxel network 839 -> 546, CPU 3.4-3.5 -> 1.8-2.2 s); 1e-2 split a
// planted partition's community wrongly (NMI 0.995), 6e-3 to 8e-3 did not.
constexpr double kSplitTolerance = 5e-3;

// The coefficients of the objective above for one graph, mode and resolution.
struct ModularityTerms {
  std::vector<double> k_pos, k_neg;  // k+_i, k-_i
  double total_pos = 0, total_neg = 0;  // 2w+, 2w-
  double s = 0, c_pos = 0, c_neg = 0, d_pos = 0, d_neg = 0, gamma = 1;
  // Every non-zero weight of the graph is this one value (a binary graph: 1): the analyses' local
  // graphs then store no weights (local_graph.hpp: LocalGraph). 0 when the weights differ.
  float uniform_weight = 0;
  // Without negative weights, each node's rank among the distinct magnitudes gamma d+ k+_u of the
  // fine-tuning's slopes (rank_magnitudes), and their number: fc_modularity fills them once, so
  // that a sweep's LineMaxima need not sort the slopes again (empty: not filled).
  std::vector<int64_t> slope_rank;
  int64_t slope_ranks = 0;
};

// `threads`: OpenMP threads for the degrees (0 = default); the result does not depend on it.
ModularityTerms modularity_terms(const GraphData& g, fc_signed_modularity mode, double gamma, int threads = 1);

// Q of labels already numbered 0 .. k-1 (the one formula the algorithm and fc_modularity_score
// share). `threads`: OpenMP threads for the rows (0 = default); the result does not depend on it.
double modularity_of(const GraphData& g, const ModularityTerms& t, const int64_t* labels, int64_t k, int threads = 1);
// modularity_of from each row's weight inside its community (row_pos, row_neg: row i's sums, in
// row order, of w > 0 and of -w for w < 0 over its entries whose column shares i's label; a
// device may compute them, as the synchronous Leiden's engine does).
double modularity_of_rows(const GraphData& g, const ModularityTerms& t, const int64_t* labels, int64_t k,
                          const std::vector<double>& row_pos, const std::vector<double>& row_neg);

// fc_modularity_score: any non-negative labels (FC_ERR_INVALID_ARG names the first negative one and
// its node); gamma > 0 and finite; the Gomez form for signed graphs.
double modularity_score(const GraphData& g, const int64_t* labels, double gamma);

// fc_modularity_options_default, and the field-by-field check (FC_ERR_INVALID_ARG names the field).
fc_modularity_options default_modularity_options();
void validate_modularity_options(const fc_modularity_options& options);

struct DivisionSplit {
  int64_t parent = 0, child_a = 0, child_b = 0;  // child_a holds the parent's lowest node
  double eigenvalue = 0, gain = 0, residual = 0;
  int64_t iterations = 0;
};

struct Modules {
  int64_t n = 0, k = 0;
  double q = 0;
  std::vector<int64_t> labels;  // 0 .. k-1 by first appearance
  std::vector<DivisionSplit> splits;
  int64_t device_products = 0;  // eigensolver products that ran on a backend's device
  int64_t speculated = 0;       // groups whose eigenpair was solved while their parent's split was made
};

// Makes the engine of a backend's group products for the coefficients c_pos, c_neg (backend.hpp's
// Backend::group_products), or null for host products; `engines` of them may exist at once (it and
// its another()s: one per concurrent analysis, sharing the device copy of the graph), which a
// memory limit must allow for.
using GroupProductsFactory = std::function<std::unique_ptr<GroupProducts>(double c_pos, double c_neg, int engines)>;

// The whole method on the host; threads = OpenMP threads of the sparse products (0 = default).
// With a `device` factory, the eigenproblems of large groups are solved on the backend's engine,
// with the same bits (the labels are the same on every backend).
// `progress` counts nodes whose community is final (total n); its callback can cancel.
Modules find_modules(const GraphData& g, const fc_modularity_options& options, int threads, Progress& progress,
                     const GroupProductsFactory& device = {});

}  // namespace fc
