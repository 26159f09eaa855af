// fc_modularity's final single-node moves (see final_moves.hpp).
#include "modules/final_moves.hpp"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>

#include "base/parallel_team.hpp"
#include "modules/leading_eigen.hpp"
#include "modules/local_graph.hpp"

namespace fc {

namespace {

// Every community is a candidate target while there are at most this many (else the communities
// of the node's neighbours); a pass gives up after kMaxSweeps sweeps.
constexpr int64_t kScanAllCommunities = 1024;
constexpr int kMaxSweeps = 1000;
// The nodes judged at once by several threads: a window starts at kWindowPerThread nodes a thread
// and doubles after each window without a move. After the window's first move the sweep goes on
// node by node on the calling thread until kQuietNodes nodes in a row stay, then in windows again:
// the window's judgements past the move are not lost, as those that said "stay" are kept
// (Settled) and the node-by-node sweep skips them unless the move touched them.
// (Until Settled, every judgement after a window's first move was thrown away, and a sweep after a
// dense one ran node by node: 1,746 windows for 4,202 moves on 12,000 nodes cost more than they
// saved, 10 s on a loaded machine. With the judgements kept, windows move on by about their whole
// length each, and the dense sweeps gain from them too: the 60,000-node voxel network's final
// moves on 2 threads, 2.40 s node by node after dense sweeps, 1.88 s in windows.)
constexpr int64_t kWindowPerThread = 256;
constexpr int64_t kMaxWindowPerThread = 16384;
constexpr int64_t kQuietNodes = 64;
// The threads' scratch (a weight and a mark per community) is kept under this many bytes.
constexpr int64_t kScratchBytes = int64_t(256) << 20;

// The communities' sums: K+_c, K-_c, sizes, and whether c holds an isolated node.
struct Communities {
  std::vector<double> kp, kn;
  std::vector<int64_t> size;
  std::vector<char> closed;
};

// One thread's scratch: the weight from the node to each community, which ones it touched.
struct Scratch {
  std::vector<double> wsum;
  std::vector<char> mark;
  std::vector<int64_t> touched;
  explicit Scratch(int64_t k) : wsum(static_cast<size_t>(k), 0.0), mark(static_cast<size_t>(k), 0) {
    touched.reserve(static_cast<size_t>(k));  // at most k distinct: push_back never allocates
  }
};

struct Judge {
  const GraphData& g;
  const ModularityTerms& t;
  const std::vector<int64_t>& label;
  const Communities& cm;
  int64_t k, min_size;
  bool scan_all;
  double epsilon;

  // The community node v (not isolated) moves to in the current state, -1 if it stays. `top`:
  // the largest gain it weighed (-inf if none), `scale`: a bound on the magnitudes its gains were
  // summed from (for Settled's rounding slack; the entries' |combined weight| sum to
  // |c+| k+_v + |c-| k-_v).
  // `near` (when it stays and the targets are the neighbours' communities): those communities and
  // its own.
  int64_t operator()(int64_t v, Scratch& sc, double* top = nullptr, double* scale = nullptr,
                     std::vector<int64_t>* near = nullptr) const {
    const size_t a = static_cast<size_t>(label[static_cast<size_t>(v)]);
    if (top != nullptr) *top = -std::numeric_limits<double>::infinity();
    if (!(cm.size[a] - 1 >= min_size || cm.size[a] == 1)) return -1;
    for (int64_t e = g.offsets[static_cast<size_t>(v)]; e < g.offsets[static_cast<size_t>(v + 1)]; ++e) {
      const size_t c = static_cast<size_t>(label[static_cast<size_t>(g.columns[static_cast<size_t>(e)])]);
      if (!sc.mark[c]) {
        sc.mark[c] = 1;
        sc.touched.push_back(int64_t(c));
      }
      sc.wsum[c] += combined_weight(t, g.weights[static_cast<size_t>(e)]);
    }
    const double kpv = t.k_pos[static_cast<size_t>(v)], knv = t.k_neg[static_cast<size_t>(v)];
    const double w_own = sc.wsum[a];
    // s * (change in Q) of moving v from a to c (modularity.hpp's objective).
    auto gain_to = [&](size_t c) {
      return 2 * (sc.wsum[c] - w_own) - 2 * t.gamma * (t.d_pos * kpv * (cm.kp[c] - cm.kp[a] + kpv) -
                                                        t.d_neg * knv * (cm.kn[c] - cm.kn[a] + knv));
    };
    int64_t best_c = -1;
    double best = epsilon, highest = -std::numeric_limits<double>::infinity();
    auto consider = [&](int64_t c) {
      const size_t x = static_cast<size_t>(c);
      if (x == a || cm.closed[x] || cm.size[x] == 0) return;
      const double d = gain_to(x);
      highest = std::max(highest, d);
      if (d > best) {
        best = d;
        best_c = c;
      }
    };
    if (scan_all)
      for (int64_t c = 0; c < k; ++c) consider(c);
    else
      for (int64_t c : sc.touched) consider(c);
    if (near != nullptr && best_c < 0) {
      near->assign(sc.touched.begin(), sc.touched.end());
      if (!sc.mark[a]) near->push_back(int64_t(a));
    }
    for (int64_t c : sc.touched) {
      sc.mark[static_cast<size_t>(c)] = 0;
      sc.wsum[static_cast<size_t>(c)] = 0;
    }
    sc.touched.clear();
    if (top != nullptr) *top = highest;
    if (scale != nullptr)
      *scale = 2 * (std::fabs(t.c_pos) * kpv + std::fabs(t.c_neg) * knv) +
               2 * t.gamma * (std::fabs(t.d_pos) * kpv * (2 * t.total_pos + kpv) + std::fabs(t.d_neg) * knv * (2 * t.total_neg + knv));
    return best_c;
  }
};

// Which nodes need judging again. A node judged to stay stays while no gain of its can have risen
// past kMinGain: each of its gains is 2 (w_c - w_own) - 2 gamma (the null terms of K_c - K_own),
// and the margin by which the best one missed kMinGain (less a slack far above the rounding of the
// gains' sums: 1e-9 of their magnitudes) is spent by what changes since:
//   - a neighbour u moving (weight w to v): w_c and w_own change by at most |w| each, so any gain
//     by at most 4 |w|. Where the targets are the neighbours' communities, u's new community is
//     a target v never weighed unless it was among them (`near`, kept per node): then v is marked
//     to be judged again. Every target's community is one of them or empty, and an empty one
//     never fills (no node moves to an empty community).
//   - any move, of u from a to b: K_c - K_own changes by at most 2 k_u for every pair, so a gain
//     by at most 4 gamma (|d+| k+_v k+_u + |d-| k-_v k-_u): summed over all moves since (P, N).
// A sweep skips a node whose margin is not spent, making the same moves as one that judges every
// node. The mover itself is marked. With min_size > 1 a community's size decides whether its
// members may leave, and any move changes sizes: every node is judged (`on` false). Without the
// skip, the sweeps that move a few nodes each cost a full pass each (a 60,000-node, 18 M-edge
// voxel network: 54 sweeps, the last 30 moving 4 to 100 nodes); without the neighbours' share
// (when any neighbour's move marked a node), the dense first sweeps judged nearly every node.
struct Settled {
  bool on = false, near_only = false;
  double moved_pos = 0, moved_neg = 0;   // P and N summed over every move so far
  std::vector<char> dirty;               // judged since its inputs changed? (1: no)
  std::vector<double> margin, pos_at, neg_at;
  std::vector<std::vector<int64_t>> near;  // near_only: each clean node's targets and own community

  Settled(int64_t n, bool enabled, bool targets_near)
      : on(enabled), near_only(enabled && targets_near), dirty(static_cast<size_t>(n), 1),
        margin(enabled ? static_cast<size_t>(n) : 0), pos_at(margin.size()), neg_at(margin.size()),
        near(near_only ? static_cast<size_t>(n) : 0) {}

  std::vector<int64_t>* near_of(int64_t v) { return near_only ? &near[static_cast<size_t>(v)] : nullptr; }
  bool skip(int64_t v, const ModularityTerms& t) const {
    const size_t x = static_cast<size_t>(v);
    if (!on || dirty[x]) return false;
    const double drift = 4 * t.gamma * (std::fabs(t.d_pos) * t.k_pos[x] * (moved_pos - pos_at[x]) +
                                        std::fabs(t.d_neg) * t.k_neg[x] * (moved_neg - neg_at[x]));
    return drift < margin[x];
  }
  // v was judged to stay: `top` its best gain, `scale` its gains' magnitudes (near[v] filled).
  void stayed(int64_t v, double epsilon, double top, double scale) {
    if (!on) return;
    const size_t x = static_cast<size_t>(v);
    margin[x] = epsilon - top - 1e-9 * scale;  // -inf top (no target): +inf, never judged again unless marked
    pos_at[x] = moved_pos;
    neg_at[x] = moved_neg;
    dirty[x] = 0;
  }
  // v moved to community `to`.
  void moved(const GraphData& g, const ModularityTerms& t, int64_t v, int64_t to) {
    if (!on) return;
    const size_t x = static_cast<size_t>(v);
    dirty[x] = 1;
    for (int64_t e = g.offsets[x]; e < g.offsets[x + 1]; ++e) {
      const size_t u = static_cast<size_t>(g.columns[static_cast<size_t>(e)]);
      if (dirty[u]) continue;
      if (near_only && std::find(near[u].begin(), near[u].end(), to) == near[u].end()) {
        dirty[u] = 1;
        continue;
      }
      margin[u] -= 4 * std::fabs(combined_weight(t, g.weights[static_cast<size_t>(e)]));
    }
    moved_pos += t.k_pos[x];
    moved_neg += t.k_neg[x];
  }
};

}  // namespace

void final_moves(const GraphData& g, const ModularityTerms& t, std::vector<int64_t>& label, int64_t k,
                 const std::vector<char>& isolated, int64_t min_size, int threads, Progress& progress,
                 FinalMovesStats* stats, bool skip_settled) {
  Communities cm{std::vector<double>(static_cast<size_t>(k), 0.0), std::vector<double>(static_cast<size_t>(k), 0.0),
                 std::vector<int64_t>(static_cast<size_t>(k), 0), std::vector<char>(static_cast<size_t>(k), 0)};
  for (int64_t v = 0; v < g.n; ++v) {
    const size_t c = static_cast<size_t>(label[static_cast<size_t>(v)]);
    cm.kp[c] += t.k_pos[static_cast<size_t>(v)];
    cm.kn[c] += t.k_neg[static_cast<size_t>(v)];
    ++cm.size[c];
    if (isolated[static_cast<size_t>(v)]) cm.closed[c] = 1;
  }
  const Judge judge{g, t, label, cm, k, min_size, k <= kScanAllCommunities, t.s * kMinGain};
  auto move = [&](int64_t v, int64_t to) {
    const size_t a = static_cast<size_t>(label[static_cast<size_t>(v)]), b = static_cast<size_t>(to);
    cm.kp[a] -= t.k_pos[static_cast<size_t>(v)];
    cm.kn[a] -= t.k_neg[static_cast<size_t>(v)];
    --cm.size[a];
    cm.kp[b] += t.k_pos[static_cast<size_t>(v)];
    cm.kn[b] += t.k_neg[static_cast<size_t>(v)];
    ++cm.size[b];
    label[static_cast<size_t>(v)] = to;
  };
  Settled settled(g.n, skip_settled && min_size <= 1, !judge.scan_all);
  std::atomic<int64_t> judged{0}, skipped{0};
  // v's move in the current state, -1 if it stays (skipped when Settled says it would stay).
  auto decide = [&](int64_t v, Scratch& sc) -> int64_t {
    if (isolated[static_cast<size_t>(v)]) return -1;
    if (settled.skip(v, t)) {
      if (stats != nullptr) skipped.fetch_add(1, std::memory_order_relaxed);
      return -1;
    }
    if (stats != nullptr) judged.fetch_add(1, std::memory_order_relaxed);
    double top = 0, scale = 0;
    const int64_t to = judge(v, sc, &top, &scale, settled.near_of(v));
    if (to < 0) settled.stayed(v, judge.epsilon, top, scale);
    return to;
  };
  auto apply = [&](int64_t v, int64_t to) {
    move(v, to);
    settled.moved(g, t, v, to);
  };

  const int64_t entries = g.offsets[static_cast<size_t>(g.n)];
  int team = parallel_team(entries + g.n, threads);
  team = int(std::max<int64_t>(1, std::min<int64_t>(team, kScratchBytes / std::max<int64_t>(1, 9 * k))));
  std::vector<Scratch> scratch;
  scratch.reserve(static_cast<size_t>(team));
  for (int x = 0; x < team; ++x) scratch.emplace_back(k);
  std::vector<int64_t> decision(team > 1 ? static_cast<size_t>(kMaxWindowPerThread * team) : 0);
  int64_t window = kWindowPerThread * team;

  for (int sweep = 0; sweep < kMaxSweeps; ++sweep) {
    int64_t moves = 0;
    // Node v judged and moved on the calling thread; true if it moved.
    auto step = [&](int64_t v) {
      const int64_t to = decide(v, scratch[0]);
      if (to < 0) return false;
      apply(v, to);
      ++moves;
      return true;
    };
    if (team == 1) {
      for (int64_t v = 0; v < g.n; ++v) step(v);
    } else {
      for (int64_t begin = 0; begin < g.n;) {
        const int64_t end = std::min(g.n, begin + window);
        int64_t* d = decision.data();
        if (stats != nullptr) ++stats->windows;
#pragma omp parallel for schedule(dynamic, 64) num_threads(team)
        for (int64_t v = begin; v < end; ++v)
          d[v - begin] = decide(v, scratch[static_cast<size_t>(omp_get_thread_num())]);
        int64_t first = begin;
        while (first < end && d[first - begin] < 0) ++first;
        if (first == end) {
          window = std::min(window * 2, kMaxWindowPerThread * team);
          begin = end;
          continue;
        }
        apply(first, d[first - begin]);
        ++moves;
        window = kWindowPerThread * team;
        begin = first + 1;
        for (int64_t quiet = 0; begin < g.n && quiet < kQuietNodes; ++begin) quiet = step(begin) ? 0 : quiet + 1;
      }
    }
    progress.advance(0);
    if (stats != nullptr) {
      ++stats->sweeps;
      stats->moves += moves;
    }
    if (moves == 0) break;
  }
  if (stats != nullptr) {
    stats->judged += judged.load();
    stats->skipped += skipped.load();
  }
}

}  // namespace fc
