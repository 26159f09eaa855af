// The synchronous Leiden's steps on the device (src/backend/cuda/cuda_leiden.cpp drives them; each
// step's result is defined in src/backend/leiden_engine.hpp and is the host engine's, bit for bit:
// integer sums, and arg maxes with ties to the smaller id, through kernels/leiden_rules.hpp).
// Node ids, community ids (< 2n) and columns are int32 (the engine takes n < 2^30); weights and
// sums are fixed-point int64, kept as unsigned long long for the atomics (two's complement).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "leiden_rules.hpp"

namespace fc {
namespace kernels {

using ull = unsigned long long;

// One level's graph.
struct SyncLevel {
  int64_t n = 0;
  const int64_t* offsets = nullptr;  // n + 1
  const int32_t* columns = nullptr;
  const ull* weights = nullptr;
  const ull* kp = nullptr;
  const ull* kn = nullptr;
  // Layered (layers > 0; backend/leiden_engine.hpp): kp, kn unused; node v's weight list is
  // entries lstart[v] .. lstart[v + 1] of (llayer, lweight); gp the layers' coefficients.
  int64_t layers = 0;
  const int64_t* lstart = nullptr;
  const int32_t* llayer = nullptr;
  const ull* lweight = nullptr;
  const double* gp = nullptr;
};

// Per-node state, sized for level 0's n0 nodes (ids of communities below 2 n0).
struct SyncState {
  int32_t* label = nullptr;
  int32_t* target = nullptr;    // a round's decision per node (-1: none)
  ull* target_weight = nullptr; // refinement: the joiner's weight to its target
  uint8_t* active = nullptr;
  int32_t* moves_left = nullptr;  // per node: moves it may still make in the level (SyncTerms::max_node_moves)
  uint8_t* touched = nullptr;
  ull* sum_p = nullptr;         // per community id (2 n0; layered: 2 n0 rows of L)
  ull* sum_n = nullptr;
  int32_t* size = nullptr;      // per community id (2 n0)
  int32_t* refined = nullptr;
  ull* ext = nullptr;
  ull* sub_p = nullptr;         // per subcommunity (n0; layered: n0 rows of L)
  ull* sub_n = nullptr;
  int32_t* sub_size = nullptr;
  double* own = nullptr;        // layered: each subcommunity's layered_own
  int32_t* table_keys = nullptr;  // hash tables of rows longer than the shared ones: 4 slots an entry
  ull* table_values = nullptr;
  ull* counters = nullptr;        // [0]: changes of a round, [1]: active nodes, [2]: a count
};

// Level 0 from the caller's CSR (backend/leiden_engine.hpp's LeidenLevelZero; its columns as
// int32 on the device): kept[i] (n + 1
// values, the last 0) the row's kept entries, kp, kn the node weights.
cudaError_t sync_level0_count(const int64_t* offsets, const int32_t* columns, const float* weights, int64_t n, double scale,
                              bool cpm, int64_t* kept, ull* kp, ull* kn, cudaStream_t stream);
// The kept entries into new_offsets' places (in row order).
cudaError_t sync_level0_fill(const int64_t* offsets, const int32_t* columns, const float* weights, int64_t n, double c_pos,
                             double c_neg, double scale, bool cpm, const int64_t* new_offsets, int32_t* new_columns,
                             ull* new_weights, cudaStream_t stream);

// Exclusive prefix sums of n + 1 int64 values (offsets from counts); scratch of sync_scan_bytes(n).
size_t sync_scan_bytes(int64_t n);
cudaError_t sync_scan(const int64_t* in, int64_t* out, int64_t n, void* scratch, size_t scratch_bytes, cudaStream_t stream);
size_t sync_scan32_bytes(int64_t n);
cudaError_t sync_scan32(const int32_t* in, int32_t* out, int64_t n, void* scratch, size_t scratch_bytes, cudaStream_t stream);

// begin_moves: the sums and sizes of `label`'s communities, every node with entries active, each
// allowed max_node_moves moves (0: no limit).
cudaError_t sync_begin_moves(const SyncLevel& g, const SyncState& s, int32_t max_node_moves, cudaStream_t stream);
// One round of moves; counters[0] += moves, counters[1] += nodes active after it.
cudaError_t sync_move_round(const SyncLevel& g, const SyncState& s, const SyncTerms& t, uint64_t salt, int64_t round,
                            cudaStream_t stream);
// counters[2] += the distinct values of ids[0 .. n) (each below `range`); used: range bytes of scratch.
cudaError_t sync_count_distinct(const int32_t* ids, int64_t n, uint8_t* used, int64_t range, ull* counter,
                                cudaStream_t stream);
cudaError_t sync_begin_refine(const SyncLevel& g, const SyncState& s, cudaStream_t stream);
// One round of refinement; counters[0] += joins.
cudaError_t sync_refine_round(const SyncLevel& g, const SyncState& s, const SyncTerms& t, uint64_t salt, int64_t round,
                              cudaStream_t stream);
// Layered aggregation: each new node's list, its subcommunity's row without zeros. counts (k + 1
// values) the entries per new node, then (after a scan into new_start) the entries themselves.
cudaError_t sync_list_counts(const SyncLevel& g, const SyncState& s, const int32_t* id, int64_t* counts, cudaStream_t stream);
cudaError_t sync_list_fill(const SyncLevel& g, const SyncState& s, const int32_t* id, const int64_t* new_start,
                           int32_t* new_layer, ull* new_weight, cudaStream_t stream);
// counters[2] += the subcommunities (nodes v with refined[v] == v).
cudaError_t sync_count_founders(const int32_t* refined, int64_t n, ull* counter, cudaStream_t stream);

// Aggregation, in steps (cuda_leiden.cpp): founder flags, then (after a scan into `id`) each
// node's new id, the new node weights and communities, the level-0 map; the entries between new
// nodes as (row << 32 | column, weight) pairs (their count into *count), sorted and summed by key,
// then the new offsets.
cudaError_t sync_founder_flags(const int32_t* refined, int64_t n, int32_t* flags, cudaStream_t stream);
cudaError_t sync_used_flags(const int32_t* label, int64_t n, int32_t* flags, int64_t range, cudaStream_t stream);
cudaError_t sync_new_nodes(const SyncLevel& g, const SyncState& s, const int32_t* id, const int32_t* community_id,
                           int32_t* map, int64_t k, ull* kp, ull* kn, int32_t* new_label, cudaStream_t stream);
cudaError_t sync_map_level0(int32_t* level_of, int64_t n0, const int32_t* map, cudaStream_t stream);
cudaError_t sync_pairs(const SyncLevel& g, const int32_t* map, uint64_t* keys, ull* values, ull* count, cudaStream_t stream);
size_t sync_sort_bytes(int64_t items, int end_bit);
// Sorts the pairs (keys[0], values[0]; the [1] buffers are the sort's other halves) by key and
// sums each key's values: the unique keys and sums land in keys[*out], values[*out] and their
// number in *runs (device).
cudaError_t sync_sort_reduce(uint64_t* keys[2], ull* values[2], int64_t items, int end_bit, ull* runs, void* scratch,
                             size_t scratch_bytes, int* out, cudaStream_t stream);
cudaError_t sync_rows(const uint64_t* unique_keys, const ull* sums, int64_t entries, int64_t k, int64_t* counts,
                      int32_t* columns, ull* weights, cudaStream_t stream);
// The final checks (backend/leiden_engine.hpp's pieces and rows_inside) on labels (n ids):
// row_pos[i], row_neg[i] summed as modularity_of sums them on the host (the caller's entries in
// row order, one thread a row: the same additions); components: comp[v] = the smallest node of
// v's connected piece of its community once a round changes nothing (*changed stays 0).
cudaError_t sync_rows_inside(const int64_t* offsets, const int32_t* columns, const float* weights, int64_t n,
                             const int32_t* labels, double* row_pos, double* row_neg, cudaStream_t stream);
cudaError_t sync_components_start(int32_t* comp, int64_t n, cudaStream_t stream);
cudaError_t sync_components_round(const SyncLevel& g, const int32_t* labels, int32_t* comp, ull* changed,
                                  cudaStream_t stream);

// out[v] = label[level_of[v]] for the n0 level-0 nodes.
cudaError_t sync_gather_labels(const int32_t* label, const int32_t* level_of, int64_t n0, int32_t* out, cudaStream_t stream);

}  // namespace kernels
}  // namespace fc
