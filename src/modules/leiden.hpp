// Leiden (Traag, Waltman and van Eck 2019, Sci Rep 9:5233): fast local moving, refinement and
// aggregation, for modularity (modularity.hpp's objective, signed modes included) and the Constant
// Potts Model. Host code, shared by every backend, so CPU and CUDA contexts give the same labels.
//
// Both qualities are one objective on a graph whose nodes carry weights kp, kn and whose edges
// carry combined weights w (c+ w+ - c- w-; self-loops dropped: a node takes its own with it):
//
//   H = sum_c [ W_c - gamma (d+ Kp_c^2 - d- Kn_c^2) ]      (W_c: w inside c from both ends)
//
//   - modularity: kp = k+, kn = k-, d+-, c+- of modularity_terms; Q = H / s;
//   - CPM: kp = 1 per node (a node of an aggregate: its size), kn = 0, d+ = 1, d- = 0, w = the
//     weights: 2 x the CPM of Traag, Van Dooren and Nesterov 2011 (leidenalg's CPMVertexPartition).
//
// Moving node v from community a (which holds it) to c changes H by 2 x
//   gain = (w_vc - w_va) - gamma (d+ kp_v (Kp_c - Kp_a + kp_v) - d- kn_v (Kn_c - Kn_a + kn_v)),
// the gains that the moves, the refinement's well-connectedness tests (a node or subcommunity r of
// a community S is well connected when leaving S as r alone would not raise H: the paper's
// E(r, S - r) >= gamma ||r|| (||S|| - ||r||)) and its random merges use, in units of the weights.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "base/progress.hpp"
#include "graph/graph.hpp"
#include "modules/leading_eigen.hpp"
#include "modules/modularity.hpp"

namespace fc {

// A level's edge weights as its loops read them: one array, or one weight for every entry.
struct EdgeWeights {
  const double* array;
  double unit;  // nonzero: every entry's weight (array unused)
  double operator[](int64_t e) const { return unit != 0 ? unit : array[e]; }
};

// One level's graph: symmetric CSR without self-loops, combined weights in double.
struct LeidenGraph {
  int64_t n = 0;
  std::vector<int64_t> offsets;  // n + 1
  EdgeArray<int64_t> columns;  // not zeroed when sized: level 0 and aggregation write every entry
  EdgeArray<double> weights;  // empty where unit_weight is set
  // Level 0 of a graph whose entries all have one weight, a power of 2 (a binary graph: 1), sets
  // it here instead of filling `weights`: the level's scans (moves, refinement, aggregation, each
  // pass) then read 8 bytes an entry instead of 16, and the voxel network's 177 MB of weights are
  // neither written nor faulted in per call. (A power of 2: a row's sum of it is exact in any order,
  // as the sums of the array were.)
  double unit_weight = 0;
  EdgeWeights edge_weights() const { return {weights.data(), unit_weight}; }
  std::vector<double> kp, kn;  // node weights
  // Level 0 of a graph that drops no entry reads the caller's graph's columns instead of a copy
  // (columns then stays empty): the voxel network's 177 MB not written, nor faulted in, each call.
  const int64_t* shared_columns = nullptr;
  const int64_t* column_data() const { return shared_columns != nullptr ? shared_columns : columns.data(); }
};

struct LeidenTerms {
  double gamma = 1, d_pos = 0, d_neg = 0;
  double epsilon = 0;    // a move must gain more than this (kMinGain in units of the weights)
  double randomness = 1e-4;  // theta
};

// gain of moving v (kp_v, kn_v, w_va to its own community a with sums ka_p, ka_n that include v)
// to c (w_vc, sums kc_p, kc_n).
inline double leiden_gain(const LeidenTerms& t, double kp_v, double kn_v, double w_vc, double w_va, double kc_p,
                          double kc_n, double ka_p, double ka_n) {
  return (w_vc - w_va) - t.gamma * (t.d_pos * kp_v * (kc_p - ka_p + kp_v) - t.d_neg * kn_v * (kc_n - ka_n + kn_v));
}

// A node's neighbour communities and the weight to each: the scratch of one thread. A community
// counts as met while its stamp is the current one, so clearing touches nothing per community.
// No char marks: a char store may alias any object, so the compiler reloaded every array's
// address after each one in the hot loops (moves, refinement, aggregation).
struct CommunityWeights {
  struct Slot {  // a community's weight and stamp side by side: one cache line for both
    double weight;  // valid where met
    uint32_t stamp;
  };
  std::vector<Slot> slot;
  std::vector<int64_t> list;  // the communities met, in the order first met: list[0 .. size)
  int64_t size = 0;
  uint32_t now = 1;
  explicit CommunityWeights(int64_t n) : slot(static_cast<size_t>(n), Slot{0.0, 0u}), list(static_cast<size_t>(n)) {}
  void add(int64_t c, double w) {
    Slot& x = slot[static_cast<size_t>(c)];
    if (x.stamp != now) {
      x.stamp = now;
      x.weight = w;
      list[static_cast<size_t>(size++)] = c;
    } else {
      x.weight += w;
    }
  }
  // Marks c met (weight 0 if it was not) and returns its weight, which store sets: a run of adds
  // to one community summed in a register between them.
  double open(int64_t c) {
    Slot& x = slot[static_cast<size_t>(c)];
    if (x.stamp != now) {
      x.stamp = now;
      x.weight = 0;
      list[static_cast<size_t>(size++)] = c;
    }
    return x.weight;
  }
  void store(int64_t c, double w) { slot[static_cast<size_t>(c)].weight = w; }
  double weight(int64_t c) const { return slot[static_cast<size_t>(c)].weight; }  // c met
  double of(int64_t c) const { return slot[static_cast<size_t>(c)].stamp == now ? weight(c) : 0.0; }
  const int64_t* begin() const { return list.data(); }
  const int64_t* end() const { return list.data() + size; }
  void clear() {
    size = 0;
    if (++now == 0) {  // after 2^32 - 1 clears: every stamp is old again
      for (Slot& x : slot) x.stamp = 0;
      now = 1;
    }
  }
};

// The sums of the node weights kp, kn per community of `label` (ids < g.n), in node order.
void community_weight_sums(const LeidenGraph& g, const std::vector<int64_t>& label, std::vector<double>& sum_p,
                           std::vector<double>& sum_n);

// The nodes whose `skip` is 0, in a seeded random order (Fisher-Yates).
std::vector<int64_t> shuffled_nodes(const std::vector<char>& skip, SplitMix64& rng);

// Fast local moving (the paper's Algorithm A.2, MoveNodesFast): label[v] < g.n for every node;
// nodes whose `skip` is set never move; batches judged in parallel on `threads` (0 = default), the
// same labels for any number (leiden_pass.hpp's move_nodes_with). Returns the number of moves.
int64_t leiden_move_nodes(const LeidenGraph& g, const LeidenTerms& t, const std::vector<char>& skip,
                          std::vector<int64_t>& label, SplitMix64& rng, int threads);

// Refinement (RefinePartition with MergeNodesSubset): subcommunities of `label`'s communities,
// numbered 0 .. returned count - 1 by first appearance in node order, into `refined`; the
// communities refined in parallel on `threads` (0 = default), the same result for any number.
int64_t leiden_refine(const LeidenGraph& g, const LeidenTerms& t, const std::vector<char>& skip,
                      const std::vector<int64_t>& label, SplitMix64& rng, std::vector<int64_t>& refined, int threads);

// The aggregation's memory, kept from level to level and pass to pass of one call: its scratch,
// and the arrays of a level that is no longer needed (recycle), which become the next aggregate's.
// Freed and fresh arrays of 10-20 MB cost a page fault per 4 KiB touched: the planted partition's
// aggregations took 22,000-27,000 faults a call, about all of the call's.
struct AggregateBuffers {
  std::vector<CommunityWeights> scratch;  // per thread, at least as many slots as communities
  // Arrays for the next aggregates: two of each, since a pass's first two aggregates are both
  // large (planted: 1.39 M and 1.0 M entries) and the next pass makes them again.
  EdgeArray<int64_t> spare_columns[2];
  EdgeArray<double> spare_weights[2];
  // Keeps g's arrays in place of smaller spare ones (g is left without them).
  void recycle(LeidenGraph& g);
};

// The graph of `k` communities (community[v] in 0 .. k-1): node weights summed, edges between
// communities summed in member order, edges inside dropped; a row's columns in the order first
// met (members in node order, each one's row in order). Rows are built in parallel on
// `threads` (0 = default), each one sequentially: the same graph for any thread count. buffers
// (may be null): memory reused from the call's earlier aggregations.
LeidenGraph leiden_aggregate(const LeidenGraph& g, const std::vector<int64_t>& community, int64_t k, int threads,
                             AggregateBuffers* buffers = nullptr);

// Renumbers labels by first appearance (0, 1, ...); returns their number.
int64_t renumber_by_first_appearance(std::vector<int64_t>& labels);

// Splits every community into its connected pieces (edges of non-zero weight), in place, the
// pieces numbered by first appearance in node order; returns how many pieces were added (0 when
// every community was connected). The check runs on `threads` (0 = default), the same result for
// any number.
int64_t split_disconnected(const GraphData& g, std::vector<int64_t>& labels, int threads);
int64_t split_disconnected(const LeidenGraph& g, std::vector<int64_t>& labels, int threads);

struct LeidenStats {
  int64_t passes = 0;       // passes made
  int64_t levels = 0;       // levels over all passes (aggregations + 1 per pass)
  int64_t moves = 0;        // node moves over all levels and passes
  int64_t split_pieces = 0; // pieces the final connectivity split added (0 at convergence)
  bool one_weight = false;  // level 0 read one weight for every entry (LeidenGraph::unit_weight)
};

fc_leiden_options default_leiden_options();
void validate_leiden_options(const fc_leiden_options& options);

// The whole method; initial (may be null): n labels, each >= 0 (validated by the caller:
// check_initial_labels). threads = OpenMP threads of the degrees and the aggregation (0 = default).
// one_weight false makes level 0 fill its weight array even where every entry has one weight: for
// the test that both paths give the same labels and Q, never for a caller.
Modules find_leiden(const GraphData& g, const fc_leiden_options& options, const int64_t* initial, int threads,
                    Progress& progress, LeidenStats* stats = nullptr, bool one_weight = true);

// The modularity terms of the options' quality (CPM: Newman's Q at gamma 1, which Q reports), after
// the check that CPM's resolution times n^2 fits a double (FC_ERR_INVALID_ARG naming it).
ModularityTerms leiden_quality_terms(const GraphData& g, const fc_leiden_options& options, int threads);

// The starting partition of fc_leiden's passes: initial's communities (any values) numbered by
// first appearance, or one community per node when initial is null; a node whose `lone` is set
// (no edge) is a community of its own after them, whatever its initial label.
std::vector<int64_t> leiden_start(const int64_t* initial, const std::vector<char>& lone);

// FC_ERR_INVALID_ARG naming the first negative label and its node.
void check_initial_labels(const int64_t* labels, int64_t n);

}  // namespace fc
