// How the CUDA backend cuts a computation into bands: each band is one GEMM tile whose finished
// values form one contiguous piece of the output. Header-only and free of CUDA types, so that
// bench/gpu can time cuBLAS alone over exactly the tiles the backend computes.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>

#include "base/triangle_index.hpp"
#include "fastconn/fastconn.h"

namespace fc {
namespace cuda {

// One GEMM tile holds at most this many values (256 MiB as float): bands past a few hundred rows
// of 90k columns gain no GEMM speed, and a bounded size keeps the band plan (hence the bits of
// the result) independent of how much device memory happens to be free.
constexpr int64_t kMaxTileValues = int64_t(64) << 20;

// kMaxTileValues, or FASTCONN_CUDA_MAX_TILE_VALUES when set (a tuning knob bench/gpu sweeps).
inline int64_t max_tile_values() {
  const char* env = std::getenv("FASTCONN_CUDA_MAX_TILE_VALUES");
  const long long v = env != nullptr ? std::atoll(env) : 0;
  return v >= (1 << 16) ? static_cast<int64_t>(v) : kMaxTileValues;
}

// Rows of one band never exceed this: cuBLAS takes int dimensions, and past a few thousand rows a
// wider GEMM gains nothing.
constexpr int64_t kMaxBandRows = 16384;

// A band of the triangle: "rows" q in [q0, q1) (the smaller index of a pair in row order, the
// larger one in column order) against the columns p in [p0, p0 + ld). The GEMM tile is ld x rows
// (row q's products contiguous); the band's pairs are the slice [offset, offset + count) of the
// run, offset counted from the run's first row.
struct TriuBand {
  int64_t q0 = 0, q1 = 0;
  int64_t p0 = 0, ld = 0;
  int64_t offset = 0, count = 0;
};

// Pairs of row-order rows [0, q) or column-order columns [1, q): where a band's slice starts.
inline int64_t triu_start(int64_t n, fc_triu_order order, int64_t q) {
  return order == FC_TRIU_ROW ? row_start(n, q) : col_start(q);
}

// Columns the tile of a band starting at q0 needs for its first row: the most any row of a
// row-order band needs, and the fewest of a column-order band (which grow with the band).
inline int64_t triu_min_columns(int64_t n, fc_triu_order order, int64_t q0) {
  return order == FC_TRIU_ROW ? n - 1 - q0 : q0;
}

// The band that starts at q0 of a run ending at q_end, with a tile of at most tile_values values
// (at least one row always: the planner guarantees a row fits). run_begin: the run's first row.
inline TriuBand next_triu_band(int64_t n, fc_triu_order order, int64_t q0, int64_t q_end, int64_t run_begin,
                               int64_t tile_values) {
  TriuBand b;
  b.q0 = q0;
  int64_t rows = 1;
  if (order == FC_TRIU_ROW) {
    // rows q in [q0, q1) pair with p in (q, n): columns [q0 + 1, n) cover every row
    b.p0 = q0 + 1;
    b.ld = n - 1 - q0;
    rows = std::max<int64_t>(1, tile_values / std::max<int64_t>(1, b.ld));
  } else {
    // columns q in [q0, q1) pair with p in [0, q): rows [0, q1 - 1) cover every column, so the
    // tile is rows x (q0 + rows - 1): the largest rows with rows * (q0 + rows - 1) <= tile_values
    const long double c = static_cast<long double>(q0) - 1.0L;
    rows = static_cast<int64_t>((-c + std::sqrt(c * c + 4.0L * static_cast<long double>(tile_values))) / 2.0L);
    while (rows > 1 && rows * (q0 + rows - 1) > tile_values) --rows;
    while ((rows + 1) * (q0 + rows) <= tile_values && q0 + rows < q_end) ++rows;
    rows = std::max<int64_t>(1, rows);
  }
  rows = std::min({rows, q_end - q0, kMaxBandRows});
  b.q1 = q0 + rows;
  if (order == FC_TRIU_COL) {
    b.p0 = 0;
    b.ld = b.q1 - 1;
  }
  b.offset = triu_start(n, order, q0) - triu_start(n, order, run_begin);
  b.count = triu_start(n, order, b.q1) - triu_start(n, order, q0);
  return b;
}

// A band of a cross product: rows [a0, a1) of set a against all n_b series of set b.
struct CrossBand {
  int64_t a0 = 0, a1 = 0;
};

inline CrossBand next_cross_band(int64_t a0, int64_t a_end, int64_t n_b, int64_t tile_values) {
  const int64_t rows = std::min({std::max<int64_t>(1, tile_values / std::max<int64_t>(1, n_b)), a_end - a0, kMaxBandRows});
  return CrossBand{a0, a0 + rows};
}

}  // namespace cuda
}  // namespace fc
