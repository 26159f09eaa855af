// Sparse module allegiance (multilayer.hpp): the pairs i < j that share a community in at least
// t of the L layers, without the n x n matrix. A pair sharing t layers shares at least one of any
// L - t + 1 of them (pigeonhole), so each row's candidates come from node i's communities in the
// first L - t + 1 layers only, and each candidate's shared layers are then counted in all L.
#include <algorithm>

#include "base/parallel_team.hpp"
#include "modules/multilayer.hpp"

namespace fc {

namespace {

// Per layer, the members of every community in ascending node order (a CSR over community ids).
struct LayerMembers {
  std::vector<int64_t> offsets, nodes;
};

std::vector<LayerMembers> members_by_layer(const Multilayer& m, int64_t layers) {
  std::vector<LayerMembers> out(static_cast<size_t>(layers));
  for (int64_t s = 0; s < layers; ++s) {
    const int64_t* g = m.labels.data() + s * m.n;
    LayerMembers& lm = out[static_cast<size_t>(s)];
    lm.offsets.assign(static_cast<size_t>(m.k + 1), 0);
    for (int64_t i = 0; i < m.n; ++i) ++lm.offsets[static_cast<size_t>(g[i] + 1)];
    for (int64_t c = 0; c < m.k; ++c) lm.offsets[static_cast<size_t>(c + 1)] += lm.offsets[static_cast<size_t>(c)];
    lm.nodes.resize(static_cast<size_t>(m.n));
    std::vector<int64_t> fill(lm.offsets.begin(), lm.offsets.end() - 1);
    for (int64_t i = 0; i < m.n; ++i) lm.nodes[static_cast<size_t>(fill[static_cast<size_t>(g[i])]++)] = i;
  }
  return out;
}

// Row i's pairs (j > i, ascending j) sharing at least t layers: (j, shared) into `row`.
void row_pairs(const Multilayer& m, const std::vector<LayerMembers>& members, int64_t t, int64_t i,
               std::vector<char>& mark, std::vector<std::pair<int64_t, int64_t>>& row) {
  row.clear();
  std::vector<int64_t> candidates;
  for (int64_t s = 0; s <= m.layers - t; ++s) {
    const LayerMembers& lm = members[static_cast<size_t>(s)];
    const int64_t c = m.labels[static_cast<size_t>(s * m.n + i)];
    const auto first = lm.nodes.begin() + lm.offsets[static_cast<size_t>(c)];
    const auto last = lm.nodes.begin() + lm.offsets[static_cast<size_t>(c + 1)];
    for (auto it = std::upper_bound(first, last, i); it != last; ++it)
      if (!mark[static_cast<size_t>(*it)]) {
        mark[static_cast<size_t>(*it)] = 1;
        candidates.push_back(*it);
      }
  }
  std::sort(candidates.begin(), candidates.end());
  for (int64_t j : candidates) {
    mark[static_cast<size_t>(j)] = 0;
    int64_t shared = 0;
    for (int64_t s = 0; s < m.layers; ++s)
      shared += m.labels[static_cast<size_t>(s * m.n + i)] == m.labels[static_cast<size_t>(s * m.n + j)];
    if (shared >= t) row.push_back({j, shared});
  }
}

// fn(i, row) for every row i, rows on the OpenMP threads (each with its own scratch).
template <class Fn>
void for_each_row(const Multilayer& m, const std::vector<LayerMembers>& members, int64_t t, Fn&& fn) {
  const int team = parallel_team(m.n * m.layers, 0);
#pragma omp parallel num_threads(team) if (team > 1)
  {
    std::vector<char> mark(static_cast<size_t>(m.n), 0);
    std::vector<std::pair<int64_t, int64_t>> row;
#pragma omp for schedule(dynamic, 64)
    for (int64_t i = 0; i < m.n; ++i) {
      row_pairs(m, members, t, i, mark, row);
      fn(i, row);
    }
  }
}

}  // namespace

int64_t multilayer_allegiance_pairs(const Multilayer& m, double floor, int64_t* rows, int64_t* cols, double* values,
                                    int64_t capacity) {
  // The same value as the dense matrix's: shared x (1 / L); t, the fewest shared layers that reach floor.
  const double scale = m.layers > 0 ? 1.0 / double(m.layers) : 0.0;
  int64_t t = 1;
  while (t <= m.layers && double(t) * scale < floor) ++t;
  if (t > m.layers || m.n < 2) return 0;
  const std::vector<LayerMembers> members = members_by_layer(m, m.layers);
  std::vector<int64_t> count(static_cast<size_t>(m.n + 1), 0);
  for_each_row(m, members, t, [&](int64_t i, const std::vector<std::pair<int64_t, int64_t>>& row) {
    count[static_cast<size_t>(i + 1)] = int64_t(row.size());
  });
  for (int64_t i = 0; i < m.n; ++i) count[static_cast<size_t>(i + 1)] += count[static_cast<size_t>(i)];
  const int64_t total = count[static_cast<size_t>(m.n)];
  if (capacity < total) return total;  // the caller reports the shortfall; nothing written
  for_each_row(m, members, t, [&](int64_t i, const std::vector<std::pair<int64_t, int64_t>>& row) {
    int64_t x = count[static_cast<size_t>(i)];
    for (const auto& [j, shared] : row) {
      rows[x] = i;
      cols[x] = j;
      values[x] = double(shared) * scale;
      ++x;
    }
  });
  return total;
}

}  // namespace fc
