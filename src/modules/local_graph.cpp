// A group's subgraph (see local_graph.hpp).
#include "modules/local_graph.hpp"

#include <omp.h>

#include <algorithm>
#include <type_traits>

#include "base/huge_pages.hpp"
#include "base/parallel_team.hpp"
#include "modules/leading_eigen.hpp"

namespace fc {

namespace {

// v with room for `count` values, their contents undefined: a vector too small is replaced (not
// grown: its old values need no copy) by one on transparent huge pages.
template <class T>
void size_for_overwrite(EdgeArray<T>& v, int64_t count) {
  const size_t want = static_cast<size_t>(count);
  if (want > v.capacity()) {
    EdgeArray<T>().swap(v);
    v.reserve(want);
    advise_huge_pages(v.data(), want * sizeof(T));
  }
  v.resize(want);
}

// The subgraph of n rows, two passes over them, each parallel over rows when there are many
// entries: count the entries that stay, then (after a prefix sum) write them. Row i's entries are
// source entries range(i) = [begin, end) whose source column c has local(c) >= 0 and whose
// kept(e) holds; local(c) is the entry's local column, weight(e) its combined weight; k(i) gives
// the row's {k+, k-}. Each row's sum is one sequential sum in entry order, so the bits do not
// depend on the threads (with a uniform weight that is a power of two, count * weight: every
// partial sum is exact, so the same bits without the chain of dependent adds, which bound the
// pass). `lg` is reused from group to group: its arrays keep their capacity, so a group never
// pays the first touch of fresh pages again. The passes are typed by the source's and the
// subgraph's column widths (a width test per entry took a third of the time).
template <class In, class Local, class Kept, class Range, class Weight>
void place(LocalGraph& lg, int team, const In* in, Local local, Kept kept, Range range, Weight weight) {
  const int64_t n = lg.n;
#pragma omp parallel for schedule(static) num_threads(team) if (team > 1)
  for (int64_t i = 0; i < n; ++i) {
    const auto [begin, end] = range(i);
    int64_t count = 0;
    for (int64_t e = begin; e < end; ++e) count += local(in[e]) >= 0 && kept(e);
    lg.offsets[static_cast<size_t>(i + 1)] = count;
  }
  for (int64_t i = 0; i < n; ++i) lg.offsets[static_cast<size_t>(i + 1)] += lg.offsets[static_cast<size_t>(i)];
  const int64_t entries = lg.offsets[static_cast<size_t>(n)];
  lg.width = n <= int64_t(std::numeric_limits<uint16_t>::max()) + 1 ? 16
             : n <= std::numeric_limits<int32_t>::max()                ? 32
                                                                        : 64;
  size_for_overwrite(lg.columns16, lg.width == 16 ? entries : 0);
  size_for_overwrite(lg.columns32, lg.width == 32 ? entries : 0);
  size_for_overwrite(lg.columns64, lg.width == 64 ? entries : 0);
  size_for_overwrite(lg.weights, lg.uniform ? 0 : entries);
  const bool counted = exact_multiples(lg);
  auto write = [&](auto* out) {
    using Out = std::remove_pointer_t<decltype(out)>;
    double* weights = lg.weights.data();
#pragma omp parallel for schedule(static) num_threads(team) if (team > 1)
    for (int64_t i = 0; i < n; ++i) {
      const auto [begin, end] = range(i);
      const int64_t first = lg.offsets[static_cast<size_t>(i)];
      int64_t x = first;
      double sum = 0;
      if (lg.uniform) {
        for (int64_t e = begin; e < end; ++e) {
          const auto c = local(in[e]);
          if (c < 0 || !kept(e)) continue;
          out[x++] = static_cast<Out>(c);
        }
        if (counted) sum = x == first ? 0.0 : double(x - first) * lg.weight;  // an empty row: +0, as the loop's
        else
          for (int64_t y = first; y < x; ++y) sum += lg.weight;
      } else {
        for (int64_t e = begin; e < end; ++e) {
          const auto c = local(in[e]);
          if (c < 0 || !kept(e)) continue;
          const double w = weight(e);
          out[x] = static_cast<Out>(c);
          weights[x++] = w;
          sum += w;
        }
      }
      lg.row_sum[static_cast<size_t>(i)] = sum;
    }
  };
  if (lg.width == 16) write(lg.columns16.data());
  else if (lg.width == 32) write(lg.columns32.data());
  else write(lg.columns64.data());
}

// lg's per-node arrays, then its entries (place), then its degrees: k(i) gives row i's {k+, k-}.
template <class In, class Local, class Kept, class Range, class Weight, class Degrees>
void fill(LocalGraph& lg, int64_t n, int64_t work, int threads, bool uniform, double uniform_weight, const In* in,
          Local local, Kept kept, Range range, Weight weight, Degrees k) {
  lg.n = n;
  lg.group_pos = lg.group_neg = 0;
  lg.uniform = uniform;
  lg.weight = uniform_weight;
  lg.offsets.assign(static_cast<size_t>(n + 1), 0);
  lg.k_pos.resize(static_cast<size_t>(n));
  lg.k_neg.resize(static_cast<size_t>(n));
  lg.row_sum.resize(static_cast<size_t>(n));
  place(lg, parallel_team(work, threads), in, local, kept, range, weight);
  for (int64_t i = 0; i < n; ++i) {
    const auto [kp, kn] = k(i);
    lg.k_pos[static_cast<size_t>(i)] = kp;
    lg.k_neg[static_cast<size_t>(i)] = kn;
    lg.group_pos += kp;
    lg.group_neg += kn;
  }
}

}  // namespace

void induced(const GraphData& g, const ModularityTerms& t, const std::vector<int64_t>& nodes,
             std::vector<int64_t>& local_of, int threads, LocalGraph& lg) {
  const int64_t n = int64_t(nodes.size());
  for (int64_t i = 0; i < n; ++i) local_of[static_cast<size_t>(nodes[static_cast<size_t>(i)])] = i;
  const int64_t stored = row_entries(g, nodes);
  const bool uniform = t.uniform_weight != 0;
  auto range = [&](int64_t i) {
    const size_t u = static_cast<size_t>(nodes[static_cast<size_t>(i)]);
    return std::pair<int64_t, int64_t>(g.offsets[u], g.offsets[u + 1]);
  };
  const int64_t* map = local_of.data();
  auto local = [map](int64_t c) { return map[c]; };
  const float* w = g.weights.data();
  auto kept = [w](int64_t e) { return w[e] != 0; };
  auto weight = [&t, w](int64_t e) { return combined_weight(t, w[e]); };
  auto k = [&](int64_t i) {
    const size_t u = static_cast<size_t>(nodes[static_cast<size_t>(i)]);
    return std::pair<double, double>(t.k_pos[u], t.k_neg[u]);
  };
  fill(lg, n, stored, threads, uniform, uniform ? combined_weight(t, t.uniform_weight) : 0.0, g.columns.data(), local,
       kept, range, weight, k);
  for (int64_t u : nodes) local_of[static_cast<size_t>(u)] = -1;
}

int64_t row_entries(const GraphData& g, const std::vector<int64_t>& nodes) {
  int64_t stored = 0;
  for (int64_t u : nodes) stored += g.offsets[static_cast<size_t>(u + 1)] - g.offsets[static_cast<size_t>(u)];
  return stored;
}

int64_t parent_row_entries(const ParentGraph& parent, int which) {
  const LocalGraph& p = *parent.graph;
  const int8_t wanted = which == 0 ? 1 : -1;
  int64_t stored = 0;
  for (int64_t i = 0; i < p.n; ++i)
    if (parent.side[static_cast<size_t>(i)] == wanted) stored += p.offsets[static_cast<size_t>(i + 1)] - p.offsets[static_cast<size_t>(i)];
  return stored;
}

void induced_from_parent(const ParentGraph& parent, int which, int threads, LocalGraph& lg) {
  const LocalGraph& p = *parent.graph;
  const int8_t wanted = which == 0 ? 1 : -1;
  std::vector<int64_t> rows;  // the parent's rows of this child, in order
  // A parent node's column in this child, -1 for the other side's: one lookup an entry.
  std::vector<int64_t> map(static_cast<size_t>(p.n));
  for (int64_t i = 0; i < p.n; ++i) {
    const bool mine = parent.side[static_cast<size_t>(i)] == wanted;
    map[static_cast<size_t>(i)] = mine ? parent.index_in_child[static_cast<size_t>(i)] : -1;
    if (mine) rows.push_back(i);
  }
  // The parent's entries are the graph's non-zero ones among its nodes in the graph's order, so
  // those among this side's nodes are induced()'s, in its order: the same sums.
  auto range = [&](int64_t i) {
    const size_t r = static_cast<size_t>(rows[static_cast<size_t>(i)]);
    return std::pair<int64_t, int64_t>(p.offsets[r], p.offsets[r + 1]);
  };
  const int64_t* m = map.data();
  auto local = [m](int64_t c) { return m[c]; };
  auto kept = [](int64_t) { return true; };
  const double* pw = p.weights.data();
  auto weight = [pw](int64_t e) { return pw[e]; };
  auto k = [&](int64_t i) {
    const size_t r = static_cast<size_t>(rows[static_cast<size_t>(i)]);
    return std::pair<double, double>(p.k_pos[r], p.k_neg[r]);
  };
  with_columns(p, [&](const auto* in) {
    fill(lg, int64_t(rows.size()), p.entries(), threads, p.uniform, p.weight, in, local, kept, range, weight, k);
  });
}

std::unique_ptr<LocalGraph> SubgraphRecycler::take(int64_t entries) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (kept_.empty()) return std::make_unique<LocalGraph>();
  auto room = [](const std::unique_ptr<LocalGraph>& g) {
    return std::max({g->columns16.capacity(), g->columns32.capacity(), g->columns64.capacity()});
  };
  const size_t want = static_cast<size_t>(std::max<int64_t>(entries, 0));
  auto chosen = kept_.end();  // the smallest that fits
  for (auto it = kept_.begin(); it != kept_.end(); ++it)
    if (room(*it) >= want && (chosen == kept_.end() || room(*it) < room(*chosen))) chosen = it;
  if (chosen != kept_.end() && room(*chosen) > std::max(kRoomSlack * want, kSmallRoom))  // far too large
    return std::make_unique<LocalGraph>();
  if (chosen == kept_.end())  // else the largest
    chosen = std::max_element(kept_.begin(), kept_.end(), [&](const auto& a, const auto& b) { return room(a) < room(b); });
  std::unique_ptr<LocalGraph> graph = std::move(*chosen);
  kept_.erase(chosen);
  return graph;
}

void SubgraphRecycler::keep(std::unique_ptr<LocalGraph> graph) {
  if (!graph) return;
  std::lock_guard<std::mutex> lock(mutex_);
  kept_.reserve(kept_.size() + static_cast<size_t>(shared_) + 1);  // give_back's room stays
  kept_.push_back(std::move(graph));
}

void SubgraphRecycler::give_back(std::unique_ptr<LocalGraph> graph) {
  std::lock_guard<std::mutex> lock(mutex_);
  --shared_;
  if (graph) kept_.push_back(std::move(graph));  // within the capacity share() reserved: no allocation
}

std::shared_ptr<const ParentGraph> SubgraphRecycler::share(std::unique_ptr<LocalGraph> graph,
                                                           const std::vector<int8_t>& side) {
  {
    // Room to keep every shared subgraph when it comes back, made now: the deleter below must not
    // allocate (it runs in destructors, and a failed allocation there could not be reported).
    std::lock_guard<std::mutex> lock(mutex_);
    kept_.reserve(kept_.size() + shared_ + 1);
    ++shared_;
  }
  struct Undo {  // the count back if what follows throws
    SubgraphRecycler* r;
    bool armed = true;
    ~Undo() {
      if (!armed) return;
      std::lock_guard<std::mutex> lock(r->mutex_);
      --r->shared_;
    }
  } undo{this};
  auto parent = std::make_unique<ParentGraph>();
  parent->side = side;
  parent->index_in_child.resize(side.size());
  int64_t count[2] = {0, 0};
  for (size_t i = 0; i < side.size(); ++i) parent->index_in_child[i] = count[side[i] > 0 ? 0 : 1]++;
  parent->graph = std::move(graph);
  // When the last child lets go, the subgraph (with its arrays' capacity) comes back here.
  // From here the deleter owns it and undoes the count, also when the shared_ptr's own
  // allocation fails (the constructor then calls it).
  undo.armed = false;
  return std::shared_ptr<const ParentGraph>(parent.release(), [this](ParentGraph* done) {
    std::unique_ptr<ParentGraph> owned(done);
    give_back(std::move(owned->graph));
  });
}

}  // namespace fc
