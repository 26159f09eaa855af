// A group's subgraph (see local_graph.hpp).
#include "core/local_graph.hpp"

#include <omp.h>

#include <algorithm>

#include "core/leading_eigen.hpp"

namespace fc {

namespace {

// lg's per-node arrays and column width for n nodes and `entries` entries (offsets already made).
void shape(LocalGraph& lg, int64_t n, bool uniform, double weight) {
  const size_t entries = static_cast<size_t>(lg.offsets[static_cast<size_t>(n)]);
  lg.width = n <= int64_t(std::numeric_limits<uint16_t>::max()) + 1 ? 16
             : n <= std::numeric_limits<int32_t>::max()                ? 32
                                                                        : 64;
  lg.columns16.resize(lg.width == 16 ? entries : 0);
  lg.columns32.resize(lg.width == 32 ? entries : 0);
  lg.columns64.resize(lg.width == 64 ? entries : 0);
  lg.uniform = uniform;
  lg.weight = weight;
  lg.weights.resize(uniform ? 0 : entries);
}

void set_column(LocalGraph& lg, int64_t x, int64_t local) {
  if (lg.width == 16) lg.columns16[static_cast<size_t>(x)] = static_cast<uint16_t>(local);
  else if (lg.width == 32) lg.columns32[static_cast<size_t>(x)] = static_cast<int32_t>(local);
  else lg.columns64[static_cast<size_t>(x)] = local;
}

// The subgraph of n rows, two passes over them, each parallel over rows when there are many
// entries: count the entries that stay, then (after a prefix sum) write them. Row i's entries are
// source entries range(i) = [begin, end) that kept(e); an entry's local column is column(e) and
// its combined weight weight(e); k(i) gives the row's {k+, k-}. Each row's sum is one sequential
// sum in entry order, so the bits do not depend on the threads. `lg` is reused from group to
// group: its arrays keep their capacity, so a group never pays the first touch of fresh pages again.
template <class Range, class Kept, class Column, class Weight, class Degrees>
void fill(LocalGraph& lg, int64_t n, int64_t work, int threads, bool uniform, double uniform_weight, Range range,
          Kept kept, Column column, Weight weight, Degrees k) {
  lg.n = n;
  lg.group_pos = lg.group_neg = 0;
  lg.offsets.assign(static_cast<size_t>(n + 1), 0);
  lg.k_pos.resize(static_cast<size_t>(n));
  lg.k_neg.resize(static_cast<size_t>(n));
  lg.row_sum.assign(static_cast<size_t>(n), 0.0);
  const int team = parallel_team(work, threads);
  const bool parallel = team > 1;
#pragma omp parallel for schedule(static) num_threads(team) if (parallel)
  for (int64_t i = 0; i < n; ++i) {
    const auto [begin, end] = range(i);
    int64_t count = 0;
    for (int64_t e = begin; e < end; ++e) count += kept(e);
    lg.offsets[static_cast<size_t>(i + 1)] = count;
  }
  for (int64_t i = 0; i < n; ++i) lg.offsets[static_cast<size_t>(i + 1)] += lg.offsets[static_cast<size_t>(i)];
  shape(lg, n, uniform, uniform_weight);
#pragma omp parallel for schedule(static) num_threads(team) if (parallel)
  for (int64_t i = 0; i < n; ++i) {
    const auto [begin, end] = range(i);
    int64_t x = lg.offsets[static_cast<size_t>(i)];
    double sum = 0;
    for (int64_t e = begin; e < end; ++e) {
      if (!kept(e)) continue;
      const double w = weight(e);
      set_column(lg, x, column(e));
      if (!lg.uniform) lg.weights[static_cast<size_t>(x)] = w;
      ++x;
      sum += w;
    }
    lg.row_sum[static_cast<size_t>(i)] = sum;
    const auto [kp, kn] = k(i);
    lg.k_pos[static_cast<size_t>(i)] = kp;
    lg.k_neg[static_cast<size_t>(i)] = kn;
  }
  for (int64_t i = 0; i < n; ++i) {
    lg.group_pos += lg.k_pos[static_cast<size_t>(i)];
    lg.group_neg += lg.k_neg[static_cast<size_t>(i)];
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
  auto kept = [&](int64_t e) {
    return local_of[static_cast<size_t>(g.columns[static_cast<size_t>(e)])] >= 0 && g.weights[static_cast<size_t>(e)] != 0;
  };
  auto column = [&](int64_t e) { return local_of[static_cast<size_t>(g.columns[static_cast<size_t>(e)])]; };
  auto weight = [&](int64_t e) { return combined_weight(t, g.weights[static_cast<size_t>(e)]); };
  auto k = [&](int64_t i) {
    const size_t u = static_cast<size_t>(nodes[static_cast<size_t>(i)]);
    return std::pair<double, double>(t.k_pos[u], t.k_neg[u]);
  };
  fill(lg, n, stored, threads, uniform, uniform ? combined_weight(t, t.uniform_weight) : 0.0, range, kept, column,
       weight, k);
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
  for (int64_t i = 0; i < p.n; ++i)
    if (parent.side[static_cast<size_t>(i)] == wanted) rows.push_back(i);
  // The parent's entries are the graph's non-zero ones among its nodes in the graph's order, so
  // those among this side's nodes are induced()'s, in its order: the same sums.
  auto range = [&](int64_t i) {
    const size_t r = static_cast<size_t>(rows[static_cast<size_t>(i)]);
    return std::pair<int64_t, int64_t>(p.offsets[r], p.offsets[r + 1]);
  };
  auto kept = [&](int64_t e) { return parent.side[static_cast<size_t>(p.col(e))] == wanted; };
  auto column = [&](int64_t e) { return parent.index_in_child[static_cast<size_t>(p.col(e))]; };
  auto weight = [&](int64_t e) { return p.w(e); };
  auto k = [&](int64_t i) {
    const size_t r = static_cast<size_t>(rows[static_cast<size_t>(i)]);
    return std::pair<double, double>(p.k_pos[r], p.k_neg[r]);
  };
  fill(lg, int64_t(rows.size()), p.entries(), threads, p.uniform, p.weight, range, kept, column, weight, k);
}

std::unique_ptr<LocalGraph> SubgraphRecycler::take() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (kept_.empty()) return std::make_unique<LocalGraph>();
  auto largest = std::max_element(kept_.begin(), kept_.end(), [](const auto& a, const auto& b) {
    return a->offsets.capacity() + a->columns16.capacity() < b->offsets.capacity() + b->columns16.capacity();
  });
  std::unique_ptr<LocalGraph> graph = std::move(*largest);
  kept_.erase(largest);
  return graph;
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
