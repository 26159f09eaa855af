// A group's induced subgraph for fc_modularity (modules/modularity.cpp): what the eigensolver's host
// products, the diagonal correction and the Kernighan-Lin fine-tuning read. Made from the whole
// graph (induced) or, for a group made by a split, from its parent's subgraph (induced_from_parent),
// which holds only the parent's entries in 2 or 4 bytes each instead of the graph's 12: the voxel
// network's chain of splits, each a network peeled off the rest, rebuilds the rest's subgraph
// about 35 times. Either way the same entries in the same order, so the same bits.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <mutex>
#include <vector>

#include "graph/graph.hpp"
#include "modules/modularity.hpp"

namespace fc {

// A group's subgraph, in local node numbers. The eigensolver's products read it once each, and
// they are most of fc_modularity's time on large graphs, so it is kept small: its columns are
// 16-bit (columns16) for groups of at most 65,536 nodes, else 32-bit (columns32) unless the group
// has 2^31 nodes or more (columns64), and its
// entries' combined weights (c+ A+ - c- A-) are `weights`, or all `weight` when the graph's
// weights are uniform (a binary graph: then `weights` stays empty). 2 or 4 bytes an entry instead
// of 16 on a binary graph.
struct LocalGraph {
  int64_t n = 0;
  std::vector<int64_t> offsets;
  int width = 32;  // bits of a column: 16, 32 or 64
  EdgeArray<uint16_t> columns16;
  EdgeArray<int32_t> columns32;
  EdgeArray<int64_t> columns64;
  EdgeArray<double> weights;
  bool uniform = false;
  double weight = 0;
  int64_t entries() const { return offsets.empty() ? 0 : offsets.back(); }
  int64_t col(int64_t e) const {
    const size_t x = static_cast<size_t>(e);
    return width == 16 ? int64_t(columns16[x]) : width == 32 ? int64_t(columns32[x]) : columns64[x];
  }
  double w(int64_t e) const { return uniform ? weight : weights[static_cast<size_t>(e)]; }
  std::vector<double> k_pos, k_neg;  // the degrees in the whole graph
  std::vector<double> row_sum;       // sum_{l in g} (c+ A+ - c- A-)_il
  double group_pos = 0, group_neg = 0;  // K+_g, K-_g
};

// f(columns) with the subgraph's column array as its own type (uint16_t, int32_t or int64_t), so
// that a pass over the entries is compiled once per width instead of testing it per entry.
template <class F>
decltype(auto) with_columns(const LocalGraph& lg, F&& f) {
  if (lg.width == 16) return f(lg.columns16.data());
  if (lg.width == 32) return f(lg.columns32.data());
  return f(lg.columns64.data());
}

// A uniform weight that is a power of two (a binary graph's 1): any sum of count such weights,
// added one by one in any order, is exact (count < 2^53), so it equals count * weight, and a
// sum of +-weight terms equals weight * (an integer sum). Passes use that to skip the chain of
// dependent floating-point adds, with the same bits.
inline bool exact_multiples(const LocalGraph& lg) {
  int exponent = 0;
  return lg.uniform && lg.weight != 0 && std::fabs(std::frexp(lg.weight, &exponent)) == 0.5;
}

inline double combined_weight(const ModularityTerms& t, float w) { return w > 0 ? t.c_pos * w : t.c_neg * w; }

// sum[k] = sum over row i0 + k's entries of weight(e) * x[column], k < rows <= kRowsAtOnce: each
// row one sequential sum in entry order (the device's order: kernels/group_product.cu), the rows'
// sums interleaved over their common length. One row's chain of dependent adds is bound by the
// add latency, not by the memory: four independent chains at once took the voxel network's
// products from 8.8 to 5.2 ms a pass on 2 cores (with 16-bit columns; a microbenchmark, same bits).
constexpr int64_t kRowsAtOnce = 4;
template <class Column, class Weight>
void row_sums(const LocalGraph& lg, const Column* columns, Weight weight, const double* x, int64_t i0, int64_t rows,
              double* sum) {
  int64_t e[kRowsAtOnce], end[kRowsAtOnce];
  int64_t common = rows == kRowsAtOnce ? std::numeric_limits<int64_t>::max() : 0;
  for (int64_t k = 0; k < rows; ++k) {
    e[k] = lg.offsets[static_cast<size_t>(i0 + k)];
    end[k] = lg.offsets[static_cast<size_t>(i0 + k + 1)];
    sum[k] = 0;
    common = std::min(common, end[k] - e[k]);
  }
  static_assert(kRowsAtOnce == 4, "the interleaved loop is written for 4 rows");
  for (int64_t d = 0; d < common; ++d) {
    sum[0] += weight(e[0] + d) * x[static_cast<size_t>(columns[e[0] + d])];
    sum[1] += weight(e[1] + d) * x[static_cast<size_t>(columns[e[1] + d])];
    sum[2] += weight(e[2] + d) * x[static_cast<size_t>(columns[e[2] + d])];
    sum[3] += weight(e[3] + d) * x[static_cast<size_t>(columns[e[3] + d])];
  }
  for (int64_t k = 0; k < rows; ++k)
    for (int64_t f = e[k] + common; f < end[k]; ++f) sum[k] += weight(f) * x[static_cast<size_t>(columns[f])];
}

// A split group's subgraph, kept for its two children to make theirs from: which side each of
// its nodes went to (+1: child 0) and its number within that side.
struct ParentGraph {
  std::unique_ptr<LocalGraph> graph;
  std::vector<int8_t> side;
  std::vector<int64_t> index_in_child;
};

// Subgraphs whose groups are done, kept with their capacity for the next analyses (so that their
// pages are not touched fresh again), and handed to the children as shared ParentGraphs that come
// back here when the second child has made its own.
class SubgraphRecycler {
 public:
  // A subgraph to fill with at most `entries` stored entries: the smallest kept one with room for
  // them (its columns' capacity), unless that room is more than kRoomSlack times the entries and
  // more than kSmallRoom (then a new one); if none has room, the largest kept one (its arrays are
  // replaced as it is filled), else a new one. Taking the one that fits matters in a chain of
  // splits: a small child that took the large arrays left its large sibling to fill fresh pages
  // (the voxel network's subgraphs took 60-110 ms instead of 10-15 ms on the CPU machine), and a
  // small child's own fresh pages cost little.
  std::unique_ptr<LocalGraph> take(int64_t entries);
  static constexpr size_t kRoomSlack = 4;
  static constexpr size_t kSmallRoom = size_t(1) << 20;
  // A subgraph no longer needed (its group stayed whole), kept for later takes.
  void keep(std::unique_ptr<LocalGraph> graph);
  // `graph` (a split group's, filled) shared by its children; back here once both let go.
  std::shared_ptr<const ParentGraph> share(std::unique_ptr<LocalGraph> graph, const std::vector<int8_t>& side);

 private:
  void give_back(std::unique_ptr<LocalGraph> graph);
  std::mutex mutex_;
  std::vector<std::unique_ptr<LocalGraph>> kept_;
  int64_t shared_ = 0;  // subgraphs shared and not yet back (kept_ has room for them)
};

// The subgraph of `nodes` (ascending) from the whole graph; local_of is -1 for every node and is
// left so. `threads`: OpenMP threads (0 = default).
void induced(const GraphData& g, const ModularityTerms& t, const std::vector<int64_t>& nodes,
             std::vector<int64_t>& local_of, int threads, LocalGraph& lg);

// The entries of the rows of `nodes` in the graph, and of the rows of the parent's side `which` in
// the parent's subgraph: bounds of the entries of their subgraphs, known before they are made.
int64_t row_entries(const GraphData& g, const std::vector<int64_t>& nodes);
int64_t parent_row_entries(const ParentGraph& parent, int which);

// The subgraph of the parent's side `which` (0: side +1) from the parent's: the same as induced()
// on those nodes, bit for bit.
void induced_from_parent(const ParentGraph& parent, int which, int threads, LocalGraph& lg);

}  // namespace fc
