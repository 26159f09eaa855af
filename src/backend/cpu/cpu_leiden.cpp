// The host engine of the synchronous Leiden (backend/leiden_engine.hpp): each step as its header
// defines it, the judgements in parallel (each node's alone, against the state before the round),
// the updates in node order. Integer sums and arg maxes with ties to the smaller id make every
// result independent of the thread count, and equal to the CUDA engine's.
#include <omp.h>

#include <algorithm>
#include <numeric>

#include "backend/leiden_engine.hpp"
#include "kernels/leiden_rules.hpp"
#include "base/parallel_team.hpp"

namespace fc {

namespace {

using kernels::SyncTerms;

// A node's neighbour ids (communities or subcommunities) and its fixed-point weight to each, one
// thread's: an id counts as met while its stamp is the current one.
struct IdWeights {
  std::vector<int64_t> weight;
  std::vector<uint32_t> stamp;
  std::vector<int64_t> list;
  uint32_t now = 1;
  explicit IdWeights(int64_t n) : weight(static_cast<size_t>(n), 0), stamp(static_cast<size_t>(n), 0) {}
  void add(int64_t c, int64_t w) {
    if (stamp[static_cast<size_t>(c)] != now) {
      stamp[static_cast<size_t>(c)] = now;
      weight[static_cast<size_t>(c)] = w;
      list.push_back(c);
    } else {
      weight[static_cast<size_t>(c)] += w;
    }
  }
  int64_t of(int64_t c) const { return stamp[static_cast<size_t>(c)] == now ? weight[static_cast<size_t>(c)] : 0; }
  void clear() {
    list.clear();
    if (++now == 0) {
      std::fill(stamp.begin(), stamp.end(), 0u);
      now = 1;
    }
  }
};

struct Level {
  int64_t n = 0;
  std::vector<int64_t> offsets, columns, weights, kp, kn;
  // Layered: node v's weight list, entries lstart[v] .. lstart[v + 1] of (llayer, lweight).
  std::vector<int64_t> lstart, lweight;
  std::vector<int32_t> llayer;
  int64_t entries() const { return offsets[static_cast<size_t>(n)]; }
  bool isolated(int64_t v) const { return offsets[static_cast<size_t>(v + 1)] == offsets[static_cast<size_t>(v)]; }
};

class CpuLeidenEngine final : public LeidenEngine {
 public:
  CpuLeidenEngine(const LeidenLevelZero& g, const SyncTerms& terms, int threads) : t_(terms), threads_(threads) {
    if (g.layers > 0) {
      layered_zero(g);
      return;
    }
    const int64_t n = g.n;
    Level& z = zero_;
    z.n = n;
    z.offsets.assign(static_cast<size_t>(n + 1), 0);
    z.kp.assign(static_cast<size_t>(n), 0);
    z.kn.assign(static_cast<size_t>(n), 0);
    const int team = parallel_team(g.offsets[n] + n, threads_);
#pragma omp parallel for schedule(static) num_threads(team) if (team > 1)
    for (int64_t i = 0; i < n; ++i) {
      int64_t kept = 0, kp = 0, kn = 0;
      for (int64_t e = g.offsets[i]; e < g.offsets[i + 1]; ++e) {
        const float w = g.weights[e];
        kept += w != 0 && g.columns[e] != i;
        if (w > 0) kp += kernels::sync_fixed(w, 1.0, g.scale);
        if (w < 0) kn += kernels::sync_fixed(-w, 1.0, g.scale);
      }
      z.offsets[static_cast<size_t>(i + 1)] = kept;
      z.kp[static_cast<size_t>(i)] = g.cpm ? 1 : kp;
      z.kn[static_cast<size_t>(i)] = g.cpm ? 0 : kn;
    }
    for (int64_t i = 0; i < n; ++i) z.offsets[static_cast<size_t>(i + 1)] += z.offsets[static_cast<size_t>(i)];
    z.columns.resize(static_cast<size_t>(z.entries()));
    z.weights.resize(static_cast<size_t>(z.entries()));
#pragma omp parallel for schedule(static) num_threads(team) if (team > 1)
    for (int64_t i = 0; i < n; ++i) {
      int64_t x = z.offsets[static_cast<size_t>(i)];
      for (int64_t e = g.offsets[i]; e < g.offsets[i + 1]; ++e) {
        const float w = g.weights[e];
        if (w == 0 || g.columns[e] == i) continue;
        z.columns[static_cast<size_t>(x)] = g.columns[e];
        z.weights[static_cast<size_t>(x)] = kernels::sync_fixed(w, g.cpm ? 1.0 : (w > 0 ? g.c_pos : g.c_neg), g.scale);
        ++x;
      }
    }
  }

  void start_pass(const std::vector<int64_t>& labels) override {
    level_ = nullptr;
    label_ = labels;
    level_of_.resize(static_cast<size_t>(zero_.n));
    std::iota(level_of_.begin(), level_of_.end(), int64_t(0));
  }
  int64_t level_nodes() const override { return g().n; }

  void begin_moves() override {
    const Level& l = g();
    sums_of(label_, kp_sum_, kn_sum_, size_);
    active_.assign(static_cast<size_t>(l.n), 0);
    for (int64_t v = 0; v < l.n; ++v) active_[static_cast<size_t>(v)] = !l.isolated(v);
    moves_left_.assign(static_cast<size_t>(l.n), t_.max_node_moves > 0 ? t_.max_node_moves : 1);
  }

  LeidenRound move_round(uint64_t salt, int64_t round) override {
    const Level& l = g();
    const int64_t n = l.n;
    target_.assign(static_cast<size_t>(n), -1);
    each_node([&](int64_t v, IdWeights& acc) {
      if (!active_[static_cast<size_t>(v)] || moves_left_[static_cast<size_t>(v)] == 0 || !kernels::sync_judged(salt, v, round)) return;
      for (int64_t e = l.offsets[static_cast<size_t>(v)]; e < l.offsets[static_cast<size_t>(v + 1)]; ++e)
        acc.add(label_[static_cast<size_t>(l.columns[static_cast<size_t>(e)])], l.weights[static_cast<size_t>(e)]);
      const int64_t a = label_[static_cast<size_t>(v)];
      const int64_t w_va = acc.of(a);
      const bool alone = size_[static_cast<size_t>(a)] == 1;
      // The gain of moving to c (an empty community too: its sums are zeros) with weight w_vc.
      auto gain_to = [&](int64_t c, int64_t w_vc) {
        if (L_ > 0)
          return kernels::leiden_sub(double(w_vc - w_va), layered_null_of(l, v, row(kp_sum_, c), row(kp_sum_, a), true));
        return kernels::sync_gain(t_, w_vc - w_va, l.kp[static_cast<size_t>(v)],
                                  kp_sum_[static_cast<size_t>(c)] - kp_sum_[static_cast<size_t>(a)] + l.kp[static_cast<size_t>(v)],
                                  l.kn[static_cast<size_t>(v)], kn_sum_[static_cast<size_t>(c)] - kn_sum_[static_cast<size_t>(a)] + l.kn[static_cast<size_t>(v)]);
      };
      int64_t best = -1;
      double best_gain = 0;
      for (int64_t c : acc.list) {
        if (c == a || (alone && size_[static_cast<size_t>(c)] == 1 && c > a)) continue;
        const double gain = gain_to(c, acc.weight[static_cast<size_t>(c)]);
        if (kernels::sync_better(gain, c, best_gain, best)) {
          best_gain = gain;
          best = c;
        }
      }
      // Alone, into an empty community: id v, else n + v (only v ever takes these two).
      const int64_t e = alone_id(v);
      if (!alone && e >= 0) {
        const double gain = gain_to(e, 0);
        if (kernels::sync_better(gain, e, best_gain, best)) {
          best_gain = gain;
          best = e;
        }
      }
      if (best >= 0 && best_gain > t_.epsilon) target_[static_cast<size_t>(v)] = best;
    });
    LeidenRound r;
    std::vector<char> touched(static_cast<size_t>(n), 0);
    for (int64_t v = 0; v < n; ++v) {
      const int64_t c = target_[static_cast<size_t>(v)];
      if (c < 0) continue;
      const int64_t a = label_[static_cast<size_t>(v)];
      if (L_ > 0) {
        for (int64_t x = l.lstart[static_cast<size_t>(v)]; x < l.lstart[static_cast<size_t>(v + 1)]; ++x) {
          row(kp_sum_, a)[l.llayer[static_cast<size_t>(x)]] -= l.lweight[static_cast<size_t>(x)];
          row(kp_sum_, c)[l.llayer[static_cast<size_t>(x)]] += l.lweight[static_cast<size_t>(x)];
        }
      } else {
        kp_sum_[static_cast<size_t>(a)] -= l.kp[static_cast<size_t>(v)];
        kn_sum_[static_cast<size_t>(a)] -= l.kn[static_cast<size_t>(v)];
        kp_sum_[static_cast<size_t>(c)] += l.kp[static_cast<size_t>(v)];
        kn_sum_[static_cast<size_t>(c)] += l.kn[static_cast<size_t>(v)];
      }
      --size_[static_cast<size_t>(a)];
      ++size_[static_cast<size_t>(c)];
      label_[static_cast<size_t>(v)] = c;
      if (t_.max_node_moves > 0) --moves_left_[static_cast<size_t>(v)];
      ++r.changed;
      for (int64_t e = l.offsets[static_cast<size_t>(v)]; e < l.offsets[static_cast<size_t>(v + 1)]; ++e) touched[static_cast<size_t>(l.columns[static_cast<size_t>(e)])] = 1;
    }
    for (int64_t v = 0; v < n; ++v) {
      char& a = active_[static_cast<size_t>(v)];
      a = ((a && !kernels::sync_judged(salt, v, round)) || touched[static_cast<size_t>(v)]) && moves_left_[static_cast<size_t>(v)] > 0;
      r.active += a;
    }
    return r;
  }

  int64_t alone_id(int64_t v) const {
    const int64_t n = g().n;
    return size_[static_cast<size_t>(v)] == 0 ? v : size_[static_cast<size_t>(n + v)] == 0 ? n + v : -1;
  }

  int64_t communities() override { return distinct(label_); }

  void begin_refine() override {
    const Level& l = g();
    const int64_t n = l.n;
    refined_.resize(static_cast<size_t>(n));
    std::iota(refined_.begin(), refined_.end(), int64_t(0));
    if (L_ > 0) {
      sub_kp_.assign(static_cast<size_t>(n * L_), 0);
      own_.resize(static_cast<size_t>(n));
      for (int64_t v = 0; v < n; ++v) {
        for (int64_t x = l.lstart[static_cast<size_t>(v)]; x < l.lstart[static_cast<size_t>(v + 1)]; ++x)
          row(sub_kp_, v)[l.llayer[static_cast<size_t>(x)]] = l.lweight[static_cast<size_t>(x)];
        own_[static_cast<size_t>(v)] = layered_null_of(l, v, nullptr, row(kp_sum_, label_[static_cast<size_t>(v)]), true);
      }
    } else {
      sub_kp_ = l.kp;
      sub_kn_ = l.kn;
    }
    sub_size_.assign(static_cast<size_t>(n), 1);
    ext_.assign(static_cast<size_t>(n), 0);
    for (int64_t v = 0; v < n; ++v)
      for (int64_t e = l.offsets[static_cast<size_t>(v)]; e < l.offsets[static_cast<size_t>(v + 1)]; ++e)
        if (label_[static_cast<size_t>(l.columns[static_cast<size_t>(e)])] == label_[static_cast<size_t>(v)]) ext_[static_cast<size_t>(v)] += l.weights[static_cast<size_t>(e)];
  }

  LeidenRound refine_round(uint64_t salt, int64_t round) override {
    const Level& l = g();
    const int64_t n = l.n;
    target_.assign(static_cast<size_t>(n), -1);
    target_weight_.assign(static_cast<size_t>(n), 0);
    each_node([&](int64_t v, IdWeights& acc) {
      const int64_t s = label_[static_cast<size_t>(v)];
      // Subcommunity r (v's own while alone) well connected to s.
      auto well_connected = [&](int64_t r) {
        if (L_ > 0) return kernels::layered_well_connected(ext_[static_cast<size_t>(r)], own_[static_cast<size_t>(r)]);
        return kernels::sync_well_connected(t_, ext_[static_cast<size_t>(r)], sub_kp_[static_cast<size_t>(r)], sub_kn_[static_cast<size_t>(r)],
                                            kp_sum_[static_cast<size_t>(s)], kn_sum_[static_cast<size_t>(s)]);
      };
      if (refined_[static_cast<size_t>(v)] != v || sub_size_[static_cast<size_t>(v)] != 1 || l.isolated(v) || !kernels::sync_judged(salt, v, round) ||
          !well_connected(v))
        return;
      for (int64_t e = l.offsets[static_cast<size_t>(v)]; e < l.offsets[static_cast<size_t>(v + 1)]; ++e) {
        const int64_t u = l.columns[static_cast<size_t>(e)];
        if (label_[static_cast<size_t>(u)] == s) acc.add(refined_[static_cast<size_t>(u)], l.weights[static_cast<size_t>(e)]);
      }
      int64_t best = -1;
      double best_gain = 0;
      for (int64_t r : acc.list) {
        if (r == v || (sub_size_[static_cast<size_t>(r)] == 1 && kernels::sync_judged(salt, r, round)) || !well_connected(r))
          continue;
        const double gain =
            L_ > 0 ? kernels::leiden_sub(double(acc.weight[static_cast<size_t>(r)]), layered_null_of(l, v, row(sub_kp_, r), nullptr, false))
                   : kernels::sync_gain(t_, acc.weight[static_cast<size_t>(r)], l.kp[static_cast<size_t>(v)], sub_kp_[static_cast<size_t>(r)],
                                        l.kn[static_cast<size_t>(v)], sub_kn_[static_cast<size_t>(r)]);
        if (gain >= 0 && kernels::sync_better(gain, r, best_gain, best)) {
          best_gain = gain;
          best = r;
        }
      }
      if (best >= 0) {
        target_[static_cast<size_t>(v)] = best;
        target_weight_[static_cast<size_t>(v)] = acc.weight[static_cast<size_t>(best)];
      }
    });
    LeidenRound r;
    for (int64_t v = 0; v < n; ++v) {
      const int64_t t = target_[static_cast<size_t>(v)];
      if (t < 0) continue;
      refined_[static_cast<size_t>(v)] = t;
      if (L_ > 0) {
        for (int64_t x = l.lstart[static_cast<size_t>(v)]; x < l.lstart[static_cast<size_t>(v + 1)]; ++x)
          row(sub_kp_, t)[l.llayer[static_cast<size_t>(x)]] += l.lweight[static_cast<size_t>(x)];
      } else {
        sub_kp_[static_cast<size_t>(t)] += l.kp[static_cast<size_t>(v)];
        sub_kn_[static_cast<size_t>(t)] += l.kn[static_cast<size_t>(v)];
      }
      ++sub_size_[static_cast<size_t>(t)];
      sub_size_[static_cast<size_t>(v)] = 0;
      ext_[static_cast<size_t>(t)] += ext_[static_cast<size_t>(v)] - 2 * target_weight_[static_cast<size_t>(v)];
      ++r.changed;
    }
    // Two nodes that joined one subcommunity in the same round: the edge between them counted in
    // its ext from both ends, and is inside it now.
    for (int64_t v = 0; v < n; ++v) {
      if (target_[static_cast<size_t>(v)] < 0) continue;
      for (int64_t e = l.offsets[static_cast<size_t>(v)]; e < l.offsets[static_cast<size_t>(v + 1)]; ++e) {
        const int64_t x = l.columns[static_cast<size_t>(e)];
        if (target_[static_cast<size_t>(x)] >= 0 && refined_[static_cast<size_t>(x)] == refined_[static_cast<size_t>(v)]) ext_[static_cast<size_t>(refined_[static_cast<size_t>(v)])] -= l.weights[static_cast<size_t>(e)];
      }
    }
    // Layered: the own terms of the subcommunities that grew.
    if (L_ > 0)
      for (int64_t v = 0; v < n; ++v) {
        const int64_t t = target_[static_cast<size_t>(v)];
        if (t >= 0)
          own_[static_cast<size_t>(t)] = kernels::layered_own(gp_.data(), row(sub_kp_, t), row(kp_sum_, label_[static_cast<size_t>(t)]), L_);
      }
    return r;
  }

  int64_t subcommunities() override {
    int64_t k = 0;
    for (int64_t v = 0; v < g().n; ++v) k += refined_[static_cast<size_t>(v)] == v;
    return k;
  }

  void aggregate() override {
    const Level& l = g();
    const int64_t n = l.n;
    std::vector<int64_t> id(static_cast<size_t>(n), -1), map(static_cast<size_t>(n));
    int64_t k = 0;
    for (int64_t v = 0; v < n; ++v)
      if (refined_[static_cast<size_t>(v)] == v) id[static_cast<size_t>(v)] = k++;
    for (int64_t v = 0; v < n; ++v) map[static_cast<size_t>(v)] = id[static_cast<size_t>(refined_[static_cast<size_t>(v)])];
    // Members of each new node, in node order (a counting sort).
    std::vector<int64_t> start(static_cast<size_t>(k + 1), 0), members(static_cast<size_t>(n));
    for (int64_t v = 0; v < n; ++v) ++start[static_cast<size_t>(map[static_cast<size_t>(v)] + 1)];
    for (int64_t i = 0; i < k; ++i) start[static_cast<size_t>(i + 1)] += start[static_cast<size_t>(i)];
    {
      std::vector<int64_t> next(start.begin(), start.end() - 1);
      for (int64_t v = 0; v < n; ++v) members[static_cast<size_t>(next[static_cast<size_t>(map[static_cast<size_t>(v)])]++)] = v;
    }
    Level a;
    a.n = k;
    a.offsets.assign(static_cast<size_t>(k + 1), 0);
    if (L_ > 0) {
      // Each new node's list: its subcommunity's row, zeros left out.
      a.lstart.assign(1, 0);
      for (int64_t v = 0; v < n; ++v) {
        if (refined_[static_cast<size_t>(v)] != v) continue;
        const int64_t* r = row(sub_kp_, v);
        for (int64_t x = 0; x < L_; ++x)
          if (r[x] != 0) {
            a.llayer.push_back(int32_t(x));
            a.lweight.push_back(r[x]);
          }
        a.lstart.push_back(int64_t(a.llayer.size()));
      }
    } else {
      a.kp.assign(static_cast<size_t>(k), 0);
      a.kn.assign(static_cast<size_t>(k), 0);
    }
    std::vector<std::vector<int64_t>> cols(static_cast<size_t>(k)), ws(static_cast<size_t>(k));
    const int team = parallel_team(l.entries() + n, threads_);
#pragma omp parallel num_threads(team) if (team > 1)
    {
      IdWeights acc(k);
#pragma omp for schedule(dynamic, 64)
      for (int64_t i = 0; i < k; ++i) {
        for (int64_t m = start[static_cast<size_t>(i)]; m < start[static_cast<size_t>(i + 1)]; ++m) {
          const int64_t v = members[static_cast<size_t>(m)];
          if (L_ == 0) {
            a.kp[static_cast<size_t>(i)] += l.kp[static_cast<size_t>(v)];
            a.kn[static_cast<size_t>(i)] += l.kn[static_cast<size_t>(v)];
          }
          for (int64_t e = l.offsets[static_cast<size_t>(v)]; e < l.offsets[static_cast<size_t>(v + 1)]; ++e) {
            const int64_t j = map[static_cast<size_t>(l.columns[static_cast<size_t>(e)])];
            if (j != i) acc.add(j, l.weights[static_cast<size_t>(e)]);
          }
        }
        std::sort(acc.list.begin(), acc.list.end());
        cols[static_cast<size_t>(i)] = acc.list;
        ws[static_cast<size_t>(i)].resize(acc.list.size());
        for (size_t x = 0; x < acc.list.size(); ++x) ws[static_cast<size_t>(i)][x] = acc.weight[static_cast<size_t>(acc.list[x])];
        a.offsets[static_cast<size_t>(i + 1)] = int64_t(acc.list.size());
        acc.clear();
      }
    }
    for (int64_t i = 0; i < k; ++i) a.offsets[static_cast<size_t>(i + 1)] += a.offsets[static_cast<size_t>(i)];
    a.columns.resize(static_cast<size_t>(a.entries()));
    a.weights.resize(static_cast<size_t>(a.entries()));
    for (int64_t i = 0; i < k; ++i) {
      std::copy(cols[static_cast<size_t>(i)].begin(), cols[static_cast<size_t>(i)].end(), a.columns.begin() + a.offsets[static_cast<size_t>(i)]);
      std::copy(ws[static_cast<size_t>(i)].begin(), ws[static_cast<size_t>(i)].end(), a.weights.begin() + a.offsets[static_cast<size_t>(i)]);
    }
    // The new nodes' communities: their first members', numbered in order of the ids.
    std::vector<int64_t> rank(static_cast<size_t>(2 * n), 0);
    for (int64_t v = 0; v < n; ++v) rank[static_cast<size_t>(label_[static_cast<size_t>(v)])] = 1;
    int64_t c = 0;
    for (int64_t x = 0; x < 2 * n; ++x) rank[static_cast<size_t>(x)] = rank[static_cast<size_t>(x)] ? c++ : -1;
    std::vector<int64_t> next_label(static_cast<size_t>(k));
    for (int64_t v = 0; v < n; ++v)
      if (refined_[static_cast<size_t>(v)] == v) next_label[static_cast<size_t>(id[static_cast<size_t>(v)])] = rank[static_cast<size_t>(label_[static_cast<size_t>(v)])];
    for (int64_t& x : level_of_) x = map[static_cast<size_t>(x)];
    owned_ = std::move(a);
    level_ = &owned_;
    label_ = std::move(next_label);
  }

  void labels(std::vector<int64_t>& out) override {
    out.resize(static_cast<size_t>(zero_.n));
    for (int64_t v = 0; v < zero_.n; ++v) out[static_cast<size_t>(v)] = label_[static_cast<size_t>(level_of_[static_cast<size_t>(v)])];
  }

 private:
  const Level& g() const { return level_ != nullptr ? *level_ : zero_; }

  // Layered level 0: the caller's entries and fixed-point weights as they are, each node's
  // weight in its layer (none when 0).
  void layered_zero(const LeidenLevelZero& g) {
    const int64_t n = g.n;
    L_ = g.layers;
    gp_.assign(g.layer_gp, g.layer_gp + L_);
    Level& z = zero_;
    z.n = n;
    z.offsets.assign(g.offsets, g.offsets + n + 1);
    z.columns.assign(g.columns, g.columns + g.offsets[n]);
    z.weights.assign(g.fixed, g.fixed + g.offsets[n]);
    z.lstart.assign(1, 0);
    for (int64_t v = 0; v < n; ++v) {
      if (g.node_weight[v] != 0) {
        z.llayer.push_back(g.node_layer[v]);
        z.lweight.push_back(g.node_weight[v]);
      }
      z.lstart.push_back(int64_t(z.llayer.size()));
    }
  }

  // Layered: the row of id c in a table of L values per id.
  int64_t* row(std::vector<int64_t>& table, int64_t c) const { return table.data() + c * L_; }
  const int64_t* row(const std::vector<int64_t>& table, int64_t c) const { return table.data() + c * L_; }
  double layered_null_of(const Level& l, int64_t v, const int64_t* to, const int64_t* from, bool self) const {
    return kernels::layered_null(gp_.data(), l.llayer.data(), l.lweight.data(), l.lstart[static_cast<size_t>(v)],
                                 l.lstart[static_cast<size_t>(v + 1)], to, from, self);
  }

  // f(v, acc) for every node of the level, in parallel; acc is the thread's, cleared after each.
  template <class F>
  void each_node(F f) {
    const Level& l = g();
    const int team = parallel_team(l.entries() + l.n, threads_);
    // Ids below 2n: communities (moves may name n + v) and subcommunities.
    while (int(scratch_.size()) < team || (!scratch_.empty() && int64_t(scratch_[0].weight.size()) < 2 * l.n)) {
      if (!scratch_.empty() && int64_t(scratch_[0].weight.size()) < 2 * l.n) scratch_.clear();
      scratch_.emplace_back(2 * l.n);
    }
#pragma omp parallel for schedule(dynamic, 256) num_threads(team) if (team > 1)
    for (int64_t v = 0; v < l.n; ++v) {
      IdWeights& acc = scratch_[static_cast<size_t>(omp_get_thread_num())];
      f(v, acc);
      acc.clear();
    }
  }

  void sums_of(const std::vector<int64_t>& label, std::vector<int64_t>& kp, std::vector<int64_t>& kn,
               std::vector<int64_t>& size) const {
    const Level& l = g();
    if (L_ > 0) {
      kp.assign(static_cast<size_t>(2 * l.n * L_), 0);
      size.assign(static_cast<size_t>(2 * l.n), 0);
      for (int64_t v = 0; v < l.n; ++v) {
        const int64_t c = label[static_cast<size_t>(v)];
        for (int64_t x = l.lstart[static_cast<size_t>(v)]; x < l.lstart[static_cast<size_t>(v + 1)]; ++x)
          kp[static_cast<size_t>(c * L_ + l.llayer[static_cast<size_t>(x)])] += l.lweight[static_cast<size_t>(x)];
        ++size[static_cast<size_t>(c)];
      }
      return;
    }
    kp.assign(static_cast<size_t>(2 * l.n), 0);
    kn.assign(static_cast<size_t>(2 * l.n), 0);
    size.assign(static_cast<size_t>(2 * l.n), 0);
    for (int64_t v = 0; v < l.n; ++v) {
      const size_t c = static_cast<size_t>(label[static_cast<size_t>(v)]);
      kp[c] += l.kp[static_cast<size_t>(v)];
      kn[c] += l.kn[static_cast<size_t>(v)];
      ++size[c];
    }
  }

  int64_t distinct(const std::vector<int64_t>& ids) const {
    std::vector<char> used(2 * ids.size(), 0);
    int64_t k = 0;
    for (int64_t x : ids) {
      k += !used[static_cast<size_t>(x)];
      used[static_cast<size_t>(x)] = 1;
    }
    return k;
  }

  SyncTerms t_;
  int threads_;
  int64_t L_ = 0;            // layers (0: one null term, kp and kn)
  std::vector<double> gp_;   // layered: each layer's coefficient
  std::vector<double> own_;  // layered: each subcommunity's own term (layered_own)
  Level zero_, owned_;
  const Level* level_ = nullptr;
  std::vector<int64_t> label_, level_of_, kp_sum_, kn_sum_, size_, target_, target_weight_;
  std::vector<int64_t> refined_, sub_kp_, sub_kn_, sub_size_, ext_;
  std::vector<char> active_;
  std::vector<int32_t> moves_left_;  // per node: moves it may still make in the level
  std::vector<IdWeights> scratch_;
};

}  // namespace

std::unique_ptr<LeidenEngine> make_cpu_leiden_engine(const LeidenLevelZero& g, const kernels::SyncTerms& terms,
                                                     int threads) {
  return std::make_unique<CpuLeidenEngine>(g, terms, threads);
}

}  // namespace fc
