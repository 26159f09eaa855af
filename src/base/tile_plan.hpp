// Planning: how many rows of output one tile may hold within a memory budget.
#pragma once

#include <cstdint>
#include <string>

namespace fc {

// Rows per tile such that rows * bytes_per_row <= budget, between 1 and max_rows. Throws
// FC_ERR_OUT_OF_MEMORY naming the minimum when even one row does not fit; `what` names the work
// for that message ("PCC of 20000 series").
int64_t plan_tile_rows(int64_t bytes_per_row, int64_t budget, int64_t max_rows, const std::string& what);

// Default working-memory budget of the CPU backend: a quarter of physical memory, at most 1 GiB
// (larger tiles stop paying once a tile is a few hundred rows).
int64_t default_host_budget();

inline int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

}  // namespace fc
