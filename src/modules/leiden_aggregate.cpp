// Leiden's aggregation (leiden.hpp), label renumbering, and the final connectivity check.
#include <omp.h>

#include <algorithm>

#include "base/parallel_team.hpp"
#include "modules/leiden.hpp"

namespace fc {

namespace {

// Empties a and makes room for `size` elements: a reused array keeps its pages (no fault, and no
// write: EdgeArray leaves elements uninitialized); a new one gets 1/8 more, so that the next
// pass's aggregate of about the same size fits in it.
template <class T>
void make_room(EdgeArray<T>& a, int64_t size) {
  a.clear();
  if (a.capacity() < static_cast<size_t>(size)) {
    EdgeArray<T>().swap(a);
    a.reserve(static_cast<size_t>(size + size / 8));
  }
}

// The spare array of the smaller capacity gives way to `from` where from holds more.
template <class T>
void keep_larger(EdgeArray<T> (&spare)[2], EdgeArray<T>& from) {
  EdgeArray<T>& smaller = spare[0].capacity() <= spare[1].capacity() ? spare[0] : spare[1];
  if (from.capacity() > smaller.capacity()) smaller.swap(from);
  EdgeArray<T>().swap(from);
}

// The spare array to hold `size` elements: the smallest that can, else the smaller one (which
// make_room then replaces), so that a larger one is kept for a larger aggregate.
template <class T>
EdgeArray<T>& spare_for(EdgeArray<T> (&spare)[2], int64_t size) {
  const bool fit0 = spare[0].capacity() >= static_cast<size_t>(size), fit1 = spare[1].capacity() >= static_cast<size_t>(size);
  if (fit0 != fit1) return fit0 ? spare[0] : spare[1];
  return spare[0].capacity() <= spare[1].capacity() ? spare[0] : spare[1];
}

}  // namespace

void AggregateBuffers::recycle(LeidenGraph& g) {
  keep_larger(spare_columns, g.columns);
  keep_larger(spare_weights, g.weights);
}

LeidenGraph leiden_aggregate(const LeidenGraph& g, const std::vector<int64_t>& community, int64_t k, int threads,
                             AggregateBuffers* buffers) {
  AggregateBuffers local;
  AggregateBuffers& buf = buffers != nullptr ? *buffers : local;
  // Members of each community in node order (a counting sort).
  std::vector<int64_t> start(static_cast<size_t>(k + 1), 0), member(static_cast<size_t>(g.n));
  for (int64_t v = 0; v < g.n; ++v) ++start[static_cast<size_t>(community[static_cast<size_t>(v)] + 1)];
  for (int64_t c = 0; c < k; ++c) start[static_cast<size_t>(c + 1)] += start[static_cast<size_t>(c)];
  {
    std::vector<int64_t> next(start.begin(), start.end() - 1);
    for (int64_t v = 0; v < g.n; ++v) member[static_cast<size_t>(next[static_cast<size_t>(community[static_cast<size_t>(v)])]++)] = v;
  }
  LeidenGraph out;
  out.n = k;
  out.kp.assign(static_cast<size_t>(k), 0.0);
  out.kn.assign(static_cast<size_t>(k), 0.0);
  // Rows in contiguous chunks, each chunk's rows into its own arrays, then joined in chunk order:
  // a row's entries and sums are made by one thread in member order, whatever the team.
  const int team = parallel_team(g.offsets[static_cast<size_t>(g.n)] + g.n, threads);
  const int64_t chunks = team == 1 ? 1 : std::min<int64_t>(k, int64_t(team) * 8);
  // One chunk: its rows go straight into spare arrays (room for every entry of g), which become
  // the graph's.
  EdgeArray<int64_t>& one_columns = spare_for(buf.spare_columns, g.offsets[static_cast<size_t>(g.n)]);
  EdgeArray<double>& one_weights = spare_for(buf.spare_weights, g.offsets[static_cast<size_t>(g.n)]);
  // Several chunks: each its own new arrays, allocated by the thread that fills them. (Chunk
  // arrays kept from call to call made the voxel network's aggregation 5-17 % slower, paired
  // ratios of five alternating runs; new ones only refault the planted graph's chunks.)
  std::vector<EdgeArray<int64_t>> several_columns(static_cast<size_t>(chunks > 1 ? chunks : 0));
  std::vector<EdgeArray<double>> several_weights(several_columns.size());
  auto chunk_columns = [&](int64_t chunk) -> EdgeArray<int64_t>& {
    return chunks == 1 ? one_columns : several_columns[static_cast<size_t>(chunk)];
  };
  auto chunk_weights = [&](int64_t chunk) -> EdgeArray<double>& {
    return chunks == 1 ? one_weights : several_weights[static_cast<size_t>(chunk)];
  };
  std::vector<int64_t> row_length(static_cast<size_t>(k), 0);
  // Scratch of fewer slots than communities is replaced; more is fine (stamps tell what is met).
  for (CommunityWeights& cw : buf.scratch)
    if (int64_t(cw.slot.size()) < k) cw = CommunityWeights(k);
  while (int(buf.scratch.size()) < team) buf.scratch.emplace_back(k);
#pragma omp parallel for schedule(dynamic, 1) num_threads(team) if (team > 1)
  for (int64_t chunk = 0; chunk < chunks; ++chunk) {
    CommunityWeights& cw = buf.scratch[static_cast<size_t>(omp_get_thread_num())];
    EdgeArray<int64_t>& cols = chunk_columns(chunk);
    EdgeArray<double>& wts = chunk_weights(chunk);
    const int64_t first = k * chunk / chunks, last = k * (chunk + 1) / chunks;
    // About the chunk's share of the entries (a hint: usually one allocation per chunk).
    const int64_t bound = g.offsets[static_cast<size_t>(g.n)] * (last - first) / std::max<int64_t>(k, 1);
    make_room(cols, bound);
    make_room(wts, bound);
    const int64_t* offsets = g.offsets.data();
    const int64_t* columns = g.column_data();
    const EdgeWeights weights = g.edge_weights();
    const int64_t* comm = community.data();
    for (int64_t c = first; c < last; ++c) {
      double kp = 0, kn = 0;
      for (int64_t i = start[static_cast<size_t>(c)]; i < start[static_cast<size_t>(c + 1)]; ++i) {
        const int64_t v = member[static_cast<size_t>(i)];
        kp += g.kp[static_cast<size_t>(v)];
        kn += g.kn[static_cast<size_t>(v)];
        for (int64_t e = offsets[v]; e < offsets[v + 1]; ++e) {
          const int64_t d = comm[columns[e]];
          if (d != c) cw.add(d, weights[e]);
        }
      }
      out.kp[static_cast<size_t>(c)] = kp;
      out.kn[static_cast<size_t>(c)] = kn;
      // Columns in the order first met (members in node order, each one's edges in row order):
      // the same for any team, without sorting each row.
      for (int64_t d : cw) {
        cols.push_back(d);
        wts.push_back(cw.weight(d));
      }
      row_length[static_cast<size_t>(c)] = cw.size;
      cw.clear();
    }
  }
  out.offsets.assign(static_cast<size_t>(k + 1), 0);
  for (int64_t c = 0; c < k; ++c) out.offsets[static_cast<size_t>(c + 1)] = out.offsets[static_cast<size_t>(c)] + row_length[static_cast<size_t>(c)];
  if (chunks == 1) {  // one chunk: its arrays are the graph's, without a copy
    out.columns = std::move(one_columns);
    out.weights = std::move(one_weights);
    return out;
  }
  // The chunks' rows copied to their offsets, each chunk by one thread, into the spare arrays.
  const int64_t entries = out.offsets[static_cast<size_t>(k)];
  EdgeArray<int64_t>& columns = spare_for(buf.spare_columns, entries);
  EdgeArray<double>& weights = spare_for(buf.spare_weights, entries);
  make_room(columns, entries);
  make_room(weights, entries);
  out.columns = std::move(columns);
  out.weights = std::move(weights);
  out.columns.resize(static_cast<size_t>(entries));
  out.weights.resize(static_cast<size_t>(entries));
#pragma omp parallel for schedule(dynamic, 1) num_threads(team) if (team > 1)
  for (int64_t chunk = 0; chunk < chunks; ++chunk) {
    const size_t at = static_cast<size_t>(out.offsets[static_cast<size_t>(k * chunk / chunks)]);
    const EdgeArray<int64_t>& cols = chunk_columns(chunk);
    const EdgeArray<double>& wts = chunk_weights(chunk);
    std::copy(cols.begin(), cols.end(), out.columns.begin() + at);
    std::copy(wts.begin(), wts.end(), out.weights.begin() + at);
  }
  return out;
}

int64_t renumber_by_first_appearance(std::vector<int64_t>& labels) {
  int64_t top = -1;
  for (int64_t x : labels) top = std::max(top, x);
  std::vector<int64_t> id(static_cast<size_t>(top + 1), -1);
  int64_t k = 0;
  for (int64_t& x : labels) {
    int64_t& to = id[static_cast<size_t>(x)];
    if (to < 0) to = k++;
    x = to;
  }
  return k;
}

namespace {

const int64_t* column_data(const GraphData& g) { return g.columns.data(); }
const int64_t* column_data(const LeidenGraph& g) { return g.column_data(); }
bool weight_is_zero(const GraphData& g, int64_t e) { return g.weights[static_cast<size_t>(e)] == 0; }
bool weight_is_zero(const LeidenGraph& g, int64_t e) { return g.edge_weights()[e] == 0; }

// A search of root's community (edges of non-zero weight) from root, which the caller marked:
// visit(u) marks u and says whether it was unmarked. Returns the nodes reached, root included.
template <class Csr, class Visit>
int64_t search_community(const Csr& g, const std::vector<int64_t>& labels, int64_t root, std::vector<int64_t>& stack,
                         Visit visit) {
  const int64_t c = labels[static_cast<size_t>(root)];
  const int64_t* columns = column_data(g);
  int64_t reached = 1;
  stack.assign(1, root);
  while (!stack.empty()) {
    const size_t v = static_cast<size_t>(stack.back());
    stack.pop_back();
    for (int64_t e = g.offsets[v]; e < g.offsets[v + 1]; ++e) {
      const size_t u = static_cast<size_t>(columns[e]);
      if (weight_is_zero(g, e) || labels[u] != c || !visit(u)) continue;
      ++reached;
      stack.push_back(int64_t(u));
    }
  }
  return reached;
}

// Whether every community of `labels` (ids < k) is connected: each community's size and first
// node, then one search per community from its first node, the communities on
// `threads` (0 = default). A search marks only its own community's nodes, so no two threads write
// the same mark; the answer is the same for any thread count.
template <class Csr>
bool every_community_connected(const Csr& g, const std::vector<int64_t>& labels, int64_t k, int threads) {
  std::vector<int64_t> members(static_cast<size_t>(k), 0), first(static_cast<size_t>(k), -1);
  for (int64_t v = 0; v < g.n; ++v) {
    const size_t c = static_cast<size_t>(labels[static_cast<size_t>(v)]);
    ++members[c];
    if (first[c] < 0) first[c] = v;
  }
  std::vector<char> seen(static_cast<size_t>(g.n), 0);
  const int team = parallel_team(g.offsets[static_cast<size_t>(g.n)] + g.n, threads, k);
  bool connected = true;
#pragma omp parallel num_threads(team) if (team > 1) reduction(&& : connected)
  {
    std::vector<int64_t> stack;
#pragma omp for schedule(dynamic, 1)
    for (int64_t c = 0; c < k; ++c) {
      const int64_t size = members[static_cast<size_t>(c)], root = first[static_cast<size_t>(c)];
      if (size < 2) continue;
      seen[static_cast<size_t>(root)] = 1;
      const int64_t reached = search_community(g, labels, root, stack, [&](size_t u) {
        if (seen[u]) return false;
        seen[u] = 1;
        return true;
      });
      connected = connected && reached == size;
    }
  }
  return connected;
}

// split_disconnected of any CSR graph type (float or double weights). The usual case, every
// community connected (Leiden's refinement keeps them so), is found in parallel and gives the
// labels renumbered by first appearance, as numbering the pieces would; otherwise the pieces are
// numbered in one sequential sweep in node order.
template <class Csr>
int64_t split_pieces(const Csr& g, std::vector<int64_t>& labels, int threads) {
  int64_t before = 0;
  for (int64_t x : labels) before = std::max(before, x + 1);
  if (every_community_connected(g, labels, before, threads)) return renumber_by_first_appearance(labels) - before;
  std::vector<int64_t> piece(static_cast<size_t>(g.n), -1), stack;
  int64_t pieces = 0;
  for (int64_t root = 0; root < g.n; ++root) {
    if (piece[static_cast<size_t>(root)] >= 0) continue;
    piece[static_cast<size_t>(root)] = pieces;
    search_community(g, labels, root, stack, [&](size_t u) {
      if (piece[u] >= 0) return false;
      piece[u] = pieces;
      return true;
    });
    ++pieces;
  }
  labels.swap(piece);
  return pieces - before;
}

}  // namespace

int64_t split_disconnected(const GraphData& g, std::vector<int64_t>& labels, int threads) {
  return split_pieces(g, labels, threads);
}
int64_t split_disconnected(const LeidenGraph& g, std::vector<int64_t>& labels, int threads) {
  return split_pieces(g, labels, threads);
}

}  // namespace fc
