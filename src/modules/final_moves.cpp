// fc_modularity's final single-node moves (see final_moves.hpp).
#include "modules/final_moves.hpp"

#include <omp.h>

#include <algorithm>

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
// and doubles after each window without a move. A move throws away the judgements of the window's
// nodes after it, so after a move the sweep goes on node by node on the calling thread until
// kQuietNodes nodes in a row stay (where moves are dense, about the sequential sweep's cost),
// then in windows again.
constexpr int64_t kWindowPerThread = 256;
constexpr int64_t kMaxWindowPerThread = 16384;
constexpr int64_t kQuietNodes = 64;
// A sweep after one that moved more than a node per window's worth of nodes (n / (team x
// kWindowPerThread) moves) runs node by node on the calling thread: there nearly every window
// ends at a move, its later judgements are thrown away, and the windows' fork and join cost more
// than they save (measured on 2 threads, 12,000 nodes, 39 sweeps, 4,202 moves in 1,746 windows:
// 0.24 s, against 0.17 s on one thread; under a loaded machine 10 s). Both ways give the same
// moves, so the labels do not depend on it.
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

  // The community node v (not isolated) moves to in the current state, -1 if it stays.
  int64_t operator()(int64_t v, Scratch& sc) const {
    const size_t a = static_cast<size_t>(label[static_cast<size_t>(v)]);
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
    double best = epsilon;
    auto consider = [&](int64_t c) {
      const size_t x = static_cast<size_t>(c);
      if (x == a || cm.closed[x] || cm.size[x] == 0) return;
      const double d = gain_to(x);
      if (d > best) {
        best = d;
        best_c = c;
      }
    };
    if (scan_all)
      for (int64_t c = 0; c < k; ++c) consider(c);
    else
      for (int64_t c : sc.touched) consider(c);
    for (int64_t c : sc.touched) {
      sc.mark[static_cast<size_t>(c)] = 0;
      sc.wsum[static_cast<size_t>(c)] = 0;
    }
    sc.touched.clear();
    return best_c;
  }
};

}  // namespace

void final_moves(const GraphData& g, const ModularityTerms& t, std::vector<int64_t>& label, int64_t k,
                 const std::vector<char>& isolated, int64_t min_size, int threads, Progress& progress) {
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

  const int64_t entries = g.offsets[static_cast<size_t>(g.n)];
  int team = parallel_team(entries + g.n, threads);
  team = int(std::max<int64_t>(1, std::min<int64_t>(team, kScratchBytes / std::max<int64_t>(1, 9 * k))));
  std::vector<Scratch> scratch;
  scratch.reserve(static_cast<size_t>(team));
  for (int x = 0; x < team; ++x) scratch.emplace_back(k);
  std::vector<int64_t> decision(team > 1 ? static_cast<size_t>(kMaxWindowPerThread * team) : 0);
  int64_t window = kWindowPerThread * team;

  int64_t last_moves = 0;
  for (int sweep = 0; sweep < kMaxSweeps; ++sweep) {
    int64_t moves = 0;
    // Node v judged and moved on the calling thread; true if it moved.
    auto step = [&](int64_t v) {
      if (isolated[static_cast<size_t>(v)]) return false;
      const int64_t to = judge(v, scratch[0]);
      if (to < 0) return false;
      move(v, to);
      ++moves;
      return true;
    };
    if (team == 1 || (sweep > 0 && last_moves * kWindowPerThread * team > g.n)) {
      for (int64_t v = 0; v < g.n; ++v) step(v);
    } else {
      for (int64_t begin = 0; begin < g.n;) {
        const int64_t end = std::min(g.n, begin + window);
        int64_t* d = decision.data();
#pragma omp parallel for schedule(dynamic, 64) num_threads(team)
        for (int64_t v = begin; v < end; ++v)
          d[v - begin] = isolated[static_cast<size_t>(v)] ? -1 : judge(v, scratch[static_cast<size_t>(omp_get_thread_num())]);
        int64_t first = begin;
        while (first < end && d[first - begin] < 0) ++first;
        if (first == end) {
          window = std::min(window * 2, kMaxWindowPerThread * team);
          begin = end;
          continue;
        }
        move(first, d[first - begin]);
        ++moves;
        window = kWindowPerThread * team;
        begin = first + 1;
        for (int64_t quiet = 0; begin < g.n && quiet < kQuietNodes; ++begin) quiet = step(begin) ? 0 : quiet + 1;
      }
    }
    progress.advance(0);
    if (moves == 0) break;
    last_moves = moves;
  }
}

}  // namespace fc
