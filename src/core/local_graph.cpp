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

}  // namespace

// Two passes over the group's rows, each parallel over rows when the group is large: count the
// entries that stay, then (after a prefix sum) write them. Each row's sum is one sequential sum,
// so the bits do not depend on the threads. `lg` is reused from group to group: its arrays keep
// their capacity, so a group never pays the first touch of fresh pages again.
void induced(const GraphData& g, const ModularityTerms& t, const std::vector<int64_t>& nodes,
             std::vector<int64_t>& local_of, int threads, LocalGraph& lg) {
  lg.n = int64_t(nodes.size());
  lg.group_pos = lg.group_neg = 0;
  const int64_t n = lg.n;
  for (int64_t i = 0; i < n; ++i) local_of[static_cast<size_t>(nodes[static_cast<size_t>(i)])] = i;
  lg.offsets.assign(static_cast<size_t>(n + 1), 0);
  lg.k_pos.resize(static_cast<size_t>(n));
  lg.k_neg.resize(static_cast<size_t>(n));
  lg.row_sum.assign(static_cast<size_t>(n), 0.0);
  int64_t stored = 0;
  for (int64_t u : nodes) stored += g.offsets[static_cast<size_t>(u + 1)] - g.offsets[static_cast<size_t>(u)];
  const int team = parallel_team(stored, threads);
  const bool parallel = team > 1;
  auto kept = [&](int64_t e) {
    return local_of[static_cast<size_t>(g.columns[static_cast<size_t>(e)])] >= 0 && g.weights[static_cast<size_t>(e)] != 0;
  };
#pragma omp parallel for schedule(static) num_threads(team) if (parallel)
  for (int64_t i = 0; i < n; ++i) {
    const int64_t u = nodes[static_cast<size_t>(i)];
    int64_t count = 0;
    for (int64_t e = g.offsets[static_cast<size_t>(u)]; e < g.offsets[static_cast<size_t>(u + 1)]; ++e) count += kept(e);
    lg.offsets[static_cast<size_t>(i + 1)] = count;
  }
  for (int64_t i = 0; i < n; ++i) lg.offsets[static_cast<size_t>(i + 1)] += lg.offsets[static_cast<size_t>(i)];
  const bool uniform = t.uniform_weight != 0;
  shape(lg, n, uniform, uniform ? combined_weight(t, t.uniform_weight) : 0.0);
#pragma omp parallel for schedule(static) num_threads(team) if (parallel)
  for (int64_t i = 0; i < n; ++i) {
    const int64_t u = nodes[static_cast<size_t>(i)];
    int64_t x = lg.offsets[static_cast<size_t>(i)];
    double sum = 0;
    for (int64_t e = g.offsets[static_cast<size_t>(u)]; e < g.offsets[static_cast<size_t>(u + 1)]; ++e) {
      if (!kept(e)) continue;
      const double w = combined_weight(t, g.weights[static_cast<size_t>(e)]);
      const int64_t local = local_of[static_cast<size_t>(g.columns[static_cast<size_t>(e)])];
      set_column(lg, x, local);
      if (!lg.uniform) lg.weights[static_cast<size_t>(x)] = w;
      ++x;
      sum += w;
    }
    lg.row_sum[static_cast<size_t>(i)] = sum;
    lg.k_pos[static_cast<size_t>(i)] = t.k_pos[static_cast<size_t>(u)];
    lg.k_neg[static_cast<size_t>(i)] = t.k_neg[static_cast<size_t>(u)];
  }
  for (int64_t i = 0; i < n; ++i) {
    lg.group_pos += lg.k_pos[static_cast<size_t>(i)];
    lg.group_neg += lg.k_neg[static_cast<size_t>(i)];
  }
  for (int64_t u : nodes) local_of[static_cast<size_t>(u)] = -1;
}


void induced_from_parent(const ParentGraph& parent, int which, int threads, LocalGraph& lg) {
  const LocalGraph& p = *parent.graph;
  const int8_t wanted = which == 0 ? 1 : -1;
  std::vector<int64_t> rows;  // the parent's rows of this child, in order
  for (int64_t i = 0; i < p.n; ++i)
    if (parent.side[static_cast<size_t>(i)] == wanted) rows.push_back(i);
  const int64_t n = int64_t(rows.size());
  lg.n = n;
  lg.group_pos = lg.group_neg = 0;
  lg.offsets.assign(static_cast<size_t>(n + 1), 0);
  lg.k_pos.resize(static_cast<size_t>(n));
  lg.k_neg.resize(static_cast<size_t>(n));
  lg.row_sum.assign(static_cast<size_t>(n), 0.0);
  const int team = parallel_team(p.entries(), threads);
  const bool parallel = team > 1;
#pragma omp parallel for schedule(static) num_threads(team) if (parallel)
  for (int64_t i = 0; i < n; ++i) {
    const int64_t r = rows[static_cast<size_t>(i)];
    int64_t count = 0;
    for (int64_t e = p.offsets[static_cast<size_t>(r)]; e < p.offsets[static_cast<size_t>(r + 1)]; ++e)
      count += parent.side[static_cast<size_t>(p.col(e))] == wanted;
    lg.offsets[static_cast<size_t>(i + 1)] = count;
  }
  for (int64_t i = 0; i < n; ++i) lg.offsets[static_cast<size_t>(i + 1)] += lg.offsets[static_cast<size_t>(i)];
  shape(lg, n, p.uniform, p.weight);
#pragma omp parallel for schedule(static) num_threads(team) if (parallel)
  for (int64_t i = 0; i < n; ++i) {
    const int64_t r = rows[static_cast<size_t>(i)];
    int64_t x = lg.offsets[static_cast<size_t>(i)];
    double sum = 0;
    for (int64_t e = p.offsets[static_cast<size_t>(r)]; e < p.offsets[static_cast<size_t>(r + 1)]; ++e) {
      const int64_t c = p.col(e);
      if (parent.side[static_cast<size_t>(c)] != wanted) continue;
      const double w = p.w(e);
      set_column(lg, x, parent.index_in_child[static_cast<size_t>(c)]);
      if (!lg.uniform) lg.weights[static_cast<size_t>(x)] = w;
      ++x;
      sum += w;  // the entries of induced()'s row, in its order: the same sum
    }
    lg.row_sum[static_cast<size_t>(i)] = sum;
    lg.k_pos[static_cast<size_t>(i)] = p.k_pos[static_cast<size_t>(r)];
    lg.k_neg[static_cast<size_t>(i)] = p.k_neg[static_cast<size_t>(r)];
  }
  for (int64_t i = 0; i < n; ++i) {
    lg.group_pos += lg.k_pos[static_cast<size_t>(i)];
    lg.group_neg += lg.k_neg[static_cast<size_t>(i)];
  }
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
