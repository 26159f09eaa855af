// A bisection's state and its fine-tuning (Newman 2006's "Kernighan-Lin" step): the sums a split
// needs, its gain in Q, and the vertex moves that refine it (split_refine.cpp).
#pragma once

#include <cstdint>
#include <vector>

#include "modules/local_graph.hpp"
#include "modules/modularity.hpp"

namespace fc {

// (B_g x)_i without the diagonal correction, for a +-1 vector: y = A s, P = k+ . s, N = k- . s.
struct SplitState {
  std::vector<double> y;
  double p = 0, q = 0;
};

// The rows' sums of s's state (split_refine.cpp says how): the same bits for any thread count.
SplitState split_state(const LocalGraph& lg, const std::vector<int8_t>& s, int threads);

// The rise in Q from splitting the group by s: (s^T B^(g) s) / 2s = (s^T B_g s - 1^T B_g 1) / 2s,
// from s's state (split_state's bits).
double split_gain(const LocalGraph& lg, const ModularityTerms& t, const std::vector<int8_t>& s, const SplitState& st);

// The fine-tuning of the split s of the group (its subgraph lg; nodes: the group's nodes in the
// graph, by local node); a flip never leaves a side below min_size. Returns the final s's state as
// the flips left it: split_state's bits when the subgraph's sums are exact, else rounded differently.
SplitState refine_split(const LocalGraph& lg, const ModularityTerms& t, const std::vector<int64_t>& nodes,
                        std::vector<int8_t>& s, int64_t min_size, int threads);

}  // namespace fc
