// fc_modularity's last step (Newman 2006's closing refinement, generalized to K communities):
// single-node moves between communities that raise Q, node by node in node order, until a sweep
// moves none.
#pragma once

#include <cstdint>
#include <vector>

#include "graph/graph.hpp"
#include "modules/modularity.hpp"
#include "base/progress.hpp"

namespace fc {

// Moves node after node (in node order) to the community that raises Q most, by more than
// kMinGain, until a sweep moves none (or after 1000 sweeps). Never moves an isolated node
// (`isolated`), never targets a community holding one or an empty community, and never leaves a
// community below min_size (a singleton may dissolve). label: 0 .. k-1 in, the moved labels out.
//
// Each node's choice is computed as the node-by-node sweep computes it, so the moves and bits do
// not depend on `threads` (0 = OpenMP's default): with several threads the nodes of a window are
// judged at once against the current labels, the first one that moves is moved and the sweep goes
// on after it, so every judgement a move depends on was made in the state the sequential sweep
// would have had. A node whose judgement cannot have changed since it was judged to stay (no
// neighbour moved, and the moves since cannot have closed the margin its best gain missed by:
// final_moves.cpp's Settled) is not judged again, so the sweeps after the first few cost about the
// moved nodes' neighbourhoods, with the same moves as judging every node.
// stats (optional): what the sweeps did. skip_settled = false judges every node in every sweep
// (the tests' comparison: the same moves either way).
struct FinalMovesStats {
  int64_t sweeps = 0, moves = 0, judged = 0, skipped = 0, windows = 0;  // windows: parallel judgements
};
void final_moves(const GraphData& g, const ModularityTerms& t, std::vector<int64_t>& label, int64_t k,
                 const std::vector<char>& isolated, int64_t min_size, int threads, Progress& progress,
                 FinalMovesStats* stats = nullptr, bool skip_settled = true);

}  // namespace fc
