// The steps of the synchronous Leiden (fc_leiden_v2 with FC_LEIDEN_SYNCHRONOUS), as an engine a
// backend provides: the CPU's (cpu/cpu_leiden.cpp) runs them on the host, the CUDA backend's
// (cuda/cuda_leiden.cpp) on its device. modules/leiden_sync.cpp drives either through the same
// sequence of calls, and every step's result is defined below to the bit (kernels/leiden_rules.hpp
// holds the arithmetic), so both engines give the same labels.
//
// A level is a graph of n nodes (symmetric CSR, no self-loops, int64 fixed-point weights w,
// node weights kp, kn), a partition `label` (community ids < n) with per-community sums Kp, Kn
// and sizes, and the map from level-0 nodes to this level's nodes. A node without entries is
// "isolated": it never moves or joins, and stays a community of its own.
//
// Moves (begin_moves, then move_round for round = 0, 1, ... while nodes are active): in round r
// every active node v that sync_judged(salt, v, r) picks, against the state before the round,
// the neighbouring community c != label[v] of the largest sync_gain (ties: smaller c) and moves
// there when that gain exceeds epsilon, except that a node alone in its community does not move
// to another community of one node with a larger id (two such nodes would swap for ever). A node
// not alone may also move alone into an empty community: id v when it is empty, else n + v when
// that is (only v ever takes either, so simultaneous moves never meet there; community ids are
// below 2n), a candidate like the others. Sums are then updated. After the round a node is active when it was active and not judged, or when
// a neighbour moved. Every node starts active except isolated ones. With SyncTerms::max_node_moves
// = M > 0, a node that has moved M times in the level is neither judged nor active again in it.
//
// Refinement (begin_refine, then refine_round for round = 0, 1, ...): subcommunities inside each
// community, named by their first node; every node starts alone. In round r a node v that is still
// alone, not isolated, picked by sync_judged(salt, v, r) and well connected to its community joins,
// against the state before the round, the subcommunity s (of its community, next to it, s != v)
// of the largest gain w_vs - null(v alone -> s) >= 0 (ties: smaller s) among those that are well
// connected and not a node alone that is judged this round. ext (the weight from a subcommunity
// to the rest of its community) and the sums are exact after each round.
//
// Aggregation: each subcommunity becomes a node (numbered in order of its first node), its
// weights the sums of its members', its entries the sums of the entries between members of
// different subcommunities (columns ascending); its community is its members', the communities
// numbered in order of their ids.
//
// Layered (LeidenLevelZero::layers = L > 0; multilayer modularity, modules/multilayer_sync.cpp):
// the null model has a term per layer. A node's weight is a list of (layer l, weight > 0), layers
// ascending (level 0: node_weight[v] in node_layer[v], none when 0); a community's sums are a row
// of L values K[c * L + l]. Every gain above is then kernels::layered_null's: a move
// dw - layered_null(v, to c's row, from a's, self) (alone into an empty community: c's row is
// zeros); a join w_vs - layered_null(v, to s's row). A subcommunity's sums are a row of L values
// too, and its "own" term layered_own(its row, its community's row): recomputed after each round
// for the subcommunities that grew (a node alone: its list against its community's row, as
// layered_null(v, from S's row, self)); it is well connected when layered_well_connected(ext, own).
// Aggregation: a new node's list is its subcommunity's row, zeros left out.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

namespace fc {

namespace kernels {
struct SyncTerms;  // kernels/leiden_rules.hpp, included by the files that fill or read one
}

// Level 0 as the caller's graph holds it, and how to turn it into fixed point: entry e of row i
// is kept when its weight is non-zero and its column is not i; its weight is
// sync_fixed(w, w > 0 ? c_pos : c_neg, scale) (cpm: sync_fixed(w, 1, scale)). Node weights:
// cpm: kp = 1, kn = 0; else kp = the sum over the whole row (self-loop included) of
// sync_fixed(w, 1, scale) for w > 0, kn the same of -w for w < 0.
struct LeidenLevelZero {
  int64_t n = 0;
  const int64_t* offsets = nullptr;  // n + 1
  const int64_t* columns = nullptr;
  const float* weights = nullptr;
  double c_pos = 1, c_neg = 1, scale = 1;
  bool cpm = false;
  // Layered (layers > 0): weights and c_pos, c_neg, cpm unused; fixed[e] is entry e's weight in
  // fixed point already, every entry kept (none of weight 0, no self-loops); node v weighs
  // node_weight[v] (fixed point, >= 0) in layer node_layer[v]; layer_gp[l] the null term's
  // coefficient of layer l (SyncTerms' gp and gn unused).
  int64_t layers = 0;
  const int64_t* fixed = nullptr;
  const int32_t* node_layer = nullptr;
  const int64_t* node_weight = nullptr;
  const double* layer_gp = nullptr;
};

struct LeidenRound {
  int64_t changed = 0;  // moves or joins made in the round
  int64_t active = 0;   // (moves) nodes active after it
};

class LeidenEngine {
 public:
  virtual ~LeidenEngine() = default;
  // Back to level 0 with partition `labels` (n ids < n); the level-0 graph is the engine's own
  // from construction.
  virtual void start_pass(const std::vector<int64_t>& labels) = 0;
  virtual int64_t level_nodes() const = 0;
  virtual void begin_moves() = 0;
  virtual LeidenRound move_round(uint64_t salt, int64_t round) = 0;
  // Rounds first .. first + count - 1 of move_round (count <= round_batch()), the i-th's result in
  // out[i]; a round after one that left no node active changes nothing (every node inactive), so
  // the engine may run it or not: its result is zeros either way. The CUDA engine runs a batch
  // back to back and reads the counts once (a synchronization a round was most of a small
  // level's time).
  virtual int64_t round_batch() const { return 1; }
  virtual void move_rounds(uint64_t salt, int64_t first, int64_t count, LeidenRound* out) {
    for (int64_t i = 0; i < count; ++i) out[i] = i > 0 && out[i - 1].active == 0 ? LeidenRound{} : move_round(salt, first + i);
  }
  // The same for refine_round: rounds after two without a join change nothing either (the two
  // judged every node alone against the same state).
  virtual void refine_rounds(uint64_t salt, int64_t first, int64_t count, LeidenRound* out) {
    for (int64_t i = 0; i < count; ++i)
      out[i] = i > 1 && out[i - 1].changed == 0 && out[i - 2].changed == 0 ? LeidenRound{} : refine_round(salt, first + i);
  }
  // The number of distinct communities of the level.
  virtual int64_t communities() = 0;
  virtual void begin_refine() = 0;
  virtual LeidenRound refine_round(uint64_t salt, int64_t round) = 0;
  // The number of subcommunities.
  virtual int64_t subcommunities() = 0;
  virtual void aggregate() = 0;
  // Each level-0 node's community: label[map(v)] (n values).
  virtual void labels(std::vector<int64_t>& out) = 0;
  // For the final checks of labels (n values, any ids < n) of the caller's graph: the number of
  // connected pieces of their communities (through kept entries), or -1 where the engine leaves
  // it to the host.
  virtual int64_t pieces(const std::vector<int64_t>& labels) {
    (void)labels;
    return -1;
  }
  // After pieces(labels): each level-0 node's piece, named by its smallest node (n values), or
  // false where the engine has none (the host's split_disconnected then runs). Renumbered by first
  // appearance, they are split_disconnected's labels, renumbered likewise.
  virtual bool piece_labels(std::vector<int64_t>& out) {
    (void)out;
    return false;
  }
  // Each row's weight inside its community as modularity.hpp's modularity_of_rows takes them (the
  // caller's weights, in row order, self-loops and all), or false where the host should sum them.
  virtual bool rows_inside(const std::vector<int64_t>& labels, std::vector<double>& row_pos,
                           std::vector<double>& row_neg) {
    (void)labels;
    (void)row_pos;
    (void)row_neg;
    return false;
  }
  // Where the engine's time went, to stderr, for FASTCONN_PROFILE=leiden (may print nothing).
  virtual void report_phases() {}
};

// The host engine (threads: OpenMP threads, 0 = default; the results do not depend on them).
std::unique_ptr<LeidenEngine> make_cpu_leiden_engine(const LeidenLevelZero& g, const kernels::SyncTerms& terms,
                                                     int threads);

}  // namespace fc
