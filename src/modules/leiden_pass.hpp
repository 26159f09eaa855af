// Leiden's moves, pass and refinement as templates over the null model, so that the single-graph
// Leiden (leiden.cpp: one null term, kp / kn) and multilayer modularity (multilayer.cpp: a null
// term per layer) run the same steps: the paper's MoveNodesFast with a queue of nodes,
// RefinePartition with MergeNodesSubset, and a pass of moves, refinement and aggregation level
// after level.
//
// Moves: every movable node is queued once in a seeded random order; a node taken from the queue
// moves to the neighbouring community (or an empty one) of the largest gain above epsilon, and its
// neighbours outside its new community are queued again (those inside cannot gain from its move).
// The queue is judged in batches in parallel and settled in queue order (move_nodes_with).
//
// Refinement: within each community S of the moved partition, every node starts alone; in a
// seeded random order, a node still alone and well connected to S joins one of the
// well-connected subcommunities of S next to it, drawn with probability ~ exp(gain / theta) among
// those of non-negative gain (staying alone has gain 0). A subcommunity grows only by nodes joined
// to it through an edge, so every one is connected: aggregating them, rather than the
// communities, is what keeps communities connected.
#pragma once

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "base/parallel_team.hpp"
#include "modules/leiden.hpp"

namespace fc {

// One bit per node: the moves' flags, read for every neighbour of a moved node, fit in L1 (4.8 KB
// for 38,400 nodes) where a byte or an index per node did not.
struct NodeBits {
  std::vector<uint64_t> word;
  explicit NodeBits(int64_t n) : word(static_cast<size_t>((n + 63) / 64), 0) {}
  bool operator[](int64_t v) const { return word[static_cast<size_t>(v >> 6)] >> (v & 63) & 1; }
  void set(int64_t v) { word[static_cast<size_t>(v >> 6)] |= uint64_t(1) << (v & 63); }
  void clear(int64_t v) { word[static_cast<size_t>(v >> 6)] &= ~(uint64_t(1) << (v & 63)); }
};

// Model: the null model of the moves, over communities named by ids < g.n:
//   void begin(const std::vector<int64_t>& label)    sums per community of `label`
//   double null(int64_t v, int64_t c, int64_t a)     the null term of moving v from a (which holds
//                                                     it) to c; c < 0: to an empty community; called
//                                                     from several threads at once between moves
//   void move(int64_t v, int64_t a, int64_t c)       v moves from a to c
//   void emptied(int64_t v, int64_t a)               a held v alone and is empty now: its sums
//                                                     start again from exact zeros
// A move gains (w_vc - w_va) - null(v, c, a). Nodes whose `skip` is set are never queued.
// Returns the number of moves.
//
// The queue is taken in batches, the next nodes holding about kMoveBatchWork row entries. A batch's
// nodes are judged in parallel on `threads` (0 = default) against the state before the batch:
// each one's best neighbouring community and its weights to it and to its own. They are then
// settled one by one in queue order. When a node moves from a to c, each neighbour still pending
// in the batch has those two judged weights corrected by the edge's weight where a or c is its
// own community or its judged best, so at its turn both are exact, and its move (to its judged
// best, or alone to an empty community) is checked against the current community sums: O(1), no
// second scan of its row. The move also queues that neighbour again (it is out of the queue while
// pending), so a community made better for it than its judged best is still considered, in a
// later batch. Every move raises the quality by more than epsilon and a node is queued after every
// change around it, as in the paper's sequential loop; the batches depend on the queue and the
// degrees alone and the corrections are made in queue order, so the labels are the same for any
// thread count.
//
// Batches sized by work, not by nodes: a sparse graph's batch holds many nodes, a dense one's few,
// and each parallel region gets the same work. Measured on the planted partition (38,400 nodes,
// 730k edges; seeds 1-8) and the voxel network (38,400 nodes, degree 576), 2 threads: batches of
// 65,536 entries took 3-6 passes on the planted graph, 262,144 took 2-3 and 1,048,576 2-3 with
// slower moves on the voxel network (bench/RESULTS-leiden.md). Small graphs are one batch.
constexpr int64_t kMoveBatchWork = 262144;

template <class Model>
int64_t move_nodes_with(const LeidenGraph& g, Model& model, double epsilon, const std::vector<char>& skip,
                        std::vector<int64_t>& label, SplitMix64& rng, int threads) {
  const int64_t n = g.n;
  if (n == 0) return 0;
  model.begin(label);
  std::vector<int64_t> count(static_cast<size_t>(n), 0);
  for (int64_t v = 0; v < n; ++v) ++count[static_cast<size_t>(label[static_cast<size_t>(v)])];
  // Unused community ids, the lowest on top: a node may move to an empty community.
  std::vector<int64_t> empty;
  for (int64_t c = n - 1; c >= 0; --c)
    if (count[static_cast<size_t>(c)] == 0) empty.push_back(c);

  // A ring of n slots holds the queue, since a node is in it at most once. A skipped node counts
  // as queued for ever, so one test keeps it out.
  std::vector<int64_t> queue = shuffled_nodes(skip, rng);
  NodeBits queued(n);
  for (int64_t v = 0; v < n; ++v)
    if (skip[static_cast<size_t>(v)]) queued.set(v);
  for (int64_t v : queue) queued.set(v);
  int64_t head = 0, size = int64_t(queue.size());
  queue.resize(static_cast<size_t>(n));

  const int64_t* offsets = g.offsets.data();
  const int64_t* columns = g.column_data();
  const EdgeWeights weights = g.edge_weights();
  int64_t* lab = label.data();
  struct Judged {
    int64_t best;  // the best neighbouring community other than its own; -1: none
    double w_best, w_own;
  };
  std::vector<int64_t> batch;
  std::vector<Judged> judged;
  // Whether a node is pending in the batch, and then its index there.
  NodeBits is_pending(n);
  std::vector<int64_t> pending(static_cast<size_t>(n));
  std::vector<CommunityWeights> scratch;
  int64_t moves = 0;

  auto judge = [&](int64_t v, CommunityWeights& cw) {
    for (int64_t e = offsets[v]; e < offsets[v + 1]; ++e) cw.add(lab[columns[e]], weights[e]);
    const int64_t a = lab[v];
    Judged j{-1, 0.0, cw.of(a)};
    double best_gain = 0;
    for (int64_t c : cw) {
      if (c == a) continue;
      const double gain = cw.weight(c) - j.w_own - model.null(v, c, a);
      if (j.best < 0 || gain > best_gain) {
        best_gain = gain;
        j.best = c;
        j.w_best = cw.weight(c);
      }
    }
    cw.clear();
    return j;
  };
  auto settle = [&](int64_t i) {
    const int64_t v = batch[static_cast<size_t>(i)];
    is_pending.clear(v);
    const Judged j = judged[static_cast<size_t>(i)];
    const int64_t a = lab[v];
    const size_t as = static_cast<size_t>(a);
    int64_t best = a;
    double best_gain = epsilon;
    // A judged best emptied since is an empty community: the test after covers it.
    if (j.best >= 0 && count[static_cast<size_t>(j.best)] > 0) {
      const double gain = j.w_best - j.w_own - model.null(v, j.best, a);
      if (gain > best_gain) {
        best_gain = gain;
        best = j.best;
      }
    }
    // Alone in an empty community (the same as staying when v is alone already).
    if (count[as] > 1 && !empty.empty() && -j.w_own - model.null(v, -1, a) > best_gain) best = empty.back();
    if (best == a) return;
    const size_t bs = static_cast<size_t>(best);
    if (!empty.empty() && best == empty.back()) empty.pop_back();
    model.move(v, a, best);
    --count[as];
    ++count[bs];
    if (count[as] == 0) {
      model.emptied(v, a);
      empty.push_back(a);
    }
    lab[v] = best;
    ++moves;
    for (int64_t e = offsets[v]; e < offsets[v + 1]; ++e) {
      const int64_t u = columns[e];
      if (is_pending[u]) {
        const int64_t lu = lab[u];
        Judged& p = judged[static_cast<size_t>(pending[static_cast<size_t>(u)])];
        if (lu == a) p.w_own -= weights[e];
        if (lu == best) p.w_own += weights[e];
        if (p.best == a) p.w_best -= weights[e];
        if (p.best == best) {
          p.w_best += weights[e];
          continue;  // u's judged best and own are exact at its turn, and no other community gained
        }
      }
      if (queued[u] || lab[u] == best) continue;  // nodes inside v's new community gain nothing from its move
      queued.set(u);
      const int64_t tail = head + size;  // < 2n: a subtraction, not a 64-bit division per node queued
      queue[static_cast<size_t>(tail >= n ? tail - n : tail)] = u;
      ++size;
    }
  };
  while (size > 0) {
    batch.clear();
    int64_t work = 0;
    while (size > 0 && work < kMoveBatchWork) {
      const int64_t v = queue[static_cast<size_t>(head)];
      head = head + 1 == n ? 0 : head + 1;
      --size;
      queued.clear(v);
      is_pending.set(v);
      pending[static_cast<size_t>(v)] = int64_t(batch.size());
      batch.push_back(v);
      work += offsets[v + 1] - offsets[v] + 1;
    }
    const int64_t b = int64_t(batch.size());
    judged.resize(static_cast<size_t>(b));
    const int team = parallel_team(work, threads, b);
    while (int(scratch.size()) < team) scratch.emplace_back(n);
#pragma omp parallel for schedule(static) num_threads(team) if (team > 1)
    for (int64_t i = 0; i < b; ++i)
      judged[static_cast<size_t>(i)] = judge(batch[static_cast<size_t>(i)], scratch[static_cast<size_t>(omp_get_thread_num())]);
    for (int64_t i = 0; i < b; ++i) settle(i);
  }
  return moves;
}

// Null: the null model of the refinement, whose subcommunities are named by a node (their first):
//   void begin(const std::vector<int64_t>& label)   sums per community of `label`; every node its
//                                                    own subcommunity
//   bool well_connected(double ext, int64_t r, int64_t s)  subcommunity r of community s, with
//                                                    weight ext to the rest of s, would gain
//                                                    nothing by leaving s alone
//   double join_gain(int64_t v, double w, int64_t r) gain of v (alone) joining r, weight w to it
//   void join(int64_t v, int64_t r)                  v joins r
// After begin, calls for different communities must touch disjoint state (a subcommunity's and
// its own community's sums), since communities are refined in parallel.
// Returns the number of subcommunities, numbered 0 .. count - 1 by first appearance into refined.
//
// Communities are refined independently, on `threads` (0 = default): each visits its nodes in the
// order of one seeded shuffle of all nodes, and draws its random merges from a stream of its own,
// seeded by (one draw of rng, the community's id). So the subcommunities depend on the seed alone,
// never on the thread count or on which community a thread took first.
// exp(z) of the refinement's draws is taken as 0 below this (about the smallest normal double's log).
constexpr double kLeastExponent = -708;

template <class Null>
int64_t refine_partition(const LeidenGraph& g, Null& null, double randomness, const std::vector<char>& skip,
                         const std::vector<int64_t>& label, SplitMix64& rng, std::vector<int64_t>& refined,
                         int threads) {
  const int64_t n = g.n;
  refined.resize(static_cast<size_t>(n));
  null.begin(label);
  const int64_t* offsets = g.offsets.data();
  const int64_t* columns = g.column_data();
  const EdgeWeights weights = g.edge_weights();
  const int64_t* lab = label.data();
  const int team = parallel_team(offsets[n] + n, threads);
  // Per subcommunity r (id: its first node): size, and ext[r] = the weight from r to the rest of its S.
  std::vector<double> ext(static_cast<size_t>(n), 0.0);
  std::vector<int64_t> r_size(static_cast<size_t>(n), 1);
#pragma omp parallel for schedule(static) num_threads(team) if (team > 1)
  for (int64_t v = 0; v < n; ++v) {
    refined[static_cast<size_t>(v)] = v;
    double w = 0;
    for (int64_t e = offsets[v]; e < offsets[v + 1]; ++e)
      if (lab[columns[e]] == lab[v]) w += weights[e];
    ext[static_cast<size_t>(v)] = w;
  }

  // The shuffle's nodes grouped by community (a stable counting sort), and the communities that
  // have any: the parallel loop's work.
  const std::vector<int64_t> order = shuffled_nodes(skip, rng);
  const uint64_t streams = rng.next();
  std::vector<int64_t> start(static_cast<size_t>(n + 1), 0), grouped(order.size()), communities;
  for (int64_t v : order) ++start[static_cast<size_t>(lab[v] + 1)];
  for (int64_t s = 0; s < n; ++s) {
    if (start[static_cast<size_t>(s + 1)] > 0) communities.push_back(s);
    start[static_cast<size_t>(s + 1)] += start[static_cast<size_t>(s)];
  }
  {
    std::vector<int64_t> next(start.begin(), start.end() - 1);
    for (int64_t v : order) grouped[static_cast<size_t>(next[static_cast<size_t>(lab[v])]++)] = v;
  }

  const int64_t community_count = int64_t(communities.size());
  const int community_team = int(std::min<int64_t>(team, community_count));
#pragma omp parallel num_threads(community_team) if (community_team > 1)
  {
    CommunityWeights cw(n);
    std::vector<int64_t> candidate;
    std::vector<double> gain;
#pragma omp for schedule(dynamic, 1)
    for (int64_t x = 0; x < community_count; ++x) {
      const int64_t s = communities[static_cast<size_t>(x)];
      SplitMix64 draw(SplitMix64(streams + uint64_t(s) * 0xD1B54A32D192ED03ULL).next());
      for (int64_t i = start[static_cast<size_t>(s)]; i < start[static_cast<size_t>(s + 1)]; ++i) {
        const int64_t v = grouped[static_cast<size_t>(i)];
        const size_t vs = static_cast<size_t>(v);
        if (r_size[static_cast<size_t>(refined[vs])] != 1) continue;  // no longer alone
        if (!null.well_connected(ext[vs], v, s)) continue;
        // A run of entries into one subcommunity (most of a dense community's rows go to its
        // largest) is summed in a register and stored when it ends: the same additions in the
        // same order, without a store and reload of the slot, the loop's chain, per entry.
        int64_t run = -1;
        double sum = 0;
        for (int64_t e = offsets[v]; e < offsets[v + 1]; ++e) {
          const int64_t u = columns[e];
          if (lab[u] != s) continue;
          const int64_t r = refined[static_cast<size_t>(u)];
          if (r != run) {
            if (run >= 0) cw.store(run, sum);
            sum = cw.open(r);
            run = r;
          }
          sum += weights[e];
        }
        if (run >= 0) cw.store(run, sum);
        candidate.assign(1, v);  // staying alone: gain 0
        gain.assign(1, 0.0);
        double top = 0;
        for (int64_t r : cw) {
          const size_t rs = static_cast<size_t>(r);
          if (r == v || !null.well_connected(ext[rs], r, s)) continue;
          const double d = null.join_gain(v, cw.weight(r), r);
          if (d < 0) continue;
          candidate.push_back(r);
          gain.push_back(d);
          top = std::max(top, d);
        }
        int64_t chosen = v;
        if (candidate.size() > 1) {
          // Pr(r) ~ exp(gain_r / theta), scaled by exp(-top / theta) so that nothing overflows.
          // Below kLeastExponent the weight is 0, not a subnormal: libm's underflow path (errno)
          // took 2 % of the voxel network's time, and the top candidate's 1 hides such a term.
          double total = 0;
          for (double& d : gain) {
            const double z = (d - top) / randomness;
            total += (d = z < kLeastExponent ? 0.0 : std::exp(z));
          }
          const double u = draw.uniform() * total;
          double cumulative = 0;
          chosen = candidate.back();
          for (size_t c = 0; c < candidate.size(); ++c) {
            cumulative += gain[c];
            if (u < cumulative) {
              chosen = candidate[c];
              break;
            }
          }
        }
        if (chosen != v) {
          const size_t cs = static_cast<size_t>(chosen);
          ext[cs] += ext[vs] - 2 * cw.weight(chosen);
          null.join(v, chosen);
          ++r_size[cs];
          r_size[vs] = 0;
          refined[vs] = chosen;
        }
        cw.clear();
      }
    }
  }
  return renumber_by_first_appearance(refined);
}

// Ops: one level's graph type and steps:
//   using Level = ...;                                       a level's graph
//   const LeidenGraph& graph(const Level&)                   its edges
//   int64_t move(const Level&, const std::vector<char>& skip, std::vector<int64_t>& p, SplitMix64&)
//   int64_t refine(const Level&, const std::vector<char>& skip, const std::vector<int64_t>& p,
//                  SplitMix64&, std::vector<int64_t>& refined)
//   Level aggregate(const Level&, const std::vector<int64_t>& refined, int64_t k)
//   void recycle(Level&)                                     a level no longer needed: its memory may
//                                                            serve a later aggregate
// One pass from `labels` (ids < n) to the pass's partition in `labels`: moves, refinement and
// aggregation of the refined subcommunities (each starting in the community that holds it), level
// after level while aggregation shrinks the graph. Returns the moves made; `levels` counts levels.
template <class Ops>
int64_t leiden_pass_with(Ops& ops, const typename Ops::Level& level0, const std::vector<char>& skip0,
                         std::vector<int64_t>& labels, SplitMix64& rng, Progress& progress, int64_t& levels) {
  using Level = typename Ops::Level;
  const Level* g = &level0;
  Level owned;
  std::vector<char> skip = skip0;
  std::vector<int64_t> p = labels, level_of(labels.size());
  std::iota(level_of.begin(), level_of.end(), int64_t(0));
  int64_t moves = 0;
  for (;;) {
    ++levels;
    moves += ops.move(*g, skip, p, rng);
    progress.advance(0);
    const int64_t n = ops.graph(*g).n;
    if (renumber_by_first_appearance(p) == n) break;  // every node alone: nothing to aggregate
    std::vector<int64_t> refined;
    const int64_t k = ops.refine(*g, skip, p, rng, refined);
    if (k == n) break;  // aggregation would not shrink the graph
    Level next = ops.aggregate(*g, refined, k);
    // The aggregate's partition: each subcommunity starts in the community that holds it.
    std::vector<int64_t> next_p(static_cast<size_t>(k));
    for (int64_t v = 0; v < n; ++v) next_p[static_cast<size_t>(refined[static_cast<size_t>(v)])] = p[static_cast<size_t>(v)];
    for (int64_t& x : level_of) x = refined[static_cast<size_t>(x)];
    const LeidenGraph& ng = ops.graph(next);
    skip.assign(static_cast<size_t>(k), 0);
    for (int64_t r = 0; r < k; ++r)
      skip[static_cast<size_t>(r)] = ng.offsets[static_cast<size_t>(r + 1)] == ng.offsets[static_cast<size_t>(r)];
    ops.recycle(owned);
    owned = std::move(next);
    g = &owned;
    p = std::move(next_p);
    renumber_by_first_appearance(p);
  }
  for (size_t o = 0; o < labels.size(); ++o) labels[o] = p[static_cast<size_t>(level_of[o])];
  ops.recycle(owned);
  return moves;
}

}  // namespace fc
