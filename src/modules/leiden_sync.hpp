// The synchronous Leiden (fc_leiden_v2 with FC_LEIDEN_SYNCHRONOUS): the pass and level loop of
// leiden.hpp's method, its steps made by a backend's engine (backend/leiden_engine.hpp), so the
// same labels come from the host and the device.
#pragma once

#include "backend/leiden_engine.hpp"
#include "backend/modules_backend.hpp"
#include "modules/leiden.hpp"
#include "modules/phases.hpp"

namespace fc {

// Rounds of moves, and of refinement, at most per level (a level whose moves still go on is
// aggregated as it stands; the next pass goes on from there).
constexpr int64_t kSyncMaxRounds = 64;

struct SyncLeidenStats {
  int64_t passes = 0, levels = 0, moves = 0, move_rounds = 0, refine_rounds = 0, split_pieces = 0;
};

// The passes over `engine` from partition labels (ids < n; the last pass's labels on return,
// renumbered by first appearance): levels of moves, refinement and aggregation, until a pass moves
// no node or after max_iterations passes (0: 1000), the rounds' salts drawn from `seed`. st counts;
// profile prints each pass's time since `start` and the engine's phases to stderr.
void run_sync_passes(LeidenEngine& engine, std::vector<int64_t>& labels, uint64_t seed, int64_t max_iterations,
                     Progress& progress, SyncLeidenStats& st, bool profile, Phases::Clock::time_point start);

// options validated by the caller (validate_leiden_options), initial too (check_initial_labels).
// The engine comes from backend.leiden_engine; run gives its threads and memory limit.
Modules find_leiden_sync(const GraphData& g, const fc_leiden_options& options, const int64_t* initial,
                         ModulesBackend& backend, const RunSettings& run, Progress& progress,
                         SyncLeidenStats* stats = nullptr);

}  // namespace fc
